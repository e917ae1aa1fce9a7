/* Compatibility test for formac: try_struct (see README.md in this directory).
   Build: formac try_struct.idsl --print-c --kernel-name try_struct --c-output try_struct.c &&
          cc -std=c99 -fopenmp try_struct.c try_struct_driver.c -lm */
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

struct pix { unsigned char r, g, b; };
void try_struct(struct pix *photo, int M, int N, struct pix *out);

int main(int argc, char **argv)
{
  int M = arg_size(argc, argv, 1, 13), N = arg_size(argc, argv, 2, 17), i;
  struct pix *in = malloc(sizeof(struct pix) * M * N), *out = malloc(sizeof(struct pix) * M * N);
  if (sizeof(struct pix) != 3) { printf("FAIL try_struct: host struct is not 3 bytes\n"); return 1; }
  for (i = 0; i < M * N; i++) {
    in[i].r = (unsigned char)rng_int(255); in[i].g = (unsigned char)(128 + rng_int(127)); in[i].b = (unsigned char)rng_int(255);
    out[i].r = out[i].g = out[i].b = 7;
  }
  try_struct(in, M, N, out);
  for (i = 0; i < M * N; i++)
    if (out[i].r != in[i].r || out[i].g != in[i].g || out[i].b != in[i].b) {
      printf("FAIL try_struct: at (%d,%d) got [%d,%d,%d] want [%d,%d,%d]\n", i / N, i % N,
             out[i].r, out[i].g, out[i].b, in[i].r, in[i].g, in[i].b);
      return 1;
    }
  printf("PASS try_struct\n");
  return 0;
}
