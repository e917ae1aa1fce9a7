// formac_bench_reduce — formac's reductions and histograms (LANGUAGE.md §7) against
// OpenCV 4.6 on the CPU (README.md here).
//
//   formac_bench_reduce [--size 4096] [--threads 2,1] [--rounds 15]
//
// Every variant runs once untimed (the check compares its result with OpenCV's),
// then --rounds rounds in which each variant runs once, interleaved: round r starts
// at variant r mod V, so that a burst of load from the machine's other users falls
// on every variant alike. The median of each variant's rounds is reported with its
// ratio to the OpenCV call of the same operation measured in the same rounds.
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
#include <vector>

#include "../bench_timing.h"

extern "C" {
#include "count8.h"
#include "countf.h"
#include "equalize.h"
#include "hist8.h"
#include "minmax8.h"
#include "minmaxf.h"
#include "ssd.h"
#include "ssd_unfused.h"
#include "sum8.h"
#include "sumf.h"
}

namespace {

struct Variant {
    std::string op;        // what is computed: "sum", "max+min", ...
    std::string input;     // "u8 random", ...
    std::string name;      // "formac", "opencv cv::sum", ...
    bool baseline;         // the OpenCV call the ratio divides by
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
void fill(std::vector<float>& v, unsigned seed) {
    unsigned s = seed;
    for (auto& x : v) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        x = (float)((s >> 8) & 0xFFFFFF) / (float)0x1000000;  // [0, 1), 2^-24 steps: a few zeros
    }
}

int failures = 0;
void check(bool ok, const char* what, const std::string& detail) {
    std::printf("  check %-40s %s  %s\n", what, ok ? "ok  " : "FAIL", detail.c_str());
    if (!ok) ++failures;
}

}  // namespace

int main(int argc, char** argv) {
    int size = 4096, rounds = 15;
    std::vector<int> threads = {2, 1};
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--size" && i + 1 < argc) size = std::atoi(argv[++i]);
        else if (a == "--threads" && i + 1 < argc) threads = parse_list(argv[++i]);
        else if (a == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: formac_bench_reduce [--size N] [--threads 2,1] [--rounds R]\n");
            return 1;
        }
    }
    const int M = size, N = size;
    const size_t n = (size_t)M * N;
    std::vector<unsigned char> u8(n), one(n, 77);
    std::vector<float> f32(n), fa(n), fb(n);
    fill(u8, 1), fill(f32, 2), fill(fa, 3), fill(fb, 4);
    cv::Mat mu8(M, N, CV_8U, u8.data()), mone(M, N, CV_8U, one.data()), mf32(M, N, CV_32F, f32.data()),
        ma(M, N, CV_32F, fa.data()), mb(M, N, CV_32F, fb.data());

    const std::string machine = cpu_model(), date = now_utc();
    std::printf("machine: %s, %d CPUs; date: %s; load average before: %s\n", machine.c_str(),
                omp_get_num_procs(), date.c_str(), load_average().c_str());
    std::printf("formac C compiled with: %s; OpenCV %s\n", BENCH_FORMAC_C_FLAGS, CV_VERSION);
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
        sum8_workspace* w_sum8 = sum8_create(M, N);
        sumf_workspace* w_sumf = sumf_create(M, N);
        minmax8_workspace* w_mm8 = minmax8_create(M, N);
        minmaxf_workspace* w_mmf = minmaxf_create(M, N);
        count8_workspace* w_c8 = count8_create(M, N);
        countf_workspace* w_cf = countf_create(M, N);
        hist8_workspace* w_h8 = hist8_create(M, N);
        ssd_workspace* w_ssd = ssd_create(M, N);
        ssd_unfused_workspace* w_ssdu = ssd_unfused_create(M, N);
        equalize_workspace* w_eq = equalize_create(M, N);
        if (!w_sum8 || !w_sumf || !w_mm8 || !w_mmf || !w_c8 || !w_cf || !w_h8 || !w_ssd || !w_ssdu || !w_eq) {
            std::fprintf(stderr, "a formac workspace could not be created\n");
            return 1;
        }
        // Results, kept for the check.
        long long s8 = 0, c8 = 0, cf = 0;
        double sf = 0, e = 0, eu = 0;
        unsigned char mx8 = 0, mn8 = 0;
        float mxf = 0, mnf = 0;
        std::vector<long long> h8(256), h1(256);
        cv::Scalar cs8, csf;
        double cmn8, cmx8, cmnf, cmxf, ce = 0;
        int cc8 = 0, ccf = 0;
        cv::Mat ch8, ch1, eq;
        std::vector<unsigned char> feq(n);
        int channels[] = {0}, bins[] = {256};
        float range[] = {0, 256};
        const float* ranges[] = {range};

        std::vector<Variant> v;
        auto add = [&](const char* op, const char* input, const char* name, bool base, std::function<void()> f) {
            v.push_back({op, input, name, base, std::move(f), {}});
        };
        add("sum", "u8 random", "formac sum", false, [&] { sum8_run(w_sum8, u8.data(), &s8); });
        add("sum", "u8 random", "opencv cv::sum", true, [&] { cs8 = cv::sum(mu8); });
        add("sum", "f32 random", "formac sum", false, [&] { sumf_run(w_sumf, f32.data(), &sf); });
        add("sum", "f32 random", "opencv cv::sum", true, [&] { csf = cv::sum(mf32); });
        add("max+min", "u8 random", "formac max, min", false, [&] { minmax8_run(w_mm8, u8.data(), &mx8, &mn8); });
        add("max+min", "u8 random", "opencv cv::minMaxLoc", true, [&] { cv::minMaxLoc(mu8, &cmn8, &cmx8); });
        add("max+min", "f32 random", "formac max, min", false, [&] { minmaxf_run(w_mmf, f32.data(), &mxf, &mnf); });
        add("max+min", "f32 random", "opencv cv::minMaxLoc", true, [&] { cv::minMaxLoc(mf32, &cmnf, &cmxf); });
        add("count", "u8 random", "formac count", false, [&] { count8_run(w_c8, u8.data(), &c8); });
        add("count", "u8 random", "opencv cv::countNonZero", true, [&] { cc8 = cv::countNonZero(mu8); });
        add("count", "f32 random", "formac count", false, [&] { countf_run(w_cf, f32.data(), &cf); });
        add("count", "f32 random", "opencv cv::countNonZero", true, [&] { ccf = cv::countNonZero(mf32); });
        add("histogram 256", "u8 random", "formac histogram", false, [&] { hist8_run(w_h8, u8.data(), h8.data()); });
        add("histogram 256", "u8 random", "opencv cv::calcHist", true,
            [&] { cv::calcHist(&mu8, 1, channels, cv::Mat(), ch8, 1, bins, ranges); });
        add("histogram 256", "u8 all one value", "formac histogram", false, [&] { hist8_run(w_h8, one.data(), h1.data()); });
        add("histogram 256", "u8 all one value", "opencv cv::calcHist", true,
            [&] { cv::calcHist(&mone, 1, channels, cv::Mat(), ch1, 1, bins, ranges); });
        add("sum (a-b)²", "f32 random ×2", "formac fused", false, [&] { ssd_run(w_ssd, fa.data(), fb.data(), &e); });
        add("sum (a-b)²", "f32 random ×2", "formac --no-fuse", false, [&] { ssd_unfused_run(w_ssdu, fa.data(), fb.data(), &eu); });
        add("sum (a-b)²", "f32 random ×2", "opencv cv::norm(NORM_L2SQR)", true, [&] { ce = cv::norm(ma, mb, cv::NORM_L2SQR); });
        add("equalizeHist", "u8 random", "formac examples/equalize", false,
            [&] { equalize_run(w_eq, u8.data(), feq.data()); });
        add("equalizeHist", "u8 random", "opencv cv::equalizeHist", true, [&] { cv::equalizeHist(mu8, eq); });

        for (Variant& x : v) x.run();
        if (t == threads.front()) {
            std::printf("check (%d threads):\n", t);
            auto hist_eq = [](const std::vector<long long>& a, const cv::Mat& b) {
                for (int i = 0; i < 256; ++i)
                    if (a[i] != (long long)b.at<float>(i)) return false;
                return true;
            };
            check(s8 == (long long)cs8[0], "sum u8 == cv::sum", std::to_string(s8));
            check(std::fabs(sf - csf[0]) <= 1e-6 * csf[0], "sum f32 ~ cv::sum (1e-6 rel.)",
                  std::to_string(sf) + " vs " + std::to_string(csf[0]));
            check(mx8 == cmx8 && mn8 == cmn8, "max, min u8 == cv::minMaxLoc", "");
            check(mxf == cmxf && mnf == cmnf, "max, min f32 == cv::minMaxLoc", "");
            check(c8 == cc8 && cf == ccf, "count == cv::countNonZero",
                  std::to_string(c8) + ", " + std::to_string(cf));
            check(hist_eq(h8, ch8) && hist_eq(h1, ch1), "histogram == cv::calcHist", "");
            check(e == eu && std::fabs(e - ce) <= 1e-6 * ce, "sum (a-b)² fused == --no-fuse ~ cv::norm",
                  std::to_string(e) + " vs " + std::to_string(ce));
            check(std::memcmp(feq.data(), eq.data, n) == 0, "equalize == cv::equalizeHist (every byte)", "");
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
            std::printf("  %-14s %-18s %d thr  %-30s %8.3f ms  (min %.3f)\n", x.op.c_str(), x.input.c_str(), t,
                        x.name.c_str(), med, lo);
            std::fflush(stdout);
        }
        sum8_destroy(w_sum8), sumf_destroy(w_sumf), minmax8_destroy(w_mm8), minmaxf_destroy(w_mmf);
        count8_destroy(w_c8), countf_destroy(w_cf), hist8_destroy(w_h8), ssd_destroy(w_ssd);
        ssd_unfused_destroy(w_ssdu), equalize_destroy(w_eq);
    }
    const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    std::printf("\n## Results\n\nmachine: %s (%d CPUs); date: %s; load average after: %s; %.0f s in all. "
                "%d² images; median of %d interleaved rounds; ratio = median / the OpenCV call's "
                "median for the same operation, input and threads (> 1: slower than OpenCV).\n\n",
                machine.c_str(), omp_get_num_procs(), date.c_str(), load_average().c_str(), total_s, size,
                rounds);
    std::printf("| operation | input | size | threads | variant | median ms | ratio to OpenCV | min ms |\n");
    std::printf("|---|---|---|---:|---|---:|---:|---:|\n");
    for (const Row& r : rows) {
        char ratio[32] = "—";
        if (r.ratio > 0) std::snprintf(ratio, sizeof ratio, "%.2f", r.ratio);
        std::printf("| %s | %s | %d² | %d | %s | %.3f | %s | %.3f |\n", r.op.c_str(), r.input.c_str(), size,
                    r.threads, r.name.c_str(), r.median_ms, ratio, r.min_ms);
    }
    if (failures) std::printf("\n%d CHECK(S) FAILED\n", failures);
    return failures ? 1 : 0;
}
