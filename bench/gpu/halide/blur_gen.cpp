// Halide version of bench/gpu/blur.idsl (the fusion paper's Listing 1): a
// 3-tap vertical average then a 3-tap horizontal one, each divided by 3, no
// boundary mode (points whose reads leave the image are 0, as in formac).
// Halide's x is formac's second (contiguous) index j, y the first index i.
#include "common.h"

using namespace Halide;

class BenchBlur : public Generator<BenchBlur> {
 public:
  GeneratorParam<int> tile_y{"tile_y", 8};
  Input<Buffer<float>> input{"input", 2};
  Output<Buffer<float>> output{"output", 2};

  void generate() {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Expr W = input.width(), H = input.height();
    // Clamped reads keep every evaluated point in bounds; the selects below
    // zero exactly the points formac leaves uncomputed.
    Func in("in");
    in(x, y) = input(clamp(x, 0, W - 1), clamp(y, 0, H - 1));
    Func temp("temp");  // blurx: X@[-1,0] + X + X@[1,0] (down a column)
    temp(x, y) = select(y >= 1 && y <= H - 2, ((in(x, y - 1) + in(x, y)) + in(x, y + 1)) / 3.0f, 0.0f);
    // blury: Y@[0,-1] + Y + Y@[0,1] (along a row)
    output(x, y) = select(x >= 1 && x <= W - 2, ((temp(x - 1, y) + temp(x, y)) + temp(x + 1, y)) / 3.0f, 0.0f);

    bench::schedule_output(output, x, y, xo, yo, xi, yi, tile_y);
    bench::schedule_stage(temp, output, xo, x, y, tile_y);
  }
};

HALIDE_REGISTER_GENERATOR(BenchBlur, bench_blur)
