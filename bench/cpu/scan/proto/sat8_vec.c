/* Prototype: the one-sweep integer sat (fused8.c) with the row's running sum computed 16
   points at a time in a vector (log-step prefix by shifted adds, then the carry broadcast),
   written with GCC vector extensions (no intrinsics: portable C as formac emits). Integer
   sums are exact in any order, so this is bit-identical to the int64 sums converted to int. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned v16u __attribute__((vector_size(64)));
typedef unsigned char v16c __attribute__((vector_size(16)));
typedef unsigned short v16s __attribute__((vector_size(32)));
typedef double v8d __attribute__((vector_size(64)));
typedef unsigned v8u __attribute__((vector_size(32)));

static inline v16u prefix16(v16u v) {
  const v16u z = {0};
  v += __builtin_shuffle(z, v, (v16u){0, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30});
  v += __builtin_shuffle(z, v, (v16u){0, 0, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29});
  v += __builtin_shuffle(z, v, (v16u){0, 0, 0, 0, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27});
  v += __builtin_shuffle(z, v, (v16u){0, 0, 0, 0, 0, 0, 0, 0, 16, 17, 18, 19, 20, 21, 22, 23});
  return v;
}

#define DEFINE(NAME, T, ...)                                                                    \
  void NAME(const unsigned char* restrict img, T* restrict out, int M, int N, int nt) {       \
    T* colsum = calloc((size_t)N * nt, sizeof(T));                                             \
    _Pragma("omp parallel num_threads(nt)") {                                                  \
      const int b = omp_get_thread_num();                                                      \
      const long long i0 = (long long)M * b / nt, i1 = (long long)M * (b + 1) / nt;            \
      if (b < nt - 1) {                                                                        \
        T* cs = colsum + (size_t)N * b;                                                        \
        for (long long i = i0; i < i1; ++i)                                                    \
          for (long long j = 0; j < N; ++j) cs[j] += img[i * N + j];                           \
      }                                                                                        \
      _Pragma("omp barrier")                                                                   \
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
        v16u carry = {0};                                                                      \
        long long j = 0;                                                                       \
        for (; j + 16 <= N; j += 16) {                                                         \
          v16c c;                                                                              \
          memcpy(&c, in + j, 16);                                                              \
          v16u v = prefix16(__builtin_convertvector(__builtin_convertvector(c, v16s), v16u)) + carry;                         \
          carry = __builtin_shuffle(v, (v16u){15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,  \
                                              15, 15, 15, 15});                                \
          __VA_ARGS__                                                                          \
        }                                                                                      \
        unsigned s = carry[0];                                                                 \
        for (; j < N; ++j) o[j] = prev[j] + (T)(s += in[j]);                                   \
        prev = o;                                                                              \
      }                                                                                        \
      free(above);                                                                             \
    }                                                                                          \
    free(colsum);                                                                              \
  }

DEFINE(sat8i_vec, unsigned, {
  v16u p;
  memcpy(&p, prev + j, 64);
  v += p;
  memcpy(o + j, &v, 64);
})
DEFINE(sat8d_vec, double, {
  v8u lo = {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
  v8u hi = {v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15]};
  v8d a = __builtin_convertvector(lo, v8d), d = __builtin_convertvector(hi, v8d), p, q;
  memcpy(&p, prev + j, 64);
  memcpy(&q, prev + j + 8, 64);
  a += p;
  d += q;
  memcpy(o + j, &a, 64);
  memcpy(o + j + 8, &d, 64);
})
