/* Compatibility test for formac: ternary (see README.md in this directory).
   Build: formac ternary.idsl --print-c --kernel-name ternary --c-output ternary.c &&
          cc -std=c99 -fopenmp ternary.c ternary_driver.c -lm */
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

void ternary(float level, int *one, int *two, int M, int N, int *out);

static int check(const char *what, float level, const int *a, const int *b, const int *out, int n)
{
  int i;
  for (i = 0; i < n; i++) {
    int want = ((double)level < 0.31414) ? a[i] : b[i];
    if (out[i] != want) {
      printf("FAIL ternary: %s (level=%g) at flat index %d got %d want %d\n", what, level, i, out[i], want);
      return 1;
    }
  }
  return 0;
}

int main(int argc, char **argv)
{
  int M = arg_size(argc, argv, 1, 13), N = arg_size(argc, argv, 2, 17), i;
  int *a = malloc(sizeof(int) * M * N), *b = malloc(sizeof(int) * M * N), *out = malloc(sizeof(int) * M * N);
  for (i = 0; i < M * N; i++) { a[i] = rng_int(1000000); b[i] = -rng_int(1000000); out[i] = 0; }
  ternary(0.423434f, a, b, M, N, out);
  if (check("high level", 0.423434f, a, b, out, M * N)) return 1;
  for (i = 0; i < M * N; i++) out[i] = 0;
  ternary(0.125f, a, b, M, N, out);
  if (check("low level", 0.125f, a, b, out, M * N)) return 1;
  printf("PASS ternary\n");
  return 0;
}
