// A CPU emulation of the CUDA that formac's scan kernels use, so that their
// generated .cu runs here, without a GPU, bit for bit as the kernels compute
// (tests/gpu/emulate/README.md). Blocks run one after another; a block's
// threads are fibers (ucontext) switched at __syncthreads, __syncwarp and
// shuffles, so shared memory (`static` here) and warp exchanges behave as on the GPU.
// A persistent kernel's first block then takes every tile in order, and a
// look-back finds each group it waits for already published. Host API:
// memory is host memory, streams and events are no-ops; launches from
// several host threads run one at a time.
#pragma once

#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include <memory>
#include <mutex>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __noinline__
#define __align__(n) __attribute__((aligned(n)))

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct int4 { int x, y, z, w; };
struct uint2 { unsigned x, y; };
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
struct double2 { double x, y; };
struct uint4 { unsigned x, y, z, w; };
struct longlong2 { long long x, y; };
inline longlong2 make_longlong2(long long x, long long y) { return {x, y}; }

namespace formac_emu {

struct Fiber {
  ucontext_t context;  // to start it
  jmp_buf resume;      // to resume it (_setjmp/_longjmp: no signal-mask system calls)
  bool started = false, done = false;
  int waiting = 0;  // 1: at __syncthreads, 2: at a warp exchange
};

inline dim3 g_thread, g_block, g_blockDim, g_gridDim;
inline std::vector<Fiber> g_fibers;
constexpr size_t kStack = 256 * 1024;
inline std::vector<std::unique_ptr<char[]>> g_stacks;  // kept between blocks and launches, never cleared
inline ucontext_t g_scheduler;
inline jmp_buf g_back;  // the scheduler, where a fiber that parks or ends goes
inline int g_current = 0;
inline void (*g_body)(void*) = nullptr;
inline void* g_arg = nullptr;
inline double g_exchange[1024];

inline void place(int f) {
  g_current = f;
  g_thread = dim3(f % g_blockDim.x, f / g_blockDim.x % g_blockDim.y, f / (g_blockDim.x * g_blockDim.y));
}
inline void entry() {
  g_body(g_arg);
  g_fibers[static_cast<size_t>(g_current)].done = true;
  _longjmp(g_back, 1);
}
// Parks the current fiber until every live fiber of its group (the block, or
// its warp) is parked at the same kind of point, then resumes.
inline void park(int kind) {
  g_fibers[static_cast<size_t>(g_current)].waiting = kind;
  int me = g_current;
  if (!_setjmp(g_fibers[static_cast<size_t>(me)].resume)) _longjmp(g_back, 1);
  place(me);
}

// One launch at a time (the e2e harness calls an entry point from two
// threads at once): the fibers, the thread indices and `static` shared
// memory are the running launch's.
inline std::mutex g_launching;

template <typename F>
void launch(dim3 grid, dim3 block, F&& kernel) {
  std::lock_guard<std::mutex> hold(g_launching);
  g_gridDim = grid;
  g_blockDim = block;
  int threads = static_cast<int>(block.x * block.y * block.z);
  auto run = [](void* k) { (*static_cast<F*>(k))(); };
  g_body = run;
  g_arg = &kernel;
  for (unsigned b = 0; b < grid.x * grid.y * grid.z; ++b) {
    g_block = dim3(b % grid.x, b / grid.x % grid.y, b / (grid.x * grid.y));
    g_fibers.assign(static_cast<size_t>(threads), Fiber());
    while (g_stacks.size() < g_fibers.size()) g_stacks.emplace_back(new char[kStack]);
    for (int f = 0; f < threads; ++f) {
      Fiber& fb = g_fibers[static_cast<size_t>(f)];
      getcontext(&fb.context);
      fb.context.uc_stack.ss_sp = g_stacks[static_cast<size_t>(f)].get();
      fb.context.uc_stack.ss_size = kStack;
      fb.context.uc_link = nullptr;
      makecontext(&fb.context, entry, 0);
    }
    // Round robin: run every fiber to its next barrier (or end); a barrier
    // releases when every fiber that has not ended reached one; a warp
    // exchange when every fiber of the warp did.
    for (;;) {
      bool any = false;
      for (int f = 0; f < threads; ++f) {
        Fiber& fb = g_fibers[static_cast<size_t>(f)];
        if (fb.done || fb.waiting) continue;
        any = true;
        place(f);
        if (!_setjmp(g_back)) {
          if (!fb.started) {
            fb.started = true;
            swapcontext(&g_scheduler, &fb.context);
          } else {
            _longjmp(fb.resume, 1);
          }
        }
      }
      if (any) continue;
      bool warp = false;
      for (int w = 0; w * 32 < threads; ++w) {
        bool all = true, some = false;
        for (int f = w * 32; f < threads && f < w * 32 + 32; ++f) {
          all = all && g_fibers[static_cast<size_t>(f)].waiting == 2;
          some = some || g_fibers[static_cast<size_t>(f)].waiting == 2;
        }
        if (some && !all) {
          fprintf(stderr, "cuda_emu: a warp exchange that not every lane of warp %d reached\n", w);
          abort();
        }
        if (all) {
          warp = true;
          for (int f = w * 32; f < threads && f < w * 32 + 32; ++f) g_fibers[static_cast<size_t>(f)].waiting = 0;
        }
      }
      if (warp) continue;
      bool waiting = false;
      for (auto& fb : g_fibers) waiting = waiting || fb.waiting == 1;
      if (!waiting) break;
      for (auto& fb : g_fibers) fb.waiting = 0;
    }
    g_fibers.clear();
  }
}

// A shuffle: every lane of the warp deposits its value, then reads lane
// (src mod width) of its width-segment's.
template <typename T>
T shfl(T v, int src, int width) {
  static_assert(sizeof(T) <= sizeof(double), "");
  int lane = g_current % 32, me = g_current;
  memcpy(&g_exchange[me], &v, sizeof v);
  park(2);
  T r;
  memcpy(&r, &g_exchange[(me - lane) + lane / width * width + src % width], sizeof r);
  park(2);
  return r;
}

// A ballot: every lane deposits its predicate, then each reads the warp's 32.
inline unsigned ballot(int pred) {
  int me = g_current, base = me - me % 32;
  g_exchange[me] = pred ? 1.0 : 0.0;
  park(2);
  unsigned r = 0;
  for (int i = 0; i < 32; ++i)
    if (g_exchange[base + i] != 0.0) r |= 1u << i;
  park(2);
  return r;
}

}  // namespace formac_emu

#define threadIdx (formac_emu::g_thread)
#define blockIdx (formac_emu::g_block)
#define blockDim (formac_emu::g_blockDim)
#define gridDim (formac_emu::g_gridDim)

inline void __syncthreads() { formac_emu::park(1); }
inline void __syncwarp(unsigned = 0xffffffffu) { formac_emu::park(2); }  /* the whole warp */
inline void __threadfence() {}
template <typename T>
T __shfl_sync(unsigned, T v, int src, int width = 32) { return formac_emu::shfl(v, src, width); }
template <typename T>
T __shfl_down_sync(unsigned, T v, unsigned delta, int width = 32) {
  int lane = formac_emu::g_current % 32 % width + static_cast<int>(delta);
  return formac_emu::shfl(v, lane < width ? lane : lane - static_cast<int>(delta), width);
}
template <typename T>
T __shfl_xor_sync(unsigned, T v, int mask, int width = 32) {
  return formac_emu::shfl(v, (formac_emu::g_current % 32 % width) ^ mask, width);
}
template <typename T>
T __ldg(const T* p) { return *p; }
template <typename T>
T __ldcg(const T* p) { return *p; }
inline unsigned __ballot_sync(unsigned, int pred) { return formac_emu::ballot(pred); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { unsigned long long o = *p; *p = o + v; return o; }
inline unsigned atomicAdd(unsigned* p, unsigned v) { unsigned o = *p; *p = o + v; return o; }
inline int atomicAdd(int* p, int v) { int o = *p; *p = o + v; return o; }
inline unsigned long long atomicExch(unsigned long long* p, unsigned long long v) { unsigned long long o = *p; *p = v; return o; }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline float __fsqrt_rn(float a) { return sqrtf(a); }
inline double __dsqrt_rn(double a) { return sqrt(a); }

// The host API, on host memory.
typedef int cudaError_t;
typedef void* cudaStream_t;
enum { cudaSuccess = 0, cudaErrorInvalidValue = 1 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
enum cudaMemoryType { cudaMemoryTypeUnregistered, cudaMemoryTypeHost, cudaMemoryTypeDevice, cudaMemoryTypeManaged };
struct cudaPointerAttributes { cudaMemoryType type; };
inline const char* cudaGetErrorString(cudaError_t) { return "emulated CUDA error"; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void*) {
  a->type = cudaMemoryTypeHost;
  return cudaSuccess;
}
inline cudaError_t cudaMalloc(void** p, size_t n) {
  *p = malloc(n ? n : 1);
  return *p ? cudaSuccess : cudaErrorInvalidValue;
}
inline cudaError_t cudaFree(void* p) { free(p); return cudaSuccess; }
inline cudaError_t cudaMemset(void* p, int v, size_t n) { memset(p, v, n); return cudaSuccess; }
inline cudaError_t cudaMemsetAsync(void* p, int v, size_t n, cudaStream_t = 0) { memset(p, v, n); return cudaSuccess; }
inline cudaError_t cudaMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind) { memmove(d, s, n); return cudaSuccess; }
inline cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind, cudaStream_t = 0) {
  memmove(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount, cudaDevAttrMaxSharedMemoryPerBlockOptin };
// Kernels over 48 KB of shared memory opt in (an H100's 227 KB; the emulation's
// dynamic shared memory is a static buffer of 256 KB: rewrite_launches.py).
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize };
template <typename F>
cudaError_t cudaFuncSetAttribute(F, cudaFuncAttribute, int) { return cudaSuccess; }
struct cudaFuncAttributes { size_t localSizeBytes; int numRegs; };
template <typename F>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, F) {
  a->localSizeBytes = 0;
  a->numRegs = 32;
  return cudaSuccess;
}
inline cudaError_t cudaGetDevice(int* d) { *d = 0; return cudaSuccess; }
inline cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int) {
  *v = a == cudaDevAttrMaxSharedMemoryPerBlockOptin ? 227 * 1024 : 4;
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
