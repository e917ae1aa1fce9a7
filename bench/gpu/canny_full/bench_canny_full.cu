// bench/gpu/canny_full — Canny with hysteresis on the GPU (issue 29): formac's
// examples/canny/canny_opencv.idsl (OpenCV's cv::Canny rules; its `do` loop runs
// as one CUDA graph) against NPP's nppiFilterCannyBorder_8u_C1R (L1 norm, 3x3
// Sobel, replicated border) and a device-to-device copy of the image, all in one
// run, on 8192² 8-bit images (README.md). Before timing, formac's CUDA edges are
// compared with formac's C (OpenMP, same program) byte for byte.
#include <cuda_runtime.h>
#ifdef BENCH_NPP
#include <npp.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "canny_gpu.h"
extern "C" void canny_cpu(unsigned char* img, double low, double high, int M, int N, int R, unsigned char* edges);

#include "bench_timing.h"

// The 512² photo (a .npy of uint8 written by `formac run`: its last 512² bytes)
// enlarged bilinearly to n², and blurred xorshift noise (three box passes of
// radius 6 each way, about a Gaussian of sigma 6: long winding edges).
static std::vector<uint8_t> photo(const char* path, int n) {
  std::vector<uint8_t> all;
  FILE* f = std::fopen(path, "rb");
  if (!f) { std::perror(path); std::exit(1); }
  for (int c; (c = std::fgetc(f)) != EOF;) all.push_back((uint8_t)c);
  std::fclose(f);
  const int s = 512;
  const uint8_t* p = all.data() + all.size() - (size_t)s * s;
  std::vector<uint8_t> out((size_t)n * n);
  for (int y = 0; y < n; y++)
    for (int x = 0; x < n; x++) {
      double fy = (y + 0.5) * s / n - 0.5, fx = (x + 0.5) * s / n - 0.5;
      int y0 = std::clamp((int)fy, 0, s - 1), x0 = std::clamp((int)fx, 0, s - 1);
      int y1 = std::min(y0 + 1, s - 1), x1 = std::min(x0 + 1, s - 1);
      double wy = std::clamp(fy - y0, 0.0, 1.0), wx = std::clamp(fx - x0, 0.0, 1.0);
      double v = (1 - wy) * ((1 - wx) * p[y0 * s + x0] + wx * p[y0 * s + x1]) +
                 wy * ((1 - wx) * p[y1 * s + x0] + wx * p[y1 * s + x1]);
      out[(size_t)y * n + x] = (uint8_t)(v + 0.5);
    }
  return out;
}
static std::vector<uint8_t> noise(int n) {
  std::vector<float> a((size_t)n * n), b(a.size());
  uint32_t st = 2463534242u;
  for (auto& v : a) { st ^= st << 13; st ^= st >> 17; st ^= st << 5; v = (float)(st & 255); }
  const int r = 6;
  for (int pass = 0; pass < 6; pass++) {  // three passes along x, three along y
    bool alongX = pass % 2 == 0;
    for (int line = 0; line < n; line++) {
      double sum = 0;
      auto at = [&](int i) -> float& { return alongX ? a[(size_t)line * n + i] : a[(size_t)i * n + line]; };
      auto out = [&](int i) -> float& { return alongX ? b[(size_t)line * n + i] : b[(size_t)i * n + line]; };
      for (int i = -r; i <= r; i++) sum += at(std::clamp(i, 0, n - 1));
      for (int i = 0; i < n; i++) {
        out(i) = (float)(sum / (2 * r + 1));
        sum += at(std::min(i + r + 1, n - 1)) - at(std::max(i - r, 0));
      }
    }
    std::swap(a, b);
  }
  std::vector<uint8_t> out(a.size());
  for (size_t i = 0; i < a.size(); i++) out[i] = (uint8_t)std::clamp((a[i] - 128.0f) * 8.0f + 128.0f, 0.0f, 255.0f);
  return out;
}

int main(int argc, char** argv) {
  int n = 8192;
  const char* photoPath = "camera.npy";
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--size" && i + 1 < argc) n = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) g_reps = std::atoi(argv[++i]);
    else if (a == "--photo" && i + 1 < argc) photoPath = argv[++i];
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s; %d² 8-bit images; median of %d runs (CUDA events)\n\n", prop.name, n, g_reps);
  struct Input { std::string name; std::vector<uint8_t> img; double low, high; };
  std::vector<Input> inputs = {{"photo enlarged", photo(photoPath, n), 10, 30}, {"blurred noise", noise(n), 10, 40}};
  const size_t bytes = (size_t)n * n;
  uint8_t *d_in, *d_out, *d_copy;
  CK(cudaMalloc(&d_in, bytes));
  CK(cudaMalloc(&d_out, bytes));
  CK(cudaMalloc(&d_copy, bytes));
  const int cap = 1 << 30;  // rounds: always enough
  canny_gpu_workspace* full = canny_gpu_create(n, n, cap);
  canny_gpu_workspace* none = canny_gpu_create(n, n, 0);
  if (!full || !none) { std::fprintf(stderr, "canny_gpu_create failed\n"); return 1; }
#ifdef BENCH_NPP
  NppStreamContext ctx;
  std::memset(&ctx, 0, sizeof ctx);
  ctx.hStream = 0;
  ctx.nCudaDeviceId = 0;
  ctx.nMultiProcessorCount = prop.multiProcessorCount;
  ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
  ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
  ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  NppiSize roi = {n, n};
  int nppBytes = 0;
  nppiFilterCannyBorderGetBufferSize(roi, &nppBytes);
  Npp8u* nppBuf;
  CK(cudaMalloc(&nppBuf, nppBytes > 0 ? nppBytes : 1));
#endif
  int failures = 0;
  std::printf("| input | variant | ms | / copy | / NPP |\n|---|---|---|---|---|\n");
  std::vector<std::string> notes;
  for (auto& in : inputs) {
    CK(cudaMemcpy(d_in, in.img.data(), bytes, cudaMemcpyHostToDevice));
    // Check: the CUDA edges equal the C edges of the same program.
    std::vector<uint8_t> want(bytes), got(bytes);
    canny_cpu(in.img.data(), in.low, in.high, n, n, cap, want.data());
    if (canny_gpu_run_async(full, 0, d_in, in.low, in.high, d_out)) return 1;
    CK(cudaMemcpy(got.data(), d_out, bytes, cudaMemcpyDeviceToHost));
    size_t diff = 0, edges = 0;
    for (size_t i = 0; i < bytes; i++) { diff += got[i] != want[i]; edges += want[i] != 0; }
    notes.push_back(in.name + ": " + std::to_string(edges) + " edge points; CUDA vs C: " +
                    (diff ? std::to_string(diff) + " points differ" : "identical"));
    failures += diff != 0;
    double copy = median_ms([&] { CK(cudaMemcpyAsync(d_copy, d_in, bytes, cudaMemcpyDeviceToDevice, 0)); });
    double nppMs = 0;
#ifdef BENCH_NPP
    nppMs = median_ms([&] {
      nppiFilterCannyBorder_8u_C1R_Ctx(d_in, n, roi, {0, 0}, d_copy, n, roi, NPP_FILTER_SOBEL, NPP_MASK_SIZE_3_X_3,
                                       (Npp16s)in.low, (Npp16s)in.high, nppiNormL1, NPP_BORDER_REPLICATE, nppBuf, ctx);
    });
    std::vector<uint8_t> npp(bytes);
    CK(cudaMemcpy(npp.data(), d_copy, bytes, cudaMemcpyDeviceToHost));
    size_t nd = 0;
    for (size_t i = 0; i < bytes; i++) nd += (npp[i] != 0) != (want[i] != 0);
    notes.push_back(in.name + ": NPP's edges differ from OpenCV's rules at " + std::to_string(nd) + " points (" +
                    std::to_string(100.0 * nd / bytes) + "%)");
#endif
    auto line = [&](const std::string& v, double ms) {
      std::printf("| %s | %s | %.3f | %.2f | %s |\n", in.name.c_str(), v.c_str(), ms, ms / copy,
                  nppMs > 0 ? (std::to_string(ms / nppMs).substr(0, 4)).c_str() : "-");
    };
    double fullMs = median_ms([&] { canny_gpu_run_async(full, 0, d_in, in.low, in.high, d_out); });
    long long rounds = 0;
    canny_gpu_loop_rounds(full, &rounds);
    line("formac canny_opencv (hysteresis to the fixed point)", fullMs);
    notes.push_back(in.name + ": the hysteresis loop ran " + std::to_string(rounds) + " rounds (" +
                    std::to_string(rounds ? fullMs * 1e3 / rounds : 0.0).substr(0, 5) + " µs a round)");
    line("formac canny_opencv, 0 rounds (no hysteresis)",
         median_ms([&] { canny_gpu_run_async(none, 0, d_in, in.low, in.high, d_out); }));
    if (nppMs > 0) line("NPP FilterCannyBorder (L1, with hysteresis)", nppMs);
    line("device-to-device copy of the image", copy);
  }
  std::printf("\n");
  for (auto& s : notes) std::printf("- %s\n", s.c_str());
  canny_gpu_destroy(full);
  canny_gpu_destroy(none);
  return failures ? 1 : 0;
}
