// bench/gpu/scan — formac's scans and summed-area tables on the GPU against
// CUB's DeviceScan, NPP's integral image and box filter, and each one's memory
// floor (the bytes it must read and write at the bandwidth of a
// device-to-device copy measured in the same run), after checking the results
// (README.md). Python peers (torch, JAX, CuPy) run from peers_scan.py.
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#ifdef BENCH_NPP
#include <npp.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "colscan.h"
#include "rowscan.h"
#include "sat_f32.h"
#include "sat_f64.h"
#include "sat_u8.h"
#include "scan1d.h"
#include "boxes.h"  // box_r1 ... (run.sh prepare writes it)

#include "bench_timing.h"

struct Row {
  std::string op, variant;
  double ms, floor, peer;  // floor: the op's memory floor; peer: the named peer's time (0: none)
};
static std::vector<Row> g_rows;

static void row(const std::string& op, const std::string& variant, double ms, double floor, double peer) {
  g_rows.push_back({op, variant, ms, floor, peer});
  std::printf("%-34s %-44s %9.4f ms\n", op.c_str(), variant.c_str(), ms);
}

static int g_failures = 0;
static void expect(bool ok, const std::string& what) {
  std::printf("check %-60s %s\n", what.c_str(), ok ? "ok" : "FAILED");
  if (!ok) g_failures++;
}

template <typename T>
static std::vector<T> download(const T* d, size_t n) {
  std::vector<T> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

int main(int argc, char** argv) {
  int n = 8192;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--size") && i + 1 < argc) n = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) g_reps = std::atoi(argv[++i]);
  }
  const size_t pts = (size_t)n * n;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));

  std::vector<float> hf(pts);
  std::vector<uint8_t> h8(pts);
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < pts; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    hf[i] = (float)((x >> 11) * (1.0 / 9007199254740992.0));
    h8[i] = (uint8_t)(x >> 56);
  }
  float *img, *outf, *copy;
  double* outd;
  uint8_t* img8;
  int* outi;
  CK(cudaMalloc(&img, pts * 4));
  CK(cudaMalloc(&outf, pts * 4));
  CK(cudaMalloc(&copy, pts * 8));
  CK(cudaMalloc(&outd, pts * 8));
  CK(cudaMalloc(&img8, pts));
  CK(cudaMalloc(&outi, (size_t)(n + 1) * (n + 1) * 4));
  CK(cudaMemcpy(img, hf.data(), pts * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(img8, h8.data(), pts, cudaMemcpyHostToDevice));

  auto* ws_sat64 = sat_f64_create(n, n);
  auto* ws_sat32 = sat_f32_create(n, n);
  auto* ws_sat8 = sat_u8_create(n, n);
  auto* ws_scan = scan1d_create((int)pts);
  auto* ws_row = rowscan_create(n, n);
  auto* ws_col = colscan_create(n, n);
  if (!ws_sat64 || !ws_sat32 || !ws_sat8 || !ws_scan || !ws_row || !ws_col) {
    std::fprintf(stderr, "a formac workspace could not be made\n");
    return 1;
  }
  size_t cubBytes = 0;
  cub::DeviceScan::InclusiveSum(nullptr, cubBytes, img, outf, (int)pts);
  void* cubTemp;
  CK(cudaMalloc(&cubTemp, cubBytes));

  // ---- checks against a host reference (double, sequential)
  {
    sat_f64_run(ws_sat64, img, outd);
    std::vector<double> s = download(outd, pts);
    // Rows 0, n/2 and n-1 of the table, against a sequential double SAT.
    std::vector<double> col(n, 0.0);
    double worst = 0;
    for (int i = 0; i < n; i++) {
      double rowSum = 0;
      for (int j = 0; j < n; j++) {
        rowSum += hf[(size_t)i * n + j];
        col[j] += rowSum;
        if (i == 0 || i == n / 2 || i == n - 1)
          worst = std::max(worst, std::fabs(s[(size_t)i * n + j] - col[j]) / std::max(1.0, std::fabs(col[j])));
      }
    }
    expect(worst < 1e-12, "sat(float) -> double vs a sequential double SAT (rel " + std::to_string(worst) + ")");
    sat_u8_run(ws_sat8, img8, outi);
    std::vector<int> si = download(outi, pts);
    long long bad = 0;
    std::vector<long long> c8(n, 0);
    for (int i = 0; i < n; i++) {
      long long r = 0;
      for (int j = 0; j < n; j++) {
        r += h8[(size_t)i * n + j];
        c8[j] += r;
        bad += si[(size_t)i * n + j] != (int)(unsigned)(unsigned long long)c8[j];
      }
    }
    expect(bad == 0, "sat(u8, int) exact");
    scan1d_run(ws_scan, img, outf);
    std::vector<float> f = download(outf, pts);
    double acc = 0, worst1 = 0;
    for (size_t i = 0; i < pts; i++) {
      acc += hf[i];
      worst1 = std::max(worst1, std::fabs(f[i] - acc) / std::max(1.0, acc));
    }
    expect(worst1 < 1e-6, "scan 1-D float vs sequential double (rel " + std::to_string(worst1) + ")");
    rowscan_run(ws_row, img, outf);
    f = download(outf, pts);
    worst1 = 0;
    for (int i : {0, n / 3, n - 1}) {
      acc = 0;
      for (int j = 0; j < n; j++) {
        acc += hf[(size_t)i * n + j];
        worst1 = std::max(worst1, std::fabs(f[(size_t)i * n + j] - acc) / std::max(1.0, acc));
      }
    }
    expect(worst1 < 1e-6, "row scan vs sequential double");
    colscan_run(ws_col, img, outf);
    f = download(outf, pts);
    worst1 = 0;
    for (int j : {0, n / 3, n - 1}) {
      acc = 0;
      for (int i = 0; i < n; i++) {
        acc += hf[(size_t)i * n + j];
        worst1 = std::max(worst1, std::fabs(f[(size_t)i * n + j] - acc) / std::max(1.0, acc));
      }
    }
    expect(worst1 < 1e-6, "column scan vs sequential double");
  }

  // ---- the floor: a device-to-device copy of the float image (4 B read, 4 B written a point)
  const double copyMs = median_ms([&] { CK(cudaMemcpyAsync(copy, img, pts * 4, cudaMemcpyDeviceToDevice, 0)); });
  const double perByte = copyMs / 8.0;  // ms per byte of traffic a point
  row("copy float image", "cudaMemcpy device to device", copyMs, copyMs, 0);

  double cub = median_ms([&] { cub::DeviceScan::InclusiveSum(cubTemp, cubBytes, img, outf, (int)pts); });
  row("scan 1-D float, 2^26-ish", "CUB DeviceScan::InclusiveSum", cub, 8 * perByte, cub);
  row("scan 1-D float, 2^26-ish", "formac scan(x, 0, float)", median_ms([&] { scan1d_run(ws_scan, img, outf); }),
      8 * perByte, cub);
  row("row scan float -> float", "formac scan(img, 1, float)", median_ms([&] { rowscan_run(ws_row, img, outf); }),
      8 * perByte, 0);
  row("column scan float -> float", "formac scan(img, 0, float)", median_ms([&] { colscan_run(ws_col, img, outf); }),
      8 * perByte, 0);
  row("SAT float -> double", "formac sat(img)", median_ms([&] { sat_f64_run(ws_sat64, img, outd); }), 12 * perByte, 0);
  row("SAT float -> float", "formac sat(img, float)", median_ms([&] { sat_f32_run(ws_sat32, img, outf); }),
      8 * perByte, 0);
  double npp = 0;
#ifdef BENCH_NPP
  NppStreamContext ctx = NppStreamContext();
  ctx.hStream = 0;
  ctx.nCudaDeviceId = 0;
  ctx.nMultiProcessorCount = prop.multiProcessorCount;
  ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
  ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
  ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  {
    NppiSize roi = {n, n};
    npp = median_ms([&] { nppiIntegral_8u32s_C1R_Ctx(img8, n, outi, (n + 1) * 4, roi, 0, ctx); });
    row("SAT u8 -> int", "NPP nppiIntegral_8u32s_C1R", npp, 5 * perByte, npp);
  }
#endif
  row("SAT u8 -> int", "formac sat(img, int)", median_ms([&] { sat_u8_run(ws_sat8, img8, outi); }), 5 * perByte, npp);

  // Box filters from the SAT: every radius costs the same; NPP's grows with it.
  for (const BoxFilter& b : g_boxes) {
    void* ws = b.create(n, n);
    if (!ws) {
      std::fprintf(stderr, "box workspace\n");
      return 1;
    }
    std::string op = "box filter " + std::to_string(2 * b.radius + 1) + "x" + std::to_string(2 * b.radius + 1);
    double peer = 0;
#ifdef BENCH_NPP
    if (b.radius <= 31) {
      NppiSize roi = {n, n}, mask = {2 * b.radius + 1, 2 * b.radius + 1};
      NppiPoint off = {0, 0}, anchor = {b.radius, b.radius};
      peer = median_ms([&] {
        nppiFilterBoxBorder_32f_C1R_Ctx(img, n * 4, roi, off, outf, n * 4, roi, mask, anchor, NPP_BORDER_REPLICATE, ctx);
      }, b.radius > 7 ? 5 : 0);
      row(op, "NPP nppiFilterBoxBorder_32f_C1R", peer, 8 * perByte, peer);
      std::vector<float> ref = download(outf, pts);
      b.run(ws, img, outf);
      std::vector<float> f = download(outf, pts);
      double worst = 0;
      for (int i = b.radius + 1; i < n - b.radius - 1; i += 61)
        for (int j = b.radius + 1; j < n - b.radius - 1; j += 7)
          worst = std::max(worst, (double)std::fabs(f[(size_t)i * n + j] - ref[(size_t)i * n + j]));
      expect(worst < 1e-5, op + " interior vs NPP (abs " + std::to_string(worst) + ")");
    }
#endif
    row(op, "formac sat + 4-read stencil", median_ms([&] { b.run(ws, img, outf); }), 8 * perByte, peer);
    b.destroy(ws);
  }

  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  std::printf("\n%s, %s, %dx%d float image (%.0f MiB), median of %d runs; floor = the bytes the op must read and "
              "write at the copy's bandwidth\n\n",
              date, prop.name, n, n, pts * 4 / 1048576.0, g_reps);
  std::printf("| operation | variant | median ms | this / floor | peer / this |\n|---|---|---|---|---|\n");
  for (const Row& r : g_rows)
    std::printf("| %s | %s | %.4f | %.2fx | %s |\n", r.op.c_str(), r.variant.c_str(), r.ms, r.ms / r.floor,
                r.peer > 0 ? (std::to_string(r.peer / r.ms).substr(0, 4) + "x").c_str() : "");
  if (g_failures) std::printf("\n%d CHECK(S) FAILED\n", g_failures);
  return g_failures ? 1 : 0;
}
