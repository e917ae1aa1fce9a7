#include "driver/Driver.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "codegen/CodeGen_C.h"
#include "codegen/CodeGen_CUDA.h"
#include "driver/Options.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"
#include "lex/Lexer.h"
#include "parse/AstPrinter.h"
#include "parse/Modules.h"
#include "sema/Sema.h"

namespace formac {
namespace {

SourceFile readSource(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot open '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw UserError("cannot read '" + path + "'");
  return SourceFile{path, ss.str()};
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw UserError("cannot write '" + path + "'");
  out << text;
  if (!out) throw UserError("cannot write '" + path + "'");
}

std::string stemOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.find('.');
  return dot == std::string::npos ? base : base.substr(0, dot);
}

std::string kernelNameFor(const Options& o) {
  std::string name = o.kernelName.empty() ? stemOf(o.input) : o.kernelName;
  bool ok = !name.empty() && !isdigit(static_cast<unsigned char>(name[0]));
  for (char c : name) ok = ok && (isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) {
    if (!o.kernelName.empty())
      throw UserError("kernel name '" + name + "' is not a C identifier");
    std::string fixed;
    for (char c : name) fixed += isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (fixed.empty() || isdigit(static_cast<unsigned char>(fixed[0]))) fixed = "k_" + fixed;
    name = fixed;
  }
  return name;
}

std::string dumpTokens(const std::vector<Token>& toks) {
  std::ostringstream os;
  for (const auto& t : toks)
    os << t.loc.line << ":" << t.loc.col << " " << tokenSpelling(t.kind)
       << (t.kind == Tok::End ? "" : " " + t.text) << "\n";
  return os.str();
}

int compile(const Options& o) {
  if (o.help) {
    std::cout << usage();
    return 0;
  }
  if (o.version) {
    std::cout << "formac 0.1\n";
    return 0;
  }
  if (o.input.empty()) throw UserError("no input file\n" + usage());
  SourceFile src = readSource(o.input);
  std::vector<Token> tokens = lex(src);
  if (o.emit == "tokens") {
    std::cout << dumpTokens(tokens);
    return 0;
  }
  SourceFiles imported;
  ast::Program program = parseProgram(src, imported, defaultImportPath());
  if (o.emit == "ast") {
    std::cout << ast::printProgram(program);
    return 0;
  }
  Warnings warnings;
  std::string kernel = kernelNameFor(o);
  ir::Pipeline pipeline = buildPipeline(program, kernel, warnings);
  if (o.warnings)
    for (const auto& w : warnings.rendered()) std::cerr << w;
  if (o.warningsAsErrors && !warnings.rendered().empty()) return 1;
  ir::verify(pipeline);
  if (o.emit == "dag") {
    std::cout << ir::printPipeline(pipeline);
    return 0;
  }
  if (o.emit == "dot") {
    std::cout << ir::printDot(pipeline);
    return 0;
  }
  bool cuda = o.emit == "cuda" || (o.emit.empty() && o.target == "cuda");
  std::string code, header;
  if (cuda) {
    codegen::CudaOptions co;
    co.kernelName = kernel;
    co.sourcePath = o.input;
    co.fuse = !o.noFuse;
    auto g = codegen::generateCuda(pipeline, co);
    code = g.source;
    header = g.header;
  } else {
    codegen::COptions co;
    co.kernelName = kernel;
    co.sourcePath = o.input;
    co.openmp = o.openmp;
    co.fuse = !o.noFuse;
    auto g = codegen::generateC(pipeline, co);
    code = g.source;
    header = g.header;
  }
  bool toStdout = !o.emit.empty() && o.output.empty();
  if (toStdout) {
    std::cout << code;
  } else {
    std::string out = o.output;
    if (out.empty()) out = o.input + (cuda ? ".cu" : ".c");
    writeFile(out, code);
    // Forma's default place, beside the source: say so (--help does too).
    if (o.output.empty()) std::cerr << "formac: wrote " << out << "\n";
  }
  if (!o.headerFile.empty()) writeFile(o.headerFile, header);
  return 0;
}

}  // namespace

int runDriver(const std::vector<std::string>& args) {
  return exitStatusOf([&] { return compile(parseOptions(args)); });
}

}  // namespace formac
