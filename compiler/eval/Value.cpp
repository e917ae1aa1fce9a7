// The C arithmetic, conversions, loads and stores of the evaluator's values
// (Value.h), as the generated C computes them.
#include "eval/Value.h"

#include <cmath>
#include <cstring>

namespace formac::eval::detail {

using ir::BinOp;
using ir::Expr;
using ir::MathFn;

namespace {

template <typename T>
T as(const Val& v) {
  return isFloating(v.kind) ? static_cast<T>(v.f) : static_cast<T>(v.i);
}

// One floating operation in T (float or double), rounded to T as C rounds it.
template <typename T>
bool floatingArith(BinOp op, T x, T y, ScalarKind k, Val* out) {
  switch (op) {
    case BinOp::Add: *out = makeFloat(k, x + y); return true;
    case BinOp::Sub: *out = makeFloat(k, x - y); return true;
    case BinOp::Mul: *out = makeFloat(k, x * y); return true;
    case BinOp::Div: *out = makeFloat(k, x / y); return true;
    default: return false;
  }
}

Val arith(BinOp op, const Val& a, const Val& b, ScalarKind k) {
  Val r;
  if (k == ScalarKind::Float) {
    if (floatingArith<float>(op, as<float>(a), as<float>(b), k, &r)) return r;
  } else if (k == ScalarKind::Double) {
    if (floatingArith<double>(op, as<double>(a), as<double>(b), k, &r)) return r;
  } else {
    // int and int64 wrap: the arithmetic is modulo 2^64, then truncated to k.
    int64_t x = a.i, y = b.i;
    uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    switch (op) {
      case BinOp::Add: return makeInt(k, static_cast<int64_t>(ux + uy));
      case BinOp::Sub: return makeInt(k, static_cast<int64_t>(ux - uy));
      case BinOp::Mul: return makeInt(k, static_cast<int64_t>(ux * uy));
      case BinOp::Div: return makeInt(k, y == 0 ? 0 : y == -1 ? static_cast<int64_t>(0 - ux) : x / y);
      case BinOp::Mod: return makeInt(k, (y == 0 || y == -1) ? 0 : x % y);
      default: break;
    }
  }
  throw InternalError("bad arithmetic operator");
}

template <typename T>
bool compared(BinOp op, T x, T y) {
  switch (op) {
    case BinOp::Lt: return x < y;
    case BinOp::Gt: return x > y;
    case BinOp::Le: return x <= y;
    case BinOp::Ge: return x >= y;
    case BinOp::Eq: return x == y;
    default: return x != y;
  }
}

Val compare(BinOp op, const Val& a, const Val& b) {
  // Both operands are already of the common type.
  bool r = isFloating(a.kind) ? compared<double>(op, a.f, b.f) : compared<int64_t>(op, a.i, b.i);
  return makeInt(ScalarKind::Int, r);
}

template <typename T>
T callMath(MathFn fn, T x, T y) {
  switch (fn) {
    case MathFn::Sqrt: return std::sqrt(x);
    case MathFn::Exp: return std::exp(x);
    case MathFn::Log: return std::log(x);
    case MathFn::Pow: return std::pow(x, y);
    case MathFn::Sin: return std::sin(x);
    case MathFn::Cos: return std::cos(x);
    case MathFn::Tan: return std::tan(x);
    case MathFn::Atan: return std::atan(x);
    case MathFn::Atan2: return std::atan2(x, y);
    case MathFn::Fabs:
    case MathFn::Abs: return std::fabs(x);
    case MathFn::Absd: return x > y ? x - y : y - x;
    case MathFn::Min: return x < y ? x : y;
    case MathFn::Max: return x > y ? x : y;
    case MathFn::Floor: return std::floor(x);
    case MathFn::Ceil: return std::ceil(x);
    case MathFn::Round: return std::round(x);
  }
  return x;
}

Val mathCall(MathFn fn, const Val* a, size_t n, ScalarKind k) {
  const Val& y = n > 1 ? a[1] : a[0];
  if (k == ScalarKind::Float) return makeFloat(k, callMath<float>(fn, as<float>(a[0]), as<float>(y)));
  if (k == ScalarKind::Double) return makeFloat(k, callMath<double>(fn, as<double>(a[0]), as<double>(y)));
  int64_t x = a[0].i, z = y.i;
  uint64_t ux = static_cast<uint64_t>(x), uz = static_cast<uint64_t>(z);  // differences wrap
  switch (fn) {
    case MathFn::Abs:
    case MathFn::Fabs: return makeInt(k, static_cast<int64_t>(x < 0 ? 0 - ux : ux));
    case MathFn::Absd: return makeInt(k, static_cast<int64_t>(x > z ? ux - uz : uz - ux));
    case MathFn::Min: return makeInt(k, x < z ? x : z);
    case MathFn::Max: return makeInt(k, x > z ? x : z);
    default: break;
  }
  throw InternalError("integer call of a floating function");
}

}  // namespace

Val convertVal(const Val& v, ScalarKind to) {
  bool fromFloat = isFloating(v.kind);
  if (isFloating(to)) {
    // An int64 rounds once to float, as C converts it (not through double).
    if (!fromFloat && to == ScalarKind::Float) return makeFloat(to, static_cast<double>(static_cast<float>(v.i)));
    if (!fromFloat) return makeFloat(to, static_cast<double>(v.i));
    if (to == ScalarKind::Float) return makeFloat(to, static_cast<double>(static_cast<float>(v.f)));
    return makeFloat(to, v.f);
  }
  if (!fromFloat) return makeInt(to, v.i);
  // Floating -> integer as C does it on x86 (ir/Types.h); v.f of a float is
  // its exact value.
  return makeInt(to, floatingToInteger(v.f, to));
}

Val loadScalar(const unsigned char* p, ScalarKind k) {
  switch (k) {
    case ScalarKind::Int8: return makeInt(k, *p);
    case ScalarKind::Int16: { short v; std::memcpy(&v, p, 2); return makeInt(k, v); }
    case ScalarKind::Uint16: { uint16_t v; std::memcpy(&v, p, 2); return makeInt(k, v); }
    case ScalarKind::Int: { int32_t v; std::memcpy(&v, p, 4); return makeInt(k, v); }
    case ScalarKind::Int64: { int64_t v; std::memcpy(&v, p, 8); return makeInt(k, v); }
    case ScalarKind::Float: { float v; std::memcpy(&v, p, 4); return makeFloat(k, v); }
    case ScalarKind::Double: { double v; std::memcpy(&v, p, 8); return makeFloat(k, v); }
  }
  return Val{};
}

void storeScalar(unsigned char* p, const Val& v) {
  switch (v.kind) {
    case ScalarKind::Int8: *p = static_cast<unsigned char>(v.i); break;
    case ScalarKind::Int16: { short x = static_cast<short>(v.i); std::memcpy(p, &x, 2); break; }
    case ScalarKind::Uint16: { uint16_t x = static_cast<uint16_t>(v.i); std::memcpy(p, &x, 2); break; }
    case ScalarKind::Int: { int32_t x = static_cast<int32_t>(v.i); std::memcpy(p, &x, 4); break; }
    case ScalarKind::Int64: std::memcpy(p, &v.i, 8); break;
    case ScalarKind::Float: { float x = static_cast<float>(v.f); std::memcpy(p, &x, 4); break; }
    case ScalarKind::Double: std::memcpy(p, &v.f, 8); break;
  }
}

Val load(const unsigned char* p, const Type& t) {
  if (!t.isStruct()) return loadScalar(p, t.scalar);
  Val v;
  for (size_t f = 0; f < t.structType->fields.size(); ++f)
    v.fields.push_back(loadScalar(p + fieldOffset(*t.structType, static_cast<int>(f)),
                                  t.structType->fields[f].type));
  return v;
}

void store(unsigned char* p, const Type& t, const Val& v) {
  if (!t.isStruct()) return storeScalar(p, v);
  for (size_t f = 0; f < t.structType->fields.size(); ++f)
    storeScalar(p + fieldOffset(*t.structType, static_cast<int>(f)), v.fields[f]);
}

Val zeroOf(const Type& t) {
  if (!t.isStruct()) return isFloating(t.scalar) ? makeFloat(t.scalar, 0) : makeInt(t.scalar, 0);
  Val v;
  for (const auto& f : t.structType->fields) v.fields.push_back(zeroOf(Type::of(f.type)));
  return v;
}

Val constantOf(const Type& t, double c) {
  Val d = makeFloat(ScalarKind::Double, c);
  if (!t.isStruct()) return convertVal(d, t.scalar);
  Val v;
  for (const auto& f : t.structType->fields) v.fields.push_back(convertVal(d, f.type));
  return v;
}

Val constVal(const Expr& e) {
  return isFloating(e.type.scalar) ? makeFloat(e.type.scalar, e.floatValue)
                                   : makeInt(e.type.scalar, e.intValue);
}

Val applyOp(const Expr& e, const Val* a, size_t n) {
  switch (e.kind) {
    case Expr::Unary:
      if (e.unOp == ir::UnOp::Not) return makeInt(ScalarKind::Int, !truthy(a[0]));
      return isFloating(e.type.scalar) ? makeFloat(e.type.scalar, -a[0].f)
                                       : makeInt(e.type.scalar, static_cast<int64_t>(0 - static_cast<uint64_t>(a[0].i)));
    case Expr::Binary:
      switch (e.binOp) {
        case BinOp::And: return makeInt(ScalarKind::Int, truthy(a[0]) && truthy(a[1]));
        case BinOp::Or: return makeInt(ScalarKind::Int, truthy(a[0]) || truthy(a[1]));
        case BinOp::Lt: case BinOp::Gt: case BinOp::Le: case BinOp::Ge: case BinOp::Eq:
        case BinOp::Ne: return compare(e.binOp, a[0], a[1]);
        default: return arith(e.binOp, a[0], a[1], e.type.scalar);
      }
    case Expr::Call: return mathCall(e.fn, a, n, e.type.scalar);
    case Expr::Cast: return convertVal(a[0], e.type.scalar);
    default: break;
  }
  throw InternalError("applyOp of a node that is not an operation");
}

}  // namespace formac::eval::detail
