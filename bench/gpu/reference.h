// bench/gpu/reference.h — random input, float64 CPU references of the three
// pipelines (formac's semantics: LANGUAGE.md), and image comparison. Shared by
// the GPU driver (bench_gpu.cu) and the host check (host_check.cpp).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

// ---------------------------------------------------------------- input ----
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static inline float next_uniform() {  // xorshift64*, uniform in [0, 1)
  g_rng ^= g_rng >> 12;
  g_rng ^= g_rng << 25;
  g_rng ^= g_rng >> 27;
  return (float)((g_rng * 2685821657736338717ull) >> 40) / (float)(1 << 24);
}
static inline void random_image(std::vector<float>& v, uint64_t seed) {
  g_rng = seed * 0x2545F4914F6CDD1Dull + 1;
  for (auto& x : v) x = 0.05f + 0.95f * next_uniform();  // never 0
}

// ------------------------------------------------------ float64 reference ---
static inline long long mir(long long i, long long n) {  // reflect-101, any offset
  if (n == 1) return 0;
  long long p = 2 * (n - 1), m = i % p;
  if (m < 0) m += p;
  return m < n ? m : p - m;
}

static inline void ref_blur(const std::vector<float>& in, int M, int N, std::vector<double>& out) {
  std::vector<double> t((size_t)M * N, 0.0);
  for (int i = 1; i < M - 1; i++)
    for (int j = 0; j < N; j++)
      t[(size_t)i * N + j] = ((double)in[(size_t)(i - 1) * N + j] + in[(size_t)i * N + j] + in[(size_t)(i + 1) * N + j]) / 3.0;
  out.assign((size_t)M * N, 0.0);
  for (int i = 0; i < M; i++)
    for (int j = 1; j < N - 1; j++)
      out[(size_t)i * N + j] = (t[(size_t)i * N + j - 1] + t[(size_t)i * N + j] + t[(size_t)i * N + j + 1]) / 3.0;
}

template <class F>
static inline double at_m(const F& img, int M, int N, long long i, long long j) {
  return img[(size_t)mir(i, M) * N + mir(j, N)];
}

static inline void sobel(const std::vector<double>& I, int M, int N, std::vector<double>& gx, std::vector<double>& gy) {
  gx.assign((size_t)M * N, 0.0);
  gy.assign((size_t)M * N, 0.0);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      auto a = [&](int di, int dj) { return at_m(I, M, N, i + di, j + dj); };
      gx[(size_t)i * N + j] = (a(-1, 1) - a(-1, -1)) + 2 * (a(0, 1) - a(0, -1)) + (a(1, 1) - a(1, -1));
      gy[(size_t)i * N + j] = (a(1, -1) - a(-1, -1)) + 2 * (a(1, 0) - a(-1, 0)) + (a(1, 1) - a(-1, 1));
    }
}

static inline void ref_harris(const std::vector<float>& in, int M, int N, double k, std::vector<double>& out) {
  std::vector<double> I(in.begin(), in.end()), ix, iy;
  sobel(I, M, N, ix, iy);
  std::vector<double> xx((size_t)M * N), yy((size_t)M * N), xy((size_t)M * N);
  for (size_t p = 0; p < xx.size(); p++) {
    xx[p] = ix[p] * ix[p];
    yy[p] = iy[p] * iy[p];
    xy[p] = ix[p] * iy[p];
  }
  static const double w[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
  out.assign((size_t)M * N, 0.0);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double sxx = 0, syy = 0, sxy = 0;
      for (int di = -1; di <= 1; di++)
        for (int dj = -1; dj <= 1; dj++) {
          const double ww = w[di + 1][dj + 1];
          sxx += ww * at_m(xx, M, N, i + di, j + dj);
          syy += ww * at_m(yy, M, N, i + di, j + dj);
          sxy += ww * at_m(xy, M, N, i + di, j + dj);
        }
      sxx /= 16;
      syy /= 16;
      sxy /= 16;
      const double det = sxx * syy - sxy * sxy, tr = sxx + syy;
      out[(size_t)i * N + j] = det - k * tr * tr;
    }
}

// Returns the thinned magnitude in `thin` and the classified image in `out`.
static inline void ref_canny(const std::vector<float>& in, int M, int N, double low, double high, std::vector<double>& thin,
                      std::vector<double>& out) {
  static const double w[5][5] = {{2, 4, 5, 4, 2}, {4, 9, 12, 9, 4}, {5, 12, 15, 12, 5}, {4, 9, 12, 9, 4}, {2, 4, 5, 4, 2}};
  std::vector<double> S((size_t)M * N), gx, gy, mag((size_t)M * N);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int di = -2; di <= 2; di++)
        for (int dj = -2; dj <= 2; dj++) s += w[di + 2][dj + 2] * at_m(in, M, N, i + di, j + dj);
      S[(size_t)i * N + j] = s / 159.0;
    }
  sobel(S, M, N, gx, gy);
  for (size_t p = 0; p < mag.size(); p++) mag[p] = std::sqrt(gx[p] * gx[p] + gy[p] * gy[p]);
  thin.assign((size_t)M * N, 0.0);
  out.assign((size_t)M * N, 0.0);
  const double t = (double)0.41421f;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      const size_t p = (size_t)i * N + j;
      const double ax = std::fabs(gx[p]), ay = std::fabs(gy[p]);
      auto m = [&](int di, int dj) { return at_m(mag, M, N, i + di, j + dj); };
      double a, b;
      if (ay <= t * ax) {
        a = m(0, -1);
        b = m(0, 1);
      } else if (ax <= t * ay) {
        a = m(-1, 0);
        b = m(1, 0);
      } else if (gx[p] * gy[p] > 0) {
        a = m(-1, -1);
        b = m(1, 1);
      } else {
        a = m(-1, 1);
        b = m(1, -1);
      }
      const double e = (mag[p] > a && mag[p] >= b) ? mag[p] : 0.0;
      thin[p] = e;
      out[p] = e >= high ? 255.0 : (e >= low ? 128.0 : 0.0);
    }
}

// ------------------------------------------------------------ comparing ----
struct Diff {
  double max_abs = 0, max_ref = 0;
  long long differing = 0, nonfinite = 0;
};
// Compares a with b over rows [b0, M-b0) and columns [b0, N-b0).
template <class A, class B>
static inline Diff compare(const A& a, const B& b, int M, int N, int b0 = 0) {
  Diff d;
  for (int i = b0; i < M - b0; i++)
    for (int j = b0; j < N - b0; j++) {
      const size_t p = (size_t)i * N + j;
      const double x = a[p], y = b[p];
      if (!std::isfinite(x)) {
        d.nonfinite++;
        continue;
      }
      const double e = std::fabs(x - y);
      if (e > d.max_abs) d.max_abs = e;
      if (std::fabs(y) > d.max_ref) d.max_ref = std::fabs(y);
      if (x != y) d.differing++;
    }
  return d;
}
static inline std::string describe(const Diff& d, bool count_pixels) {
  char s[160];
  if (d.nonfinite)
    snprintf(s, sizeof s, "FAIL: %lld unwritten/non-finite", d.nonfinite);
  else if (count_pixels)
    snprintf(s, sizeof s, "%lld px differ", d.differing);
  else if (d.max_abs == 0)
    snprintf(s, sizeof s, "max|d| 0");
  else
    snprintf(s, sizeof s, "max|d| %.1e (rel %.1e)", d.max_abs, d.max_ref > 0 ? d.max_abs / d.max_ref : 0.0);
  return s;
}

