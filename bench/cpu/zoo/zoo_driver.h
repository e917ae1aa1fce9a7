/* bench/cpu/zoo/zoo_driver.h — what every generated driver (gen_driver.py) shares:
   allocation, random inputs, the OpenMP thread count and the timing loop. */
#pragma once

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench_timing.h"

static inline int zoo_usage(const char* argv0, const char* params) {
    fprintf(stderr, "usage: %s THREADS RUNS WARMUP %s\n", argv0, params);
    return 2;
}

static inline int zoo_fail(const char* what) {
    fprintf(stderr, "%s\n", what);
    return 3;
}

static inline void zoo_set_threads(int threads) { omp_set_num_threads(threads); }

/* Allocates n bytes (page-touched by the fill or the first run) and counts them. */
static inline void* zoo_alloc(size_t n, size_t* bytes) {
    void* p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        exit(3);
    }
    memset(p, 0, n);
    *bytes += n;
    return p;
}

/* Fills n elements of p with EXPR of a xorshift64 r (seeded per input). */
#define ZOO_FILL(p, n, EXPR, seed)                                    \
    do {                                                              \
        unsigned long long r = 0x9E3779B97F4A7C15ull ^ (seed + 1ull); \
        for (size_t k_ = 0; k_ < (n); k_++) {                         \
            r ^= r << 13;                                             \
            r ^= r >> 7;                                              \
            r ^= r << 17;                                             \
            (p)[k_] = EXPR;                                           \
        }                                                             \
    } while (0)

/* Runs CALL warmup times, then runs times timed; prints "median_ms min_ms bytes". */
#define ZOO_TIME(CALL, runs, warmup, bytes)                                      \
    do {                                                                         \
        double ms_[BENCH_MAX_RUNS];                                              \
        const int n_ = (runs) < BENCH_MAX_RUNS ? (runs) : BENCH_MAX_RUNS;        \
        for (int w_ = 0; w_ < (warmup); w_++)                                    \
            if (CALL) exit(zoo_fail("run failed"));                              \
        for (int k_ = 0; k_ < n_; k_++) {                                        \
            const double t0_ = bench_now_ms();                                   \
            if (CALL) exit(zoo_fail("run failed"));                              \
            ms_[k_] = bench_now_ms() - t0_;                                      \
        }                                                                        \
        printf("%.4f %.4f %zu\n", bench_median(ms_, n_), bench_min(ms_, n_), (bytes)); \
    } while (0)
