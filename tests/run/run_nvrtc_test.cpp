// NVRTC on the kernels-only CUDA of `formac run --backend=cuda`, no GPU
// needed: every example without a `do` loop, every compat program, the GPU
// suite's reductions and the scan seeds of the fuzzer, fused and unfused, are
// given to codegen::generateCudaKernels and the source compiled by NVRTC to
// PTX (compute_90), with every schedule kernel's kernel<int> and kernel<long
// long> (a plain kernel: its name) resolved to its lowered name and present
// in the PTX. This is what catches a kernels-only source NVRTC rejects (an
// include, host code, a limit macro), and a schedule that does not match the
// source. Also: the schedule's references are consistent, NVRTC's errors and
// architecture choice.
// Every test skips when libnvrtc cannot be loaded (CI without CUDA).
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <set>

#include "RunTestSupport.h"
#include "codegen/CodeGen_CUDA.h"
#include "run/CudaDriver.h"
#include "run/Pipeline.h"

namespace formac::test {
namespace {

const std::string kSource = FORMAC_SOURCE_DIR;

// NVRTC, or null (the test skips) when it does not load.
const run::cuda::Nvrtc* nvrtcOrNull(std::string* why = nullptr) {
  try {
    return &run::cuda::nvrtc();
  } catch (const UserError& e) {
    if (why) *why = e.message();
    return nullptr;
  }
}

#define REQUIRE_NVRTC()                           \
  std::string why;                                \
  const run::cuda::Nvrtc* nv = nvrtcOrNull(&why); \
  if (!nv) GTEST_SKIP() << "no NVRTC: " << why

std::vector<std::string> idslFiles(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".idsl") == 0) out.push_back(dir + "/" + n);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every example and compat program, fused and unfused.
struct Case {
  std::string path;
  bool fuse;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.path << (c.fuse ? "" : " --no-fuse"); }
std::vector<Case> cases() {
  std::vector<std::string> programs;
  for (const char* example : {"adaptive_threshold", "blur", "boxfilter", "canny", "equalize", "harris", "normalize",
                              "otsu", "pyramid", "stats", "threshold8", "unsharp"})
    programs.push_back(kSource + "/examples/" + example + "/" + example + ".idsl");
  for (const auto& f : idslFiles(kSource + "/tests/compat")) programs.push_back(f);
  programs.push_back(kSource + "/tests/gpu/reductions.idsl");
  for (const char* seed : {"scan_box_filter", "scan_ranks"})
    programs.push_back(kSource + "/tests/fuzz/seeds/" + seed + ".idsl");
  std::vector<Case> c;
  for (const auto& p : programs) c.push_back({p, true}), c.push_back({p, false});
  return c;
}

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
  std::string base = info.param.path.substr(info.param.path.find_last_of('/') + 1);
  base = base.substr(0, base.find('.'));
  const std::string& path = info.param.path;
  std::string kind = path.find("/examples/") != std::string::npos ? "example_"
                     : path.find("/compat/") != std::string::npos ? "compat_"
                                                                   : "test_";
  return kind + base + (info.param.fuse ? "_fused" : "_unfused");
}

// The kernels of a case and, in `lowered`, the pipeline their schedule's
// stage ids name (fuse-reductions drops stages).
codegen::CudaKernels kernelsOf(const Case& c, CompiledPipeline& compiled, ir::Pipeline* lowered = nullptr) {
  CompileOptions o;
  o.backend = Backend::Eval;
  o.sourcePath = c.path;
  o.fuse = c.fuse;
  compiled = compile(readFile(c.path), o);
  codegen::CudaOptions co;
  co.kernelName = compiled.name();
  co.sourcePath = c.path;
  co.fuse = c.fuse;
  passes::LoweredPipeline l = passes::lower(compiled.pipeline(), passes::Target::cuda(c.fuse));
  codegen::CudaKernels k = codegen::printCudaKernels(l, co);
  if (lowered) *lowered = std::move(l.pipeline);
  return k;
}

class NvrtcProgram : public ::testing::TestWithParam<Case> {};

TEST_P(NvrtcProgram, CompilesAndResolvesEveryLaunch) {
  REQUIRE_NVRTC();
  CompiledPipeline compiled;
  ir::Pipeline p;
  codegen::CudaKernels k = kernelsOf(GetParam(), compiled, &p);
  // (No launches: a program whose outputs are its inputs.)
  EXPECT_EQ(k.source.find("#include"), std::string::npos) << "the kernels-only source has an #include";

  // What the executor relies on: every Stage argument has a buffer, every
  // output and input has one, extents and tiles fit.
  std::set<int> buffers(k.buffers.begin(), k.buffers.end());
  for (int o : p.outputs) EXPECT_TRUE(buffers.count(o)) << "output stage " << o << " has no buffer";
  for (const auto& in : p.inputs) {
    if (in.kind == ir::EntryArg::Image) {
      EXPECT_TRUE(buffers.count(in.index)) << "input " << in.index;
    }
  }
  // Every step's references: kernels, stages with buffers, scalars,
  // parameters, scratch buffers, values.
  const codegen::LaunchSchedule& sc = k.schedule;
  std::function<void(const std::vector<codegen::HostStep>&)> check = [&](const std::vector<codegen::HostStep>& steps) {
    for (const auto& st : steps) {
      check(st.body);
      check(st.orElse);
      if (st.kind == codegen::HostStep::Var || st.kind == codegen::HostStep::Assign) {
        EXPECT_LT(static_cast<size_t>(st.value), sc.values.size());
      }
      if (st.kind == codegen::HostStep::Launch) {
        ASSERT_LT(static_cast<size_t>(st.kernel), sc.kernels.size());
      }
      for (const auto& a : st.args) {
        size_t limit = a.kind == codegen::HostArg::Scalar    ? p.scalars.size()
                       : a.kind == codegen::HostArg::Param   ? p.params.size()
                       : a.kind == codegen::HostArg::Scratch ? sc.scratch.size()
                                                             : p.stages.size();
        EXPECT_LT(static_cast<size_t>(a.index), limit);
        EXPECT_TRUE(a.kind != codegen::HostArg::Stage || buffers.count(a.index))
            << "stage " << a.index << " has no buffer";
      }
    }
  };
  check(sc.steps);
  std::vector<std::string> names;
  for (const auto& kn : sc.kernels) {
    names.push_back(kn.templated ? kn.name + "<int>" : kn.name);
    if (kn.templated) names.push_back(kn.name + "<long long>");
  }

  run::cuda::NvrtcOutput out = run::cuda::compileWithNvrtc(*nv, k.source, compiled.name() + ".cu", names, "compute_90");
  EXPECT_FALSE(out.cubin);
  ASSERT_EQ(out.lowered.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_FALSE(out.lowered[i].empty()) << names[i];
    EXPECT_NE(out.image.find(".entry " + out.lowered[i] + "("), std::string::npos)
        << names[i] << " (" << out.lowered[i] << ") is not an entry of the PTX";
  }
}

INSTANTIATE_TEST_SUITE_P(All, NvrtcProgram, ::testing::ValuesIn(cases()), caseName);

TEST(Nvrtc, MakesACubinForAKnownGpu) {
  REQUIRE_NVRTC();
  std::string arch = run::cuda::nvrtcArchitecture(*nv, 9, 0);
  EXPECT_EQ(arch, "sm_90");
  CompiledPipeline compiled;
  codegen::CudaKernels k = kernelsOf({kSource + "/examples/blur/blur.idsl", true}, compiled);
  std::vector<std::string> names = {k.schedule.kernels.at(0).name + "<int>"};
  run::cuda::NvrtcOutput out = run::cuda::compileWithNvrtc(*nv, k.source, "blur.cu", names, arch);
  EXPECT_TRUE(out.cubin);
  EXPECT_EQ(out.image.compare(0, 4, "\177ELF"), 0) << "not an ELF file";
  EXPECT_NE(out.image.find(out.lowered[0]), std::string::npos);
}

TEST(Nvrtc, ArchitectureOfAnUnknownGpu) {
  REQUIRE_NVRTC();
  // Newer than any NVRTC: PTX for the newest it knows, which the driver compiles.
  EXPECT_EQ(run::cuda::nvrtcArchitecture(*nv, 99, 9).rfind("compute_", 0), 0u);
  // Older than any: a clear error.
  try {
    run::cuda::nvrtcArchitecture(*nv, 1, 0);
    FAIL() << "sm_10 accepted";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find("does not compile for this GPU (sm_10)"), std::string::npos) << e.message();
  }
}

TEST(Nvrtc, ErrorsComeWithTheLogAndTheSource) {
  REQUIRE_NVRTC();
  try {
    run::cuda::compileWithNvrtc(*nv, "template <typename I> __global__ void k(I n) { undeclared(n); }\n", "bad.cu",
                                {"k<int>"}, "compute_90");
    FAIL() << "compiled";
  } catch (const UserError& e) {
    const std::string& m = e.message();
    EXPECT_NE(m.find("did not compile the generated kernels"), std::string::npos) << m;
    EXPECT_NE(m.find("bad.cu(1): error"), std::string::npos) << m;
    size_t at = m.find("the source is kept in ");
    ASSERT_NE(at, std::string::npos) << m;
    std::string kept = m.substr(at + 22, m.find(':', at) - at - 22);
    EXPECT_NE(readFile(kept).find("undeclared(n)"), std::string::npos) << kept;
    std::remove(kept.c_str());
  }
}

TEST(Nvrtc, MissingLibraryIsAClearError) {
  const char* was = std::getenv("FORMAC_NVRTC");
  std::string saved = was ? was : "";
  setenv("FORMAC_NVRTC", "/nonexistent/libnvrtc.so", 1);
  try {
    run::cuda::loadNvrtc();
    FAIL() << "loaded";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find("--backend=cuda: NVRTC did not load from $FORMAC_NVRTC: /nonexistent/libnvrtc.so"),
              std::string::npos)
        << e.message();
  }
  if (was) setenv("FORMAC_NVRTC", saved.c_str(), 1);
  else unsetenv("FORMAC_NVRTC");
}

}  // namespace
}  // namespace formac::test
