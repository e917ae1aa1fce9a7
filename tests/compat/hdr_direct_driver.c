/* Compatibility test for formac: hdr_direct (see README.md in this directory).
   Build: formac hdr_direct.idsl --print-c --kernel-name hdr_direct --c-output hdr_direct.c &&
          cc -std=c99 -fopenmp hdr_direct.c hdr_direct_driver.c -lm */
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

struct rgb { double r, g, b; };
void hdr_direct(struct rgb *shot1, struct rgb *shot2, int M, int N, struct rgb *out);

static void weights(const struct rgb *p, int M, int N, double *w)
{
  int i, j;
  double *gr = malloc(sizeof(double) * M * N);
  for (i = 0; i < M * N; i++) gr[i] = (0.02126 * p[i].r + 0.7152 * p[i].g + 0.0722 * p[i].b) / 255;
  for (i = 0; i < M * N; i++) w[i] = 0.0;
  for (i = 1; i < M - 1; i++)
    for (j = 1; j < N - 1; j++) {
      const struct rgb *q = &p[i * N + j];
      double lap = 4 * gr[i * N + j] - (gr[(i - 1) * N + j] + gr[i * N + j - 1] + gr[(i + 1) * N + j] + gr[i * N + j + 1]);
      double mean = (q->r + q->g + q->b) / 3.0;
      double dev = sqrt(((q->r - mean) * (q->r - mean) + (q->b - mean) * (q->b - mean) + (q->g - mean) * (q->g - mean)) / 3.0);
      double vr = (q->r / 255.0) - 0.5, vg = (q->g / 255.0) - 0.5, vb = (q->b / 255.0) - 0.5;
      double ex = exp(-12.5 * vr * vr) * exp(-12.5 * vg * vg) * exp(-12.5 * vb * vb);
      w[i * N + j] = lap * dev * ex;
    }
  free(gr);
}

/* Only the interior [1,M-1)x[1,N-1) is checked: on the border both weights are 0 (uncomputed
   laplacian), so the blend is 0/0 (NaN in Forma's output as well). */
int main(int argc, char **argv)
{
  int M = arg_size(argc, argv, 1, 13), N = arg_size(argc, argv, 2, 17), i, j;
  struct rgb *a = malloc(sizeof(struct rgb) * M * N), *b = malloc(sizeof(struct rgb) * M * N);
  struct rgb *out = malloc(sizeof(struct rgb) * M * N);
  double *w1 = malloc(sizeof(double) * M * N), *w2 = malloc(sizeof(double) * M * N);
  for (i = 0; i < M * N; i++) {
    a[i].r = rng_int(255); a[i].g = rng_int(255); a[i].b = rng_int(255);
    b[i].r = rng_int(255); b[i].g = rng_int(255); b[i].b = rng_int(255);
    out[i].r = out[i].g = out[i].b = -99.0;
  }
  weights(a, M, N, w1);
  weights(b, M, N, w2);
  hdr_direct(a, b, M, N, out);
  for (i = 1; i < M - 1; i++)
    for (j = 1; j < N - 1; j++) {
      int k = i * N + j;
      double t = w1[k] + w2[k];
      double wr = (w1[k] * a[k].r + w2[k] * b[k].r) / t;
      double wg = (w1[k] * a[k].g + w2[k] * b[k].g) / t;
      double wb = (w1[k] * a[k].b + w2[k] * b[k].b) / t;
      if (!close_enough(out[k].r, wr, 1e-6) || !close_enough(out[k].g, wg, 1e-6) || !close_enough(out[k].b, wb, 1e-6)) {
        printf("FAIL hdr_direct: at (%d,%d) got [%.10g,%.10g,%.10g] want [%.10g,%.10g,%.10g]\n",
               i, j, out[k].r, out[k].g, out[k].b, wr, wg, wb);
        return 1;
      }
    }
  printf("PASS hdr_direct\n");
  return 0;
}
