// tests/gpu/bigimage/bigimage.cu — images of more than 2^31 points on the GPU
// (tests/gpu/bigimage.sh; README.md there). For each case, formac's CUDA (fused,
// then --no-fuse; host images through the workspace API, one workspace at a
// time) against formac's C of the same program run here on the CPU (OpenMP),
// every point, and both against an independent formula (the program's
// arithmetic written out in C++, in the same order) on sampled rows or planes:
//   big2d at 50000 x 50000 floats (2.5e9 points: the kernels' 64-bit index form)
//   big2d at 30000 x 30000 floats (9e8 points, byte offsets past 2^31: the
//         32-bit form with 64-bit addresses)
//   big3d at 1300^3 floats (2.2e9 points)
// Prints a line per check; exit status 0 when every one passed.
//   bigimage [--2d N] [--2d-small N] [--3d N] [--only 2d|2d-small|3d]
#include <cuda_runtime.h>
#include <omp.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "big2d_c.h"
#include "big2d_f.h"
#include "big2d_u.h"
#include "big3d_c.h"
#include "big3d_f.h"
#include "big3d_u.h"

namespace {

int g_failures = 0;
auto g_start = std::chrono::steady_clock::now();

double seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - g_start).count(); }

void say(bool ok, const std::string& what) {
  std::printf("[%6.1f s] %s %s\n", seconds(), ok ? "ok  " : "FAIL", what.c_str());
  std::fflush(stdout);
  g_failures += !ok;
}

// The input: point i is a float in [0, 1) from a hash of i.
float value(uint64_t i) {
  uint64_t z = i + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (float)(z >> 40) * (1.0f / 16777216.0f);
}

float* filled(size_t n) {
  float* p = (float*)std::malloc(n * sizeof(float));
  if (!p) { std::fprintf(stderr, "out of host memory (%zu floats)\n", n); std::exit(2); }
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < (long long)n; i++) p[i] = value((uint64_t)i);
  return p;
}

long long clampIndex(long long i, long long n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }
long long mirrorIndex(long long i, long long n) { return i < 0 ? -i : i >= n ? 2 * n - 2 - i : i; }

// got == want at every point (bitwise); the first difference in the message.
void compareAll(const std::string& what, const float* got, const float* want, size_t n) {
  long long bad = 0, first = -1;
#pragma omp parallel for reduction(+ : bad)
  for (long long i = 0; i < (long long)n; i++)
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0) bad++;
  if (bad)
    for (long long i = 0; i < (long long)n && first < 0; i++)
      if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0) first = i;
  char msg[256];
  if (bad)
    std::snprintf(msg, sizeof msg, ": %lld of %zu points differ, the first at %lld (%.9g instead of %.9g)", bad, n,
                  first, got[first], want[first]);
  else
    std::snprintf(msg, sizeof msg, ": all %zu points equal", n);
  say(bad == 0, what + msg);
}

// Points of `out` given by `index` for `count` values, against formula(k).
void compareSample(const std::string& what, const float* out, const std::vector<long long>& index,
                   const std::function<float(long long)>& formula) {
  long long bad = 0, first = -1;
  for (long long k : index) {
    float want = formula(k);
    if (std::memcmp(&out[k], &want, sizeof(float)) != 0 && bad++ == 0) first = k;
  }
  char msg[256];
  if (bad)
    std::snprintf(msg, sizeof msg, ": %lld of %zu sampled points differ, the first at %lld (%.9g instead of %.9g)",
                  bad, index.size(), first, out[first], formula(first));
  else
    std::snprintf(msg, sizeof msg, ": %zu sampled points equal the formula", index.size());
  say(bad == 0, what + msg);
}

// Every point of the given rows (of `rowLength` points each).
std::vector<long long> rowsOf(const std::vector<long long>& rows, long long count, long long rowLength) {
  std::vector<long long> k;
  for (long long r : rows)
    if (r >= 0 && r < count)
      for (long long j = 0; j < rowLength; j++) k.push_back(r * rowLength + j);
  return k;
}

// Runs one CUDA variant through its workspace on host images: create, run, destroy.
template <typename Create, typename Run, typename Destroy>
void gpuRun(const std::string& what, Create create, Run run, Destroy destroy, float* in, float* out, size_t n) {
  std::memset(out, 0xff, n * sizeof(float));  // NaN: a point the GPU leaves unwritten fails
  auto* ws = create();
  if (!ws) { say(false, what + ": create failed (device memory?)"); return; }
  int rc = run(ws, in, out);
  cudaError_t e = cudaDeviceSynchronize();
  destroy(ws);
  say(rc == 0 && e == cudaSuccess, what + ": ran (" + (e == cudaSuccess ? "ok" : cudaGetErrorString(e)) + ")");
}

void case2d(long long n) {
  const long long M = n, N = n;
  const size_t points = (size_t)M * N;
  std::printf("== big2d at %lld x %lld: %zu points (%s 2^31), %.1f GB a float image\n", M, N, points,
              points > (1ull << 31) ? "more than" : "less than", points * 4e-9);
  float* in = filled(points);
  float* want = (float*)std::malloc(points * sizeof(float));
  float* got = (float*)std::malloc(points * sizeof(float));
  if (!want || !got) { std::fprintf(stderr, "out of host memory\n"); std::exit(2); }
  auto x = [&](long long i, long long j) { return in[i * N + j]; };
  auto t = [&](long long i, long long j) {
    return ((x(mirrorIndex(i - 1, M), j) + x(i, j)) + x(mirrorIndex(i + 1, M), j)) / 3.0f;
  };
  auto formula = [&](long long k) {
    long long i = k / N, j = k % N;
    return ((t(i, clampIndex(j - 1, N)) + t(i, j)) + t(i, clampIndex(j + 1, N))) / 3.0f;
  };
  // Rows at both edges, the middle, and where the linear index passes 2^31.
  std::vector<long long> sample = rowsOf({0, 1, M / 2, (1ll << 31) / N, (1ll << 31) / N + 1, M - 2, M - 1}, M, N);
  big2d_c(in, (int)M, (int)N, want);
  say(true, "C (OpenMP, " + std::to_string(omp_get_max_threads()) + " threads) computed");
  compareSample("C vs formula", want, sample, formula);
  gpuRun("CUDA fused", [&] { return big2d_f_create((int)M, (int)N); }, big2d_f_run, big2d_f_destroy, in, got, points);
  compareAll("CUDA fused vs C", got, want, points);
  compareSample("CUDA fused vs formula", got, sample, formula);
  gpuRun("CUDA --no-fuse", [&] { return big2d_u_create((int)M, (int)N); }, big2d_u_run, big2d_u_destroy, in, got, points);
  compareAll("CUDA --no-fuse vs C", got, want, points);
  std::free(in);
  std::free(want);
  std::free(got);
}

void case3d(long long n) {
  const long long D = n, M = n, N = n;
  const size_t points = (size_t)D * M * N;
  std::printf("== big3d at %lld^3: %zu points (%s 2^31), %.1f GB a float volume\n", n, points,
              points > (1ull << 31) ? "more than" : "less than", points * 4e-9);
  float* in = filled(points);
  float* want = (float*)std::malloc(points * sizeof(float));
  float* got = (float*)std::malloc(points * sizeof(float));
  if (!want || !got) { std::fprintf(stderr, "out of host memory\n"); std::exit(2); }
  auto x = [&](long long d, long long i, long long j) {
    return in[(clampIndex(d, D) * M + clampIndex(i, M)) * N + clampIndex(j, N)];
  };
  auto a = [&](long long d, long long i, long long j) {
    return ((((((x(d - 1, i, j) + x(d + 1, i, j)) + x(d, i - 1, j)) + x(d, i + 1, j)) + x(d, i, j - 1)) + x(d, i, j + 1)) +
            x(d, i, j)) / 7.0f;
  };
  auto formula = [&](long long k) {
    long long d = k / (M * N), i = k / N % M, j = k % N;
    return a(d, mirrorIndex(i + 1, M), j) - 0.5f * a(d, mirrorIndex(i - 1, M), mirrorIndex(j + 1, N));
  };
  // Planes at both ends, the middle, and where the linear index passes 2^31.
  std::vector<long long> sample =
      rowsOf({0, 1, D / 2, (1ll << 31) / (M * N), (1ll << 31) / (M * N) + 1, D - 2, D - 1}, D, M * N);
  big3d_c(in, (int)D, (int)M, (int)N, want);
  say(true, "C (OpenMP, " + std::to_string(omp_get_max_threads()) + " threads) computed");
  compareSample("C vs formula", want, sample, formula);
  gpuRun("CUDA fused", [&] { return big3d_f_create((int)D, (int)M, (int)N); }, big3d_f_run, big3d_f_destroy, in, got,
         points);
  compareAll("CUDA fused vs C", got, want, points);
  compareSample("CUDA fused vs formula", got, sample, formula);
  gpuRun("CUDA --no-fuse", [&] { return big3d_u_create((int)D, (int)M, (int)N); }, big3d_u_run, big3d_u_destroy, in,
         got, points);
  compareAll("CUDA --no-fuse vs C", got, want, points);
  std::free(in);
  std::free(want);
  std::free(got);
}

}  // namespace

int main(int argc, char** argv) {
  long long n2 = 50000, n2small = 30000, n3 = 1300;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--2d") n2 = std::atoll(argv[i + 1]);
    else if (a == "--2d-small") n2small = std::atoll(argv[i + 1]);
    else if (a == "--3d") n3 = std::atoll(argv[i + 1]);
    else if (a == "--only") only = argv[i + 1];
  }
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) { std::fprintf(stderr, "no CUDA device\n"); return 2; }
  std::printf("device: %s, %.1f GB; %d CPU threads\n", prop.name, prop.totalGlobalMem * 1e-9, omp_get_max_threads());
  if (only.empty() || only == "2d") case2d(n2);
  if (only.empty() || only == "2d-small") case2d(n2small);
  if (only.empty() || only == "3d") case3d(n3);
  std::printf("bigimage: %s\n", g_failures ? "FAILED" : "every check passed");
  return g_failures ? 1 : 0;
}
