// libFuzzer target for the front end: bytes -> lex -> parse -> sema -> verify
// -> lower -> printC and printCuda, fused and not (and the --emit and
// --dump-after printers on the way).
//
// A UserError is the expected answer to a bad program. Anything else is a
// finding: an InternalError or other exception escaping (reported by aborting
// with the message), a crash, a hang, or a sanitizer report.
//
// Like the formac CLI (tools/formac/main.cpp), each input is compiled on a
// thread with a large stack: nesting that the CLI handles is not a finding.
#include <pthread.h>

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "codegen/CodeGen_C.h"
#include "codegen/CodeGen_CUDA.h"
#include "frontend/EntryName.h"
#include "frontend/Frontend.h"
#include "ir/Printer.h"
#include "parse/AstPrinter.h"
#include "parse/Modules.h"
#include "passes/PlanPrinter.h"

namespace {

void compileOnce(const formac::SourceFile& src) {
  using namespace formac;
  // Imports are looked up beside "fuzz.idsl" only (the working directory):
  // whatever they name, reading one ends in a program or a UserError.
  SourceFiles imported;
  ast::Program program = parseProgram(src, imported, {});
  (void)ast::printProgram(program);
  Warnings warnings;
  (void)entryPointName(src.path, "", warnings);
  SourceFiles importedAgain;  // checkedPipeline parses again, as the driver does
  ir::Pipeline pipeline = checkedPipeline(src, "fuzz", warnings, importedAgain, {});
  (void)ir::printPipeline(pipeline);
  // What --dump-after=all, --emit=plan and --emit=dot print, then the code.
  auto dump = [](const passes::Pass&, const passes::LoweredPipeline& l) {
    (void)ir::printPipeline(l.pipeline);
    (void)passes::printPlan(l);
  };
  for (bool fuse : {true, false}) {
    passes::LoweredPipeline forC = passes::lower(pipeline, passes::Target::c(fuse), dump);
    (void)passes::printPlanDot(forC);
    codegen::COptions c;
    c.kernelName = "fuzz";
    c.sourcePath = "fuzz.idsl";
    (void)codegen::printC(forC, c);
    passes::LoweredPipeline forCuda = passes::lower(pipeline, passes::Target::cuda(fuse), dump);
    codegen::CudaOptions cuda;
    cuda.kernelName = "fuzz";
    cuda.sourcePath = "fuzz.idsl";
    (void)codegen::printCuda(forCuda, cuda);
  }
}

[[noreturn]] void finding(const char* kind, const char* what) {
  std::fprintf(stderr, "FINDING: %s: %s\n", kind, what);
  std::abort();  // libFuzzer saves the input as a crash artifact
}

void compileInput(const formac::SourceFile& src) {
  try {
    compileOnce(src);
  } catch (const formac::UserError& e) {
    // Rendering the diagnostic must not fail either.
    if (std::string(e.what()).find("error: ") == std::string::npos)
      finding("malformed diagnostic", e.what());
  } catch (const formac::InternalError& e) {
    finding("internal error", e.what());
  } catch (const std::exception& e) {
    finding("exception", e.what());
  }
}

// One worker thread with a large stack compiles every input; the fuzzer's
// thread hands it the input and waits. (A thread per input is ~20x slower
// under ASan, which clears the shadow of the whole stack at thread exit.)
class Worker {
 public:
  Worker() {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    // Sanitizer frames are several times larger than the CLI's; 1 GiB here
    // covers at least what the CLI's 1 GiB covers in a release build.
    pthread_attr_setstacksize(&attr, size_t(1) << 30);
    if (pthread_create(&thread_, &attr, loop, this) != 0) finding("setup", "no worker thread");
    pthread_attr_destroy(&attr);
  }
  void compile(const formac::SourceFile& src) {
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = &src;
    wake_.notify_all();
    wake_.wait(lock, [&] { return job_ == nullptr; });
  }

 private:
  static void* loop(void* self) {
    Worker& w = *static_cast<Worker*>(self);
    std::unique_lock<std::mutex> lock(w.mutex_);
    for (;;) {
      w.wake_.wait(lock, [&] { return w.job_ != nullptr; });
      compileInput(*w.job_);
      w.job_ = nullptr;
      w.wake_.notify_all();
    }
    return nullptr;
  }
  pthread_t thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  const formac::SourceFile* job_ = nullptr;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Worker* worker = new Worker;  // never joined: it lives as long as the process
  formac::SourceFile src{"fuzz.idsl", std::string(reinterpret_cast<const char*>(data), size)};
  worker->compile(src);
  return 0;
}
