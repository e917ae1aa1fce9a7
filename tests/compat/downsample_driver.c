/* Compatibility test for formac: downsample (see README.md in this directory).
   Build: formac downsample.idsl --print-c --kernel-name downsample --c-output downsample.c &&
          cc -std=c99 -fopenmp downsample.c downsample_driver.c -lm */
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

void downsample(float *src, int M, int N, float *out);

/* Computed region of a stencil with sampled reads (a,s), output extent E = floor(n/s):
   Forma-compatible rule (fits ctests/stencil_sampling and the loop bounds of
   ctests/downsample's gold): [ceil(-a/s), E-1-ceil(a/s)]; for these taps (a = -2..2, s = 2)
   that is [1, E-2].  The exact rule would also compute row E-1 when n is odd.
   Build with -DFORMAC_PRECISE_SAMPLING to expect the exact rule. */
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
static float taps(float a, float b, float c, float d, float e)
{
  float r = 0.0625f * a;
  r = r + 0.25f * b;
  r = r + 0.375f * c;
  r = r + 0.25f * d;
  r = r + 0.0625f * e;
  return r;
}

int main(int argc, char **argv)
{
  int M = arg_size(argc, argv, 1, 13), N = arg_size(argc, argv, 2, 17);
  int OM = M / 2, ON = N / 2, i, j;
  float *in = malloc(sizeof(float) * M * N), *out = malloc(sizeof(float) * (OM * ON + 1));
  float *mid = calloc((size_t)OM * N + 1, sizeof(float));
  for (i = 0; i < M * N; i++) in[i] = (float)rng_real();
  for (i = 0; i < OM * ON; i++) out[i] = -99.0f;
  for (i = 0; i < OM; i++)
    if (in_region(i, -2, 2, M) && in_region(i, 2, 2, M))
      for (j = 0; j < N; j++)
        mid[i * N + j] = taps(in[(2 * i - 2) * N + j], in[(2 * i - 1) * N + j], in[(2 * i) * N + j],
                              in[(2 * i + 1) * N + j], in[(2 * i + 2) * N + j]);
  downsample(in, M, N, out);
  for (i = 0; i < OM; i++)
    for (j = 0; j < ON; j++) {
      float want = 0.0f;
      if (in_region(j, -2, 2, N) && in_region(j, 2, 2, N))
        want = taps(mid[i * N + 2 * j - 2], mid[i * N + 2 * j - 1], mid[i * N + 2 * j],
                    mid[i * N + 2 * j + 1], mid[i * N + 2 * j + 2]);
      if (!close_enough(out[i * ON + j], want, 1e-5)) {
        printf("FAIL downsample: at (%d,%d) of %dx%d got %g want %g\n", i, j, OM, ON, out[i * ON + j], want);
        return 1;
      }
    }
  printf("PASS downsample\n");
  return 0;
}
