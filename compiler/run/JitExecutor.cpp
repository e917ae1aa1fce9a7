// The JIT backend, formac's side: the generated C and its entry shim, the
// cache, libomp, and libformac_jit.so (JitPlugin.h), loaded only when Clang
// or LLJIT is needed. README.md, "The JIT", says how the pieces fit.
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>

#include "codegen/CodeGen_C.h"
#include "codegen/StageFacts.h"
#include "run/CompileCache.h"
#include "run/Executor.h"
#include "run/JitPlugin.h"

#ifndef FORMAC_VERSION
#define FORMAC_VERSION "unknown"
#endif

namespace formac::run {

#ifndef FORMAC_HAVE_JIT

bool jitAvailable() { return false; }

std::unique_ptr<Executor> makeJitExecutor(std::shared_ptr<const ir::Pipeline>, const BackendOptions&,
                                          CompileReport&) {
  throw UserError("this formac was built without the JIT (FORMAC_ENABLE_JIT=OFF, or no LLVM/Clang "
                  "libraries were found): use --backend=eval");
}

#else

namespace {

using Clock = std::chrono::steady_clock;

std::string ms(Clock::time_point t0) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", std::chrono::duration<double>(Clock::now() - t0).count() * 1e3);
  return buf;
}

std::string takeString(char* s) {
  std::string t = s ? s : "";
  std::free(s);
  return t;
}

// libomp, loaded once into the process's global namespace: OpenMP code finds
// its __kmpc_* functions there, in LLJIT and in a cached library alike.
// Empty when none loads (the code is then compiled without OpenMP).
const std::string& loadOpenMP() {
  static std::once_flag once;
  static std::string loaded;
  std::call_once(once, [] {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("FORMAC_LIBOMP")) candidates.push_back(env);
#ifdef FORMAC_LIBOMP_PATH
    candidates.push_back(FORMAC_LIBOMP_PATH);
#endif
    candidates.push_back("libomp.so.5");
    candidates.push_back("libomp.so");
    for (const auto& c : candidates)
      if (dlopen(c.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
        loaded = c;
        return;
      }
  });
  return loaded;
}

// Where libformac_jit.so may be: $FORMAC_JIT_PLUGIN; next to the running
// executable (a build tree); ../lib/formac from it (an install); the build
// tree and the install prefix this formac was configured with.
std::string findPlugin() {
  std::vector<std::string> c;
  if (const char* env = std::getenv("FORMAC_JIT_PLUGIN")) c.push_back(env);
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    std::string dir(exe, static_cast<size_t>(n));
    dir = dir.substr(0, dir.find_last_of('/'));
    c.push_back(dir + "/libformac_jit.so");
    c.push_back(dir + "/../lib/formac/libformac_jit.so");
  }
  c.push_back(FORMAC_JIT_BUILD_PATH);
  c.push_back(FORMAC_JIT_INSTALL_PATH);
  for (const auto& path : c)
    if (access(path.c_str(), R_OK) == 0) return path;
  return "";
}

// The plugin's build (its path, size and time) stands for LLVM's version,
// Clang's arguments and the JIT's headers in the cache key, so that a hit is
// found without loading LLVM.
std::string pluginIdentity(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return path;
  return path + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

// This machine for the cache key: the kernel's architecture and the first
// CPU's identity and features (what -march=native compiles for).
std::string hostIdentity() {
  std::string id;
  struct utsname u;
  if (uname(&u) == 0) id += std::string(u.machine) + "\n";
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line) && !line.empty())
    for (const char* key : {"vendor_id", "cpu family", "model", "flags", "Features", "CPU implementer", "CPU part"})
      if (line.rfind(key, 0) == 0) id += line + "\n";
  return id;
}

const formac_jit_plugin* loadPlugin(const std::string& path) {
  static std::mutex mutex;
  static std::string loadedPath;
  static const formac_jit_plugin* loaded = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded && loadedPath == path) return loaded;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw UserError(std::string("the JIT's library did not load: ") + dlerror());
  auto get = reinterpret_cast<const formac_jit_plugin* (*)()>(dlsym(handle, "formac_jit_plugin_get"));
  const formac_jit_plugin* p = get ? get() : nullptr;
  if (!p || p->abi != FORMAC_JIT_PLUGIN_ABI)
    throw UserError("'" + path + "' is not the JIT library of this formac (set FORMAC_JIT_PLUGIN)");
  loaded = p;
  loadedPath = path;
  return p;  // never unloaded: LLVM does not support it
}

const char* kShimNames[] = {"formac_shim_create", "formac_shim_run", "formac_shim_destroy", "formac_shim_rounds"};
constexpr int kShimCount = 4;

ShimFunctions shimFrom(void* const* addresses) {
  ShimFunctions f;
  f.create = reinterpret_cast<void* (*)(const long long*)>(addresses[0]);
  f.run = reinterpret_cast<int (*)(void*, void* const*)>(addresses[1]);
  f.destroy = reinterpret_cast<void (*)(void*)>(addresses[2]);
  f.rounds = reinterpret_cast<int (*)(void*, long long*)>(addresses[3]);
  return f;
}

// A cached shared library, loaded without LLVM; null when it does not load.
std::unique_ptr<Executor> loadShared(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return nullptr;
  void* addresses[kShimCount];
  for (int i = 0; i < kShimCount; ++i) {
    addresses[i] = dlsym(handle, kShimNames[i]);
    if (!addresses[i]) {
      dlclose(handle);
      return nullptr;
    }
  }
  std::shared_ptr<void> keep(handle, [](void* h) { dlclose(h); });
  return makeShimExecutor(shimFrom(addresses), keep, "jit");
}

std::unique_ptr<Executor> linkInJit(const formac_jit_plugin* jit, const std::string& object) {
  void* addresses[kShimCount] = {};
  char* error = nullptr;
  void* linked = jit->link(object.data(), object.size(), kShimNames, addresses, kShimCount, &error);
  if (!linked) throw InternalError("JIT: " + takeString(error));
  std::shared_ptr<void> keep(linked, [jit](void* j) { jit->release(j); });
  return makeShimExecutor(shimFrom(addresses), keep, "jit");
}

// Links the cached object into a shared library next to it, for the next
// runs' fast start. Best effort: a failure only costs that.
std::string storeShared(const formac_jit_plugin* jit, const CompileCache& cache, const std::string& key) {
  if (!jit->link_shared) return "jit: this JIT has no lld: later runs load the object into LLJIT";
  std::string so = cache.pathFor(key, ".so"), tmp = so + ".tmp" + std::to_string(getpid());
  char* error = nullptr;
  if (jit->link_shared(cache.pathFor(key, ".o").c_str(), tmp.c_str(), &error) != 0 ||
      std::rename(tmp.c_str(), so.c_str()) != 0) {
    std::remove(tmp.c_str());
    return "jit: lld could not make a shared library: " + takeString(error);
  }
  return "jit: cached a shared library (lld) for later runs: " + so;
}

}  // namespace

bool jitAvailable() { return !findPlugin().empty(); }

std::unique_ptr<Executor> makeJitExecutor(std::shared_ptr<const ir::Pipeline> p, const BackendOptions& o,
                                          CompileReport& report) {
  auto t0 = Clock::now();
  std::string pluginPath = findPlugin();
  if (pluginPath.empty())
    throw UserError("the JIT's library libformac_jit.so was not found next to formac or in " +
                    std::string(FORMAC_JIT_INSTALL_PATH) + " (set FORMAC_JIT_PLUGIN to it, or use --backend=eval)");
  const std::string& omp = loadOpenMP();
  codegen::COptions co;
  co.kernelName = o.kernelName;
  co.sourcePath = o.sourcePath;
  passes::LoweredPipeline lowered = passes::lower(*p, passes::Target::c(o.fuse, !omp.empty()));
  for (const ir::Stage* s : codegen::loopsOf(*p)) {
    auto lf = lowered.localFixpoints.find(s->id);
    report.settles.push_back(lf != lowered.localFixpoints.end() && lf->second.ok);
  }
  std::string source = codegen::printC(lowered, co).source + entryShim(*p, o.kernelName);
  std::string key = std::string("formac ") + FORMAC_VERSION + "\njit " + pluginIdentity(pluginPath) + "\n" +
                    hostIdentity() + "openmp " + (omp.empty() ? "no" : "yes") + "\n" + source;
  report.notes.push_back("jit: generated C, " + std::to_string(source.size()) + " bytes; " +
                         (omp.empty() ? "libomp not found: no OpenMP (one thread)" : "OpenMP from " + omp) + " (" +
                         ms(t0) + ")");
  CompileCache cache(o.cacheDir);

  // A hit: the shared library made last time, loaded without LLVM.
  auto t1 = Clock::now();
  struct stat st;
  if (o.useCache && !cache.dir().empty() && stat(cache.pathFor(key, ".so").c_str(), &st) == 0)
    if (auto e = loadShared(cache.pathFor(key, ".so"))) {
      report.cached = true;
      report.notes.push_back("jit: cache hit, loaded " + cache.pathFor(key, ".so") + " (" + ms(t1) + ")");
      return e;
    }

  auto t2 = Clock::now();
  const formac_jit_plugin* jit = loadPlugin(pluginPath);
  report.notes.push_back("jit: loaded " + pluginPath + " (LLVM, Clang) (" + ms(t2) + "); cpu " + jit->cpu_name());
  std::string object;
  auto t3 = Clock::now();
  if (o.useCache && cache.load(key, ".o", object) && jit->is_object(object.data(), object.size())) {
    // A hit on the object alone (no lld, or the library was removed).
    report.cached = true;
    auto e = linkInJit(jit, object);
    report.notes.push_back("jit: cache hit, linked " + cache.pathFor(key, ".o") + " in LLJIT (" + ms(t3) + ")");
    report.notes.push_back(storeShared(jit, cache, key));
    return e;
  }
  std::clock_t cpu0 = std::clock();
  char* bytes = nullptr;
  size_t size = 0;
  char* error = nullptr;
  if (jit->compile(source.data(), source.size(), !omp.empty(), &bytes, &size, &error) != 0)
    throw InternalError("the generated C did not compile in the JIT:\n" + takeString(error));
  object.assign(bytes, size);
  std::free(bytes);
  char cpu[32];
  std::snprintf(cpu, sizeof cpu, "%.1f ms", double(std::clock() - cpu0) * 1e3 / CLOCKS_PER_SEC);
  report.notes.push_back("jit: clang -O3 in-process: " + ms(t3) + " (cpu " + cpu + "), object " +
                         std::to_string(object.size()) + " bytes");
  auto t4 = Clock::now();
  auto e = linkInJit(jit, object);
  report.notes.push_back("jit: linked in LLJIT (" + ms(t4) + ")");
  if (o.useCache) {
    if (cache.store(key, ".o", object)) {
      report.notes.push_back("jit: cached as " + cache.pathFor(key, ".o"));
      report.notes.push_back(storeShared(jit, cache, key));
    } else {
      report.notes.push_back("jit: cannot write the cache in '" + cache.dir() + "' (not cached)");
    }
  }
  return e;
}

#endif  // FORMAC_HAVE_JIT

}  // namespace formac::run
