// bench/gpu/host_check.cpp — run by prepare.sh on the development machine (no
// GPU): checks, at an odd size, that the float64 reference of reference.h, the
// C that formac generates for the same three programs, and the Halide
// generators' algorithms (built for the host, every stage computed whole)
// compute the same function. This validates the reference and the Halide
// boundary handling before any device time is spent; the GPU run repeats the
// comparison for the CUDA code.
#include <cstdio>
#include <cstring>

#include "HalideBuffer.h"
#include "c_blur.h"
#include "c_canny.h"
#include "c_harris.h"
#include "halide_blur_host.h"
#include "halide_canny_host.h"
#include "halide_harris_host.h"
#include "reference.h"

int main() {
  const int M = 1021, N = 1283;
  const float k = 0.04f;
  std::vector<float> in((size_t)M * N), out((size_t)M * N), hl((size_t)M * N);
  random_image(in, 7);
  Halide::Runtime::Buffer<float> hin(in.data(), N, M), hout(hl.data(), N, M);
  bool ok = true;
  auto report = [&](const char* what, const std::vector<float>& got, const std::vector<double>& ref, bool pixels) {
    Diff d = compare(got, ref, M, N);
    double n = 0, dd = 0;
    for (size_t q = 0; q < ref.size(); q++) {
      n += (got[q] - ref[q]) * (got[q] - ref[q]);
      dd += ref[q] * ref[q];
    }
    if (pixels)
      printf("  %-24s %lld of %lld pixels classified differently from float64\n", what, d.differing, (long long)M * N);
    else
      printf("  %-24s |out-ref|/|ref| = %.2e, max|out-ref| = %.2e\n", what, std::sqrt(n / dd), d.max_abs);
    if (d.nonfinite || (!pixels && std::sqrt(n / dd) > 1e-5) || (pixels && d.differing > (long long)M * N / 1000)) ok = false;
  };
  printf("host check at %d x %d against the float64 reference:\n", M, N);
  std::vector<double> ref, thin;
  ref_blur(in, M, N, ref);
  c_blur(in.data(), M, N, out.data());
  report("blur: formac C", out, ref, false);
  if (halide_blur_host(hin.raw_buffer(), hout.raw_buffer())) return 1;
  report("blur: Halide", hl, ref, false);

  ref_harris(in, M, N, k, ref);
  c_harris(in.data(), k, M, N, out.data());
  report("harris: formac C", out, ref, false);
  if (halide_harris_host(hin.raw_buffer(), k, hout.raw_buffer())) return 1;
  report("harris: Halide", hl, ref, false);
  {  // the border ring, where Halide's sign trick for Ixy matters
    std::vector<float> a = hl;
    Diff d;
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++)
        if (i == 0 || j == 0 || i == M - 1 || j == N - 1) d.max_abs = std::max(d.max_abs, std::fabs(a[(size_t)i * N + j] - ref[(size_t)i * N + j]));
    printf("  %-24s max|out-ref| on the 1-pixel border = %.2e\n", "harris: Halide", d.max_abs);
  }

  ref_canny(in, M, N, 0, 0, thin, ref);
  std::vector<double> nz;
  for (double x : thin)
    if (x > 0) nz.push_back(x);
  std::sort(nz.begin(), nz.end());
  const float low = (float)nz[nz.size() / 2], high = (float)nz[nz.size() * 8 / 10];
  ref_canny(in, M, N, low, high, thin, ref);
  printf("  canny thresholds %.6g %.6g\n", low, high);
  c_canny(in.data(), low, high, M, N, out.data());
  report("canny: formac C", out, ref, true);
  if (halide_canny_host(hin.raw_buffer(), low, high, hout.raw_buffer())) return 1;
  report("canny: Halide", hl, ref, true);
  printf("  canny: formac C vs Halide: %lld pixels differ\n", compare(out, hl, M, N).differing);
  printf("%s\n", ok ? "host check passed" : "HOST CHECK FAILED");
  return ok ? 0 : 1;
}
