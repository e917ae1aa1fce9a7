#include "parse/AstPrinter.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace formac::ast {
namespace {

// The shortest decimal that reads back as `v`: 0.1, not 0.10000000000000001
// (and not 6 digits, which would hide a change in the 7th).
std::string shortest(double v) {
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

class Printer {
 public:
  std::string run(const Program& p) {
    for (const auto& i : p.imports) line(0, "import \"" + i.path + "\"" + at(i.loc));
    for (const auto& s : p.structs) {
      line(0, "struct " + s.name + (s.builtinCuda ? " builtin" : ""));
      for (const auto& f : s.fields) line(1, std::string(scalarName(f.type)) + " " + f.name);
    }
    for (const auto& s : p.stencils) {
      line(0, "stencil " + s.name + at(s.loc));
      for (const auto& prm : s.params) line(1, "param " + paramText(prm.rank, prm.type, prm.name));
      for (const auto& a : s.body) {
        line(1, "let " + a.name);
        expr(*a.value, 2);
      }
      line(1, "return");
      expr(*s.result, 2);
    }
    for (const auto& f : p.vectorFns) {
      line(0, "vector " + f.name + at(f.loc));
      for (const auto& prm : f.params) line(1, "param " + paramText(prm.rank, prm.type, prm.name));
      for (const auto& s : f.body) stmt(*s, 1);
      line(1, "return");
      vexpr(*f.result, 2);
    }
    for (const auto& prm : p.params)
      line(0, "parameter " + prm.name +
                  (prm.defaultValue ? " = " + std::to_string(*prm.defaultValue) : ""));
    for (const auto& in : p.inputs) {
      std::string t = "input " + paramText(in.rank, in.type, in.name);
      if (!in.extent.empty()) {
        t += " [";
        for (size_t i = 0; i < in.extent.size(); ++i) t += (i ? ", " : "") + size(*in.extent[i]);
        t += "]";
      }
      line(0, t);
    }
    for (const auto& s : p.stmts) stmt(*s, 0);
    line(0, "return" + at(p.returnLoc));
    for (const auto& r : p.results) vexpr(*r, 1);
    return os_.str();
  }

 private:
  // Indented two spaces per level. Deeper than kMaxIndent levels the depth is
  // written as a number instead, so that the dump of a deep expression (a
  // chain of 100,000 '+') stays linear in its size.
  static constexpr int kMaxIndent = 40;
  void line(int depth, const std::string& text) {
    os_ << std::string(static_cast<size_t>(2 * std::min(depth, kMaxIndent)), ' ');
    if (depth > kMaxIndent) os_ << "<" << depth << "> ";
    os_ << text << "\n";
  }
  static std::string at(const SourceLoc& l) {
    return " @" + std::to_string(l.line) + ":" + std::to_string(l.col);
  }
  static std::string paramText(int rank, const TypeName& t, const std::string& name) {
    return (rank ? "vector#" + std::to_string(rank) + " " : "") + t.spelling() + " " + name;
  }
  static std::string offsets(const std::vector<OffsetAxis>& o) {
    std::string t = "@[";
    for (size_t i = 0; i < o.size(); ++i) {
      t += i ? "," : "";
      t += o[i].scale == 1 ? std::to_string(o[i].offset)
                           : "(" + std::to_string(o[i].offset) + "," + std::to_string(o[i].scale) + ")";
    }
    return t + "]";
  }
  static std::string size(const SizeExpr& e) {
    switch (e.kind) {
      case SizeExpr::Int: return std::to_string(e.value);
      case SizeExpr::Param: return e.name;
      case SizeExpr::Add: return "(" + size(*e.lhs) + " + " + size(*e.rhs) + ")";
      case SizeExpr::Sub: return "(" + size(*e.lhs) + " - " + size(*e.rhs) + ")";
      case SizeExpr::Mul: return "(" + size(*e.lhs) + " * " + size(*e.rhs) + ")";
      case SizeExpr::Div: return "(" + size(*e.lhs) + " / " + std::to_string(e.value) + ")";
    }
    return "?";
  }
  static std::string domain(const Domain& d) {
    std::string t = "[";
    for (size_t i = 0; i < d.axes.size(); ++i) {
      const Range& r = d.axes[i];
      t += i ? ", " : "";
      if (r.lo) t += size(*r.lo);
      if (r.isRange) t += "..";
      if (r.hi) t += size(*r.hi);
    }
    return t + "]";
  }
  static std::string indexText(const IndexedName& n) {
    if (!n.present) return "";
    if (n.iterator.empty()) return "<" + std::to_string(n.delta) + ">";
    return "<" + n.iterator + (n.delta ? (n.delta > 0 ? "+" : "") + std::to_string(n.delta) : "") + ">";
  }

  void expr(const Expr& e, int depth) {
    switch (e.kind) {
      case Expr::IntLit: line(depth, "int " + std::to_string(e.intValue)); return;
      case Expr::FloatLit: line(depth, "float " + shortest(e.floatValue)); return;
      case Expr::DoubleLit: line(depth, "double " + shortest(e.floatValue)); return;
      case Expr::Name: line(depth, "name " + e.name); return;
      case Expr::OffsetRead: line(depth, "read " + e.name + offsets(e.offsets)); return;
      case Expr::IndexRead: line(depth, "index " + e.name); break;
      case Expr::Field: line(depth, "field ." + e.name); break;
      case Expr::Unary: line(depth, "unary " + e.name); break;
      case Expr::Binary: line(depth, "binary " + e.name); break;
      case Expr::Ternary: line(depth, "ternary"); break;
      case Expr::Call: line(depth, "call " + e.name); break;
      case Expr::Cast: line(depth, "cast " + e.castType.spelling()); break;
      case Expr::MakeStruct: line(depth, "struct " + e.name); break;
    }
    for (const auto& a : e.args) expr(*a, depth + 1);
  }

  void vexpr(const VExpr& e, int depth) {
    switch (e.kind) {
      case VExpr::Ref: line(depth, "ref " + e.name + indexText(e.index)); return;
      case VExpr::Call:
      case VExpr::MakeStruct:
        line(depth, std::string(e.kind == VExpr::Call ? "call " : "struct ") + e.name + at(e.loc));
        for (const auto& a : e.args) {
          if (a.literal) {
            expr(*a.literal, depth + 1);
          } else if (a.typeArg) {
            line(depth + 1, std::string("type ") + scalarName(*a.typeArg));
          } else {
            if (a.boundary.mode != BoundaryMode::None) {
              std::ostringstream b;
              b << "boundary " << boundaryName(a.boundary.mode);
              if (a.boundary.mode == BoundaryMode::Constant)
                b << "(" << shortest(a.boundary.constant) << ")";
              line(depth + 1, b.str());
            }
            vexpr(*a.value, depth + 1);
          }
        }
        return;
      case VExpr::Field: line(depth, "field ." + e.name); break;
      case VExpr::SubDomain: line(depth, "subdomain " + domain(e.domain)); break;
      case VExpr::Sample: line(depth, "sample " + offsets(e.offsets)); break;
      case VExpr::Compose:
        line(depth, "compose");
        for (const auto& p : e.parts) {
          line(depth + 1, "part " + (p.byOffsets ? offsets(p.offsets) : domain(p.domain)));
          if (p.value) vexpr(*p.value, depth + 2);
          else expr(*p.literal, depth + 2);
        }
        return;
    }
    vexpr(*e.base, depth + 1);
  }

  void stmt(const Stmt& s, int depth) {
    if (s.kind != Stmt::Assign) {
      line(depth, std::string(s.kind == Stmt::For ? "for " : "do ") + s.iterator + " = " +
                      std::to_string(s.from) + ".." + (s.toParam.empty() ? std::to_string(s.to) : s.toParam) +
                      at(s.loc));
      for (const auto& b : s.body) stmt(*b, depth + 1);
      if (s.condition) {
        line(depth + 1, "while");
        vexpr(*s.condition, depth + 2);
      }
      return;
    }
    std::string t = "assign " + s.target + indexText(s.targetIndex);
    if (s.hasDomain) t += " " + domain(s.domain);
    if (s.hasOffsets) t += " " + offsets(s.offsets);
    line(depth, t + at(s.loc));
    vexpr(*s.value, depth + 1);
  }

  std::ostringstream os_;
};

}  // namespace

std::string printProgram(const Program& p) { return Printer().run(p); }

}  // namespace formac::ast
