// Exhaustive check of formac_div_odd_f, the division of a float by an odd
// integer constant that formac's CUDA emits (compiler/codegen/README.md,
// "Division by a constant"): over all 2^32 floats x, for each divisor c given,
// formac_div_odd_f(x, c, RN(1/c)) must equal __fdiv_rn(x, c) bit for bit (any
// NaN for a NaN), and for every finite x formac_div_odd_finite_f too. The
// helpers are compiled in from formac's own output (divcheck.sh extracts
// them), so this checks what formac emits.
//
//   divcheck c...   prints the divisors that differ, with up to 6 x each;
//                   exit status 1 if any does.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "div_odd.h"  // formac_div_odd_f, as formac emits it

__global__ void compare(float c, float r, unsigned long long* bad, unsigned* first) {
  const unsigned long long n = 1ull << 32, step = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += step) {
    const float x = __uint_as_float((unsigned)i);
    const float want = __fdiv_rn(x, c), got = formac_div_odd_f(x, c, r);
    // For a finite x, formac_div_odd_finite_f, which takes c > 0 (formac
    // prints x / -c as -(x / c)).
    const float fin = c < 0 ? -formac_div_odd_finite_f(x, -c, -r) : formac_div_odd_finite_f(x, c, r);
    const bool finOk = !isfinite(x) || __float_as_uint(want) == __float_as_uint(fin);
    if ((__float_as_uint(want) != __float_as_uint(got) && !(want != want && got != got)) || !finOk) {
      unsigned long long k = atomicAdd(bad, 1ull);
      if (k < 6) first[k] = (unsigned)i;
    }
  }
}

int main(int argc, char** argv) {
  unsigned long long* bad = nullptr;
  unsigned* first = nullptr;
  if (cudaMallocManaged(&bad, sizeof *bad) != cudaSuccess ||
      cudaMallocManaged(&first, 6 * sizeof *first) != cudaSuccess) {
    fprintf(stderr, "divcheck: cudaMallocManaged failed\n");
    return 2;
  }
  int differing = 0;
  for (int a = 1; a < argc; a++) {
    const float c = strtof(argv[a], nullptr), r = 1.0f / c;
    *bad = 0;
    compare<<<132 * 16, 256>>>(c, r, bad, first);
    if (cudaDeviceSynchronize() != cudaSuccess) {
      fprintf(stderr, "divcheck: kernel failed\n");
      return 2;
    }
    if (*bad == 0) continue;
    differing++;
    printf("c = %g: %llu of 2^32 differ, x =", c, *bad);
    for (unsigned k = 0; k < 6 && k < *bad; k++) {
      float x;
      memcpy(&x, &first[k], sizeof x);
      printf(" %a", x);
    }
    printf("\n");
  }
  printf("divcheck: %d divisors, %d differ from __fdiv_rn\n", argc - 1, differing);
  return differing ? 1 : 0;
}
