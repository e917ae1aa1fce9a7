/* Prototype: sat of a u8 image into int (32-bit, wrapping as the int64 sums converted to
   int do) or into double (exact below 2^53), in ONE sweep: integer sums are exact in any
   order, so each row is its running row sum plus the row above (OpenCV's shape). Threads
   take bands of rows; a pre-pass sums each band's columns so that a band starts from the
   row above it. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define DEFINE(NAME, T, S)                                                                      \
  void NAME(const unsigned char* restrict img, T* restrict out, int M, int N, int nt) {       \
    T* colsum = calloc((size_t)N * nt, sizeof(T)); /* band b's column sums */                  \
    _Pragma("omp parallel num_threads(nt)") {                                                  \
      const int b = omp_get_thread_num();                                                      \
      const long long i0 = (long long)M * b / nt, i1 = (long long)M * (b + 1) / nt;            \
      if (b < nt - 1) {                                                                        \
        T* cs = colsum + (size_t)N * b;                                                        \
        for (long long i = i0; i < i1; ++i)                                                    \
          for (long long j = 0; j < N; ++j) cs[j] += img[i * N + j];                           \
      }                                                                                        \
      _Pragma("omp barrier")                                                                   \
      /* The row above the band: the prefix over columns of the bands above's sums. */      \
      T* above = malloc(sizeof(T) * N);                                                        \
      const T* prev = above;                                                                   \
      {                                                                                        \
        T s = 0;                                                                               \
        for (long long j = 0; j < N; ++j) {                                                    \
          T c = 0;                                                                             \
          for (int a = 0; a < b; ++a) c += colsum[(size_t)N * a + j];                          \
          above[j] = s += c;                                                                   \
        }                                                                                      \
      }                                                                                        \
      for (long long i = i0; i < i1; ++i) {                                                    \
        const unsigned char* in = img + i * N;                                                 \
        T* o = out + i * N;                                                                    \
        S s = 0;                                                                               \
        for (long long j = 0; j < N; ++j) {                                                    \
          s += in[j];                                                                          \
          o[j] = prev[j] + (T)s;                                                                  \
        }                                                                                      \
        prev = o;                                                                              \
      }                                                                                        \
      free(above);                                                                             \
    }                                                                                          \
    free(colsum);                                                                              \
  }
DEFINE(sat8i_fused, unsigned, unsigned)
DEFINE(sat8d_fused, double, long long)
