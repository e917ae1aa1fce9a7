#include "run/Samples.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

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

// Divide only where it changes the value: x * mul / 1 is x * mul, and a
// division costs several multiplications' time.
// Integer samples taken as they are saturate without a detour through double,
// which would round an int64 beyond 2^53.
template <typename From, typename To, bool divide>
void convertRun(const unsigned char* src, size_t ss, unsigned char* dst, size_t ds, size_t n, Scale s) {
  const bool asStored = s.mul == 1 && s.div == 1;
  for (size_t i = 0; i < n; ++i) {
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

void convertSamples(const SampleSource& from, const SampleTarget& to, size_t n, Scale s) {
  withType(from.type, [&](auto f) {
    withType(to.type, [&](auto t) {
      if (s.div == 1) convertRun<decltype(f), decltype(t), false>(from.data, from.stride, to.data, to.stride, n, s);
      else convertRun<decltype(f), decltype(t), true>(from.data, from.stride, to.data, to.stride, n, s);
    });
  });
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
