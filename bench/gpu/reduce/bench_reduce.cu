// bench/gpu/reduce — formac's reductions and histograms on the GPU against CUB
// (DeviceReduce, DeviceHistogram), NPP's histogram and a device-to-device copy,
// all in one run, after checking that the results agree (README.md).
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
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

#include "blur.h"
#include "count_f32.h"
#include "grad8.h"
#include "max_f32.h"
#include "sum_blur.h"
#include "sum_f32.h"
// The histograms, where this formac compiles them for CUDA.
#if __has_include("hist8.h") && __has_include("hist_grad8.h")
#define BENCH_HISTOGRAM 1
#include "hist8.h"
#include "hist_grad8.h"
#endif

// where and topk (the Python peer of topk: peers_reduce.py).
#if __has_include("where_f32.h") && __has_include("topk_f32.h")
#define BENCH_SELECT 1
#include "topk_f32.h"
#include "where_f32.h"
#endif

#include "bench_timing.h"

struct ToDouble {
  __host__ __device__ double operator()(float x) const { return x; }
};
// The entries of `out` from the count CUB selected up to k set to -1: CUB's
// compaction plus this gives where's fixed-size result (LANGUAGE.md §7), the
// same bytes written.
__global__ void fillFromCount(long long* out, const long long* count, long long k) {
  for (long long i = *count + blockIdx.x * (long long)blockDim.x + threadIdx.x; i < k; i += (long long)gridDim.x * blockDim.x)
    out[i] = -1;
}
struct AboveHalfFlag {
  __host__ __device__ bool operator()(float x) const { return x > 0.5f; }
};
struct AboveHalf {
  __host__ __device__ long long operator()(float x) const { return x > 0.5f ? 1 : 0; }
};

struct Row {
  std::string op, variant;
  double ms, base;  // base: the CUB figure of the row's op (0: none)
};
static std::vector<Row> g_rows;
static double g_copy = 0;

static void row(const std::string& op, const std::string& variant, double ms, double base) {
  g_rows.push_back({op, variant, ms, base});
  std::printf("%-28s %-40s %9.4f ms\n", op.c_str(), variant.c_str(), ms);
}

static int g_failures = 0;
static void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::printf("CHECK FAILED: %s\n", what.c_str());
    g_failures++;
  }
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
  float *img, *tmp, *copy;
  uint8_t *img8, *one8, *tmp8;
  double* dsum;
  float* dmax;
  long long *hist, *cnt, *cubhist;
  int* cubhist32;
  CK(cudaMalloc(&img, pts * 4));
  CK(cudaMalloc(&tmp, pts * 4));
  CK(cudaMalloc(&copy, pts * 4));
  CK(cudaMalloc(&img8, pts));
  CK(cudaMalloc(&one8, pts));
  CK(cudaMalloc(&tmp8, pts));
  CK(cudaMalloc(&dsum, 2 * sizeof(double)));
  CK(cudaMalloc(&dmax, 2 * sizeof(float)));
  CK(cudaMalloc(&hist, 256 * sizeof(long long)));
  CK(cudaMalloc(&cnt, 2 * sizeof(long long)));
  CK(cudaMalloc(&cubhist, 256 * sizeof(long long)));
  CK(cudaMalloc(&cubhist32, 256 * sizeof(int)));
  CK(cudaMemcpy(img, hf.data(), pts * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(img8, h8.data(), pts, cudaMemcpyHostToDevice));
  CK(cudaMemset(one8, 7, pts));

  // CUB's temporary storage, once for the largest need.
  size_t need = 0, t;
  auto asDouble = thrust::make_transform_iterator((const float*)img, ToDouble());
  auto tmpAsDouble = thrust::make_transform_iterator((const float*)tmp, ToDouble());
  auto above = thrust::make_transform_iterator((const float*)img, AboveHalf());
  cub::DeviceReduce::Sum(nullptr, t, img, dmax, (int)pts); need = std::max(need, t);
  cub::DeviceReduce::Sum(nullptr, t, asDouble, dsum, (int)pts); need = std::max(need, t);
  cub::DeviceReduce::Max(nullptr, t, img, dmax, (int)pts); need = std::max(need, t);
  cub::DeviceReduce::Sum(nullptr, t, above, cnt, (int)pts); need = std::max(need, t);
  cub::DeviceHistogram::HistogramEven(nullptr, t, img8, cubhist32, 257, 0, 256, (int)pts); need = std::max(need, t);
#ifdef BENCH_SELECT
  // where: all the indices of x > 0.5 (K = 8192², so every one at the default size), CUB's and formac's.
  const long long whereK = 67108864;
  long long *cubwhere, *fwhere, *ftop, *nsel;
  CK(cudaMalloc(&cubwhere, pts * sizeof(long long)));
  CK(cudaMalloc(&fwhere, whereK * sizeof(long long)));
  CK(cudaMalloc(&ftop, 1000 * sizeof(long long)));
  CK(cudaMalloc(&nsel, sizeof(long long)));
  thrust::counting_iterator<long long> indices(0);
  auto flags = thrust::make_transform_iterator((const float*)img, AboveHalfFlag());
  cub::DeviceSelect::Flagged(nullptr, t, indices, flags, cubwhere, nsel, (int)pts); need = std::max(need, t);
#endif
  void* scratch;
  CK(cudaMalloc(&scratch, need));

  auto* ws_sum = sum_f32_create(n, n);
  auto* ws_max = max_f32_create(n, n);
  auto* ws_cnt = count_f32_create(n, n);
#ifdef BENCH_HISTOGRAM
  auto* ws_h8 = hist8_create(n, n);
  auto* ws_hg = hist_grad8_create(n, n);
#else
  void* ws_h8 = &n;
  void* ws_hg = &n;
#endif
  auto* ws_blur = blur_create(n, n);
  auto* ws_sb = sum_blur_create(n, n);
  auto* ws_g8 = grad8_create(n, n);
#ifdef BENCH_SELECT
  auto* ws_wh = where_f32_create(n, n);
  auto* ws_tk = topk_f32_create(n, n);
  if (!ws_wh || !ws_tk) {
    std::fprintf(stderr, "a formac workspace could not be made (where, topk)\n");
    return 1;
  }
#endif
  if (!ws_sum || !ws_max || !ws_cnt || !ws_h8 || !ws_blur || !ws_sb || !ws_g8 || !ws_hg) {
    std::fprintf(stderr, "a formac workspace could not be made\n");
    return 1;
  }

  // ---- checks: formac against CUB on the same data
  {
    double fs, cs;
    float fm, cm;
    long long fc, cc;
    std::vector<long long> fh(256), ch(256);
    std::vector<int> ch32(256);
    sum_f32_run(ws_sum, img, dsum);
    CK(cudaMemcpy(&fs, dsum, 8, cudaMemcpyDeviceToHost));
    cub::DeviceReduce::Sum(scratch, need, asDouble, dsum, (int)pts);
    CK(cudaMemcpy(&cs, dsum, 8, cudaMemcpyDeviceToHost));
    expect(std::fabs(fs - cs) <= 1e-12 * std::fabs(cs), "sum: formac " + std::to_string(fs) + " CUB " + std::to_string(cs));
    max_f32_run(ws_max, img, dmax);
    CK(cudaMemcpy(&fm, dmax, 4, cudaMemcpyDeviceToHost));
    cub::DeviceReduce::Max(scratch, need, img, dmax, (int)pts);
    CK(cudaMemcpy(&cm, dmax, 4, cudaMemcpyDeviceToHost));
    expect(fm == cm, "max");
    count_f32_run(ws_cnt, img, cnt);
    CK(cudaMemcpy(&fc, cnt, 8, cudaMemcpyDeviceToHost));
    cub::DeviceReduce::Sum(scratch, need, above, cnt, (int)pts);
    CK(cudaMemcpy(&cc, cnt, 8, cudaMemcpyDeviceToHost));
    expect(fc == cc, "count");
#ifdef BENCH_HISTOGRAM
    for (const uint8_t* src : {(const uint8_t*)img8, (const uint8_t*)one8}) {
      hist8_run(ws_h8, (unsigned char*)src, hist);
      CK(cudaMemcpy(fh.data(), hist, 256 * 8, cudaMemcpyDeviceToHost));
      cub::DeviceHistogram::HistogramEven(scratch, need, src, cubhist32, 257, 0, 256, (int)pts);
      CK(cudaMemcpy(ch32.data(), cubhist32, 256 * 4, cudaMemcpyDeviceToHost));
      bool same = true;
      for (int b = 0; b < 256; b++) same = same && fh[b] == ch32[b];
      expect(same, "histogram");
    }
#endif
    sum_blur_run(ws_sb, img, dsum);
    CK(cudaMemcpy(&fs, dsum, 8, cudaMemcpyDeviceToHost));
    blur_run(ws_blur, img, tmp);
    cub::DeviceReduce::Sum(scratch, need, tmpAsDouble, dsum, (int)pts);
    CK(cudaMemcpy(&cs, dsum, 8, cudaMemcpyDeviceToHost));
    expect(std::fabs(fs - cs) <= 1e-12 * std::fabs(cs), "sum of blur");
#ifdef BENCH_HISTOGRAM
    hist_grad8_run(ws_hg, img8, hist);
    CK(cudaMemcpy(fh.data(), hist, 256 * 8, cudaMemcpyDeviceToHost));
    grad8_run(ws_g8, img8, tmp8);
    cub::DeviceHistogram::HistogramEven(scratch, need, tmp8, cubhist32, 257, 0, 256, (int)pts);
    CK(cudaMemcpy(ch32.data(), cubhist32, 256 * 4, cudaMemcpyDeviceToHost));
    bool same = true;
    for (int b = 0; b < 256; b++) same = same && fh[b] == ch32[b];
    expect(same, "histogram of the gradient");
#endif
  }

#ifdef BENCH_SELECT
  {
    // where: formac's first K indices equal CUB's, then -1.
    long long count;
    cub::DeviceSelect::Flagged(scratch, need, indices, flags, cubwhere, nsel, (int)pts);
    CK(cudaMemcpy(&count, nsel, 8, cudaMemcpyDeviceToHost));
    where_f32_run(ws_wh, img, fwhere);
    std::vector<long long> fw(whereK), cw(count);
    CK(cudaMemcpy(fw.data(), fwhere, whereK * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(cw.data(), cubwhere, count * 8, cudaMemcpyDeviceToHost));
    bool same = true;
    for (long long i = 0; i < whereK; i++) same = same && fw[i] == (i < count ? cw[i] : -1);
    expect(same, "where");
    // topk: the 1000 largest (value descending, then index ascending), from the host's values.
    topk_f32_run(ws_tk, img, ftop);
    std::vector<long long> ft(1000);
    CK(cudaMemcpy(ft.data(), ftop, 1000 * 8, cudaMemcpyDeviceToHost));
    std::vector<float> v(hf);
    std::nth_element(v.begin(), v.begin() + 999, v.end(), std::greater<float>());
    const float kth = v[999];
    std::vector<std::pair<float, long long>> best;
    for (size_t i = 0; i < pts; i++)
      if (hf[i] >= kth) best.push_back({hf[i], (long long)i});
    std::sort(best.begin(), best.end(), [](const std::pair<float, long long>& a, const std::pair<float, long long>& b) {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    same = best.size() >= 1000;
    for (int i = 0; same && i < 1000; i++) same = ft[i] == best[i].second;
    expect(same, "topk");
  }
#endif

  // ---- timings
  g_copy = median_ms([&] { CK(cudaMemcpyAsync(copy, img, pts * 4, cudaMemcpyDeviceToDevice, 0)); });
  row("copy (float image)", "cudaMemcpy device to device", g_copy, 0);
  double cub;
  cub = median_ms([&] { cub::DeviceReduce::Sum(scratch, need, asDouble, dsum, (int)pts); });
  row("sum float -> double", "CUB DeviceReduce::Sum (double)", cub, cub);
  row("sum float -> double", "CUB DeviceReduce::Sum (float)",
      median_ms([&] { cub::DeviceReduce::Sum(scratch, need, img, dmax, (int)pts); }), cub);
  row("sum float -> double", "formac sum", median_ms([&] { sum_f32_run(ws_sum, img, dsum); }), cub);
  cub = median_ms([&] { cub::DeviceReduce::Max(scratch, need, img, dmax, (int)pts); });
  row("max float", "CUB DeviceReduce::Max", cub, cub);
  row("max float", "formac max", median_ms([&] { max_f32_run(ws_max, img, dmax); }), cub);
  cub = median_ms([&] { cub::DeviceReduce::Sum(scratch, need, above, cnt, (int)pts); });
  row("count x > 0.5", "CUB DeviceReduce::Sum of a transform", cub, cub);
  row("count x > 0.5", "formac count", median_ms([&] { count_f32_run(ws_cnt, img, cnt); }), cub);
#ifdef BENCH_HISTOGRAM
  for (int one = 0; one < 2; one++) {
    const uint8_t* src = one ? one8 : img8;
    std::string op = one ? "histogram 8-bit, one bin" : "histogram 8-bit, random";
    cub = median_ms([&] { cub::DeviceHistogram::HistogramEven(scratch, need, src, cubhist32, 257, 0, 256, (int)pts); });
    row(op, "CUB DeviceHistogram::HistogramEven", cub, cub);
#ifdef BENCH_NPP
    {
      NppiSize roi = {n, n};
      NppStreamContext ctx = NppStreamContext();
      ctx.hStream = 0;
      ctx.nCudaDeviceId = 0;
      ctx.nMultiProcessorCount = prop.multiProcessorCount;
      ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
      ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
      ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
      ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
      ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
      size_t bufSize = 0;
      nppiHistogramEvenGetBufferSize_8u_C1R_Ctx(roi, 257, &bufSize, ctx);
      Npp8u* buf;
      CK(cudaMalloc(&buf, bufSize));
      row(op, "NPP nppiHistogramEven_8u_C1R",
          median_ms([&] { nppiHistogramEven_8u_C1R_Ctx(src, n, roi, cubhist32, 257, 0, 256, buf, ctx); }), cub);
      CK(cudaFree(buf));
    }
#endif
    row(op, "formac histogram", median_ms([&] { hist8_run(ws_h8, (unsigned char*)src, hist); }), cub);
  }
#endif
  cub = median_ms([&] {
    blur_run(ws_blur, img, tmp);
    cub::DeviceReduce::Sum(scratch, need, tmpAsDouble, dsum, (int)pts);
  });
  row("sum of a 3x3 blur", "formac blur stored + CUB Sum (double)", cub, cub);
  row("sum of a 3x3 blur", "formac sum(box3(img)) fused", median_ms([&] { sum_blur_run(ws_sb, img, dsum); }), cub);
#ifdef BENCH_HISTOGRAM
  cub = median_ms([&] {
    grad8_run(ws_g8, img8, tmp8);
    cub::DeviceHistogram::HistogramEven(scratch, need, tmp8, cubhist32, 257, 0, 256, (int)pts);
  });
  row("histogram of a gradient", "formac gradient stored + CUB HistogramEven", cub, cub);
  row("histogram of a gradient", "formac histogram(grad(img)) fused",
      median_ms([&] { hist_grad8_run(ws_hg, img8, hist); }), cub);
#endif

#ifdef BENCH_SELECT
  cub = median_ms([&] { cub::DeviceSelect::Flagged(scratch, need, indices, flags, cubwhere, nsel, (int)pts); });
  row("where x > 0.5 (every index)", "CUB DeviceSelect::Flagged", cub, cub);
  row("where x > 0.5 (every index)", "CUB DeviceSelect::Flagged + -1 to K (where's bytes)", median_ms([&] {
        cub::DeviceSelect::Flagged(scratch, need, indices, flags, cubwhere, nsel, (int)pts);
        fillFromCount<<<1056, 256>>>(cubwhere, nsel, whereK);
      }), cub);
  row("where x > 0.5 (every index)", "formac where(above(img), 8192^2)", median_ms([&] { where_f32_run(ws_wh, img, fwhere); }),
      cub);
  row("topk 1000 of a float image", "formac topk (torch.topk: peers_reduce.py)",
      median_ms([&] { topk_f32_run(ws_tk, img, ftop); }), 0);
#endif

  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  std::printf("\n%s, %s, %dx%d (%zu points; float images %.0f MiB), median of %d runs\n\n", date, prop.name, n, n,
              pts, pts * 4 / 1048576.0, g_reps);
  std::printf("| operation | variant | median ms | CUB / this | copy / this |\n|---|---|---|---|---|\n");
  for (const Row& r : g_rows)
    std::printf("| %s | %s | %.4f | %s | %.2f |\n", r.op.c_str(), r.variant.c_str(), r.ms,
                r.base > 0 ? (std::to_string(r.base / r.ms).substr(0, 4) + "x").c_str() : "", g_copy / r.ms);
  if (g_failures) std::printf("\n%d CHECK(S) FAILED\n", g_failures);
  return g_failures ? 1 : 0;
}
