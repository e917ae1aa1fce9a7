// bench/gpu/zoo/zoo_driver.cu — one zoo program on the GPU (README.md): linked
// with the program's glue.cpp (zoo_program.h) and its three generated entry
// points. Checks, then times:
//   - at each of zoo.txt's test sizes: formac's C, CUDA fused and CUDA --no-fuse
//     against the evaluator's outputs (eval_R_K.bin, made by prepare.py), byte
//     for byte (any NaN equals any NaN);
//   - at the benchmark's size: CUDA fused and --no-fuse against formac's C run
//     here on the CPU (OpenMP), byte for byte;
//   - the median of --reps calls (CUDA events, a 192 MiB memset before each to
//     flush the L2) of fused and --no-fuse run_async on device images, and of a
//     device-to-device copy of 256 MiB: the copy bandwidth, at which the bytes
//     the program must move (inputs read once, outputs written once) give the
//     roofline.
// Prints its findings, then one line
//   ZOO_ROW|name|size|fused ms|unfused ms|roofline ms|bytes|copy GB/s|check|C s
// (run.sh makes the table). Exit status 0: every check passed; 1: a mismatch;
// 2: an error (the row says which).
//   zoo_NAME [--dir DIR] [--reps N] [--warmup N] [--no-c] [--cpu-only]
// --cpu-only: only formac's C against the evaluator, at the test sizes (run.sh
// prepare checks the glue and the inputs' formula so, without a GPU).
#include <cuda_runtime.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "zoo_program.h"

namespace {

const ZooProgram& P = zoo_program;
std::string g_dir = ".";
std::string g_check;  // "" while every check passes
double g_cSeconds = 0;

using Bytes = std::vector<unsigned char>;

void row(const char* size, double fused, double unfused, double roof, double bytes, double gbps, const std::string& check) {
  std::printf("ZOO_ROW|%s|%s|%.4f|%.4f|%.4f|%.0f|%.1f|%s|%.2f\n", P.name, size, fused, unfused, roof, bytes, gbps,
              check.empty() ? "ok" : check.c_str(), g_cSeconds);
  std::fflush(stdout);
}

// An error after which the run cannot go on: the row says what it was.
[[noreturn]] void fatal(const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", P.name, what.c_str());
  row(P.run[0].size, 0, 0, 0, 0, 0, what);
  std::exit(2);
}
#define CUDA_OR_FAIL(call)                                                                              \
  do {                                                                                                  \
    cudaError_t e_ = (call);                                                                            \
    if (e_ != cudaSuccess) fatal(std::string(#call) + ": " + cudaGetErrorString(e_));                 \
  } while (0)

void note(const std::string& failure) {
  std::printf("   MISMATCH: %s\n", failure.c_str());
  if (g_check.empty()) g_check = failure;
  else if (g_check.find("; ...") == std::string::npos) g_check += "; ...";
}

std::vector<Bytes> makeInputs(const ZooRun& r) {
  std::vector<Bytes> in((size_t)P.inputs);
  for (int k = 0; k < P.inputs; k++) {
    const ZooBuffer& b = P.in[k];
    in[k].resize((size_t)r.inCount[k] * (size_t)b.bytes);
    const long long n = r.inCount[k] * b.fields;
    const int valueBytes = b.bytes / b.fields;
    unsigned char* at = in[k].data();
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++) zoo_value(b.seed, (uint64_t)i, b.kind, at + (size_t)i * valueBytes);
  }
  return in;
}

std::vector<Bytes> outputBuffers(const ZooRun& r) {
  std::vector<Bytes> out((size_t)P.outputs);
  for (int k = 0; k < P.outputs; k++) out[k].assign((size_t)r.outCount[k] * (size_t)P.out[k].bytes, 0xff);
  return out;
}

std::vector<void*> pointers(std::vector<Bytes>& v) {
  std::vector<void*> p;
  for (auto& b : v) p.push_back(b.data());
  return p;
}

// One value as text, for messages.
std::string show(const unsigned char* at, int kind) {
  char s[64];
  switch (kind) {
    case 0: std::snprintf(s, sizeof s, "%u", *at); break;
    case 1: { short v; std::memcpy(&v, at, 2); std::snprintf(s, sizeof s, "%d", v); break; }
    case 2: { unsigned short v; std::memcpy(&v, at, 2); std::snprintf(s, sizeof s, "%u", v); break; }
    case 3: { int v; std::memcpy(&v, at, 4); std::snprintf(s, sizeof s, "%d", v); break; }
    case 4: { long long v; std::memcpy(&v, at, 8); std::snprintf(s, sizeof s, "%lld", v); break; }
    case 5: { float v; std::memcpy(&v, at, 4); std::snprintf(s, sizeof s, "%.9g", v); break; }
    default: { double v; std::memcpy(&v, at, 8); std::snprintf(s, sizeof s, "%.17g", v); break; }
  }
  return s;
}

bool isNan(const unsigned char* at, int kind) {
  if (kind == 5) { float v; std::memcpy(&v, at, 4); return std::isnan(v); }
  if (kind == 6) { double v; std::memcpy(&v, at, 8); return std::isnan(v); }
  return false;
}

// got == want byte for byte, except that any NaN equals any NaN; a failure names
// the first differing value.
void compare(const char* what, const char* against, const ZooRun& r, const std::vector<Bytes>& got,
             const std::vector<Bytes>& want) {
  for (int k = 0; k < P.outputs; k++) {
    const ZooBuffer& b = P.out[k];
    const int vb = b.bytes / b.fields;
    const long long n = r.outCount[k] * b.fields;
    long long bad = 0, first = -1;
    for (long long i = 0; i < n; i++) {
      const unsigned char *g = got[k].data() + (size_t)i * vb, *w = want[k].data() + (size_t)i * vb;
      if (std::memcmp(g, w, (size_t)vb) != 0 && !(isNan(g, b.kind) && isNan(w, b.kind))) {
        if (first < 0) first = i;
        bad++;
      }
    }
    if (bad) {
      const size_t at = (size_t)first * vb;
      note(std::string(what) + " != " + against + " at " + r.label + " (" + r.size + "), output " +
           std::to_string(k) + ": " + std::to_string(bad) + " of " + std::to_string(n) + " values differ, the first at " +
           std::to_string(first / b.fields) + (b.fields > 1 ? " field " + std::to_string(first % b.fields) : "") +
           ": " + show(got[k].data() + at, b.kind) + " instead of " + show(want[k].data() + at, b.kind));
    }
  }
}

struct Device {
  std::vector<void*> in, out;
  std::vector<size_t> outBytes;
  Device(const ZooRun& r, const std::vector<Bytes>& host) {
    for (int k = 0; k < P.inputs; k++) {
      void* d = nullptr;
      CUDA_OR_FAIL(cudaMalloc(&d, host[k].size() + 16));
      CUDA_OR_FAIL(cudaMemcpy(d, host[k].data(), host[k].size(), cudaMemcpyHostToDevice));
      in.push_back(d);
    }
    for (int k = 0; k < P.outputs; k++) {
      void* d = nullptr;
      outBytes.push_back((size_t)r.outCount[k] * P.out[k].bytes);
      CUDA_OR_FAIL(cudaMalloc(&d, outBytes.back() + 16));
      out.push_back(d);
    }
  }
  ~Device() {
    for (void* p : in) cudaFree(p);
    for (void* p : out) cudaFree(p);
  }
  // One run of a CUDA variant into fresh host buffers (outputs poisoned first).
  std::vector<Bytes> outputs(const char* what, void* ws, int (*run)(void*, void**, void**)) {
    for (int k = 0; k < P.outputs; k++) CUDA_OR_FAIL(cudaMemset(out[k], 0xff, outBytes[k]));
    if (run(ws, in.data(), out.data()) != 0) fatal(std::string(what) + ": run_async failed");
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) fatal(std::string(what) + ": " + cudaGetErrorString(e));
    std::vector<Bytes> host((size_t)P.outputs);
    for (int k = 0; k < P.outputs; k++) {
      host[k].resize(outBytes[k]);
      CUDA_OR_FAIL(cudaMemcpy(host[k].data(), out[k], outBytes[k], cudaMemcpyDeviceToHost));
    }
    return host;
  }
};

std::vector<Bytes> runC(const ZooRun& r, std::vector<Bytes>& in) {
  std::vector<Bytes> out = outputBuffers(r);
  std::vector<void*> ip = pointers(in), op = pointers(out);
  auto t0 = std::chrono::steady_clock::now();
  P.callC(ip.data(), op.data(), r.params);
  if (r.label == std::string("bench"))
    g_cSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

std::vector<Bytes> evaluatorOutputs(int index, const ZooRun& r) {
  std::vector<Bytes> want((size_t)P.outputs);
  for (int k = 0; k < P.outputs; k++) {
    std::string path = g_dir + "/eval_" + std::to_string(index) + "_" + std::to_string(k) + ".bin";
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) fatal("missing " + path + " (run.sh prepare makes it)");
    want[k].resize((size_t)r.outCount[k] * P.out[k].bytes);
    size_t got = std::fread(want[k].data(), 1, want[k].size(), f);
    std::fclose(f);
    if (got != want[k].size()) fatal(path + " is short");
  }
  return want;
}

}  // namespace

int main(int argc, char** argv) {
  bool withC = true, cpuOnly = false;
  g_reps = 30;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--dir" && i + 1 < argc) g_dir = argv[++i];
    else if (a == "--reps" && i + 1 < argc) g_reps = std::atoi(argv[++i]);
    else if (a == "--warmup" && i + 1 < argc) g_warmup = std::atoi(argv[++i]);
    else if (a == "--no-c") withC = false;
    else if (a == "--cpu-only") cpuOnly = true;
  }
  std::printf("== %s (%d inputs, %d outputs; %d CPU threads for the C reference)\n", P.name, P.inputs, P.outputs,
              omp_get_max_threads());

  // zoo.txt's test sizes against the evaluator.
  for (int r = 1; r < P.runs; r++) {
    const ZooRun& run = P.run[r];
    std::vector<Bytes> in = makeInputs(run), want = evaluatorOutputs(r, run);
    compare("C", "the evaluator", run, runC(run, in), want);
    if (cpuOnly) continue;
    Device dev(run, in);
    void* f = P.createFused(run.params);
    void* u = P.createUnfused(run.params);
    if (!f || !u) fatal(std::string("create failed at ") + run.size);
    compare("fused", "the evaluator", run, dev.outputs("fused", f, P.runFused), want);
    compare("unfused", "the evaluator", run, dev.outputs("unfused", u, P.runUnfused), want);
    P.destroyFused(f);
    P.destroyUnfused(u);
  }
  std::printf("   test sizes: %s\n", g_check.empty() ? cpuOnly ? "C equals the evaluator" : "fused, unfused and C equal the evaluator" : "MISMATCH");
  if (cpuOnly) return g_check.empty() ? 0 : 1;

  // The benchmark's size.
  const ZooRun& run = P.run[0];
  std::vector<Bytes> in = makeInputs(run);
  double bytes = 0;
  for (int k = 0; k < P.inputs; k++) bytes += (double)in[k].size();
  for (int k = 0; k < P.outputs; k++) bytes += (double)run.outCount[k] * P.out[k].bytes;
  Device dev(run, in);
  void* f = P.createFused(run.params);
  void* u = P.createUnfused(run.params);
  if (!f || !u) fatal(std::string("create failed at ") + run.size);
  std::vector<Bytes> fused = dev.outputs("fused", f, P.runFused);
  compare("unfused", "fused", run, dev.outputs("unfused", u, P.runUnfused), fused);
  if (withC) {
    compare("fused", "C", run, fused, runC(run, in));
    std::printf("   %s: C (OpenMP) took %.2f s\n", run.size, g_cSeconds);
  }

  // Timing: the copy, fused, unfused; each call after an L2 flush.
  const size_t flushBytes = 192u << 20, copyBytes = 256u << 20;
  void *flush, *src, *dst;
  CUDA_OR_FAIL(cudaMalloc(&flush, flushBytes));
  CUDA_OR_FAIL(cudaMalloc(&src, copyBytes));
  CUDA_OR_FAIL(cudaMalloc(&dst, copyBytes));
  CUDA_OR_FAIL(cudaMemset(src, 1, copyBytes));
  auto flushL2 = [&] { CK(cudaMemsetAsync(flush, 0, flushBytes, 0)); };
  double copyMs = median_ms([&] { CK(cudaMemcpyAsync(dst, src, copyBytes, cudaMemcpyDeviceToDevice, 0)); }, 0, flushL2);
  double gbps = 2.0 * copyBytes / (copyMs * 1e-3) / 1e9;
  auto timed = [&](void* ws, int (*runFn)(void*, void**, void**)) {
    return median_ms([&] { runFn(ws, dev.in.data(), dev.out.data()); }, 0, flushL2);
  };
  double fusedMs = timed(f, P.runFused), unfusedMs = timed(u, P.runUnfused);
  CUDA_OR_FAIL(cudaDeviceSynchronize());
  double roofMs = bytes / (gbps * 1e9) * 1e3;
  std::printf("   %s: fused %.4f ms, unfused %.4f ms; %.0f bytes at %.1f GB/s (copy of 256 MiB: %.4f ms): roofline %.4f ms, "
              "fused / roofline %.2f\n",
              run.size, fusedMs, unfusedMs, bytes, gbps, copyMs, roofMs, fusedMs / roofMs);
  P.destroyFused(f);
  P.destroyUnfused(u);
  row(run.size, fusedMs, unfusedMs, roofMs, bytes, gbps, g_check);
  return g_check.empty() ? 0 : 1;
}
