// Halide version of bench/zoo/maxfilter.idsl: the maximum over a 7x7 square, a vertical
// then a horizontal running maximum, edges replicated (Forma's :clamped on the input and
// on the intermediate: a column maximum beyond the edge is the edge column's).
// x is the column (contiguous), y the row. The schedule is in the style of Halide's
// apps/max_filter: strips of rows in parallel, the vertical maxima computed per row of
// the strip and kept for the strip (sliding window), both vectorised.
#include "Halide.h"

namespace {

using namespace Halide;

class BenchMaxfilter : public Generator<BenchMaxfilter> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        Expr w = input.width();
        Expr v = clamped(x, y - 3);
        for (int d = -2; d <= 3; d++) v = max(v, clamped(x, y + d));
        vmax(x, y) = v;
        Func vclamped("vclamped");
        vclamped(x, y) = vmax(clamp(x, 0, w - 1), y);
        Expr m = vclamped(x - 3, y);
        for (int d = -2; d <= 3; d++) m = max(m, vclamped(x + d, y));
        output(x, y) = m;

        input.set_estimates({{0, 4096}, {0, 4096}});
        output.set_estimates({{0, 4096}, {0, 4096}});

        const int vec = natural_vector_size<float>();
        output.split(y, y, yi, 32).parallel(y).vectorize(x, vec);
        vmax.store_at(output, y).compute_at(output, yi).vectorize(x, vec);
    }

private:
    Var x{"x"}, y{"y"}, yi{"yi"};
    Func vmax{"vmax"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(BenchMaxfilter, bench_maxfilter)
