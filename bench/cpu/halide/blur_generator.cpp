// Halide version of bench/cpu/blur.idsl (Listing 1 of the fusion paper, float):
//   blur_x(x, y) = (in(x, y-1) + in(x, y) + in(x, y+1)) / 3     (Forma's blurx: rows i-1..i+1)
//   output(x, y) = (blur_x(x-1, y) + blur_x(x, y) + blur_x(x+1, y)) / 3
// x is the column (contiguous), y the row. No boundary condition: the caller passes an
// output buffer cropped to the interior [1, N-2] x [1, M-2], which is where Forma's
// program computes its result (its border is 0), as Halide's apps/blur does.
//
// The manual schedule is apps/blur's CPU schedule (tile + compute_at + vectorize +
// parallel); with auto_schedule=true (add_halide_library AUTOSCHEDULER) it is skipped
// and the autoscheduler plugin schedules the pipeline from the estimates.
#include "Halide.h"

namespace {

using namespace Halide;

class BenchBlur : public Generator<BenchBlur> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};

    void generate() {
        blur_x(x, y) = (input(x, y - 1) + input(x, y) + input(x, y + 1)) / 3.0f;
        output(x, y) = (blur_x(x - 1, y) + blur_x(x, y) + blur_x(x + 1, y)) / 3.0f;

        input.set_estimates({{0, 4096}, {0, 4096}});
        output.set_estimates({{1, 4094}, {1, 4094}});

        if (!auto_schedule) {
            const int vec = natural_vector_size<float>();
            output.tile(x, y, xi, yi, 256, 32)
                .vectorize(xi, vec)
                .parallel(y);
            blur_x.compute_at(output, x).vectorize(x, vec);
        }
    }

private:
    Var x{"x"}, y{"y"}, xi{"xi"}, yi{"yi"};
    Func blur_x{"blur_x"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(BenchBlur, bench_blur)
