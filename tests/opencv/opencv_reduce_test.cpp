// Reductions and histograms (LANGUAGE.md §7) against OpenCV: formac's generated C,
// built at build time from reduce/*.idsl(.in) and the examples normalize and stats
// (tests/opencv/CMakeLists.txt), called on random images of awkward sizes and
// compared with
//   max/min              cv::minMaxLoc                         exactly
//   count, any, all      cv::countNonZero                      exactly
//   sum                  cv::sum; integers exactly, floating within 1e-12 of the
//                        sum of |x| (exact on dyadic inputs, whose every partial
//                        sum is exact in double); and floating sums bit for bit with
//                        the documented order (ir/Pipeline.h, kSumChunk), here
//                        re-implemented
//   sum(img, d)          cv::reduce(REDUCE_SUM, CV_64F), the same way
//   histogram            cv::calcHist                          exact counts
//   normalize example    cv::normalize(0, 255, NORM_MINMAX, CV_8U), exactly, on
//                        random images and on every one of the 32896 (min, max)
//   stats example        cv::meanStdDev
//   a sum of a computed  cv::norm(NORM_L2SQR), fused and --no-fuse
//   stage
// Outputs start poisoned (0xA5 bytes), so a result left unwritten shows.
//
// Histograms whose bin width is not exact in binary (16 bins over [10, 200))
// are checked against LANGUAGE.md's rule, not calcHist: calcHist rounds
// bins / (hi - lo) first and puts some values on a bin edge one bin lower
// (docs/language-decisions.md, Reductions).
#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

extern "C" {
#include "hist16.h"
#include "hist8.h"
#include "histf.h"
#include "normalize_fused.h"
#include "normalize_unfused.h"
#include "reduce_double.h"
#include "reduce_float.h"
#include "reduce_int.h"
#include "reduce_int16.h"
#include "reduce_int8.h"
#include "reduce_uint16.h"
#include "ssd_float_fused.h"
#include "ssd_float_unfused.h"
#include "ssd_int8_fused.h"
#include "ssd_int8_unfused.h"
#include "stats_fused.h"
#include "stats_unfused.h"
}

namespace {

struct Size2 {
  int rows, cols;
};
const Size2 kSizes[] = {{1, 1}, {1, 4099}, {7, 13}, {257, 131}, {1024, 768}};

std::string sizeName(Size2 s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }

template <typename T>
void poison(T* p, size_t n) {
  std::memset(static_cast<void*>(p), 0xA5, n * sizeof(T));
}

// The floating Sum order of ir/Pipeline.h: chunks of 2048, 32 lanes from +0.0,
// lane j adding the chunk's x[k] with k = j mod 32 in increasing k, folded pairwise
// (16, 8, 4, 2, 1); the chunk sums by the same rule; none: +0.0.
double orderedSum(const std::vector<double>& x) {
  if (x.empty()) return 0.0;
  std::vector<double> sums;
  for (size_t c0 = 0; c0 < x.size(); c0 += 2048) {
    double lane[32];
    for (double& l : lane) l = 0.0;
    size_t end = std::min(x.size(), c0 + 2048);
    for (size_t k = c0; k < end; ++k) lane[(k - c0) % 32] += x[k];
    for (int s = 16; s >= 1; s /= 2)
      for (int j = 0; j < s; ++j) lane[j] = lane[j] + lane[j + s];
    sums.push_back(lane[0]);
  }
  return sums.size() == 1 ? sums[0] : orderedSum(sums);
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// ---- element types -------------------------------------------------------------
template <typename T> struct Elem;
template <> struct Elem<unsigned char> { static constexpr int depth = CV_8U; static const char* name() { return "int8"; } };
template <> struct Elem<short> { static constexpr int depth = CV_16S; static const char* name() { return "int16"; } };
template <> struct Elem<unsigned short> { static constexpr int depth = CV_16U; static const char* name() { return "uint16"; } };
template <> struct Elem<int> { static constexpr int depth = CV_32S; static const char* name() { return "int"; } };
template <> struct Elem<float> { static constexpr int depth = CV_32F; static const char* name() { return "float"; } };
template <> struct Elem<double> { static constexpr int depth = CV_64F; static const char* name() { return "double"; } };

template <typename T>
using Acc = typename std::conditional<std::is_floating_point<T>::value, double, long long>::type;

enum class Fill { Random, Dyadic, Sparse, Constant };
const char* fillName(Fill f) {
  return f == Fill::Random ? "random" : f == Fill::Dyadic ? "dyadic" : f == Fill::Sparse ? "sparse" : "constant";
}

// Random: integers over the type's whole range, floating uniform in [-100, 100);
// Dyadic: floating multiples of 2^-16 in [-100, 100) (every partial sum exact in
// double); Sparse: Random with 70% zeros; Constant: one nonzero value everywhere.
template <typename T>
cv::Mat randomImage(Size2 s, Fill fill, unsigned seed) {
  cv::Mat m(s.rows, s.cols, Elem<T>::depth);
  std::mt19937_64 rng(seed);
  T* p = reinterpret_cast<T*>(m.data);
  T constant = static_cast<T>(std::is_floating_point<T>::value ? 37.25 : 77);
  for (size_t i = 0; i < m.total(); ++i) {
    T v;
    if (std::is_floating_point<T>::value) {
      if (fill == Fill::Dyadic)
        v = static_cast<T>(static_cast<double>(static_cast<int64_t>(rng() % (200u << 16)) - (100 << 16)) / 65536.0);
      else
        v = static_cast<T>(std::uniform_real_distribution<double>(-100.0, 100.0)(rng));
    } else {
      uint64_t r = rng();
      std::memcpy(&v, &r, sizeof v);  // every bit pattern: the whole range
    }
    if (fill == Fill::Sparse && rng() % 10 < 7) v = 0;
    if (fill == Fill::Constant) v = constant;
    p[i] = v;
  }
  return m;
}

// ---- reductions ----------------------------------------------------------------
template <typename T>
using ReduceFn = void (*)(T*, int, int, Acc<T>*, Acc<T>*, T*, T*, Acc<T>*, long long*, int*, int*);

// cv::reduce(REDUCE_SUM, CV_64F), with CV_32S taken through CV_64F (exact) where
// this OpenCV refuses it.
cv::Mat cvReduceSum(const cv::Mat& img, int dim) {
  cv::Mat out;
  try {
    cv::reduce(img, out, dim, cv::REDUCE_SUM, CV_64F);
  } catch (const cv::Exception&) {
    cv::Mat d;
    img.convertTo(d, CV_64F);
    cv::reduce(d, out, dim, cv::REDUCE_SUM, CV_64F);
  }
  return out;
}

// A floating sum: bit for bit the documented order, and within 1e-12 * sum|x| of
// OpenCV's (exactly equal on dyadic inputs).
void expectFloatingSum(double got, const std::vector<double>& x, double opencv, bool exact,
                       const std::string& what) {
  double want = orderedSum(x);
  EXPECT_TRUE(sameBits(got, want)) << what << ": formac " << got << ", the documented order gives "
                                   << want << " (difference " << got - want << ")";
  double mag = 0;
  for (double v : x) mag += std::fabs(v);
  if (exact)
    EXPECT_EQ(got, opencv) << what << " (dyadic input: every order is exact)";
  else
    EXPECT_LE(std::fabs(got - opencv), 1e-12 * mag) << what << ": formac " << got << ", OpenCV " << opencv;
}

template <typename T>
void checkReduce(ReduceFn<T> fn, Size2 s, Fill fill, unsigned seed) {
  constexpr bool floating = std::is_floating_point<T>::value;
  std::string what = std::string("reduce_") + Elem<T>::name() + " " + sizeName(s) + " " + fillName(fill);
  SCOPED_TRACE(what);
  cv::Mat img = randomImage<T>(s, fill, seed), copy = img.clone();
  std::vector<Acc<T>> rows(s.rows), cols(s.cols);
  T mx, mn;
  Acc<T> sum;
  long long count;
  int any, all;
  poison(rows.data(), rows.size());
  poison(cols.data(), cols.size());
  poison(&mx, 1), poison(&mn, 1), poison(&sum, 1), poison(&count, 1), poison(&any, 1), poison(&all, 1);
  fn(reinterpret_cast<T*>(img.data), s.rows, s.cols, rows.data(), cols.data(), &mx, &mn, &sum, &count,
     &any, &all);
  ASSERT_EQ(cv::norm(img, copy, cv::NORM_INF), 0.0) << "the input changed";

  double cvMin, cvMax;
  cv::minMaxLoc(img, &cvMin, &cvMax);
  EXPECT_EQ(static_cast<double>(mx), cvMax) << "max";
  EXPECT_EQ(static_cast<double>(mn), cvMin) << "min";
  long long nz = cv::countNonZero(img);
  EXPECT_EQ(count, nz) << "count";
  EXPECT_EQ(any, nz > 0 ? 1 : 0) << "any";
  EXPECT_EQ(all, nz == static_cast<long long>(img.total()) ? 1 : 0) << "all";

  const T* p = reinterpret_cast<const T*>(img.data);
  // cv::sum of CV_32S and CV_32F images is not the reference: OpenCV 4.6's scalar loop
  // for the last len % 4 (or fewer) values adds them in the element type before
  // converting, so a 1x7 CV_32S sum wraps by 2^32 and a 1x7 CV_32F sum is off by
  // 1e-6 of its size. Those two go through CV_64F (an exact conversion) first.
  double cvSum;
  if (Elem<T>::depth == CV_32S || Elem<T>::depth == CV_32F) {
    cv::Mat d;
    img.convertTo(d, CV_64F);
    cvSum = cv::sum(d)[0];
  } else {
    cvSum = cv::sum(img)[0];
  }
  cv::Mat cvRows = cvReduceSum(img, 1), cvCols = cvReduceSum(img, 0);
  if (floating) {
    std::vector<double> all(p, p + img.total());
    expectFloatingSum(static_cast<double>(sum), all, cvSum, fill == Fill::Dyadic, "sum");
    for (int i = 0; i < s.rows; ++i) {
      std::vector<double> row(p + static_cast<size_t>(i) * s.cols, p + static_cast<size_t>(i + 1) * s.cols);
      expectFloatingSum(static_cast<double>(rows[i]), row, cvRows.at<double>(i, 0), fill == Fill::Dyadic,
                        "sum(img, 1) row " + std::to_string(i));
      if (::testing::Test::HasFailure()) return;
    }
    for (int j = 0; j < s.cols; ++j) {
      std::vector<double> col(s.rows);
      for (int i = 0; i < s.rows; ++i) col[i] = p[static_cast<size_t>(i) * s.cols + j];
      expectFloatingSum(static_cast<double>(cols[j]), col, cvCols.at<double>(0, j), fill == Fill::Dyadic,
                        "sum(img, 0) column " + std::to_string(j));
      if (::testing::Test::HasFailure()) return;
    }
  } else {
    long long exact = 0;
    for (size_t i = 0; i < img.total(); ++i) exact += static_cast<long long>(p[i]);
    EXPECT_EQ(static_cast<long long>(sum), exact) << "sum";
    EXPECT_EQ(static_cast<double>(sum), cvSum) << "sum against cv::sum";  // < 2^53: exact
    for (int i = 0; i < s.rows; ++i)
      ASSERT_EQ(static_cast<double>(rows[i]), cvRows.at<double>(i, 0)) << "sum(img, 1) row " << i;
    for (int j = 0; j < s.cols; ++j)
      ASSERT_EQ(static_cast<double>(cols[j]), cvCols.at<double>(0, j)) << "sum(img, 0) column " << j;
  }
}

template <typename T>
void checkReduceAll(ReduceFn<T> fn) {
  unsigned seed = 1;
  for (Size2 s : kSizes)
    for (Fill f : {Fill::Random, Fill::Dyadic, Fill::Sparse, Fill::Constant}) {
      if (f == Fill::Dyadic && !std::is_floating_point<T>::value) continue;
      checkReduce<T>(fn, s, f, seed++);
      if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(Reduce, Int8) { checkReduceAll<unsigned char>(reduce_int8); }
TEST(Reduce, Int16) { checkReduceAll<short>(reduce_int16); }
TEST(Reduce, Uint16) { checkReduceAll<unsigned short>(reduce_uint16); }
TEST(Reduce, Int) { checkReduceAll<int>(reduce_int); }
TEST(Reduce, Float) { checkReduceAll<float>(reduce_float); }
TEST(Reduce, Double) { checkReduceAll<double>(reduce_double); }

// ---- histograms ----------------------------------------------------------------
// cv::calcHist of one channel, `bins` uniform bins over [lo, hi), as int64 counts.
std::vector<long long> calcHist(const cv::Mat& img, int bins, float lo, float hi) {
  cv::Mat h;
  int channels[] = {0};
  int sizes[] = {bins};
  float range[] = {lo, hi};
  const float* ranges[] = {range};
  cv::calcHist(&img, 1, channels, cv::Mat(), h, 1, sizes, ranges, true, false);
  std::vector<long long> out(bins);
  for (int b = 0; b < bins; ++b) out[b] = static_cast<long long>(h.at<float>(b));
  return out;
}

// LANGUAGE.md §7's rule as written: bin floor(((double)v - lo) * bins / (hi - lo)) for
// lo <= v < hi, not counted when the bin falls outside.
template <typename T>
std::vector<long long> documentedHist(const cv::Mat& img, long long bins, double lo, double hi) {
  std::vector<long long> out(bins, 0);
  const T* p = reinterpret_cast<const T*>(img.data);
  for (size_t i = 0; i < img.total(); ++i) {
    double v = static_cast<double>(p[i]);
    if (!(lo <= v && v < hi)) continue;
    double b = std::floor((v - lo) * static_cast<double>(bins) / (hi - lo));
    if (b >= 0 && b < static_cast<double>(bins)) ++out[static_cast<size_t>(b)];
  }
  return out;
}

void expectSameHist(const long long* got, const std::vector<long long>& want, const std::string& what) {
  int differ = 0;
  std::string first;
  for (size_t b = 0; b < want.size(); ++b)
    if (got[b] != want[b] && differ++ == 0)
      first = "bin " + std::to_string(b) + ": formac " + std::to_string(got[b]) + ", want " + std::to_string(want[b]);
  EXPECT_EQ(differ, 0) << what << ": " << differ << " of " << want.size() << " bins differ, first " << first;
}

// The 8-bit images: random, every value in one bin (the worst contention), each
// value once, and values exactly on the 16-bin edges.
std::vector<std::pair<std::string, cv::Mat>> int8Images() {
  std::vector<std::pair<std::string, cv::Mat>> out;
  unsigned seed = 100;
  for (Size2 s : kSizes) out.push_back({"random " + sizeName(s), randomImage<unsigned char>(s, Fill::Random, seed++)});
  out.push_back({"all 77, 1024x768", cv::Mat(1024, 768, CV_8U, cv::Scalar(77))});
  out.push_back({"all 0, 257x131", cv::Mat(257, 131, CV_8U, cv::Scalar(0))});
  out.push_back({"all 255, 7x13", cv::Mat(7, 13, CV_8U, cv::Scalar(255))});
  cv::Mat ramp(1, 256, CV_8U);
  for (int v = 0; v < 256; ++v) ramp.at<unsigned char>(0, v) = static_cast<unsigned char>(v);
  out.push_back({"each value once, 1x256", ramp});
  return out;
}

void runHist8(const cv::Mat& img, std::vector<long long>& h, std::vector<long long>& h16) {
  h.assign(256, 0), h16.assign(16, 0);
  poison(h.data(), h.size()), poison(h16.data(), h16.size());
  hist8(const_cast<unsigned char*>(img.data), img.rows, img.cols, h.data(), h16.data());
}

TEST(Histogram, Int8Bins256) {
  for (auto& [name, img] : int8Images()) {
    std::vector<long long> h, h16;
    runHist8(img, h, h16);
    expectSameHist(h.data(), calcHist(img, 256, 0, 256), "histogram(img, 256, 0, 256) vs calcHist, " + name);
  }
}

TEST(Histogram, Int8Bins16From10To200DocumentedRule) {
  for (auto& [name, img] : int8Images()) {
    std::vector<long long> h, h16;
    runHist8(img, h, h16);
    expectSameHist(h16.data(), documentedHist<unsigned char>(img, 16, 10, 200),
                   "histogram(img, 16, 10, 200) vs LANGUAGE.md's rule, " + name);
  }
}

// Every value in one bin of the 16 (none on an edge): 153..163 are in bin 12,
// [152.5, 164.375).
TEST(Histogram, Int8Bins16OneBinContention) {
  cv::Mat img = randomImage<unsigned char>({1024, 768}, Fill::Random, 7);
  for (size_t i = 0; i < img.total(); ++i) img.data[i] = static_cast<unsigned char>(153 + img.data[i] % 11);
  std::vector<long long> h, h16;
  runHist8(img, h, h16);
  expectSameHist(h16.data(), calcHist(img, 16, 10, 200), "histogram(img, 16, 10, 200), all in bin 12");
  EXPECT_EQ(h16[12], static_cast<long long>(img.total()));
  expectSameHist(h.data(), calcHist(img, 256, 0, 256), "histogram(img, 256, 0, 256), values 153..163");
}

std::vector<std::pair<std::string, cv::Mat>> uint16Images() {
  std::vector<std::pair<std::string, cv::Mat>> out;
  unsigned seed = 200;
  for (Size2 s : kSizes) out.push_back({"random " + sizeName(s), randomImage<unsigned short>(s, Fill::Random, seed++)});
  out.push_back({"all 30000, 1024x768", cv::Mat(1024, 768, CV_16U, cv::Scalar(30000))});
  return out;
}

void runHist16(const cv::Mat& img, std::vector<long long>& h, std::vector<long long>& h64) {
  h.assign(100, 0), h64.assign(64, 0);
  poison(h.data(), h.size()), poison(h64.data(), h64.size());
  hist16(reinterpret_cast<unsigned short*>(const_cast<unsigned char*>(img.data)), img.rows, img.cols, h.data(),
         h64.data());
}

TEST(Histogram, Uint16Bins64) {
  for (auto& [name, img] : uint16Images()) {
    std::vector<long long> h, h64;
    runHist16(img, h, h64);
    expectSameHist(h64.data(), calcHist(img, 64, 0, 65536), "histogram(img, 64, 0, 65536) vs calcHist, " + name);
    expectSameHist(h.data(), documentedHist<unsigned short>(img, 100, 1000, 60000),
                   "histogram(img, 100, 1000, 60000) vs LANGUAGE.md's rule, " + name);
  }
}

TEST(Histogram, Float) {
  unsigned seed = 300;
  std::vector<std::pair<std::string, cv::Mat>> images;
  for (Size2 s : kSizes) {
    cv::Mat m(s.rows, s.cols, CV_32F);
    cv::theRNG().state = seed++;
    cv::randu(m, -0.25, 1.25);  // some below 0 and above 1: not counted
    images.push_back({"random " + sizeName(s), m});
  }
  cv::Mat edges(1, 64, CV_32F);  // on and beside every edge of both histograms
  for (int k = 0; k < 64; ++k) {
    float e = k < 11 ? k / 10.0f : 0.25f + (k - 11) % 8 * (0.5f / 7.0f);
    edges.at<float>(0, k) = k % 2 ? std::nextafter(e, 0.0f) : e;
  }
  images.push_back({"bin edges", edges});
  images.push_back({"all 0.5, 1024x768", cv::Mat(1024, 768, CV_32F, cv::Scalar(0.5))});
  for (auto& [name, img] : images) {
    std::vector<long long> h(10), h7(7);
    poison(h.data(), h.size()), poison(h7.data(), h7.size());
    histf(reinterpret_cast<float*>(img.data), img.rows, img.cols, h.data(), h7.data());
    expectSameHist(h.data(), calcHist(img, 10, 0, 1), "histogram(img, 10, 0, 1) vs calcHist, " + name);
    expectSameHist(h7.data(), calcHist(img, 7, 0.25f, 0.75f), "histogram(img, 7, 0.25, 0.75) vs calcHist, " + name);
  }
}

// ---- the normalize example -------------------------------------------------------
using NormalizeFn = void (*)(unsigned char*, int, int, unsigned char*, unsigned char*, unsigned char*);

void checkNormalize(NormalizeFn fn, const cv::Mat& img, const std::string& what) {
  cv::Mat want, got(img.rows, img.cols, CV_8U);
  cv::normalize(img, want, 0, 255, cv::NORM_MINMAX, CV_8U);
  unsigned char lo, hi;
  poison(got.data, got.total()), poison(&lo, 1), poison(&hi, 1);
  fn(const_cast<unsigned char*>(img.data), img.rows, img.cols, got.data, &lo, &hi);
  double cvMin, cvMax;
  cv::minMaxLoc(img, &cvMin, &cvMax);
  ASSERT_EQ(lo, cvMin) << what;
  ASSERT_EQ(hi, cvMax) << what;
  for (size_t i = 0; i < img.total(); ++i)
    ASSERT_EQ(int(got.data[i]), int(want.data[i])) << what << ": pixel " << i << " = " << int(img.data[i])
                                                   << " in [" << int(lo) << ", " << int(hi) << "]";
}

void checkNormalizeRandom(NormalizeFn fn) {
  std::mt19937 rng(400);
  for (Size2 s : kSizes) {
    for (int trial = 0; trial < 4; ++trial) {
      int a = rng() % 256, b = rng() % 256;
      int lo = std::min(a, b), hi = std::max(a, b);
      cv::Mat img(s.rows, s.cols, CV_8U);
      for (size_t i = 0; i < img.total(); ++i) img.data[i] = static_cast<unsigned char>(lo + rng() % (hi - lo + 1));
      checkNormalize(fn, img, sizeName(s) + " values in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  checkNormalize(fn, cv::Mat(257, 131, CV_8U, cv::Scalar(90)), "constant 90 (OpenCV: all 0)");
}

// Every (min, max) pair, each value from min to max once, in a row (the rows of
// fewer than 16 values go through OpenCV's scalar loop, the others its SIMD loop).
void checkNormalizeEveryRange(NormalizeFn fn) {
  for (int lo = 0; lo < 256; ++lo)
    for (int hi = lo; hi < 256; ++hi) {
      cv::Mat img(1, hi - lo + 1, CV_8U);
      for (int v = lo; v <= hi; ++v) img.data[v - lo] = static_cast<unsigned char>(v);
      checkNormalize(fn, img, "values " + std::to_string(lo) + ".." + std::to_string(hi));
      if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(Normalize, RandomFused) { checkNormalizeRandom(normalize_fused); }
TEST(Normalize, RandomUnfused) { checkNormalizeRandom(normalize_unfused); }
TEST(Normalize, EveryRangeFused) { checkNormalizeEveryRange(normalize_fused); }
TEST(Normalize, EveryRangeUnfused) { checkNormalizeEveryRange(normalize_unfused); }

// ---- the stats example -----------------------------------------------------------
using StatsFn = void (*)(float*, int, int, float*, double*, double*);

void checkStats(StatsFn fn, const cv::Mat& img, const std::string& what) {
  SCOPED_TRACE(what);
  cv::Mat z(img.rows, img.cols, CV_32F);
  double s, s2;
  poison(reinterpret_cast<float*>(z.data), z.total()), poison(&s, 1), poison(&s2, 1);
  fn(reinterpret_cast<float*>(img.data), img.rows, img.cols, reinterpret_cast<float*>(z.data), &s, &s2);
  const float* p = reinterpret_cast<const float*>(img.data);
  std::vector<double> x(p, p + img.total()), x2(img.total());
  for (size_t i = 0; i < x.size(); ++i) x2[i] = x[i] * x[i];
  EXPECT_TRUE(sameBits(s, orderedSum(x))) << "sum " << s << " vs " << orderedSum(x);
  EXPECT_TRUE(sameBits(s2, orderedSum(x2))) << "sum of squares " << s2 << " vs " << orderedSum(x2);
  cv::Scalar cvMean, cvStd;
  cv::meanStdDev(img, cvMean, cvStd);
  double n = static_cast<double>(img.total()), mean = s / n, var = s2 / n - mean * mean;
  double sd = std::sqrt(var > 0 ? var : 0);
  EXPECT_NEAR(mean, cvMean[0], 1e-12 * (1 + std::fabs(cvMean[0]))) << "mean";
  // Both compute s2 / n - mean^2 in one pass, which cancels: the standard deviation
  // within 1e-8 (on a constant 0.3 image OpenCV's is 3.7e-9, formac's 0).
  EXPECT_NEAR(sd, cvStd[0], 1e-8) << "standard deviation";
  bool flat = cvStd[0] < 1e-7;  // a constant image: z is 0 (formac's rule for std 0)
  int bad = 0;
  for (size_t i = 0; i < img.total(); ++i) {
    double want = flat ? 0.0 : (p[i] - cvMean[0]) / cvStd[0];
    float got = reinterpret_cast<const float*>(z.data)[i];
    if (!(std::fabs(got - want) <= 1e-5 * (1 + std::fabs(want))) && bad++ == 0)
      ADD_FAILURE() << "z at " << i << ": formac " << got << ", from meanStdDev " << want;
  }
  EXPECT_EQ(bad, 0) << "z values off";
}

void checkStatsAll(StatsFn fn) {
  unsigned seed = 500;
  for (Size2 s : kSizes) {
    cv::Mat img(s.rows, s.cols, CV_32F);
    cv::theRNG().state = seed++;
    cv::randu(img, 0.0, 1.0);
    checkStats(fn, img, "random 0..1 " + sizeName(s));
  }
  checkStats(fn, cv::Mat(7, 13, CV_32F, cv::Scalar(0.3)), "constant 0.3 (z 0)");
}

TEST(Stats, Fused) { checkStatsAll(stats_fused); }
TEST(Stats, Unfused) { checkStatsAll(stats_unfused); }

// ---- a reduction of a computed stage ---------------------------------------------
TEST(SumOfSquaredDifferences, Int8) {
  unsigned seed = 600;
  for (Size2 s : kSizes) {
    cv::Mat a = randomImage<unsigned char>(s, Fill::Random, seed++), b = randomImage<unsigned char>(s, Fill::Random, seed++);
    long long fused, unfused;
    poison(&fused, 1), poison(&unfused, 1);
    ssd_int8_fused(a.data, b.data, s.rows, s.cols, &fused);
    ssd_int8_unfused(a.data, b.data, s.rows, s.cols, &unfused);
    double want = cv::norm(a, b, cv::NORM_L2SQR);
    EXPECT_EQ(static_cast<double>(fused), want) << sizeName(s) << " fused";
    EXPECT_EQ(unfused, fused) << sizeName(s) << " --no-fuse";
  }
}

TEST(SumOfSquaredDifferences, Float) {
  unsigned seed = 700;
  for (Size2 s : kSizes) {
    cv::Mat a = randomImage<float>(s, Fill::Random, seed++), b = randomImage<float>(s, Fill::Random, seed++);
    double fused, unfused;
    poison(&fused, 1), poison(&unfused, 1);
    ssd_float_fused(reinterpret_cast<float*>(a.data), reinterpret_cast<float*>(b.data), s.rows, s.cols, &fused);
    ssd_float_unfused(reinterpret_cast<float*>(a.data), reinterpret_cast<float*>(b.data), s.rows, s.cols, &unfused);
    const float* pa = reinterpret_cast<const float*>(a.data);
    const float* pb = reinterpret_cast<const float*>(b.data);
    std::vector<double> sq(a.total());
    for (size_t i = 0; i < sq.size(); ++i) {
      double d = static_cast<double>(pa[i]) - pb[i];
      sq[i] = d * d;
    }
    cv::Mat a64, b64;
    a.convertTo(a64, CV_64F), b.convertTo(b64, CV_64F);
    expectFloatingSum(fused, sq, cv::norm(a64, b64, cv::NORM_L2SQR), false, sizeName(s) + " fused");
    EXPECT_TRUE(sameBits(unfused, fused)) << sizeName(s) << " --no-fuse " << unfused << " vs fused " << fused;
  }
}

}  // namespace
