#include "ir/Types.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace formac {

const char* scalarName(ScalarKind k) {
  switch (k) {
    case ScalarKind::Int8: return "int8";
    case ScalarKind::Int16: return "int16";
    case ScalarKind::Uint16: return "uint16";
    case ScalarKind::Int: return "int";
    case ScalarKind::Int64: return "int64";
    case ScalarKind::Float: return "float";
    case ScalarKind::Double: return "double";
  }
  return "?";
}

const char* scalarCType(ScalarKind k) {
  switch (k) {
    case ScalarKind::Int8: return "unsigned char";
    case ScalarKind::Int16: return "short";
    case ScalarKind::Uint16: return "unsigned short";
    case ScalarKind::Int: return "int";
    case ScalarKind::Int64: return "long long";
    case ScalarKind::Float: return "float";
    case ScalarKind::Double: return "double";
  }
  return "?";
}

long long floatingToInteger(double v, ScalarKind to) {
  // NaN fails both comparisons. -2^63 and 2^63 are exact doubles.
  if (to == ScalarKind::Int64)
    return (v >= -9223372036854775808.0 && v < 9223372036854775808.0) ? static_cast<long long>(v)
                                                                       : INT64_MIN;
  int i = (v > -2147483649.0 && v < 2147483648.0) ? static_cast<int>(v) : (-2147483647 - 1);
  unsigned u = static_cast<unsigned>(i);
  switch (to) {
    case ScalarKind::Int8: return static_cast<long long>(u & 0xffu);
    case ScalarKind::Int16: return static_cast<long long>(u & 0xffffu) - ((u & 0x8000u) ? 0x10000 : 0);
    case ScalarKind::Uint16: return static_cast<long long>(u & 0xffffu);
    default: return i;
  }
}

bool isFloating(ScalarKind k) { return k == ScalarKind::Float || k == ScalarKind::Double; }

int scalarSize(ScalarKind k) {
  switch (k) {
    case ScalarKind::Int8: return 1;
    case ScalarKind::Int16:
    case ScalarKind::Uint16: return 2;
    case ScalarKind::Int: return 4;
    case ScalarKind::Int64: return 8;
    case ScalarKind::Float: return 4;
    case ScalarKind::Double: return 8;
  }
  return 0;
}

ScalarKind promote(ScalarKind k) {
  return (k == ScalarKind::Int8 || k == ScalarKind::Int16 || k == ScalarKind::Uint16) ? ScalarKind::Int : k;
}

ScalarKind arithmeticResult(ScalarKind a, ScalarKind b) {
  if (a == ScalarKind::Double || b == ScalarKind::Double) return ScalarKind::Double;
  if (a == ScalarKind::Float || b == ScalarKind::Float) return ScalarKind::Float;
  if (a == ScalarKind::Int64 || b == ScalarKind::Int64) return ScalarKind::Int64;
  return ScalarKind::Int;
}

void integerRange(ScalarKind k, long long* lo, long long* hi) {
  switch (k) {
    case ScalarKind::Int8: *lo = 0; *hi = UINT8_MAX; return;
    case ScalarKind::Int16: *lo = INT16_MIN; *hi = INT16_MAX; return;
    case ScalarKind::Uint16: *lo = 0; *hi = UINT16_MAX; return;
    case ScalarKind::Int: *lo = INT32_MIN; *hi = INT32_MAX; return;
    default: *lo = INT64_MIN; *hi = INT64_MAX; return;
  }
}

ScalarKind wider(ScalarKind a, ScalarKind b) {
  if (isFloating(a) || isFloating(b)) return arithmeticResult(a, b);
  long long alo, ahi, blo, bhi;
  integerRange(a, &alo, &ahi);
  integerRange(b, &blo, &bhi);
  if (alo <= blo && ahi >= bhi) return a;
  if (blo <= alo && bhi >= ahi) return b;
  return arithmeticResult(a, b);
}

bool literalFits(double v, ScalarKind k) {
  if (k == ScalarKind::Double) return true;
  // Below 2^128 - 2^103 a double rounds to a finite float.
  if (k == ScalarKind::Float) return std::fabs(v) < std::ldexp(2.0 - std::ldexp(1.0, -24), 127);
  long long lo, hi;
  integerRange(k, &lo, &hi);
  double t = std::trunc(v);
  if (!(t >= -9223372036854775808.0 && t < 9223372036854775808.0)) return false;
  long long i = static_cast<long long>(t);
  return i >= lo && i <= hi;
}

int StructType::fieldIndex(const std::string& field) const {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == field) return static_cast<int>(i);
  return -1;
}

std::string Type::name() const { return structType ? structType->name : scalarName(scalar); }

std::string Type::cName() const {
  if (!structType) return scalarCType(scalar);
  return structType->builtinCuda ? structType->name : "struct " + structType->name;
}

}  // namespace formac

namespace formac {

size_t typeAlign(const Type& t) {
  if (!t.isStruct()) return static_cast<size_t>(scalarSize(t.scalar));
  size_t a = 1;
  for (const auto& f : t.structType->fields) a = std::max(a, static_cast<size_t>(scalarSize(f.type)));
  // CUDA's vector types are aligned to their whole size (float4: 16 bytes).
  if (t.structType->builtinCuda) {
    size_t n = t.structType->fields.size() * a;
    if (n == 2 || n == 4 || n == 8 || n == 16) a = n;
  }
  return a;
}

size_t fieldOffset(const StructType& s, int field) {
  size_t off = 0;
  for (int i = 0; i <= field; ++i) {
    size_t sz = static_cast<size_t>(scalarSize(s.fields[static_cast<size_t>(i)].type));
    off = (off + sz - 1) / sz * sz;
    if (i == field) return off;
    off += sz;
  }
  return off;
}

size_t typeSize(const Type& t) {
  if (!t.isStruct()) return static_cast<size_t>(scalarSize(t.scalar));
  const StructType& s = *t.structType;
  size_t end = fieldOffset(s, static_cast<int>(s.fields.size()) - 1) +
               static_cast<size_t>(scalarSize(s.fields.back().type));
  size_t a = typeAlign(t);
  return (end + a - 1) / a * a;
}

}  // namespace formac
