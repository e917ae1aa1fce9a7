// Element types shared by the front end, the IR and the backends.
//
// Forma's basic types map to C as: int8 = unsigned char, int16 = short,
// uint16 = unsigned short, int = int, int64 = long long (LANGUAGE.md §7),
// float, double. Arithmetic follows C's usual conversions.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "support/Diagnostics.h"

namespace formac {

enum class ScalarKind { Int8, Int16, Uint16, Int, Int64, Float, Double };

const char* scalarName(ScalarKind k);   // Forma spelling: "int8"
const char* scalarCType(ScalarKind k);  // C spelling: "unsigned char"
bool isFloating(ScalarKind k);
int scalarSize(ScalarKind k);  // bytes

// C's usual arithmetic conversions: int8/int16/uint16 promote to int; int64
// with an int is int64; a floating type wins.
ScalarKind promote(ScalarKind k);
ScalarKind arithmeticResult(ScalarKind a, ScalarKind b);

// Forma's "wider type" of ?: branches and min/max: the type whose values hold
// both operands' (int8 with int16 is int16), else C's usual conversions
// (int16 with uint16 is int, int64 with float is float).
ScalarKind wider(ScalarKind a, ScalarKind b);

// The values of an integer type: [lo, hi].
void integerRange(ScalarKind k, long long* lo, long long* hi);

// Whether a literal of value `v` fits the type it becomes (LANGUAGE.md §7):
// an integer type holds v's truncation toward zero (C's conversion), float
// holds v when it rounds to a finite float, double any literal.
bool literalFits(double v, ScalarKind k);

// A floating value converted to the integer type `to` as C does it on x86
// (docs/forma-semantics.md section 1; the evaluator and the generated code
// agree): truncation toward zero to a 32-bit int, INT_MIN outside int's range
// and for NaN, then int8 / int16 / uint16 keep the low 8 / 16 bits; int64 is
// the 64-bit truncation, INT64_MIN outside its range and for NaN (cvttsd2si
// with a 64-bit destination). C leaves the out-of-range cases undefined, so
// nothing may rely on a plain cast for them.
long long floatingToInteger(double v, ScalarKind to);

struct StructField {
  std::string name;
  ScalarKind type;
};

// A user struct (`struct rgb { float r; float g; float b; }`) or a CUDA
// built-in vector type declared with `struct float4;`.
struct StructType {
  std::string name;
  std::vector<StructField> fields;
  bool builtinCuda = false;  // float4 etc: fields x,y,z,w
  SourceLoc loc = {};        // its definition
  int fieldIndex(const std::string& field) const;  // -1 if absent
};

// The element type of an image or the type of an expression.
struct Type {
  ScalarKind scalar = ScalarKind::Int;
  const StructType* structType = nullptr;  // non-null: a struct value

  static Type of(ScalarKind k) { return Type{k, nullptr}; }
  static Type ofStruct(const StructType* s) { return Type{ScalarKind::Int, s}; }
  bool isStruct() const { return structType != nullptr; }
  bool operator==(const Type& o) const {
    return structType == o.structType && (structType || scalar == o.scalar);
  }
  bool operator!=(const Type& o) const { return !(*this == o); }
  std::string name() const;   // Forma spelling
  std::string cName() const;  // C spelling ("struct rgb" / "float4")
};

}  // namespace formac

namespace formac {
// C layout of a struct with natural alignment (what gcc and nvcc use for the
// struct definitions we generate).
size_t fieldOffset(const StructType& s, int field);
size_t typeSize(const Type& t);
size_t typeAlign(const Type& t);
}  // namespace formac
