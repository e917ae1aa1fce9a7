/* Compatibility test for formac: extrapolate (see README.md in this directory).
   Build: formac extrapolate.idsl --print-c --kernel-name extrapolate --c-output extrapolate.c &&
          cc -std=c99 -fopenmp extrapolate.c extrapolate_driver.c -lm */
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

void extrapolate(double *src, int M, int N, double *out);

int main(int argc, char **argv)
{
  int M = arg_size(argc, argv, 1, 13), N = arg_size(argc, argv, 2, 17);
  int OM = 3 * M, ON = 2 * N, i, j;
  double *in = malloc(sizeof(double) * M * N);
  double *out = malloc(sizeof(double) * OM * ON), *want = calloc((size_t)OM * ON, sizeof(double));
  for (i = 0; i < M * N; i++) in[i] = rng_real();
  for (i = 0; i < OM * ON; i++) out[i] = -99.0;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      int ti = 3 * i - 7, tj = 2 * j + 5;
      if (ti >= 0 && ti < OM && tj >= 0 && tj < ON) want[ti * ON + tj] = in[i * N + j];
    }
  extrapolate(in, M, N, out);
  for (i = 0; i < OM * ON; i++)
    if (out[i] != want[i]) {
      printf("FAIL extrapolate: at (%d,%d) of %dx%d got %g want %g\n", i / ON, i % ON, OM, ON, out[i], want[i]);
      return 1;
    }
  printf("PASS extrapolate\n");
  return 0;
}
