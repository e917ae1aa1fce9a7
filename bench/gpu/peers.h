// bench/gpu: the interface between the timing driver (bench_gpu.cu) and the
// peers it compares formac with. Each peer lives in its own translation unit
// so that a missing library (NPP headers, Halide objects) only removes that
// peer: built without it, every function returns PEER_MISSING.
#pragma once
#include <stdint.h>

#define PEER_MISSING (-1000)

#ifdef __cplusplus
extern "C" {
#endif

// NPP (peers_npp.cu). All pointers are device pointers; images are dense
// (row pitch = width * element size). init returns 0 when NPP is usable.
int npp_peer_init(int M, int N);
const char* npp_peer_version(void);
int npp_blur_box(const float* in, float* out);              // FilterBoxBorder 3x3, replicate
int npp_blur_colrow(const float* in, float* tmp, float* out);  // FilterColumnBorder + FilterRowBorder, 3 taps of 1/3
int npp_harris(const uint8_t* in, float* out, float k);      // FilterHarrisCornersBorder 8u32f
int npp_canny(const uint8_t* in, uint8_t* out, int16_t low, int16_t high);  // FilterCannyBorder 8u
int npp_gauss5(const float* in, float* out);                 // FilterGaussBorder 5x5 f32 (canny's first stage alone)
int npp_gauss_canny(const uint8_t* in, uint8_t* out, int16_t low, int16_t high);  // FilterGaussBorder 5x5 8u, then FilterCannyBorder 8u
void npp_peer_fini(void);

// Halide 14 AOT pipelines (peers_halide.cpp). tile_y selects the schedule:
// 8 (32x8 tile, one output per thread) or 32 (32x32 tile, 4 rows per thread).
int halide_peer_init(void);
int halide_blur(int tile_y, const float* in, int M, int N, float* out);
int halide_harris(int tile_y, const float* in, float k, int M, int N, float* out);
int halide_canny(int tile_y, const float* in, float low, float high, int M, int N, float* out);

#ifdef __cplusplus
}
#endif
