/* bench/cpu/bench_timing.h — what every CPU benchmark here repeats: a millisecond clock,
   the median and minimum of a run's timings, and the machine, date and load average
   printed beside a table. C (the zoo's generated drivers) and C++ (bench.cpp, reduce/,
   scan/, canny_full/, zoo/); header only. */
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_MAX_RUNS 1000

static inline double bench_now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* The median of v[0..n) (the mean of the middle two for even n); v is left sorted. */
static inline double bench_median(double* v, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            const double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    if (n <= 0) return 0;
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static inline double bench_min(const double* v, int n) {
    double m = n > 0 ? v[0] : 0;
    for (int i = 1; i < n; i++) m = v[i] < m ? v[i] : m;
    return m;
}

/* The `model name` of /proc/cpuinfo (what lscpu prints), or "unknown". */
static inline void bench_cpu_model(char* buf, size_t size) {
    FILE* f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(buf, size, "unknown");
    while (f && fgets(line, sizeof line, f)) {
        const char* colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            snprintf(buf, size, "%s", colon + 2);
            buf[strcspn(buf, "\n")] = 0;
            break;
        }
    }
    if (f) fclose(f);
}

static inline void bench_now_utc(char* buf, size_t size) {
    const time_t t = time(NULL);
    strftime(buf, size, "%Y-%m-%d %H:%M UTC", gmtime(&t));
}

static inline void bench_load_average(char* buf, size_t size) {
    double la[3] = {0, 0, 0};
    if (getloadavg(la, 3) == 3)
        snprintf(buf, size, "%.2f %.2f %.2f", la[0], la[1], la[2]);
    else
        snprintf(buf, size, "?");
}

#ifdef __cplusplus
#include <string>
#include <vector>

inline double median(std::vector<double> v) { return bench_median(v.data(), (int)v.size()); }
// How long one call of f takes, in ms.
template <typename F>
double bench_time_ms(F&& f) {
    const double t0 = bench_now_ms();
    f();
    return bench_now_ms() - t0;
}
inline std::string cpu_model() {
    char buf[256];
    bench_cpu_model(buf, sizeof buf);
    return buf;
}
inline std::string now_utc() {
    char buf[64];
    bench_now_utc(buf, sizeof buf);
    return buf;
}
inline std::string load_average() {
    char buf[64];
    bench_load_average(buf, sizeof buf);
    return buf;
}
#endif
