#include "sema/ExprBuilder.h"

#include <cmath>
#include "support/Suggest.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace formac::sema {
namespace {

using ir::BinOp;
using ir::Expr;
using ir::MathFn;

std::shared_ptr<Expr> node(Expr::Kind k, Type t) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  e->type = t;
  return e;
}

void requireNumeric(const ExprPtr& e, const SourceLoc& loc, const std::string& what) {
  if (e->type.isStruct())
    userError(loc, what + " needs a number, but the operand is of struct type '" +
                       e->type.name() + "'");
}

}  // namespace

ExprPtr constInt(long long v) {
  auto e = node(Expr::Const, Type::of(ScalarKind::Int));
  e->intValue = v;
  e->floatValue = static_cast<double>(v);
  return e;
}

ExprPtr constFloating(double v, ScalarKind k) {
  auto e = node(Expr::Const, Type::of(k));
  e->floatValue = k == ScalarKind::Float ? static_cast<double>(static_cast<float>(v)) : v;
  return e;
}

ExprPtr constOf(double v, bool isInt, ScalarKind target) {
  ExprPtr lit = isInt ? constInt(static_cast<long long>(v)) : constFloating(v, ScalarKind::Double);
  return convert(lit, Type::of(target));
}

namespace {

// A literal as a message shows it.
std::string literalText(double v, bool isInt) {
  if (isInt) return std::to_string(static_cast<long long>(v));
  char buf[64];
  // The shortest spelling that reads back as v, without an exponent where
  // the integer part has fewer than 17 digits (300.0, not 3e+02).
  int x = v != 0 ? static_cast<int>(std::floor(std::log10(std::fabs(v)))) : 0;
  for (int digits = x >= 0 && x < 17 ? x + 1 : 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string t = buf;
  return t.find_first_of(".en") == std::string::npos ? t + ".0" : t;
}

}  // namespace

void requireLiteralFits(double v, bool isInt, ScalarKind k, const SourceLoc& loc, const std::string& what) {
  if (literalFits(v, k)) return;
  std::string range = "a finite float";
  if (!isFloating(k)) {
    long long lo, hi;
    integerRange(k, &lo, &hi);
    range = std::to_string(lo) + " to " + std::to_string(hi);
  }
  std::string text = what;
  text.replace(text.find("%v"), 2, literalText(v, isInt));
  userError(loc, text + " '" + scalarName(k) + "' (" + range + ")");
}

ExprPtr convert(ExprPtr e, const Type& to) {
  if (e->type == to) return e;
  FORMAC_INTERNAL_CHECK(!to.isStruct() && !e->type.isStruct(), "conversion of a struct value");
  // Fold conversions of literals so generated code stays readable.
  if (e->kind == Expr::Const) {
    if (isFloating(to.scalar)) {
      double v = isFloating(e->type.scalar) ? e->floatValue : static_cast<double>(e->intValue);
      return constFloating(v, to.scalar);
    }
    if (!isFloating(e->type.scalar) && (to.scalar == ScalarKind::Int || to.scalar == ScalarKind::Int64)) {
      // An int64 constant (a folded one) converted to int keeps its low 32 bits, as in C.
      auto c = node(Expr::Const, to);
      c->intValue = to.scalar == ScalarKind::Int64 ? e->intValue
                                                   : static_cast<int32_t>(static_cast<uint32_t>(e->intValue));
      c->floatValue = static_cast<double>(c->intValue);
      return c;
    }
  }
  auto c = node(Expr::Cast, to);
  c->args.push_back(std::move(e));
  return c;
}

ExprPtr unary(ir::UnOp op, ExprPtr a, const SourceLoc& loc) {
  requireNumeric(a, loc, op == ir::UnOp::Neg ? "unary '-'" : "'!'");
  Type t = op == ir::UnOp::Not ? Type::of(ScalarKind::Int) : Type::of(promote(a->type.scalar));
  if (op == ir::UnOp::Neg) a = convert(a, t);
  // The negation of a literal is a literal (exact; an int's only where -v is
  // an int): `x / -7.0f` and `x / -7` divide by the constant -7, which the
  // backends' constant divisors and scalings then see.
  if (op == ir::UnOp::Neg && a->kind == Expr::Const) {
    if (isFloating(t.scalar)) return constFloating(-a->floatValue, t.scalar);
    if (t.scalar == ScalarKind::Int && a->intValue > INT32_MIN && a->intValue <= INT32_MAX) return constInt(-a->intValue);
  }
  auto e = node(Expr::Unary, t);
  e->unOp = op;
  e->args.push_back(std::move(a));
  return e;
}

ExprPtr binary(BinOp op, ExprPtr a, ExprPtr b, const SourceLoc& loc) {
  std::string spelling = op == BinOp::Pow ? "^" : ir::binOpSpelling(op);
  requireNumeric(a, loc, "'" + spelling + "'");
  requireNumeric(b, loc, "'" + spelling + "'");
  if (op == BinOp::Pow) return call("pow", {a, b}, loc);
  if (op == BinOp::And || op == BinOp::Or) {
    auto e = node(Expr::Binary, Type::of(ScalarKind::Int));
    e->binOp = op;
    e->args = {a, b};
    return e;
  }
  Type common = Type::of(arithmeticResult(a->type.scalar, b->type.scalar));
  if (op == BinOp::Mod && isFloating(common.scalar))
    userError(loc, "'%' needs integer operands, found '" + a->type.name() + "' and '" +
                       b->type.name() + "'");
  bool comparison = op == BinOp::Lt || op == BinOp::Gt || op == BinOp::Le || op == BinOp::Ge ||
                    op == BinOp::Eq || op == BinOp::Ne;
  auto e = node(Expr::Binary, comparison ? Type::of(ScalarKind::Int) : common);
  e->binOp = op;
  e->args = {convert(a, common), convert(b, common)};
  return e;
}

Type formaType(const ExprPtr& e) {
  if (e->kind == Expr::Unary && e->unOp == ir::UnOp::Neg) return formaType(e->args[0]);
  return e->type;
}

ExprPtr select(ExprPtr c, ExprPtr a, ExprPtr b, const SourceLoc& loc) {
  requireNumeric(c, loc, "the condition of '?:'");
  Type t;
  if (a->type.isStruct() || b->type.isStruct()) {
    if (a->type != b->type)
      userError(loc, "the branches of '?:' have different types '" + a->type.name() + "' and '" +
                         b->type.name() + "'");
    t = a->type;
  } else {
    t = Type::of(wider(formaType(a).scalar, formaType(b).scalar));
  }
  auto e = node(Expr::Select, t);
  e->args = {c, convert(a, t), convert(b, t)};
  return e;
}

ExprPtr cast(ExprPtr a, ScalarKind to, const SourceLoc& loc) {
  requireNumeric(a, loc, "cast<" + std::string(scalarName(to)) + ">");
  auto e = node(Expr::Cast, Type::of(to));
  e->args.push_back(std::move(a));
  return e;
}

ExprPtr field(ExprPtr a, const std::string& name, const SourceLoc& loc) {
  if (!a->type.isStruct())
    userError(loc, "field '" + name + "' of a value of type '" + a->type.name() +
                       "', which is not a struct");
  int idx = a->type.structType->fieldIndex(name);
  if (idx < 0) {
    std::vector<std::string> fields;
    for (const auto& f : a->type.structType->fields) fields.push_back(f.name);
    userError(loc, "struct '" + a->type.name() + "' has no field '" + name + "'" +
                       didYouMean(name, fields));
  }
  const StructType* st = a->type.structType;
  // A field of an image read is read directly.
  if (a->kind == Expr::ImageRead && a->field < 0) {
    auto r = std::make_shared<Expr>(*a);
    r->field = idx;
    r->type = Type::of(st->fields[static_cast<size_t>(idx)].type);
    return r;
  }
  auto e = node(Expr::Field, Type::of(st->fields[static_cast<size_t>(idx)].type));
  e->field = idx;
  e->args.push_back(std::move(a));
  return e;
}

ExprPtr makeStruct(const StructType* s, std::vector<ExprPtr> args, const SourceLoc& loc) {
  if (args.size() != s->fields.size())
    userError(loc, "struct '" + s->name + "' has " + std::to_string(s->fields.size()) +
                       " fields but " + std::to_string(args.size()) +
                       (args.size() == 1 ? " value is given" : " values are given"));
  auto e = node(Expr::MakeStruct, Type::ofStruct(s));
  for (size_t i = 0; i < args.size(); ++i) {
    requireNumeric(args[i], loc, "field '" + s->fields[i].name + "'");
    e->args.push_back(convert(args[i], Type::of(s->fields[i].type)));
  }
  return e;
}

ExprPtr call(const std::string& name, std::vector<ExprPtr> args, const SourceLoc& loc) {
  struct Info { MathFn fn; int arity; enum { Floating, Abs, MinMax, Rounding } rule; };
  static const std::map<std::string, Info> fns = {
      {"sqrt", {MathFn::Sqrt, 1, Info::Floating}},   {"exp", {MathFn::Exp, 1, Info::Floating}},
      {"log", {MathFn::Log, 1, Info::Floating}},     {"pow", {MathFn::Pow, 2, Info::Floating}},
      {"sin", {MathFn::Sin, 1, Info::Floating}},     {"cos", {MathFn::Cos, 1, Info::Floating}},
      {"tan", {MathFn::Tan, 1, Info::Floating}},     {"atan", {MathFn::Atan, 1, Info::Floating}},
      {"atan2", {MathFn::Atan2, 2, Info::Floating}}, {"fabs", {MathFn::Fabs, 1, Info::Abs}},
      {"abs", {MathFn::Abs, 1, Info::Abs}},          {"absd", {MathFn::Absd, 2, Info::Abs}},
      {"min", {MathFn::Min, 2, Info::MinMax}},       {"max", {MathFn::Max, 2, Info::MinMax}},
      {"floor", {MathFn::Floor, 1, Info::Rounding}}, {"ceil", {MathFn::Ceil, 1, Info::Rounding}},
      {"round", {MathFn::Round, 1, Info::Rounding}}};
  // C's float spellings (sqrtf, expf, fminf ...) compute in float.
  static const std::map<std::string, std::string> floatSpellings = {
      {"sqrtf", "sqrt"}, {"expf", "exp"},   {"logf", "log"},     {"powf", "pow"},
      {"sinf", "sin"},   {"cosf", "cos"},   {"tanf", "tan"},     {"atanf", "atan"},
      {"atan2f", "atan2"}, {"fabsf", "fabs"}, {"floorf", "floor"}, {"ceilf", "ceil"},
      {"roundf", "round"}, {"fminf", "min"}, {"fmaxf", "max"}};
  auto fl = floatSpellings.find(name);
  if (fl != floatSpellings.end()) {
    const Info& base = fns.at(fl->second);
    if (static_cast<int>(args.size()) != base.arity)
      userError(loc, "'" + name + "' takes " + std::to_string(base.arity) + " argument" +
                         (base.arity == 1 ? "" : "s") + ", " + std::to_string(args.size()) +
                         " given");
    auto e = node(Expr::Call, Type::of(ScalarKind::Float));
    e->fn = base.fn;
    for (auto& a : args) {
      requireNumeric(a, loc, "'" + name + "'");
      e->args.push_back(convert(a, Type::of(ScalarKind::Float)));
    }
    return e;
  }
  auto it = fns.find(name);
  if (it == fns.end()) {
    std::vector<std::string> known;
    for (const auto& kv : fns) known.push_back(kv.first);
    for (const auto& kv : floatSpellings) known.push_back(kv.first);
    userError(loc, "unknown function '" + name + "'" + didYouMean(name, known));
  }
  const Info& info = it->second;
  if (static_cast<int>(args.size()) != info.arity)
    userError(loc, "'" + name + "' takes " + std::to_string(info.arity) + " argument" +
                       (info.arity == 1 ? "" : "s") + ", " + std::to_string(args.size()) +
                       " given");
  ScalarKind t = ScalarKind::Int8;
  for (auto& a : args) {
    requireNumeric(a, loc, "'" + name + "'");
    t = wider(t, formaType(a).scalar);
  }
  auto apply = [&](ScalarKind computeIn) {
    auto e = node(Expr::Call, Type::of(computeIn));
    e->fn = info.fn;
    for (auto& a : args) e->args.push_back(convert(a, Type::of(computeIn)));
    return convert(e, Type::of(t));
  };
  switch (info.rule) {
    case Info::Floating:
      // sqrt is correctly rounded in float too, so sqrtf equals the double
      // computation; the others go through double.
      if (info.fn == MathFn::Sqrt && t == ScalarKind::Float) return apply(t);
      return apply(ScalarKind::Double);
    case Info::Rounding:
      return apply(isFloating(t) ? t : ScalarKind::Double);
    case Info::Abs:
    case Info::MinMax:
      return apply(promote(t));
  }
  throw InternalError("unhandled math function rule");
}

}  // namespace formac::sema
