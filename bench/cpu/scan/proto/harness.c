/* bench/cpu/scan/proto/harness.c — times the hand-made shapes for Scan_C (README.md here)
   against formac's generated code and OpenCV in interleaved rounds, after checking that
   each gives the generated code's result bit for bit.
     harness [rounds] */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "boxint15.h"
#include "boxint15_fsat.h"
#include "sat8d.h"
#include "sat8d_dacc.h"
#include "sat8i.h"
#include "sat8i_w32.h"
#include "satfd.h"
#include "satfd_l512.h"
#include "scancolf.h"
#include "scancolf_l512.h"

void satfd_fused(const float* img, double* out, int M, int N, int T);
void sat8i_fused(const unsigned char* img, unsigned* out, int M, int N, int T);
void sat8d_fused(const unsigned char* img, double* out, int M, int N, int T);
void sat8i_vec(const unsigned char* img, unsigned* out, int M, int N, int T);
void sat8d_vec(const unsigned char* img, double* out, int M, int N, int T);
void scancol_rowmajor(const float* img, double* out, int M, int N, int T);
void cv_threads(int t);
void cv_integral_u8_32s(const unsigned char* in, int* out, int M, int N);
void cv_integral_u8_64f(const unsigned char* in, double* out, int M, int N);
void cv_integral_f32_64f(const float* in, double* out, int M, int N);
void cv_box_f32(const float* in, float* out, int M, int N, int r);

enum { S = 4096 };
static const size_t n = (size_t)S * S;
static unsigned char* u8;
static float* f32;
static int t;  /* threads */
static void* ws[16];

/* Every variant writes its own output; `ref` names the variant whose output it must equal
   (-1: none, an OpenCV call in its own layout). */
typedef struct {
  const char* group;
  const char* name;
  size_t bytes;
  int ref;
  void (*run)(void* out);
  void* out;
  double ms[101];
} Variant;

#define W(k, T) ((T*)ws[k])
static void v_sat8i(void* o) { sat8i_run(W(0, sat8i_workspace), u8, o); }
static void v_sat8i_w32(void* o) { sat8i_w32_run(W(1, sat8i_w32_workspace), u8, o); }
static void v_sat8i_fused(void* o) { sat8i_fused(u8, o, S, S, t); }
static void v_sat8i_vec(void* o) { sat8i_vec(u8, o, S, S, t); }
static void v_cv_32s(void* o) { cv_integral_u8_32s(u8, o, S, S); }
static void v_sat8d(void* o) { sat8d_run(W(2, sat8d_workspace), u8, o); }
static void v_sat8d_dacc(void* o) { sat8d_dacc_run(W(3, sat8d_dacc_workspace), u8, o); }
static void v_sat8d_fused(void* o) { sat8d_fused(u8, o, S, S, t); }
static void v_sat8d_vec(void* o) { sat8d_vec(u8, o, S, S, t); }
static void v_cv_u8_64f(void* o) { cv_integral_u8_64f(u8, o, S, S); }
static void v_satfd(void* o) { satfd_run(W(4, satfd_workspace), f32, o); }
static void v_satfd_l512(void* o) { satfd_l512_run(W(5, satfd_l512_workspace), f32, o); }
static void v_satfd_fused(void* o) { satfd_fused(f32, o, S, S, t); }
static void v_cv_f32_64f(void* o) { cv_integral_f32_64f(f32, o, S, S); }
static void v_scancolf(void* o) { scancolf_run(W(6, scancolf_workspace), f32, o); }
static void v_scancolf_l512(void* o) { scancolf_l512_run(W(7, scancolf_l512_workspace), f32, o); }
static void v_scancol_rm(void* o) { scancol_rowmajor(f32, o, S, S, t); }
static void v_boxint15(void* o) { boxint15_run(W(8, boxint15_workspace), f32, o); }
static void v_boxint15_fsat(void* o) { boxint15_fsat_run(W(9, boxint15_fsat_workspace), f32, o); }
static void v_cv_box15(void* o) { cv_box_f32(f32, o, S, S, 15); }

static Variant v[] = {
    {"sat u8 -> int32", "generated sat(img, int): int64 scratch, 2 passes", 4, -1, v_sat8i},
    {"sat u8 -> int32", "1. u32 sums in the output, 2 passes", 4, 0, v_sat8i_w32},
    {"sat u8 -> int32", "5. one sweep (row sum + row above), scalar", 4, 0, v_sat8i_fused},
    {"sat u8 -> int32", "6. one sweep, 16-wide vector prefix", 4, 0, v_sat8i_vec},
    {"sat u8 -> int32", "opencv cv::integral CV_32S", 4, -1, v_cv_32s},
    {"sat u8 -> f64", "generated sat(img, double): int64 scratch, 2 passes", 8, -1, v_sat8d},
    {"sat u8 -> f64", "2. double sums in the output, 2 passes", 8, 5, v_sat8d_dacc},
    {"sat u8 -> f64", "5. one sweep, scalar", 8, 5, v_sat8d_fused},
    {"sat u8 -> f64", "6. one sweep, 16-wide vector prefix", 8, 5, v_sat8d_vec},
    {"sat u8 -> f64", "opencv cv::integral CV_64F", 8, -1, v_cv_u8_64f},
    {"sat f32 -> f64", "generated sat(img): 2 passes", 8, -1, v_satfd},
    {"sat f32 -> f64", "3. strided pass 512 lanes, not 64", 8, 10, v_satfd_l512},
    {"sat f32 -> f64", "4. one sweep (8 rows, then their column step)", 8, 10, v_satfd_fused},
    {"sat f32 -> f64", "opencv cv::integral CV_64F", 8, -1, v_cv_f32_64f},
    {"column scan f32 -> f64", "generated scan(img, 0): 64 columns down the image", 8, -1, v_scancolf},
    {"column scan f32 -> f64", "3. 512 columns down the image", 8, 14, v_scancolf_l512},
    {"column scan f32 -> f64", "7. rows in memory order, a band of columns per thread", 8, 14, v_scancol_rm},
    {"box r=15 interior f32", "generated boxint15: sat (2 passes) + box", 4, -1, v_boxint15},
    {"box r=15 interior f32", "4. the box on the one-sweep sat", 4, 17, v_boxint15_fsat},
    {"box r=15 interior f32", "opencv cv::boxFilter CV_32F", 4, -1, v_cv_box15},
};
enum { V = sizeof v / sizeof v[0] };

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}
static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  int R = argc > 1 ? atoi(argv[1]) : 15;
  if (R < 1 || R > 101) R = 15;
  u8 = malloc(n), f32 = malloc(n * 4);
  unsigned s = 1;
  for (size_t i = 0; i < n; ++i) s ^= s << 13, s ^= s >> 17, s ^= s << 5, u8[i] = s >> 11;
  s = 2;
  for (size_t i = 0; i < n; ++i)
    s ^= s << 13, s ^= s >> 17, s ^= s << 5, f32[i] = (float)((s >> 8) & 0xFFFFFF) / (float)0x1000000;
  for (int k = 0; k < V; ++k) v[k].out = calloc((size_t)(S + 1) * (S + 1), v[k].bytes);
  double la[3] = {0};
  getloadavg(la, 3);
  printf("4096², median of %d interleaved rounds; load average before %.2f %.2f %.2f\n", R, la[0], la[1], la[2]);
  int failures = 0;
  for (t = 2; t >= 1; --t) {
    omp_set_num_threads(t);
    cv_threads(t);
    ws[0] = sat8i_create(S, S), ws[1] = sat8i_w32_create(S, S), ws[2] = sat8d_create(S, S);
    ws[3] = sat8d_dacc_create(S, S), ws[4] = satfd_create(S, S), ws[5] = satfd_l512_create(S, S);
    ws[6] = scancolf_create(S, S), ws[7] = scancolf_l512_create(S, S), ws[8] = boxint15_create(S, S);
    ws[9] = boxint15_fsat_create(S, S);
    for (int k = 0; k < V; ++k) v[k].run(v[k].out);
    for (int k = 0; k < V; ++k)
      if (v[k].ref >= 0 && memcmp(v[k].out, v[v[k].ref].out, n * v[k].bytes)) {
        printf("%d threads: %s / %s differs from %s\n", t, v[k].group, v[k].name, v[v[k].ref].name);
        ++failures;
      }
    for (int r = 0; r < R; ++r)
      for (int k0 = 0; k0 < V; ++k0) {
        Variant* x = &v[(k0 + r) % V];
        double t0 = now();
        x->run(x->out);
        x->ms[r] = now() - t0;
      }
    double base = 0;
    for (int k = 0; k < V; ++k) {
      qsort(v[k].ms, R, sizeof(double), cmp);
      if (k == 0 || strcmp(v[k].group, v[k - 1].group)) base = v[k].ms[R / 2];
      printf("| %s | %d | %s | %.1f | %.2f | %.1f |\n", v[k].group, t, v[k].name, v[k].ms[R / 2],
             v[k].ms[R / 2] / base, v[k].ms[0]);
    }
    sat8i_destroy(ws[0]), sat8i_w32_destroy(ws[1]), sat8d_destroy(ws[2]), sat8d_dacc_destroy(ws[3]);
    satfd_destroy(ws[4]), satfd_l512_destroy(ws[5]), scancolf_destroy(ws[6]), scancolf_l512_destroy(ws[7]);
    boxint15_destroy(ws[8]), boxint15_fsat_destroy(ws[9]);
  }
  getloadavg(la, 3);
  printf("load average after %.2f %.2f %.2f; every variant with a reference equal to it bit for bit: %s\n", la[0],
         la[1], la[2], failures ? "NO" : "yes");
  return failures != 0;
}
