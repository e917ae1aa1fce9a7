#include "driver/Driver.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "codegen/CodeGen_C.h"
#include "codegen/CodeGen_CUDA.h"
#include "driver/Options.h"
#include "frontend/EntryName.h"
#include "frontend/Frontend.h"
#include "ir/Printer.h"
#include "lex/Lexer.h"
#include "parse/AstPrinter.h"
#include "passes/Lower.h"
#include "passes/PlanPrinter.h"

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
  errno = 0;
  std::ofstream out(path, std::ios::binary);
  // Say why: a missing folder (formac creates none) read as a bare "cannot write".
  if (!out) throw UserError("cannot write '" + path + "'" + (errno ? std::string(": ") + std::strerror(errno) : ""));
  out << text;
  if (!out) throw UserError("cannot write '" + path + "'");
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
  if (o.emit == "tokens") {
    std::cout << dumpTokens(lex(src));
    return 0;
  }
  SourceFiles imported;
  if (o.emit == "ast") {
    std::cout << ast::printProgram(parseProgram(src, imported, defaultImportPath()));
    return 0;
  }
  Warnings warnings;
  std::string kernel = entryPointName(o.input, o.kernelName, warnings);
  ir::Pipeline pipeline = checkedPipeline(src, kernel, warnings, imported, defaultImportPath());
  if (o.warnings)
    for (const auto& w : warnings.rendered()) std::cerr << w;
  if (o.warningsAsErrors && !warnings.rendered().empty()) return 1;
  if (o.emit == "dag") {
    std::cout << ir::printPipeline(pipeline);
    return 0;
  }
  // What is lowered is what is printed: --emit=c or cuda names it, else --target
  // (for the code, the plan, the dot graph and --dump-after alike).
  bool cuda = o.emit == "cuda" || (o.emit != "c" && o.target == "cuda");
  passes::Target target = cuda ? passes::Target::cuda(!o.noFuse) : passes::Target::c(!o.noFuse, o.openmp);
  passes::LoweredPipeline lowered = passes::lower(
      pipeline, target, [&](const passes::Pass& pass, const passes::LoweredPipeline& l) {
        if (o.dumpAfter == pass.name || o.dumpAfter == "all")
          std::cout << "// after " << pass.name << ": " << pass.contract << "\n"
                    << ir::printPipeline(l.pipeline) << passes::printPlan(l);
      });
  if (!o.dumpAfter.empty()) return 0;
  if (o.emit == "plan") {
    std::cout << passes::printPlan(lowered);
    return 0;
  }
  if (o.emit == "dot") {
    std::cout << passes::printPlanDot(lowered);
    return 0;
  }
  std::string code, header;
  if (cuda) {
    codegen::CudaOptions co;
    co.kernelName = kernel;
    co.sourcePath = o.input;
    auto g = codegen::printCuda(lowered, co);
    code = g.source;
    header = g.header;
  } else {
    codegen::COptions co;
    co.kernelName = kernel;
    co.sourcePath = o.input;
    auto g = codegen::printC(lowered, co);
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
