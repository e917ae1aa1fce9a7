// formac_bench_scan — formac's scans and summed-area tables (LANGUAGE.md §7), and box
// filters computed from a summed-area table, against OpenCV 4.6 on the CPU (README.md here).
//
//   formac_bench_scan [--size 4096] [--threads 2,1] [--rounds 15] [--only WORD]
//
// Every variant runs once untimed and its result is compared with OpenCV's (or, for the
// scans, which OpenCV lacks, with a sequential sum); then --rounds rounds in which each
// variant runs once, interleaved: round r starts at variant r mod V, so that a burst of
// load from the machine's other users falls on every variant alike. The median of each
// variant's rounds is reported with its ratio to the baseline of the same operation
// (the OpenCV call; for the scans a copy of the same bytes) measured in the same rounds.
#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "../bench_timing.h"

extern "C" {
#include "bench_programs.h"  // every program's header, and BENCH_BOX_LIST(X): X(R, f|d) per box
}

namespace {

struct Variant {
    std::string op;     // what is computed: "sat", "box r=15", ...
    std::string input;  // "u8 -> int32", ...
    std::string name;   // "formac sat(img, int)", "opencv cv::integral", ...
    bool baseline;      // the call the ratio divides by
    std::function<void()> run;
    std::vector<double> ms;
};

std::vector<int> parse_list(const char* s) {
    std::vector<int> out;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ',')) out.push_back(std::atoi(item.c_str()));
    return out;
}

// xorshift: the same pixels on every run.
void fill(std::vector<unsigned char>& v, unsigned seed) {
    unsigned s = seed;
    for (auto& x : v) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        x = (unsigned char)(s >> 11);
    }
}
// Floats in [0, 1) in steps of 2^-24: every sum of up to 2^29 of them is exact in double,
// so sums in any order agree and the checks below can be exact where the result is double.
void fill(std::vector<float>& v, unsigned seed) {
    unsigned s = seed;
    for (auto& x : v) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        x = (float)((s >> 8) & 0xFFFFFF) / (float)0x1000000;
    }
}

int failures = 0;
void check(bool ok, const std::string& what, const std::string& detail) {
    std::printf("  check %-52s %s  %s\n", what.c_str(), ok ? "ok  " : "FAIL", detail.c_str());
    if (!ok) ++failures;
}

// Distance in units in the last place between two finite floats of one sign.
long long ulps(float a, float b) {
    int32_t ia, ib;
    std::memcpy(&ia, &a, 4), std::memcpy(&ib, &b, 4);
    return std::llabs((long long)ia - (long long)ib);
}

// formac's M x N result against OpenCV's integral ((M+1) x (N+1), zero first row and
// column): element (i, j) against (i+1, j+1). Returns the largest relative difference.
template <typename F, typename C>
double against_integral(const F* f, const cv::Mat& c, int M, int N) {
    double worst = 0;
    for (int i = 0; i < M; ++i) {
        const C* row = c.ptr<C>(i + 1) + 1;
        for (int j = 0; j < N; ++j) {
            const double a = (double)f[(size_t)i * N + j], b = (double)row[j];
            if (a != b) worst = std::max(worst, std::fabs(a - b) / std::max(std::fabs(b), 1e-300));
        }
    }
    return worst;
}

// Copies of the same bytes as a scan reads and writes: its memory floor, on `t` threads.
void copy_floor(const float* src, float* dst, size_t n) {
    const int t = omp_get_max_threads();
#pragma omp parallel for schedule(static)
    for (int k = 0; k < t; ++k) {
        const size_t a = n * k / t, b = n * (k + 1) / t;
        std::memcpy(dst + a, src + a, (b - a) * sizeof(float));
    }
}
void widen_floor(const float* src, double* dst, size_t n) {
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < (long long)n; ++i) dst[i] = src[i];
}

// The parameter types of a generated NAME_run(ws, in, out).
template <typename F>
struct Args;
template <typename R, typename... A>
struct Args<R (*)(A...)> {
    using type = std::tuple<A...>;
};

}  // namespace

int main(int argc, char** argv) {
    int size = 4096, rounds = 15;
    std::vector<int> threads = {2, 1};
    std::string only;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--size" && i + 1 < argc) size = std::atoi(argv[++i]);
        else if (a == "--threads" && i + 1 < argc) threads = parse_list(argv[++i]);
        else if (a == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
        else if (a == "--only" && i + 1 < argc) only = argv[++i];
        else {
            std::fprintf(stderr,
                         "usage: formac_bench_scan [--size N] [--threads 2,1] [--rounds R] [--only WORD]\n"
                         "  --only WORD: time only the operations whose name contains WORD (sat, box, scan, r=15)\n");
            return 1;
        }
    }
    const int M = size, N = size;
    const size_t n = (size_t)M * N, n1 = (size_t)(M + 1) * (N + 1);
    std::vector<unsigned char> u8(n);
    std::vector<float> f32(n);
    fill(u8, 1), fill(f32, 2);
    cv::Mat mu8(M, N, CV_8U, u8.data()), mf32(M, N, CV_32F, f32.data());

    // Outputs: one per element type and side, shared by the variants of that type.
    std::vector<int> fi(n), fi1(n1);
    std::vector<double> fd(n), fd2(n);
    std::vector<float> ff(n), ff2(n), ffi(n);
    cv::Mat ci, cd, cbf, cbd;

    // The scans' references: sequential sums in double (exact for these inputs).
    std::vector<double> rrow(n), rcol(n);
    for (int i = 0; i < M; ++i) {
        double s = 0;
        for (int j = 0; j < N; ++j) rrow[(size_t)i * N + j] = s += f32[(size_t)i * N + j];
    }
    for (int j = 0; j < N; ++j) {
        double s = 0;
        for (int i = 0; i < M; ++i) rcol[(size_t)i * N + j] = s += f32[(size_t)i * N + j];
    }

    const std::string machine = cpu_model(), date = now_utc();
    const std::string ipp = cv::ipp::useIPP() ? "IPP in use" : "no IPP";
    std::printf("machine: %s, %d CPUs; date: %s; load average before: %s\n", machine.c_str(),
                omp_get_num_procs(), date.c_str(), load_average().c_str());
    std::printf("formac C compiled with: %s; OpenCV %s (%s)\n", BENCH_FORMAC_C_FLAGS, CV_VERSION, ipp.c_str());
    std::printf("%d² images; median of %d interleaved rounds after one untimed run\n\n", size, rounds);

    struct Row {
        std::string op, input, name;
        int threads;
        double median_ms, min_ms, ratio;
    };
    std::vector<Row> rows;
    const auto t_start = std::chrono::steady_clock::now();
    for (int t : threads) {
        // Threads first, then the workspaces: formac's code runs the thread count it
        // was created with.
        omp_set_num_threads(t);
        cv::setNumThreads(t);
        std::vector<Variant> v;
        std::vector<std::function<void()>> destroy;
        auto add = [&](const std::string& op, const std::string& input, const std::string& name, bool base,
                       std::function<void()> f) { v.push_back({op, input, name, base, std::move(f), {}}); };
        auto fail_create = [] {
            std::fprintf(stderr, "a formac workspace could not be created\n");
            std::exit(1);
        };
        // A formac program's variant: its workspace (created now, destroyed at the end of
        // this thread count) and its run on `in`, `out`.
        auto program = [&](const std::string& op, const std::string& input, const std::string& name, auto create,
                           auto run, auto destroy_fn, const void* in, void* out) {
            auto* w = create(M, N);
            if (!w) fail_create();
            destroy.push_back([w, destroy_fn] { destroy_fn(w); });
            using In = typename std::tuple_element<1, typename Args<decltype(run)>::type>::type;
            using Out = typename std::tuple_element<2, typename Args<decltype(run)>::type>::type;
            add(op, input, name, false, [w, run, in, out] { run(w, (In)in, (Out)out); });
        };
        // P, and with FORMAC_BEFORE the same program generated by the earlier formac.
#if BENCH_BEFORE
#define PROGRAM(P, op, input, name, in, out)                                                       \
    program(op, input, name, P##_create, P##_run, P##_destroy, in, out);                           \
    program(op, input, std::string(name) + " (before)", P##_before_create, P##_before_run, \
            P##_before_destroy, in, out);
#else
#define PROGRAM(P, op, input, name, in, out) program(op, input, name, P##_create, P##_run, P##_destroy, in, out);
#endif
        PROGRAM(sat8i, "sat", "u8 -> int32", "formac sat(img, int)", u8.data(), fi.data())
        PROGRAM(sat8i_pad, "sat", "u8 -> int32", "formac sat of img at (1,1) of (M+1)x(N+1) ‡", u8.data(), fi1.data())
        add("sat", "u8 -> int32", "opencv cv::integral CV_32S", true, [&] { cv::integral(mu8, ci, CV_32S); });
        PROGRAM(sat8d, "sat", "u8 -> f64", "formac sat(img, double)", u8.data(), fd.data())
        add("sat", "u8 -> f64", "opencv cv::integral CV_64F", true, [&] { cv::integral(mu8, cd, CV_64F); });
        PROGRAM(satfd, "sat", "f32 -> f64", "formac sat(img)", f32.data(), fd2.data())
        add("sat", "f32 -> f64", "opencv cv::integral CV_64F", true, [&] { cv::integral(mf32, cd, CV_64F); });

        // The box without padding (boxint.idsl.in), float, then the padded ones (box.idsl.in).
#define BOXINT(R) PROGRAM(boxint##R, "box r=" #R, "f32 -> f32", "formac sat + 4 reads, interior only §", f32.data(), ffi.data())
        BENCH_BOXINT_LIST(BOXINT)
#undef BOXINT
#define BOX(R, T) PROGRAM(box##R##_##T, "box r=" #R, box_input(#T), "formac sat + 4 reads", f32.data(), box_out(#T))
        auto box_input = [](const char* T) { return std::string(T[0] == 'f' ? "f32 -> f32" : "f32 -> f64"); };
        auto box_out = [&](const char* T) -> void* { return T[0] == 'f' ? (void*)ff.data() : (void*)fd.data(); };
        BENCH_BOX_LIST(BOX)
#undef BOX
        auto box_baseline = [&](int R, const std::string& input) {
            const cv::Size k(2 * R + 1, 2 * R + 1);
            const bool f = input == "f32 -> f32";
            add("box r=" + std::to_string(R), input, f ? "opencv cv::boxFilter CV_32F" : "opencv cv::boxFilter CV_64F",
                true, [&, k, f] {
                    cv::boxFilter(mf32, f ? cbf : cbd, f ? CV_32F : CV_64F, k, cv::Point(-1, -1), true,
                                  cv::BORDER_CONSTANT);
                });
        };
#define BOXBASE(R, T) box_baseline(R, box_input(#T));
        BENCH_BOX_LIST(BOXBASE)
#undef BOXBASE

        PROGRAM(scanrowf, "row scan", "f32 -> f64", "formac scan(img, 1)", f32.data(), fd.data())
        add("row scan", "f32 -> f64", "copy f32 -> f64 (memory floor)", true, [&] { widen_floor(f32.data(), fd2.data(), n); });
        PROGRAM(scanrowff, "row scan", "f32 -> f32", "formac scan(img, 1, float)", f32.data(), ff.data())
        add("row scan", "f32 -> f32", "memcpy f32 (memory floor)", true, [&] { copy_floor(f32.data(), ff2.data(), n); });
        PROGRAM(scancolf, "column scan", "f32 -> f64", "formac scan(img, 0)", f32.data(), fd.data())
        add("column scan", "f32 -> f64", "copy f32 -> f64 (memory floor)", true, [&] { widen_floor(f32.data(), fd2.data(), n); });
        PROGRAM(scancolff, "column scan", "f32 -> f32", "formac scan(img, 0, float)", f32.data(), ff.data())
        add("column scan", "f32 -> f32", "memcpy f32 (memory floor)", true, [&] { copy_floor(f32.data(), ff2.data(), n); });
#undef PROGRAM

        // Each operation's variants together, in the order the operations first appear.
        std::map<std::string, size_t> first;
        for (const Variant& x : v) first.emplace(x.op + "|" + x.input, first.size());
        std::stable_sort(v.begin(), v.end(), [&](const Variant& a, const Variant& b) {
            return first[a.op + "|" + a.input] < first[b.op + "|" + b.input];
        });
        if (!only.empty()) {
            std::vector<Variant> kept;
            for (Variant& x : v)
                if ((x.op + " " + x.input).find(only) != std::string::npos) kept.push_back(std::move(x));
            v = std::move(kept);
        }

        // The untimed run, each formac variant checked right after its baseline (the
        // outputs are shared between variants of one type).
        const bool report = t == threads.front();
        if (report) std::printf("check (%d threads):\n", t);
        for (size_t k = 0; k < v.size(); ++k) {
            Variant& x = v[k];
            x.run();
            if (!x.baseline) continue;
            for (size_t m = 0; m < v.size(); ++m) {
                Variant& y = v[m];
                if (y.baseline || y.op != x.op || y.input != x.input) continue;
                y.run();
                if (!report) continue;
                const std::string what = y.op + " " + y.input + ": " + y.name;
                char d[160] = "";
                if (y.op == "sat" && y.name.find("(M+1)") != std::string::npos) {
                    cv::Mat f(M + 1, N + 1, CV_32S, fi1.data());
                    check(cv::countNonZero(f != ci) == 0, what + " == cv::integral", "");
                } else if (y.op == "sat" && y.input == "u8 -> int32") {
                    double w = against_integral<int, int>(fi.data(), ci, M, N);
                    check(w == 0, what + " == cv::integral[1:,1:]", "");
                } else if (y.op == "sat") {
                    const double* f = y.input == "u8 -> f64" ? fd.data() : fd2.data();
                    double w = against_integral<double, double>(f, cd, M, N);
                    std::snprintf(d, sizeof d, "largest relative difference %.3g", w);
                    check(w == 0, what + " == cv::integral[1:,1:]", d);
                } else if (y.op.rfind("box", 0) == 0 && y.name.find("interior") != std::string::npos) {
                    const int R = std::atoi(y.op.c_str() + 6);
                    long long worst = 0;
                    double rel = 0;
                    for (int i = R + 1; i < M - R - 1; ++i)
                        for (int j = R + 1; j < N - R - 1; ++j) {
                            const float a = ffi[(size_t)i * N + j], b = cbf.at<float>(i, j);
                            worst = std::max(worst, ulps(a, b));
                            if (a != b) rel = std::max(rel, std::fabs((double)a - b) / std::fabs((double)b));
                        }
                    std::snprintf(d, sizeof d, "rows, cols %d..%d: largest difference %lld ulp (relative %.3g)", R + 1,
                                  M - R - 2, worst, rel);
                    check(rel <= 1e-6, what + " ~ cv::boxFilter (1e-6 rel.)", d);
                } else if (y.op.rfind("box", 0) == 0 && y.input == "f32 -> f32") {
                    long long worst = 0;
                    double rel = 0;
                    const float* c = cbf.ptr<float>(0);
                    for (size_t i = 0; i < n; ++i) {
                        worst = std::max(worst, ulps(ff[i], c[i]));
                        if (ff[i] != c[i]) rel = std::max(rel, std::fabs((double)ff[i] - c[i]) / std::fabs((double)c[i]));
                    }
                    std::snprintf(d, sizeof d, "largest difference %lld ulp (relative %.3g)", worst, rel);
                    check(rel <= 1e-6, what + " ~ cv::boxFilter (1e-6 rel.)", d);
                } else if (y.op.rfind("box", 0) == 0) {
                    double rel = 0;
                    const double* c = cbd.ptr<double>(0);
                    for (size_t i = 0; i < n; ++i)
                        if (fd[i] != c[i]) rel = std::max(rel, std::fabs(fd[i] - c[i]) / std::fabs(c[i]));
                    std::snprintf(d, sizeof d, "largest relative difference %.3g", rel);
                    check(rel <= 1e-12, what + " ~ cv::boxFilter (1e-12 rel.)", d);
                } else {
                    const std::vector<double>& r = y.op == "row scan" ? rrow : rcol;
                    bool ok = true;
                    for (size_t i = 0; i < n && ok; ++i)
                        ok = y.input == "f32 -> f64" ? fd[i] == r[i] : ff[i] == (float)r[i];
                    check(ok, what + " == sequential double sums", "");
                }
            }
        }
        const size_t V = v.size();
        for (int r = 0; r < rounds; ++r)
            for (size_t k = 0; k < V; ++k) {
                Variant& x = v[(r + k) % V];
                x.ms.push_back(bench_time_ms(x.run));
            }
        std::map<std::string, double> base;
        for (Variant& x : v)
            if (x.baseline) base[x.op + "|" + x.input] = median(x.ms);
        for (Variant& x : v) {
            double med = median(x.ms), lo = *std::min_element(x.ms.begin(), x.ms.end());
            auto b = base.find(x.op + "|" + x.input);
            double ratio = b == base.end() ? 0.0 : med / b->second;
            rows.push_back({x.op, x.input, x.name, t, med, lo, ratio});
            std::printf("  %-12s %-12s %d thr  %-44s %8.3f ms  (min %.3f)\n", x.op.c_str(), x.input.c_str(), t,
                        x.name.c_str(), med, lo);
            std::fflush(stdout);
        }
        for (auto& d : destroy) d();
    }
    const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    std::printf("\n## Results\n\nmachine: %s (%d CPUs); date: %s; load average after: %s; %.0f s in all. "
                "%d² images; median of %d interleaved rounds; ratio = median / the baseline's median "
                "(the OpenCV call; for the scans a copy of the same bytes) for the same operation, input "
                "and threads (> 1: slower).\n\n",
                machine.c_str(), omp_get_num_procs(), date.c_str(), load_average().c_str(), total_s, size,
                rounds);
    std::printf("| operation | types | size | threads | variant | median ms | ratio | min ms |\n");
    std::printf("|---|---|---|---:|---|---:|---:|---:|\n");
    for (const Row& r : rows)
        std::printf("| %s | %s | %d² | %d | %s | %.3f | %.2f | %.3f |\n", r.op.c_str(), r.input.c_str(), size,
                    r.threads, r.name.c_str(), r.median_ms, r.ratio, r.min_ms);
    std::printf("\n‡ OpenCV's layout: the result is element for element cv::integral's.\n");
    std::printf("§ without padding: computed (and checked) only at rows and columns r+1 .. size-r-2.\n");
    if (failures) std::printf("\n%d CHECK(S) FAILED\n", failures);
    return failures ? 1 : 0;
}
