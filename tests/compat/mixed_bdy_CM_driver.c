/* Compatibility test for formac: mixed_bdy_CM (see README.md in this directory).
   Build: formac mixed_bdy_CM.idsl --print-c --kernel-name mixed_bdy_CM --c-output mixed_bdy_CM.c &&
          cc -std=c99 -fopenmp mixed_bdy_CM.c mixed_bdy_CM_driver.c -lm */
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

void mixed_bdy_CM(float *left, float *right, int M, int N, float *out);

/* try also: 1 7, 2 3 */
int main(int argc, char **argv)
{
  int M = arg_size(argc, argv, 1, 13), N = arg_size(argc, argv, 2, 17);
  float *a = malloc(sizeof(float) * M * N), *b = malloc(sizeof(float) * M * N);
  float *out = malloc(sizeof(float) * M * N);
  int i, j;
  for (i = 0; i < M * N; i++) { a[i] = (float)rng_real(); b[i] = (float)rng_real(); out[i] = -99.0f; }
  mixed_bdy_CM(a, b, M, N, out);
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      float want = a[bd_clamp(i - 3, M) * N + bd_clamp(j - 2, N)] + a[bd_clamp(i + 2, M) * N + bd_clamp(j + 3, N)];
      want = want + b[bd_mirror(i - 2, M) * N + bd_mirror(j - 3, N)];
      want = want + b[bd_mirror(i + 3, M) * N + bd_mirror(j + 2, N)];
      if (out[i * N + j] != want) {
        printf("FAIL mixed_bdy_CM: at (%d,%d) got %g want %g\n", i, j, out[i * N + j], want);
        return 1;
      }
    }
  printf("PASS mixed_bdy_CM\n");
  return 0;
}
