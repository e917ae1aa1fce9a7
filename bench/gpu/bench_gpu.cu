// bench/gpu/bench_gpu.cu — GPU benchmark of formac's blur, harris and canny
// (issue 4): formac fused (run and run_async), formac --no-fuse, NPP, Halide 14 and a
// device-to-device copy (the memory roofline), all in one program run.
//
//   bench_gpu [--sizes 4096,8192] [--reps 30] [--warmup 5] [--only blur|harris|canny]
//             [--no-check] [--no-flush] [--md FILE] [--experiments]
//
// Method (.library/device/METHOD.md): device pointers only (no host copies in
// a timed call), random non-zero input, CUDA events around each call on the
// legacy default stream, warm-up calls first, the median of --reps calls, the
// L2 cache flushed (a 192 MiB memset) before each timed call. Every peer is
// first checked against formac's output on the same input; formac itself is
// checked against a float64 CPU reference at an odd size (1021 x 1283) so that
// partial tiles are exercised.
#include <cuda_runtime.h>

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
#include "blur_nf.h"
#include "canny.h"
#include "canny_nf.h"
#include "harris.h"
#include "harris_nf.h"
#include "peers.h"
#ifdef BENCH_EXPERIMENTS
// Diagnostic only (--experiments): variants of formac's generated CUDA, made by
// hand or by a modified formac, to measure a change before building it into
// the compiler. .bench-gpu/exp/experiments.inc lists them, one line each:
//   FORMAC_EXPERIMENT(pipeline, name, "what differs")
// with name.cu / name.h beside it (formac --kernel-name name). Not formac
// output; never in the results table.
#define FORMAC_EXPERIMENT(p, n, label) FORMAC_DECLARE_##p(n)
#define FORMAC_DECLARE_blur(n) \
  extern "C" { struct n##_workspace* n##_create(int, int); int n##_run(struct n##_workspace*, float*, float*); void n##_destroy(struct n##_workspace*); }
#define FORMAC_DECLARE_harris(n) \
  extern "C" { struct n##_workspace* n##_create(int, int); int n##_run(struct n##_workspace*, float*, float, float*); void n##_destroy(struct n##_workspace*); }
#define FORMAC_DECLARE_canny(n) \
  extern "C" { struct n##_workspace* n##_create(int, int); int n##_run(struct n##_workspace*, float*, float, float, float*); void n##_destroy(struct n##_workspace*); }
#include "experiments.inc"
#undef FORMAC_EXPERIMENT
#endif

#define CK(call)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

static const float kHarrisK = 0.04f;
// Canny thresholds: chosen from the float64 reference's thinned magnitudes at
// the check size (median and 80th percentile), so that on random input about
// half the surviving pixels are weak or strong edges. Set in main.
static float g_low = 0.0f, g_high = 0.0f;
// NPP's Canny thresholds apply to its own 8-bit Sobel magnitude; these are
// about the median and 80th percentile of that magnitude on uniform noise.
static const int16_t kNppLow = 270, kNppHigh = 410;

#include "reference.h"

// ------------------------------------------------------------- timing ------
static void* g_flush = nullptr;
static const size_t kFlushBytes = 192ull << 20;
static bool g_do_flush = true;

struct Timing {
  double median = NAN, p10 = NAN, p90 = NAN;
  int status = 0;
};

// fn returns 0 on success. Each timed call is bracketed by events on the
// legacy default stream, after a flush of L2.
static Timing time_calls(const std::function<int()>& fn, int warmup, int reps) {
  Timing t;
  for (int i = 0; i < warmup; i++) {
    if ((t.status = fn()) != 0) return t;
  }
  CK(cudaDeviceSynchronize());
  CK(cudaGetLastError());
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> ms;
  for (int r = 0; r < reps; r++) {
    if (g_do_flush) CK(cudaMemsetAsync(g_flush, r & 0xff, kFlushBytes, 0));
    CK(cudaEventRecord(a, 0));
    if ((t.status = fn()) != 0) break;
    CK(cudaEventRecord(b, 0));
    CK(cudaEventSynchronize(b));
    float x;
    CK(cudaEventElapsedTime(&x, a, b));
    ms.push_back(x);
  }
  CK(cudaGetLastError());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  if (t.status || ms.empty()) return t;
  std::sort(ms.begin(), ms.end());
  auto q = [&](double f) { return ms[std::min(ms.size() - 1, (size_t)(f * (ms.size() - 1) + 0.5))]; };
  t.median = ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
  t.p10 = q(0.1);
  t.p90 = q(0.9);
  return t;
}

// -------------------------------------------------------------- images ----
struct DevImages {
  int M = 0, N = 0;
  size_t n = 0;
  float *in = nullptr, *out = nullptr, *tmp = nullptr, *copy = nullptr;
  uint8_t *in8 = nullptr, *out8 = nullptr;
  void alloc(int M_, int N_) {
    M = M_;
    N = N_;
    n = (size_t)M * N;
    CK(cudaMalloc(&in, n * 4));
    CK(cudaMalloc(&out, n * 4));
    CK(cudaMalloc(&tmp, n * 4));
    CK(cudaMalloc(&copy, n * 4));
    CK(cudaMalloc(&in8, n));
    CK(cudaMalloc(&out8, n));
  }
  void free_all() {
    cudaFree(in);
    cudaFree(out);
    cudaFree(tmp);
    cudaFree(copy);
    cudaFree(in8);
    cudaFree(out8);
  }
  void poison() { CK(cudaMemset(out, 0xff, n * 4)); }  // NaN everywhere
  std::vector<float> fetch() {
    std::vector<float> h(n);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), out, n * 4, cudaMemcpyDeviceToHost));
    return h;
  }
};

struct Variant {
  std::string name;
  bool count_pixels = false;     // compare by differing pixels (canny)
  int border = 0;                // compare only the interior (NPP blur: replicate border)
  const char* no_check = nullptr;  // the definition differs: why no number
  std::function<int(DevImages&)> run;
};

// formac's workspaces, per size (created on first use, destroyed by
// reset_workspaces before the next size).
static struct {
  blur_workspace* bf;
  blur_nf_workspace* bn;
  harris_workspace* hf;
  harris_nf_workspace* hn;
  canny_workspace* cf;
  canny_nf_workspace* cn;
} g_ws;
static bool g_experiments = false;
// Workspaces of the experiments, destroyed with the others.
static std::vector<std::function<void()>> g_destroy_experiments;
static void reset_workspaces() {
  blur_destroy(g_ws.bf);
  blur_nf_destroy(g_ws.bn);
  harris_destroy(g_ws.hf);
  harris_nf_destroy(g_ws.hn);
  canny_destroy(g_ws.cf);
  canny_nf_destroy(g_ws.cn);
  for (auto& f : g_destroy_experiments) f();
  g_destroy_experiments.clear();
  memset(&g_ws, 0, sizeof g_ws);
}

struct Row {
  std::string pipeline, size, variant, check;
  Timing t;
  double copy_ms = NAN, fused_ms = NAN;
};

static std::vector<Variant> variants_for(const std::string& p, int M, int N, bool have_npp, bool have_halide) {
  std::vector<Variant> v;
  (void)M;
  (void)N;
  if (p == "blur") {
    v.push_back({"formac fused", false, 0, nullptr, [](DevImages& d) {
                   if (!g_ws.bf) g_ws.bf = blur_create(d.M, d.N);
                   return g_ws.bf ? blur_run(g_ws.bf, d.in, d.out) : 1;
                 }});
    v.push_back({"formac fused, run_async", false, 0, nullptr, [](DevImages& d) {
                   if (!g_ws.bf) g_ws.bf = blur_create(d.M, d.N);
                   return g_ws.bf ? blur_run_async(g_ws.bf, nullptr, d.in, d.out) : 1;
                 }});
    v.push_back({"formac --no-fuse", false, 0, nullptr, [](DevImages& d) {
                   if (!g_ws.bn) g_ws.bn = blur_nf_create(d.M, d.N);
                   return g_ws.bn ? blur_nf_run(g_ws.bn, d.in, d.out) : 1;
                 }});
    if (have_halide) {
      v.push_back({"Halide 32x8 tile", false, 0, nullptr, [](DevImages& d) { return halide_blur(8, d.in, d.M, d.N, d.out); }});
      v.push_back({"Halide 32x32 tile", false, 0, nullptr, [](DevImages& d) { return halide_blur(32, d.in, d.M, d.N, d.out); }});
    }
    if (have_npp) {
      v.push_back({"NPP FilterBoxBorder 3x3 (f32)", false, 1, nullptr, [](DevImages& d) { return npp_blur_box(d.in, d.out); }});
      v.push_back({"NPP FilterColumn+RowBorder (f32, 2 passes)", false, 1, nullptr,
                   [](DevImages& d) { return npp_blur_colrow(d.in, d.tmp, d.out); }});
    }
  } else if (p == "harris") {
    v.push_back({"formac fused", false, 0, nullptr, [](DevImages& d) {
                   if (!g_ws.hf) g_ws.hf = harris_create(d.M, d.N);
                   return g_ws.hf ? harris_run(g_ws.hf, d.in, kHarrisK, d.out) : 1;
                 }});
    v.push_back({"formac fused, run_async", false, 0, nullptr, [](DevImages& d) {
                   if (!g_ws.hf) g_ws.hf = harris_create(d.M, d.N);
                   return g_ws.hf ? harris_run_async(g_ws.hf, nullptr, d.in, kHarrisK, d.out) : 1;
                 }});
    v.push_back({"formac --no-fuse", false, 0, nullptr, [](DevImages& d) {
                   if (!g_ws.hn) g_ws.hn = harris_nf_create(d.M, d.N);
                   return g_ws.hn ? harris_nf_run(g_ws.hn, d.in, kHarrisK, d.out) : 1;
                 }});
    if (have_halide) {
      v.push_back({"Halide 32x8 tile", false, 0, nullptr,
                   [](DevImages& d) { return halide_harris(8, d.in, kHarrisK, d.M, d.N, d.out); }});
      v.push_back({"Halide 32x32 tile", false, 0, nullptr,
                   [](DevImages& d) { return halide_harris(32, d.in, kHarrisK, d.M, d.N, d.out); }});
    }
    if (have_npp)
      v.push_back({"NPP FilterHarrisCornersBorder (8u in, f32 out)", false, 0,
                   "n/a: 8-bit input, box window, replicate border",
                   [](DevImages& d) { return npp_harris(d.in8, d.out, kHarrisK); }});
  } else {
    v.push_back({"formac fused", true, 0, nullptr, [](DevImages& d) {
                   if (!g_ws.cf) g_ws.cf = canny_create(d.M, d.N);
                   return g_ws.cf ? canny_run(g_ws.cf, d.in, g_low, g_high, d.out) : 1;
                 }});
    v.push_back({"formac fused, run_async", true, 0, nullptr, [](DevImages& d) {
                   if (!g_ws.cf) g_ws.cf = canny_create(d.M, d.N);
                   return g_ws.cf ? canny_run_async(g_ws.cf, nullptr, d.in, g_low, g_high, d.out) : 1;
                 }});
    v.push_back({"formac --no-fuse", true, 0, nullptr, [](DevImages& d) {
                   if (!g_ws.cn) g_ws.cn = canny_nf_create(d.M, d.N);
                   return g_ws.cn ? canny_nf_run(g_ws.cn, d.in, g_low, g_high, d.out) : 1;
                 }});
    if (have_halide) {
      v.push_back({"Halide 32x8 tile", true, 0, nullptr,
                   [](DevImages& d) { return halide_canny(8, d.in, g_low, g_high, d.M, d.N, d.out); }});
      v.push_back({"Halide 32x32 tile", true, 0, nullptr,
                   [](DevImages& d) { return halide_canny(32, d.in, g_low, g_high, d.M, d.N, d.out); }});
    }
    if (have_npp) {
      v.push_back({"NPP FilterCannyBorder (8u in/out)", true, 0,
                   "n/a: 8-bit, Sobel 3x3 without Gaussian, adds hysteresis",
                   [](DevImages& d) { return npp_canny(d.in8, d.out8, kNppLow, kNppHigh); }});
      v.push_back({"NPP FilterGaussBorder 5x5 + FilterCannyBorder (8u)", true, 0,
                   "n/a: 8-bit, NPP's 5x5 Gaussian, adds hysteresis",
                   [](DevImages& d) { return npp_gauss_canny(d.in8, d.out8, kNppLow, kNppHigh); }});
      v.push_back({"NPP FilterGaussBorder 5x5 (f32), the first stage alone", false, 0,
                   "n/a: the Gaussian alone (NPP's 5x5 weights, replicate border)",
                   [](DevImages& d) { return npp_gauss5(d.in, d.out); }});
    }
  }
#ifdef BENCH_EXPERIMENTS
  if (g_experiments) {
    std::vector<Variant> x;  // after formac fused and --no-fuse, in the file's order
#define FORMAC_CALL_blur(n, ws, d) n##_run(ws, d.in, d.out)
#define FORMAC_CALL_harris(n, ws, d) n##_run(ws, d.in, kHarrisK, d.out)
#define FORMAC_CALL_canny(n, ws, d) n##_run(ws, d.in, g_low, g_high, d.out)
#define FORMAC_EXPERIMENT(pp, n, label)                                          \
  if (p == #pp)                                                                  \
    x.push_back(Variant{"exp " #n ": " label, p == "canny", 0, nullptr, [](DevImages& d) { \
      static struct n##_workspace* ws = nullptr;                                  \
      if (!ws) {                                                                  \
        ws = n##_create(d.M, d.N);                                                \
        g_destroy_experiments.push_back([] { n##_destroy(ws); ws = nullptr; });   \
      }                                                                           \
      return ws ? FORMAC_CALL_##pp(n, ws, d) : 1;                                 \
    }});
#include "experiments.inc"
#undef FORMAC_EXPERIMENT
    v.insert(v.begin() + 2, x.begin(), x.end());
  }
#endif
  return v;
}

static std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> r;
  size_t a = 0;
  while (a <= s.size()) {
    size_t b = s.find(',', a);
    if (b == std::string::npos) b = s.size();
    if (b > a) r.push_back(s.substr(a, b - a));
    a = b + 1;
  }
  return r;
}

// ---------------------------------------------------------- correctness ----
// At an odd size, formac (fused and unfused) and Halide against the float64
// reference; canny compared by the class of each pixel.
static bool check_against_reference(bool have_halide, const std::vector<std::string>& pipes) {
  const int M = 1021, N = 1283;
  std::vector<float> h((size_t)M * N);
  random_image(h, 7);
  DevImages d;
  d.alloc(M, N);
  CK(cudaMemcpy(d.in, h.data(), d.n * 4, cudaMemcpyHostToDevice));
  bool ok = true;
  printf("Correctness at %d x %d (odd size: partial tiles) against a float64 CPU reference:\n", M, N);
  for (const auto& p : pipes) {
    std::vector<double> ref, thin;
    if (p == "blur") ref_blur(h, M, N, ref);
    else if (p == "harris") ref_harris(h, M, N, kHarrisK, ref);
    else {
      ref_canny(h, M, N, 0, 0, thin, ref);
      std::vector<double> nz;
      for (double x : thin)
        if (x > 0) nz.push_back(x);
      std::sort(nz.begin(), nz.end());
      g_low = (float)nz[nz.size() / 2];
      g_high = (float)nz[nz.size() * 8 / 10];
      ref_canny(h, M, N, g_low, g_high, thin, ref);
      printf("  canny thresholds: low %.6g high %.6g (median and 80th percentile of the thinned magnitude)\n",
             g_low, g_high);
    }
    for (auto& v : variants_for(p, M, N, false, have_halide)) {
      d.poison();
      int st = v.run(d);
      if (st) {
        printf("  %-7s %-32s FAILED (status %d)\n", p.c_str(), v.name.c_str(), st);
        ok = false;
        continue;
      }
      auto out = d.fetch();
      Diff df = compare(out, ref, M, N);
      double l2n = 0, l2d = 0;
      for (size_t q = 0; q < ref.size(); q++) {
        l2n += (out[q] - ref[q]) * (out[q] - ref[q]);
        l2d += ref[q] * ref[q];
      }
      if (v.count_pixels)
        printf("  %-7s %-32s %lld of %lld pixels classified differently from float64%s\n", p.c_str(), v.name.c_str(),
               df.differing, (long long)M * N, df.nonfinite ? " (UNWRITTEN PIXELS)" : "");
      else
        printf("  %-7s %-32s |out-ref|/|ref| = %.2e, max|out-ref| = %.2e%s\n", p.c_str(), v.name.c_str(),
               std::sqrt(l2n / l2d), df.max_abs, df.nonfinite ? " (UNWRITTEN PIXELS)" : "");
      if (df.nonfinite || (!v.count_pixels && std::sqrt(l2n / l2d) > 1e-5) ||
          (v.count_pixels && df.differing > (long long)M * N / 1000))
        ok = false;
    }
    reset_workspaces();
  }
  d.free_all();
  return ok;
}

int main(int argc, char** argv) {
  std::vector<int> sizes = {4096, 8192};
  int reps = 30, warmup = 5;
  bool check = true;
  std::string only, md;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        fprintf(stderr, "%s needs a value\n", a.c_str());
        exit(2);
      }
      return argv[++i];
    };
    if (a == "--sizes") {
      sizes.clear();
      for (auto& s : split(next())) sizes.push_back(atoi(s.c_str()));
    } else if (a == "--reps") reps = atoi(next().c_str());
    else if (a == "--warmup") warmup = atoi(next().c_str());
    else if (a == "--only") only = next();
    else if (a == "--no-check") check = false;
    else if (a == "--no-flush") g_do_flush = false;
    else if (a == "--md") md = next();
    else if (a == "--experiments") g_experiments = true;
    else {
      fprintf(stderr, "usage: %s [--sizes 4096,8192] [--reps 30] [--warmup 5] [--only P] [--no-check] [--no-flush] [--md FILE] [--experiments]\n",
              argv[0]);
      return 2;
    }
  }
  std::vector<std::string> pipes = {"blur", "harris", "canny"};
  if (!only.empty()) pipes = split(only);

  CK(cudaSetDevice(0));
  CK(cudaFree(0));  // create the primary context (Halide uses it too)
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int rt = 0, drv = 0;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  char date[64];
  time_t now = time(nullptr);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
  printf("device: %s, %d SMs, %.0f MiB L2, %.1f GiB; CUDA runtime %d, driver %d; %s\n", prop.name,
         prop.multiProcessorCount, prop.l2CacheSize / 1048576.0, prop.totalGlobalMem / 1073741824.0, rt, drv, date);

  const bool have_halide = halide_peer_init() == 0;
  printf("Halide peers: %s\n", have_halide ? "built (Halide 14, PTX for sm_86 JIT-compiled by the driver)" : "not built");
  printf("NPP peers: %s\n", npp_peer_version());
  CK(cudaMalloc(&g_flush, kFlushBytes));

  bool all_ok = true;
  if (check) all_ok = check_against_reference(have_halide, pipes);
  else if (std::find(pipes.begin(), pipes.end(), "canny") != pipes.end()) {
    g_low = 0.376003f;  // without the reference: the values it gives
    g_high = 0.503608f;
  }

  std::vector<Row> rows;
  for (int S : sizes) {
    const int M = S, N = S;
    DevImages d;
    d.alloc(M, N);
    std::vector<float> h(d.n);
    random_image(h, 1000 + S);
    CK(cudaMemcpy(d.in, h.data(), d.n * 4, cudaMemcpyHostToDevice));
    {
      std::vector<uint8_t> h8(d.n);
      for (size_t q = 0; q < d.n; q++) h8[q] = (uint8_t)std::lround(h[q] * 255.0f);
      CK(cudaMemcpy(d.in8, h8.data(), d.n, cudaMemcpyHostToDevice));
    }
    const bool have_npp = npp_peer_init(M, N) == 0;
    char size[32];
    snprintf(size, sizeof size, "%dx%d", M, N);

    // The memory roofline: a device-to-device copy of the image.
    Timing tc = time_calls([&]() { return (int)cudaMemcpyAsync(d.copy, d.in, d.n * 4, cudaMemcpyDeviceToDevice, 0); },
                           warmup, reps);
    const double gbs = 2.0 * d.n * 4 / (tc.median * 1e-3) / 1e9;
    printf("\n%s: cudaMemcpy D2D of %.0f MiB: median %.4f ms = %.0f GB/s (read + write)\n", size, d.n * 4 / 1048576.0,
           tc.median, gbs);
    {
      Row r;
      r.pipeline = "copy";
      r.size = size;
      r.variant = "cudaMemcpy D2D (roofline)";
      char c[64];
      snprintf(c, sizeof c, "%.0f GB/s", gbs);
      r.check = c;
      r.t = tc;
      r.copy_ms = tc.median;
      rows.push_back(r);
    }

    for (const auto& p : pipes) {
      auto vars = variants_for(p, M, N, have_npp, have_halide);
      // formac fused's output on this input: the reference for the peers.
      std::vector<float> ref;
      double fused_ms = NAN;
      for (auto& v : vars) {
        Row r;
        r.pipeline = p;
        r.size = size;
        r.variant = v.name;
        r.copy_ms = tc.median;
        // check
        d.poison();
        CK(cudaMemset(d.out8, 0, d.n));
        int st = v.run(d);
        if (st) {
          r.check = st == PEER_MISSING ? "not built" : "FAILED (status " + std::to_string(st) + ")";
          r.t.status = st;
          rows.push_back(r);
          all_ok = false;
          continue;
        }
        CK(cudaDeviceSynchronize());
        CK(cudaGetLastError());
        if (ref.empty()) {
          ref = d.fetch();
          Diff self = compare(ref, ref, M, N);
          r.check = self.nonfinite ? "FAIL: unwritten pixels" : "(reference)";
          if (self.nonfinite) all_ok = false;
        } else if (v.no_check) {
          r.check = v.no_check;
        } else {
          auto out = d.fetch();
          Diff df = compare(out, ref, M, N, v.border);
          r.check = describe(df, v.count_pixels);
          if (v.border) r.check += " (interior)";
          if (df.nonfinite) all_ok = false;
        }
        r.t = time_calls([&]() { return v.run(d); }, warmup, reps);
        if (v.name == "formac fused") fused_ms = r.t.median;
        r.fused_ms = fused_ms;
        printf("  %-7s %-48s median %8.4f ms (p10 %.4f, p90 %.4f)  %s\n", p.c_str(), v.name.c_str(), r.t.median, r.t.p10,
               r.t.p90, r.check.c_str());
        fflush(stdout);
        rows.push_back(r);
      }
      reset_workspaces();
    }
    npp_peer_fini();
    d.free_all();
  }

  // The table, last.
  std::string t;
  char line[512];
  snprintf(line, sizeof line, "\nDevice: %s (%d SMs), CUDA runtime %d, driver %d. Date: %s. Median of %d calls after %d warm-up calls%s.\n\n",
           prop.name, prop.multiProcessorCount, rt, drv, date, reps, warmup, g_do_flush ? ", L2 flushed before each" : "");
  t += line;
  t += "| pipeline | size | variant | median ms | p10-p90 ms | x copy | x formac fused | check vs formac fused |\n";
  t += "|---|---|---|---:|---:|---:|---:|---|\n";
  for (auto& r : rows) {
    if (r.t.status || std::isnan(r.t.median)) {
      snprintf(line, sizeof line, "| %s | %s | %s | - | - | - | - | %s |\n", r.pipeline.c_str(), r.size.c_str(),
               r.variant.c_str(), r.check.c_str());
    } else {
      char fx[32] = "-";
      if (!std::isnan(r.fused_ms)) snprintf(fx, sizeof fx, "%.2f", r.t.median / r.fused_ms);
      snprintf(line, sizeof line, "| %s | %s | %s | %.4f | %.4f-%.4f | %.2f | %s | %s |\n", r.pipeline.c_str(),
               r.size.c_str(), r.variant.c_str(), r.t.median, r.t.p10, r.t.p90, r.t.median / r.copy_ms, fx,
               r.check.c_str());
    }
    t += line;
  }
  fputs(t.c_str(), stdout);
  if (!md.empty()) {
    if (FILE* f = fopen(md.c_str(), "w")) {
      fputs(t.c_str(), f);
      fclose(f);
    }
  }
  printf("\n%s\n", all_ok ? "all checks passed" : "SOME CHECKS FAILED (see above)");
  return all_ok ? 0 : 1;
}
