// bench/cpu/zoo/peer.h — the command line every peer executable shares (halide_peer.cpp,
// opencv_peer.cpp), the same as the formac drivers' (zoo_driver.h):
//
//   PEER --list                              the zoo programs it has
//   PEER NAME THREADS RUNS WARMUP PARAM...   prints "median_ms min_ms bytes"
//
// A peer sets up a program's inputs (random, as the drivers fill them) and returns the
// call to time and the roofline's bytes (inputs read once, outputs written once).
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "../bench_timing.h"

struct PeerRun {
    std::function<void()> run;
    size_t bytes = 0;
};
// params: the program's parameter values (zoo.txt's order); threads already set.
using PeerSetup = std::function<PeerRun(const std::vector<long long>& params)>;

// Uniform in [0.001, 1), the drivers' fill for float inputs (input 0's seed).
inline void peer_fill(float* p, size_t n) {
    unsigned long long r = 0x9E3779B97F4A7C15ull ^ 1ull;
    for (size_t k = 0; k < n; k++) {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        p[k] = 0.001f + 0.999f * (float)((r >> 40) & 0xFFFFFF) / (float)0x1000000;
    }
}
inline void peer_fill(unsigned char* p, size_t n) {
    unsigned long long r = 0x9E3779B97F4A7C15ull ^ 1ull;
    for (size_t k = 0; k < n; k++) {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        p[k] = (unsigned char)(r >> 56);
    }
}

inline int peer_main(int argc, char** argv, const std::map<std::string, PeerSetup>& programs,
                     void (*set_threads)(int)) {
    if (argc == 2 && std::string(argv[1]) == "--list") {
        for (const auto& p : programs) std::printf("%s\n", p.first.c_str());
        return 0;
    }
    if (argc < 5 || !programs.count(argv[1])) {
        std::fprintf(stderr, "usage: %s --list | NAME THREADS RUNS WARMUP PARAM...\n", argv[0]);
        return 2;
    }
    set_threads(std::atoi(argv[2]));
    const int runs = std::max(1, std::min(std::atoi(argv[3]), BENCH_MAX_RUNS));
    const int warmup = std::atoi(argv[4]);
    std::vector<long long> params;
    for (int i = 5; i < argc; i++) params.push_back(std::atoll(argv[i]));
    PeerRun p = programs.at(argv[1])(params);
    for (int w = 0; w < warmup; w++) p.run();
    std::vector<double> ms(runs);
    for (int r = 0; r < runs; r++) {
        const double t0 = bench_now_ms();
        p.run();
        ms[r] = bench_now_ms() - t0;
    }
    std::printf("%.4f %.4f %zu\n", bench_median(ms.data(), runs), bench_min(ms.data(), runs),
                p.bytes);
    return 0;
}
