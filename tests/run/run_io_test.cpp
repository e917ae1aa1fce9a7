// formac run's image files (compiler/run/ImageIO.h, NpyFile.h, Samples.h):
// every format x channel count x sample depth written and read back with
// exact values; .npy of every dtype and rank from bytes made here; 3-D
// volumes; ranks and channels that do not fit (an error naming the input,
// the file's shape and what the program expects); --gray against the
// formula computed here; several outputs; corrupt .npy files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "RunTestSupport.h"
#include "formac_image.h"
#include "run/ImageIO.h"
#include "run/Samples.h"
#include "support/Diagnostics.h"

namespace formac::test {
namespace {

using run::HostImage;
using run::SampleFormat;

const std::string kScratch = FORMAC_SCRATCH;
std::string scratch(const std::string& name) { return kScratch + "/" + name; }

// Structs of 2, 3 and 4 fields of each kind, kept for the test's life.
const StructType* structOf(ScalarKind k, int fields) {
  static std::vector<std::unique_ptr<StructType>> made;
  for (const auto& s : made)
    if (s->fields.size() == static_cast<size_t>(fields) && s->fields[0].type == k) return s.get();
  auto s = std::make_unique<StructType>();
  s->name = std::string("px") + scalarName(k) + std::to_string(fields);
  for (int i = 0; i < fields; ++i) s->fields.push_back({std::string(1, "rgba"[i]), k});
  made.push_back(std::move(s));
  return made.back().get();
}
Type elementType(ScalarKind k, int channels) {
  return channels == 1 ? Type::of(k) : Type::ofStruct(structOf(k, channels));
}

// An image whose values are exact in `k` and in a file of `depth`.
HostImage pattern(ScalarKind k, int channels, std::vector<long long> extent, int depthBits) {
  HostImage img;
  img.type = elementType(k, channels);
  img.extent = std::move(extent);
  size_t n = static_cast<size_t>(channels);
  for (long long e : img.extent) n *= static_cast<size_t>(e);
  img.bytes.resize(n * static_cast<size_t>(scalarSize(k)));
  for (size_t i = 0; i < n; ++i) {
    long long v = static_cast<long long>((i * 7919 + i / 3) % (depthBits == 16 ? 65536 : 256));
    unsigned char* p = img.bytes.data() + i * static_cast<size_t>(scalarSize(k));
    if (k == ScalarKind::Int8) *p = static_cast<unsigned char>(v);
    else if (k == ScalarKind::Int16) { short x = static_cast<short>(v - 128); std::memcpy(p, &x, 2); }
    else if (k == ScalarKind::Int) { int x = static_cast<int>(v); std::memcpy(p, &x, 4); }
    else if (k == ScalarKind::Float) { float x = static_cast<float>(v) / 8.0f - 3.0f; std::memcpy(p, &x, 4); }
    else { double x = static_cast<double>(v) / 3.0 - 1e6; std::memcpy(p, &x, 8); }
  }
  return img;
}

void expectRoundTrip(const HostImage& img, const std::string& file, SampleFormat depth) {
  SCOPED_TRACE(file + " " + img.type.name());
  run::writeOutputImage(file, "out", img, depth);
  run::InputFile back = run::readInputImage(file, "in", img.type, static_cast<int>(img.extent.size()));
  EXPECT_EQ(back.image.extent, img.extent);
  EXPECT_TRUE(back.image.bytes == img.bytes);
}

class RunIo : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { freshFolder(kScratch); }
};

// Integer samples go in and out as stored (8-bit files: int8 elements;
// 16-bit: int), float TIFF and PFM as floats.
TEST_F(RunIo, PicturesRoundTripEveryChannelCountAndDepth) {
  for (int c = 1; c <= 4; ++c) {
    expectRoundTrip(pattern(ScalarKind::Int8, c, {5, 7}, 8), scratch("p8.png"), SampleFormat::U8);
    expectRoundTrip(pattern(ScalarKind::Int, c, {5, 7}, 16), scratch("p16.png"), SampleFormat::U16);
    expectRoundTrip(pattern(ScalarKind::Int8, c, {5, 7}, 8), scratch("t8.tif"), SampleFormat::U8);
    expectRoundTrip(pattern(ScalarKind::Int, c, {5, 7}, 16), scratch("t16.tiff"), SampleFormat::U16);
    expectRoundTrip(pattern(ScalarKind::Float, c, {5, 7}, 16), scratch("tf.tif"), SampleFormat::F32);
    for (ScalarKind k : {ScalarKind::Int8, ScalarKind::Int16, ScalarKind::Int, ScalarKind::Float, ScalarKind::Double})
      expectRoundTrip(pattern(k, c, {5, 7}, 16), scratch("n.npy"), SampleFormat::U8);
  }
  expectRoundTrip(pattern(ScalarKind::Int8, 1, {5, 7}, 8), scratch("g.pgm"), SampleFormat::U8);
  expectRoundTrip(pattern(ScalarKind::Int, 3, {5, 7}, 16), scratch("c.ppm"), SampleFormat::U16);
  expectRoundTrip(pattern(ScalarKind::Float, 3, {5, 7}, 16), scratch("f.pfm"), SampleFormat::U8);
  // A 1-D image is a picture one row high, and comes back 1-D.
  expectRoundTrip(pattern(ScalarKind::Int8, 3, {11}, 8), scratch("row.png"), SampleFormat::U8);
}

TEST_F(RunIo, VolumesAndHigherRanks) {
  expectRoundTrip(pattern(ScalarKind::Int, 1, {3, 4, 5}, 16), scratch("v16.tif"), SampleFormat::U16);
  expectRoundTrip(pattern(ScalarKind::Float, 4, {2, 4, 5}, 16), scratch("vf.tif"), SampleFormat::F32);
  expectRoundTrip(pattern(ScalarKind::Double, 1, {2, 3, 4, 5}, 16), scratch("v4.npy"), SampleFormat::U8);
  expectRoundTrip(pattern(ScalarKind::Int16, 2, {9}, 16), scratch("v1.npy"), SampleFormat::U8);
  try {
    run::writeOutputImage(scratch("v.png"), "vol", pattern(ScalarKind::Int8, 1, {2, 3, 4}, 8), SampleFormat::U8);
    ADD_FAILURE() << "a 3-D output written to PNG";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("output 'vol' is 3-dimensional (2x3x4): write it to .tif (one page each) or "
                                         ".npy, not '" + scratch("v.png") + "'"),
              std::string::npos)
        << e.what();
  }
}

// Element values into each kind of file, and back, by the mapping table.
TEST_F(RunIo, ScaledMappingOfFloatElements) {
  HostImage img;
  img.type = Type::of(ScalarKind::Float);
  img.extent = {1, 4};
  const float v[4] = {0.0f, 0.5f, 1.0f, std::numeric_limits<float>::quiet_NaN()};
  img.bytes.assign(reinterpret_cast<const unsigned char*>(v), reinterpret_cast<const unsigned char*>(v) + 16);
  run::writeOutputImage(scratch("m.tif"), "out", img, SampleFormat::U16);
  formac_image f{};
  char err[256];
  ASSERT_EQ(formac_image_read(scratch("m.tif").c_str(), &f, err, sizeof err), 0) << err;
  ASSERT_EQ(f.type, FORMAC_U16);
  const unsigned short* s = static_cast<const unsigned short*>(f.data);
  EXPECT_EQ(s[0], 0);
  EXPECT_EQ(s[1], 32768);  // 0.5 x 65535 = 32767.5, half away from zero
  EXPECT_EQ(s[2], 65535);
  EXPECT_EQ(s[3], 0);      // NaN
  formac_image_free(&f);
  run::InputFile back = run::readInputImage(scratch("m.tif"), "in", img.type, 2);
  float got[4];
  std::memcpy(got, back.image.bytes.data(), 16);
  EXPECT_EQ(got[1], static_cast<float>(32768 / 65535.0));
  EXPECT_EQ(back.format, SampleFormat::U16);
}

// The conversion's own rounding (a truncation and the exact remainder)
// against std::round at the awkward values.
TEST_F(RunIo, RoundingIsHalfAwayFromZero) {
  const double in[] = {0.49999999999999994, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 254.5, 255.49999999, 1e300, -1e300,
                       std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                       std::numeric_limits<double>::quiet_NaN(), 32767.5, -32768.5, 2147483646.5};
  const size_t n = sizeof in / sizeof in[0];
  for (formac_pixel_type t : {FORMAC_U8, FORMAC_U16, FORMAC_I16, FORMAC_I32}) {
    std::vector<unsigned char> out(n * 8);
    run::convertSamples({FORMAC_F64, reinterpret_cast<const unsigned char*>(in), 8}, {t, out.data(), 8}, n, {});
    for (size_t i = 0; i < n; ++i) {
      double lo = t == FORMAC_U8 || t == FORMAC_U16 ? 0 : t == FORMAC_I16 ? -32768 : -2147483648.0;
      double hi = t == FORMAC_U8 ? 255 : t == FORMAC_U16 ? 65535 : t == FORMAC_I16 ? 32767 : 2147483647.0;
      double want = std::isnan(in[i]) ? 0 : std::min(hi, std::max(lo, std::round(in[i])));
      long long got = t == FORMAC_U8    ? out[i * 8]
                      : t == FORMAC_U16 ? *reinterpret_cast<unsigned short*>(&out[i * 8])
                      : t == FORMAC_I16 ? *reinterpret_cast<short*>(&out[i * 8])
                                        : *reinterpret_cast<int*>(&out[i * 8]);
      EXPECT_EQ(got, static_cast<long long>(want)) << in[i] << " into " << formac_pixel_type_name(t);
    }
  }
}

// Contiguous runs (SSE2, four at a time, and cut into one part a processor
// when long) round as std::round and saturate, from float and double, at
// every awkward value: halves, just below halves, negative, above the
// range, NaN, infinities, signed zero, denormals; an odd count leaves a
// tail to the scalar loop. Checked against the strided (scalar) run too.
TEST_F(RunIo, ContiguousRunsRoundAsTheScalarLoop) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> special = {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994, -0.49999999999999994,
                                 std::nextafter(0.5, 0.0), 254.5, 255.5, 255.49999999, 256, 65534.5, 65535.5, 65536,
                                 32767.5, -32768.5, -32769, 2147483646.5, 2147483647.5, -2147483648.5, 1e300, -1e300,
                                 inf, -inf, std::numeric_limits<double>::quiet_NaN(), -0.0, 0.0, 4.9e-324, -4.9e-324,
                                 1e-310, 3e9, -3e9};
  std::vector<double> values;
  for (int k = -70000; k <= 70000; ++k) values.push_back(k / 2.0);  // every half in the ranges
  for (int rep = 0; rep < 3; ++rep) values.insert(values.end(), special.begin(), special.end());
  while (values.size() < (size_t{1} << 19) + 3) values.push_back(static_cast<double>(values.size() % 997) / 991.0 - 0.2);
  const size_t n = values.size();
  std::vector<float> floats(values.begin(), values.end());
  for (formac_pixel_type from : {FORMAC_F64, FORMAC_F32})
    for (double mul : {1.0, 255.0, 65535.0})
      for (formac_pixel_type t : {FORMAC_U8, FORMAC_U16, FORMAC_I16, FORMAC_I32}) {
        SCOPED_TRACE(std::string(formac_pixel_type_name(from)) + " x " + std::to_string(mul) + " -> " +
                     formac_pixel_type_name(t));
        size_t es = formac_pixel_type_size(t);
        const unsigned char* src = from == FORMAC_F64 ? reinterpret_cast<const unsigned char*>(values.data())
                                                      : reinterpret_cast<const unsigned char*>(floats.data());
        size_t ss = from == FORMAC_F64 ? 8 : 4;
        std::vector<unsigned char> fast(n * es), slow(n * 2 * es);
        run::convertSamples({from, src, ss}, {t, fast.data(), es}, n, {mul, 1});
        run::convertSamples({from, src, ss}, {t, slow.data(), 2 * es}, n, {mul, 1});
        double lo = t == FORMAC_U8 || t == FORMAC_U16 ? 0 : t == FORMAC_I16 ? -32768 : -2147483648.0;
        double hi = t == FORMAC_U8 ? 255 : t == FORMAC_U16 ? 65535 : t == FORMAC_I16 ? 32767 : 2147483647.0;
        int wrong = 0;
        for (size_t i = 0; i < n && wrong < 5; ++i) {
          double v = (from == FORMAC_F64 ? values[i] : static_cast<double>(floats[i])) * mul;
          double want = std::isnan(v) ? 0 : std::min(hi, std::max(lo, std::round(v)));
          long long got = 0, scalar = 0;
          auto read = [&](const unsigned char* at) -> long long {
            switch (t) {
              case FORMAC_U8: return *at;
              case FORMAC_U16: { unsigned short x; std::memcpy(&x, at, 2); return x; }
              case FORMAC_I16: { short x; std::memcpy(&x, at, 2); return x; }
              default: { int x; std::memcpy(&x, at, 4); return x; }
            }
          };
          got = read(fast.data() + i * es);
          scalar = read(slow.data() + i * 2 * es);
          if (got != static_cast<long long>(want) || scalar != got) {
            ++wrong;
            ADD_FAILURE() << "sample " << i << " = " << v << ": contiguous " << got << ", strided " << scalar
                          << ", std::round " << want;
          }
        }
      }
}

// ------------------------------------------------------------------ .npy from bytes made here

// A version-1.0 .npy file: magic, header padded to 64 bytes, data.
std::string npy(const std::string& descr, const std::string& shape, const std::string& data,
                const std::string& fortran = "False") {
  std::string h = "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
  h.append(63 - (10 + h.size()) % 64, ' ');
  h += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(h.size() & 0xff) + static_cast<char>(h.size() >> 8) +
         h + data;
}
template <typename T>
std::string raw(std::initializer_list<T> v) {
  return std::string(reinterpret_cast<const char*>(std::data(v)), v.size() * sizeof(T));
}

TEST_F(RunIo, NpyEveryDtypeReadsExactly) {
  struct Case {
    std::string descr, data;
    ScalarKind kind;
    std::vector<double> want;
  } cases[] = {
      {"|u1", raw<unsigned char>({0, 7, 200, 255}), ScalarKind::Int8, {0, 7, 200, 255}},
      {"<u2", raw<unsigned short>({0, 300, 65535, 12}), ScalarKind::Int, {0, 300, 65535, 12}},
      {"<i2", raw<short>({-32768, -1, 5, 32767}), ScalarKind::Int16, {-32768, -1, 5, 32767}},
      {"<i4", raw<int>({-2000000000, 0, 3, 2000000000}), ScalarKind::Int, {-2000000000, 0, 3, 2000000000}},
      {"<f4", raw<float>({0.1f, -2.5f, 1e30f, 3.0f}), ScalarKind::Float, {0.1f, -2.5f, 1e30f, 3.0f}},
      {"<f8", raw<double>({0.1, -2.5, 1e300, 1.0 / 3}), ScalarKind::Double, {0.1, -2.5, 1e300, 1.0 / 3}},
      // Saturated into a smaller type, rounded into an integer one.
      {"<i4", raw<int>({-5, 100, 300, 7}), ScalarKind::Int8, {0, 100, 255, 7}},
      {"<f8", raw<double>({2.5, -2.5, 1e9, 0.49}), ScalarKind::Int16, {3, -3, 32767, 0}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.descr + " into " + scalarName(c.kind));
    writeFile(scratch("d.npy"), npy(c.descr, "(2, 2)", c.data));
    run::InputFile in = run::readInputImage(scratch("d.npy"), "in", Type::of(c.kind), 2);
    ASSERT_EQ(in.image.extent, (std::vector<long long>{2, 2}));
    std::vector<double> got(4);
    run::convertSamples({c.kind == ScalarKind::Int8 ? FORMAC_U8 : c.kind == ScalarKind::Int16 ? FORMAC_I16
                         : c.kind == ScalarKind::Int ? FORMAC_I32 : c.kind == ScalarKind::Float ? FORMAC_F32 : FORMAC_F64,
                         in.image.bytes.data(), static_cast<size_t>(scalarSize(c.kind))},
                        {FORMAC_F64, reinterpret_cast<unsigned char*>(got.data()), 8}, 4, {});
    EXPECT_EQ(got, c.want);
  }
  // Written back: the element's dtype, the shape, the values.
  HostImage img = run::readInputImage(scratch("d.npy"), "in", Type::of(ScalarKind::Double), 2).image;
  run::writeOutputImage(scratch("back.npy"), "out", img, SampleFormat::U8);
  EXPECT_EQ(readFile(scratch("back.npy")), npy("<f8", "(2, 2)", raw<double>({2.5, -2.5, 1e9, 0.49})));
  img = run::readInputImage(scratch("d.npy"), "in", Type::of(ScalarKind::Float), 1 + 1).image;
  img.extent = {4};
  run::writeOutputImage(scratch("back1.npy"), "out", img, SampleFormat::U8);
  EXPECT_EQ(readFile(scratch("back1.npy")), npy("<f4", "(4,)", raw<float>({2.5f, -2.5f, 1e9f, 0.49f})));
}

// An empty image (an extent 0, which the language allows) reads from and
// writes to .npy and text; an image file cannot hold one.
TEST_F(RunIo, EmptyImagesGoThroughNpyAndTextOnly) {
  writeFile(scratch("e.npy"), npy("<f4", "(0, 3)", ""));
  HostImage img = run::readInputImage(scratch("e.npy"), "in", Type::of(ScalarKind::Float), 2).image;
  EXPECT_EQ(img.extent, std::vector<long long>({0, 3}));
  EXPECT_TRUE(img.bytes.empty());
  run::writeOutputImage(scratch("e_back.npy"), "out", img, SampleFormat::U8);
  EXPECT_EQ(readFile(scratch("e_back.npy")), npy("<f4", "(0, 3)", ""));
  run::writeOutputImage(scratch("e.txt"), "out", img, SampleFormat::U8);
  EXPECT_EQ(readFile(scratch("e.txt")), "");
  try {
    run::writeOutputImage(scratch("e.png"), "out", img, SampleFormat::U8);
    ADD_FAILURE() << "an empty image written to .png";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("output 'out' is empty"), std::string::npos) << e.what();
  }
}

// The last axis holds a struct's fields.
// uint16 and int64 images take .npy's <u2 and <i8 as stored, and write them
// back as such: every bit, int64 beyond 2^53 too.
TEST_F(RunIo, NpyUint16AndInt64RoundTripExactly) {
  std::string u2 = raw<unsigned short>({0, 40000, 65535, 1});
  writeFile(scratch("u2.npy"), npy("<u2", "(2, 2)", u2));
  HostImage img = run::readInputImage(scratch("u2.npy"), "in", Type::of(ScalarKind::Uint16), 2).image;
  EXPECT_EQ(std::string(img.bytes.begin(), img.bytes.end()), u2);
  run::writeOutputImage(scratch("u2_back.npy"), "out", img, SampleFormat::U8);
  EXPECT_EQ(readFile(scratch("u2_back.npy")), npy("<u2", "(2, 2)", u2));
  std::string i8 = raw<long long>({-9223372036854775807LL - 1, 9007199254740993LL, -3, 9223372036854775807LL});
  writeFile(scratch("i8.npy"), npy("<i8", "(4,)", i8));
  img = run::readInputImage(scratch("i8.npy"), "in", Type::of(ScalarKind::Int64), 1).image;
  EXPECT_EQ(std::string(img.bytes.begin(), img.bytes.end()), i8);
  run::writeOutputImage(scratch("i8_back.npy"), "out", img, SampleFormat::U8);
  EXPECT_EQ(readFile(scratch("i8_back.npy")), npy("<i8", "(4,)", i8));
}

TEST_F(RunIo, NpyChannelsAreTheLastAxis) {
  writeFile(scratch("rgb.npy"), npy("|u1", "(1, 2, 3)", raw<unsigned char>({1, 2, 3, 4, 5, 6})));
  HostImage img = run::readInputImage(scratch("rgb.npy"), "in", elementType(ScalarKind::Int8, 3), 1).image;
  EXPECT_EQ(img.extent, (std::vector<long long>{2}));
  EXPECT_EQ(img.bytes, (std::vector<unsigned char>{1, 2, 3, 4, 5, 6}));
  run::writeOutputImage(scratch("rgb_back.npy"), "out", img, SampleFormat::U8);
  EXPECT_EQ(readFile(scratch("rgb_back.npy")), npy("|u1", "(2, 3)", raw<unsigned char>({1, 2, 3, 4, 5, 6})));
}

void expectReadError(const std::string& file, const Type& t, int rank, const std::string& message, bool gray = false) {
  try {
    run::readInputImage(file, "img", t, rank, gray);
    ADD_FAILURE() << file << " read without error; expected: " << message;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << "expected: " << message << "\ngot: " << e.what();
  }
}

TEST_F(RunIo, CorruptNpyFilesAreErrors) {
  std::string f = scratch("bad.npy"), q = "'" + f + "': ";
  Type flt = Type::of(ScalarKind::Float);
  std::string good = npy("<f4", "(2, 2)", raw<float>({1, 2, 3, 4}));
  writeFile(f, good.substr(0, good.size() - 3));
  expectReadError(f, flt, 2, q + "truncated file (the shape needs 16 bytes of data)");
  writeFile(f, good.substr(0, 20));
  expectReadError(f, flt, 2, q + "truncated .npy header");
  writeFile(f, npy(">f4", "(2, 2)", raw<float>({1, 2, 3, 4})));
  expectReadError(f, flt, 2, q + "dtype '>f4' is not supported (little-endian u1, u2, i2, i4, f4 or f8)");
  writeFile(f, npy("<c8", "(2,)", std::string(16, '\0')));
  expectReadError(f, flt, 1, q + "dtype '<c8' is not supported");
  writeFile(f, npy("<f4", "(2, 2)", raw<float>({1, 2, 3, 4}), "True"));
  expectReadError(f, flt, 2, q + "Fortran-order arrays are not supported");
  writeFile(f, npy("<f4", "()", raw<float>({1})));
  expectReadError(f, flt, 2, q + "a 0-dimensional .npy array holds no image");
  writeFile(f, npy("<f4", "(100000, 100000)", ""));
  expectReadError(f, flt, 2, q + "array too large (more than 2^31 values)");
  writeFile(f, npy("|u1", "(1, 1, 1, 1, 1, 2)", "ab"));
  expectReadError(f, flt, 4, q + "a .npy array of 6 dimensions (formac reads 1 to 4, and a channel axis)");
  writeFile(f, std::string("\x93NUMPY\x09\x00", 8) + "xx");
  expectReadError(f, flt, 2, q + ".npy version 9 is not supported (1 to 3)");
  writeFile(f, std::string("\x93NUMPY\x01\x00\x0f\x00", 10) + "{'shape': (2,)}");
  expectReadError(f, flt, 1, q + "invalid .npy header (no 'descr')");
}

// ------------------------------------------------------------------ shapes and channels that do not fit

TEST_F(RunIo, RankMustFit) {
  run::writeOutputImage(scratch("pic.png"), "out", pattern(ScalarKind::Int8, 1, {3, 4}, 8), SampleFormat::U8);
  Type g = Type::of(ScalarKind::Float);
  expectReadError(scratch("pic.png"), g, 1,
                  "'" + scratch("pic.png") + "' is 2-dimensional (4x3), but input 'img' is 1-dimensional: give a .npy "
                  "of one dimension or a picture one row high");
  // A picture is a volume of one page.
  EXPECT_EQ(run::readInputImage(scratch("pic.png"), "img", g, 3).image.extent, (std::vector<long long>{1, 3, 4}));
  run::writeOutputImage(scratch("vol.tif"), "out", pattern(ScalarKind::Int8, 1, {2, 3, 4}, 8), SampleFormat::U8);
  expectReadError(scratch("vol.tif"), g, 2,
                  "'" + scratch("vol.tif") + "' is 3-dimensional (shape [2, 3, 4]), but input 'img' is 2-dimensional");
  writeFile(scratch("r4.npy"), npy("|u1", "(2, 1, 1, 3)", std::string(6, '\1')));
  expectReadError(scratch("r4.npy"), g, 3,
                  "'" + scratch("r4.npy") + "' is 4-dimensional (shape [2, 1, 1, 3]), but input 'img' is 3-dimensional");
  // Leading extents of 1 go.
  writeFile(scratch("r1.npy"), npy("|u1", "(1, 1, 5)", std::string(5, '\1')));
  EXPECT_EQ(run::readInputImage(scratch("r1.npy"), "img", g, 1).image.extent, (std::vector<long long>{5}));
}

TEST_F(RunIo, ChannelsMustFit) {
  run::writeOutputImage(scratch("rgb.png"), "out", pattern(ScalarKind::Int8, 3, {2, 2}, 8), SampleFormat::U8);
  run::writeOutputImage(scratch("rgba.png"), "out", pattern(ScalarKind::Int8, 4, {2, 2}, 8), SampleFormat::U8);
  run::writeOutputImage(scratch("gray.png"), "out", pattern(ScalarKind::Int8, 1, {2, 2}, 8), SampleFormat::U8);
  expectReadError(scratch("rgb.png"), Type::of(ScalarKind::Float), 2,
                  "'" + scratch("rgb.png") + "' has 3 channels (RGB), but input 'img' (float) takes 1 channel (gray); "
                  "--gray converts it");
  expectReadError(scratch("gray.png"), elementType(ScalarKind::Int8, 4), 2,
                  "'" + scratch("gray.png") + "' has 1 channel (gray), but input 'img' (pxint84) takes 4 channels (RGBA)");
  expectReadError(scratch("rgb.npy"), elementType(ScalarKind::Int8, 2), 1,
                  "'" + scratch("rgb.npy") + "' (shape [1, 2, 3]) has no last axis of 2: input 'img' (pxint82) takes 2 "
                  "channels (gray and alpha), the last axis of a .npy array");
  // Alpha is dropped for an input without it.
  HostImage rgba = pattern(ScalarKind::Int8, 4, {2, 2}, 8);
  HostImage rgb = run::readInputImage(scratch("rgba.png"), "img", elementType(ScalarKind::Int8, 3), 2).image;
  for (size_t i = 0; i < 4; ++i)
    for (size_t c = 0; c < 3; ++c) EXPECT_EQ(rgb.bytes[i * 3 + c], rgba.bytes[i * 4 + c]);
  StructType five{"five", {{"a", ScalarKind::Int8}, {"b", ScalarKind::Int8}, {"c", ScalarKind::Int8},
                           {"d", ScalarKind::Int8}, {"e", ScalarKind::Int8}}};
  expectReadError(scratch("rgb.png"), Type::ofStruct(&five), 2,
                  "formac run reads and writes images of numbers (gray) or of structs of 2 to 4 fields (gray and alpha, "
                  "RGB, RGBA); 'img' is five with 5 fields");
}

// --gray: OpenCV's RGB2GRAY, computed here from its definition.
TEST_F(RunIo, GrayIsOpenCvsFormula) {
  HostImage rgba = pattern(ScalarKind::Int8, 4, {6, 5}, 8);
  run::writeOutputImage(scratch("g.png"), "out", rgba, SampleFormat::U8);
  HostImage g = run::readInputImage(scratch("g.png"), "img", Type::of(ScalarKind::Int8), 2, true).image;
  for (size_t i = 0; i < 30; ++i) {
    const unsigned char* p = &rgba.bytes[i * 4];
    EXPECT_EQ(g.bytes[i], (p[0] * 9798 + p[1] * 19235 + p[2] * 3735 + 16384) >> 15) << i;
  }
  HostImage rgb16 = pattern(ScalarKind::Int, 3, {4, 4}, 16);
  run::writeOutputImage(scratch("g16.tif"), "out", rgb16, SampleFormat::U16);
  HostImage g16 = run::readInputImage(scratch("g16.tif"), "img", Type::of(ScalarKind::Int), 2, true).image;
  for (size_t i = 0; i < 16; ++i) {
    const int* p = reinterpret_cast<const int*>(rgb16.bytes.data()) + i * 3;
    EXPECT_EQ(reinterpret_cast<const int*>(g16.bytes.data())[i], (p[0] * 9798 + p[1] * 19235 + p[2] * 3735 + 16384) >> 15);
  }
  HostImage rgbf = pattern(ScalarKind::Float, 3, {4, 4}, 16);
  run::writeOutputImage(scratch("gf.pfm"), "out", rgbf, SampleFormat::F32);
  HostImage gf = run::readInputImage(scratch("gf.pfm"), "img", Type::of(ScalarKind::Float), 2, true).image;
  for (size_t i = 0; i < 16; ++i) {
    const float* p = reinterpret_cast<const float*>(rgbf.bytes.data()) + i * 3;
    volatile float r = p[0] * 0.299f, gr = p[1] * 0.587f, b = p[2] * 0.114f;
    volatile float sum = r + gr;
    EXPECT_EQ(reinterpret_cast<const float*>(gf.bytes.data())[i], sum + b) << i;
  }
  // A gray file stays as it is; a struct input is not converted.
  HostImage same = run::readInputImage(scratch("pic.png"), "img", Type::of(ScalarKind::Int8), 2, true).image;
  EXPECT_EQ(same.bytes, pattern(ScalarKind::Int8, 1, {3, 4}, 8).bytes);
  EXPECT_EQ(run::readInputImage(scratch("g.png"), "img", elementType(ScalarKind::Int8, 4), 2, true).image.bytes,
            rgba.bytes);
}

}  // namespace
}  // namespace formac::test
