#include "run/Samples.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace formac::run {
namespace {

// Calls f(T{}) with T the C type of `t`.
template <typename F>
void withType(formac_pixel_type t, F&& f) {
  switch (t) {
    case FORMAC_U8: f(uint8_t{}); return;
    case FORMAC_U16: f(uint16_t{}); return;
    case FORMAC_I16: f(int16_t{}); return;
    case FORMAC_I32: f(int32_t{}); return;
    case FORMAC_F32: f(float{}); return;
    case FORMAC_F64: f(double{}); return;
    case FORMAC_I64: f(int64_t{}); return;
  }
}

// Saturating before rounding gives what rounding first does (the bounds are
// integers); the rounding is std::round's (half away from zero), done with a
// truncation and the exact remainder: no library call in the loop.
template <typename To>
To fromDouble(double v) {
  if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(v);
  } else {
    constexpr double lo = std::numeric_limits<To>::min(), hi = std::numeric_limits<To>::max();
    if (!(v >= lo)) return v < lo ? static_cast<To>(lo) : 0;  // NaN: 0
    if (v >= hi) return std::numeric_limits<To>::max();  // int64's max is not a double
    long long t = static_cast<long long>(v);
    double rest = v - static_cast<double>(t);
    return static_cast<To>(t + (rest >= 0.5) - (rest <= -0.5));
  }
}

#if defined(__SSE2__)
// fromDouble(x * mul) of two samples as int32s in the low lanes: the same
// steps, NaN to 0, clamped to [lo, hi], truncated, and 1 added or taken
// where the exact remainder reaches a half (comparison masks are -1).
inline __m128i fromDouble2(__m128d v, __m128d mul, __m128d lo, __m128d hi) {
  v = _mm_mul_pd(v, mul);
  v = _mm_and_pd(v, _mm_cmpord_pd(v, v));
  v = _mm_min_pd(_mm_max_pd(v, lo), hi);
  __m128i t = _mm_cvttpd_epi32(v);
  __m128d rest = _mm_sub_pd(v, _mm_cvtepi32_pd(t));
  __m128i adjust = _mm_sub_epi32(_mm_castpd_si128(_mm_cmple_pd(rest, _mm_set1_pd(-0.5))),
                                 _mm_castpd_si128(_mm_cmpge_pd(rest, _mm_set1_pd(0.5))));
  return _mm_add_epi32(t, _mm_shuffle_epi32(adjust, _MM_SHUFFLE(3, 3, 2, 0)));
}

inline __m128d loadPair(const float* p) {
  return _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
}
inline __m128d loadPair(const double* p) { return _mm_loadu_pd(p); }
#endif

// fromDouble<To>(x * mul) of the first n samples, four at a time with SSE2
// (x86-64's baseline), where x is floating and To fits int32; returns how
// many it did (the rest: the scalar loop's).
template <typename From, typename To>
size_t fromDoubleFours([[maybe_unused]] const From* src, [[maybe_unused]] To* dst, [[maybe_unused]] size_t n,
                       [[maybe_unused]] double mul) {
#if defined(__SSE2__)
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To> && sizeof(To) <= 4) {
    const __m128d m = _mm_set1_pd(mul), lo = _mm_set1_pd(std::numeric_limits<To>::min()),
                  hi = _mm_set1_pd(std::numeric_limits<To>::max());
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
      alignas(16) int32_t r[4];
      _mm_store_si128(reinterpret_cast<__m128i*>(r),
                      _mm_unpacklo_epi64(fromDouble2(loadPair(src + i), m, lo, hi),
                                         fromDouble2(loadPair(src + i + 2), m, lo, hi)));
      for (int k = 0; k < 4; ++k) dst[i + k] = static_cast<To>(r[k]);
    }
    return i;
  }
#endif
  return 0;
}

// Divide only where it changes the value: x * mul / 1 is x * mul, and a
// division costs several multiplications' time.
// Integer samples taken as they are saturate without a detour through double,
// which would round an int64 beyond 2^53.
// Contiguous runs go through fromDoubleFours first.
template <typename From, typename To, bool divide>
void convertRun(const unsigned char* src, size_t ss, unsigned char* dst, size_t ds, size_t n, Scale s) {
  const bool asStored = s.mul == 1 && s.div == 1;
  size_t i = 0;
  if (!divide && ss == sizeof(From) && ds == sizeof(To))
    i = fromDoubleFours(reinterpret_cast<const From*>(src), reinterpret_cast<To*>(dst), n, s.mul);
  for (; i < n; ++i) {
    From x;
    std::memcpy(&x, src + i * ss, sizeof x);
    if constexpr (std::is_integral_v<From> && std::is_integral_v<To>) {
      if (asStored) {  // every sample type fits long long
        long long v = static_cast<long long>(x), lo = std::numeric_limits<To>::min(), hi = std::numeric_limits<To>::max();
        To y = static_cast<To>(v < lo ? lo : v > hi ? hi : v);
        std::memcpy(dst + i * ds, &y, sizeof y);
        continue;
      }
    }
    double v = static_cast<double>(x) * s.mul;
    To y = fromDouble<To>(divide ? v / s.div : v);
    std::memcpy(dst + i * ds, &y, sizeof y);
  }
}

}  // namespace

// Every sample is converted on its own: a long run is cut into one part a
// processor (of 2^17 samples at least), converted in parallel (a part whose
// thread cannot start is converted by this one).
void convertSamples(const SampleSource& from, const SampleTarget& to, size_t n, Scale s) {
  auto part = [&](size_t begin, size_t end) {
    const unsigned char* src = from.data + begin * from.stride;
    unsigned char* dst = to.data + begin * to.stride;
    withType(from.type, [&](auto f) {
      withType(to.type, [&](auto t) {
        if (s.div == 1) convertRun<decltype(f), decltype(t), false>(src, from.stride, dst, to.stride, end - begin, s);
        else convertRun<decltype(f), decltype(t), true>(src, from.stride, dst, to.stride, end - begin, s);
      });
    });
  };
  size_t parts = std::clamp<size_t>(n >> 17, 1, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> threads;
  for (size_t k = 1; k < parts; ++k) {
    try {
      threads.emplace_back(part, n * k / parts, n * (k + 1) / parts);
    } catch (const std::system_error&) {
      part(n * k / parts, n * (k + 1) / parts);
    }
  }
  part(0, n / parts);
  for (std::thread& t : threads) t.join();
}

void rgbToGray(formac_pixel_type type, const unsigned char* rgb, int channels, size_t pixels,
               unsigned char* gray) {
  withType(type, [&](auto zero) {
    using T = decltype(zero);
    const T* in = reinterpret_cast<const T*>(rgb);
    T* out = reinterpret_cast<T*>(gray);
    for (size_t i = 0; i < pixels; ++i) {
      const T* p = in + i * static_cast<size_t>(channels);
      if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t>) {
        out[i] = static_cast<T>((p[0] * 9798u + p[1] * 19235u + p[2] * 3735u + 16384u) >> 15);
      } else {
        using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
        F r = static_cast<F>(p[0]) * static_cast<F>(0.299f), g = static_cast<F>(p[1]) * static_cast<F>(0.587f),
          b = static_cast<F>(p[2]) * static_cast<F>(0.114f);
        out[i] = static_cast<T>(r + g + b);
      }
    }
  });
}

}  // namespace formac::run
