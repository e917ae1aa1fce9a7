// Halide version of bench/gpu/harris.idsl: Sobel gradients of the mirrored
// image, structure-tensor products, a (1 2 1)x(1 2 1)/16 window over the
// mirrored products, response det - k*trace^2.
//
// Boundaries: only the input is mirrored; the gradients are computed on an
// extended domain (one pixel beyond the image) so that Halide can stage them
// per block with tight bounds. Reflect-101 makes Ix odd and Iy even across a
// vertical edge (and the other way across a horizontal one), so Ixx and Iyy
// on the extended domain equal formac's mirrored products exactly, and Ixy
// equals them up to its sign, which is fixed below.
#include "common.h"

using namespace Halide;

class BenchHarris : public Generator<BenchHarris> {
 public:
  GeneratorParam<int> tile_y{"tile_y", 8};
  Input<Buffer<float>> img{"img", 2};
  Input<float> k{"k"};
  Output<Buffer<float>> output{"output", 2};

  void generate() {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Expr W = img.width(), H = img.height();
    Func I("I");
    I(x, y) = img(bench::mirror1(x, W), bench::mirror1(y, H));
    // formac's I@[di,dj] is I(x + dj, y + di).
    Func ix("ix"), iy("iy");
    ix(x, y) = ((I(x + 1, y - 1) - I(x - 1, y - 1)) + 2.0f * (I(x + 1, y) - I(x - 1, y))) + (I(x + 1, y + 1) - I(x - 1, y + 1));
    iy(x, y) = ((I(x - 1, y + 1) - I(x - 1, y - 1)) + 2.0f * (I(x, y + 1) - I(x, y - 1))) + (I(x + 1, y + 1) - I(x + 1, y - 1));
    Func ixx("ixx"), iyy("iyy"), ixy("ixy");
    ixx(x, y) = ix(x, y) * ix(x, y);
    iyy(x, y) = iy(x, y) * iy(x, y);
    Expr xout = x < 0 || x > W - 1, yout = y < 0 || y > H - 1;
    ixy(x, y) = select(xout != yout, -1.0f, 1.0f) * (ix(x, y) * iy(x, y));
    auto gauss3 = [&](Func X) {
      return ((((((((X(x - 1, y - 1) + 2.0f * X(x, y - 1)) + X(x + 1, y - 1)) + 2.0f * X(x - 1, y)) + 4.0f * X(x, y)) +
                2.0f * X(x + 1, y)) + X(x - 1, y + 1)) + 2.0f * X(x, y + 1)) + X(x + 1, y + 1)) / 16.0f;
    };
    Func sxx("sxx"), syy("syy"), sxy("sxy");
    sxx(x, y) = gauss3(ixx);
    syy(x, y) = gauss3(iyy);
    sxy(x, y) = gauss3(ixy);
    Expr det = sxx(x, y) * syy(x, y) - sxy(x, y) * sxy(x, y);
    Expr trace = sxx(x, y) + syy(x, y);
    output(x, y) = det - k * trace * trace;

    // Gradients staged per block in shared memory; the products and window
    // sums are computed from them inline, per output pixel.
    bench::schedule_output(output, x, y, xo, yo, xi, yi, tile_y);
    bench::schedule_stage(ix, output, xo, x, y, tile_y);
    bench::schedule_stage(iy, output, xo, x, y, tile_y);
  }
};

HALIDE_REGISTER_GENERATOR(BenchHarris, bench_harris)
