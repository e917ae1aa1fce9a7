// e2e_c_test: the C backend agrees with the reference evaluator bit for bit.
//
// Suites:
//   Matrix/MatrixCBackend.*  programs generated from templates (ProgramMatrix.cpp)
//   Compat/CompatCBackend.*  every tests/compat/*.idsl
//   Scans/ScanCBackend.*     scans and summed-area tables (Scans.cpp), and
//                            ScanSpecialValues/*; CBackendUnfused runs them too,
//                            CBackendThreads the sats on 1 and 3 threads
//   Loops/LoopCBackend.*     do loops (Loops.cpp); CBackendUnfused.Loops, and
//                            LoopRounds checks the evaluator's round counts
//   CBackendFpContraction.*  -O3 -march=native -ffp-contract=fast still matches,
//                            and does not without the generated pragma (control)
//   CBackendUnfused.*        the same with --no-fuse (multi-stage programs)
//   CBackendNoOpenMP.*       the same with --disable-openmp, built without -fopenmp
//   CBackendSanitized.*      index-heavy programs and two loop programs under ASan + UBSan
//   CBackendRegression.*     the bugs this test found
// A parameterized suite builds all its selected programs at once (in parallel
// batches) in SetUpTestSuite; each test then reports its own program.
// FORMAC_E2E_KEEP=1 keeps the generated files; FORMAC_E2E_CC picks the compiler,
// FORMAC_E2E_CFLAGS adds flags; CBackendAdHoc runs one program given by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "CRunner.h"
#include "Loops.h"
#include "ProgramMatrix.h"
#include "Scans.h"

namespace formac::e2e {

void PrintTo(const ProgramCase& c, std::ostream* os) { *os << c.name; }

namespace {

std::map<std::string, CaseOutcome>& outcomes() {
  static std::map<std::string, CaseOutcome> m;
  return m;
}

// Runs the cases of the current test suite that the filter selects.
void runSelected(const std::vector<ProgramCase>& all, const RunnerOptions& o) {
  const ::testing::TestSuite* suite = ::testing::UnitTest::GetInstance()->current_test_suite();
  std::map<std::string, bool> wanted;
  for (int i = 0; suite && i < suite->total_test_count(); ++i) {
    const ::testing::TestInfo* t = suite->GetTestInfo(i);
    std::string name = t->name();
    if (t->should_run()) wanted[name.substr(name.find('/') + 1)] = true;
  }
  std::vector<ProgramCase> cases;
  for (const auto& c : all)
    if (wanted.count(c.name)) cases.push_back(c);
  auto start = std::chrono::steady_clock::now();
  std::vector<CaseOutcome> results = runCases(cases, o);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int compared = 0, skipped = 0, passed = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    outcomes()[cases[i].name] = results[i];
    compared += results[i].runsCompared;
    skipped += results[i].runsSkipped;
    passed += results[i].passed;
  }
  std::cout << "[ e2e      ] " << cases.size() << " programs (" << passed << " pass), " << compared
            << " runs compared, " << skipped << " skipped (negative extents), " << seconds << " s\n";
}

void expectMatches(const ProgramCase& c) {
  auto it = outcomes().find(c.name);
  ASSERT_NE(it, outcomes().end()) << "not run";
  EXPECT_TRUE(it->second.passed) << it->second.message
                                 << "\n(FORMAC_E2E_KEEP=1 keeps the generated files)";
  if (it->second.passed) {
    EXPECT_GT(it->second.runsCompared, 0) << "no run compared";
  }
}

std::string caseName(const ::testing::TestParamInfo<ProgramCase>& info) { return info.param.name; }

// tests/compat, or FORMAC_E2E_COMPAT_DIR when the test runs away from its source tree.
std::string compatDir() {
  const char* dir = getenv("FORMAC_E2E_COMPAT_DIR");
  return dir ? dir : FORMAC_COMPAT_DIR;
}

class CBackend : public ::testing::TestWithParam<ProgramCase> {};

class MatrixCBackend : public CBackend {
 public:
  static void SetUpTestSuite() { runSelected(matrixCases(), defaultRunnerOptions()); }
};
TEST_P(MatrixCBackend, MatchesEvaluator) { expectMatches(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Matrix, MatrixCBackend, ::testing::ValuesIn(matrixCases()), caseName);

class SpecialValuesCBackend : public CBackend {
 public:
  static void SetUpTestSuite() { runSelected(specialValueCases(), defaultRunnerOptions()); }
};
TEST_P(SpecialValuesCBackend, MatchesEvaluator) { expectMatches(GetParam()); }
INSTANTIATE_TEST_SUITE_P(SpecialValues, SpecialValuesCBackend, ::testing::ValuesIn(specialValueCases()), caseName);

class CompatCBackend : public CBackend {
 public:
  static void SetUpTestSuite() { runSelected(compatCases(compatDir()), defaultRunnerOptions()); }
};
TEST_P(CompatCBackend, MatchesEvaluator) { expectMatches(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Compat, CompatCBackend, ::testing::ValuesIn(compatCases(compatDir())),
                         caseName);

class ScanCBackend : public CBackend {
 public:
  static void SetUpTestSuite() { runSelected(scanCases(), defaultRunnerOptions()); }
};
TEST_P(ScanCBackend, MatchesEvaluator) { expectMatches(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Scans, ScanCBackend, ::testing::ValuesIn(scanCases()), caseName);

class ScanSpecialValuesCBackend : public CBackend {
 public:
  static void SetUpTestSuite() { runSelected(scanSpecialValueCases(), defaultRunnerOptions()); }
};
TEST_P(ScanSpecialValuesCBackend, MatchesEvaluator) { expectMatches(GetParam()); }
INSTANTIATE_TEST_SUITE_P(ScanSpecialValues, ScanSpecialValuesCBackend, ::testing::ValuesIn(scanSpecialValueCases()),
                         caseName);

class LoopCBackend : public CBackend {
 public:
  static void SetUpTestSuite() { runSelected(loopCases(), defaultRunnerOptions()); }
};
TEST_P(LoopCBackend, MatchesEvaluator) { expectMatches(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Loops, LoopCBackend, ::testing::ValuesIn(loopCases()), caseName);

// The rounds the evaluator runs, known by construction (Loops.h): the
// C suites compare against it, so it has to be right.
TEST(LoopRounds, EvaluatorCountsTheRounds) {
  std::vector<ProgramCase> cases = loopCases();
  for (const LoopRounds& want : loopRounds()) {
    auto c = std::find_if(cases.begin(), cases.end(), [&](const ProgramCase& p) { return p.name == want.name; });
    ASSERT_NE(c, cases.end()) << want.name;
    PreparedProgram p;
    ASSERT_EQ(prepareProgram(*c, "k", p), "") << want.name;
    ASSERT_EQ(p.runs.size(), want.rounds.size()) << want.name;
    for (size_t r = 0; r < p.runs.size(); ++r) {
      if (want.rounds[r] < 0) continue;
      const eval::Buffer& counter = p.runs[r].expected.at(0);
      ASSERT_GT(counter.elementCount(), 0u) << want.name << " run " << r;
      std::vector<int> values(counter.elementCount());
      std::memcpy(values.data(), counter.bytes.data(), values.size() * sizeof(int));
      EXPECT_EQ(values, std::vector<int>(values.size(), static_cast<int>(want.rounds[r])))
          << want.name << " run " << r << ": every point holds the rounds run";
    }
  }
}

// ------------------------------------------------------------ fp contraction
const char* kNativeFlags =
    "-std=c99 -O3 -march=native -ffp-contract=fast -fopenmp -DFORMAC_PARALLEL_POINTS=0 -Wall -Wextra -Werror";

bool machineHasFma() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("fma");
#elif defined(__aarch64__)
  return true;
#else
  return false;
#endif
}

TEST(CBackendFpContraction, NativeO3MatchesEvaluator) {
  RunnerOptions o = defaultRunnerOptions();
  o.cflags = kNativeFlags;
  std::vector<ProgramCase> cases = contractionCases();
  for (const auto& c : matrixCases())
    if (c.name.rfind("types_", 0) == 0 && c.name.find("double") != std::string::npos)
      cases.push_back(c);
  std::vector<CaseOutcome> out = runCases(cases, o);
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_TRUE(out[i].passed) << cases[i].name << ": " << out[i].message;
}

TEST(CBackendFpContraction, ControlWithoutPragmaDiffers) {
  if (!machineHasFma()) GTEST_SKIP() << "no fused multiply-add on this machine";
  RunnerOptions o = defaultRunnerOptions();
  o.cflags = kNativeFlags;
  o.stripContractPragma = true;
  std::vector<ProgramCase> cases = contractionCases();
  std::vector<CaseOutcome> out = runCases(cases, o);
  int differ = 0;
  for (const auto& r : out) differ += !r.passed && r.message.find("mismatch") != std::string::npos;
  EXPECT_GT(differ, 0) << "with the fp-contract pragma removed and -ffp-contract=fast the results "
                          "still match, so NativeO3MatchesEvaluator proves nothing";
}

// ------------------------------------------------------------ other code paths
// Programs with chains of stages, where fused and unfused code differ.
bool multiStage(const ProgramCase& c) {
  for (const char* stem : {"types_chain_", "large_", "fused_", "for_loop", "vector_function", "crop_"})
    if (c.name.rfind(stem, 0) == 0) return true;
  return false;
}

// --no-fuse: one loop nest per stage; fused and unfused code must agree.
TEST(CBackendUnfused, MatchesEvaluator) {
  RunnerOptions o = defaultRunnerOptions();
  o.fuse = false;
  std::vector<ProgramCase> cases = compatCases(compatDir());
  for (const auto& c : matrixCases())
    if (multiStage(c)) cases.push_back(c);
  for (const auto& c : scanCases())  // those with a stage before or after the scan
    for (const char* stem : {"scan_wrap", "scan_box_", "scan_fused_", "scan_chain_"})
      if (c.name.rfind(stem, 0) == 0) cases.push_back(c);
  std::vector<CaseOutcome> out = runCases(cases, o);
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_TRUE(out[i].passed) << cases[i].name << ": " << out[i].message;
}

// The sats of every result type, of fused and rank-3 inputs, and across the
// CUDA tiles' sizes, on 1 and 3 threads (the suites above run OpenMP's
// default): a sat's sweep cuts its image into bands by the thread count (rows
// for integers, aligned groups of columns for floating ones); the values must
// not change.
TEST(CBackendThreads, SatsOnOtherThreadCounts) {
  std::vector<ProgramCase> cases, all = scanCases();
  for (const auto& c : scanTileCases()) all.push_back(c);
  for (const auto& c : all)
    for (const char* stem : {"scan_types_", "scan_box_", "scan_fused_", "scan_chain_", "scantile_tiles_",
                             "scantile_r3_", "scantile_r2_float", "scantile_r2_int8"})
      if (c.name.rfind(stem, 0) == 0) cases.push_back(c);
  for (const char* threads : {"1", "3"}) {
    RunnerOptions o = defaultRunnerOptions();
    o.threads = threads;
    std::vector<CaseOutcome> out = runCases(cases, o);
    for (size_t i = 0; i < cases.size(); ++i)
      EXPECT_TRUE(out[i].passed) << cases[i].name << " on " << threads << " threads: " << out[i].message;
  }
}

TEST(CBackendUnfused, Loops) {
  RunnerOptions o = defaultRunnerOptions();
  o.fuse = false;
  std::vector<ProgramCase> cases = loopCases();
  std::vector<CaseOutcome> out = runCases(cases, o);
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_TRUE(out[i].passed) << cases[i].name << ": " << out[i].message;
}

// --disable-openmp, built without -fopenmp: still warning-free and the same.
TEST(CBackendNoOpenMP, MatchesEvaluator) {
  RunnerOptions o = defaultRunnerOptions();
  o.openmp = false;
  size_t at = o.cflags.find(" -fopenmp");
  if (at != std::string::npos) o.cflags.erase(at, 9);
  std::vector<ProgramCase> cases = compatCases(compatDir());
  for (const auto& c : matrixCases())
    if (c.name.rfind("fused_", 0) == 0) cases.push_back(c);
  std::vector<CaseOutcome> out = runCases(cases, o);
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_TRUE(out[i].passed) << cases[i].name << ": " << out[i].message;
}

// ------------------------------------------------------------ sanitizers
// Index arithmetic under AddressSanitizer and UBSan: an out-of-range read
// that happens to match the evaluator's value is still caught.
TEST(CBackendSanitized, IndexArithmetic) {
  RunnerOptions o = defaultRunnerOptions();
  const std::string flags = "-fsanitize=address,undefined -fno-sanitize-recover=all";
  if (!compilerAccepts(o, flags)) GTEST_SKIP() << o.cc << " cannot build with " << flags;
  o.cflags += " " + flags;
  std::vector<ProgramCase> cases;
  for (const auto& c : matrixCases()) {
    bool indexHeavy = false;
    for (const char* stem : {"crop_", "sample_", "scatter", "place_", "compose_", "index_reads",
                             "downsample_", "wide_offsets", "rank1_constructs", "rank3_constructs",
                             "size_expressions", "struct_padding", "types_stencil_s3_", "wide_"})
      indexHeavy = indexHeavy || c.name.rfind(stem, 0) == 0;
    bool isInt8 = c.name.size() > 5 && c.name.compare(c.name.size() - 5, 5, "_int8") == 0;
    if (indexHeavy && !isInt8) cases.push_back(c);
  }
  for (const auto& c : loopCases())  // carried buffers of several types and extents
    if (c.name == "loop_carried" || c.name == "loop_rank1") cases.push_back(c);
  std::vector<CaseOutcome> out = runCases(cases, o);
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_TRUE(out[i].passed) << cases[i].name << ": " << out[i].message;
}

// ------------------------------------------------------------ one program by hand
// FORMAC_E2E_PROGRAM=file.idsl FORMAC_E2E_SIZES="129x513,13x17" runs that
// program against the evaluator (for reducing a failure), fused and with
// --no-fuse; skipped otherwise. tools/progfuzz drives it with random programs.
// FORMAC_E2E_SPECIAL=1: inputs with special values (NaN, infinities, -0,
// subnormals, extremes; Values.h), as the matrix's *_special programs.
void runProgramFromEnvironment(bool fuse) {
  const char* file = getenv("FORMAC_E2E_PROGRAM");
  if (!file) GTEST_SKIP() << "FORMAC_E2E_PROGRAM is not set";
  std::ifstream in(file, std::ios::binary);
  ASSERT_TRUE(in) << "cannot read " << file;
  std::ostringstream text;
  text << in.rdbuf();
  const char* sizes = getenv("FORMAC_E2E_SIZES");
  ProgramCase c{"adhoc", text.str(), parseRuns(sizes ? sizes : "")};
  c.specialValues = getenv("FORMAC_E2E_SPECIAL") != nullptr;
  c.path = file;  // its imports resolve beside it
  RunnerOptions o = defaultRunnerOptions();
  o.fuse = fuse;
  std::vector<CaseOutcome> out = runCases({c}, o);
  EXPECT_TRUE(out[0].passed) << out[0].message;
}

TEST(CBackendAdHoc, ProgramFromEnvironment) { runProgramFromEnvironment(true); }
TEST(CBackendAdHoc, ProgramFromEnvironmentUnfused) { runProgramFromEnvironment(false); }

// ------------------------------------------------------------ regressions
// One program each, built alone (kernel `k`), at the sizes that showed the bug.
void expectSingleMatches(const std::string& name, const std::string& source,
                         std::vector<std::vector<long long>> runs) {
  ProgramCase c{name, source, std::move(runs)};
  std::vector<CaseOutcome> out = runCases({c}, defaultRunnerOptions());
  ASSERT_TRUE(out[0].passed) << out[0].message;
  EXPECT_GT(out[0].runsCompared, 0);
}

// The evaluator crashed: a whole-struct read outside with constant(c) gave a
// scalar, not a struct of c's.
TEST(CBackendRegression, StructReadWithConstantMode) {
  expectSingleMatches("struct_constant", R"(struct s3 { float a; int16 b; int8 c; }
stencil g(vector#2 s3 X) { return X@[1,-1]; }
parameter M, N;
vector#2 s3 img[M,N];
return g(img:constant(2));
)", {{3, 4}, {1, 1}});
}

// The C code read past the image for a sub-domain beyond it (rows 2..5 of a
// 1-row image); Pipeline.h says such reads give 0.
TEST(CBackendRegression, CropBeyondImageReadsZero) {
  expectSingleMatches("crop_beyond", R"(stencil f(vector#2 float V) { return V + V@[0,1]; }
parameter M, N;
vector#2 float img[M,N];
res = f(img[2..5, 1..]);
return res;
)", {{1, 7}, {3, 4}, {8, 9}});
}

// formac looped forever naming an image that starts with the kernel's name,
// or one whose numbered alternatives do (`k` for kernel k: k_2; `v`: v_2).
TEST(CBackendRegression, ImageNamedWithTheKernelPrefix) {
  expectSingleMatches("kernel_prefix", R"(stencil f(vector#2 float X) { return X@[1,0]; }
parameter M, N;
vector#2 float k_stage1_out[M,N];
vector#2 float k[M,N];
vector#2 float v[M,N];
FORMAC_k_H = f(k_stage1_out);
k_workspace = f(FORMAC_k_H:mirror);
tile = f(k:wrap);
return k_workspace, f(v), tile;
)", {{3, 4}});
}

// Names the loop nest declares (q0, lo0, hi1, fast_lo0, border_end) given to
// images and parameters: shadowed buffers, or sizes read from loop indices.
TEST(CBackendRegression, NamesOfLoopVariables) {
  expectSingleMatches("loop_names", R"(stencil f(vector#2 float X) { return X@[-1,0] + X@[0,1]; }
parameter q1, lo0;
vector#2 float hi0[q1,lo0];
vector#2 float q0[q1,lo0];
fast_lo0 = f(hi0:mirror);
border_end = f(q0);
return f(fast_lo0:wrap), border_end;
)", {{5, 7}, {13, 17}});
}

// Library names (stderr, fprintf, NULL, expf) and the FORMAC_ macros as
// image names.
TEST(CBackendRegression, NamesOfLibraryIdentifiers) {
  expectSingleMatches("library_names", R"(stencil f(vector#2 float X) { return exp(X@[-1,0]) + X@[0,1]; }
parameter M, N;
vector#2 float stderr[M,N];
vector#2 float fprintf[M,N];
vector#2 float expf[M,N];
NULL = f(stderr:mirror);
FORMAC_HELPER = f(fprintf);
return f(expf), NULL, FORMAC_HELPER;
)", {{5, 7}});
}

// A source local `t_1` and the reassigned `t` (also t_1) became one C name;
// an image v_t met the local prefix.
TEST(CBackendRegression, LocalNamedLikeAReassignment) {
  expectSingleMatches("local_names", R"(stencil f(vector#2 float X) {
  t = X;
  t_1 = X * 2;
  t = t + t_1;
  v_t = 3;
  return t + v_t;
}
parameter M, N;
vector#2 float v_t[M,N];
return f(v_t);
)", {{5, 7}});
}

// Signed overflow wraps in the evaluator (Evaluator.h); gcc folded
// X + INT_MAX > X to 1 until the generated code asked for -fwrapv.
TEST(CBackendRegression, SignedOverflowWraps) {
  expectSingleMatches("overflow", R"(stencil f(vector#2 int X) {
  return (X + 2147483647 > X ? 1 : 0) + (X * 65536 * 65536 == 0 ? 2 : 0);
}
parameter M, N;
vector#2 int img[M,N];
return f(img);
)", {{13, 17}});
}

// Inputs named like the entry point's output parameters.
TEST(CBackendRegression, InputsNamedLikeOutputs) {
  expectSingleMatches("output_names", R"(stencil f(vector#2 float X) { return X@[0,1] * 2; }
parameter M, N;
vector#2 float output1[M,N];
vector#2 float output0[M,N];
vector#2 float output[M,N];
return f(output1), f(output0:wrap), output;
)", {{5, 7}});
}

// ------------------------------------------------------------ found by tools/progfuzz
// Random programs against the evaluator (tools/progfuzz/README.md); each
// case here is a reduced failure, run fused and with --no-fuse.
void expectBothMatch(const std::string& name, const std::string& source,
                     std::vector<std::vector<long long>> runs) {
  for (bool fuse : {true, false}) {
    ProgramCase c{name + (fuse ? "" : "_unfused"), source, runs};
    RunnerOptions o = defaultRunnerOptions();
    o.fuse = fuse;
    std::vector<CaseOutcome> out = runCases({c}, o);
    ASSERT_TRUE(out[0].passed) << (fuse ? "fused: " : "--no-fuse: ") << out[0].message;
    EXPECT_GT(out[0].runsCompared, 0);
  }
}

// Stencil locals that the result never reads became unused C variables
// (-Werror=unused-variable); once sema drops them, a stencil may read none of
// its images and still have a shrunk valid box: g below is 1 only where
// its dropped reads would be inside, and the fused code must not inline it
// as a constant 1 everywhere; a fused sink that reads nothing through row
// pointers left its first-column local unused.
TEST(CBackendRegression, UnusedLocalsAndReadlessStencils) {
  expectBothMatch("unused_locals", R"(stencil f(vector#2 float X) { t = X@[0,1] * 2; u = t + X; return X@[1,0]; }
stencil g(vector#2 int8 B, vector#2 float Q) { t0 = Q@[-3,(-1,2)] + B@[-1,(1,2)]; return 1; }
stencil h(vector#2 double B) { return B@[0,0]; }
stencil k3(vector#2 int Z) { return Z@[0,1] * 3; }
parameter M, N;
vector#2 float in0[M,N];
vector#2 int8 in1[M,N];
a = f(in0);
s1 = h(g(in1, in0));
return s1, k3(g(in1, a)), a;
)", {{1, 1}, {2, 3}, {5, 7}, {37, 131}});
}

// Conditions and comparisons the way Forma writes them made gcc warn
// (-Wint-in-bool-context, -Wbool-compare, -Wtype-limits): the generated C
// did not compile with -Werror.
TEST(CBackendRegression, ConditionsOfAnyType) {
  expectBothMatch("conditions", R"(stencil f(vector#2 int X, vector#2 float Y, vector#2 int8 B) {
  a = (X * X@[0,1] ? 1 : 2) + !(X * 3) + ((X > 0 ? 1 : 2) ? 4 : 5);
  b = ((X@[1,0] || X) <= 2) + ((X < 3) == 2) + (Y * 2 && X % 3) + (B <= 255) + (B@[0,1] >= 0);
  return a + b;
}
parameter M, N;
vector#2 int x[M,N];
vector#2 float y[M,N];
vector#2 int8 b[M,N];
return f(x:mirror, y, b:wrap);
)", {{1, 1}, {2, 3}, {37, 131}});
}

// Floating -> integer conversions outside the target type are undefined in
// C: gcc folded cast<int8>(-2.0) to 0 (x86 and the evaluator: 254). A
// fractional constant(3.75) on an int8 image (per field of a struct) is 3; a
// negative one does not fit int8, an error (tests/errors).
TEST(CBackendRegression, FloatingToIntegerConversions) {
  expectBothMatch("float_to_int", R"(struct s3 { float a; int16 b; int8 c; }
stencil f(vector#2 float X, vector#2 int8 B, int8 k, double d) {
  return cast<int8>(-2.0) + cast<int16>(-70000.5) + cast<int>(1e30) + cast<int8>(X * 1000) + k + cast<int16>(d) + B@[-2,1];
}
stencil g(vector#2 s3 S) { return S@[0,-1]; }
parameter M, N;
vector#2 float img[M,N];
vector#2 int8 b[M,N];
vector#2 s3 s[M,N];
return f(img, b:constant(3.75), -0.25, 1e10), g(s:constant(3.75));
)", {{1, 1}, {2, 3}, {37, 131}});
}

// Constant subexpressions are folded by formac as the evaluator computes
// them: gcc warned about 2147483647 + 1000 (-Werror=overflow), and INT_MIN
// (cast<int>(1e30)) must be printed as an int.
TEST(CBackendRegression, ConstantArithmetic) {
  expectBothMatch("constant_arithmetic", R"(stencil f(vector#2 int X, double n) {
  a = 2147483647 + 1000 + X;
  b = (n / n) + -(n / n) * 0;
  c = cast<int>(1e30) + X - (65536 * 65536);
  return a + c + cast<int>(b > 0) + (b != b);
}
parameter M, N;
vector#2 int img[M,N];
return f(img, 0);
)", {{1, 1}, {5, 7}, {37, 131}});
}

// gcc 12 folds 0.0f - (float)i and -(float)i + 0.0f to -(float)i, even at
// -O0: -0 for i == 0, where IEEE and the evaluator give +0.
TEST(CBackendRegression, AddingZeroKeepsItsSign) {
  expectBothMatch("signed_zero", R"(stencil f1(vector#2 int X) { return 0.0f - X; }
stencil f2(vector#2 int8 B) { return -B + 0.0; }
stencil f3(vector#2 int X, float n) { return (n - n) - X@[0,1]; }
parameter M, N;
vector#2 int x[M,N];
vector#2 int8 b[M,N];
return f1(x), f2(b), f3(x, -0.25);
)", {{1, 1}, {5, 7}, {37, 131}});
}

// A directly indexed image does not count for the extent, so it may be empty
// where the stage is not: with a boundary mode the C code divided by its
// extent (SIGFPE) or read before it; the read gives 0.
TEST(CBackendRegression, IndexReadOfAnEmptyImage) {
  expectBothMatch("empty_index_read", R"(stencil f(vector#2 float X, vector#2 float W, vector#2 int8 L) {
  return W[cast<int>(X * 3), -1] + L[2, cast<int>(X)] + X@[0,1];
}
stencil dn(vector#2 float X) { return X@[(1,3),(0,2)]; }
parameter M, N;
vector#2 float img[M,N];
vector#2 int8 lut[M,N];
small = dn(img);
return f(img, small:wrap, lut@[(0,4),(1,1)]:mirror), f(img:clamped, small:clamped, lut[5..4, ..]:wrap);
)", {{1, 1}, {2, 3}, {3, 1}, {5, 7}, {37, 131}});
}

// `source` built with clang (-Wall -Wextra -Werror) and run fused and
// --no-fuse against the evaluator; skipped where clang cannot build OpenMP.
void expectBothPassUnderClang(const std::string& name, const char* source,
                              const std::vector<std::vector<long long>>& runs) {
  RunnerOptions probe = defaultRunnerOptions();
  probe.cc = "clang";
  if (!compilerAccepts(probe, "")) GTEST_SKIP() << "no clang with OpenMP here";
  for (bool fuse : {true, false}) {
    ProgramCase c{fuse ? name : name + "_unfused", source, runs};
    RunnerOptions o = probe;
    o.fuse = fuse;
    std::vector<CaseOutcome> out = runCases({c}, o);
    ASSERT_TRUE(out[0].passed) << (fuse ? "fused: " : "--no-fuse: ") << out[0].message;
  }
}

// Under clang (no pragma for -fwrapv) int overflow was undefined: negating
// INT_MIN, X * 65536 * 65536 and absd gave other values than the evaluator's
// wrapping ones; `t != t` of an int failed -Werror=tautological-compare.
TEST(CBackendRegression, IntegerArithmeticWrapsUnderClang) {
  expectBothPassUnderClang("clang_wrap", R"(stencil g(vector#2 float X) { return cast<int>(X * 1e30); }
stencil f(vector#2 int X) {
  t = -X;
  return min(t % X@[0,1], 1) + (t != t) + absd(X, -X) + X * 65536 * 65536 + (X + 2147483647 > X);
}
parameter M, N;
vector#2 float img[M,N];
vector#2 int x[M,N];
return f(g(img)), f(x:wrap);
)", {{1, 1}, {5, 7}, {37, 131}});
}

// A fixed-size image sampled down to no rows, in a fused CPU group: the ring
// step's test printed as `q0 >= 0 && q0 < 0`, which clang -Wall calls always
// false (progfuzz window seed wcl22). It prints as `if (0)` now.
TEST(CBackendRegression, NoRowsUnderClang) {
  expectBothPassUnderClang("clang_no_rows", R"(stencil f(vector#2 double A) { return A@[-1,0] + A@[1,0] * 2; }
stencil g(vector#2 double A) { return A@[-1,1] - A@[1,-1]; }
vector#2 double img[1,4];
s = f(img@[(-3,2),(1,1)]:mirror);
return g(s:wrap);
)", {{}});
}

// Names of macros of the headers the generated code includes (math.h's
// INFINITY and M_PI, unistd.h's _SC_...) were given to images and parameters
// unchanged: the preprocessor replaced them.
TEST(CBackendRegression, NamesOfHeaderMacros) {
  expectBothMatch("header_macros", R"(stencil f(vector#2 float X) { return X@[0,1] + X; }
parameter M_PI, N;
vector#2 float INFINITY[M_PI,N];
float NAN;
vector#2 float _SC_LEVEL2_CACHE_SIZE[M_PI,N];
EOF = f(INFINITY:mirror);
stdin = f(_SC_LEVEL2_CACHE_SIZE);
INT_MAX = f(EOF:wrap);
return INT_MAX, stdin, f(INFINITY);
)", {{5, 7}, {37, 131}});
}

// A reduction read by two stencils that the C backend fuses into one tiled
// group: the row function indexed the rank-0 stage's read as a row
// (idx[0] of no indices) and formac crashed (SIGSEGV) on --emit=c. The scalar
// is read as m[0] there now.
TEST(CBackendRegression, ReductionReadInAFusedGroup) {
  expectBothMatch("reduction_fused", R"(stencil scale(vector#2 float X, float k) { return X * k; }
stencil shift(vector#2 float X, double k) { return X@[0,1] + X@[1,0] - k; }
parameter M, N;
vector#2 float img[M,N];
m = max(img);
s = sum(img);
a = scale(img, m);
b = scale(a, m);
return shift(b:mirror, s), m;
)", {{1, 1}, {2, 3}, {5, 7}, {37, 131}, {130, 1030}});
}

// A reduction over an empty domain of constant extent (a fixed-size image
// sampled down to no points): the generated C divided by a constant 0 (the
// chunk count, an extent) in a loop that never runs, and gcc -Werror rejected
// it (progfuzz seed t75). Whole-image and along each dimension; the results
// are the empty reductions' values (ir/Pipeline.h).
TEST(CBackendRegression, ReductionOfAnEmptyConstantDomain) {
  expectBothMatch("reduction_empty", R"(stencil f(vector#2 float X, int k, double s) { return X + k + s; }
vector#2 float img[4,3];
c = img@[(0,1),(0,4)];
rows = sum(c, 1);
cols = max(c, 0);
m = max(c);
return f(img, m, sum(c)), rows, cols, m, min(c), count(c), all(c), any(c, 1);
)", {{}});
}

// progfuzz scan149: a scan along a dimension of constant extent 0 divided
// by its segment count, a constant 0 (gcc -Wdiv-by-zero), in code that never
// runs. Along the last dimension and an earlier one, of an input and of a
// sample with no columns.
TEST(CBackendRegression, ScanOfAnEmptyConstantLine) {
  expectBothMatch("scan_empty", R"(stencil f(vector#2 float X) { return X * 2; }
vector#2 float img[5,0];
vector#2 float full[4,3];
c = full@[(0,1),(0,4)];
return scan(img, 1), sat(img, int), scan(img, 0), sat(f(c)), scan(c, 1, int8), full;
)", {{}});
}

// progfuzz lp0: with fusion on, fuse-reductions removed a stage that a sum
// absorbed and renumbered the others, but not the stages a `do` loop's
// bindings name, so the loop started from the next stage's image (w for
// h<0>; a C compile error where the types differed).
TEST(CBackendRegression, LoopAfterAnAbsorbedStage) {
  expectBothMatch("loop_after_absorbed", R"(stencil sq(vector#2 float X) { return X * X; }
stencil toint(vector#2 float X, double s) { return cast<int>(X * 100 + s); }
stencil half(vector#2 int X, vector#2 float Y) { return X / 2 + (Y > 3); }
stencil nz(vector#2 int X) { return X != 0; }
parameter M, N;
vector#2 float img[M,N];
s = sum(sq(img));
h<0> = toint(img, s);
w = toint(img:mirror, 1.5);
do i = 1..2
  h<i> = half(h<i-1>, img);
  z<i> = nz(h<i>);
while (any(z<i>));
return h<i>, w;
)", {{1, 1}, {5, 7}, {37, 131}});
}

// The histogram pipelines of examples/equalize and examples/otsu in small: a 1-D
// scan of a histogram (and of a stage computed from it), read at a computed index
// and picked from by topk. The C of a rank-1 scan reading its input left
// formac_o unused (-Werror=unused-variable; the example apps, built with -Wall
// -Wextra, warned), and a strided scan into its output formac_scratch.
TEST(CBackendRegression, HistogramScanLookup) {
  expectBothMatch("hist_scan_lookup", R"(stencil w(vector#1 int64 H, vector#1 int64 C) { return H * (C - H); }
stencil lut(vector#2 int8 X, vector#1 int64 C, vector#1 int64 T) { return C[X] + T[0]; }
parameter M, N;
vector#2 int8 img[M,N];
h = histogram(img, 256, 0, 256);
c = scan(h, 0);
v = scan(w(h, c), 0, double);
t = topk(v, 1);
return lut(img, c, t), scan(img, 0), c, t;
)", {{1, 1}, {2, 3}, {37, 131}, {300, 301}});
}

// examples/equalize and examples/otsu as they are (tests/opencv checks them against
// OpenCV through C only): C against the evaluator, fused and --no-fuse.
TEST(CBackendRegression, HistogramExamples) {
  for (const char* name : {"equalize", "otsu"}) {
    std::string path = compatDir() + "/../../examples/" + name + "/" + name + ".idsl";
    std::ifstream in(path);
    ASSERT_TRUE(in) << "cannot read " << path;
    std::stringstream text;
    text << in.rdbuf();
    expectBothMatch(std::string("example_") + name, text.str(), {{1, 1}, {1, 9}, {2, 3}, {37, 131}, {300, 301}});
  }
}

}  // namespace
}  // namespace formac::e2e
