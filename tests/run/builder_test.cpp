// The embedded builder (compiler/builder/Builder.h): pipelines built in C++
// equal to the same programs written as text — the same IR (--emit=dag's
// print, line numbers aside) and bit-identical outputs through the JIT and
// the evaluator.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <regex>

#include "RunTestSupport.h"
#include "builder/Builder.h"
#include "ir/Printer.h"

namespace formac::test {
namespace {

using namespace formac::builder;  // NOLINT: the builder's notation is the point
using Type = formac::builder::Type;  // formac::Type is the IR's

const std::string kScratch = FORMAC_SCRATCH;
const std::string kSource = FORMAC_SOURCE_DIR;
const bool kJit = FORMAC_TEST_JIT;

CompileOptions options(Backend backend) {
  CompileOptions o;
  o.backend = backend;
  o.name = "p";
  o.cacheDir = kScratch + "/cache";
  return o;
}

// The IR's print without the source lines (the builder's are this file's).
std::string dag(const ir::Pipeline& p) {
  return std::regex_replace(ir::printPipeline(p), std::regex(R"( \(line \d+\))"), "");
}

struct Buffer {
  std::vector<unsigned char> bytes;
  std::vector<long long> extent;
};

// Deterministic pixels: floats in [0, 1), or bytes.
Buffer pixels(Type t, std::vector<long long> extent, unsigned seed) {
  std::mt19937 rng(seed);
  size_t n = 1;
  for (long long e : extent) n *= static_cast<size_t>(e);
  Buffer b{std::vector<unsigned char>(n * static_cast<size_t>(scalarSize(t))), extent};
  for (size_t i = 0; i < n; ++i) {
    if (t == Type::Float) {
      float v = static_cast<float>(rng() % 100000) / 100000.0f;
      std::memcpy(&b.bytes[i * 4], &v, 4);
    } else {
      b.bytes[i] = static_cast<unsigned char>(rng() % 256);
    }
  }
  return b;
}

// Every output's bytes after one run.
std::vector<std::vector<unsigned char>> runOn(CompiledPipeline& p, std::vector<Buffer>& in, const Values& values) {
  std::vector<std::vector<long long>> extents;
  std::vector<ImageRef> inputs;
  for (auto& b : in) {
    extents.push_back(b.extent);
    inputs.push_back({b.bytes.data(), b.extent});
  }
  run::BindStyle style;
  run::Binding bound = p.bind(extents, values, style);
  std::vector<std::vector<unsigned char>> outs;
  std::vector<ImageRef> refs;
  for (size_t i = 0; i < p.outputImages().size(); ++i) {
    std::vector<long long> e = p.outputExtent(i, bound.params);
    size_t n = typeSize(p.outputImages()[i].type);
    for (long long x : e) n *= static_cast<size_t>(x);
    outs.emplace_back(n, 0xA5);
    refs.push_back({nullptr, e});
  }
  for (size_t i = 0; i < outs.size(); ++i) refs[i].data = outs[i].data();
  p.run(inputs, values, refs);
  return outs;
}

// The builder's pipeline against the text program: the same IR, and the
// same bytes from the evaluator and the JIT on `in` (and, where
// FORMAC_TEST_CUDA is set, a GPU machine's: tests/gpu/builder_cuda.sh, for
// the pipelines formac run's CUDA path runs, stencils only).
void expectSameAsText(const Builder& b, const std::string& text, std::vector<Buffer> in, const Values& values,
                      const std::string& textPath = "", bool stencilsOnly = false) {
  CompileOptions o = options(Backend::Eval);
  o.sourcePath = textPath;
  CompiledPipeline textEval = compile(text, o);
  CompiledPipeline builtEval = compile(b, options(Backend::Eval));
  EXPECT_EQ(dag(builtEval.pipeline()), dag(textEval.pipeline()));
  auto expected = runOn(textEval, in, values);
  EXPECT_EQ(runOn(builtEval, in, values), expected);
  if (stencilsOnly && std::getenv("FORMAC_TEST_CUDA")) {
    CompiledPipeline builtCuda = compile(b, options(Backend::Cuda));
    EXPECT_EQ(runOn(builtCuda, in, values), expected);
  }
  if (!kJit) return;
  CompiledPipeline builtJit = compile(b, options(Backend::Jit));
  EXPECT_EQ(runOn(builtJit, in, values), expected);
}

TEST(Builder, BlurEqualsTheExample) {
  Builder b;
  Value input = b.input("input", Type::Float, 2);
  Stencil blurx = b.stencil("blurx", [](Value X) { return cast(Type::Double, X.at(-1, 0) + X + X.at(1, 0)) / 3.0; });
  Stencil blury = b.stencil("blury", {"Y"}, [](Value Y) { return (Y.at(0, -1) + Y + Y.at(0, 1)) / 3.0; });
  Value temp = blurx(input.mirror()).named("temp");
  Value output = blury(temp.mirror()).named("output");
  b.outputs({output});
  std::string path = kSource + "/examples/blur/blur.idsl";
  expectSameAsText(b, readFile(path), {pixels(Type::Float, {37, 53}, 1)}, {}, path, true);
}

// stdlib's sobel_x, sobel_y and gaussian3x3, as harris imports them.
Stencil sobelX(Builder& b) {
  return b.stencil("sobel_x", {"I"}, [](Value I) {
    return (I.at(-1, 1) - I.at(-1, -1)) + 2.0f * (I.at(0, 1) - I.at(0, -1)) + (I.at(1, 1) - I.at(1, -1));
  });
}
Stencil sobelY(Builder& b) {
  return b.stencil("sobel_y", {"I"}, [](Value I) {
    return (I.at(1, -1) - I.at(-1, -1)) + 2.0f * (I.at(1, 0) - I.at(-1, 0)) + (I.at(1, 1) - I.at(-1, 1));
  });
}

TEST(Builder, HarrisEqualsTheExample) {
  Builder b;
  Value img = b.input("img", Type::Float, 2);
  Value k = b.scalar("k", Type::Float);
  Stencil gauss = b.stencil("gaussian3x3", [](Value X) {
    return (X.at(-1, -1) + 2.0f * X.at(-1, 0) + X.at(-1, 1) + 2.0f * X.at(0, -1) + 4.0f * X + 2.0f * X.at(0, 1) +
            X.at(1, -1) + 2.0f * X.at(1, 0) + X.at(1, 1)) /
           16.0f;
  });
  Stencil product = b.stencil("product", {"A", "B"}, [](Value A, Value B) { return A * B; });
  Stencil response = b.stencil("response", {"Sxx", "Syy", "Sxy", "k"}, [](Value Sxx, Value Syy, Value Sxy, Value kk) {
    Value det = (Sxx * Syy - Sxy * Sxy).named("det");
    Value trace = (Sxx + Syy).named("trace");
    return det - kk * trace * trace;
  });
  Value ix = sobelX(b)(img.mirror()).named("ix");
  Value iy = sobelY(b)(img.mirror()).named("iy");
  Value ixx = product(ix, ix).named("ixx");
  Value iyy = product(iy, iy).named("iyy");
  Value ixy = product(ix, iy).named("ixy");
  Value sxx = gauss(ixx.mirror()).named("sxx");
  Value syy = gauss(iyy.mirror()).named("syy");
  Value sxy = gauss(ixy.mirror()).named("sxy");
  b.outputs({response(sxx, syy, sxy, k)});
  std::string path = kSource + "/examples/harris/harris.idsl";
  expectSameAsText(b, readFile(path), {pixels(Type::Float, {41, 29}, 2)}, {{"k", 0.05}}, path, true);
}

TEST(Builder, CannyEqualsTheExample) {
  Builder b;
  Value img = b.input("img", Type::Float, 2);
  Value low = b.scalar("low", Type::Float);
  Value high = b.scalar("high", Type::Float);
  Stencil gauss5 = b.stencil("gauss5", [](Value X) {
    static const int w[5][5] = {{2, 4, 5, 4, 2}, {4, 9, 12, 9, 4}, {5, 12, 15, 12, 5}, {4, 9, 12, 9, 4}, {2, 4, 5, 4, 2}};
    Value s;
    for (int i = -2; i <= 2; ++i)
      for (int j = -2; j <= 2; ++j) {
        Value term = w[i + 2][j + 2] * (i == 0 && j == 0 ? X : X.at(i, j));
        s = s.valid() ? s + term : term;
      }
    return s / 159.0f;
  });
  Stencil sobelx = b.stencil("sobel_x", {"I"}, [](Value I) {
    return (I.at(-1, 1) - I.at(-1, -1)) + 2 * (I.at(0, 1) - I.at(0, -1)) + (I.at(1, 1) - I.at(1, -1));
  });
  Stencil sobely = b.stencil("sobel_y", {"I"}, [](Value I) {
    return (I.at(1, -1) - I.at(-1, -1)) + 2 * (I.at(1, 0) - I.at(-1, 0)) + (I.at(1, 1) - I.at(-1, 1));
  });
  Stencil magnitude = b.stencil("magnitude", {"gx", "gy"}, [](Value gx, Value gy) { return sqrt(gx * gx + gy * gy); });
  Stencil thin = b.stencil("thin", {"gx", "gy", "mag"}, [](Value gx, Value gy, Value mag) {
    Value ax = fabs(gx).named("ax");
    Value ay = fabs(gy).named("ay");
    Value a = select(ay <= 0.41421f * ax, mag.at(0, -1),
                     select(ax <= 0.41421f * ay, mag.at(-1, 0), select(gx * gy > 0, mag.at(-1, -1), mag.at(-1, 1))))
                  .named("a");
    Value bb = select(ay <= 0.41421f * ax, mag.at(0, 1),
                      select(ax <= 0.41421f * ay, mag.at(1, 0), select(gx * gy > 0, mag.at(1, 1), mag.at(1, -1))))
                   .named("b");
    return select(mag > a, select(mag >= bb, mag, 0.0f), 0.0f);
  });
  Stencil classify = b.stencil("classify", {"E", "low", "high"}, [](Value E, Value lo, Value hi) {
    return cast(Type::Int8, select(E >= hi, 255, select(E >= lo, 128, 0)));
  });
  Value smooth = gauss5(img.mirror()).named("smooth");
  Value gx = sobelx(smooth.mirror()).named("gx");
  Value gy = sobely(smooth.mirror()).named("gy");
  Value mag = magnitude(gx, gy).named("mag");
  Value edges = thin(gx, gy, mag.mirror()).named("edges");
  b.outputs({classify(edges, low, high)});
  std::string path = kSource + "/examples/canny/canny.idsl";
  expectSameAsText(b, readFile(path), {pixels(Type::Float, {31, 47}, 3)}, {{"low", 0.1}, {"high", 0.3}}, path,
                   true);
}

TEST(Builder, NormalizeEqualsTheExample) {
  Builder b;
  Value img = b.input("img", Type::Int8, 2);
  Stencil stretch = b.stencil("stretch", {"X", {"lo", Type::Double}, {"hi", Type::Double}},
                              [](Value X, Value lo, Value hi) {
    Value scale = (255.0 * select(hi > lo, 1.0 / (hi - lo), 0.0)).named("scale");
    Value a = cast(Type::Float, scale).named("a");
    Value bb = cast(Type::Float, 0.0 - lo * scale).named("b");
    Value f = cast(Type::Float, X * cast(Type::Double, a) + cast(Type::Double, bb)).named("f");
    Value t = floor(f).named("t");
    Value d = (f - t).named("d");
    Value i = cast(Type::Int, t).named("i");
    Value r = (i + select(d > 0.5f, 1, select(d < 0.5f, 0, select(i % 2 != 0, 1, 0)))).named("r");
    return cast(Type::Int8, select(r < 0, 0, select(r > 255, 255, r)));
  });
  Value lo = min(img).named("lo");
  Value hi = max(img).named("hi");
  Value out = stretch(img, lo, hi).named("out");
  b.outputs({out, lo, hi});
  std::string path = kSource + "/examples/normalize/normalize.idsl";
  expectSameAsText(b, readFile(path), {pixels(Type::Int8, {23, 19}, 4)}, {}, path);
}

TEST(Builder, SatBoxFilterEqualsTheExample) {
  Builder b;
  Value img = b.input("img", Type::Int8, 2);
  Stencil one = b.stencil("one", [](Value) { return 1; });
  Stencil box = b.stencil("box", {"I", "Inside"}, [](Value I, Value Inside) {
    Value up = Inside.at(-4, 0).named("up");
    Value left = Inside.at(0, -4).named("left");
    Value s = (I.at(3, 3) - up * I.at(-4, 3) - left * I.at(3, -4) + up * left * I.at(-4, -4)).named("s");
    return s / 49.0;
  });
  Value I = sat(img, Type::Double).named("I");
  Value inside = one(img).named("inside");
  Value out = box(I.clamped(), inside.constant(0)).named("out");
  b.outputs({out});
  std::string path = kSource + "/examples/boxfilter/boxfilter.idsl";
  expectSameAsText(b, readFile(path), {pixels(Type::Int8, {33, 21}, 5)}, {}, path);
}

TEST(Builder, HistogramAndScanEqualTheText) {
  Builder b;
  Value img = b.input("img", Type::Int8, 2);
  Value h = histogram(img, 256, 0, 256).named("h");
  Value cdf = scan(h, 0).named("cdf");
  Value rows = sum(img, 1).named("rows");
  b.outputs({h, cdf, rows, count(img)});
  expectSameAsText(b,
                   "parameter M, N;\nvector#2 int8 img[M,N];\nh = histogram(img, 256, 0, 256);\n"
                   "cdf = scan(h, 0);\nrows = sum(img, 1);\ncount1 = count(img);\nreturn h, cdf, rows, count1;\n",
                   {pixels(Type::Int8, {17, 40}, 6)}, {});
}

TEST(Builder, DoLoopEqualsTheText) {
  Builder b;
  Value img = b.input("img", Type::Float, 2);
  Stencil seed = b.stencil("seed", [](Value X) { return select(X > 0.8f, 1, 0); });
  Stencil grow = b.stencil("grow", {"E", "X"}, [](Value E, Value X) {
    return select(E > 0, 1, select((E.at(-1, 0) + E.at(1, 0) + E.at(0, -1) + E.at(0, 1)) > 0 && X > 0.5f, 1, 0));
  });
  Stencil differs = b.stencil("differs", {"A", "B"}, [](Value A, Value B) { return A != B; });
  Value e0 = seed(img).named("e");
  std::vector<Value> e = b.loop("R", {e0}, [&](const std::vector<Value>& prev) {
    Value next = grow(prev[0].constant(0), img);
    Value c = differs(next, prev[0]).named("c");
    return Round{{next}, any(c)};
  });
  b.outputs({e[0]});
  const char* text = R"(
stencil seed(vector#2 float X) { return (X > 0.8f ? 1 : 0); }
stencil grow(vector#2 int E, vector#2 float X) {
  return (E > 0 ? 1 : ((E@[-1,0] + E@[1,0] + E@[0,-1] + E@[0,1]) > 0 && X > 0.5f ? 1 : 0));
}
stencil differs(vector#2 int A, vector#2 int B) { return A != B; }
parameter M, N, R;
vector#2 float img[M,N];
e<0> = seed(img);
do i = 1..R
  e<i> = grow(e<i-1>:constant(0), img);
  c = differs(e<i>, e<i-1>);
while (any(c));
return e<i>;
)";
  expectSameAsText(b, text, {pixels(Type::Float, {29, 31}, 7)}, {{"R", 100}});
}

// Accelerator's way: arithmetic on images, no stencil written; each image
// expression becomes a stencil of its own, applied to what it reads.
TEST(Builder, ImageExpressionsBecomeStencils) {
  Builder b;
  Value img = b.input("img", Type::Float, 2);
  Value k = b.scalar("k", Type::Float);
  Value m = img.mirror();
  Value dx = ((m.at(0, 1) - m.at(0, -1)) * 0.5f).named("dx");
  Value out = sqrt(dx * dx + k) / max(img);
  b.outputs({out});
  const char* text = R"(
stencil expr1(vector#2 float img) { return (img@[0,1] - img@[0,-1]) * 0.5f; }
stencil expr2(vector#2 float dx, float k, float max1) { return sqrt(dx * dx + k) / max1; }
parameter M, N;
vector#2 float img[M,N];
float k;
dx = expr1(img:mirror);
max1 = max(img);
return expr2(dx, k, max1);
)";
  Buffer in = pixels(Type::Float, {13, 11}, 8);
  std::vector<Buffer> inputs{in};
  expectSameAsText(b, text, inputs, {{"k", 2.0}});
  // And the values themselves, at an interior point and a mirrored one.
  CompiledPipeline p = compile(b, options(Backend::Eval));
  auto outs = runOn(p, inputs, {{"k", 2.0}});
  auto at = [&](const Buffer& buf, long long i, long long j) {
    float v;
    std::memcpy(&v, &buf.bytes[static_cast<size_t>(i * 11 + j) * 4], 4);
    return v;
  };
  float mx = 0;
  for (long long i = 0; i < 13 * 11; ++i) mx = std::max(mx, at(in, i / 11, i % 11));
  auto expect = [&](long long i, long long j, long long left, long long right) {
    float d = (at(in, i, right) - at(in, i, left)) * 0.5f;
    float want = std::sqrt(d * d + 2.0f) / mx;
    float got;
    std::memcpy(&got, &outs[0][static_cast<size_t>(i * 11 + j) * 4], 4);
    EXPECT_EQ(got, want) << i << "," << j;
  };
  expect(5, 5, 4, 6);
  expect(3, 0, 1, 1);  // column -1 mirrors to 1
}

// Random pipelines made with the builder (image expressions, offset reads
// with every boundary condition, named and nested stages, stencils,
// reductions used as scalars, scans, casts): each must pass the language's
// checks, and the JIT must give the evaluator's bytes.
TEST(Builder, RandomPipelinesCompileAndAgree) {
  for (unsigned seed = 1; seed <= 16; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
    Builder b;
    std::vector<Value> images = {b.input("a", Type::Float, 2), b.input("c", Type::Int8, 2)};
    std::vector<Value> scalars = {b.scalar("k", Type::Float)};
    Stencil mix = b.stencil("mix", {"X", "Y"}, [](Value X, Value Y) { return X.at(1, 0) - Y.at(0, -1) * 0.5f; });
    auto view = [&](const Value& v) {
      switch (pick(6)) {
        case 0: return v.mirror();
        case 1: return v.clamped();
        case 2: return v.wrap();
        case 3: return v.constant(0);
        default: return v;
      }
    };
    auto offsetRead = [&](const Value& v) {
      int di = static_cast<int>(pick(5)) - 2, dj = static_cast<int>(pick(5)) - 2;
      return view(v).at(di, dj);
    };
    for (int step = 0; step < 7; ++step) {
      Value x = images[pick(images.size())], y = images[pick(images.size())];
      Value made;
      switch (pick(7)) {
        case 0: made = offsetRead(x) + offsetRead(y) * scalars[pick(scalars.size())]; break;
        case 1: made = select(offsetRead(x) > y, x - 1, max(y, 0.25f)); break;
        case 2: made = mix(view(x), view(y)); break;
        case 3: scalars.push_back(pick(2) ? sum(x) : max(x)); continue;
        case 4: made = sat(cast(Type::Float, x), Type::Float); break;
        case 5: made = cast(Type::Float, abs(x - y) / 3); break;
        default: made = sqrt(abs(offsetRead(x))) + floor(y * 2.5); break;
      }
      if (pick(2)) made = made.named("s" + std::to_string(step));
      images.push_back(made);
    }
    std::vector<Value> outs = {images.back(), images[images.size() - 2]};
    if (scalars.size() > 1) outs.push_back(scalars.back());
    b.outputs(outs);
    CompiledPipeline eval = compile(b, options(Backend::Eval));
    std::vector<Buffer> in;  // a and c, where an output reads them
    for (const ImageInfo& i : eval.inputImages())
      in.push_back(i.name == "a" ? pixels(Type::Float, {9, 14}, seed) : pixels(Type::Int8, {9, 14}, seed + 100));
    Values values;  // k, where an output reads it
    if (!eval.pipeline().scalars.empty()) values["k"] = 1.5;
    auto expected = runOn(eval, in, values);
    if (kJit) {
      CompiledPipeline jit = compile(b, options(Backend::Jit));
      EXPECT_EQ(runOn(jit, in, values), expected) << "seed " << seed << "\n" << dag(eval.pipeline());
    }
  }
}

}  // namespace
}  // namespace formac::test
