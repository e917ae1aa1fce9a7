#include "ir/Pipeline.h"

namespace formac::ir {

const char* binOpSpelling(BinOp op) {
  switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::Div: return "/";
    case BinOp::Mod: return "%";
    case BinOp::Pow: return "pow";
    case BinOp::Lt: return "<";
    case BinOp::Gt: return ">";
    case BinOp::Le: return "<=";
    case BinOp::Ge: return ">=";
    case BinOp::Eq: return "==";
    case BinOp::Ne: return "!=";
    case BinOp::And: return "&&";
    case BinOp::Or: return "||";
  }
  return "?";
}

const char* mathFnName(MathFn f) {
  switch (f) {
    case MathFn::Sqrt: return "sqrt";
    case MathFn::Exp: return "exp";
    case MathFn::Log: return "log";
    case MathFn::Pow: return "pow";
    case MathFn::Sin: return "sin";
    case MathFn::Cos: return "cos";
    case MathFn::Tan: return "tan";
    case MathFn::Atan: return "atan";
    case MathFn::Atan2: return "atan2";
    case MathFn::Fabs: return "fabs";
    case MathFn::Abs: return "abs";
    case MathFn::Absd: return "absd";
    case MathFn::Min: return "min";
    case MathFn::Max: return "max";
    case MathFn::Floor: return "floor";
    case MathFn::Ceil: return "ceil";
    case MathFn::Round: return "round";
  }
  return "?";
}

std::vector<std::string> Pipeline::paramNames() const {
  std::vector<std::string> names;
  for (const auto& p : params) names.push_back(p.name);
  return names;
}

}  // namespace formac::ir
