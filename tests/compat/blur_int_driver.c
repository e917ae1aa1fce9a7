/* Compatibility test for formac: blur_int (see README.md in this directory).
   Build: formac blur_int.idsl --print-c --kernel-name blur_int --c-output blur_int.c &&
          cc -std=c99 -fopenmp blur_int.c blur_int_driver.c -lm */
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

void blur_int(int *src, int rows, int cols, int *out);

static int three(int a, int b, int c) { return (a + b + c) / 3; }

/* usage: blur_int [rows cols]; try also 1 7 */
int main(int argc, char **argv)
{
  int M = arg_size(argc, argv, 1, 13), N = arg_size(argc, argv, 2, 17), i, j;
  int *in = malloc(sizeof(int) * M * N), *out = malloc(sizeof(int) * M * N);
  int *mid = calloc((size_t)M * N, sizeof(int));
  int a, b, c;
  for (i = 0; i < M * N; i++) { in[i] = rng_int(1000000); out[i] = (int)99; }
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      if (i >= 1 && i + 1 < M) { a = in[(i - 1) * N + j]; b = in[i * N + j]; c = in[(i + 1) * N + j]; mid[i * N + j] = three(a, b, c); }
    }
  blur_int(in, M, N, out);
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      int want = 0;
      if (j >= 1 && j + 1 < N) { a = mid[i * N + j - 1]; b = mid[i * N + j]; c = mid[i * N + j + 1]; want = three(a, b, c); }
      if (out[i * N + j] != want) {
        printf("FAIL blur_int: at (%d,%d) got %d want %d\n", i, j, (int)out[i * N + j], (int)want);
        return 1;
      }
    }
  printf("PASS blur_int\n");
  return 0;
}
