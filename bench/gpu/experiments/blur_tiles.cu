// Experiment (bench/gpu/HISTORY.md, "Blur's tile shape"): blur's fused
// kernel by hand, the tile shape a parameter. To run it beside formac:
//   cp bench/gpu/experiments/blur_tiles.cu .bench-gpu/exp/ && : > .bench-gpu/exp/blur_tiles.h
//   cat bench/gpu/experiments/blur_tiles.inc >> .bench-gpu/exp/experiments.inc
//   EXPERIMENTS=1 bash bench/gpu/run_on_device.sh   (on the GPU machine)
// A thread computes R rows of one column of temp (R + 2 loads) into shared
// memory, TW columns per tile, 256 threads; the halo columns by the first
// 2*TH threads; then R outputs. Loads clamped, the frame forced to 0 (the
// Forma rule gives 0 there). Same arithmetic as formac's.
#include <cuda_runtime.h>
#include <cstdlib>
static __device__ __forceinline__ float dv(float x) {
  const float c = 3.0f, r = 0.333333343f;
  const float q = __fmul_rn(x, r);
  const float e = fmaxf(__fmaf_rn(-q, c, x), -3.40282347e38f);
  return copysignf(__fmaf_rn(e, r, q), x);
}
template <int R, int TW, int MINB>
__global__ void __launch_bounds__(256, MINB) k_bt(const float* __restrict__ in, float* __restrict__ out, int M, int N) {
  constexpr int TH = R * (256 / TW), SW = TW + 2;
  __shared__ float tile[TH * SW];
  const int tid = threadIdx.x;
  const int t0 = blockIdx.y * TH, t1 = blockIdx.x * TW;
  const int c = tid % TW, r = (tid / TW) * R;
  const int col = min(t1 + c, N - 1);
  float a[R + 2];
#pragma unroll
  for (int k = 0; k < R + 2; k++) a[k] = in[(long long)min(max(t0 + r - 1 + k, 0), M - 1) * N + col];
  float h0 = 0, h1 = 0, h2 = 0;
  const bool halo = tid < 2 * TH;
  const int hr = tid / 2, hc = (tid % 2) ? t1 + TW : t1 - 1;
  if (halo) {
    const int cc = min(max(hc, 0), N - 1);
    h0 = in[(long long)min(max(t0 + hr - 1, 0), M - 1) * N + cc];
    h1 = in[(long long)min(max(t0 + hr, 0), M - 1) * N + cc];
    h2 = in[(long long)min(max(t0 + hr + 1, 0), M - 1) * N + cc];
  }
  asm volatile("" ::: "memory");
#pragma unroll
  for (int k = 0; k < R; k++) tile[(r + k) * SW + c + 1] = dv((a[k] + a[k + 1]) + a[k + 2]);
  if (halo) tile[hr * SW + ((tid % 2) ? TW + 1 : 0)] = dv((h0 + h1) + h2);
  __syncthreads();
#pragma unroll
  for (int k = 0; k < R; k++) {
    const int row = t0 + r + k, oc = t1 + c;
    const float* t = &tile[(r + k) * SW + c];
    float o = dv((t[0] + t[1]) + t[2]);
    if (row == 0 || row >= M - 1 || oc == 0 || oc >= N - 1) o = 0.0f;
    if (row < M && oc < N) out[(long long)row * N + oc] = o;
  }
}
struct bt_ws { int M, N; };
#define BT(name, R, TW, MINB)                                                                      \
  extern "C" bt_ws* name##_create(int M, int N) { bt_ws* w = (bt_ws*)malloc(sizeof *w); w->M = M; w->N = N; return w; } \
  extern "C" void name##_destroy(bt_ws* w) { free(w); }                                            \
  extern "C" int name##_run(bt_ws* w, float* in, float* out) {                                     \
    constexpr int TH = R * (256 / TW);                                                             \
    k_bt<R, TW, MINB><<<dim3((w->N + TW - 1) / TW, (w->M + TH - 1) / TH), 256>>>(in, out, w->M, w->N); \
    return cudaGetLastError() != cudaSuccess;                                                      \
  }
BT(bt8x64, 8, 64, 1)
BT(bt16x64, 16, 64, 1)
BT(bt16x64b8, 16, 64, 8)
BT(bt32x64, 32, 64, 1)
