/* Compatibility test for formac: canny (see README.md in this directory).
   Build: formac canny.idsl --print-c --kernel-name canny --c-output canny.c &&
          cc -std=c99 -fopenmp canny.c canny_driver.c -lm */
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

void canny(double *src, int M, int N, double *out);

static const int W5[5][5] = { {2, 4, 5, 4, 2}, {4, 9, 12, 9, 4}, {5, 12, 15, 12, 5}, {4, 9, 12, 9, 4}, {2, 4, 5, 4, 2} };
static double mx(double a, double b) { return a > b ? a : b; }

/* Regions (no boundary mode): blurred on [2,M-2)x[2,N-2), gx/gy on [1,M-1)x[1,N-1) reading the
   zero ring of blurred, mag everywhere, result on [1,M-1)x[1,N-1); 0 elsewhere. */
int main(int argc, char **argv)
{
  int M = arg_size(argc, argv, 1, 13), N = arg_size(argc, argv, 2, 17), i, j, di, dj;
  size_t n = (size_t)M * N;
  double *in = malloc(sizeof(double) * n), *out = malloc(sizeof(double) * n);
  double *bl = calloc(n, sizeof(double)), *gx = calloc(n, sizeof(double)), *gy = calloc(n, sizeof(double));
  double *mag = calloc(n, sizeof(double));
  for (i = 0; i < M * N; i++) { in[i] = rng_real(); out[i] = -99.0; }
#define AT(p, r, c) (p)[(r) * N + (c)]
  for (i = 2; i < M - 2; i++)
    for (j = 2; j < N - 2; j++) {
      double s = 0.0;
      for (di = -2; di <= 2; di++)
        for (dj = -2; dj <= 2; dj++) s += W5[di + 2][dj + 2] * AT(in, i + di, j + dj);
      AT(bl, i, j) = s / 159;
    }
  for (i = 1; i < M - 1; i++)
    for (j = 1; j < N - 1; j++) {
      AT(gx, i, j) = (AT(bl, i - 1, j + 1) - AT(bl, i - 1, j - 1)) + 2 * (AT(bl, i, j + 1) - AT(bl, i, j - 1))
                   + (AT(bl, i + 1, j + 1) - AT(bl, i + 1, j - 1));
      AT(gy, i, j) = (AT(bl, i - 1, j - 1) - AT(bl, i + 1, j - 1)) + 2 * (AT(bl, i - 1, j) - AT(bl, i + 1, j))
                   + (AT(bl, i - 1, j + 1) - AT(bl, i + 1, j + 1));
    }
  for (i = 0; i < M * N; i++) mag[i] = fabs(gx[i]) + fabs(gy[i]);
  canny(in, M, N, out);
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      double want = 0.0;
      if (i >= 1 && i < M - 1 && j >= 1 && j < N - 1) {
        double g = AT(mag, i, j), gxv = AT(gx, i, j);
        double th = (gxv == 0 ? 3.14156 / 2 : atan(AT(gy, i, j) / gxv));
        double nb;
        if (th < -3 * 3.14156 / 8) nb = mx(AT(mag, i - 1, j), AT(mag, i + 1, j));
        else if (th < -3.14156 / 8) nb = mx(AT(mag, i + 1, j + 1), AT(mag, i - 1, j - 1));
        else if (th < 3.14156 / 8) nb = mx(AT(mag, i, j + 1), AT(mag, i, j - 1));
        else if (th < 3 * 3.14156 / 8) nb = mx(AT(mag, i - 1, j + 1), AT(mag, i + 1, j - 1));
        else nb = mx(AT(mag, i - 1, j), AT(mag, i, j + 1));
        want = g > nb ? g : 0.0;
      }
      /* the weighted sum may be evaluated in another order: allow rounding, not branch flips */
      if (!close_enough(AT(out, i, j), want, 1e-9)) {
        printf("FAIL canny: at (%d,%d) got %.17g want %.17g\n", i, j, AT(out, i, j), want);
        return 1;
      }
    }
  printf("PASS canny\n");
  return 0;
}
