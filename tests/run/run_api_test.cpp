// The C++ API (compiler/run/Pipeline.h): compile once, run many times on
// caller buffers; the JIT's outputs byte-identical to the evaluator's and to
// the same generated C built ahead of time with the system C compiler.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>

#include "RunTestSupport.h"
#include "codegen/CodeGen_C.h"
#include "run/Executor.h"
#include "run/ImageIO.h"
#include "run/Pipeline.h"

namespace formac::test {
namespace {

const std::string kScratch = FORMAC_SCRATCH;
const std::string kSource = FORMAC_SOURCE_DIR;
const std::string kCamera = kSource + "/examples/data/camera.png";
const bool kJit = FORMAC_TEST_JIT;

CompileOptions options(const std::string& path, Backend backend) {
  CompileOptions o;
  o.sourcePath = path;
  o.backend = backend;
  o.cacheDir = kScratch + "/cache";
  return o;
}

CompiledPipeline compileFile(const std::string& path, Backend backend = Backend::Default) {
  return compile(readFile(path), options(path, backend));
}

std::vector<unsigned char> outputBuffer(const CompiledPipeline& p, const std::vector<long long>& params) {
  std::vector<long long> e = p.outputExtent(0, params);
  size_t n = typeSize(p.outputImages()[0].type);
  for (long long x : e) n *= static_cast<size_t>(x);
  return std::vector<unsigned char>(n, 0xA5);
}

// Runs `p` on one image input plus `values`; returns the output's bytes.
std::vector<unsigned char> runOn(CompiledPipeline& p, run::HostImage& in, const Values& values) {
  run::BindStyle style;
  run::Binding b = p.bind({in.extent}, values, style);
  std::vector<unsigned char> out = outputBuffer(p, b.params);
  p.run({ImageRef{in.bytes.data(), in.extent}}, values, {ImageRef{out.data(), p.outputExtent(0, b.params)}});
  return out;
}

// The same pipeline as C built by the system compiler (the workspace API
// through the entry shim), run on the same input.
std::vector<unsigned char> runAheadOfTime(const CompiledPipeline& p, run::HostImage& in, const Values& values) {
  const ir::Pipeline& ir = p.pipeline();
  codegen::COptions co;
  co.kernelName = p.name();
  co.sourcePath = "aot";
  std::string dir = kScratch + "/aot_" + p.name();
  freshFolder(dir);
  writeFile(dir + "/p.c", codegen::generateC(ir, co).source + run::entryShim(ir, p.name()));
  CommandResult cc = runCommand(std::string(FORMAC_TEST_CC) + " -std=gnu99 -O2 -fopenmp -shared -fPIC -o " +
                                quote(dir + "/p.so") + " " + quote(dir + "/p.c") + " -lm");
  EXPECT_EQ(cc.status, 0) << cc.output;
  void* lib = dlopen((dir + "/p.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(lib, nullptr) << dlerror();
  if (!lib) return {};
  run::ShimFunctions f;
  f.create = reinterpret_cast<void* (*)(const long long*)>(dlsym(lib, "formac_shim_create"));
  f.run = reinterpret_cast<int (*)(void*, void* const*)>(dlsym(lib, "formac_shim_run"));
  f.destroy = reinterpret_cast<void (*)(void*)>(dlsym(lib, "formac_shim_destroy"));
  run::BindStyle style;
  run::Binding b = p.bind({in.extent}, values, style);
  std::vector<unsigned char> out = outputBuffer(p, b.params);
  std::vector<double> slots(ir.scalars.size());
  for (size_t i = 0; i < slots.size(); ++i) run::storeScalarArgument(ir.scalars[i].type, b.scalars[i], &slots[i]);
  std::vector<void*> args;
  for (const auto& a : ir.inputs)
    args.push_back(a.kind == ir::EntryArg::Image ? static_cast<void*>(in.bytes.data())
                                                 : static_cast<void*>(&slots[static_cast<size_t>(a.index)]));
  args.push_back(out.data());
  void* ws = f.create(b.params.data());
  EXPECT_NE(ws, nullptr);
  EXPECT_EQ(f.run(ws, args.data()), 0);
  f.destroy(ws);
  return out;
}

run::HostImage camera(const Type& t) { return run::readInputImage(kCamera, "img", t, 2).image; }

class RunApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { freshFolder(kScratch); }
};

// The evaluator, the default backend (jit) and cc's build of the C agree.
void expectAllAgree(const std::string& program, run::HostImage in, const Values& values) {
  CompiledPipeline eval = compileFile(program, Backend::Eval);
  CompiledPipeline fast = compileFile(program);
  EXPECT_EQ(fast.backend(), kJit ? Backend::Jit : Backend::Eval);
  std::vector<unsigned char> a = runOn(eval, in, values), b = runOn(fast, in, values);
  EXPECT_TRUE(a == b) << program << ": evaluator and " << backendName(fast.backend()) << " differ";
  std::vector<unsigned char> c = runAheadOfTime(fast, in, values);
  EXPECT_TRUE(a == c) << program << ": evaluator and the C built by " << FORMAC_TEST_CC << " differ";
}

TEST_F(RunApi, CannyAgreesEverywhere) {
  expectAllAgree(kSource + "/examples/canny/canny.idsl", camera(Type::of(ScalarKind::Float)),
                 {{"low", 0.25}, {"high", 0.5}});
}

TEST_F(RunApi, BlurAgreesEverywhere) {
  expectAllAgree(kSource + "/examples/blur/blur.idsl", camera(Type::of(ScalarKind::Float)), {});
}

TEST_F(RunApi, StructAgreesEverywhere) {
  std::string path = kSource + "/tests/compat/try_struct.idsl";
  CompiledPipeline p = compileFile(path, Backend::Eval);
  run::HostImage in;
  in.type = p.inputImages()[0].type;
  in.extent = {45, 67};
  for (int i = 0; i < 45 * 67 * 3; ++i) in.bytes.push_back(static_cast<unsigned char>(i * 31 % 251));
  expectAllAgree(path, in, {});
}

// uint16 images and int64 / uint16 scalar inputs (LANGUAGE.md §7) through
// every backend: the scalars' slots hold their C types.
TEST_F(RunApi, WideTypesAgreeEverywhere) {
  std::string path = kScratch + "/wide.idsl";
  writeFile(path, "stencil f(vector#2 uint16 U, int64 s, uint16 k) {\n"
                  "  return U@[0,1] * s + U * k + cast<int64>(U@[1,0]) * 65536 * 65536 - s / (U - k);\n}\n"
                  "parameter M, N;\nvector#2 uint16 img[M,N];\nint64 s;\nuint16 k;\nreturn f(img:mirror, s, k);\n");
  run::HostImage in = camera(Type::of(ScalarKind::Uint16));
  expectAllAgree(path, in, {{"s", -3e15}, {"k", 65535}});
  CompiledPipeline p = compileFile(path, Backend::Eval);
  std::vector<unsigned char> out = runOn(p, in, {{"s", -3e15}, {"k", 65535}});
  long long first;
  std::memcpy(&first, out.data(), sizeof first);
  unsigned short u00, u01, u10;
  std::memcpy(&u00, &in.bytes[0], 2);
  std::memcpy(&u01, &in.bytes[2], 2);
  std::memcpy(&u10, &in.bytes[512 * 2], 2);
  long long s = -3000000000000000LL;
  EXPECT_EQ(first, u01 * s + u00 * 65535LL + (static_cast<long long>(u10) << 32) - s / (u00 - 65535));
}

// A program that imports stdlib stencils computes what the same program with
// them written out does, bit for bit (LANGUAGE.md §7).
TEST_F(RunApi, ImportedStdlibMatchesWrittenOut) {
  auto definitions = [](const std::string& file) {  // a stdlib file above its example use
    std::string text = readFile(kSource + "/stdlib/" + file);
    return text.substr(0, text.find("// Example use"));
  };
  std::string body = "parameter M, N;\nvector#2 float img[M,N];\n"
                     "g = gaussian5x5(img:mirror);\nreturn sobel_x(g:mirror), unsharp(img, 1.5f);\n";
  std::string imported = "import \"stdlib/gaussian5x5.idsl\";\nimport \"stdlib/sobel_x.idsl\";\n"
                         "import \"stdlib/unsharp.idsl\";\n" + body;
  std::string written = definitions("gaussian5x5.idsl") + definitions("sobel_x.idsl") +
                        definitions("gaussian3x3.idsl") + definitions("unsharp.idsl") + body;
  written.replace(written.find("import \"gaussian3x3.idsl\";"), 26, "");
  ASSERT_EQ(written.find("import"), std::string::npos) << written;
  run::HostImage in = camera(Type::of(ScalarKind::Float));
  for (Backend backend : {Backend::Eval, Backend::Default}) {
    CompileOptions o = options("", backend);
    o.importPath = {kSource};  // "stdlib/..." is found there
    CompiledPipeline a = compile(imported, o), b = compile(written, o);
    run::BindStyle style;
    run::Binding bound = a.bind({in.extent}, {}, style);
    std::vector<std::vector<float>> outs(4, std::vector<float>(in.bytes.size() / sizeof(float)));
    std::vector<ImageRef> refs;
    for (auto& out : outs) refs.push_back(ImageRef{out.data(), a.outputExtent(0, bound.params)});
    a.run({ImageRef{in.bytes.data(), in.extent}}, {}, {refs[0], refs[1]});
    b.run({ImageRef{in.bytes.data(), in.extent}}, {}, {refs[2], refs[3]});
    EXPECT_TRUE(outs[0] == outs[2] && outs[1] == outs[3]) << backendName(a.backend());
    EXPECT_NE(outs[0], std::vector<float>(outs[0].size(), 0.0f));  // it computed something
  }
}

TEST_F(RunApi, CompileOnceRunManySizes) {
  CompiledPipeline p = compileFile(kSource + "/examples/blur/blur.idsl");
  CompiledPipeline copy = p;  // shares the compiled code
  for (long long rows : {1LL, 7LL, 300LL, 7LL}) {
    long long cols = rows + 5;
    std::vector<float> in(static_cast<size_t>(rows * cols));
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 97) / 97.0f;
    std::vector<double> out(in.size()), want(in.size());
    copy.run({ImageRef{in.data(), {rows, cols}}}, {}, {ImageRef{out.data(), {rows, cols}}});
    CompiledPipeline eval = compileFile(kSource + "/examples/blur/blur.idsl", Backend::Eval);
    eval.run({ImageRef{in.data(), {rows, cols}}}, {}, {ImageRef{want.data(), {rows, cols}}});
    EXPECT_EQ(std::memcmp(out.data(), want.data(), out.size() * sizeof(double)), 0) << rows << "x" << cols;
  }
}

TEST_F(RunApi, Introspection) {
  CompiledPipeline p = compileFile(kSource + "/examples/canny/canny.idsl", Backend::Eval);
  EXPECT_EQ(p.name(), "canny");
  ASSERT_EQ(p.inputImages().size(), 1u);
  EXPECT_EQ(p.inputImages()[0].name, "img");
  EXPECT_EQ(p.inputImages()[0].rank, 2);
  EXPECT_EQ(p.outputImages()[0].type, Type::of(ScalarKind::Int8));
  EXPECT_EQ(p.outputExtent(0, {3, 4}), (std::vector<long long>{3, 4}));
}

TEST_F(RunApi, UserErrorsThrow) {
  CompiledPipeline p = compileFile(kSource + "/examples/canny/canny.idsl", Backend::Eval);
  std::vector<float> in(12);
  std::vector<unsigned char> out(12);
  auto message = [&](const Values& v, std::vector<long long> outExtent) {
    try {
      p.run({ImageRef{in.data(), {3, 4}}}, v, {ImageRef{out.data(), outExtent}});
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{"low", 1}}, {3, 4}).find("needs a value: give it with values[\"high\"] = VALUE"),
            std::string::npos);
  EXPECT_NE(message({{"low", 1}, {"high", 2}}, {4, 3})
                .find("output '" + p.outputImages()[0].name + "' has extent [4, 3], but the program computes [3, 4]"),
            std::string::npos)
      << message({{"low", 1}, {"high", 2}}, {4, 3});
  try {
    compile("parameter M;\nreturn x;\n", options("", Backend::Eval));
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("<memory>:2:"), std::string::npos) << e.what();
  }
  // runOnDevice is the cuda backend's alone.
  try {
    run::Binding b = p.bind({{3, 4}}, {{"low", 1}, {"high", 2}}, run::BindStyle{});
    p.runOnDevice(b, {in.data()}, {out.data()}, nullptr);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("running on device arrays needs the cuda backend"), std::string::npos);
  }
  if (!kJit) {
    try {
      compileFile(kSource + "/examples/blur/blur.idsl", Backend::Jit);
      ADD_FAILURE() << "no error";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("built without the JIT"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace formac::test
