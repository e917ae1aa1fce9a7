// Reductions (LANGUAGE.md §7, ir/Pipeline.h "A Reduce stage"): the floating
// sum's order, which every backend follows bit for bit, against a direct
// transcription of the rule in ir/Pipeline.h; and the evaluator's min/max
// rules for NaN and signed zeros, through small pipelines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "eval/Evaluator.h"
#include "lex/Lexer.h"
#include "parse/Parser.h"
#include "sema/Sema.h"

namespace formac {
namespace {

// ------------------------------------------------------------ the sum's order
// ir/Pipeline.h, as written: the values in chunks of kSumChunk; in each
// chunk, lane j (j < kSumLanes) adds, starting from +0.0, the chunk's x[k]
// with k = j mod kSumLanes in increasing k; then the lanes fold pairwise,
// a[j] = a[j] + a[j+s] for j < s, s = 16, 8, 4, 2, 1, and a[0] is the chunk's
// sum. One chunk: its sum is the result; several: the chunk sums are summed
// by the same rule; none: +0.0.
// Written recursively and with the chunk's own indices, unlike the
// evaluator's loop, so that the two share no code.
double ruleSum(const std::vector<double>& x) {
  const size_t chunk = static_cast<size_t>(ir::kSumChunk);
  const int lanes = ir::kSumLanes;
  if (x.empty()) return +0.0;
  std::vector<double> sums;
  for (size_t first = 0; first < x.size(); first += chunk) {
    std::vector<double> a(static_cast<size_t>(lanes), +0.0);
    for (size_t k = 0; k < chunk && first + k < x.size(); ++k) a[k % static_cast<size_t>(lanes)] += x[first + k];
    for (int s = lanes / 2; s >= 1; s /= 2)
      for (int j = 0; j < s; ++j) a[static_cast<size_t>(j)] = a[static_cast<size_t>(j)] + a[static_cast<size_t>(j + s)];
    sums.push_back(a[0]);
  }
  return sums.size() == 1 ? sums[0] : ruleSum(sums);
}

uint64_t bitsOf(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

// Values whose sum depends on the order: large magnitudes that cancel, small
// ones that a large partial sum swallows, fractions, signed zeros.
std::vector<double> mixedValues(size_t n, uint64_t seed) {
  static const double pool[] = {1e16, 1.0, -1e16, 0.5, -3.0, 1e-3, 2.5e15, -0.0, 7.0, -1e16, 1e16, 0.1};
  std::vector<double> x(n);
  uint64_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x[i] = pool[(s >> 33) % (sizeof pool / sizeof pool[0])];
  }
  return x;
}

TEST(FloatingSum, MatchesTheRuleBitForBit) {
  const long long chunk = ir::kSumChunk;
  for (long long n : {0LL, 1LL, 31LL, 32LL, 33LL, chunk - 1, chunk, chunk + 1, chunk * chunk + 5}) {
    for (uint64_t seed : {1u, 2u}) {
      std::vector<double> x = mixedValues(static_cast<size_t>(n), seed);
      double want = ruleSum(x);
      double got = eval::floatingSum(x);
      EXPECT_EQ(bitsOf(got), bitsOf(want)) << "n = " << n << ", seed " << seed << ": evaluator " << got
                                           << ", the rule " << want;
    }
  }
}

// The rule, by hand: 1e16 and -1e16 meet in lane 0 (k = 0 and k = 32) and
// cancel; lanes 1..31 each hold a 1. A left-to-right sum loses every 1 in
// 1e16 (its spacing is 2) and gives 0.
TEST(FloatingSum, LanesDecideTheOrder) {
  std::vector<double> x(33, 1.0);
  x[0] = 1e16;
  x[32] = -1e16;
  EXPECT_EQ(eval::floatingSum(x), 31.0);
  EXPECT_EQ(ruleSum(x), 31.0);
  double naive = 0;
  for (double v : x) naive += v;
  EXPECT_EQ(naive, 0.0);  // the test would not see a wrong order otherwise
}

// Several chunks: each chunk's sum first, then the chunk sums by the same
// rule. Chunk 0 holds 1e16 and 2047 ones (lane 0 adds its 63 ones to 1e16, the
// other lanes keep theirs); chunk 1 holds -1e16 alone.
TEST(FloatingSum, ChunkSumsAreSummedByTheSameRule) {
  const size_t chunk = static_cast<size_t>(ir::kSumChunk);
  std::vector<double> x(chunk + 1, 1.0);
  x[0] = 1e16;
  x[chunk] = -1e16;
  std::vector<double> first(x.begin(), x.begin() + static_cast<long>(chunk));
  double c0 = ruleSum(first);
  EXPECT_EQ(bitsOf(eval::floatingSum(x)), bitsOf(c0 + -1e16));
  EXPECT_EQ(bitsOf(eval::floatingSum(x)), bitsOf(ruleSum(x)));
}

TEST(FloatingSum, EmptyAndSignedZero) {
  EXPECT_EQ(bitsOf(eval::floatingSum({})), bitsOf(+0.0));
  // Lanes start at +0.0: a sum of negative zeros is +0.0.
  EXPECT_EQ(bitsOf(eval::floatingSum({-0.0})), bitsOf(+0.0));
  EXPECT_EQ(bitsOf(eval::floatingSum(std::vector<double>(100, -0.0))), bitsOf(+0.0));
  EXPECT_TRUE(std::isnan(eval::floatingSum({1.0, NAN, 2.0})));
  EXPECT_TRUE(std::isnan(eval::floatingSum({INFINITY, -INFINITY})));
  // An infinity in one lane stays through the fold.
  std::vector<double> x(64, 0.0);
  x[3] = INFINITY;
  EXPECT_EQ(eval::floatingSum(x), INFINITY);
}

// ------------------------------------------------------------ min and max
ir::Pipeline pipelineOf(const std::string& text) {
  SourceFile file{"reduction.idsl", text};
  Warnings warnings;
  return buildPipeline(parse(lex(file)), "k", warnings);
}

// The outputs of `text` (one vector#1 T input `img[N]`) on `values`.
template <typename T>
std::vector<eval::Buffer> runOn(const std::string& text, const std::vector<T>& values) {
  ir::Pipeline p = pipelineOf(text);
  eval::Inputs in;
  in.params = {static_cast<long long>(values.size())};
  in.images = {reinterpret_cast<const unsigned char*>(values.data())};
  return eval::evaluate(p, in);
}

template <typename T>
T scalarOf(const eval::Buffer& b) {
  T v;
  EXPECT_EQ(b.bytes.size(), sizeof v);
  std::memcpy(&v, b.bytes.data(), sizeof v);
  return v;
}

const char* kMinMaxFloat = "parameter N;\nvector#1 float img[N];\nlo = min(img);\nhi = max(img);\nreturn lo, hi;\n";
const char* kMinMaxDouble = "parameter N;\nvector#1 double img[N];\nlo = min(img);\nhi = max(img);\nreturn lo, hi;\n";

struct MinMax {
  double lo, hi;
};
MinMax minMaxFloat(const std::vector<float>& v) {
  auto out = runOn(kMinMaxFloat, v);
  EXPECT_EQ(out.size(), 2u);
  return {scalarOf<float>(out.at(0)), scalarOf<float>(out.at(1))};
}
MinMax minMaxDouble(const std::vector<double>& v) {
  auto out = runOn(kMinMaxDouble, v);
  EXPECT_EQ(out.size(), 2u);
  return {scalarOf<double>(out.at(0)), scalarOf<double>(out.at(1))};
}

bool isPlusZero(double d) { return d == 0 && !std::signbit(d); }
bool isMinusZero(double d) { return d == 0 && std::signbit(d); }

TEST(EvaluatorMinMax, NaNIsSkipped) {
  for (auto v : {std::vector<float>{NAN, 3, -2, NAN}, std::vector<float>{3, NAN, -2}, std::vector<float>{-2, 3, NAN}}) {
    MinMax m = minMaxFloat(v);
    EXPECT_EQ(m.lo, -2);
    EXPECT_EQ(m.hi, 3);
  }
  MinMax d = minMaxDouble({NAN, -INFINITY, 1e300, NAN});
  EXPECT_EQ(d.lo, -INFINITY);
  EXPECT_EQ(d.hi, 1e300);
}

TEST(EvaluatorMinMax, NaNOnlyWhenEveryValueIsNaN) {
  MinMax m = minMaxFloat({NAN, NAN, NAN});
  EXPECT_TRUE(std::isnan(m.lo));
  EXPECT_TRUE(std::isnan(m.hi));
  MinMax one = minMaxDouble({NAN});
  EXPECT_TRUE(std::isnan(one.lo));
  EXPECT_TRUE(std::isnan(one.hi));
}

TEST(EvaluatorMinMax, MinusZeroOrdersBelowPlusZero) {
  // In either order: min is -0, max is +0.
  for (auto v : {std::vector<float>{-0.0f, 0.0f}, std::vector<float>{0.0f, -0.0f},
                 std::vector<float>{0.0f, NAN, -0.0f, 0.0f}}) {
    MinMax m = minMaxFloat(v);
    EXPECT_TRUE(isMinusZero(m.lo)) << m.lo;
    EXPECT_TRUE(isPlusZero(m.hi)) << m.hi;
  }
  MinMax only = minMaxDouble({-0.0, -0.0});
  EXPECT_TRUE(isMinusZero(only.lo));
  EXPECT_TRUE(isMinusZero(only.hi));
  MinMax plus = minMaxDouble({0.0, 0.0});
  EXPECT_TRUE(isPlusZero(plus.lo));
  EXPECT_TRUE(isPlusZero(plus.hi));
}

TEST(EvaluatorMinMax, EmptyImageGivesTheInfinities) {
  MinMax m = minMaxFloat({});
  EXPECT_EQ(m.lo, INFINITY);
  EXPECT_EQ(m.hi, -INFINITY);
  // Integers: the type's highest (min) and lowest (max) value.
  auto out = runOn<int16_t>("parameter N;\nvector#1 int16 img[N];\nreturn min(img), max(img), sum(img), all(img), any(img), count(img);\n",
                            {});
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(scalarOf<int16_t>(out[0]), std::numeric_limits<int16_t>::max());
  EXPECT_EQ(scalarOf<int16_t>(out[1]), std::numeric_limits<int16_t>::min());
  EXPECT_EQ(scalarOf<int64_t>(out[2]), 0);
  EXPECT_EQ(scalarOf<int32_t>(out[3]), 1);
  EXPECT_EQ(scalarOf<int32_t>(out[4]), 0);
  EXPECT_EQ(scalarOf<int64_t>(out[5]), 0);
}

// A floating sum through a pipeline is floatingSum of the values converted
// to double, and count counts NaN as non-zero.
TEST(EvaluatorSum, FloatImageThroughAPipeline) {
  std::vector<float> v(static_cast<size_t>(ir::kSumChunk) + 40);
  for (size_t i = 0; i < v.size(); ++i) v[i] = i % 7 == 0 ? 1e10f : (i % 3 == 0 ? -1e10f : 0.1f * static_cast<float>(i));
  v[5] = NAN;
  v[6] = 0;
  auto out = runOn("parameter N;\nvector#1 float img[N];\nreturn sum(img), count(img);\n", v);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(std::isnan(scalarOf<double>(out[0])));
  int64_t nonzero = 0;
  for (float f : v) nonzero += f != 0 ? 1 : 0;  // NaN != 0
  EXPECT_EQ(scalarOf<int64_t>(out[1]), nonzero);
  v[5] = 1;
  std::vector<double> d(v.begin(), v.end());
  auto clean = runOn("parameter N;\nvector#1 float img[N];\nreturn sum(img);\n", v);
  EXPECT_EQ(bitsOf(scalarOf<double>(clean.at(0))), bitsOf(ruleSum(d)));
}

}  // namespace
}  // namespace formac
