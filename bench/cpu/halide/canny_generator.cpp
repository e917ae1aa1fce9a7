// Halide version of bench/cpu/canny.idsl (Canny up to non-maximum suppression plus the
// double threshold), written with the same operation order:
//   smooth   5x5 Gaussian of Canny's paper (weights sum 159), summed row by row
//   gx, gy   3x3 Sobel of smooth (x = column, y = row)
//   mag      sqrt(gx^2 + gy^2)
//   thin     non-maximum suppression across the edge (directions 0/45/90/135 degrees)
//   output   255 where thin >= high, 128 where thin >= low, else 0 (uint8)
// Boundary: the input is read through BoundaryConditions::mirror_interior (REFLECT_101,
// Forma's `:mirror`); the intermediates are computed beyond the image where needed,
// whereas Forma mirrors every stage's own input. Both agree except in the outermost 4
// rows and columns.
//
// Manual schedule in the style of Halide's apps (harris, local_laplacian): strips of 32
// rows in parallel; smooth, gx/gy and mag computed per row with their storage folded
// over the strip (sliding window); thin and the threshold inlined into the output;
// everything vectorised.
#include "Halide.h"

namespace {

using namespace Halide;

class BenchCanny : public Generator<BenchCanny> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Input<float> low{"low"};
    Input<float> high{"high"};
    Output<Buffer<uint8_t, 2>> output{"output"};

    void generate() {
        Func in = BoundaryConditions::mirror_interior(input);
        static const int w[5][5] = {{2, 4, 5, 4, 2},
                                    {4, 9, 12, 9, 4},
                                    {5, 12, 15, 12, 5},
                                    {4, 9, 12, 9, 4},
                                    {2, 4, 5, 4, 2}};
        Expr sum;
        for (int di = -2; di <= 2; di++) {
            for (int dj = -2; dj <= 2; dj++) {
                Expr term = (float)w[di + 2][dj + 2] * in(x + dj, y + di);
                sum = sum.defined() ? sum + term : term;
            }
        }
        smooth(x, y) = sum / 159.0f;

        gx(x, y) = (smooth(x + 1, y - 1) - smooth(x - 1, y - 1)) +
                   2.0f * (smooth(x + 1, y) - smooth(x - 1, y)) +
                   (smooth(x + 1, y + 1) - smooth(x - 1, y + 1));
        gy(x, y) = (smooth(x - 1, y + 1) - smooth(x - 1, y - 1)) +
                   2.0f * (smooth(x, y + 1) - smooth(x, y - 1)) +
                   (smooth(x + 1, y + 1) - smooth(x + 1, y - 1));
        mag(x, y) = sqrt(gx(x, y) * gx(x, y) + gy(x, y) * gy(x, y));

        Expr ax = abs(gx(x, y)), ay = abs(gy(x, y));
        Expr horiz = ay <= 0.41421f * ax;
        Expr vert = ax <= 0.41421f * ay;
        Expr diag = gx(x, y) * gy(x, y) > 0.0f;
        Expr a = select(horiz, mag(x - 1, y), vert, mag(x, y - 1), diag, mag(x - 1, y - 1),
                        mag(x + 1, y - 1));
        Expr b = select(horiz, mag(x + 1, y), vert, mag(x, y + 1), diag, mag(x + 1, y + 1),
                        mag(x - 1, y + 1));
        Expr m = mag(x, y);
        thin(x, y) = select(m > a && m >= b, m, 0.0f);
        output(x, y) = select(thin(x, y) >= high, cast<uint8_t>(255),
                              thin(x, y) >= low, cast<uint8_t>(128), cast<uint8_t>(0));

        input.set_estimates({{0, 4096}, {0, 4096}});
        low.set_estimate(1.0f);
        high.set_estimate(2.0f);
        output.set_estimates({{0, 4096}, {0, 4096}});

        if (!auto_schedule) {
            const int vec = natural_vector_size<float>();
            output.split(y, y, yi, 32).parallel(y).vectorize(x, vec);
            smooth.store_at(output, y).compute_at(output, yi).vectorize(x, vec);
            gx.store_at(output, y).compute_at(output, yi).vectorize(x, vec);
            gy.store_at(output, y).compute_at(output, yi).vectorize(x, vec);
            gy.compute_with(gx, x);
            mag.store_at(output, y).compute_at(output, yi).vectorize(x, vec);
        }
    }

private:
    Var x{"x"}, y{"y"}, yi{"yi"};
    Func smooth{"smooth"}, gx{"gx"}, gy{"gy"}, mag{"mag"}, thin{"thin"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(BenchCanny, bench_canny)
