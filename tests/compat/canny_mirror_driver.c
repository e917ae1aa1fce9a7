/* Compatibility test for formac: canny_mirror (see README.md in this directory).
   Build: formac canny_mirror.idsl --print-c --kernel-name canny_mirror --c-output canny_mirror.c &&
          cc -std=c99 -fopenmp canny_mirror.c canny_mirror_driver.c -lm */
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

void canny_mirror(float *src, int rows, int cols, float *out);

static const int W5[5][5] = { {2, 4, 5, 4, 2}, {4, 9, 12, 9, 4}, {5, 12, 15, 12, 5}, {4, 9, 12, 9, 4}, {2, 4, 5, 4, 2} };

/* try also 1 7 and 2 3 */
int main(int argc, char **argv)
{
  int M = arg_size(argc, argv, 1, 13), N = arg_size(argc, argv, 2, 17), i, j, di, dj;
  size_t n = (size_t)M * N;
  float *in = malloc(sizeof(float) * n), *out = malloc(sizeof(float) * n), *bl = malloc(sizeof(float) * n);
  for (i = 0; i < M * N; i++) { in[i] = (float)rng_real(); out[i] = -99.0f; }
#define BL(r, c) bl[bd_mirror(r, M) * N + bd_mirror(c, N)]
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      double s = 0.0; /* reference accumulates in double; compared with a float tolerance */
      for (di = -2; di <= 2; di++)
        for (dj = -2; dj <= 2; dj++) s += W5[di + 2][dj + 2] * in[bd_mirror(i + di, M) * N + bd_mirror(j + dj, N)];
      bl[i * N + j] = (float)(s / 159);
    }
  canny_mirror(in, M, N, out);
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      double gxv = (double)BL(i - 1, j + 1) - BL(i - 1, j - 1) + 2.0 * ((double)BL(i, j + 1) - BL(i, j - 1)) + BL(i + 1, j + 1) - BL(i + 1, j - 1);
      double gyv = (double)BL(i + 1, j - 1) - BL(i - 1, j - 1) + 2.0 * ((double)BL(i + 1, j) - BL(i - 1, j)) + BL(i + 1, j + 1) - BL(i - 1, j + 1);
      double want = gxv + gyv;
      if (fabs(out[i * N + j] - want) > 1e-4) {
        printf("FAIL canny_mirror: at (%d,%d) got %.9g want %.9g\n", i, j, out[i * N + j], want);
        return 1;
      }
    }
  printf("PASS canny_mirror\n");
  return 0;
}
