/* Compatibility test for formac: j2d (see README.md in this directory).
   Build: formac j2d.idsl --print-c --kernel-name j2d --c-output j2d.c &&
          cc -std=c99 -fopenmp j2d.c j2d_driver.c -lm */
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

void j2d(float *grid, float *out);

#define R 37
#define C 23
int main(void)
{
  float *in = malloc(sizeof(float) * R * C), *out = malloc(sizeof(float) * R * C);
  int i, j;
  for (i = 0; i < R * C; i++) { in[i] = (float)rng_real(); out[i] = -99.0f; }
  j2d(in, out);
  for (i = 0; i < R; i++)
    for (j = 0; j < C; j++) {
      float want = 0.0f;
      if (i >= 1 && i < R - 1 && j >= 1 && j < C - 1) {
        float s = in[(i - 1) * C + j] + in[(i + 1) * C + j];
        s = s + in[i * C + j]; s = s + in[i * C + j - 1]; s = s + in[i * C + j + 1];
        want = (1.0f / 5.0f) * s;
      }
      if (!close_enough(out[i * C + j], want, 1e-6)) {
        printf("FAIL j2d: at (%d,%d) got %.9g want %.9g\n", i, j, out[i * C + j], want);
        return 1;
      }
    }
  printf("PASS j2d\n");
  return 0;
}
