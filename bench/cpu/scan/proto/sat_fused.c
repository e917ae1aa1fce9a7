/* Prototype: sat(img) of a float image in ONE sweep over the image, in formac's floating
   order (bit-identical to the generated two-pass satfd). For each run of 8 rows: the rows
   are scanned along dimension 1 into the output (as the contiguous pass does), then the
   same 8 rows, still in cache, take the dimension-0 step (as the strided pass does, but
   with the carry stacks of a whole column segment side by side instead of 64 lanes).
   Threads split the columns into aligned segments (a power of two of runs each): a
   pre-pass computes each row's group sums of the segments left of a thread's own. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "prelude.h"  /* the generated prelude's carry stacks (variants.sh) */

#define RUN 8
#define DEPTH 24

void satfd_fused(const float* restrict img, double* restrict out, int M, int N, int T) {
  /* Column segments: T of them, each N/T columns (the prototype needs N/T a power of two
     of runs; a real one would choose aligned segment sizes as Scan_C's 64K segments). */
  const long long segw = N / T;
  double* segbase = malloc(sizeof(double) * (size_t)M * T); /* carry of row i at segment t */
  if (T > 1) {
    /* Group sums of every segment but the last, then their carries (formac_scan_d). */
#pragma omp parallel for schedule(static) num_threads(T)
    for (long long i = 0; i < M; ++i) {
      formac_scan_d sc;
      formac_scan_d_begin(&sc, 0);
      for (int t = 0; t < T; ++t) {
        segbase[i * T + t] = formac_scan_d_carry(&sc);
        if (t == T - 1) break;
        formac_scan_d s;
        formac_scan_d_begin(&s, 0);
        for (long long k = t * segw; k < (t + 1) * segw; k += RUN) {
          double l = 0;
          for (long long j = k; j < k + RUN; ++j) l += (double)img[i * N + j];
          formac_scan_d_push(&s, l);
        }
        formac_scan_d_push(&sc, formac_scan_d_group(&s));
      }
    }
  } else
    for (long long i = 0; i < M; ++i) segbase[i] = 0;
#pragma omp parallel num_threads(T)
  {
    const int t = omp_get_thread_num();
    const long long j0 = t * segw, j1 = t == T - 1 ? N : j0 + segw, W = j1 - j0;
    double* l = malloc(sizeof(double) * W * (2 + 2 * DEPTH));
    double *e = l + W, *g = e + W, *p = g + W * DEPTH;
    int depth = 0;
    long long runs = 0;
    for (long long k = 0; k < M; k += RUN) {
      const long long x1 = M - k < RUN ? M : k + RUN;
      /* Dimension 1 on rows k..x1-1, columns j0..j1-1. */
      for (long long i = k; i < x1; ++i) {
        formac_scan_d s;
        formac_scan_d_begin(&s, segbase[i * T + t]);
        const float* in = img + i * N;
        double* o = out + i * N;
        for (long long c = j0; c < j1; c += RUN) {
          const double ec = formac_scan_d_carry(&s);
          const long long c1 = j1 - c < RUN ? j1 : c + RUN;
          double lc = 0;
          for (long long j = c; j < c1; ++j) {
            lc += (double)in[j];
            o[j] = ec + lc;
          }
          if (c1 < j1) formac_scan_d_push(&s, lc);
        }
      }
      /* Dimension 0 on the same rows. */
      for (long long j = 0; j < W; ++j) {
        e[j] = depth ? p[(depth - 1) * W + j] : 0;
        l[j] = 0;
      }
      for (long long i = k; i < x1; ++i) {
        double* o = out + i * N + j0;
        for (long long j = 0; j < W; ++j) {
          l[j] += o[j];
          o[j] = e[j] + l[j];
        }
      }
      if (x1 < M) {
        long long r;
        for (r = runs++; r & 1; r >>= 1) {
          --depth;
          for (long long j = 0; j < W; ++j) l[j] = g[depth * W + j] + l[j];
        }
        for (long long j = 0; j < W; ++j) {
          g[depth * W + j] = l[j];
          p[depth * W + j] = (depth ? p[(depth - 1) * W + j] : 0) + l[j];
        }
        ++depth;
      }
    }
    free(l);
  }
  free(segbase);
}
