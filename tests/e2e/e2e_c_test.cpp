// e2e_c_test: the C backend agrees with the reference evaluator bit for bit.
//
// Suites:
//   Matrix/CBackend.*        programs generated from templates (ProgramMatrix.cpp)
//   Compat/CBackend.*        every tests/compat/*.idsl
//   CBackendFpContraction.*  -O3 -march=native -ffp-contract=fast still matches,
//                            and does not without the generated pragma (control)
//   CBackendRegression.*     the bugs this test found
// A parameterized suite builds all its selected programs at once (in parallel
// batches) in SetUpTestSuite; each test then reports its own program.
// FORMAC_E2E_KEEP=1 keeps the generated files; FORMAC_E2E_CC picks the compiler.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <map>

#include "CRunner.h"
#include "ProgramMatrix.h"

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

class CBackend : public ::testing::TestWithParam<ProgramCase> {};

class MatrixCBackend : public CBackend {
 public:
  static void SetUpTestSuite() { runSelected(matrixCases(), defaultRunnerOptions()); }
};
TEST_P(MatrixCBackend, MatchesEvaluator) { expectMatches(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Matrix, MatrixCBackend, ::testing::ValuesIn(matrixCases()), caseName);

class CompatCBackend : public CBackend {
 public:
  static void SetUpTestSuite() { runSelected(compatCases(FORMAC_COMPAT_DIR), defaultRunnerOptions()); }
};
TEST_P(CompatCBackend, MatchesEvaluator) { expectMatches(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Compat, CompatCBackend, ::testing::ValuesIn(compatCases(FORMAC_COMPAT_DIR)),
                         caseName);

// ------------------------------------------------------------ fp contraction
const char* kNativeFlags = "-std=c99 -O3 -march=native -ffp-contract=fast -fopenmp -Wall -Wextra -Werror";

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

}  // namespace
}  // namespace formac::e2e
