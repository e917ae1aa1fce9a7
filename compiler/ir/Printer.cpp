#include "ir/Printer.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "ir/Edges.h"

namespace formac::ir {
namespace {

// The shortest decimal that reads back as the same value (as a float when
// `isFloat`): 3.14156, not 3.1415600000000001.
std::string shortest(double v, bool isFloat) {
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    double back = std::strtod(buf, nullptr);
    if (isFloat ? static_cast<float>(back) == static_cast<float>(v) : back == v) break;
  }
  return buf;
}

std::string number(const Expr& e) {
  if (!isFloating(e.type.scalar)) return std::to_string(e.intValue);
  bool isFloat = e.type.scalar == ScalarKind::Float;
  std::string s = shortest(e.floatValue, isFloat);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s + (isFloat ? "f" : "");
}

std::string extentText(const Pipeline& p, const std::vector<Size>& ext) {
  std::string t = "[";
  auto names = p.paramNames();
  for (size_t d = 0; d < ext.size(); ++d) t += (d ? ", " : "") + printSize(ext[d], names);
  return t + "]";
}

}  // namespace

namespace {

// Appends to `out` rather than returning strings, so that printing a deep
// expression (a chain of 100,000 '+') stays linear in its size.
void appendExpr(const Pipeline& p, const Expr& e, std::string& out) {
  auto arg = [&](size_t i) { appendExpr(p, *e.args[i], out); };
  auto args = [&](const char* separator) {
    for (size_t i = 0; i < e.args.size(); ++i) {
      if (i) out += separator;
      arg(i);
    }
  };
  switch (e.kind) {
    case Expr::Const: out += number(e); return;
    case Expr::ImageRead: {
      std::string t = p.stages[static_cast<size_t>(e.producer)].name + "@[";
      auto names = p.paramNames();
      for (size_t d = 0; d < e.axes.size(); ++d) {
        t += d ? "," : "";
        std::string off = std::to_string(e.axes[d].offset);
        if (d < e.origin.size() && !isConst(e.origin[d]))
          off = printSize(e.origin[d], names) + (e.axes[d].offset ? "+" + off : "");
        else if (d < e.origin.size())
          off = std::to_string(e.axes[d].offset + e.origin[d]->value);
        t += e.axes[d].scale == 1 ? off : "(" + off + "," + std::to_string(e.axes[d].scale) + ")";
      }
      t += "]";
      if (e.mode != BoundaryMode::None) t += std::string(":") + boundaryName(e.mode);
      if (e.mode == BoundaryMode::Constant) t += "(" + shortest(e.constant, false) + ")";
      if (e.field >= 0)
        t += "." + e.type.name() + ":" +
             p.stages[static_cast<size_t>(e.producer)].type.structType->fields[static_cast<size_t>(e.field)].name;
      out += t;
      return;
    }
    case Expr::IndexRead:
      out += p.stages[static_cast<size_t>(e.producer)].name + "[";
      args(",");
      out += "]";
      return;
    case Expr::ScalarIn: out += p.scalars[static_cast<size_t>(e.scalar)].name; return;
    case Expr::Local: out += "%" + std::to_string(e.local); return;
    case Expr::Unary:
      out += e.unOp == UnOp::Neg ? "-(" : "!(";
      arg(0);
      out += ")";
      return;
    case Expr::Binary:
      out += "(";
      arg(0);
      out += std::string(" ") + binOpSpelling(e.binOp) + " ";
      arg(1);
      out += ")";
      return;
    case Expr::Select:
      out += "(";
      arg(0);
      out += " ? ";
      arg(1);
      out += " : ";
      arg(2);
      out += ")";
      return;
    case Expr::Call:
      out += std::string(mathFnName(e.fn)) + "<" + e.type.name() + ">(";
      args(", ");
      out += ")";
      return;
    case Expr::Cast:
      out += "cast<" + e.type.name() + ">(";
      arg(0);
      out += ")";
      return;
    case Expr::Field:
      arg(0);
      out += "." + e.args[0]->type.structType->fields[static_cast<size_t>(e.field)].name;
      return;
    case Expr::MakeStruct:
      out += "struct " + e.type.name() + "(";
      args(", ");
      out += ")";
      return;
  }
  out += "?";
}

}  // namespace

std::string printExpr(const Pipeline& p, const Expr& e) {
  std::string out;
  appendExpr(p, e, out);
  return out;
}

std::string printPipeline(const Pipeline& p) {
  std::ostringstream os;
  auto names = p.paramNames();
  os << "pipeline " << p.name << "\n";
  for (const auto& prm : p.params) {
    os << "param " << prm.name;
    if (prm.hasDefault) os << " = " << prm.defaultValue;
    os << "\n";
  }
  for (const auto& s : p.scalars) os << "scalar " << scalarName(s.type) << " " << s.name << "\n";
  for (const auto& s : p.stages) {
    os << "stage " << s.id << " " << s.name << " : " << s.type.name() << extentText(p, s.extent);
    if (s.kind == Stage::Input) {
      os << " input\n";
      continue;
    }
    os << "  // " << s.origin << " (line " << s.loc.line << ")\n";
    if (s.kind == Stage::Reduce)
      os << "  reduce " << reduceOpName(s.reduction.op)
         << (s.reduction.op == ReduceOp::Where || s.reduction.op == ReduceOp::TopK
                 ? " k = " + std::to_string(s.reduction.bins)
             : s.reduction.op == ReduceOp::Histogram
                 ? " " + std::to_string(s.reduction.bins) + " bins [" + shortest(s.reduction.lo, false) + ", " +
                       shortest(s.reduction.hi, false) + ")"
                 : s.reduction.dim < 0 ? std::string(" all") : " along " + std::to_string(s.reduction.dim))
         << " of\n";
    if (s.kind == Stage::LoopResult) {
      const Loop& l = *s.loop;
      os << "  loop result " << s.loopIndex << " of " << l.iterator << " (at most " << printSize(l.rounds, names)
         << " rounds)\n";
      if (s.loopIndex == 0) {
        for (const auto& b : l.carried)
          os << "  carried " << p.stages[static_cast<size_t>(b.outer)].name << " -> body stage " << b.inner << "\n";
        for (const auto& b : l.reads)
          os << "  reads " << p.stages[static_cast<size_t>(b.outer)].name << " -> body stage " << b.inner << "\n";
        os << "  next";
        for (int n : l.next) os << " " << n;
        os << ", while body stage " << l.condition << " != 0\n";
        std::istringstream body(printPipeline(*l.body));
        for (std::string line; std::getline(body, line);) os << "  | " << line << "\n";
      }
    }
    if (s.kind == Stage::Scan)
      os << "  scan " << (s.scan.dim < 0 ? std::string("every dimension") : "along " + std::to_string(s.scan.dim))
         << " in " << scalarName(s.scan.accumulate) << " of\n";
    forEachPiece(s, [&](const Piece& pc) {
      os << "  piece";
      for (const auto& a : pc.axes)
        os << " [" << printSize(a.start, names) << " + " << a.step << "*q, "
           << printSize(a.count, names) << " points]";
      // The lattice points q actually computed; the others are 0 (Pipeline.h).
      os << " valid";
      for (size_t d = 0; d < pc.validLo.size() && d < pc.validHi.size(); ++d)
        os << " [" << printSize(pc.validLo[d], names) << ".." << printSize(pc.validHi[d], names)
           << "]";
      os << "\n";
      for (size_t i = 0; i < pc.body.lets.size(); ++i)
        os << "    %" << i << " " << pc.body.lets[i].name << " : " << pc.body.lets[i].type.name()
           << " = " << printExpr(p, *pc.body.lets[i].value) << "\n";
      os << "    result = " << printExpr(p, *pc.body.result) << "\n";
    });
  }
  for (const auto& e : collectEdges(p)) {
    os << "edge " << p.stages[static_cast<size_t>(e.producer)].name << " -> "
       << p.stages[static_cast<size_t>(e.consumer)].name << " hull";
    for (size_t d = 0; d < e.minOffset.size(); ++d)
      os << " [" << e.minOffset[d] << "," << e.maxOffset[d] << "]";
    os << " " << boundaryName(e.mode) << (e.sampled ? " sampled" : "") << "\n";
  }
  os << "return";
  for (int o : p.outputs) os << " " << p.stages[static_cast<size_t>(o)].name;
  os << "\n";
  return os.str();
}

std::string printDot(const Pipeline& p, const std::vector<DotCluster>& clusters) {
  std::ostringstream os;
  os << "digraph \"" << p.name << "\" {\n  rankdir=TB;\n";
  auto node = [&](const Stage& s, const char* indent) {
    os << indent << "s" << s.id << " [label=\"" << s.name << "\\n" << s.type.name() << "\""
       << (s.kind == Stage::Input ? ", shape=box" : "") << "];\n";
  };
  std::vector<bool> inCluster(p.stages.size(), false);
  for (size_t c = 0; c < clusters.size(); ++c) {
    os << "  subgraph cluster_" << c << " {\n    label=\"" << clusters[c].label << "\";\n";
    for (int id : clusters[c].stages) {
      node(p.stages[static_cast<size_t>(id)], "    ");
      inCluster[static_cast<size_t>(id)] = true;
    }
    os << "  }\n";
  }
  for (const auto& s : p.stages)
    if (!inCluster[static_cast<size_t>(s.id)]) node(s, "  ");
  for (const auto& e : collectEdges(p)) {
    os << "  s" << e.producer << " -> s" << e.consumer << " [label=\"";
    for (size_t d = 0; d < e.minOffset.size(); ++d)
      os << (d ? "," : "") << e.minOffset[d] << ".." << e.maxOffset[d];
    if (e.mode != BoundaryMode::None) os << " " << boundaryName(e.mode);
    os << "\"];\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace formac::ir
