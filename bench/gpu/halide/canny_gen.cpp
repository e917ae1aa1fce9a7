// Halide version of bench/gpu/canny.idsl: 5x5 Gaussian (sum 159) of the
// mirrored image, Sobel gradients of the mirrored smoothed image, magnitude,
// non-maximum suppression across the edge (reading the mirrored magnitude),
// double threshold to 255 / 128 / 0 as float.
//
// Boundaries: only the input is mirrored; the smoothed image, the gradients
// and the magnitude are computed on an extended domain. Reflect-101 makes the
// smoothed image and |gx|, |gy| symmetric about each edge, so these equal
// formac's mirrored reads (up to the rounding of a reversed summation order).
#include "common.h"

using namespace Halide;

class BenchCanny : public Generator<BenchCanny> {
 public:
  GeneratorParam<int> tile_y{"tile_y", 8};
  Input<Buffer<float>> img{"img", 2};
  Input<float> low{"low"};
  Input<float> high{"high"};
  Output<Buffer<float>> output{"output", 2};

  void generate() {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Expr W = img.width(), H = img.height();
    Func I("I");
    I(x, y) = img(bench::mirror1(x, W), bench::mirror1(y, H));
    static const int w5[5][5] = {{2, 4, 5, 4, 2}, {4, 9, 12, 9, 4}, {5, 12, 15, 12, 5}, {4, 9, 12, 9, 4}, {2, 4, 5, 4, 2}};
    Expr sum;
    for (int di = -2; di <= 2; di++)
      for (int dj = -2; dj <= 2; dj++) {
        Expr t = float(w5[di + 2][dj + 2]) * I(x + dj, y + di);
        sum = sum.defined() ? sum + t : t;
      }
    Func smooth("smooth");
    smooth(x, y) = sum / 159.0f;
    Func gx("gx"), gy("gy"), mag("mag");
    Func S = smooth;
    gx(x, y) = ((S(x + 1, y - 1) - S(x - 1, y - 1)) + 2.0f * (S(x + 1, y) - S(x - 1, y))) + (S(x + 1, y + 1) - S(x - 1, y + 1));
    gy(x, y) = ((S(x - 1, y + 1) - S(x - 1, y - 1)) + 2.0f * (S(x, y + 1) - S(x, y - 1))) + (S(x + 1, y + 1) - S(x + 1, y - 1));
    mag(x, y) = sqrt(gx(x, y) * gx(x, y) + gy(x, y) * gy(x, y));
    // thin
    Expr ax = abs(gx(x, y)), ay = abs(gy(x, y));
    Expr horiz = ay <= 0.41421f * ax, vert = ax <= 0.41421f * ay, diag = gx(x, y) * gy(x, y) > 0.0f;
    Expr a = select(horiz, mag(x - 1, y), vert, mag(x, y - 1), diag, mag(x - 1, y - 1), mag(x + 1, y - 1));
    Expr b = select(horiz, mag(x + 1, y), vert, mag(x, y + 1), diag, mag(x + 1, y + 1), mag(x - 1, y + 1));
    Expr m = mag(x, y);
    Expr e = select(m > a && m >= b, m, 0.0f);
    // classify
    output(x, y) = select(e >= high, 255.0f, e >= low, 128.0f, 0.0f);

    // smooth, gx, gy and mag staged per block in shared memory; thin and
    // classify computed per output pixel.
    bench::schedule_output(output, x, y, xo, yo, xi, yi, tile_y);
    bench::schedule_stage(smooth, output, xo, x, y, tile_y);
    bench::schedule_stage(gx, output, xo, x, y, tile_y);
    bench::schedule_stage(gy, output, xo, x, y, tile_y);
    bench::schedule_stage(mag, output, xo, x, y, tile_y);
  }
};

HALIDE_REGISTER_GENERATOR(BenchCanny, bench_canny)
