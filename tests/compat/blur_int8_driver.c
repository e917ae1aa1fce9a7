/* Compatibility test for formac: blur_int8 (see README.md in this directory).
   Build: formac blur_int8.idsl --print-c --kernel-name blur_int8 --c-output blur_int8.c &&
          cc -std=c99 -fopenmp blur_int8.c blur_int8_driver.c -lm */
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

void blur_int8(unsigned char *src, int rows, int cols, unsigned char *out);

static unsigned char three(unsigned char a, unsigned char b, unsigned char c) { return (unsigned char)((a + b + c) / 3.0); }

/* usage: blur_int8 [rows cols]; try also 1 7 */
int main(int argc, char **argv)
{
  int M = arg_size(argc, argv, 1, 13), N = arg_size(argc, argv, 2, 17), i, j;
  unsigned char *in = malloc(sizeof(unsigned char) * M * N), *out = malloc(sizeof(unsigned char) * M * N);
  unsigned char *mid = calloc((size_t)M * N, sizeof(unsigned char));
  unsigned char a, b, c;
  for (i = 0; i < M * N; i++) { in[i] = (unsigned char)rng_int(255); out[i] = (unsigned char)99; }
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      if (i >= 1 && i + 1 < M) { a = in[(i - 1) * N + j]; b = in[i * N + j]; c = in[(i + 1) * N + j]; mid[i * N + j] = three(a, b, c); }
    }
  blur_int8(in, M, N, out);
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      unsigned char want = 0;
      if (j >= 1 && j + 1 < N) { a = mid[i * N + j - 1]; b = mid[i * N + j]; c = mid[i * N + j + 1]; want = three(a, b, c); }
      if (out[i * N + j] != want) {
        printf("FAIL blur_int8: at (%d,%d) got %d want %d\n", i, j, (int)out[i * N + j], (int)want);
        return 1;
      }
    }
  printf("PASS blur_int8\n");
  return 0;
}
