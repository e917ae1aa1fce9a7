/* Prototype: scan(img, 0) of a float image walking rows in memory order (each thread a
   band of columns, all of its columns' carry stacks side by side) instead of blocks of 64
   columns walked down the image; same floating order as the generated strided pass. */
#include <omp.h>
#include <stdlib.h>

#define RUN 8
#define DEPTH 24

void scancol_rowmajor(const float* restrict img, double* restrict out, int M, int N, int T) {
#pragma omp parallel num_threads(T)
  {
    const int t = omp_get_thread_num();
    const long long j0 = (long long)N * t / T / 16 * 16, j1 = t == T - 1 ? N : (long long)N * (t + 1) / T / 16 * 16,
                    W = j1 - j0;
    double* l = malloc(sizeof(double) * W * (2 + 2 * DEPTH));
    double *e = l + W, *g = e + W, *p = g + W * DEPTH;
    int depth = 0;
    long long runs = 0;
    for (long long k = 0; k < M; k += RUN) {
      const long long x1 = M - k < RUN ? M : k + RUN;
      for (long long j = 0; j < W; ++j) {
        e[j] = depth ? p[(depth - 1) * W + j] : 0;
        l[j] = 0;
      }
      for (long long i = k; i < x1; ++i) {
        const float* in = img + i * N + j0;
        double* o = out + i * N + j0;
        for (long long j = 0; j < W; ++j) {
          l[j] += (double)in[j];
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
}
