#include "codegen/Stmt.h"

#include "codegen/Naming.h"
#include "support/Diagnostics.h"

namespace formac::codegen {

Stmts::Stmts(std::vector<Stmt> list) {
  if (!list.empty()) list_ = std::make_shared<const std::vector<Stmt>>(std::move(list));
}

const std::vector<Stmt>& Stmts::list() const {
  static const std::vector<Stmt> none;
  return list_ ? *list_ : none;
}

namespace {

Stmt node(Stmt::Kind kind, std::vector<Stmt> body = {}) {
  Stmt s;
  s.kind = kind;
  s.body = std::move(body);
  return s;
}

}  // namespace

Stmt seq(std::vector<Stmt> body) { return node(Stmt::Seq, std::move(body)); }

Stmt block(std::vector<Stmt> body, const std::string& braceComment) {
  Stmt s = node(Stmt::Block, std::move(body));
  s.text = braceComment;
  return s;
}

Stmt decl(const std::string& type, const std::string& name, const std::string& value, bool isConst) {
  // `const T*` would make the pointee const: a pointer's type says where const goes.
  if (isConst && !type.empty() && type.back() == '*') throw InternalError("a const pointer declaration of " + name);
  Stmt s = node(Stmt::Decl);
  s.type = type;
  s.name = name;
  s.value = value;
  s.isConst = isConst;
  return s;
}

Stmt declOnly(const std::string& type, const std::string& name) { return decl(type, name, "", false); }

Stmt assign(const std::string& name, const std::string& value) {
  Stmt s = node(Stmt::Assign);
  s.name = name;
  s.value = value;
  return s;
}

Stmt eval(const std::string& value) {
  Stmt s = node(Stmt::Eval);
  s.value = value;
  return s;
}

Stmt forLoop(const std::string& init, const std::string& cond, const std::string& step, std::vector<Stmt> body,
             const std::string& parallel) {
  Stmt s = node(Stmt::For, std::move(body));
  s.init = init;
  s.cond = cond;
  s.step = step;
  s.parallel = parallel;
  return s;
}

Stmt unrolledLoop(const std::string& init, const std::string& cond, const std::string& step, std::vector<Stmt> body) {
  Stmt s = forLoop(init, cond, step, std::move(body));
  s.unroll = true;
  return s;
}

Stmt whileLoop(const std::string& cond, std::vector<Stmt> body) {
  Stmt s = node(Stmt::While, std::move(body));
  s.cond = cond;
  return s;
}

Stmt ifThen(const std::string& cond, std::vector<Stmt> body, std::vector<Stmt> orElse) {
  Stmt s = node(Stmt::If, std::move(body));
  s.cond = cond;
  s.orElse = std::move(orElse);
  return s;
}

Stmt comment(const std::string& text) {
  Stmt s = node(Stmt::Comment);
  s.text = text;
  return s;
}

Stmt text(const std::string& lines) {
  Stmt s = node(Stmt::Text);
  s.text = lines;
  return s;
}

Stmt function(const std::string& qualifiers, const std::string& returns, const std::string& name,
              std::vector<Param> params, std::vector<Stmt> body, std::vector<std::string> quietIfUnused) {
  Stmt s = node(Stmt::Function, std::move(body));
  s.qualifiers = qualifiers;
  s.returns = returns;
  s.name = name;
  s.params = std::move(params);
  s.quietIfUnused = std::move(quietIfUnused);
  return s;
}

Stmt lambda(const std::string& name, std::vector<Param> params, const std::string& returns, std::vector<Stmt> body) {
  Stmt s = function("", returns, name, std::move(params), std::move(body));
  s.kind = Stmt::Lambda;
  return s;
}

Stmt record(const std::string& name, std::vector<Stmt> members) {
  Stmt s = node(Stmt::Record, std::move(members));
  s.name = name;
  return s;
}

std::string StmtPrinter::print(const Stmt& s, const std::string& indent) const {
  std::string out;
  printTo(out, s, indent);
  return out;
}

std::string StmtPrinter::print(const std::vector<Stmt>& body, const std::string& indent) const {
  std::string out;
  for (const Stmt& s : body) printTo(out, s, indent);
  return out;
}

std::string StmtPrinter::params(const std::vector<Param>& ps) const {
  if (ps.empty()) return noParams();
  std::string out;
  for (const Param& p : ps) {
    if (!out.empty()) out += ", ";
    out += (p.readOnly ? "const " : "") + p.type + (p.pointer ? "* " + restrictQualifier() + " " : " ") + p.name;
  }
  return out;
}

std::string StmtPrinter::lambdaExpr(const std::vector<Param>& ps, const std::vector<Stmt>& body,
                                    const std::string& indent, const std::string& returns) const {
  if (!lambdas()) throw InternalError("a lambda in C code");
  return "[&](" + params(ps) + ")" + (returns.empty() ? "" : " -> " + returns) + " {\n" + print(body, indent + "  ") +
         indent + "}";
}

void StmtPrinter::printTo(std::string& out, const Stmt& s, const std::string& in) const {
  const std::string inner = in + "  ";
  switch (s.kind) {
    case Stmt::Seq:
      for (const Stmt& b : s.body) printTo(out, b, in);
      return;
    case Stmt::Block:
      out += in + (s.text.empty() ? "{\n" : "{  /* " + s.text + " */\n");
      for (const Stmt& b : s.body) printTo(out, b, inner);
      out += in + "}\n";
      return;
    case Stmt::Decl:
      out += in + (s.isConst ? "const " : "") + s.type + " " + s.name + (s.value.empty() ? "" : " = " + s.value) + ";\n";
      return;
    case Stmt::Assign:
      out += in + s.name + " = " + s.value + ";\n";
      return;
    case Stmt::Eval:
      out += in + s.value + ";\n";
      return;
    case Stmt::For:
      if (!s.parallel.empty()) out += parallelLoop(s);
      if (s.unroll) out += unrollPragma(in);
      out += in + "for (" + s.init + ";" + (s.cond.empty() ? "" : " " + s.cond) + ";" +
             (s.step.empty() ? "" : " " + s.step) + ") {\n";
      for (const Stmt& b : s.body) printTo(out, b, inner);
      out += in + "}\n";
      return;
    case Stmt::While:
      out += in + "while (" + s.cond + ") {\n";
      for (const Stmt& b : s.body) printTo(out, b, inner);
      out += in + "}\n";
      return;
    case Stmt::If: {  // an else holding one if prints as `else if`
      const Stmt* branch = &s;
      out += in + "if (" + s.cond + ") {\n";
      for (;;) {
        for (const Stmt& b : branch->body) printTo(out, b, inner);
        const Stmts& orElse = branch->orElse;
        if (orElse.size() == 1 && orElse[0].kind == Stmt::If) {
          branch = &orElse[0];
          out += in + "} else if (" + branch->cond + ") {\n";
          continue;
        }
        if (!orElse.empty()) {
          out += in + "} else {\n";
          for (const Stmt& b : orElse) printTo(out, b, inner);
        }
        break;
      }
      out += in + "}\n";
      return;
    }
    case Stmt::Comment: {  // lines after the first under the first's text
      std::string lines = s.text;
      for (size_t at = lines.find('\n'); at != std::string::npos; at = lines.find('\n', at + 1))
        lines.insert(at + 1, in + "   ");
      out += in + "/* " + lines + " */\n";
      return;
    }
    case Stmt::Text:
      out += s.text;
      return;
    case Stmt::Function: {
      std::string body;
      for (const Stmt& b : s.body) printTo(body, b, inner);
      if (!s.templateParams.empty()) out += in + "template <" + s.templateParams + ">\n";
      out += in + (s.qualifiers.empty() ? "" : s.qualifiers + " ") + s.returns + " " +
             (s.attributes.empty() ? "" : s.attributes + " ") + s.name + "(" + params(s.params) + ") {\n" + unusedParameters(s.quietIfUnused, body, inner) + body + in + "}\n";
      return;
    }
    case Stmt::Record:
      out += in + s.name + " {\n";
      for (const Stmt& b : s.body) printTo(out, b, inner);
      out += in + "};\n";
      return;
    case Stmt::Lambda:
      out += in + "auto " + s.name + " = " + lambdaExpr(s.params, s.body.list(), in, s.returns) + ";\n";
      return;
  }
}

std::string CPrinter::restrictQualifier() const { return "restrict"; }

std::string CPrinter::parallelLoop(const Stmt& loop) const {
  return "FORMAC_PRAGMA(omp parallel for " + loop.parallel + ")\n";
}

std::string CPrinter::unrollPragma(const std::string&) const {
  throw InternalError("an unrolled loop in C code (the C printer leaves unrolling to the compiler)");
}

std::string CudaPrinter::unrollPragma(const std::string& indent) const { return indent + "#pragma unroll\n"; }

std::string CudaPrinter::restrictQualifier() const { return "__restrict__"; }

std::string CudaPrinter::parallelLoop(const Stmt&) const {
  throw InternalError("a loop shared among OpenMP threads in CUDA code");
}

const StmtPrinter& printerFor(bool cuda) {
  static const CPrinter c;
  static const CudaPrinter cu;
  if (cuda) return cu;
  return c;
}

}  // namespace formac::codegen
