/* JitPlugin: the C interface of libformac_jit.so, the part of the JIT that
 * links LLVM and Clang.
 *
 * formac loads the plugin with dlopen only when a pipeline is JIT-compiled,
 * so every other use of formac (code generation, --backend=eval) starts
 * without loading LLVM's libraries. The plugin knows nothing of Forma: it
 * compiles C source to an object file and links objects into ORC's LLJIT.
 * Strings it returns through char** are malloc'd; the caller frees them.
 */
#ifndef FORMAC_JIT_PLUGIN_H
#define FORMAC_JIT_PLUGIN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FORMAC_JIT_PLUGIN_ABI 2

typedef struct formac_jit_plugin {
  int abi; /* FORMAC_JIT_PLUGIN_ABI */
  /* The host CPU's name as LLVM knows it, for messages. */
  const char* (*cpu_name)(void);
  /* C source -> an object file for this machine (clang -O3 with the host's
   * CPU and features, in memory). 0 on success; else *error holds Clang's
   * diagnostics. */
  int (*compile)(const char* source, size_t size, int openmp, char** object, size_t* object_size,
                 char** error);
  /* Nonzero when `bytes` is an object file this LLVM reads. */
  int (*is_object)(const char* bytes, size_t size);
  /* Links an object into a new LLJIT; looks up each of `count` names into
   * `addresses`. Returns the JIT (release it after the last call into it), or
   * NULL and *error. Symbols the object needs are searched in the process. */
  void* (*link)(const char* object, size_t size, const char* const* names, void** addresses, int count,
                char** error);
  void (*release)(void* jit);
  /* Links the object file at `object_path` into the shared library
   * `library_path` with lld, in-process; 0 on success. NULL when the plugin
   * was built without lld. */
  int (*link_shared)(const char* object_path, const char* library_path, char** error);
} formac_jit_plugin;

/* The plugin's one exported symbol. */
const formac_jit_plugin* formac_jit_plugin_get(void);

#ifdef __cplusplus
}
#endif

#endif /* FORMAC_JIT_PLUGIN_H */
