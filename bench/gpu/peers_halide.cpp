// bench/gpu: Halide 14 peers (built with -DBENCH_HALIDE when the AOT objects
// of halide/build_halide.sh are there; without it every function reports
// PEER_MISSING).
//
// The pipelines run on the device pointers the driver allocated with the CUDA
// runtime, so Halide must use the runtime's (primary) context and its legacy
// default stream rather than create a context of its own: the hooks below are
// Halide's documented way to say so.
#include "peers.h"

#ifdef BENCH_HALIDE
#include <cuda.h>
#include <stdio.h>
#include <string.h>

#include "HalideRuntime.h"
#include "HalideRuntimeCuda.h"
#include "halide_blur_t8.h"
#include "halide_blur_t32.h"
#include "halide_canny_t8.h"
#include "halide_canny_t32.h"
#include "halide_harris_t8.h"
#include "halide_harris_t32.h"

static int acquire_context(void*, void** ctx, bool) {
  CUcontext c = nullptr;
  if (cuCtxGetCurrent(&c) != CUDA_SUCCESS) return -1;
  if (!c) {
    CUdevice d;
    if (cuDeviceGet(&d, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&c, d) != CUDA_SUCCESS) return -1;
    cuCtxSetCurrent(c);
  }
  *ctx = c;
  return 0;
}
static int release_context(void*) { return 0; }
static int get_stream(void*, void*, void** stream) {
  *stream = nullptr;  // the legacy default stream, which the driver's events are recorded on
  return 0;
}

extern "C" int halide_peer_init(void) {
  halide_set_cuda_acquire_context(acquire_context);
  halide_set_cuda_release_context(release_context);
  halide_set_cuda_get_stream(get_stream);
  return 0;
}

namespace {
// A 2-D float image of M rows and N columns over a device pointer: Halide's
// dimension 0 is the contiguous one (formac's j), dimension 1 the rows. The
// wrappers are made once per pointer and kept, so that a timed call does no
// more host work than an application that keeps its buffers would.
struct DeviceImage {
  const float* ptr;
  int M, N;
  halide_dimension_t dim[2];
  halide_buffer_t buf;
};
DeviceImage g_images[64];
int g_nimages;

halide_buffer_t* wrap(const float* p, int M, int N) {
  for (int i = 0; i < g_nimages; i++)
    if (g_images[i].ptr == p && g_images[i].M == M && g_images[i].N == N) return &g_images[i].buf;
  if (g_nimages == 64) {  // forget them all (the driver never gets here)
    for (int i = 0; i < g_nimages; i++) halide_cuda_detach_device_ptr(nullptr, &g_images[i].buf);
    g_nimages = 0;
  }
  DeviceImage& d = g_images[g_nimages];
  d.ptr = p;
  d.M = M;
  d.N = N;
  d.dim[0] = halide_dimension_t(0, N, 1);
  d.dim[1] = halide_dimension_t(0, M, N);
  d.buf = halide_buffer_t();
  d.buf.type = halide_type_t(halide_type_float, 32);
  d.buf.dimensions = 2;
  d.buf.dim = d.dim;
  if (halide_cuda_wrap_device_ptr(nullptr, &d.buf, (uint64_t)(uintptr_t)p) != 0) return nullptr;
  g_nimages++;
  return &d.buf;
}
}  // namespace

extern "C" int halide_blur(int tile_y, const float* in, int M, int N, float* out) {
  halide_buffer_t *a = wrap(in, M, N), *b = wrap(out, M, N);
  if (!a || !b) return -1;
  return tile_y == 8 ? halide_blur_t8(a, b) : halide_blur_t32(a, b);
}

extern "C" int halide_harris(int tile_y, const float* in, float k, int M, int N, float* out) {
  halide_buffer_t *a = wrap(in, M, N), *b = wrap(out, M, N);
  if (!a || !b) return -1;
  return tile_y == 8 ? halide_harris_t8(a, k, b) : halide_harris_t32(a, k, b);
}

extern "C" int halide_canny(int tile_y, const float* in, float low, float high, int M, int N, float* out) {
  halide_buffer_t *a = wrap(in, M, N), *b = wrap(out, M, N);
  if (!a || !b) return -1;
  return tile_y == 8 ? halide_canny_t8(a, low, high, b) : halide_canny_t32(a, low, high, b);
}

#else  // no Halide objects: the peers are missing

extern "C" int halide_peer_init(void) { return PEER_MISSING; }
extern "C" int halide_blur(int, const float*, int, int, float*) { return PEER_MISSING; }
extern "C" int halide_harris(int, const float*, float, int, int, float*) { return PEER_MISSING; }
extern "C" int halide_canny(int, const float*, float, float, int, int, float*) { return PEER_MISSING; }

#endif
