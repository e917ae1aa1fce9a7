// The JIT backend, formac's side: generated C + the entry shim, the cache,
// and libformac_jit.so (JitPlugin.h), loaded on first use, for compiling and
// linking. See README.md.
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "codegen/CodeGen_C.h"
#include "run/CompileCache.h"
#include "run/Executor.h"
#include "run/JitPlugin.h"

#ifndef FORMAC_VERSION
#define FORMAC_VERSION "unknown"
#endif

namespace formac::run {
namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string ms(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", seconds * 1e3);
  return buf;
}

std::string takeString(char* s) {
  std::string t = s ? s : "";
  std::free(s);
  return t;
}

// Where libformac_jit.so may be: $FORMAC_JIT_PLUGIN; next to the formac
// executable (a build tree); ../lib/formac from it (an installed formac); the
// build tree this formac_run was built in; the install prefix it was built for.
std::vector<std::string> pluginCandidates() {
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
#ifdef FORMAC_JIT_BUILD_PATH
  c.push_back(FORMAC_JIT_BUILD_PATH);
#endif
#ifdef FORMAC_JIT_INSTALL_PATH
  c.push_back(FORMAC_JIT_INSTALL_PATH);
#endif
  return c;
}

// Loaded once and kept for the life of the process.
const formac_jit_plugin* plugin(std::string& where) {
  static std::once_flag once;
  static const formac_jit_plugin* loaded = nullptr;
  static std::string path, failures;
  std::call_once(once, [] {
    for (const auto& c : pluginCandidates()) {
      if (access(c.c_str(), R_OK) != 0) continue;
      void* handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!handle) {
        failures += std::string("\n  ") + dlerror();
        continue;
      }
      auto get = reinterpret_cast<const formac_jit_plugin* (*)()>(dlsym(handle, "formac_jit_plugin_get"));
      const formac_jit_plugin* p = get ? get() : nullptr;
      if (p && p->abi == FORMAC_JIT_PLUGIN_ABI) {
        loaded = p;
        path = c;
        return;
      }
      failures += "\n  " + c + ": not a formac JIT plugin of this version";
      dlclose(handle);
    }
  });
  where = loaded ? path : failures;
  return loaded;
}

}  // namespace

bool jitAvailable() {
#ifdef FORMAC_HAVE_JIT
  std::string where;
  return plugin(where) != nullptr;
#else
  return false;
#endif
}

std::unique_ptr<Executor> makeJitExecutor(std::shared_ptr<const ir::Pipeline> p, const BackendOptions& o,
                                          CompileReport& report) {
#ifndef FORMAC_HAVE_JIT
  (void)p, (void)o, (void)report;
  throw UserError("this formac was built without the JIT (FORMAC_ENABLE_JIT=OFF, or no LLVM/Clang "
                  "libraries were found): use --backend=eval");
#else
  auto t0 = std::chrono::steady_clock::now();
  std::string where;
  const formac_jit_plugin* jit = plugin(where);
  if (!jit)
    throw UserError("the JIT's library libformac_jit.so was not found or did not load (set FORMAC_JIT_PLUGIN "
                    "to its path, or use --backend=eval)" + where);
  const char* omp = jit->load_openmp();
  report.notes.push_back("jit: loaded " + where + " (" + ms(secondsSince(t0)) + "); " +
                         (omp ? "OpenMP from " + std::string(omp)
                              : std::string("libomp not found: compiling without OpenMP (one thread)")));

  auto t1 = std::chrono::steady_clock::now();
  codegen::COptions co;
  co.kernelName = o.kernelName;
  co.sourcePath = o.sourcePath;
  co.openmp = omp != nullptr;
  co.fuse = o.fuse;
  std::string source = codegen::generateC(*p, co).source + entryShim(*p, o.kernelName, false);
  std::string key = std::string("formac ") + FORMAC_VERSION + "\n" + jit->describe(omp != nullptr) + "\n" + source;
  report.notes.push_back("jit: generated C, " + std::to_string(source.size()) + " bytes (" +
                         ms(secondsSince(t1)) + "); cpu " + jit->cpu_name());

  CompileCache cache(o.cacheDir);
  std::string object;
  auto t2 = std::chrono::steady_clock::now();
  if (o.useCache && cache.load(key, ".o", object) && jit->is_object(object.data(), object.size())) {
    report.cached = true;
    report.notes.push_back("jit: cache hit " + cache.pathFor(key, ".o") + " (" + ms(secondsSince(t2)) + ")");
  } else {
    std::clock_t cpu0 = std::clock();
    char* bytes = nullptr;
    size_t size = 0;
    char* error = nullptr;
    if (jit->compile(source.data(), source.size(), omp != nullptr, &bytes, &size, &error) != 0)
      throw InternalError("the generated C did not compile in the JIT:\n" + takeString(error));
    object.assign(bytes, size);
    std::free(bytes);
    report.notes.push_back("jit: clang -O3 in-process: " + ms(secondsSince(t2)) + " (cpu " +
                           ms(double(std::clock() - cpu0) / CLOCKS_PER_SEC) + "), object " +
                           std::to_string(object.size()) + " bytes");
    if (o.useCache)
      report.notes.push_back(cache.store(key, ".o", object)
                                 ? "jit: cached as " + cache.pathFor(key, ".o")
                                 : "jit: cannot write the cache in '" + cache.dir() + "' (not cached)");
  }

  auto t3 = std::chrono::steady_clock::now();
  const char* names[] = {"formac_shim_create", "formac_shim_run", "formac_shim_destroy"};
  void* addresses[3] = {nullptr, nullptr, nullptr};
  char* error = nullptr;
  void* linked = jit->link(object.data(), object.size(), names, addresses, 3, &error);
  if (!linked) throw InternalError("JIT: " + takeString(error));
  std::shared_ptr<void> keep(linked, [jit](void* j) { jit->release(j); });
  ShimFunctions f;
  f.create = reinterpret_cast<void* (*)(const long long*)>(addresses[0]);
  f.run = reinterpret_cast<int (*)(void*, void* const*)>(addresses[1]);
  f.destroy = reinterpret_cast<void (*)(void*)>(addresses[2]);
  report.notes.push_back("jit: linked (" + ms(secondsSince(t3)) + ")");
  return makeShimExecutor(f, keep, "jit");
#endif
}

}  // namespace formac::run
