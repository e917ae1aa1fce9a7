// `formac run` end to end: outputs of eval and jit byte-identical, every user
// error (exit status 1, one clear message), the compile cache, the JIT with
// no C compiler on PATH, and --backend=cuda's host side on a stand-in driver.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <regex>
#include <vector>

#include "RunTestSupport.h"
#include "formac_image.h"

namespace formac::test {
namespace {

const std::string kScratch = FORMAC_SCRATCH;
const std::string kSource = FORMAC_SOURCE_DIR;
const std::string kCamera = kSource + "/examples/data/camera.png";
const std::string kCanny = kSource + "/examples/canny/canny.idsl";
const std::string kBlur = kSource + "/examples/blur/blur.idsl";
const std::string kStruct = kSource + "/tests/compat/try_struct.idsl";
const bool kJit = FORMAC_TEST_JIT;
const bool kLld = FORMAC_TEST_LLD;  // the JIT caches shared libraries

std::string scratch(const std::string& name) { return kScratch + "/" + name; }

// The fake driver's launch log (tests/run/fake_libcuda.c) without the streams:
// "K grid .. block .. shared N", "memset N" a line.
std::string launchLog(const std::string& path) {
  std::string t = std::regex_replace(readFile(path), std::regex(" stream [0-9a-f]+"), "");
  return std::regex_replace(t, std::regex("(memset [0-9]+) bytes"), "$1");
}

// formac run ARGS with the test's own cache ($XDG_CACHE_HOME/formac).
CommandResult formacRun(const std::string& args, const std::string& env = "",
                        const std::string& cacheHome = scratch("xdg")) {
  return runCommand("env -u FORMAC_CACHE_DIR XDG_CACHE_HOME=" + quote(cacheHome) + " " + env + " " +
                    quote(FORMAC_EXE) + " run " + args);
}

void expectError(const std::string& args, const std::string& message) {
  CommandResult r = formacRun(args);
  EXPECT_EQ(r.status, 1) << args << "\n" << r.output;
  EXPECT_NE(r.output.find("formac: error: " + message), std::string::npos)
      << "expected: " << message << "\ngot: " << r.output;
}

// Writes a w x h image of `channels` with a pattern; `depth` 8 or 16 bits.
void writePattern(const std::string& path, int w, int h, int channels, int depth) {
  formac_image img{};
  ASSERT_EQ(formac_image_alloc(&img, w, h, channels, depth == 16 ? FORMAC_U16 : FORMAC_U8), 0);
  for (int i = 0; i < w * h * channels; ++i) {
    int v = (i * 37 + i / 7) % (depth == 16 ? 65536 : 256);
    if (depth == 16) static_cast<unsigned short*>(img.data)[i] = static_cast<unsigned short>(v);
    else static_cast<unsigned char*>(img.data)[i] = static_cast<unsigned char>(v);
  }
  char err[256];
  ASSERT_EQ(formac_image_write(path.c_str(), &img, err, sizeof err), 0) << err;
  formac_image_free(&img);
}

struct Pixels {
  int width = 0, height = 0, channels = 0;
  formac_pixel_type type = FORMAC_U8;
  std::string bytes;
};
Pixels readPixels(const std::string& path) {
  Pixels p;
  formac_image img{};
  char err[256];
  if (formac_image_read(path.c_str(), &img, err, sizeof err) != 0) return p;
  p.width = img.width;
  p.height = img.height;
  p.channels = img.channels;
  p.type = img.type;
  p.bytes.assign(static_cast<const char*>(img.data), formac_image_bytes(&img));
  formac_image_free(&img);
  return p;
}

class RunCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    freshFolder(kScratch);
    writePattern(scratch("rgb.png"), 67, 45, 3, 8);
    writePattern(scratch("gray16.pgm"), 40, 30, 1, 16);
    writePattern(scratch("small.png"), 67, 45, 1, 8);
    writeFile(scratch("bad.png"), "not an image\n");
    writeFile(scratch("two_inputs.idsl"),
              "stencil add(vector#2 float A, vector#2 float B) { return A + B; }\n"
              "parameter M, N;\nvector#2 float a[M,N];\nvector#2 float b[M,N];\nreturn add(a, b);\n");
    writeFile(scratch("unsized.idsl"),
              "stencil copy(vector#2 float A) { return A; }\n"
              "parameter M, N, K;\nvector#2 float a[M, N + K];\nreturn copy(a);\n");
    for (const char* t : {"uint16", "int16"})
      writeFile(scratch(std::string("id_") + t + ".idsl"),
                std::string("stencil id(vector#2 ") + t + " A) { return A; }\nparameter M, N;\nvector#2 " + t +
                    " a[M,N];\nreturn id(a);\n");
    writeFile(scratch("int8_scalar.idsl"),
              "stencil thr(vector#2 int8 A, int8 t) { return (A > t ? 255 : 0); }\n"
              "parameter M, N;\nvector#2 int8 a[M,N];\nint8 t;\nreturn thr(a, t);\n");
  }
};

// Runs `args` with eval and with the default backend (jit when built with
// it) into out.EXT files; both must succeed and be byte-identical.
void expectBackendsAgree(const std::string& name, const std::string& args, const std::string& ext) {
  std::string eval = scratch(name + "_eval." + ext), jit = scratch(name + "_jit." + ext);
  CommandResult a = formacRun(args + " --backend=eval -o " + quote(eval));
  ASSERT_EQ(a.status, 0) << a.output;
  CommandResult b = formacRun(args + " -o " + quote(jit));
  ASSERT_EQ(b.status, 0) << b.output;
  std::string x = readFile(eval), y = readFile(jit);
  EXPECT_FALSE(x.empty());
  EXPECT_TRUE(x == y) << name << ": eval and " << (kJit ? "jit" : "eval") << " outputs differ";
}

TEST_F(RunCli, CannyEvalAndJitAgree) {
  expectBackendsAgree("canny", quote(kCanny) + " --input " + quote(kCamera) + " --param low=0.25 --param high=0.5",
                      "png");
  Pixels p = readPixels(scratch("canny_jit.png"));
  EXPECT_EQ(p.width, 512);
  EXPECT_EQ(p.height, 512);
  EXPECT_EQ(p.type, FORMAC_U8);
}

TEST_F(RunCli, BlurEvalAndJitAgreeInPngAndPfm) {
  expectBackendsAgree("blur", quote(kBlur) + " -i " + quote(kCamera), "png");
  expectBackendsAgree("blur", quote(kBlur) + " -i " + quote(kCamera), "pfm");  // the raw values
}

TEST_F(RunCli, StructOfThreeFieldsIsRgb) {
  expectBackendsAgree("struct", quote(kStruct) + " -i " + quote(scratch("rgb.png")), "png");
  // rebuild() is the identity: the RGB picture comes back unchanged.
  Pixels in = readPixels(scratch("rgb.png")), out = readPixels(scratch("struct_jit.png"));
  EXPECT_EQ(out.channels, 3);
  EXPECT_TRUE(in.bytes == out.bytes);
}

TEST_F(RunCli, SixteenBitInputGivesSixteenBitOutput) {
  expectBackendsAgree("blur16", quote(kBlur) + " -i " + quote(scratch("gray16.pgm")), "png");
  Pixels p = readPixels(scratch("blur16_jit.png"));
  EXPECT_EQ(p.type, FORMAC_U16);
  EXPECT_EQ(p.width, 40);
  EXPECT_EQ(p.height, 30);
}

// The largest sample of a 16-bit picture.
unsigned largestSample(const Pixels& p) {
  unsigned m = 0;
  for (size_t i = 0; i + 1 < p.bytes.size(); i += 2) {
    unsigned short v;
    std::memcpy(&v, p.bytes.data() + i, 2);
    m = std::max<unsigned>(m, v);
  }
  return m;
}

// A 16-bit file read into uint16 is as stored (LANGUAGE.md §7): an identity
// program gives it back exactly, samples above 32767 included; an 8-bit file
// is as stored too, and a uint16 output is written with 16-bit samples.
TEST_F(RunCli, SixteenBitFileIntoUint16RoundTrips) {
  expectBackendsAgree("id16", quote(scratch("id_uint16.idsl")) + " -i " + quote(scratch("gray16.pgm")), "png");
  Pixels in = readPixels(scratch("gray16.pgm")), out = readPixels(scratch("id16_jit.png"));
  EXPECT_EQ(out.type, FORMAC_U16);
  EXPECT_GT(largestSample(in), 32767u);
  EXPECT_TRUE(in.bytes == out.bytes);
  expectBackendsAgree("id8", quote(scratch("id_uint16.idsl")) + " -i " + quote(scratch("small.png")), "png");
  Pixels small = readPixels(scratch("small.png")), wide = readPixels(scratch("id8_jit.png"));
  EXPECT_EQ(wide.type, FORMAC_U16);
  ASSERT_EQ(wide.bytes.size(), 2 * small.bytes.size());
  for (size_t i = 0; i < small.bytes.size(); ++i) {
    unsigned short v;
    std::memcpy(&v, wide.bytes.data() + 2 * i, 2);
    ASSERT_EQ(v, static_cast<unsigned char>(small.bytes[i])) << "sample " << i;
  }
}

// int16 takes 16-bit samples as stored too, so one above 32767 is an error
// rather than a clipped picture.
TEST_F(RunCli, ErrorSixteenBitFileIntoInt16) {
  unsigned largest = largestSample(readPixels(scratch("gray16.pgm")));
  expectError(quote(scratch("id_int16.idsl")) + " -i " + quote(scratch("gray16.pgm")) + " -o " + quote(scratch("x.png")),
              "'" + scratch("gray16.pgm") + "' has 16-bit samples up to " + std::to_string(largest) +
                  ", above 32767, but input 'a' is int16: declare it uint16 to read the samples as stored");
  // 8-bit samples always fit.
  CommandResult r = formacRun(quote(scratch("id_int16.idsl")) + " -i " + quote(scratch("small.png")) + " -o " +
                              quote(scratch("x16.png")) + " --backend=eval");
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST_F(RunCli, TimingLine) {
  CommandResult r = formacRun(quote(kBlur) + " -i " + quote(scratch("small.png")) + " -o " + quote(scratch("t.png")));
  ASSERT_EQ(r.status, 0) << r.output;
  std::string want = std::string("formac: blur 67x45 ") + (kJit ? "jit" : "eval") + ": compile ";
  EXPECT_NE(r.output.find(want), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(", run "), std::string::npos) << r.output;
}

TEST_F(RunCli, SecondRunHitsTheCache) {
  if (!kJit) GTEST_SKIP() << "built without the JIT";
  std::string home = scratch("xdg_cache_test");
  std::string args = quote(kBlur) + " -i " + quote(scratch("small.png")) + " -v -o ";
  CommandResult first = formacRun(args + quote(scratch("c1.png")), "", home);
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_EQ(first.output.find("(cached)"), std::string::npos) << first.output;
  EXPECT_NE(first.output.find("jit: cached as " + home + "/formac/"), std::string::npos) << first.output;
  // The hit: the shared library lld made (no LLVM loaded), else the object in LLJIT.
  CommandResult second = formacRun(args + quote(scratch("c2.png")), "", home);
  ASSERT_EQ(second.status, 0) << second.output;
  EXPECT_NE(second.output.find("(cached)"), std::string::npos) << second.output;
  EXPECT_NE(second.output.find(kLld ? "jit: cache hit, loaded " : "jit: cache hit, linked "), std::string::npos)
      << second.output;
  // Without the library, the cached object goes back into LLJIT.
  runCommand("rm -f " + quote(home) + "/formac/*.so");
  CommandResult third = formacRun(args + quote(scratch("c3.png")), "", home);
  ASSERT_EQ(third.status, 0) << third.output;
  EXPECT_NE(third.output.find("(cached)"), std::string::npos) << third.output;
  EXPECT_NE(third.output.find("jit: cache hit, linked " + home + "/formac/"), std::string::npos) << third.output;
  // --no-cache compiles again.
  CommandResult fourth = formacRun(args + quote(scratch("c4.png")) + " --no-cache", "", home);
  EXPECT_EQ(fourth.output.find("(cached)"), std::string::npos) << fourth.output;
  std::string want = readFile(scratch("c1.png"));
  EXPECT_FALSE(want.empty());
  for (const char* f : {"c2.png", "c3.png", "c4.png"}) EXPECT_TRUE(readFile(scratch(f)) == want) << f;
}

TEST_F(RunCli, UnwritableCacheIsSkipped) {
  if (!kJit) GTEST_SKIP() << "built without the JIT";
  CommandResult r = formacRun(quote(kBlur) + " -i " + quote(scratch("small.png")) + " -v -o " +
                                  quote(scratch("nocache.png")),
                              "", "/proc/no_cache_here");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("jit: cannot write the cache in '/proc/no_cache_here/formac' (not cached)"),
            std::string::npos)
      << r.output;
}

TEST_F(RunCli, JitNeedsNoCompilerOnPath) {
  if (!kJit) GTEST_SKIP() << "built without the JIT";
  std::string args = quote(kCanny) + " -i " + quote(scratch("small.png")) + " -p low=0.25 -p high=0.5 --no-cache";
  CommandResult r = formacRun(args + " -o " + quote(scratch("nocc.png")), "PATH=/nonexistent");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("jit: compile"), std::string::npos) << r.output;
  CommandResult e = formacRun(args + " --backend=eval -o " + quote(scratch("nocc_eval.png")));
  ASSERT_EQ(e.status, 0) << e.output;
  EXPECT_TRUE(readFile(scratch("nocc.png")) == readFile(scratch("nocc_eval.png")));
}

TEST_F(RunCli, ParametersFromTheCommandLine) {
  // Given explicitly and matching the image: fine; a default-free parameter
  // that no image fixes: given with --param.
  CommandResult r = formacRun(quote(kBlur) + " -i " + quote(scratch("small.png")) + " -p M=45 -p N=67 -o " +
                              quote(scratch("p.png")) + " --backend=eval");
  EXPECT_EQ(r.status, 0) << r.output;
  CommandResult u = formacRun(quote(scratch("unsized.idsl")) + " -i " + quote(scratch("small.png")) +
                              " -p N=60 -p K=7 -o " + quote(scratch("u.png")) + " --backend=eval");
  EXPECT_EQ(u.status, 0) << u.output;
  EXPECT_EQ(readPixels(scratch("u.png")).width, 67);
}

// `return x, y;`: one --output per result, in order.
TEST_F(RunCli, SeveralOutputsOnePerResult) {
  writeFile(scratch("two_out.idsl"),
            "stencil twice(vector#2 float A) { return A * 2.0f; }\n"
            "stencil less(vector#2 float A) { return A - 0.5f; }\n"
            "parameter M, N;\nvector#2 float a[M,N];\nx = twice(a);\ny = less(a);\nreturn x, y;\n");
  writePattern(scratch("two_in.png"), 6, 4, 1, 8);
  std::string base = quote(scratch("two_out.idsl")) + " -i " + quote(scratch("two_in.png"));
  for (const char* backend : {"eval", kJit ? "jit" : "eval"}) {
    CommandResult r = formacRun(base + " --backend=" + backend + " -o " + quote(scratch("x.npy")) + " --output " +
                                quote(scratch("y.pfm")));
    ASSERT_EQ(r.status, 0) << r.output;
    Pixels in = readPixels(scratch("two_in.png")), y = readPixels(scratch("y.pfm"));
    ASSERT_EQ(y.width, 6);
    std::string x = readFile(scratch("x.npy"));
    ASSERT_EQ(x.size(), 128u + 24 * 4) << backend;
    for (int i = 0; i < 24; ++i) {
      float v = static_cast<unsigned char>(in.bytes[static_cast<size_t>(i)]) / 255.0f, xi, yi;
      std::memcpy(&xi, x.data() + 128 + 4 * i, 4);
      std::memcpy(&yi, y.bytes.data() + 4 * i, 4);
      EXPECT_EQ(xi, v * 2.0f) << backend << " " << i;
      EXPECT_EQ(yi, v - 0.5f) << backend << " " << i;
    }
  }
  expectError(base + " -o " + quote(scratch("x.png")),
              scratch("two_out.idsl") + " returns 2 images, but 1 --output was given");
}

// --gray feeds an RGB picture to a gray program: OpenCV's RGB2GRAY weights
// in fixed point, computed here.
TEST_F(RunCli, GrayConvertsRgbInputs) {
  writeFile(scratch("copy8.idsl"), "stencil copy(vector#2 int8 A) { return A; }\n"
                                   "parameter M, N;\nvector#2 int8 a[M,N];\nreturn copy(a);\n");
  expectError(quote(scratch("copy8.idsl")) + " -i " + quote(scratch("rgb.png")) + " -o " + quote(scratch("x.png")),
              "'" + scratch("rgb.png") + "' has 3 channels (RGB), but input 'a' (int8) takes 1 channel (gray); "
              "--gray converts it");
  CommandResult r = formacRun(quote(scratch("copy8.idsl")) + " -i " + quote(scratch("rgb.png")) + " --gray -o " +
                              quote(scratch("gray.png")));
  ASSERT_EQ(r.status, 0) << r.output;
  Pixels rgb = readPixels(scratch("rgb.png")), gray = readPixels(scratch("gray.png"));
  ASSERT_EQ(gray.channels, 1);
  ASSERT_EQ(gray.width * gray.height, 67 * 45);
  for (size_t i = 0; i < 67 * 45; ++i) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(rgb.bytes.data()) + 3 * i;
    ASSERT_EQ(static_cast<unsigned char>(gray.bytes[i]), (p[0] * 9798 + p[1] * 19235 + p[2] * 3735 + 16384) >> 15) << i;
  }
}

// A 2-D picture for a 1-D input is an error (it was once read row after row).
TEST_F(RunCli, ErrorPictureForOneDimensionalInput) {
  writeFile(scratch("line.idsl"), "stencil inc(vector#1 float A) { return A + 1.0f; }\n"
                                  "parameter N;\nvector#1 float a[N];\nreturn inc(a);\n");
  expectError(quote(scratch("line.idsl")) + " -i " + quote(scratch("small.png")) + " -o " + quote(scratch("x.png")),
              "'" + scratch("small.png") + "' is 2-dimensional (67x45), but input 'a' is 1-dimensional: give a .npy of "
              "one dimension or a picture one row high");
  writePattern(scratch("row.png"), 9, 1, 1, 8);
  CommandResult r = formacRun(quote(scratch("line.idsl")) + " -i " + quote(scratch("row.png")) + " -o " +
                              quote(scratch("row_out.pfm")) + " --backend=eval");
  ASSERT_EQ(r.status, 0) << r.output;
  Pixels in = readPixels(scratch("row.png")), out = readPixels(scratch("row_out.pfm"));
  ASSERT_EQ(out.width, 9);
  ASSERT_EQ(out.height, 1);
  float v;
  std::memcpy(&v, out.bytes.data() + 4 * 3, 4);
  EXPECT_EQ(v, static_cast<unsigned char>(in.bytes[3]) / 255.0f + 1.0f);
}

// A multi-page TIFF is a 3-D volume; JPEG goes in; eval and jit agree.
TEST_F(RunCli, VolumeFromMultiPageTiff) {
  writeFile(scratch("vol.idsl"), "stencil dz(vector#3 int A) { return A@[1,0,0] - A + 1000; }\n"
                                 "parameter P, M, N;\nvector#3 int a[P,M,N];\nreturn dz(a:clamped);\n");
  formac_image img{};
  ASSERT_EQ(formac_image_alloc_pages(&img, 5, 4, 3, 1, FORMAC_U16), 0);
  for (int i = 0; i < 60; ++i) static_cast<unsigned short*>(img.data)[i] = static_cast<unsigned short>(i * i);
  char err[256];
  ASSERT_EQ(formac_image_write(scratch("vol.tif").c_str(), &img, err, sizeof err), 0) << err;
  formac_image_free(&img);
  expectBackendsAgree("vol", quote(scratch("vol.idsl")) + " -i " + quote(scratch("vol.tif")), "tif");
  formac_image out{};
  ASSERT_EQ(formac_image_read_flags(scratch("vol_jit.tif").c_str(), &out, FORMAC_READ_PAGES, err, sizeof err), 0);
  ASSERT_EQ(out.pages, 3);
  ASSERT_EQ(out.type, FORMAC_U16);  // a 16-bit input gives 16-bit output
  const unsigned short* o = static_cast<const unsigned short*>(out.data);
  EXPECT_EQ(o[7], (27 * 27 - 7 * 7) + 1000);  // page 0 -> page 1 at the same point
  EXPECT_EQ(o[47], 1000);                     // the last page: clamped, A - A
  formac_image_free(&out);
  std::string jpg = scratch("cam.jpg");
  ASSERT_EQ(formacRun(quote(kBlur) + " -i " + quote(kCamera) + " -o " + quote(jpg) + " --backend=eval").status, 0);
  expectBackendsAgree("blur_jpeg", quote(kBlur) + " -i " + quote(jpg), "png");
}

// ------------------------------------------------------------------ errors

TEST_F(RunCli, ErrorMissingInputFile) {
  expectError(quote(kBlur) + " -i " + quote(scratch("nope.png")) + " -o " + quote(scratch("x.png")),
              "cannot open '" + scratch("nope.png") + "'");
}

TEST_F(RunCli, ErrorUnreadableInputFile) {
  expectError(quote(kBlur) + " -i " + quote(scratch("bad.png")) + " -o " + quote(scratch("x.png")),
              "'" + scratch("bad.png") + "': not a PNG/JPEG/TIFF/PGM/PPM/PFM file");
}

TEST_F(RunCli, ErrorWrongChannelCount) {
  expectError(quote(kBlur) + " -i " + quote(scratch("rgb.png")) + " -o " + quote(scratch("x.png")),
              "'" + scratch("rgb.png") + "' has 3 channels (RGB), but input 'input' (float) takes 1 channel (gray)");
  expectError(quote(kStruct) + " -i " + quote(kCamera) + " -o " + quote(scratch("x.png")),
              "'" + kCamera + "' has 1 channel (gray), but input 'photo' (pix) takes 3 channels (RGB)");
}

TEST_F(RunCli, ErrorInputsOfDifferentSizes) {
  expectError(quote(scratch("two_inputs.idsl")) + " -i " + quote(kCamera) + " -i " + quote(scratch("small.png")) +
                  " -o " + quote(scratch("x.png")),
              "inputs of different sizes: '" + kCamera + "' (512x512) gives M = 512, but '" + scratch("small.png") +
                  "' (67x45) gives M = 45 (inputs 'a' [M, N] and 'b' [M, N])");
  expectError(quote(kBlur) + " -i " + quote(scratch("small.png")) + " -p M=10 -o " + quote(scratch("x.png")),
              "--param M=10 does not match '" + scratch("small.png") +
                  "' (67x45), which gives M = 45 (input 'input' is [M, N])");
}

TEST_F(RunCli, ErrorMissingParam) {
  expectError(quote(kCanny) + " -i " + quote(kCamera) + " -p low=0.25 -o " + quote(scratch("x.png")),
              "scalar input 'high' (float) of " + kCanny + " needs a value: give it with --param high=VALUE");
  expectError(quote(scratch("unsized.idsl")) + " -i " + quote(scratch("small.png")) + " -o " + quote(scratch("x.png")),
              "cannot determine parameter 'N' of " + scratch("unsized.idsl") +
                  ": no input image has it alone as an extent; give it with --param N=VALUE");
}

TEST_F(RunCli, ErrorBadParam) {
  std::string base = quote(kCanny) + " -i " + quote(kCamera) + " -o " + quote(scratch("x.png"));
  expectError(base + " -p low=1 -p high=2 -p gain=3",
              kCanny + " has no parameter or scalar input 'gain' (it has: M, N, low, high)");
  expectError(base + " -p low=abc", "--param low: 'abc' is not a number");
  expectError(base + " -p low", "--param 'low': write NAME=VALUE");
  expectError(base + " -p low=1 -p low=2", "--param low is given twice");
  expectError(base + " -p low=1e50 -p high=2", "scalar input 'low' is float: 1e+50 is beyond its range");
  expectError(base + " -p low=9007199254740993", "--param low: 9007199254740993 is not exact as a double");
  expectError(quote(scratch("int8_scalar.idsl")) + " -i " + quote(kCamera) + " -p t=300 -o " + quote(scratch("x.png")),
              "scalar input 't' is int8: 300 is not an integer in 0..255");
  expectError(quote(kBlur) + " -i " + quote(kCamera) + " -p M=1.5 -o " + quote(scratch("x.png")),
              "parameter 'M' is a size: 1.5 is not an integer");
  // nan is a float scalar's value, never a size's or an integer's.
  expectError(quote(kBlur) + " -i " + quote(kCamera) + " -p M=nan -o " + quote(scratch("x.png")),
              "parameter 'M' is a size: nan is not an integer");
  expectError(quote(scratch("int8_scalar.idsl")) + " -i " + quote(kCamera) + " -p t=nan -o " + quote(scratch("x.png")),
              "scalar input 't' is int8: nan is not an integer in 0..255");
}

TEST_F(RunCli, NanScalar) {
  writeFile(scratch("times.idsl"), "parameter M, N;\nvector#2 float img[M,N];\nfloat k;\n"
                                   "stencil f(vector#2 float X, float k) { return X * k; }\nreturn f(img, k);\n");
  CommandResult r = formacRun(quote(scratch("times.idsl")) + " -i " + quote(kCamera) + " -p k=nan -o " +
                              quote(scratch("nan.pfm")) + " --backend=eval");
  ASSERT_EQ(r.status, 0) << r.output;
  std::string pfm = readFile(scratch("nan.pfm"));
  float first;
  size_t at = pfm.find("-1.0\n");
  ASSERT_NE(at, std::string::npos);
  std::memcpy(&first, pfm.data() + at + 5, sizeof first);
  EXPECT_TRUE(std::isnan(first));
}

TEST_F(RunCli, ErrorUnwritableOutput) {
  std::string base = quote(kBlur) + " -i " + quote(kCamera) + " -o ";
  expectError(base + quote(scratch("no_dir/x.png")),
              "cannot write '" + scratch("no_dir/x.png") + "': folder '" + scratch("no_dir") + "' does not exist");
  expectError(base + quote(scratch("x.gif")),
              "cannot write '" + scratch("x.gif") +
                  "': formac run writes .png, .jpg, .jpeg, .tif, .tiff, .npy, .pgm, .ppm, .pnm, .pfm or .txt files");
  runCommand("mkdir -p " + quote(scratch("dir.png")));
  expectError(base + quote(scratch("dir.png")), "cannot write '" + scratch("dir.png") + "': it is a folder");
  // PGM holds one channel: the runtime's message comes through.
  expectError(quote(kStruct) + " -i " + quote(scratch("rgb.png")) + " -o " + quote(scratch("x.pgm")),
              "'" + scratch("x.pgm") + "'");
}

TEST_F(RunCli, ErrorWrongNumberOfInputsOrOutputs) {
  expectError(quote(kBlur) + " -o " + quote(scratch("x.png")),
              kBlur + " takes 1 input image (input), but 0 were given with --input");
  expectError(quote(kBlur) + " -i " + quote(kCamera) + " -i " + quote(kCamera) + " -o " + quote(scratch("x.png")),
              kBlur + " takes 1 input image (input), but 2 were given with --input");
  expectError(quote(kBlur) + " -i " + quote(kCamera) + " -o " + quote(scratch("x.png")) + " -o " +
                  quote(scratch("y.png")),
              kBlur + " returns 1 image, but 2 --output were given");
  expectError(quote(kBlur) + " -i " + quote(kCamera), kBlur + " returns 1 image, but 0 --output were given");
  expectError("-i " + quote(kCamera) + " -o " + quote(scratch("x.png")), "formac run: no program given");
}

// ------------------------------------------------------------ reductions
// formac run ARGS, stdout alone (the timing line goes to stderr).
CommandResult formacRunStdout(const std::string& args) {
  return runCommand("(env -u FORMAC_CACHE_DIR XDG_CACHE_HOME=" + quote(scratch("xdg")) + " " + quote(FORMAC_EXE) +
                    " run " + args + " 2>/dev/null)");
}

// A .npy of `shape` whose elements are `data` as `descr` ('<f4', '|u1').
void writeNpy(const std::string& path, const std::string& descr, const std::string& shape, const void* data,
              size_t bytes) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }";
  header += std::string(128 - 10 - header.size() - 1, ' ') + "\n";
  std::string text = std::string("\x93NUMPY\x01\x00", 8);
  text += static_cast<char>(header.size() & 0xff);
  text += static_cast<char>(header.size() >> 8);
  text += header;
  text.append(static_cast<const char*>(data), bytes);
  writeFile(path, text);
}

// The values of a 3x5 float image: their sum depends on the order.
const float kValues35[15] = {0.5f, 1.0f, -2.0f, 3.25f, 0.0f, 1e-3f, 7.0f, -0.0f, 2.0f, 1.0f, 4.0f, 4.0f, 0.25f, -1.5f, 9.0f};

class RunReductions : public RunCli {
 protected:
  static void SetUpTestSuite() {
    RunCli::SetUpTestSuite();
    writeNpy(scratch("a35.npy"), "<f4", "3, 5", kValues35, sizeof kValues35);
    const unsigned char bytes[12] = {0, 5, 255, 3, 0, 1, 200, 7, 9, 0, 0, 4};
    writeNpy(scratch("b26.npy"), "|u1", "2, 6", bytes, sizeof bytes);
    writeFile(scratch("image_and_scalars.idsl"),
              "stencil scale(vector#2 float A, float m) { return A / m; }\n"
              "parameter M, N;\nvector#2 float a[M,N];\nm = max(a);\ns = sum(a);\nout = scale(a, m);\n"
              "return out, m, s;\n");
    writeFile(scratch("scalars_only.idsl"),
              "parameter M, N;\nvector#2 int8 a[M,N];\nn = count(a);\ns = sum(a);\nlo = min(a);\nb = all(a);\n"
              "return n, s, lo, b;\n");
    writeFile(scratch("rows.idsl"), "parameter M, N;\nvector#2 float a[M,N];\nrows = sum(a, 1);\nreturn rows;\n");
  }
};

const char* const kBackends[] = {"eval", "jit"};

// `return out, m, s;`: the scalars on stdout as `name = value`, in the
// order of the return; the one image in the one --output; eval and jit
// print the same text.
TEST_F(RunReductions, ImageAndScalars) {
  std::string printed[2];
  for (int b = 0; b < (kJit ? 2 : 1); ++b) {
    std::string out = scratch(std::string("scaled_") + kBackends[b] + ".npy");
    CommandResult r = formacRunStdout(quote(scratch("image_and_scalars.idsl")) + " -i " + quote(scratch("a35.npy")) +
                                      " --backend=" + kBackends[b] + " -o " + quote(out));
    ASSERT_EQ(r.status, 0) << r.output;
    printed[b] = r.output;
    // max is exact; the sum is a double printed to round-trip: 15 values in
    // one chunk, one per lane, folded pairwise (ir/Pipeline.h)
    ASSERT_EQ(r.output.rfind("m = 9\ns = ", 0), 0u) << r.output;
    double lane[32] = {};
    for (int i = 0; i < 15; ++i) lane[i] += kValues35[i];
    for (int w = 16; w >= 1; w /= 2)
      for (int j = 0; j < w; ++j) lane[j] += lane[j + w];
    EXPECT_EQ(std::stod(r.output.substr(10)), lane[0]) << r.output;
    EXPECT_EQ(r.output.back(), '\n');
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 2);
    std::string npy = readFile(out);
    ASSERT_EQ(npy.size(), 128u + 15 * 4) << kBackends[b];
    for (int i = 0; i < 15; ++i) {
      float v;
      std::memcpy(&v, npy.data() + 128 + 4 * i, 4);
      EXPECT_EQ(v, kValues35[i] / 9.0f) << kBackends[b] << " " << i;
    }
  }
  if (kJit) {
    EXPECT_EQ(printed[0], printed[1]) << "eval and jit print different scalars";
  }
}

// A program that returns only scalars takes no --output.
TEST_F(RunReductions, ScalarsOnlyNeedNoOutput) {
  std::string printed[2];
  for (int b = 0; b < (kJit ? 2 : 1); ++b) {
    CommandResult r = formacRunStdout(quote(scratch("scalars_only.idsl")) + " -i " + quote(scratch("b26.npy")) +
                                      " --backend=" + kBackends[b]);
    ASSERT_EQ(r.status, 0) << r.output;
    // int8 is 0..255: count 8, sum 484 (int64), min 0, all 0 (int)
    EXPECT_EQ(r.output, "n = 8\ns = 484\nlo = 0\nb = 0\n") << kBackends[b];
    printed[b] = r.output;
  }
  if (kJit) {
    EXPECT_EQ(printed[0], printed[1]);
  }
}

// A 1-D result (a sum along dimension 1) written as text: one value per
// line, to a .txt file or to stdout with '-'; eval and jit byte-identical.
TEST_F(RunReductions, RowsAsText) {
  std::string text[2];
  for (int b = 0; b < (kJit ? 2 : 1); ++b) {
    std::string out = scratch(std::string("rows_") + kBackends[b] + ".txt");
    CommandResult r = formacRun(quote(scratch("rows.idsl")) + " -i " + quote(scratch("a35.npy")) + " --backend=" +
                                kBackends[b] + " -o " + quote(out));
    ASSERT_EQ(r.status, 0) << r.output;
    text[b] = readFile(out);
    ASSERT_EQ(std::count(text[b].begin(), text[b].end(), '\n'), 3) << text[b];
    ASSERT_EQ(text[b].back(), '\n');
    EXPECT_EQ(text[b].rfind("2.75\n", 0), 0u) << text[b];
    EXPECT_NE(text[b].find("\n15.75\n"), std::string::npos) << text[b];
    double row1 = std::stod(text[b].substr(5));
    EXPECT_NEAR(row1, 10.001, 1e-6);
    CommandResult dash = formacRunStdout(quote(scratch("rows.idsl")) + " -i " + quote(scratch("a35.npy")) +
                                         " --backend=" + kBackends[b] + " -o -");
    ASSERT_EQ(dash.status, 0) << dash.output;
    EXPECT_EQ(dash.output, text[b]) << "'-o -' and '-o x.txt' differ";
  }
  if (kJit) {
    EXPECT_EQ(text[0], text[1]) << "eval and jit write different text";
  }
}

TEST_F(RunReductions, ErrorOutputCountNamesTheScalars) {
  expectError(quote(scratch("scalars_only.idsl")) + " -i " + quote(scratch("b26.npy")) + " -o " +
                  quote(scratch("x.txt")),
              scratch("scalars_only.idsl") + " returns 0 images (and 4 scalars, written to stdout), but 1 --output "
                                             "was given");
  std::string base = quote(scratch("image_and_scalars.idsl")) + " -i " + quote(scratch("a35.npy"));
  expectError(base, scratch("image_and_scalars.idsl") +
                        " returns 1 image (and 2 scalars, written to stdout), but 0 --output were given");
  expectError(base + " -o " + quote(scratch("x.npy")) + " -o " + quote(scratch("y.txt")),
              scratch("image_and_scalars.idsl") +
                  " returns 1 image (and 2 scalars, written to stdout), but 2 --output were given");
  writeFile(scratch("one_scalar.idsl"), "parameter M, N;\nvector#2 float a[M,N];\nreturn a, max(a);\n");
  expectError(quote(scratch("one_scalar.idsl")) + " -i " + quote(scratch("a35.npy")),
              scratch("one_scalar.idsl") + " returns 1 image (and 1 scalar, written to stdout), but 0 --output were given");
}

TEST_F(RunCli, ErrorBadCommandLine) {
  std::string base = quote(kBlur) + " -i " + quote(kCamera) + " -o " + quote(scratch("x.png"));
  expectError(base + " --backend=gpu", "unknown backend 'gpu' (jit, eval or cuda)");
  expectError(base + " --frobnicate", "unknown option '--frobnicate' of formac run");
  expectError(base + " --repeat 0", "--repeat takes a count from 1 to 1000000");
  expectError(quote(scratch("nope.idsl")) + " -i " + quote(kCamera) + " -o " + quote(scratch("x.png")),
              "cannot open '" + scratch("nope.idsl") + "'");
  if (!kJit) expectError(base + " --backend=jit", "this formac was built without the JIT");
}

// ------------------------------------------------------------------ --backend=cuda without a GPU
// The fake driver (fake_libcuda.c) stands in for libcuda.so.1; the real
// outputs are checked on a GPU by tests/gpu/run_formac_run_cuda.sh.

const std::string kFakeCuda = FORMAC_FAKE_CUDA;

CommandResult cudaRun(const std::string& args, const std::string& env, const std::string& cacheHome = scratch("xdg")) {
  return formacRun(args + " --backend=cuda", "FORMAC_LIBCUDA=" + quote(kFakeCuda) + " " + env, cacheHome);
}

bool needsNvrtc(const CommandResult& r) {
  return r.output.find("--backend=cuda needs NVRTC") != std::string::npos ||
         r.output.find("NVRTC did not load") != std::string::npos;
}

TEST_F(RunCli, ErrorCudaWithoutDriver) {
  CommandResult r = formacRun(quote(kBlur) + " -i " + quote(kCamera) + " -o " + quote(scratch("x.png")) +
                                  " --backend=cuda",
                              "FORMAC_LIBCUDA=/nonexistent/libcuda.so.1");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("formac: error: --backend=cuda needs the NVIDIA driver (libcuda.so.1), which did not "
                          "load from $FORMAC_LIBCUDA: /nonexistent/libcuda.so.1"),
            std::string::npos)
      << r.output;
  // And where there is no driver at all (this machine has none).
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cuda) {
    dlclose(cuda);
    GTEST_SKIP() << "this machine has libcuda.so.1";
  }
  CommandResult plain = formacRun(quote(kBlur) + " -i " + quote(kCamera) + " -o " + quote(scratch("x.png")) +
                                  " --backend=cuda", "FORMAC_LIBCUDA=");
  EXPECT_EQ(plain.status, 1) << plain.output;
  EXPECT_NE(plain.output.find("formac: error: --backend=cuda needs the NVIDIA driver (libcuda.so.1)"),
            std::string::npos)
      << plain.output;
}

TEST_F(RunCli, ErrorCudaWithoutGpu) {
  CommandResult r = cudaRun(quote(kBlur) + " -i " + quote(kCamera) + " -o " + quote(scratch("x.png")), "");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("formac: error: --backend=cuda found no usable GPU (cuInit: no CUDA-capable device is "
                          "detected)"),
            std::string::npos)
      << r.output;
}

TEST_F(RunCli, ErrorCudaWithoutNvrtc) {
  CommandResult r = cudaRun(quote(kBlur) + " -i " + quote(kCamera) + " -o " + quote(scratch("x.png")),
                            "FAKE_CUDA_DEVICES=1 FORMAC_NVRTC=/nonexistent/libnvrtc.so");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("formac: error: --backend=cuda: NVRTC did not load from $FORMAC_NVRTC: "
                          "/nonexistent/libnvrtc.so"),
            std::string::npos)
      << r.output;
}

// Reductions and scans run from the launch schedule (codegen/LaunchSchedule.h)
// on the fake GPU: the log shows each launch's grid and block and each
// scratch reset, as the schedule computes them for a 512 x 512 image.
TEST_F(RunReductions, CudaRunsReductionsAndScansFromTheSchedule) {
  writeFile(scratch("sum_sat.idsl"),
            "parameter M, N;\nvector#2 float a[M,N];\ns = sum(a);\nt = sat(a);\nreturn t, s;\n");
  std::string log = scratch("sum_sat_launches.txt");
  CommandResult r = cudaRun(quote(scratch("sum_sat.idsl")) + " -i " + quote(kCamera) + " -o " +
                                quote(scratch("t.pfm")),
                            "FAKE_CUDA_DEVICES=1 FAKE_CUDA_LOG=" + quote(log));
  if (needsNvrtc(r)) GTEST_SKIP() << "no NVRTC: " << r.output;
  ASSERT_EQ(r.status, 0) << r.output;
  // The kernels do nothing: the scalar is the zeroed buffer, copied back.
  EXPECT_NE(r.output.find("s = 0\n"), std::string::npos) << r.output;
  std::string launches = launchLog(log);
  // 262144 points: the ticket reset (4 bytes), then 128 chunks, a warp each
  // (16 blocks of 256: every warp one chunk on 132 SMs); the last block
  // combines the partials and writes the value in the same launch.
  // sat: one pass over both dimensions, 128 x 128 tiles (16 of them, 16 x 16
  // threads of 8 x 8 points each), after the resets of the tile counter (8
  // bytes) and of the row and column groups' words (7 groups a line of 4
  // tiles, 512 rows and 512 columns, 16 bytes each: 114688 bytes).
  std::vector<std::string> expected = {"memset 4\n",      "_chunks", " grid 16 1 1 block 256 1 1 shared 0\n",
                                       "memset 8\n",      "memset 114688\n", "_sat01",
                                       " grid 16 1 1 block 16 16 1 shared 0\n"};
  size_t at = 0;
  for (const auto& e : expected) {
    size_t next = launches.find(e, at);
    ASSERT_NE(next, std::string::npos) << "no '" << e << "' after byte " << at << " of\n" << launches;
    at = next + e.size();
  }
  EXPECT_EQ(at, launches.size()) << launches;
}

// `do` loops run through NVRTC too (each body an executor and module of its
// own; tests/gpu/run_formac_run_cuda.sh runs them on a GPU). On the fake GPU the
// kernels do nothing, so the condition reads 0 and one round runs: the body's
// kernels are launched once, its X<i> copied into X<i-1>, and the result copied
// out; without a GPU the error is about the GPU, not the loop.
TEST_F(RunReductions, CudaTakesLoops) {
  writeFile(scratch("loop.idsl"), "stencil half(vector#2 float X) { return X * 0.5f; }\n"
                                  "parameter M, N;\nvector#2 float a[M,N];\ne<0> = a;\ndo i = 1..5\n"
                                  "  e<i> = half(e<i-1>);\nwhile (any(e<i>));\nreturn e<i>;\n");
  std::string args = quote(scratch("loop.idsl")) + " -i " + quote(scratch("a35.npy")) + " -v -o " + quote(scratch("loop.npy"));
  CommandResult none = cudaRun(args, "");
  EXPECT_EQ(none.status, 1) << none.output;
  EXPECT_NE(none.output.find("--backend=cuda found no usable GPU"), std::string::npos) << none.output;
  std::string log = scratch("loop_launches.txt");
  CommandResult r = cudaRun(args, "FAKE_CUDA_DEVICES=1 FAKE_CUDA_LOG=" + quote(log));
  if (needsNvrtc(r)) GTEST_SKIP() << "no NVRTC: " << r.output;
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("cuda: the body of the do loop over 'i' (line 5):"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("do loop over 'i' (line 5): 1 round"), std::string::npos) << r.output;
  std::string launches = readFile(log);
  EXPECT_NE(launches.find("_loop"), std::string::npos) << launches;
  // 3 x 5 floats: the initial image in, X<i> into X<i-1>, the result out.
  size_t copies = 0;
  for (size_t at = 0; (at = launches.find("copy 60 bytes", at)) != std::string::npos; ++at) ++copies;
  EXPECT_EQ(copies, 3u) << launches;
}

// A fused kernel's grid has at most 65535 rows of tiles: an image of
// 2,100,000 x 1 points (65,625 rows of 32-row tiles) is an error that says
// so, before anything is launched.
TEST_F(RunReductions, CudaFusedGridTooTall) {
  writeFile(scratch("tall.idsl"), "stencil avg(vector#2 float X) { return (X@[-1,0] + X + X@[1,0]) / 3.0f; }\n"
                                  "parameter M, N;\nvector#2 float a[M,N];\nb = avg(a:mirror);\n"
                                  "return avg(b:mirror);\n");
  std::vector<float> column(2100000, 1.0f);
  writeNpy(scratch("tall.npy"), "<f4", "2100000, 1", column.data(), column.size() * sizeof(float));
  std::string log = scratch("tall_launches.txt");
  CommandResult r = cudaRun(quote(scratch("tall.idsl")) + " -i " + quote(scratch("tall.npy")) + " -o " +
                                quote(scratch("tall_out.npy")),
                            "FAKE_CUDA_DEVICES=1 FAKE_CUDA_LOG=" + quote(log));
  if (needsNvrtc(r)) GTEST_SKIP() << "no NVRTC: " << r.output;
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("formac: error: cuda: kernel tall_fused"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" needs 1 x 65625 x 1 blocks, more than a GPU runs (2^31 - 1 x 65535 x 65535): the image "
                          "is too large for this fused kernel (try --no-fuse)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(readFile(log), "") << "launched";
}

// topk of more than 2048 candidates sorts them on the device: the host's
// loop over the bitonic sort's stages (k = 2 .. 4096, j = k/2 .. 1: 78
// steps) and the radix select's 3 digits of a float's 32-bit key.
TEST_F(RunReductions, CudaTopkLoopsOverTheSortsSteps) {
  writeFile(scratch("top.idsl"), "parameter M, N;\nvector#2 float a[M,N];\nt = topk(a, 4096);\nreturn t;\n");
  std::string log = scratch("top_launches.txt");
  CommandResult r = cudaRun(quote(scratch("top.idsl")) + " -i " + quote(kCamera) + " -o " + quote(scratch("top.npy")),
                            "FAKE_CUDA_DEVICES=1 FAKE_CUDA_LOG=" + quote(log));
  if (needsNvrtc(r)) GTEST_SKIP() << "no NVRTC: " << r.output;
  ASSERT_EQ(r.status, 0) << r.output;
  std::string launches = launchLog(log);
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = launches.find(what); at != std::string::npos; at = launches.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("_step"), 78u) << launches;
  EXPECT_EQ(count("_sort"), 0u) << launches;
  EXPECT_EQ(count("_pick"), 3u) << launches;
  // The bitonic steps: 4096 candidates, 16 blocks of 256.
  EXPECT_NE(launches.find("_step"), std::string::npos);
  EXPECT_NE(launches.find(" grid 16 1 1 block 256 1 1 shared 0\n", launches.find("_step")), std::string::npos)
      << launches;
  // The chunk kernels: 128 chunks, 8 warps a block: 16 blocks (under 8 per SM of the fake's 132).
  EXPECT_NE(launches.find("_digits"), std::string::npos);
  EXPECT_EQ(launches.compare(launches.find(" grid", launches.find("_digits")), 35, " grid 16 1 1 block 256 1 1 shared 0"), 0)
      << launches;
}

// The host side on the fake GPU: NVRTC, the cache, every launch's shape;
// the kernels do nothing, so the output is the zeroed buffer.
TEST_F(RunCli, CudaOnTheFakeGpuCompilesOnceThenHitsTheCache) {
  std::string home = scratch("xdg_cuda"), log = scratch("launches.txt");
  std::string env = "FAKE_CUDA_DEVICES=1 FAKE_CUDA_LOG=" + quote(log);
  std::string args = quote(kCanny) + " -i " + quote(scratch("small.png")) + " -p low=0.25 -p high=0.5 -v -o ";
  CommandResult first = cudaRun(args + quote(scratch("cuda1.png")), env, home);
  if (needsNvrtc(first)) GTEST_SKIP() << "no NVRTC: " << first.output;
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_NE(first.output.find("cuda: formac fake GPU (sm_90), driver for CUDA 12.4; NVRTC "), std::string::npos)
      << first.output;
  EXPECT_NE(first.output.find("cuda: NVRTC --gpu-architecture=sm_90 -std=c++17: "), std::string::npos) << first.output;
  EXPECT_NE(first.output.find("cuda: cached as " + home + "/formac/"), std::string::npos) << first.output;
  EXPECT_NE(first.output.find("formac: canny 67x45 cuda: compile "), std::string::npos) << first.output;
  EXPECT_EQ(first.output.find("(cached)"), std::string::npos) << first.output;
  std::string launches = readFile(log);
  EXPECT_NE(launches.find("canny_fused"), std::string::npos) << launches;
  // Fused kernels: blocks of 32 x 8 threads over tiles of the 45 x 67 image.
  EXPECT_NE(launches.find(" block 32 8 1 "), std::string::npos) << launches;
  // The heavy fused kernel runs its tightest form without spills (the fake
  // reports none): <int, 6>, mangled IiLi6E.
  EXPECT_NE(first.output.find(" runs its <int, 6> form (6 blocks per SM, no spills)"), std::string::npos)
      << first.output;
  EXPECT_NE(launches.find("IiLi6E"), std::string::npos) << launches;

  CommandResult second = cudaRun(args + quote(scratch("cuda2.png")), env, home);
  ASSERT_EQ(second.status, 0) << second.output;
  EXPECT_NE(second.output.find("cuda: cache hit, loaded " + home + "/formac/"), std::string::npos) << second.output;
  EXPECT_NE(second.output.find(" (cached), run "), std::string::npos) << second.output;
  EXPECT_EQ(second.output.find("cuda: NVRTC --gpu"), std::string::npos) << second.output;
  EXPECT_EQ(readFile(log), launches + launches) << "the cached module launches the same kernels";
  EXPECT_FALSE(readFile(scratch("cuda1.png")).empty());
  EXPECT_TRUE(readFile(scratch("cuda1.png")) == readFile(scratch("cuda2.png")));

  // Unfused: one kernel per stage and piece, the grid-stride shapes: blocks of
  // 32 x 8 threads, each taking 4 float points a row (16 bytes), so 1 x 6
  // blocks cover the 67 x 45 image.
  CommandResult unfused = cudaRun(args + quote(scratch("cuda3.png")) + " --no-fuse", env, home);
  ASSERT_EQ(unfused.status, 0) << unfused.output;
  EXPECT_NE(unfused.output.find("cuda: NVRTC --gpu"), std::string::npos) << unfused.output;
  EXPECT_NE(readFile(log).find("_stage"), std::string::npos);
  EXPECT_NE(readFile(log).find(" grid 1 6 1 block 32 8 1 shared 0"), std::string::npos) << readFile(log);
}

// Three fused stages of doubles reaching 12 points out (no division: the
// halos may recompute it): the tile shrinks to
// 32 x 32 (its rows no further: the halo is 24), whose regions need more than
// the default 48 KB of shared memory, so the kernel asks for the device's
// opt-in amount (the fake driver rejects the launch otherwise).
TEST_F(RunCli, CudaSharedMemoryOptIn) {
  std::string program =
      "stencil wide(vector#2 double X) { return (X@[-12,0] + X@[12,0] + X@[0,-12] + X@[0,12] + X) * 0.2; }\n"
      "parameter M, N;\nvector#2 double a[M,N];\n";
  for (int k = 0; k < 2; ++k) {
    std::string from = k ? "s" + std::to_string(k - 1) : std::string("a");
    program += "s" + std::to_string(k) + " = wide(" + from + ":mirror);\n";
  }
  writeFile(scratch("wide.idsl"), program + "return wide(s1:mirror);\n");
  std::string log = scratch("wide_launches.txt");
  CommandResult r = cudaRun(quote(scratch("wide.idsl")) + " -i " + quote(scratch("small.png")) + " -o " +
                                quote(scratch("wide.pfm")),
                            "FAKE_CUDA_DEVICES=1 FAKE_CUDA_LOG=" + quote(log));
  if (needsNvrtc(r)) GTEST_SKIP() << "no NVRTC: " << r.output;
  ASSERT_EQ(r.status, 0) << r.output;
  std::string launches = launchLog(log);
  size_t at = launches.rfind(" shared ");
  ASSERT_NE(at, std::string::npos) << launches;
  EXPECT_GT(std::stol(launches.substr(at + 8)), 48 * 1024) << launches;
}

// A tight form that spills is passed over for the next, and with every one
// spilling the kernel runs <int>, as the generated create() chooses. A form
// with at most 8 bytes of local memory (a stack frame ptxas gives the slow
// path's call) runs.
TEST_F(RunCli, CudaTightFormWithoutSpills) {
  std::string args = quote(kCanny) + " -i " + quote(scratch("small.png")) + " -p low=0.25 -p high=0.5 -v -o " +
                     quote(scratch("tight.png"));
  std::string log5 = scratch("tight5.txt"), logInt = scratch("tight_int.txt");
  CommandResult five = cudaRun(args, "FAKE_CUDA_DEVICES=1 FAKE_CUDA_SPILLS=IiLi6E FAKE_CUDA_LOG=" + quote(log5));
  if (needsNvrtc(five)) GTEST_SKIP() << "no NVRTC: " << five.output;
  ASSERT_EQ(five.status, 0) << five.output;
  EXPECT_NE(five.output.find(" runs its <int, 5> form (5 blocks per SM, no spills)"), std::string::npos)
      << five.output;
  EXPECT_NE(readFile(log5).find("IiLi5E"), std::string::npos) << readFile(log5);
  EXPECT_EQ(readFile(log5).find("IiLi6E"), std::string::npos) << readFile(log5);

  CommandResult none =
      cudaRun(args, "FAKE_CUDA_DEVICES=1 FAKE_CUDA_SPILLS=IiLi6E,IiLi5E FAKE_CUDA_LOG=" + quote(logInt));
  ASSERT_EQ(none.status, 0) << none.output;
  EXPECT_EQ(none.output.find(" form ("), std::string::npos) << none.output;
  // kernel<int> is kernel<int, 0>: ptxas's own choice of registers.
  EXPECT_NE(readFile(logInt).find("canny_fused6_classifyIiLi0E"), std::string::npos) << readFile(logInt);
  EXPECT_EQ(readFile(logInt).find("IiLi5E"), std::string::npos) << readFile(logInt);

  std::string log8 = scratch("tight8.txt");
  CommandResult eight =
      cudaRun(args, "FAKE_CUDA_DEVICES=1 FAKE_CUDA_SPILLS=IiLi6E:12,IiLi5E:8 FAKE_CUDA_LOG=" + quote(log8));
  ASSERT_EQ(eight.status, 0) << eight.output;
  EXPECT_NE(eight.output.find("<int, 6> form uses 12 bytes of local memory (spills): not run"), std::string::npos)
      << eight.output;
  EXPECT_NE(eight.output.find(" runs its <int, 5> form (5 blocks per SM, 8 bytes of local memory)"),
            std::string::npos)
      << eight.output;
  EXPECT_NE(readFile(log8).find("IiLi5E"), std::string::npos) << readFile(log8);
}

// A do loop whose condition reads a stage only it reads (canny's `c<i>`):
// lowering the body folds that stage into `any` and renumbers the body's
// stages, so the loop's ids of them are found again by name (an internal
// error, "vector::_M_range_check", before).
TEST_F(RunCli, CudaLoopWhoseBodyLowersToFewerStages) {
  writeFile(scratch("grow.idsl"),
            "stencil grow(vector#2 float X) { return max(X, max(X@[0,-1], X@[-1,0]) * 0.5f); }\n"
            "stencil changed(vector#2 float A, vector#2 float B) { return A != B; }\n"
            "parameter M, N;\nvector#2 float img[M,N];\ns<0> = img;\ndo i = 1..20\n"
            "  s<i> = grow(s<i-1>:constant(0));\n  c<i> = changed(s<i>, s<i-1>);\nwhile (any(c<i>));\nreturn s<i>;\n");
  CommandResult r = cudaRun(quote(scratch("grow.idsl")) + " -i " + quote(scratch("small.png")) + " -o " +
                                quote(scratch("grow.pfm")),
                            "FAKE_CUDA_DEVICES=1");
  if (needsNvrtc(r)) GTEST_SKIP() << "no NVRTC: " << r.output;
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
}

TEST_F(RunCli, CudaErrorsOnTheFakeGpu) {
  std::string base = quote(kBlur) + " -i " + quote(scratch("small.png")) + " -o " + quote(scratch("x.png"));
  CommandResult launch = cudaRun(base, "FAKE_CUDA_DEVICES=1 FAKE_CUDA_FAIL=cuLaunchKernel");
  if (needsNvrtc(launch)) GTEST_SKIP() << "no NVRTC: " << launch.output;
  EXPECT_EQ(launch.status, 1) << launch.output;
  EXPECT_NE(launch.output.find("formac: error: cuda: launching blur_"), std::string::npos) << launch.output;
  EXPECT_NE(launch.output.find("<int> (cuLaunchKernel): too many resources requested for launch (CUDA error 701)"),
            std::string::npos)
      << launch.output;
  CommandResult alloc = cudaRun(base, "FAKE_CUDA_DEVICES=1 FAKE_CUDA_FAIL=cuMemAlloc");
  EXPECT_EQ(alloc.status, 1) << alloc.output;
  EXPECT_NE(alloc.output.find("formac: error: cuda: allocating 12060 bytes for image 'input' (cuMemAlloc): "
                              "out of memory (CUDA error 2)"),
            std::string::npos)
      << alloc.output;
}

TEST_F(RunCli, ErrorInTheProgram) {
  writeFile(scratch("broken.idsl"), "parameter M, N;\nvector#2 float a[M,N];\nreturn b;\n");
  CommandResult r = formacRun(quote(scratch("broken.idsl")) + " -i " + quote(kCamera) + " -o " + quote(scratch("x.png")));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(scratch("broken.idsl") + ":3:"), std::string::npos) << r.output;
}

// `formac run` finds a program's imports beside the program, whatever the
// working directory; an import's own error names its file.
TEST_F(RunCli, ImportsBesideTheProgram) {
  ASSERT_EQ(runCommand("mkdir -p " + quote(scratch("imports/lib"))).status, 0);
  writeFile(scratch("imports/lib/half.idsl"), "stencil half(vector#2 float X) { return X * 0.5f; }\n");
  writeFile(scratch("imports/prog.idsl"), "import \"lib/half.idsl\";\nparameter M, N;\n"
                                          "vector#2 float a[M,N];\nreturn half(a);\n");
  CommandResult r = runCommand("cd / && env -u FORMAC_CACHE_DIR XDG_CACHE_HOME=" + quote(scratch("xdg")) + " " +
                               quote(FORMAC_EXE) + " run " + quote(scratch("imports/prog.idsl")) + " -i " +
                               quote(kCamera) + " -o " + quote(scratch("half.pfm")) + " --backend=eval");
  EXPECT_EQ(r.status, 0) << r.output;
  writeFile(scratch("imports/lib/half.idsl"), "stencil half(vector#2 float X) { return X * ; }\n");
  r = formacRun(quote(scratch("imports/prog.idsl")) + " -i " + quote(kCamera) + " -o " + quote(scratch("x.png")));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("imports/lib/half.idsl:1:"), std::string::npos) << r.output;
}

// Outputs are named as the program writes them, never by a generated name
// ('_t3', 'g_4' for g<4>).
TEST_F(RunCli, MessagesNameOutputsAsWritten) {
  writeFile(scratch("five.idsl"), "struct five { float a; float b; float c; float d; float e; }\n"
                                  "stencil mk(vector#2 float X) { return struct five(X, X@[0,1], X, X, X); }\n"
                                  "parameter M, N;\nvector#2 float in[M,N];\nreturn mk(in:mirror);\n");
  expectError(quote(scratch("five.idsl")) + " -i " + quote(kCamera) + " -o " + quote(scratch("x.png")),
              "formac run reads and writes images of numbers (gray) or of structs of 2 to 4 fields (gray and "
              "alpha, RGB, RGBA); 'mk(in:mirror)' is five with 5 fields");
  writeFile(scratch("empty.idsl"), "parameter M, N;\nvector#2 float in[M,N];\ng<0> = in;\nfor i = 1..4\n"
                                   "  g<i> = g<i-1>[0..M-1, 1..];\nendfor\nreturn g<4>[0..M-1, 0..-1];\n");
  expectError(quote(scratch("empty.idsl")) + " -i " + quote(kCamera) + " -o " + quote(scratch("x.png")) +
                  " --backend=eval",
              "output 'g<4>[...]' is empty (0x512)");
}

TEST_F(RunCli, Help) {
  CommandResult r = formacRun("--help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("usage: formac run PROGRAM.idsl"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace formac::test
