/* Compatibility test for formac: hello_world3D (see README.md in this directory).
   Build: formac hello_world3D.idsl --print-c --kernel-name hello_world3D --c-output hello_world3D.c &&
          cc -std=c99 -fopenmp hello_world3D.c hello_world3D_driver.c -lm */
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

void hello_world3D(float *vol, int L, int M, int N, float *out);

int main(int argc, char **argv)
{
  int L = arg_size(argc, argv, 1, 3), M = arg_size(argc, argv, 2, 5), N = arg_size(argc, argv, 3, 7);
  int n = L * M * N, i;
  float *in = malloc(sizeof(float) * n), *out = malloc(sizeof(float) * n);
  for (i = 0; i < n; i++) { in[i] = (float)rng_real(); out[i] = -99.0f; }
  hello_world3D(in, L, M, N, out);
  for (i = 0; i < n; i++)
    if (out[i] != in[i]) {
      printf("FAIL hello_world3D: at (%d,%d,%d) got %g want %g\n",
             i / (M * N), (i / N) % M, i % N, out[i], in[i]);
      return 1;
    }
  printf("PASS hello_world3D\n");
  return 0;
}
