/* Compatibility test for formac: downsample_mirror (see README.md in this directory).
   Build: formac downsample_mirror.idsl --print-c --kernel-name downsample_mirror --c-output downsample_mirror.c &&
          cc -std=c99 -fopenmp downsample_mirror.c downsample_mirror_driver.c -lm */
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

void downsample_mirror(float *src, int M, int N, float *out);

/* Every output point is computed; a sampled read s*i+a is reflected (REFLECT_101) against
   the FULL extent of the image read (M rows for the first stage, N columns for the second). */
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
    for (j = 0; j < N; j++)
      mid[i * N + j] = taps(in[bd_mirror(2 * i - 2, M) * N + j], in[bd_mirror(2 * i - 1, M) * N + j],
                            in[bd_mirror(2 * i, M) * N + j], in[bd_mirror(2 * i + 1, M) * N + j],
                            in[bd_mirror(2 * i + 2, M) * N + j]);
  downsample_mirror(in, M, N, out);
  for (i = 0; i < OM; i++)
    for (j = 0; j < ON; j++) {
      const float *r = mid + i * N;
      float want = taps(r[bd_mirror(2 * j - 2, N)], r[bd_mirror(2 * j - 1, N)], r[bd_mirror(2 * j, N)],
                        r[bd_mirror(2 * j + 1, N)], r[bd_mirror(2 * j + 2, N)]);
      if (!close_enough(out[i * ON + j], want, 1e-5)) {
        printf("FAIL downsample_mirror: at (%d,%d) of %dx%d got %g want %g\n", i, j, OM, ON, out[i * ON + j], want);
        return 1;
      }
    }
  printf("PASS downsample_mirror\n");
  return 0;
}
