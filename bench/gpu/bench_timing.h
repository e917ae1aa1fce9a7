// The GPU benchmarks' shared timing (bench/gpu/{reduce,scan,canny_full}): CK
// checks a CUDA call and exits with its message; median_ms times `fn` on the
// default stream with CUDA events, after g_warmup untimed calls; `before`, when
// given, runs ahead of each timed call, outside the events (an L2 flush).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CK(call)                                                                                    \
  do {                                                                                              \
    cudaError_t e_ = (call);                                                                        \
    if (e_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));  \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

static int g_reps = 50, g_warmup = 5;

// The median of `reps` calls of fn (g_reps when 0), each bracketed by events on the default stream.
static inline double median_ms(const std::function<void()>& fn, int reps = 0,
                               const std::function<void()>& before = nullptr) {
  if (reps <= 0) reps = g_reps;
  for (int i = 0; i < g_warmup; i++) fn();
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> ms;
  for (int r = 0; r < reps; r++) {
    if (before) before();
    CK(cudaEventRecord(a, 0));
    fn();
    CK(cudaEventRecord(b, 0));
    CK(cudaEventSynchronize(b));
    float x;
    CK(cudaEventElapsedTime(&x, a, b));
    ms.push_back(x);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}
