// Element types (compiler/ir/Types): the C rules for uint16 and int64
// (LANGUAGE.md §7), conversions of floating values, the literal fit check,
// and how sema and the evaluator apply them to whole programs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "eval/Evaluator.h"
#include "ir/Types.h"
#include "lex/Lexer.h"
#include "parse/Parser.h"
#include "sema/Sema.h"

namespace formac {
namespace {

using K = ScalarKind;

TEST(Types, NamesSizesAndCSpellings) {
  EXPECT_STREQ(scalarName(K::Uint16), "uint16");
  EXPECT_STREQ(scalarName(K::Int64), "int64");
  EXPECT_STREQ(scalarCType(K::Uint16), "unsigned short");
  EXPECT_STREQ(scalarCType(K::Int64), "long long");
  EXPECT_EQ(scalarSize(K::Uint16), 2);
  EXPECT_EQ(scalarSize(K::Int64), 8);
  EXPECT_FALSE(isFloating(K::Uint16));
  EXPECT_FALSE(isFloating(K::Int64));
}

TEST(Types, UsualArithmeticConversions) {
  EXPECT_EQ(promote(K::Uint16), K::Int);
  EXPECT_EQ(promote(K::Int64), K::Int64);
  EXPECT_EQ(arithmeticResult(K::Uint16, K::Uint16), K::Int);
  EXPECT_EQ(arithmeticResult(K::Uint16, K::Int16), K::Int);
  EXPECT_EQ(arithmeticResult(K::Int64, K::Int), K::Int64);
  EXPECT_EQ(arithmeticResult(K::Int8, K::Int64), K::Int64);
  EXPECT_EQ(arithmeticResult(K::Int64, K::Float), K::Float);
  EXPECT_EQ(arithmeticResult(K::Double, K::Int64), K::Double);
  EXPECT_EQ(arithmeticResult(K::Int, K::Int), K::Int);  // unchanged
}

TEST(Types, WiderHoldsBothOrConverts) {
  EXPECT_EQ(wider(K::Int8, K::Int16), K::Int16);  // Forma's rule, unchanged
  EXPECT_EQ(wider(K::Int, K::Float), K::Float);
  EXPECT_EQ(wider(K::Int8, K::Uint16), K::Uint16);
  EXPECT_EQ(wider(K::Uint16, K::Int16), K::Int);  // neither holds the other
  EXPECT_EQ(wider(K::Uint16, K::Int), K::Int);
  EXPECT_EQ(wider(K::Int64, K::Int), K::Int64);
  EXPECT_EQ(wider(K::Int64, K::Float), K::Float);
  EXPECT_EQ(wider(K::Double, K::Int64), K::Double);
}

TEST(Types, FloatingToIntegerAsX86) {
  // uint16: the 32-bit conversion, then the low 16 bits.
  EXPECT_EQ(floatingToInteger(-1.0, K::Uint16), 65535);
  EXPECT_EQ(floatingToInteger(70000.5, K::Uint16), 70000 - 65536);
  EXPECT_EQ(floatingToInteger(65535.9, K::Uint16), 65535);
  EXPECT_EQ(floatingToInteger(1e30, K::Uint16), 0);  // INT_MIN's low bits
  EXPECT_EQ(floatingToInteger(NAN, K::Uint16), 0);
  // int64: the 64-bit truncation, INT64_MIN outside and for NaN.
  EXPECT_EQ(floatingToInteger(3e12 + 0.75, K::Int64), 3000000000000LL);
  EXPECT_EQ(floatingToInteger(-3e12 - 0.75, K::Int64), -3000000000000LL);
  EXPECT_EQ(floatingToInteger(-9223372036854775808.0, K::Int64), INT64_MIN);
  EXPECT_EQ(floatingToInteger(9223372036854774784.0, K::Int64), 9223372036854774784LL);
  EXPECT_EQ(floatingToInteger(9223372036854775808.0, K::Int64), INT64_MIN);
  EXPECT_EQ(floatingToInteger(1e30, K::Int64), INT64_MIN);
  EXPECT_EQ(floatingToInteger(NAN, K::Int64), INT64_MIN);
  EXPECT_EQ(floatingToInteger(-INFINITY, K::Int64), INT64_MIN);
  // The older types keep their behaviour.
  EXPECT_EQ(floatingToInteger(-27.5, K::Int8), 229);
  EXPECT_EQ(floatingToInteger(1e30, K::Int), INT32_MIN);
}

TEST(Types, IntegerRanges) {
  long long lo, hi;
  integerRange(K::Uint16, &lo, &hi);
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(hi, 65535);
  integerRange(K::Int64, &lo, &hi);
  EXPECT_EQ(lo, INT64_MIN);
  EXPECT_EQ(hi, INT64_MAX);
  integerRange(K::Int8, &lo, &hi);
  EXPECT_EQ(hi, 255);
}

TEST(Types, LiteralFits) {
  EXPECT_TRUE(literalFits(255, K::Int8));
  EXPECT_FALSE(literalFits(300, K::Int8));
  EXPECT_FALSE(literalFits(-1, K::Int8));
  EXPECT_TRUE(literalFits(-0.5, K::Int8));   // converts to 0
  EXPECT_TRUE(literalFits(255.9, K::Int8));  // converts to 255
  EXPECT_FALSE(literalFits(-3.25, K::Int8));
  EXPECT_TRUE(literalFits(65535, K::Uint16));
  EXPECT_FALSE(literalFits(65536, K::Uint16));
  EXPECT_FALSE(literalFits(32768, K::Int16));
  EXPECT_TRUE(literalFits(-32768, K::Int16));
  EXPECT_TRUE(literalFits(3e18, K::Int64));
  EXPECT_TRUE(literalFits(-9223372036854775808.0, K::Int64));
  EXPECT_FALSE(literalFits(9223372036854775808.0, K::Int64));
  EXPECT_FALSE(literalFits(3e9, K::Int));
  EXPECT_TRUE(literalFits(3.4028235e38, K::Float));  // rounds to FLT_MAX
  EXPECT_FALSE(literalFits(1e40, K::Float));
  EXPECT_TRUE(literalFits(1e300, K::Double));
}

TEST(Types, StructLayoutWithWideFields) {
  StructType s{"deep", {{"u", K::Uint16}, {"w", K::Int64}, {"c", K::Int8}}};
  EXPECT_EQ(fieldOffset(s, 0), 0u);
  EXPECT_EQ(fieldOffset(s, 1), 8u);
  EXPECT_EQ(fieldOffset(s, 2), 16u);
  EXPECT_EQ(typeSize(Type::ofStruct(&s)), 24u);
  EXPECT_EQ(typeAlign(Type::ofStruct(&s)), 8u);
}

// ------------------------------------------------------------ whole programs
ir::Pipeline pipelineOf(const std::string& text) {
  SourceFile file{"types.idsl", text};
  Warnings warnings;
  return buildPipeline(parse(lex(file)), "k", warnings);
}

// The first output of `text` on a 1-element input of `inBytes` (no scalars).
std::vector<unsigned char> runOnePoint(const std::string& text, const std::vector<unsigned char>& inBytes) {
  ir::Pipeline p = pipelineOf(text);
  eval::Inputs in;
  in.params = {1};
  in.images = {inBytes.data()};
  return eval::evaluate(p, in).at(0).bytes;
}

template <typename T>
T as(const std::vector<unsigned char>& bytes) {
  T v;
  EXPECT_EQ(bytes.size(), sizeof v);
  std::memcpy(&v, bytes.data(), sizeof v);
  return v;
}

template <typename T>
std::vector<unsigned char> bytesOf(T v) {
  std::vector<unsigned char> b(sizeof v);
  std::memcpy(b.data(), &v, sizeof v);
  return b;
}

TEST(TypesInPrograms, Uint16PromotesToInt) {
  std::string src = "stencil f(vector#1 uint16 X) { return X + X; }\n"
                    "parameter M;\nvector#1 uint16 in[M];\nreturn f(in);\n";
  EXPECT_EQ(pipelineOf(src).stages.back().type, Type::of(K::Int));
  EXPECT_EQ(as<int32_t>(runOnePoint(src, bytesOf<uint16_t>(60000))), 120000);
}

TEST(TypesInPrograms, Int64WrapsAndDividesLikeC) {
  std::string src = "stencil f(vector#1 int64 X) { return X * X + X / 0 + X % -1; }\n"
                    "parameter M;\nvector#1 int64 in[M];\nreturn f(in);\n";
  EXPECT_EQ(pipelineOf(src).stages.back().type, Type::of(K::Int64));
  int64_t x = 3000000000LL;
  EXPECT_EQ(as<int64_t>(runOnePoint(src, bytesOf(x))), x * x);  // 9e18 fits
  int64_t big = 1LL << 40;  // big * big wraps modulo 2^64: 0
  EXPECT_EQ(as<int64_t>(runOnePoint(src, bytesOf(big))), 0);
  std::string neg = "stencil f(vector#1 int64 X) { return -X + X / -1 + abs(X); }\n"
                    "parameter M;\nvector#1 int64 in[M];\nreturn f(in);\n";
  // -INT64_MIN, INT64_MIN / -1 and abs(INT64_MIN) wrap to INT64_MIN.
  EXPECT_EQ(as<int64_t>(runOnePoint(neg, bytesOf<int64_t>(INT64_MIN))), INT64_MIN);
}

TEST(TypesInPrograms, Int64ToFloatRoundsOnce) {
  std::string src = "stencil f(vector#1 int64 X) { return cast<float>(X); }\n"
                    "parameter M;\nvector#1 int64 in[M];\nreturn f(in);\n";
  // 2^60 + 2^36 + 1: through double it rounds to 2^60 + 2^36, a tie, then
  // to even 2^60; directly it rounds up to 2^60 + 2^37.
  int64_t x = (1LL << 60) + (1LL << 36) + 1;
  EXPECT_EQ(as<float>(runOnePoint(src, bytesOf(x))), static_cast<float>(x));
  EXPECT_EQ(as<float>(runOnePoint(src, bytesOf(x))), std::ldexp(1.0f, 60) + std::ldexp(1.0f, 37));
}

TEST(TypesInPrograms, CastsToTheNewTypes) {
  std::string src = "stencil f(vector#1 double X) { return cast<int64>(X * 1e6) + cast<uint16>(-X); }\n"
                    "parameter M;\nvector#1 double in[M];\nreturn f(in);\n";
  // cast<uint16>(-2.5) = 65534; cast<int64>(2.5e6) = 2500000.
  EXPECT_EQ(as<int64_t>(runOnePoint(src, bytesOf(2.5))), 2500000 + 65534);
}

TEST(TypesInPrograms, LiteralArgumentTakesTheParameterType) {
  // Forma substitutes `3` textually (k / 2 == 1); formac converts it to float
  // (docs/forma-semantics.md §6).
  std::string src = "stencil f(vector#1 float X, float k) { return X + k / 2; }\n"
                    "parameter M;\nvector#1 float in[M];\nreturn f(in, 3);\n";
  EXPECT_EQ(as<float>(runOnePoint(src, bytesOf(0.0f))), 1.5f);
  std::string wide = "stencil f(vector#1 int64 X, uint16 k) { return X * k; }\n"
                     "parameter M;\nvector#1 int64 in[M];\nreturn f(in, 65535);\n";
  EXPECT_EQ(as<int64_t>(runOnePoint(wide, bytesOf<int64_t>(1LL << 40))), (1LL << 40) * 65535);
}

TEST(TypesInPrograms, ConstantBoundaryOfTheNewTypes) {
  std::string src = "stencil f(vector#1 uint16 X) { return X@[1]; }\n"
                    "parameter M;\nvector#1 uint16 in[M];\nreturn f(in:constant(65535));\n";
  EXPECT_EQ(as<uint16_t>(runOnePoint(src, bytesOf<uint16_t>(7))), 65535);
  std::string wide = "stencil f(vector#1 int64 X) { return X@[-1]; }\n"
                     "parameter M;\nvector#1 int64 in[M];\nreturn f(in:constant(-3000000000.0));\n";
  EXPECT_EQ(as<int64_t>(runOnePoint(wide, bytesOf<int64_t>(7))), -3000000000LL);
}

TEST(TypesInPrograms, LiteralsThatDoNotFitAreErrors) {
  auto message = [](const std::string& text) -> std::string {
    try {
      pipelineOf(text);
    } catch (const UserError& e) {
      return e.message();
    }
    return "no error";
  };
  EXPECT_NE(message("stencil f(vector#1 int8 X) { return X@[1]; }\nparameter M;\nvector#1 int8 in[M];\n"
                    "return f(in:constant(300));\n")
                .find("constant(300) does not fit the elements of 'in', of type 'int8' (0 to 255)"),
            std::string::npos);
  EXPECT_NE(message("stencil f(vector#1 int8 X, int16 k) { return X + k; }\nparameter M;\nvector#1 int8 in[M];\n"
                    "return f(in, 32768);\n")
                .find("the argument 32768 for parameter 'k' of 'f' does not fit its type 'int16' (-32768 to 32767)"),
            std::string::npos);
  EXPECT_NE(message("stencil f(vector#1 float X, int8 k) { return X + k; }\nparameter M;\nvector#1 float in[M];\n"
                    "return f(in, -2.5);\n")
                .find("the argument -2.5 for parameter 'k'"),
            std::string::npos);
  // A floating literal reads as written, not 3e+02.
  EXPECT_NE(message("stencil f(vector#1 int8 X) { return X@[1]; }\nparameter M;\nvector#1 int8 in[M];\n"
                    "return f(in:constant(300.0));\n")
                .find("constant(300.0) does not fit"),
            std::string::npos);
}

}  // namespace
}  // namespace formac
