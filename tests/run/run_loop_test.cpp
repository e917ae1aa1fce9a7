// `do` loops (LANGUAGE.md §7, ir/Pipeline.h "A LoopResult stage") through the
// C++ API: the evaluator's results against values known by construction
// (rounds counted, a serpentine path filled end to end), and the generated C (JIT,
// fused and unfused) byte for byte against the evaluator.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "run/Pipeline.h"

namespace formac::test {
namespace {

const bool kJit = FORMAC_TEST_JIT;
const std::string kScratch = FORMAC_SCRATCH;

CompiledPipeline compileWith(const std::string& text, Backend backend, bool fuse = true) {
  CompileOptions o;
  o.backend = backend;
  o.fuse = fuse;
  o.sourcePath = "loop.idsl";
  o.cacheDir = kScratch + "/cache";
  return compile(text, o);
}

// Runs `text` on one int image (rows x cols) with `values`; returns its
// first output (an int image of the same extent) and, when the program
// returns a second, scalar, result, that value in *scalar.
std::vector<int> runInt(const std::string& text, Backend backend, bool fuse, const std::vector<int>& in, long long rows,
                        long long cols, const Values& values, long long* scalar = nullptr) {
  CompiledPipeline p = compileWith(text, backend, fuse);
  std::vector<int> out(in.size(), -7);
  long long count = -1;
  std::vector<ImageRef> outs = {ImageRef{out.data(), {rows, cols}}};
  if (p.outputImages().size() > 1) outs.push_back(ImageRef{&count, {}});
  p.run({ImageRef{const_cast<int*>(in.data()), {rows, cols}}}, values, outs);
  if (scalar) *scalar = count;
  return out;
}

// Every backend this build has, each against the evaluator.
void expectSameEverywhere(const std::string& text, const std::vector<int>& in, long long rows, long long cols,
                          const Values& values) {
  long long want = 0;
  std::vector<int> eval = runInt(text, Backend::Eval, true, in, rows, cols, values, &want);
  if (!kJit) return;
  for (bool fuse : {true, false}) {
    long long got = 0;
    std::vector<int> c = runInt(text, Backend::Jit, fuse, in, rows, cols, values, &got);
    EXPECT_EQ(c, eval) << (fuse ? "fused" : "unfused") << " C differs from the evaluator";
    EXPECT_EQ(got, want);
  }
}

// x<i> = x<i-1> + 1 while some point is below `limit`, at most N rounds.
const char* kCounter = R"(parameter M, N, R;
vector#2 int a[M,N];
int limit;
stencil inc(vector#2 int X) { return X + 1; }
stencil below(vector#2 int X, int L) { return X < L; }
x<0> = a;
do i = 1..R
  x<i> = inc(x<i-1>);
  c<i> = below(x<i>, limit);
while (any(c<i>));
n = sum(x<i>);
return x<i>, n;
)";

TEST(Loop, StopsWhenTheConditionIsZeroOrTheRoundsRunOut) {
  const long long rows = 5, cols = 7;
  std::vector<int> zeros(static_cast<size_t>(rows * cols), 0);
  struct Case {
    long long rounds;
    int limit, want;
  };
  // Until every point reaches the limit; the round cap; no round at all; a
  // condition false after the first round.
  for (Case c : {Case{100, 10, 10}, Case{3, 10, 3}, Case{0, 10, 0}, Case{-4, 10, 0}, Case{100, -5, 1}}) {
    Values v = {{"R", static_cast<double>(c.rounds)}, {"limit", static_cast<double>(c.limit)}};
    long long sum = 0;
    std::vector<int> out = runInt(kCounter, Backend::Eval, true, zeros, rows, cols, v, &sum);
    EXPECT_EQ(out, std::vector<int>(zeros.size(), c.want)) << "R = " << c.rounds << ", limit " << c.limit;
    EXPECT_EQ(sum, c.want * rows * cols);
    expectSameEverywhere(kCounter, zeros, rows, cols, v);
  }
}

// The rounds each loop ran, as CompiledPipeline::loopRounds (formac run
// --verbose) reports them: the evaluator's count, and NAME_loop_rounds of the
// generated C.
TEST(Loop, ReportsTheRoundsItRan) {
  const long long rows = 3, cols = 4;
  std::vector<int> zeros(static_cast<size_t>(rows * cols), 0), out(zeros.size());
  std::vector<Backend> backends = {Backend::Eval};
  if (kJit) backends.push_back(Backend::Jit);
  for (Backend b : backends) {
    CompiledPipeline p = compileWith(kCounter, b);
    EXPECT_TRUE(p.loopRounds().empty()) << "before any run";
    // Rounds until the limit, the cap, none, one (the condition false at once).
    for (auto [R, limit, want] : {std::tuple<long long, int, long long>{100, 10, 10}, {3, 10, 3}, {0, 10, 0},
                                  {100, -5, 1}}) {
      long long sum = 0;
      p.run({ImageRef{zeros.data(), {rows, cols}}}, {{"R", double(R)}, {"limit", double(limit)}},
            {ImageRef{out.data(), {rows, cols}}, ImageRef{&sum, {}}});
      EXPECT_EQ(p.loopRounds(), std::vector<long long>{want}) << backendName(b) << ": R " << R << ", limit " << limit;
    }
  }
}

// Region growing along a path: every step is one more round.
const char* kGrow = R"(parameter M, N, R;
vector#2 int path[M,N];
stencil seed(vector#2 int P) { return P == 2; }
stencil grow(vector#2 int E, vector#2 int P) {
  return E == 1 || (P != 0 && (E@[-1,0] == 1 || E@[1,0] == 1 || E@[0,-1] == 1 || E@[0,1] == 1)) ? 1 : 0;
}
stencil differs(vector#2 int A, vector#2 int B) { return A != B; }
e<0> = seed(path);
do i = 1..R
  e<i> = grow(e<i-1>:constant(0), path);
  c<i> = differs(e<i>, e<i-1>);
while (any(c<i>));
n = count(e<i>);
return e<i>, n;
)";

// A serpentine path of 1s walled by 0s, its start 2 (the seed): the even
// rows full, each odd row open at one end, alternately the right and the
// left, so the fill crosses the image left to right and back on its way
// down, one point a round. Returns its length.
long long serpentine(std::vector<int>& img, long long n) {
  img.assign(static_cast<size_t>(n * n), 0);
  long long length = 0;
  for (long long r = 0; r < n; ++r)
    for (long long c = 0; c < n; ++c) {
      bool open = r % 2 == 0 || c == (r % 4 == 1 ? n - 1 : 0);
      if (open) img[static_cast<size_t>(r * n + c)] = 1, ++length;
    }
  img[0] = 2;
  return length;
}

TEST(Loop, PropagationCrossesTheWholeImage) {
  for (long long n : {9LL, 31LL}) {
    std::vector<int> path;
    long long length = serpentine(path, n);
    long long count = 0;
    Values v = {{"R", 1e6}};
    std::vector<int> out = runInt(kGrow, Backend::Eval, true, path, n, n, v, &count);
    EXPECT_EQ(count, length) << n << "x" << n << ": every point of the path is reached";
    for (size_t k = 0; k < path.size(); ++k) ASSERT_EQ(out[k], path[k] != 0 ? 1 : 0) << "point " << k;
    expectSameEverywhere(kGrow, path, n, n, v);
    // Stopped early, the fill has gone exactly R steps along the spiral.
    Values few = {{"R", 5}};
    runInt(kGrow, Backend::Eval, true, path, n, n, few, &count);
    EXPECT_EQ(count, std::min(length, 6LL));
    expectSameEverywhere(kGrow, path, n, n, few);
  }
}

// Two carried images, an outer image and an outer reduction read in the
// body, a literal bound and a floating condition.
const char* kTwo = R"(parameter M, N;
vector#2 int a[M,N];
stencil half(vector#2 int X) { return X / 2; }
stencil plus(vector#2 int X, vector#2 int Y, int m) { return X + Y + m; }
stencil nonzero(vector#2 int X) { return X != 0 ? 1.5 : 0.0; }
m = max(a);
h<0> = a;
s<0> = a;
do k = 1..40
  h<k> = half(h<k-1>);
  s<k> = plus(s<k-1>, h<k>, m);
  z<k> = nonzero(h<k>);
while (sum(z<k>));
return s<k>;
)";

TEST(Loop, CarriesSeveralImagesAndReadsOuterOnes) {
  const long long rows = 3, cols = 4;
  std::vector<int> in = {0, 1, 2, 3, 100, 1000, 7, 9, 12345, 65536, 5, 6};
  // Halving 65536 reaches 0 after 17 rounds; each round adds h and max(a).
  std::vector<int> want(in.size());
  for (size_t p = 0; p < in.size(); ++p) {
    int h = in[p], s = in[p];
    for (int round = 0; round < 17; ++round) {
      h /= 2;
      s += h + 65536;
    }
    want[p] = s;
  }
  EXPECT_EQ(runInt(kTwo, Backend::Eval, true, in, rows, cols, {}), want);
  expectSameEverywhere(kTwo, in, rows, cols, {});
}

}  // namespace
}  // namespace formac::test
