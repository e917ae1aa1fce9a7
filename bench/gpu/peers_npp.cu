// bench/gpu: NPP peers (built with -DBENCH_NPP where NPP's headers exist;
// without it every function reports PEER_MISSING). CUDA 12.9+ dropped NPP's
// calls without a stream context, so the _Ctx forms are used throughout.
#include "peers.h"

#ifdef BENCH_NPP
#include <cuda_runtime.h>
#include <npp.h>
#include <stdio.h>

static NppStreamContext g_ctx;
static int g_M, g_N;
static Npp8u* g_canny_buf;
static Npp8u* g_harris_buf;
static Npp8u* g_smooth8;    // the 8-bit Gaussian between npp_gauss_canny's two calls
static Npp32f* g_kernel3;  // {1/3, 1/3, 1/3} on the device
static char g_version[64];

static int npp_ok(NppStatus s, const char* what) {
  if (s < 0) {  // negative: error; positive: warning
    fprintf(stderr, "NPP %s failed: status %d\n", what, (int)s);
    return (int)s;
  }
  return 0;
}

extern "C" const char* npp_peer_version(void) {
  const NppLibraryVersion* v = nppGetLibVersion();
  snprintf(g_version, sizeof g_version, "NPP %d.%d.%d", v->major, v->minor, v->build);
  return g_version;
}

extern "C" int npp_peer_init(int M, int N) {
  g_M = M;
  g_N = N;
  int dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) return -1;
  g_ctx = NppStreamContext();
  g_ctx.hStream = 0;
  g_ctx.nCudaDeviceId = dev;
  g_ctx.nMultiProcessorCount = p.multiProcessorCount;
  g_ctx.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
  g_ctx.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
  g_ctx.nSharedMemPerBlock = p.sharedMemPerBlock;
  g_ctx.nCudaDevAttrComputeCapabilityMajor = p.major;
  g_ctx.nCudaDevAttrComputeCapabilityMinor = p.minor;
  unsigned int flags = 0;
  cudaStreamGetFlags(0, &flags);
  g_ctx.nStreamFlags = flags;
  NppiSize roi = {N, M};
  int canny_bytes = 0, harris_bytes = 0;
  if (npp_ok(nppiFilterCannyBorderGetBufferSize(roi, &canny_bytes), "FilterCannyBorderGetBufferSize")) return -1;
  if (npp_ok(nppiFilterHarrisCornersBorderGetBufferSize(roi, &harris_bytes), "FilterHarrisCornersBorderGetBufferSize"))
    return -1;
  if (cudaMalloc(&g_canny_buf, canny_bytes > 0 ? canny_bytes : 1) != cudaSuccess) return -1;
  if (cudaMalloc(&g_harris_buf, harris_bytes > 0 ? harris_bytes : 1) != cudaSuccess) return -1;
  if (cudaMalloc(&g_smooth8, (size_t)M * N) != cudaSuccess) return -1;
  const float k3[3] = {1.0f / 3, 1.0f / 3, 1.0f / 3};
  if (cudaMalloc(&g_kernel3, sizeof k3) != cudaSuccess) return -1;
  cudaMemcpy(g_kernel3, k3, sizeof k3, cudaMemcpyHostToDevice);
  return 0;
}

extern "C" void npp_peer_fini(void) {
  cudaFree(g_canny_buf);
  cudaFree(g_harris_buf);
  cudaFree(g_kernel3);
  cudaFree(g_smooth8);
  g_canny_buf = g_harris_buf = g_smooth8 = 0;
  g_kernel3 = 0;
}

extern "C" int npp_blur_box(const float* in, float* out) {
  NppiSize size = {g_N, g_M};
  NppiPoint off = {0, 0};
  NppiSize mask = {3, 3};
  NppiPoint anchor = {1, 1};
  const int step = g_N * (int)sizeof(float);
  return npp_ok(nppiFilterBoxBorder_32f_C1R_Ctx(in, step, size, off, out, step, size, mask, anchor,
                                                NPP_BORDER_REPLICATE, g_ctx),
                "FilterBoxBorder_32f_C1R");
}

extern "C" int npp_blur_colrow(const float* in, float* tmp, float* out) {
  NppiSize size = {g_N, g_M};
  NppiPoint off = {0, 0};
  const int step = g_N * (int)sizeof(float);
  int r = npp_ok(nppiFilterColumnBorder_32f_C1R_Ctx(in, step, size, off, tmp, step, size, g_kernel3, 3, 1,
                                                    NPP_BORDER_REPLICATE, g_ctx),
                 "FilterColumnBorder_32f_C1R");
  if (r) return r;
  return npp_ok(nppiFilterRowBorder_32f_C1R_Ctx(tmp, step, size, off, out, step, size, g_kernel3, 3, 1,
                                                NPP_BORDER_REPLICATE, g_ctx),
                "FilterRowBorder_32f_C1R");
}

extern "C" int npp_harris(const uint8_t* in, float* out, float k) {
  NppiSize size = {g_N, g_M};
  NppiPoint off = {0, 0};
  return npp_ok(nppiFilterHarrisCornersBorder_8u32f_C1R_Ctx(in, g_N, size, off, out, g_N * (int)sizeof(float), size,
                                                            NPP_FILTER_SOBEL, NPP_MASK_SIZE_3_X_3,
                                                            NPP_MASK_SIZE_3_X_3, k, 1.0f, NPP_BORDER_REPLICATE,
                                                            g_harris_buf, g_ctx),
                "FilterHarrisCornersBorder_8u32f_C1R");
}

extern "C" int npp_canny(const uint8_t* in, uint8_t* out, int16_t low, int16_t high) {
  NppiSize size = {g_N, g_M};
  NppiPoint off = {0, 0};
  return npp_ok(nppiFilterCannyBorder_8u_C1R_Ctx(in, g_N, size, off, out, g_N, size, NPP_FILTER_SOBEL,
                                                 NPP_MASK_SIZE_3_X_3, low, high, nppiNormL2, NPP_BORDER_REPLICATE,
                                                 g_canny_buf, g_ctx),
                "FilterCannyBorder_8u_C1R");
}

extern "C" int npp_gauss5(const float* in, float* out) {
  NppiSize size = {g_N, g_M};
  NppiPoint off = {0, 0};
  const int step = g_N * (int)sizeof(float);
  return npp_ok(nppiFilterGaussBorder_32f_C1R_Ctx(in, step, size, off, out, step, size, NPP_MASK_SIZE_5_X_5,
                                                  NPP_BORDER_REPLICATE, g_ctx),
                "FilterGaussBorder_32f_C1R");
}

extern "C" int npp_gauss_canny(const uint8_t* in, uint8_t* out, int16_t low, int16_t high) {
  NppiSize size = {g_N, g_M};
  NppiPoint off = {0, 0};
  int r = npp_ok(nppiFilterGaussBorder_8u_C1R_Ctx(in, g_N, size, off, g_smooth8, g_N, size, NPP_MASK_SIZE_5_X_5,
                                                  NPP_BORDER_REPLICATE, g_ctx),
                 "FilterGaussBorder_8u_C1R");
  if (r) return r;
  return npp_canny(g_smooth8, out, low, high);
}

#else  // no NPP headers: the peers are missing

extern "C" int npp_peer_init(int, int) { return PEER_MISSING; }
extern "C" const char* npp_peer_version(void) { return "NPP not built"; }
extern "C" int npp_blur_box(const float*, float*) { return PEER_MISSING; }
extern "C" int npp_blur_colrow(const float*, float*, float*) { return PEER_MISSING; }
extern "C" int npp_harris(const uint8_t*, float*, float) { return PEER_MISSING; }
extern "C" int npp_canny(const uint8_t*, uint8_t*, int16_t, int16_t) { return PEER_MISSING; }
extern "C" int npp_gauss5(const float*, float*) { return PEER_MISSING; }
extern "C" int npp_gauss_canny(const uint8_t*, uint8_t*, int16_t, int16_t) { return PEER_MISSING; }
extern "C" void npp_peer_fini(void) {}

#endif
