// The evaluator's values: one scalar or struct of any C type the IR uses, the
// C arithmetic on them (Value.cpp) and their loads and stores in a Buffer's
// bytes. Private to eval/ (Evaluator.cpp interprets, Fold.cpp folds with them).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/Pipeline.h"

namespace formac::eval::detail {

// Integers are kept in `i` (already truncated to their type), floating
// values in `f` (floats are exactly representable as double).
struct Val {
  ScalarKind kind = ScalarKind::Int;
  int64_t i = 0;
  double f = 0.0;
  std::vector<Val> fields;  // struct
};

inline int64_t truncateTo(ScalarKind k, int64_t v) {
  switch (k) {
    case ScalarKind::Int8: return static_cast<unsigned char>(v);
    case ScalarKind::Int16: return static_cast<short>(v);
    case ScalarKind::Uint16: return static_cast<unsigned short>(v);
    case ScalarKind::Int: return static_cast<int32_t>(static_cast<uint32_t>(v));
    default: return v;
  }
}

inline Val makeInt(ScalarKind k, int64_t v) {
  Val r;
  r.kind = k;
  r.i = truncateTo(k, v);
  return r;
}

inline Val makeFloat(ScalarKind k, double v) {
  Val r;
  r.kind = k;
  r.f = k == ScalarKind::Float ? static_cast<double>(static_cast<float>(v)) : v;
  return r;
}

inline bool truthy(const Val& v) { return isFloating(v.kind) ? v.f != 0.0 : v.i != 0; }

// C conversion of a scalar value.
Val convertVal(const Val& v, ScalarKind to);

Val loadScalar(const unsigned char* p, ScalarKind k);
void storeScalar(unsigned char* p, const Val& v);
Val load(const unsigned char* p, const Type& t);
void store(unsigned char* p, const Type& t, const Val& v);

Val zeroOf(const Type& t);
// What a Constant-mode read yields outside: the constant converted to the
// read's type, to every field of a struct (as C's `(struct s){c, c, c}`).
Val constantOf(const Type& t, double c);
Val constVal(const ir::Expr& e);

// A Unary, Binary, Call or Cast node applied to its n operands' values (n <= 3).
Val applyOp(const ir::Expr& e, const Val* a, size_t n);

}  // namespace formac::eval::detail
