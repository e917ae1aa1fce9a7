// bench/cpu/bench.cpp — blur, harris and canny on the CPU: formac (fused and --no-fuse,
// through the workspace API) against Halide 14 (hand schedule and the autoschedulers the
// Debian package ships) and OpenCV 4.6. See README.md in this folder.
//
//   formac_bench [--sizes 2048,4096] [--threads 2,1] [--runs 11] [--warmup 1]
//                [--pipelines blur,harris,canny] [--other-functions]
//
// For each size, pipeline and thread count the variants are set up (pipelines.cpp);
// with the first thread count each is run once and checked against formac fused on the
// same input (max abs difference over the interior and over the whole image). Then each
// variant runs --warmup times untimed and --runs times timed; the median is reported.
// The markdown table is printed last.
#include "bench.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <opencv2/core/utility.hpp>
#include <sstream>

#include "HalideRuntime.h"
#include "bench_timing.h"

namespace {

struct Row {
    std::string pipeline;
    int size;
    int threads;
    std::string variant;
    double median_ms;
    double min_ms;
    bool same_function;
};

std::vector<std::string> split(const char* s) {
    std::vector<std::string> v;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) v.push_back(item);
    return v;
}

std::vector<int> split_ints(const char* s) {
    std::vector<int> v;
    for (const std::string& x : split(s)) v.push_back(std::atoi(x.c_str()));
    return v;
}

// Uniform in [0.001, 1): random and never zero.
void fill_random(std::vector<float>& img, uint64_t seed) {
    uint64_t s = 0x9E3779B97F4A7C15ull ^ seed;
    for (float& v : img) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        const float u = (float)((s >> 40) & 0xFFFFFF) / (float)0x1000000;
        v = 0.001f + 0.999f * u;
    }
}

std::string opencv_parallel_framework() {
    std::stringstream info(cv::getBuildInformation());
    std::string line;
    while (std::getline(info, line))
        if (line.find("Parallel framework:") != std::string::npos)
            return line.substr(line.find_first_not_of(' ', line.find(':') + 1));
    return "?";
}

void set_threads(int t) {
    omp_set_num_threads(t);     // formac
    cv::setNumThreads(t);       // OpenCV (TBB in Debian's build)
    halide_set_num_threads(t);  // Halide's thread pool
}

// Max |a - ref| over rows and columns [margin, n - margin), with the largest |ref| for
// scale and the number of pixels that differ.
template <typename T>
std::string compare(const void* a_, const void* ref_, int M, int N, int margin) {
    const T* a = (const T*)a_;
    const T* ref = (const T*)ref_;
    double maxdiff = 0, maxref = 0;
    long long ndiff = 0;
    for (int i = margin; i < M - margin; i++) {
        for (int j = margin; j < N - margin; j++) {
            const size_t k = (size_t)i * N + j;
            const double d = std::fabs((double)a[k] - (double)ref[k]);
            maxdiff = std::max(maxdiff, d);
            maxref = std::max(maxref, std::fabs((double)ref[k]));
            ndiff += d != 0;
        }
    }
    char buf[160];
    std::snprintf(buf, sizeof buf, "max|diff| %.3g (max|ref| %.3g; %lld of %lld px differ)",
                  maxdiff, maxref, ndiff, (long long)(M - 2 * margin) * (N - 2 * margin));
    return buf;
}

void check(const std::string& pipeline, const Bench& b, int M, int N) {
    std::printf("check %s %dx%d against formac fused: interior (margin %d) | whole image\n",
                pipeline.c_str(), M, N, b.margin);
    const void* ref = b.variants[0].output;
    for (size_t vi = 1; vi < b.variants.size(); vi++) {
        const Variant& v = b.variants[vi];
        std::string text = "not compared (another function)";
        if (v.same_function) {
            auto cmp = b.u8_output ? compare<uint8_t> : compare<float>;
            text = cmp(v.output, ref, M, N, b.margin) + " | " + cmp(v.output, ref, M, N, 0);
        }
        std::printf("  %-48s %s\n", v.name.c_str(), text.c_str());
    }
    if (b.u8_output) {
        const uint8_t* r = (const uint8_t*)ref;
        const size_t n = (size_t)M * N;
        size_t strong = 0, weak = 0;
        for (size_t i = 0; i < n; i++) {
            strong += r[i] == 255;
            weak += r[i] == 128;
        }
        std::printf("  (formac fused: %.1f%% strong, %.1f%% weak pixels)\n", 100.0 * strong / n,
                    100.0 * weak / n);
    }
    std::fflush(stdout);
}

void print_table(std::vector<Row> rows, const std::vector<std::string>& pipelines,
                 const std::vector<int>& threads) {
    std::map<std::string, double> fused;
    auto key = [](const Row& r) {
        return r.pipeline + "/" + std::to_string(r.size) + "/" + std::to_string(r.threads);
    };
    for (const Row& r : rows)
        if (r.variant == "formac fused") fused[key(r)] = r.median_ms;
    auto index = [](const auto& list, const auto& x) {
        return std::find(list.begin(), list.end(), x) - list.begin();
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
        if (a.pipeline != b.pipeline)
            return index(pipelines, a.pipeline) < index(pipelines, b.pipeline);
        if (a.size != b.size) return a.size < b.size;
        return index(threads, a.threads) < index(threads, b.threads);
    });
    std::printf(
        "| pipeline | size | threads | variant | median ms | ratio to formac fused | min ms |\n");
    std::printf("|---|---|---:|---|---:|---:|---:|\n");
    for (const Row& r : rows) {
        const double f = fused[key(r)];
        std::printf("| %s | %d² | %d | %s%s | %.2f | %.2f | %.2f |\n", r.pipeline.c_str(), r.size,
                    r.threads, r.variant.c_str(), r.same_function ? "" : " †", r.median_ms,
                    f > 0 ? r.median_ms / f : 0.0, r.min_ms);
    }
    if (std::any_of(rows.begin(), rows.end(), [](const Row& r) { return !r.same_function; }))
        std::printf(
            "\n† another function, timed for scale only: cv::cornerHarris sums an "
            "unweighted 3x3 window of scaled Sobel products; cv::Canny takes 8-bit "
            "images only, does not smooth, and includes hysteresis.\n");
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> sizes = {2048, 4096};
    std::vector<int> threads = {2, 1};
    std::vector<std::string> pipelines = {"blur", "harris", "canny"};
    int runs = 11, warmup = 1;
    bool other_functions = false;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (i + 1 < argc && a == "--sizes")
            sizes = split_ints(argv[++i]);
        else if (i + 1 < argc && a == "--threads")
            threads = split_ints(argv[++i]);
        else if (i + 1 < argc && a == "--runs")
            runs = std::max(1, std::atoi(argv[++i]));
        else if (i + 1 < argc && a == "--warmup")
            warmup = std::max(0, std::atoi(argv[++i]));
        else if (i + 1 < argc && a == "--pipelines")
            pipelines = split(argv[++i]);
        else if (a == "--other-functions")
            other_functions = true;
        else {
            std::fprintf(stderr,
                         "usage: %s [--sizes 2048,4096] [--threads 2,1] [--runs 11] "
                         "[--warmup 1] [--pipelines blur,harris,canny] [--other-functions]\n",
                         argv[0]);
            return 2;
        }
    }

    const std::string machine = cpu_model(), date = now_utc();
    std::printf("machine: %s, %d CPUs; date: %s; load average before: %s\n", machine.c_str(),
                omp_get_num_procs(), date.c_str(), load_average().c_str());
    std::printf(
        "formac C compiled with: %s; Halide 14 AOT for the host; OpenCV %s (parallel "
        "framework: %s)\n",
        BENCH_FORMAC_C_FLAGS, CV_VERSION, opencv_parallel_framework().c_str());
    std::printf("timing: median of %d runs after %d warm-up runs\n\n", runs, warmup);

    std::vector<Row> rows;
    const auto t_start = std::chrono::steady_clock::now();
    // Thread counts in increasing order, outermost: Halide 14's thread pool grows when
    // halide_set_num_threads asks for more, but keeps every worker busy after it asks for
    // fewer (1.87 cores busy after halide_set_num_threads(1) once 2 threads had run).
    std::vector<int> ascending = threads;
    std::sort(ascending.begin(), ascending.end());
    for (int t : ascending) {
        // Threads are set before the workspaces are created: formac's fused code sizes its
        // per-thread buffers at create time and runs that many threads.
        set_threads(t);
        for (int size : sizes) {
            std::vector<float> pixels((size_t)size * size);
            fill_random(pixels, 12345u + size);
            Input in{size, size, pixels.data(), cv::Mat(size, size, CV_32F, pixels.data()),
                     Halide::Runtime::Buffer<float>(pixels.data(), size, size)};
            for (const std::string& pipeline : pipelines) {
                Bench b;
                if (!make_bench(pipeline, in, other_functions, &b)) {
                    std::fprintf(stderr, "cannot set up %s at %d²\n", pipeline.c_str(), size);
                    return 1;
                }
                if (t == ascending.front()) {
                    for (const Variant& v : b.variants) v.run();
                    check(pipeline, b, size, size);
                }
                for (const Variant& v : b.variants) {
                    for (int w = 0; w < warmup; w++) v.run();
                    std::vector<double> ms;
                    for (int r = 0; r < runs; r++) {
                        ms.push_back(bench_time_ms(v.run));
                    }
                    const double lo = *std::min_element(ms.begin(), ms.end());
                    const double hi = *std::max_element(ms.begin(), ms.end());
                    rows.push_back({pipeline, size, t, v.name, median(ms), lo, v.same_function});
                    std::printf("  %-6s %4d %d thr  %-48s %9.3f ms  (min %.3f, max %.3f)\n",
                                pipeline.c_str(), size, t, v.name.c_str(), median(ms), lo, hi);
                    std::fflush(stdout);
                }
            }
        }
    }
    const double total_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();

    std::printf(
        "\n## Results\n\nmachine: %s (%d CPUs); date: %s; load average after: %s; "
        "%.0f s in all. Median of %d runs after %d warm-up runs; ratio = median / "
        "formac fused's median at the same pipeline, size and threads.\n\n",
        machine.c_str(), omp_get_num_procs(), date.c_str(), load_average().c_str(), total_s, runs,
        warmup);
    print_table(rows, pipelines, threads);
    return 0;
}
