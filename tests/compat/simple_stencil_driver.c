/* Compatibility test for formac: simple_stencil (see README.md in this directory).
   Build: formac simple_stencil.idsl --print-c --kernel-name simple_stencil --c-output simple_stencil.c &&
          cc -std=c99 -fopenmp simple_stencil.c simple_stencil_driver.c -lm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#if defined(__GNUC__)
#define MAYBE_UNUSED __attribute__((unused))
#else
#define MAYBE_UNUSED
#endif

/* deterministic pseudo-random source (64-bit LCG, high bits) */
MAYBE_UNUSED static unsigned long long rng_state = 0x2545F4914F6CDD1DULL;
MAYBE_UNUSED static unsigned rng_next(void)
{
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(rng_state >> 33);
}
/* non-zero float in [0.5, 4.5) with few mantissa bits */
MAYBE_UNUSED static double rng_real(void) { return 0.5 + (double)(rng_next() % 4096u) / 1024.0; }
/* non-zero integer in [1, hi] */
MAYBE_UNUSED static int rng_int(int hi) { return 1 + (int)(rng_next() % (unsigned)hi); }

MAYBE_UNUSED static int arg_size(int argc, char **argv, int k, int def)
{
  if (argc > k) { int v = atoi(argv[k]); if (v > 0) return v; }
  return def;
}
/* index helpers for boundary modes */
MAYBE_UNUSED static int bd_clamp(int x, int n) { return x < 0 ? 0 : (x >= n ? n - 1 : x); }
MAYBE_UNUSED static int bd_wrap(int x, int n) { int r = x % n; return r < 0 ? r + n : r; }
MAYBE_UNUSED static int bd_mirror(int x, int n)
{
  if (n == 1) return 0;
  for (;;) {
    if (x < 0) x = -x;
    else if (x >= n) x = 2 * (n - 1) - x;
    else return x;
  }
}
MAYBE_UNUSED static int close_enough(double got, double want, double tol)
{
  double d = fabs(got - want);
  double m = fabs(want) > 1.0 ? fabs(want) : 1.0;
  return d <= tol * m;
}

void simple_stencil(float *first, float *second, int M, int N, float *out);

int main(int argc, char **argv)
{
  int M = arg_size(argc, argv, 1, 13), N = arg_size(argc, argv, 2, 17);
  float *a = malloc(sizeof(float) * M * N), *b = malloc(sizeof(float) * M * N);
  float *out = malloc(sizeof(float) * M * N);
  int i, j;
  for (i = 0; i < M * N; i++) { a[i] = (float)rng_real(); b[i] = (float)rng_real(); out[i] = -99.0f; }
  simple_stencil(a, b, M, N, out);
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      float want = 0.0f;
      /* rows need i-3>=0 and i+3<=M-1; cols need j-3>=0 and j+3<=N-1 (union of all reads) */
      if (i >= 3 && i + 3 < M && j >= 3 && j + 3 < N) {
        want = a[(i - 3) * N + j - 2] + a[(i + 2) * N + j + 3];
        want = want + b[(i - 2) * N + j - 3];
        want = want + b[(i + 3) * N + j + 2];
      }
      if (out[i * N + j] != want) {
        printf("FAIL simple_stencil: at (%d,%d) got %g want %g\n", i, j, out[i * N + j], want);
        return 1;
      }
    }
  printf("PASS simple_stencil\n");
  return 0;
}
