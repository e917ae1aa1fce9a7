/* Compatibility test for formac: subdomain_function (see README.md in this directory).
   Build: formac subdomain_function.idsl --print-c --kernel-name subdomain_function --c-output subdomain_function.c &&
          cc -std=c99 -fopenmp subdomain_function.c subdomain_function_driver.c -lm */
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

void subdomain_function(int *src, int M, int N, int *out);

int main(int argc, char **argv)
{
  int M = arg_size(argc, argv, 1, 13), N = arg_size(argc, argv, 2, 17);
  int R = M - 3, C = N - 5, i, j;
  int *in, *out;
  if (R < 1 || C < 1) { printf("FAIL subdomain_function: need M>=4, N>=6\n"); return 1; }
  in = malloc(sizeof(int) * M * N); out = malloc(sizeof(int) * R * C);
  for (i = 0; i < M * N; i++) in[i] = rng_int(2000000000);
  for (i = 0; i < R * C; i++) out[i] = 0;
  subdomain_function(in, M, N, out);
  for (i = 0; i < R; i++)
    for (j = 0; j < C; j++)
      if (out[i * C + j] != in[(i + 3) * N + j + 4]) {
        printf("FAIL subdomain_function: at (%d,%d) got %d want %d\n", i, j, out[i * C + j], in[(i + 3) * N + j + 4]);
        return 1;
      }
  printf("PASS subdomain_function\n");
  return 0;
}
