// bench/gpu/experiments/points_per_thread.cu — nvcc -arch=sm_90 -O3 points_per_thread.cu && ./a.out
// Microbenchmark: a pointwise map on 8-bit (and 16-bit) images, V points a thread
// strided by 32 along the row (each warp instruction coalesced), against a copy.
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>
template <typename T, int V>
__global__ void __launch_bounds__(256) mapk(const T* __restrict__ s, T* __restrict__ o, int M, int N) {
  for (int q0 = blockIdx.y * blockDim.y + threadIdx.y; q0 < M; q0 += gridDim.y * blockDim.y)
    for (int x = blockIdx.x * (32 * V) + threadIdx.x; x < N; x += gridDim.x * 32 * V) {
#pragma unroll
      for (int v = 0; v < V; ++v) {
        const int q1 = x + v * 32;
        if (q1 < N) o[q0 * N + q1] = (T)((int)s[q0 * N + q1] == 2 ? 255 : 0);
      }
    }
}
template <typename T, int V>
float timeit(const T* s, T* o, int M, int N) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  dim3 blk(32, 8), grd((N + 32 * V - 1) / (32 * V), std::min((M + 7) / 8, 65535));
  std::vector<float> t;
  for (int r = 0; r < 30; ++r) {
    cudaEventRecord(a); mapk<T, V><<<grd, blk>>>(s, o, M, N); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms);
  }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
template <typename T>
void run(const char* name, int M, int N) {
  T *s, *o; size_t bytes = sizeof(T) * (size_t)M * N;
  cudaMalloc(&s, bytes); cudaMalloc(&o, bytes); cudaMemset(s, 2, bytes);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < 30; ++r) {
    cudaEventRecord(a); cudaMemcpyAsync(o, s, bytes, cudaMemcpyDeviceToDevice); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  printf("%s %dx%d copy %.3f | V1 %.3f V2 %.3f V4 %.3f V8 %.3f V16 %.3f ms\n", name, M, N, t[15],
         timeit<T, 1>(s, o, M, N), timeit<T, 2>(s, o, M, N), timeit<T, 4>(s, o, M, N), timeit<T, 8>(s, o, M, N),
         timeit<T, 16>(s, o, M, N));
  cudaFree(s); cudaFree(o);
}
int main() {
  run<unsigned char>("u8", 8192, 8192);
  run<unsigned char>("u8", 8191, 8191);
  run<unsigned short>("u16", 8192, 8192);
  run<float>("f32", 8192, 8192);
  run<double>("f64", 8192, 8192);
}
