// bench/cpu/zoo/waitpolicy.cpp — what formac's OpenMP threads cost a threaded library
// called right after them (issue 26): harris at S x S, formac fused (OpenMP, libgomp)
// and Halide's hand schedule (its own thread pool), THREADS threads each.
//
//   zoo_waitpolicy THREADS RUNS S
//
// prints the medians (ms) of: formac alone (back to back), Halide alone (back to back),
// then formac and Halide alternated (each timed on its own). Run it under each
// OMP_WAIT_POLICY / GOMP_SPINCOUNT (waitpolicy.sh): libgomp reads them at start-up.
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../bench_timing.h"
#include "HalideBuffer.h"
#include "HalideRuntime.h"
#include "harris_fused.h"
#include "peer.h"
#include "zoo_harris_halide.h"

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s THREADS RUNS S\n", argv[0]);
        return 2;
    }
    const int threads = std::atoi(argv[1]), runs = std::atoi(argv[2]), S = std::atoi(argv[3]);
    omp_set_num_threads(threads);
    halide_set_num_threads(threads);
    Halide::Runtime::Buffer<float> in(S, S), out_f(S, S), out_h(S, S);
    peer_fill(in.data(), in.number_of_elements());
    harris_fused_workspace* ws = harris_fused_create(S, S);
    if (!ws) return 3;
    auto formac = [&] { harris_fused_run(ws, in.data(), 0.04f, out_f.data()); };
    auto halide = [&] { harris_halide(in, 0.04f, out_h); };
    formac();
    halide();
    std::vector<double> fa, ha, fm, hm;
    for (int r = 0; r < runs; r++) fa.push_back(bench_time_ms(formac));
    for (int r = 0; r < runs; r++) ha.push_back(bench_time_ms(halide));
    for (int r = 0; r < runs; r++) {
        fm.push_back(bench_time_ms(formac));
        hm.push_back(bench_time_ms(halide));
    }
    std::printf("%.3f %.3f %.3f %.3f\n", median(fa), median(ha), median(fm), median(hm));
    harris_fused_destroy(ws);
    return 0;
}
