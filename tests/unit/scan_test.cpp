// Scans and summed-area tables (LANGUAGE.md §7, ir/Pipeline.h "A Scan stage"
// and "The floating Scan order"):
//  * eval::floatingScan against a direct transcription of the order, on
//    hand-computed cases whose values (1e16, 1, -1e16) give a different double
//    under any other association, and within the stated error bound of a
//    sequential long-double scan;
//  * the evaluator's scan and sat of every element type, ranks 1 to 4, along
//    every dimension, with every result type, on random never-all-zero values
//    of awkward sizes, against sums computed here (exact for integers);
//  * sat(img, int) wrapping modulo 2^32 once the int64 sum passes 2^31 - 1.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "eval/Evaluator.h"
#include "lex/Lexer.h"
#include "parse/Parser.h"
#include "sema/Sema.h"

namespace formac {
namespace {

uint64_t bitsOf(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

// ------------------------------------------------------------ the order
// ir/Pipeline.h, as written: runs of kScanRun values; within run r,
// l[i] = ((+0.0 + x[rR]) + x[rR+1]) + ... + x[i] and t[r] is the run's last l;
// E[0] = +0.0, E[r] = E[r - b] + G(r - b, b) with b = r & -r; G(s, 1) = t[s],
// G(s, 2m) = G(s, m) + G(s + m, m); S[i] = E[r] + l[i].
// Recursive, unlike the evaluator's up-sweep, so that the two share no code.
struct RuleScan {
  std::vector<double> l, t;
  double G(size_t s, size_t m) const { return m == 1 ? t[s] : G(s, m / 2) + G(s + m / 2, m / 2); }
  double E(size_t r) const {
    if (r == 0) return +0.0;
    size_t b = r & (~r + 1);
    return E(r - b) + G(r - b, b);
  }
};

std::vector<double> ruleScan(const std::vector<double>& x) {
  const size_t run = static_cast<size_t>(ir::kScanRun);
  RuleScan rs;
  rs.l.resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    rs.l[i] = (i % run == 0 ? +0.0 : rs.l[i - 1]) + x[i];
    if (i % run == run - 1 || i + 1 == x.size()) rs.t.push_back(rs.l[i]);
  }
  std::vector<double> s(x.size());
  for (size_t i = 0; i < x.size(); ++i) s[i] = rs.E(i / run) + rs.l[i];
  return s;
}

// Values whose prefix sums depend on the order, never all zero.
std::vector<double> mixedValues(size_t n, uint64_t seed) {
  static const double pool[] = {1e16, 1.0, -1e16, 0.5, -3.0, 1e-3, 2.5e15, -0.0, 7.0, -1e16, 1e16, 0.1, 1.0 / 3};
  std::vector<double> x(n);
  uint64_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x[i] = pool[(s >> 33) % (sizeof pool / sizeof pool[0])];
  }
  if (n > 0) x[0] = 1.0 / 3;
  return x;
}

void expectBitwise(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(bitsOf(got[i]), bitsOf(want[i])) << what << ": S[" << i << "] is " << got[i] << ", expected " << want[i];
}

TEST(FloatingScan, MatchesTheRuleBitForBit) {
  for (size_t n : {0, 1, 2, 7, 8, 9, 15, 16, 17, 24, 31, 33, 63, 64, 65, 100, 127, 129, 1000, 4099}) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      std::vector<double> x = mixedValues(n, seed);
      expectBitwise(eval::floatingScan(x), ruleScan(x), "n = " + std::to_string(n) + ", seed " + std::to_string(seed));
    }
  }
}

TEST(FloatingScan, OneValue) {
  EXPECT_EQ(eval::floatingScan({2.5}), std::vector<double>{2.5});
  // Runs start at +0.0: -0.0 alone scans to +0.0.
  EXPECT_EQ(bitsOf(eval::floatingScan({-0.0}).at(0)), bitsOf(+0.0));
  EXPECT_TRUE(eval::floatingScan({}).empty());
}

// Within one run the order is sequential: 1e16 swallows each 1 (its spacing
// is 2 and 1e16 + 1 ties to 1e16), and 1 + 1e16 loses the 1 too.
TEST(FloatingScan, WithinARunIsSequential) {
  std::vector<double> x = {1e16, 1, 1, 1, 1, 1, 1};  // n = 7: one short run
  std::vector<double> want(7, 1e16);
  EXPECT_EQ(eval::floatingScan(x), want);
  std::vector<double> y = {1, 1, 1, 1, 1, 1, 1, 1e16};  // n = 8: 7 + 1e16 ties to 1e16 + 8
  EXPECT_EQ(eval::floatingScan(y), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 1e16 + 8}));
}

// A new run starts from +0.0 and adds the earlier runs' total last:
// x[0] = 1e16, x[8] = -1e16, x[9..16] = 1. Run 1's partials are -1e16 (the 1s
// are swallowed), so S[9..15] = 1e16 + -1e16 = 0, where a sequential scan
// gives 1, 2, ... Run 2 (x[16]) starts fresh: S[16] = (1e16 + -1e16) + 1 = 1.
TEST(FloatingScan, RunBoundary) {
  std::vector<double> x(17, 0.0);
  x[0] = 1e16;
  x[8] = -1e16;
  for (size_t i = 9; i < 17; ++i) x[i] = 1;
  std::vector<double> s = eval::floatingScan(x);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(s[i], 1e16) << i;
  for (size_t i = 8; i < 16; ++i) EXPECT_EQ(s[i], 0.0) << i;
  EXPECT_EQ(s[16], 1.0);
  double seq = 0;
  for (size_t i = 0; i < 10; ++i) seq += x[i];
  EXPECT_EQ(seq, 1.0);  // a sequential scan differs at S[9]
}

// Group boundaries: one value per run (x[8r]), run totals t = 1e16, 1,
// -1e16, 1, 3, 1e16, 1, -1e16, then 0.25 (x[64]) and 0.5 (x[99]). Hand
// computed (1e16 + odd k ties to the even neighbour: +1 -> +0, +3 -> +4,
// +5 -> +4, +7 -> +8):
//   E[2] = G(0, 2) = 1e16 + 1 = 1e16;  E[3] = E[2] + t2 = 0, S[24] = 1;
//   E[4] = G(0, 4) = (1e16 + 1) + (-1e16 + 1) = 0, so S[32] = 0 + 3 = 3,
//     where a sequential scan (which kept the 1 at x[24]) gives 4;
//   E[5] = E[4] + t4 = 3, S[40] = 3 + 1e16 = 1e16 + 4;
//   E[6] = E[4] + G(4, 2) = 1e16 + 4, S[48] = 1e16 + 5 -> 1e16 + 4;
//   E[7] = E[6] + t6 = 1e16 + 4, S[56] = 4;
//   E[8] = G(0, 4) + G(4, 4) = 0 + ((3 + 1e16) + (1 + -1e16)) = 4, S[64] = 4.25;
//   E[12] = E[8] + G(8, 4) = 4.25, S[99] = 4.75.
TEST(FloatingScan, GroupBoundaries) {
  std::vector<double> x(100, 0.0);
  const double t[] = {1e16, 1, -1e16, 1, 3, 1e16, 1, -1e16};
  for (size_t r = 0; r < 8; ++r) x[8 * r] = t[r];
  x[64] = 0.25;
  x[99] = 0.5;
  std::vector<double> s = eval::floatingScan(x);
  EXPECT_EQ(s[8], 1e16);
  EXPECT_EQ(s[16], 0.0);
  EXPECT_EQ(s[24], 1.0);
  EXPECT_EQ(s[31], 1.0);
  EXPECT_EQ(s[32], 3.0);  // E[4] = 0, plus x[32] = 3
  EXPECT_EQ(s[33], 3.0);
  EXPECT_EQ(s[40], 1e16 + 4);
  EXPECT_EQ(s[48], 1e16 + 4);  // E[6] = E[4] + G(4, 2) = 1e16 + 4, plus 1 ties to even
  EXPECT_EQ(s[56], 4.0);       // E[7] = E[6] + t[6] = 1e16 + 4, plus -1e16
  EXPECT_EQ(s[64], 4.25);      // E[8] = G(0, 4) + G(4, 4) = 0 + 4
  EXPECT_EQ(s[99], 4.75);      // E[12] = E[8] + G(8, 4)
  double seq = 0;
  for (size_t i = 0; i <= 32; ++i) seq += x[i];
  EXPECT_EQ(seq, 4.0);  // a sequential scan differs at S[32]
  expectBitwise(s, ruleScan(x), "group boundaries");
}

// The error of S[i] is within about 2^-53 (8 + 2 log2(i/8)) sum|x| of the
// exact sum; the long-double sequential reference adds at most i 2^-64
// sum|x| of its own.
TEST(FloatingScan, WithinTheBoundOfASequentialScan) {
  for (size_t n : {1, 7, 8, 9, 16, 17, 64, 100, 1000, 5000}) {
    std::vector<double> x(n);
    uint64_t s = n * 7919 + 1;
    for (double& v : x) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      double mant = static_cast<double>((s >> 11) & 0xFFFFF) / 0x100000 - 0.5;
      v = std::ldexp(mant, static_cast<int>((s >> 40) % 40) - 20);
    }
    std::vector<double> got = eval::floatingScan(x);
    long double seq = 0, abs = 0;
    for (size_t i = 0; i < n; ++i) {
      seq += x[i];
      abs += std::fabs(x[i]);
      double levels = i < 8 ? 0 : std::ceil(std::log2(static_cast<double>(i) / 8));
      long double bound = (std::ldexp(8 + 2 * levels + 1, -53) + std::ldexp(static_cast<double>(i + 1), -64)) * abs;
      ASSERT_LE(std::fabs(static_cast<long double>(got[i]) - seq), bound) << "n = " << n << ", i = " << i;
    }
  }
}

TEST(FloatingScan, NaNAndInfinityPropagateForward) {
  std::vector<double> x(20, 1.0);
  x[10] = INFINITY;
  std::vector<double> s = eval::floatingScan(x);
  EXPECT_EQ(s[9], 10.0);
  for (size_t i = 10; i < 20; ++i) EXPECT_EQ(s[i], INFINITY) << i;
  x[3] = NAN;
  s = eval::floatingScan(x);
  EXPECT_EQ(s[2], 3.0);
  for (size_t i = 3; i < 20; ++i) EXPECT_TRUE(std::isnan(s[i])) << i;
}

// ------------------------------------------------------------ the evaluator
ir::Pipeline pipelineOf(const std::string& text) {
  SourceFile file{"scan.idsl", text};
  Warnings warnings;
  return buildPipeline(parse(lex(file)), "k", warnings);
}

const ScalarKind kKinds[] = {ScalarKind::Int8,  ScalarKind::Int16, ScalarKind::Uint16, ScalarKind::Int,
                             ScalarKind::Int64, ScalarKind::Float, ScalarKind::Double};

// A value of kind `k` as the evaluator holds it: integers in int64, floats in
// double (a float's value is exact in double).
struct Value {
  int64_t i = 0;
  double f = 0;
};

// Random never-all-zero values of `k`, spanning its range (int64: values that
// make the sums wrap modulo 2^64; float and double: magnitudes that cancel).
std::vector<Value> randomValues(ScalarKind k, size_t n, uint64_t seed) {
  std::vector<Value> v(n);
  uint64_t s = seed * 2862933555777941757ULL + 3037000493ULL;
  for (size_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t r = s >> 11;
    switch (k) {
      case ScalarKind::Int8: v[i].i = static_cast<int64_t>(r % 256); break;
      case ScalarKind::Int16: v[i].i = static_cast<int16_t>(r); break;
      case ScalarKind::Uint16: v[i].i = static_cast<uint16_t>(r); break;
      case ScalarKind::Int: v[i].i = static_cast<int32_t>(r); break;
      case ScalarKind::Int64: v[i].i = static_cast<int64_t>(s ^ (r << 40)); break;
      case ScalarKind::Float:
        v[i].f = static_cast<float>(std::ldexp(static_cast<double>(r % 2000001) - 1e6, static_cast<int>(r % 23) - 11));
        break;
      case ScalarKind::Double:
        v[i].f = std::ldexp(static_cast<double>(r % 2000001) - 1e6, static_cast<int>(r % 61) - 30) / 3;
        break;
    }
  }
  if (n > 0) {  // never all zero
    v[0].i = 7;
    v[0].f = 7;
  }
  return v;
}

std::vector<unsigned char> bytesOf(ScalarKind k, const std::vector<Value>& v) {
  size_t size = static_cast<size_t>(scalarSize(k));
  std::vector<unsigned char> out(v.size() * size);
  for (size_t i = 0; i < v.size(); ++i) {
    unsigned char* p = out.data() + i * size;
    switch (k) {
      case ScalarKind::Int8: *p = static_cast<unsigned char>(v[i].i); break;
      case ScalarKind::Int16: { int16_t x = static_cast<int16_t>(v[i].i); std::memcpy(p, &x, size); break; }
      case ScalarKind::Uint16: { uint16_t x = static_cast<uint16_t>(v[i].i); std::memcpy(p, &x, size); break; }
      case ScalarKind::Int: { int32_t x = static_cast<int32_t>(v[i].i); std::memcpy(p, &x, size); break; }
      case ScalarKind::Int64: std::memcpy(p, &v[i].i, size); break;
      case ScalarKind::Float: { float x = static_cast<float>(v[i].f); std::memcpy(p, &x, size); break; }
      case ScalarKind::Double: std::memcpy(p, &v[i].f, size); break;
    }
  }
  return out;
}

// Element `i` of `b` (of scalar kind `k`), as a Value.
Value elementOf(const eval::Buffer& b, ScalarKind k, size_t i) {
  const unsigned char* p = b.bytes.data() + i * static_cast<size_t>(scalarSize(k));
  Value v;
  switch (k) {
    case ScalarKind::Int8: v.i = *p; break;
    case ScalarKind::Int16: { int16_t x; std::memcpy(&x, p, sizeof x); v.i = x; break; }
    case ScalarKind::Uint16: { uint16_t x; std::memcpy(&x, p, sizeof x); v.i = x; break; }
    case ScalarKind::Int: { int32_t x; std::memcpy(&x, p, sizeof x); v.i = x; break; }
    case ScalarKind::Int64: std::memcpy(&v.i, p, sizeof v.i); break;
    case ScalarKind::Float: { float x; std::memcpy(&x, p, sizeof x); v.f = x; break; }
    case ScalarKind::Double: std::memcpy(&v.f, p, sizeof v.f); break;
  }
  return v;
}

// An exact int64 sum (wrapped modulo 2^64) as cast<T> converts it: integers
// keep their low bits (two's complement), floating types round once.
Value convertSum(int64_t sum, ScalarKind to) {
  Value v;
  switch (to) {
    case ScalarKind::Int8: v.i = static_cast<uint8_t>(static_cast<uint64_t>(sum)); break;
    case ScalarKind::Int16: v.i = static_cast<int16_t>(static_cast<uint16_t>(static_cast<uint64_t>(sum))); break;
    case ScalarKind::Uint16: v.i = static_cast<uint16_t>(static_cast<uint64_t>(sum)); break;
    case ScalarKind::Int: v.i = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum))); break;
    case ScalarKind::Int64: v.i = sum; break;
    case ScalarKind::Float: v.f = static_cast<float>(sum); break;
    case ScalarKind::Double: v.f = static_cast<double>(sum); break;
  }
  return v;
}

std::vector<size_t> stridesOf(const std::vector<long long>& extent) {
  std::vector<size_t> stride(extent.size(), 1);
  for (size_t d = extent.size(); d-- > 1;) stride[d - 1] = stride[d] * static_cast<size_t>(extent[d]);
  return stride;
}

// Calls f(first, stride, length) for every line along dimension d.
void forEachLine(const std::vector<long long>& extent, size_t d,
                 const std::function<void(size_t, size_t, size_t)>& f) {
  std::vector<size_t> stride = stridesOf(extent);
  size_t n = 1;
  for (long long e : extent) n *= static_cast<size_t>(e);
  size_t len = static_cast<size_t>(extent[d]);
  for (size_t first = 0; first < n; ++first)
    if ((first / stride[d]) % len == 0) f(first, stride[d], len);
}

// The dimensions a scan along `dim` runs, in order: dim alone, or (sat, -1)
// the last one first, then each earlier one down to 0.
std::vector<size_t> scannedDims(size_t rank, int dim) {
  if (dim >= 0) return {static_cast<size_t>(dim)};
  std::vector<size_t> dims;
  for (size_t d = rank; d-- > 0;) dims.push_back(d);
  return dims;
}

// The reference result of scanning `in` (of kind `k`, `extent`) along `dim`
// into `to`: integers exactly in int64 (wrapping), floating values line by
// line in ruleScan's order, staying in double between dimensions.
std::vector<Value> referenceScan(ScalarKind k, const std::vector<Value>& in, const std::vector<long long>& extent, int dim,
                                 ScalarKind to) {
  std::vector<Value> out(in.size());
  if (!isFloating(k)) {
    std::vector<uint64_t> acc(in.size());
    for (size_t i = 0; i < in.size(); ++i) acc[i] = static_cast<uint64_t>(in[i].i);
    for (size_t d : scannedDims(extent.size(), dim))
      forEachLine(extent, d, [&](size_t first, size_t stride, size_t len) {
        for (size_t j = 1; j < len; ++j) acc[first + j * stride] += acc[first + (j - 1) * stride];
      });
    for (size_t i = 0; i < in.size(); ++i) out[i] = convertSum(static_cast<int64_t>(acc[i]), to);
    return out;
  }
  std::vector<double> acc(in.size());
  for (size_t i = 0; i < in.size(); ++i) acc[i] = in[i].f;
  for (size_t d : scannedDims(extent.size(), dim))
    forEachLine(extent, d, [&](size_t first, size_t stride, size_t len) {
      std::vector<double> line(len);
      for (size_t j = 0; j < len; ++j) line[j] = acc[first + j * stride];
      line = ruleScan(line);
      for (size_t j = 0; j < len; ++j) acc[first + j * stride] = line[j];
    });
  for (size_t i = 0; i < in.size(); ++i) {
    if (to == ScalarKind::Float) out[i].f = static_cast<float>(acc[i]);
    else if (to == ScalarKind::Double) out[i].f = acc[i];
    else out[i].i = static_cast<int64_t>(acc[i]);  // in range of `to` by the caller's choice of values
  }
  return out;
}

// `S = scan(img, dim[, to])` (sat for dim = -1) of a vector#rank `k` image
// of `extent`, through the front end and the evaluator, against the reference.
void checkScan(ScalarKind k, const std::vector<long long>& extent, int dim, const ScalarKind* to, uint64_t seed) {
  std::string params, dims;
  for (size_t d = 0; d < extent.size(); ++d) {
    params += (d ? ", N" : "N") + std::to_string(d);
    dims += (d ? ",N" : "N") + std::to_string(d);
  }
  std::string call = dim < 0 ? "sat(img" : "scan(img, " + std::to_string(dim);
  if (to) call += std::string(", ") + scalarName(*to);
  call += ")";
  std::string text = "parameter " + params + ";\nvector#" + std::to_string(extent.size()) + " " + scalarName(k) +
                     " img[" + dims + "];\nS = " + call + ";\nreturn S;\n";
  size_t n = 1;
  for (long long e : extent) n *= static_cast<size_t>(e);
  std::vector<Value> in = randomValues(k, n, seed);
  ScalarKind result = to ? *to : (isFloating(k) ? ScalarKind::Double : ScalarKind::Int64);
  std::vector<Value> want = referenceScan(k, in, extent, dim, result);
  std::vector<unsigned char> bytes = bytesOf(k, in);

  eval::Inputs inputs;
  inputs.params = extent;
  inputs.images = {bytes.data()};
  std::vector<eval::Buffer> out = eval::evaluate(pipelineOf(text), inputs);
  ASSERT_EQ(out.size(), 1u) << text;
  ASSERT_EQ(out[0].type.scalar, result) << text;
  ASSERT_EQ(out[0].extent, extent) << text;
  for (size_t i = 0; i < n; ++i) {
    Value got = elementOf(out[0], result, i);
    if (isFloating(result))
      ASSERT_EQ(bitsOf(got.f), bitsOf(want[i].f)) << text << "element " << i << ": " << got.f << " vs " << want[i].f;
    else
      ASSERT_EQ(got.i, want[i].i) << text << "element " << i;
  }
}

// Awkward sizes per rank: ones, primes, a line longer than a few runs.
const std::vector<std::vector<long long>> kExtents = {
    {1}, {7}, {9}, {17}, {100},
    {1, 1}, {1, 13}, {13, 1}, {7, 11}, {3, 67},
    {1, 1, 1}, {3, 5, 7}, {2, 1, 9},
    {1, 1, 1, 1}, {2, 3, 5, 7}, {3, 1, 2, 11},
};

TEST(EvaluatorScan, EveryElementTypeRankAndDimension) {
  uint64_t seed = 1;
  for (ScalarKind k : kKinds)
    for (const auto& extent : kExtents)
      for (int dim = -1; dim < static_cast<int>(extent.size()); ++dim) {
        checkScan(k, extent, dim, nullptr, seed++);
        if (HasFatalFailure()) return;
      }
}

// Every result type from every integer element type: the exact sum converted
// as cast<T> (narrow types keep the low bits).
TEST(EvaluatorScan, ResultTypesOfIntegerImages) {
  uint64_t seed = 100;
  for (ScalarKind k : kKinds) {
    if (isFloating(k)) continue;
    for (ScalarKind to : kKinds) {
      for (const auto& extent : {std::vector<long long>{37}, std::vector<long long>{5, 19}, std::vector<long long>{2, 3, 11}}) {
        checkScan(k, extent, -1, &to, seed++);
        checkScan(k, extent, static_cast<int>(extent.size()) - 1, &to, seed++);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Floating images into float and double (integer results of floating sums
// are checked where the values keep the sums in range: below).
TEST(EvaluatorScan, ResultTypesOfFloatingImages) {
  uint64_t seed = 500;
  for (ScalarKind k : {ScalarKind::Float, ScalarKind::Double})
    for (ScalarKind to : {ScalarKind::Float, ScalarKind::Double})
      for (const auto& extent : {std::vector<long long>{41}, std::vector<long long>{9, 17}}) {
        checkScan(k, extent, -1, &to, seed++);
        checkScan(k, extent, 0, &to, seed++);
        if (HasFatalFailure()) return;
      }
}

// A double image of small values into int: each double sum truncates toward
// zero as cast<int> does (the sums stay far inside int's range).
TEST(EvaluatorScan, FloatingIntoIntegerTruncates) {
  std::string text = "parameter N;\nvector#1 double img[N];\nS = scan(img, 0, int);\nreturn S;\n";
  std::vector<double> v = {0.75, 0.75, -2.0, -0.25, 3.5};  // sums 0.75 1.5 -0.5 -0.75 2.75
  eval::Inputs in;
  in.params = {5};
  in.images = {reinterpret_cast<const unsigned char*>(v.data())};
  auto out = eval::evaluate(pipelineOf(text), in);
  ASSERT_EQ(out.size(), 1u);
  const int32_t want[] = {0, 1, 0, 0, 2};
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(elementOf(out[0], ScalarKind::Int, i).i, want[i]) << i;
}

// sat(img, int) wraps modulo 2^32: the int64 sum is exact and the conversion
// keeps its low 32 bits (two's complement), as OpenCV's integral with CV_32S
// does. A 300x300 int16 image of 32767 (one point 5) sums to 2949030000 -
// 32762 = 2948997238 at the corner, past 2^31 - 1, so I[299][299] is that
// minus 2^32, -1345970058; a uint16 image of 65535 (one point 1) passes 2^32:
// 5898084466 - 2^32 = 1603117170. Every element is checked against
// (int32_t)(uint32_t)(exact sum).
TEST(EvaluatorScan, SatIntoIntWrapsModulo2To32) {
  const long long M = 300, N = 300;
  std::string text16 = "parameter M, N;\nvector#2 int16 img[M,N];\nI = sat(img, int);\nreturn I;\n";
  std::string textU16 = "parameter M, N;\nvector#2 uint16 img[M,N];\nI = sat(img, int);\nreturn I;\n";
  for (bool isUnsigned : {false, true}) {
    std::vector<uint16_t> raw(static_cast<size_t>(M * N), isUnsigned ? 65535 : 32767);
    raw[1] = isUnsigned ? 1 : 5;  // not all equal: a wrong index shows
    eval::Inputs in;
    in.params = {M, N};
    in.images = {reinterpret_cast<const unsigned char*>(raw.data())};
    auto out = eval::evaluate(pipelineOf(isUnsigned ? textU16 : text16), in);
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].type.scalar, ScalarKind::Int);
    // The exact SAT in int64, by inclusion-exclusion (not by scans).
    std::vector<int64_t> sat(static_cast<size_t>(M * N));
    for (long long i = 0; i < M; ++i)
      for (long long j = 0; j < N; ++j) {
        int64_t v = raw[static_cast<size_t>(i * N + j)];
        if (i) v += sat[static_cast<size_t>((i - 1) * N + j)];
        if (j) v += sat[static_cast<size_t>(i * N + j - 1)];
        if (i && j) v -= sat[static_cast<size_t>((i - 1) * N + j - 1)];
        sat[static_cast<size_t>(i * N + j)] = v;
      }
    int64_t corner = sat.back();
    EXPECT_EQ(corner, isUnsigned ? 5898150000LL - 65534 : 2949030000LL - 32762);
    EXPECT_GT(corner, 2147483647LL);
    for (size_t k = 0; k < sat.size(); ++k)
      ASSERT_EQ(elementOf(out[0], ScalarKind::Int, k).i, static_cast<int32_t>(static_cast<uint32_t>(sat[k]))) << k;
    EXPECT_EQ(elementOf(out[0], ScalarKind::Int, sat.size() - 1).i, isUnsigned ? 1603117170 : -1345970058);
  }
}

// The scanned values may come from a point-wise stage that fusion computes
// inside the scan: scan(sq(img), 1) equals the scan of the squares.
TEST(EvaluatorScan, OfAPointwiseProducer) {
  std::string text =
      "stencil sq(vector#2 int X) { return X * X - 3; }\n"
      "parameter M, N;\nvector#2 int img[M,N];\nS = scan(sq(img), 1);\nT = sat(sq(img), float);\nreturn S, T;\n";
  const long long M = 5, N = 23;
  std::vector<int32_t> v(static_cast<size_t>(M * N));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>((i * 7919) % 4001) - 2000;
  eval::Inputs in;
  in.params = {M, N};
  in.images = {reinterpret_cast<const unsigned char*>(v.data())};
  auto out = eval::evaluate(pipelineOf(text), in);
  ASSERT_EQ(out.size(), 2u);
  std::vector<Value> sq(v.size());
  for (size_t i = 0; i < v.size(); ++i) sq[i].i = static_cast<int32_t>(v[i] * v[i] - 3);
  std::vector<Value> rows = referenceScan(ScalarKind::Int, sq, {M, N}, 1, ScalarKind::Int64);
  std::vector<Value> sat = referenceScan(ScalarKind::Int, sq, {M, N}, -1, ScalarKind::Float);
  for (size_t i = 0; i < v.size(); ++i) {
    ASSERT_EQ(elementOf(out[0], ScalarKind::Int64, i).i, rows[i].i) << i;
    ASSERT_EQ(elementOf(out[1], ScalarKind::Float, i).f, sat[i].f) << i;
  }
}

}  // namespace
}  // namespace formac
