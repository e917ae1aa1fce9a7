/* A stand-in for libcuda.so.1 (FORMAC_LIBCUDA=this library) that lets the
   tests drive `formac run --backend=cuda` on a machine without a GPU: the
   host side of the CUDA backend runs for real (NVRTC, the cache, buffers,
   copies, launch shapes, error messages); kernels do nothing, so outputs
   stay as the zeroed buffers left them.
     FAKE_CUDA_DEVICES=1      one sm_90 GPU; otherwise cuInit says there is none
     FAKE_CUDA_FAIL=NAME      cuMemAlloc or cuLaunchKernel fails
     FAKE_CUDA_LOG=FILE       one line per launch: kernel, grid, block, shared bytes,
                              stream; one per cuMemsetD8Async: bytes, stream
     FAKE_CUDA_SPILLS=A,B:8   functions whose lowered name contains A or B report
                              local memory to cuFuncGetAttribute: 16 bytes (spills),
                              or as many as follow a colon
   Checks what the real driver would reject: a function name that is not in
   the loaded image, an empty grid or block, more than 48 KB of dynamic
   shared memory without the opt-in attribute. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
  OUT_OF_MEMORY = 2,
  INVALID_VALUE = 1,
  NO_DEVICE = 100,
  INVALID_DEVICE = 101,
  NOT_FOUND = 500,
  LAUNCH_OUT_OF_RESOURCES = 701
};

struct module {
  char* image;
  size_t size;
};
struct function {
  char name[512];
  int max_shared;
};

static int fails(const char* name) {
  const char* f = getenv("FAKE_CUDA_FAIL");
  return f && strcmp(f, name) == 0;
}
static int has_device(void) {
  const char* d = getenv("FAKE_CUDA_DEVICES");
  return d && atoi(d) > 0;
}

CUresult cuInit(unsigned flags) { return flags == 0 && has_device() ? 0 : NO_DEVICE; }
CUresult cuDriverGetVersion(int* v) { *v = 12040; return 0; }
CUresult cuDeviceGet(int* device, int ordinal) {
  if (!has_device() || ordinal != 0) return INVALID_DEVICE;
  *device = 0;
  return 0;
}
CUresult cuDeviceGetName(char* name, int length, int device) {
  (void)device;
  snprintf(name, (size_t)length, "formac fake GPU");
  return 0;
}
CUresult cuDeviceGetAttribute(int* value, int attribute, int device) {
  (void)device;
  switch (attribute) {
    case 16: *value = 132; return 0;     /* an H100's multiprocessors */
    case 75: *value = 9; return 0;       /* compute capability 9.0 */
    case 76: *value = 0; return 0;
    case 97: *value = 232448; return 0;  /* an H100's opt-in shared memory per block */
  }
  return INVALID_VALUE;
}
CUresult cuDevicePrimaryCtxRetain(void** context, int device) {
  (void)device;
  *context = (void*)&cuInit;
  return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(int device) { (void)device; return 0; }
CUresult cuCtxSetCurrent(void* context) { return context == (void*)&cuInit ? 0 : INVALID_VALUE; }
CUresult cuCtxSynchronize(void) { return 0; }

/* A CUBIN's size from its ELF header (the section and program header tables
   come last); PTX is text. */
CUresult cuModuleLoadData(struct module** module, const void* image) {
  const unsigned char* b = (const unsigned char*)image;
  size_t size;
  if (memcmp(b, "\177ELF", 4) == 0) {
    uint64_t phoff, shoff;
    uint16_t phentsize, phnum, shentsize, shnum;
    memcpy(&phoff, b + 0x20, 8);
    memcpy(&shoff, b + 0x28, 8);
    memcpy(&phentsize, b + 0x36, 2);
    memcpy(&phnum, b + 0x38, 2);
    memcpy(&shentsize, b + 0x3a, 2);
    memcpy(&shnum, b + 0x3c, 2);
    size = (size_t)shoff + (size_t)shentsize * shnum;
    if ((size_t)phoff + (size_t)phentsize * phnum > size) size = (size_t)phoff + (size_t)phentsize * phnum;
  } else {
    size = strlen((const char*)image) + 1;
  }
  struct module* m = (struct module*)malloc(sizeof *m);
  m->image = (char*)malloc(size);
  memcpy(m->image, image, size);
  m->size = size;
  *module = m;
  return 0;
}
CUresult cuModuleUnload(struct module* m) {
  free(m->image);
  free(m);
  return 0;
}
CUresult cuModuleGetFunction(struct function** f, struct module* m, const char* name) {
  size_t n = strlen(name);
  int found = 0;
  for (size_t i = 0; i + n <= m->size && !found; ++i) found = memcmp(m->image + i, name, n) == 0;
  if (!found || n >= sizeof((*f)->name)) return NOT_FOUND;
  *f = (struct function*)calloc(1, sizeof **f); /* one per call; a test leaks a few */
  memcpy((*f)->name, name, n + 1);
  (*f)->max_shared = 48 * 1024;
  return 0;
}
CUresult cuFuncGetAttribute(int* value, int attribute, struct function* f) {
  const char* spills = getenv("FAKE_CUDA_SPILLS");
  if (attribute != 3) return INVALID_VALUE; /* CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES only */
  *value = 0;
  while (spills && *spills && !*value) { /* comma-separated */
    const char* end = strchr(spills, ',');
    size_t n = end ? (size_t)(end - spills) : strlen(spills), len = strlen(f->name);
    const char* colon = memchr(spills, ':', n);
    int bytes = colon ? atoi(colon + 1) : 16;
    if (colon) n = (size_t)(colon - spills);
    for (size_t i = 0; n && i + n <= len && !*value; ++i) *value = memcmp(f->name + i, spills, n) == 0 ? bytes : 0;
    spills = end ? end + 1 : NULL;
  }
  return 0;
}
CUresult cuFuncSetAttribute(struct function* f, int attribute, int value) {
  if (attribute != 8 || value > 232448) return INVALID_VALUE;
  f->max_shared = value;
  return 0;
}

CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
  if (fails("cuMemAlloc") || bytes == 0) return fails("cuMemAlloc") ? OUT_OF_MEMORY : INVALID_VALUE;
  *p = (CUdeviceptr)(uintptr_t)malloc(bytes);
  return *p ? 0 : OUT_OF_MEMORY;
}
CUresult cuMemFree_v2(CUdeviceptr p) { free((void*)(uintptr_t)p); return 0; }
CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n) {
  memset((void*)(uintptr_t)p, v, n);
  return 0;
}
CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, void* stream) {
  const char* log = getenv("FAKE_CUDA_LOG");
  FILE* out = log ? fopen(log, "a") : NULL;
  if (out) {
    fprintf(out, "memset %zu bytes stream %lx\n", n, (unsigned long)(uintptr_t)stream);
    fclose(out);
  }
  memset((void*)(uintptr_t)p, v, n);
  return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr to, const void* from, size_t n) {
  memcpy((void*)(uintptr_t)to, from, n);
  return 0;
}
CUresult cuMemcpyDtoH_v2(void* to, CUdeviceptr from, size_t n) {
  memcpy(to, (const void*)(uintptr_t)from, n);
  return 0;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr to, CUdeviceptr from, size_t n, void* stream) {
  const char* log = getenv("FAKE_CUDA_LOG");
  FILE* out = log ? fopen(log, "a") : NULL;
  if (out) {
    fprintf(out, "copy %zu bytes stream %lx\n", n, (unsigned long)(uintptr_t)stream);
    fclose(out);
  }
  memmove((void*)(uintptr_t)to, (const void*)(uintptr_t)from, n);
  return 0;
}
CUresult cuStreamSynchronize(void* stream) { (void)stream; return 0; }

CUresult cuLaunchKernel(struct function* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void* stream, void** params, void** extra) {
  if (fails("cuLaunchKernel")) return LAUNCH_OUT_OF_RESOURCES;
  if (!gx || !gy || !gz || !bx || !by || !bz || bx * by * bz > 1024 || gy > 65535 || gz > 65535 || !params ||
      extra || (int)shared > f->max_shared)
    return INVALID_VALUE;
  const char* log = getenv("FAKE_CUDA_LOG");
  FILE* out = log ? fopen(log, "a") : NULL;
  if (out) {
    fprintf(out, "%s grid %u %u %u block %u %u %u shared %u stream %lx\n", f->name, gx, gy, gz, bx, by, bz, shared,
            (unsigned long)(uintptr_t)stream);
    fclose(out);
  }
  return 0;
}

CUresult cuGetErrorString(CUresult e, const char** text) {
  switch (e) {
    case INVALID_VALUE: *text = "invalid argument"; return 0;
    case OUT_OF_MEMORY: *text = "out of memory"; return 0;
    case NO_DEVICE: *text = "no CUDA-capable device is detected"; return 0;
    case INVALID_DEVICE: *text = "invalid device ordinal"; return 0;
    case NOT_FOUND: *text = "named symbol not found"; return 0;
    case LAUNCH_OUT_OF_RESOURCES: *text = "too many resources requested for launch"; return 0;
  }
  *text = NULL;
  return INVALID_VALUE;
}
