// libformac_jit.so: C source -> Clang (in-process, from memory) -> an object
// file -> ORC's LLJIT -> addresses. The interface is JitPlugin.h; nothing
// here throws across it.
#include "run/JitPlugin.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include "run/JitHeaders.h"

#ifdef FORMAC_JIT_HAVE_LLD
#include <lld/Common/Driver.h>
#include <lld/Common/ErrorHandler.h>
#endif

namespace {

using formac::run::jitHeaders;

char* copyString(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p) std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

void initializeLLVM() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

struct HostTarget {
  std::string triple, cpu;
  std::vector<std::string> features;  // "+avx2", "-avx512f", ...
};

const HostTarget& hostTarget() {
  static std::once_flag once;
  static HostTarget h;
  std::call_once(once, [] {
    h.triple = llvm::sys::getProcessTriple();
    h.cpu = llvm::sys::getHostCPUName().str();
    // A CPU newer than this LLVM is "generic"; Clang's x86 front end calls it
    // x86-64 (as clang -march=native does), and the features say the rest.
    if (h.cpu == "generic" && llvm::StringRef(h.triple).startswith("x86_64")) h.cpu = "x86-64";
    llvm::StringMap<bool> features;
    if (llvm::sys::getHostCPUFeatures(features))
      for (const auto& f : features) h.features.push_back((f.second ? "+" : "-") + f.first().str());
    std::sort(h.features.begin(), h.features.end());
  });
  return h;
}

// Clang's -cc1 arguments: what `clang -O3 -march=native [-fopenmp] -c` passes,
// with the headers of JitHeaders.h in place of the system's.
std::vector<std::string> clangArguments(bool openmp) {
  const HostTarget& h = hostTarget();
  std::vector<std::string> a = {"-triple", h.triple, "-target-cpu", h.cpu};
  for (const auto& f : h.features) {
    a.push_back("-target-feature");
    a.push_back(f);
  }
  for (const char* flag : {"-emit-obj", "-O3", "-vectorize-loops", "-vectorize-slp", "-mrelocation-model", "pic",
                           "-pic-level", "2", "-mframe-pointer=none", "-fmath-errno", "-ffp-contract=off",
                           "-fno-rounding-math", "-discard-value-names", "-std=gnu11", "-w", "-nostdsysteminc",
                           "-nobuiltininc", "-isystem", "/formac/include", "-fgnuc-version=4.2.1"})
    a.push_back(flag);
  if (openmp) a.push_back("-fopenmp");
  a.push_back("-x");
  a.push_back("c");
  a.push_back("/formac/pipeline.c");
  return a;
}

const char* cpuName() { return hostTarget().cpu.c_str(); }

int compile(const char* source, size_t size, int openmp, char** object, size_t* objectSize, char** error) {
  initializeLLVM();
  auto fs = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  fs->setCurrentWorkingDirectory("/formac");
  fs->addFile("/formac/pipeline.c", 0,
              llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(source, size), "pipeline.c", false));
  for (const auto& h : jitHeaders())
    fs->addFile("/formac/include/" + h.first, 0, llvm::MemoryBuffer::getMemBuffer(h.second, h.first, false));

  std::string diagText;
  llvm::raw_string_ostream diagStream(diagText);
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> diagOptions = new clang::DiagnosticOptions();
  auto* printer = new clang::TextDiagnosticPrinter(diagStream, diagOptions.get());
  llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> diags =
      new clang::DiagnosticsEngine(new clang::DiagnosticIDs(), diagOptions, printer, /*ShouldOwnClient=*/true);

  std::vector<std::string> args = clangArguments(openmp != 0);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  auto invocation = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*invocation, argv, *diags)) {
    *error = copyString("Clang rejected the JIT's arguments:\n" + diagStream.str());
    return 1;
  }
  clang::CompilerInstance ci;
  ci.setInvocation(std::move(invocation));
  ci.setDiagnostics(diags.get());
  ci.createFileManager(fs);
  llvm::SmallVector<char, 0> bytes;
  ci.setOutputStream(std::make_unique<llvm::raw_svector_ostream>(bytes));
  llvm::LLVMContext context;
  clang::EmitObjAction action(&context);
  if (!ci.ExecuteAction(action) || bytes.empty()) {
    *error = copyString(diagStream.str());
    return 1;
  }
  *object = static_cast<char*>(std::malloc(bytes.size()));
  if (!*object) {
    *error = copyString("out of memory");
    return 1;
  }
  std::memcpy(*object, bytes.data(), bytes.size());
  *objectSize = bytes.size();
  return 0;
}

int isObject(const char* bytes, size_t size) {
  initializeLLVM();
  auto obj = llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(llvm::StringRef(bytes, size), "o"));
  if (!obj) {
    llvm::consumeError(obj.takeError());
    return 0;
  }
  return 1;
}

void* link(const char* object, size_t size, const char* const* names, void** addresses, int count, char** error) {
  initializeLLVM();
  auto fail = [&](const std::string& what, llvm::Error e) -> void* {
    *error = copyString(what + ": " + llvm::toString(std::move(e)));
    return nullptr;
  };
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) return fail("no JIT target for this machine", jtmb.takeError());
  jtmb->setRelocationModel(llvm::Reloc::PIC_);
  jtmb->setCodeModel(llvm::CodeModel::Small);
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  if (!jit) return fail("cannot start the JIT", jit.takeError());
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) return fail("cannot search this process's symbols", process.takeError());
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  if (auto e = (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(object, size), "pipeline.o")))
    return fail("cannot add the object", std::move(e));
  for (int i = 0; i < count; ++i) {
    auto sym = (*jit)->lookup(names[i]);
    if (!sym) return fail(std::string("cannot link ") + names[i], sym.takeError());
    addresses[i] = reinterpret_cast<void*>(static_cast<uintptr_t>(sym->getAddress()));
  }
  return jit->release();
}

void release(void* jit) { delete static_cast<llvm::orc::LLJIT*>(jit); }

#ifdef FORMAC_JIT_HAVE_LLD
// ld.lld -shared: undefined symbols (the C library, libm, libomp) stay
// undefined and resolve against the process when the library is loaded.
int linkShared(const char* objectPath, const char* libraryPath, char** error) {
  static std::mutex lldIsNotReentrant;
  std::lock_guard<std::mutex> lock(lldIsNotReentrant);
  std::string messages;
  llvm::raw_string_ostream out(messages), err(messages);
  const char* args[] = {"ld.lld", "-shared", "--threads=1", "-O1", "--hash-style=gnu", "-o", libraryPath, objectPath};
  bool ok = lld::elf::link(args, out, err, /*canExitEarly=*/false, /*disableOutput=*/false);
  // lld 14 resets its globals only on its way to exit(); as a library the
  // caller must, or the next link in this process crashes.
  if (lld::errorHandler().cleanupCallback) lld::errorHandler().cleanupCallback();
  lld::errorHandler().errorCount = 0;
  if (!ok) *error = copyString(out.str().empty() ? "lld failed" : out.str());
  return ok ? 0 : 1;
}
#define FORMAC_LINK_SHARED linkShared
#else
#define FORMAC_LINK_SHARED nullptr
#endif

const formac_jit_plugin kPlugin = {FORMAC_JIT_PLUGIN_ABI, cpuName, compile, isObject, link, release,
                                   FORMAC_LINK_SHARED};

}  // namespace

extern "C" __attribute__((visibility("default"))) const formac_jit_plugin* formac_jit_plugin_get(void) {
  return &kPlugin;
}
