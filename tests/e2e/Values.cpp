#include "Values.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace formac::e2e {
namespace {

double randomNumber(ScalarKind k, std::mt19937& rng) {
  switch (k) {
    case ScalarKind::Int8: return std::uniform_int_distribution<int>(0, 255)(rng);
    case ScalarKind::Int16: return std::uniform_int_distribution<int>(-3000, 3000)(rng);
    case ScalarKind::Uint16: return std::uniform_int_distribution<int>(0, 65535)(rng);
    case ScalarKind::Int: return std::uniform_int_distribution<int>(-1000, 1000)(rng);
    case ScalarKind::Int64:  // beyond int's range, exact as doubles
      return static_cast<double>(std::uniform_int_distribution<long long>(-(1LL << 40), 1LL << 40)(rng));
    case ScalarKind::Float:
    case ScalarKind::Double: {
      double v = std::uniform_int_distribution<int>(0, 4)(rng) == 0
                     ? std::uniform_int_distribution<int>(-4, 4)(rng)
                     : std::uniform_real_distribution<double>(-4.0, 4.0)(rng);
      return k == ScalarKind::Float ? static_cast<double>(static_cast<float>(v)) : v;
    }
  }
  return 0.0;
}

// A value at the edge of kind k (see randomImage).
double specialNumber(ScalarKind k, std::mt19937& rng) {
  static const double kFloat[] = {NAN, INFINITY, -INFINITY, -0.0, 1e-40, -1.1754943508222875e-38,
                                  3.4028234663852886e38, -3.4028234663852886e38, 16777217.0};
  static const double kDouble[] = {NAN, INFINITY, -INFINITY, -0.0, 4.9e-324, -2.2250738585072014e-308,
                                   1.7976931348623157e308, -1.7976931348623157e308, 9007199254740993.0};
  auto pick = [&](const double* v, size_t n) { return v[std::uniform_int_distribution<size_t>(0, n - 1)(rng)]; };
  switch (k) {
    case ScalarKind::Int8: { static const double v[] = {0, 255, 127, 128}; return pick(v, 4); }
    case ScalarKind::Int16: { static const double v[] = {-32768, 32767, -1, 0}; return pick(v, 4); }
    case ScalarKind::Uint16: { static const double v[] = {0, 65535, 32767, 32768}; return pick(v, 4); }
    case ScalarKind::Int: { static const double v[] = {-2147483648.0, 2147483647.0, -1, 0}; return pick(v, 4); }
    case ScalarKind::Int64: {  // 2^63 - 1024: the largest double below 2^63
      static const double v[] = {-9223372036854775808.0, 9223372036854774784.0, -1, 0, 2147483648.0};
      return pick(v, 5);
    }
    case ScalarKind::Float: return pick(kFloat, sizeof kFloat / sizeof kFloat[0]);
    case ScalarKind::Double: return pick(kDouble, sizeof kDouble / sizeof kDouble[0]);
  }
  return 0.0;
}

void storeNumber(unsigned char* p, ScalarKind k, double v) {
  switch (k) {
    case ScalarKind::Int8: *p = static_cast<unsigned char>(v); break;
    case ScalarKind::Int16: { short x = static_cast<short>(v); std::memcpy(p, &x, 2); break; }
    case ScalarKind::Uint16: { uint16_t x = static_cast<uint16_t>(v); std::memcpy(p, &x, 2); break; }
    case ScalarKind::Int: { int32_t x = static_cast<int32_t>(v); std::memcpy(p, &x, 4); break; }
    case ScalarKind::Int64: { int64_t x = static_cast<int64_t>(v); std::memcpy(p, &x, 8); break; }
    case ScalarKind::Float: { float x = static_cast<float>(v); std::memcpy(p, &x, 4); break; }
    case ScalarKind::Double: std::memcpy(p, &v, 8); break;
  }
}

std::string describeNumber(const unsigned char* p, ScalarKind k) {
  char buf[96];
  switch (k) {
    case ScalarKind::Int8: std::snprintf(buf, sizeof buf, "%u", *p); break;
    case ScalarKind::Int16: { short x; std::memcpy(&x, p, 2); std::snprintf(buf, sizeof buf, "%d", x); break; }
    case ScalarKind::Uint16: { uint16_t x; std::memcpy(&x, p, 2); std::snprintf(buf, sizeof buf, "%u", x); break; }
    case ScalarKind::Int: { int32_t x; std::memcpy(&x, p, 4); std::snprintf(buf, sizeof buf, "%d", x); break; }
    case ScalarKind::Int64: {
      int64_t x;
      std::memcpy(&x, p, 8);
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(x));
      break;
    }
    case ScalarKind::Float: {
      float x; uint32_t b;
      std::memcpy(&x, p, 4); std::memcpy(&b, p, 4);
      std::snprintf(buf, sizeof buf, "%.9g (0x%08x)", static_cast<double>(x), b);
      break;
    }
    case ScalarKind::Double: {
      double x; uint64_t b;
      std::memcpy(&x, p, 8); std::memcpy(&b, p, 8);
      std::snprintf(buf, sizeof buf, "%.17g (0x%016llx)", x, static_cast<unsigned long long>(b));
      break;
    }
  }
  return buf;
}

bool bothNaN(const unsigned char* a, const unsigned char* b, ScalarKind k) {
  if (k == ScalarKind::Float) {
    float x, y;
    std::memcpy(&x, a, 4);
    std::memcpy(&y, b, 4);
    return std::isnan(x) && std::isnan(y);
  }
  if (k == ScalarKind::Double) {
    double x, y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    return std::isnan(x) && std::isnan(y);
  }
  return false;
}

// The scalar parts of an element: (offset, kind, field name).
struct Part {
  size_t offset;
  ScalarKind kind;
  std::string name;
};

std::vector<Part> partsOf(const Type& t) {
  if (!t.isStruct()) return {{0, t.scalar, ""}};
  std::vector<Part> parts;
  const StructType& s = *t.structType;
  for (size_t f = 0; f < s.fields.size(); ++f)
    parts.push_back({fieldOffset(s, static_cast<int>(f)), s.fields[f].type, s.fields[f].name});
  return parts;
}

}  // namespace

std::vector<unsigned char> randomImage(const Type& t, size_t count, std::mt19937& rng, bool special) {
  size_t size = typeSize(t);
  std::vector<unsigned char> bytes(count * size, 0);
  std::vector<Part> parts = partsOf(t);
  for (size_t i = 0; i < count; ++i)
    for (const Part& part : parts)
      storeNumber(bytes.data() + i * size + part.offset, part.kind,
                  special && std::uniform_int_distribution<int>(0, 7)(rng) == 0 ? specialNumber(part.kind, rng)
                                                                                 : randomNumber(part.kind, rng));
  bool allZero = true;
  for (unsigned char b : bytes) allZero = allZero && b == 0;
  if (allZero && count > 0) storeNumber(bytes.data() + parts[0].offset, parts[0].kind, 1.0);
  return bytes;
}

ScalarValue randomScalar(ScalarKind k, std::mt19937& rng) {
  ScalarValue s;
  do s.value = randomNumber(k, rng);
  while (s.value == 0.0);
  s.bytes.assign(static_cast<size_t>(scalarSize(k)), 0);
  storeNumber(s.bytes.data(), k, s.value);
  return s;
}

std::string firstDifference(const Type& t, const std::vector<long long>& extent,
                            const std::vector<unsigned char>& want,
                            const std::vector<unsigned char>& got) {
  if (want.size() != got.size())
    return "sizes differ: the evaluator has " + std::to_string(want.size()) + " bytes, C " +
           std::to_string(got.size());
  size_t size = typeSize(t);
  std::vector<Part> parts = partsOf(t);
  for (size_t i = 0; size > 0 && i < want.size() / size; ++i)
    for (const Part& part : parts) {
      size_t at = i * size + part.offset;
      size_t n = static_cast<size_t>(scalarSize(part.kind));
      if (std::memcmp(want.data() + at, got.data() + at, n) == 0 || bothNaN(want.data() + at, got.data() + at, part.kind))
        continue;
      std::string coords;
      size_t rest = i;
      for (size_t d = extent.size(); d-- > 0;) {
        size_t e = static_cast<size_t>(extent[d]);
        coords = std::to_string(rest % e) + (coords.empty() ? "" : ",") + coords;
        rest /= e;
      }
      return "element " + std::to_string(i) + " [" + coords + "]" +
             (part.name.empty() ? "" : " field " + part.name) + ": C gives " +
             describeNumber(got.data() + at, part.kind) + ", the evaluator " +
             describeNumber(want.data() + at, part.kind);
    }
  return "";
}

}  // namespace formac::e2e
