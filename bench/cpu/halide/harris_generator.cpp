// Halide version of bench/cpu/harris.idsl, written with the same operation order:
//   Ix, Iy    3x3 Sobel of the input (x = column, y = row)
//   Sxx ...   (1 2 1)x(1 2 1)/16 window sums of Ix*Ix, Iy*Iy, Ix*Iy
//   output    det - k * trace * trace
// Boundary: the input is read through BoundaryConditions::mirror_interior (OpenCV's
// REFLECT_101, Forma's `:mirror`); the intermediates are then computed beyond the image
// where the window needs them, whereas Forma mirrors every stage's own input. Both agree
// everywhere except the outermost 2 rows and columns.
//
// The manual schedule follows Halide's apps/harris CPU schedule: strips of 32 rows in
// parallel, Ix and Iy computed per row of the strip with storage folded over the strip
// (sliding window), the products and window sums inlined, everything vectorised.
#include "Halide.h"

namespace {

using namespace Halide;

class BenchHarris : public Generator<BenchHarris> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Input<float> k{"k"};
    Output<Buffer<float, 2>> output{"output"};

    void generate() {
        Func in = BoundaryConditions::mirror_interior(input);
        Ix(x, y) = (in(x + 1, y - 1) - in(x - 1, y - 1)) + 2.0f * (in(x + 1, y) - in(x - 1, y)) +
                   (in(x + 1, y + 1) - in(x - 1, y + 1));
        Iy(x, y) = (in(x - 1, y + 1) - in(x - 1, y - 1)) + 2.0f * (in(x, y + 1) - in(x, y - 1)) +
                   (in(x + 1, y + 1) - in(x + 1, y - 1));
        Ixx(x, y) = Ix(x, y) * Ix(x, y);
        Iyy(x, y) = Iy(x, y) * Iy(x, y);
        Ixy(x, y) = Ix(x, y) * Iy(x, y);
        gauss3(Sxx, Ixx);
        gauss3(Syy, Iyy);
        gauss3(Sxy, Ixy);
        Expr det = Sxx(x, y) * Syy(x, y) - Sxy(x, y) * Sxy(x, y);
        Expr trace = Sxx(x, y) + Syy(x, y);
        output(x, y) = det - k * trace * trace;

        input.set_estimates({{0, 4096}, {0, 4096}});
        k.set_estimate(0.04f);
        output.set_estimates({{0, 4096}, {0, 4096}});

        if (!auto_schedule) {
            const int vec = natural_vector_size<float>();
            output.split(y, y, yi, 32).parallel(y).vectorize(x, vec);
            Ix.store_at(output, y).compute_at(output, yi).vectorize(x, vec);
            Iy.store_at(output, y).compute_at(output, yi).vectorize(x, vec);
            Ix.compute_with(Iy, x);
        }
    }

private:
    void gauss3(Func &S, Func X) {
        S(x, y) = (X(x - 1, y - 1) + 2.0f * X(x, y - 1) + X(x + 1, y - 1) + 2.0f * X(x - 1, y) +
                   4.0f * X(x, y) + 2.0f * X(x + 1, y) + X(x - 1, y + 1) + 2.0f * X(x, y + 1) +
                   X(x + 1, y + 1)) /
                  16.0f;
    }

    Var x{"x"}, y{"y"}, yi{"yi"};
    Func Ix{"Ix"}, Iy{"Iy"}, Ixx{"Ixx"}, Iyy{"Iyy"}, Ixy{"Ixy"};
    Func Sxx{"Sxx"}, Syy{"Syy"}, Sxy{"Sxy"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(BenchHarris, bench_harris)
