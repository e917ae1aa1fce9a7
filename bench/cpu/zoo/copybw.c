/* bench/cpu/zoo/copybw.c — the roofline's bandwidth: memcpy of one large buffer into
   another, split over THREADS OpenMP threads, median of RUNS copies.

     zoo_copybw THREADS MiB RUNS

   prints "GB/s" counting every byte read and every byte written (2 x the buffer), the
   traffic a pipeline's roofline counts too (inputs read once, outputs written once). */
#include <omp.h>

#include "../bench_timing.h"

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s THREADS MiB RUNS\n", argv[0]);
        return 2;
    }
    const int threads = atoi(argv[1]);
    const size_t size = (size_t)atoll(argv[2]) << 20;
    int runs = atoi(argv[3]);
    runs = runs < 1 ? 1 : runs > BENCH_MAX_RUNS ? BENCH_MAX_RUNS : runs;
    char* a = (char*)malloc(size);
    char* b = (char*)malloc(size);
    if (!a || !b) return 3;
    memset(a, 1, size);
    memset(b, 2, size);
    omp_set_num_threads(threads);
    double ms[BENCH_MAX_RUNS];
    for (int r = -1; r < runs; r++) { /* r = -1: untimed warm-up */
        const double t0 = bench_now_ms();
#pragma omp parallel
        {
            const size_t n = (size_t)omp_get_num_threads(), i = (size_t)omp_get_thread_num();
            const size_t chunk = (size / n + 4095) & ~(size_t)4095;
            const size_t lo = i * chunk < size ? i * chunk : size;
            const size_t hi = lo + chunk < size ? lo + chunk : size;
            memcpy(b + lo, a + lo, hi - lo);
        }
        if (r >= 0) ms[r] = bench_now_ms() - t0;
    }
    printf("%.3f\n", 2.0 * (double)size / (bench_median(ms, runs) * 1e6));
    free(a);
    free(b);
    return 0;
}
