/* Compatibility test for formac: stencil_sampling (see README.md in this directory).
   Build: formac stencil_sampling.idsl --print-c --kernel-name stencil_sampling --c-output stencil_sampling.c &&
          cc -std=c99 -fopenmp stencil_sampling.c stencil_sampling_driver.c -lm */
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

void stencil_sampling(double *src, int M, int N, double *out);

/* Forma's gold for this construct (ctests/stencil_sampling, 11x14 input, 5x4 output) leaves
   output column 2 at 0 although its read (input column 11) is inside.  The rule that fits:
   for a read (a,s) in a stencil, with output extent E = floor(n/s), the computed range is
   [ceil(-a/s), E-1-ceil(a/s)] (each bound only applied when its sign of a calls for it),
   i.e. the high side is shrunk by ceil(a/s) from E-1 instead of the exact floor((n-1-a)/s).
   Build with -DFORMAC_PRECISE_SAMPLING to expect the exact rule instead. */
static int ceil_div(int a, int s) { return a >= 0 ? (a + s - 1) / s : -((-a) / s); }
static int in_region(int i, int a, int s, int n)
{
  int E = n / s;
#ifdef FORMAC_PRECISE_SAMPLING
  return s * i + a >= 0 && s * i + a < n && i < E;
#else
  int lo = a < 0 ? ceil_div(-a, s) : 0;
  int hi = E - 1 - (a > 0 ? ceil_div(a, s) : 0);
  return i >= lo && i <= hi;
#endif
}

int main(int argc, char **argv)
{
  int M = arg_size(argc, argv, 1, 11), N = arg_size(argc, argv, 2, 14);
  int OM = M / 2, ON = N / 3, i, j;
  double *in = malloc(sizeof(double) * M * N), *out = malloc(sizeof(double) * (OM * ON + 1));
  for (i = 0; i < M * N; i++) in[i] = rng_real();
  for (i = 0; i < OM * ON; i++) out[i] = -99.0;
  stencil_sampling(in, M, N, out);
  for (i = 0; i < OM; i++)
    for (j = 0; j < ON; j++) {
      double want = 0.0;
      if (in_region(i, -1, 2, M) && in_region(j, 5, 3, N)) want = in[(2 * i - 1) * N + 3 * j + 5];
      if (out[i * ON + j] != want) {
        printf("FAIL stencil_sampling: at (%d,%d) of %dx%d got %g want %g\n", i, j, OM, ON, out[i * ON + j], want);
        return 1;
      }
    }
  printf("PASS stencil_sampling\n");
  return 0;
}
