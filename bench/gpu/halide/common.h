// Shared helpers for the Halide generators of bench/gpu (Halide 14).
#pragma once
#include "Halide.h"

namespace bench {
using namespace Halide;

// Reflect-101 (formac's `:mirror`, OpenCV's BORDER_REFLECT_101) for reads at
// most n-1 outside [0, n): -1 -> 1, n -> n-2. The final clamp changes no value
// in that range; it only tells Halide's bounds inference that the input is
// read inside [0, n).
inline Expr mirror1(Expr c, Expr n) {
  return clamp(select(c < 0, -c, select(c > n - 1, 2 * (n - 1) - c, c)), 0, n - 1);
}

// The output is tiled 32 x tile_y; each GPU block computes one tile with
// 32 x 8 threads (tile_y / 8 rows per thread). Every intermediate is computed
// per block into shared memory (compute_at the block's x), its region spread
// over the block's threads -- the schedule of Halide's own GPU apps.
//
// tile_y == 0 is the host check's schedule (host_check.cpp): no GPU, every
// intermediate computed over its whole region first.
inline void schedule_output(Func out, Var x, Var y, Var xo, Var yo, Var xi, Var yi, int tile_y) {
  if (tile_y == 0) return;
  if (tile_y == 8) {
    out.gpu_tile(x, y, xo, yo, xi, yi, 32, 8);
  } else {
    Var yu("yu");
    out.tile(x, y, xo, yo, xi, yi, 32, tile_y)
        .split(yi, yi, yu, tile_y / 8)
        .reorder(yu, xi, yi, xo, yo)
        .unroll(yu)
        .gpu_blocks(xo, yo)
        .gpu_threads(xi, yi);
  }
}

// An intermediate computed per block. Its region (the tile plus a halo) is
// covered by the block's threads; a region taller than the thread block is
// walked in rows of rows_per_thread (RoundUp: a few extra rows, which is safe
// because every intermediate here is defined everywhere).
inline void schedule_stage(Func f, Func out, Var xo, Var x, Var y, int tile_y) {
  if (tile_y == 0) {
    f.compute_root();
  } else if (tile_y == 8) {
    f.compute_at(out, xo).gpu_threads(x, y);
  } else {
    Var yu("yu");
    f.compute_at(out, xo)
        .split(y, y, yu, tile_y / 8, TailStrategy::RoundUp)
        .reorder(yu, x, y)
        .unroll(yu)
        .gpu_threads(x, y);
  }
}
}  // namespace bench
