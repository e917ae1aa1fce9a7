// formac_bench_canny_full — Canny with hysteresis (examples/canny/canny_opencv.idsl,
// a `do` loop) against OpenCV 4.6's cv::Canny(img, edges, low, high) (aperture 3, L1)
// on the CPU (README.md here).
//
//   formac_bench_canny_full [--size 4096] [--threads 2,1] [--rounds 9]
//
// Every variant runs once untimed and its edges are compared with cv::Canny's, byte for
// byte; the hysteresis rounds each input takes are counted (below). Then --rounds rounds
// in which each variant runs once, interleaved: round r starts at variant r mod V, so
// that a burst of load from the machine's other users falls on every variant alike.
// The median of each variant's rounds is reported with its ratio to cv::Canny on the
// same input measured in the same rounds.
#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>
#include <omp.h>
#include <png.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "../bench_timing.h"

extern "C" {
#include "canny_opencv.h"
#include "canny_opencv_x4.h"
}

namespace {

std::vector<int> parse_list(const char* s) {
    std::vector<int> out;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ',')) out.push_back(std::atoi(item.c_str()));
    return out;
}

cv::Mat read_gray_png(const char* path) {
    png_image img;
    std::memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path)) return cv::Mat();
    img.format = PNG_FORMAT_GRAY;
    cv::Mat m((int)img.height, (int)img.width, CV_8U);
    if (!png_image_finish_read(&img, nullptr, m.ptr(), (png_int_32)m.step, nullptr)) return cv::Mat();
    return m;
}

// xorshift noise, smoothed into blobs with long winding edges.
cv::Mat blobs(int size) {
    cv::Mat m(size, size, CV_8U), b;
    unsigned s = 12345;
    for (int i = 0; i < size; ++i)
        for (int j = 0; j < size; ++j) {
            s ^= s << 13, s ^= s >> 17, s ^= s << 5;
            m.at<uchar>(i, j) = (uchar)(s >> 11);
        }
    cv::GaussianBlur(m, b, cv::Size(0, 0), 4.0, 4.0, cv::BORDER_REFLECT_101);
    cv::normalize(b, m, 0, 255, cv::NORM_MINMAX);
    return m;
}

// The rounds the loop runs: every edge point's 8-connected distance from the strong
// points through edge points (a breadth-first search), the largest plus 1 (the last
// round, which changes nothing). `strong` is the result of 0 rounds.
int rounds_needed(const cv::Mat& edges, const cv::Mat& strong) {
    const int M = edges.rows, N = edges.cols;
    std::vector<int> dist((size_t)M * N, -1);
    std::deque<int> q;
    for (int k = 0; k < M * N; ++k)
        if (strong.data[k]) dist[k] = 0, q.push_back(k);
    int far = 0;
    while (!q.empty()) {
        int k = q.front();
        q.pop_front();
        int i = k / N, j = k % N;
        for (int di = -1; di <= 1; ++di)
            for (int dj = -1; dj <= 1; ++dj) {
                int a = i + di, b = j + dj;
                if (a < 0 || b < 0 || a >= M || b >= N) continue;
                int n = a * N + b;
                if (edges.data[n] && dist[n] < 0) dist[n] = dist[k] + 1, far = std::max(far, dist[n]), q.push_back(n);
            }
    }
    return far + 1;
}

int failures = 0;
void check(bool ok, const std::string& what, const std::string& detail) {
    std::printf("  check %-58s %s  %s\n", what.c_str(), ok ? "ok  " : "FAIL", detail.c_str());
    if (!ok) ++failures;
}

struct Input {
    std::string name;
    cv::Mat img;
    double low, high;
};

struct Variant {
    std::string input, name;
    bool baseline;
    std::function<void()> run;
    std::vector<double> ms;
};

}  // namespace

int main(int argc, char** argv) {
    int size = 4096, rounds = 9;
    std::vector<int> threads = {2, 1};
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--size" && i + 1 < argc) size = std::atoi(argv[++i]);
        else if (a == "--threads" && i + 1 < argc) threads = parse_list(argv[++i]);
        else if (a == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: formac_bench_canny_full [--size N] [--threads 2,1] [--rounds R]\n");
            return 1;
        }
    }
    const int M = size, N = size;
    cv::Mat camera = read_gray_png(BENCH_CAMERA);
    if (camera.empty()) {
        std::fprintf(stderr, "cannot read %s\n", BENCH_CAMERA);
        return 1;
    }
    // The photo tiled (mirrored copies, so that no seam is an edge), and enlarged.
    cv::Mat tiled, enlarged;
    cv::copyMakeBorder(camera, tiled, 0, std::max(0, M - camera.rows), 0, std::max(0, N - camera.cols),
                       cv::BORDER_REFLECT_101);
    while (tiled.rows < M || tiled.cols < N)
        cv::copyMakeBorder(tiled.clone(), tiled, 0, std::max(0, M - tiled.rows), 0, std::max(0, N - tiled.cols),
                           cv::BORDER_REFLECT_101);
    tiled = tiled(cv::Rect(0, 0, N, M)).clone();
    cv::resize(camera, enlarged, cv::Size(N, M), 0, 0, cv::INTER_CUBIC);
    std::vector<Input> inputs = {{"camera tiled", tiled, 50, 150},
                                 {"camera enlarged", enlarged, 10, 30},
                                 {"blobs", blobs(size), 10, 40}};

    const std::string machine = cpu_model(), date = now_utc();
    std::printf("machine: %s, %d CPUs; date: %s; load average before: %s\n", machine.c_str(), omp_get_num_procs(),
                date.c_str(), load_average().c_str());
    std::printf("formac C compiled with: %s; OpenCV %s\n", BENCH_FORMAC_C_FLAGS, CV_VERSION);
    std::printf("%d² images; median of %d interleaved rounds after one untimed run\n\n", size, rounds);

    struct Row {
        std::string input, name;
        int threads;
        double median_ms, min_ms, ratio;
    };
    std::vector<Row> rows;
    std::vector<std::string> round_notes;
    const int cap = M * N;  // always enough rounds
    const auto t_start = std::chrono::steady_clock::now();
    for (int t : threads) {
        omp_set_num_threads(t);
        cv::setNumThreads(t);
        canny_opencv_workspace* w1 = canny_opencv_create(M, N, cap);
        canny_opencv_x4_workspace* w4 = canny_opencv_x4_create(M, N, cap);
        canny_opencv_workspace* w0 = canny_opencv_create(M, N, 0);
        if (!w1 || !w4 || !w0) {
            std::fprintf(stderr, "a formac workspace could not be created\n");
            return 1;
        }
        std::vector<cv::Mat> want(inputs.size()), got1(inputs.size()), got4(inputs.size()), got0(inputs.size());
        std::vector<Variant> v;
        for (size_t k = 0; k < inputs.size(); ++k) {
            Input& in = inputs[k];
            want[k].create(M, N, CV_8U), got1[k].create(M, N, CV_8U), got4[k].create(M, N, CV_8U);
            got0[k].create(M, N, CV_8U);
            v.push_back({in.name, "opencv cv::Canny", true, [&, k] {
                             cv::Canny(inputs[k].img, want[k], inputs[k].low, inputs[k].high, 3, false);
                         }, {}});
            v.push_back({in.name, "formac (1 step a round)", false, [&, k] {
                             canny_opencv_run(w1, inputs[k].img.ptr(), inputs[k].low, inputs[k].high, got1[k].ptr());
                         }, {}});
            v.push_back({in.name, "formac (4 steps a round)", false, [&, k] {
                             canny_opencv_x4_run(w4, inputs[k].img.ptr(), inputs[k].low, inputs[k].high,
                                                 got4[k].ptr());
                         }, {}});
            v.push_back({in.name, "formac, 0 rounds (no hysteresis) †", false, [&, k] {
                             canny_opencv_run(w0, inputs[k].img.ptr(), inputs[k].low, inputs[k].high, got0[k].ptr());
                         }, {}});
        }
        for (Variant& x : v) x.run();
        std::printf("check (%d threads):\n", t);
        for (size_t k = 0; k < inputs.size(); ++k) {
            const Input& in = inputs[k];
            int d1 = cv::countNonZero(got1[k] != want[k]), d4 = cv::countNonZero(got4[k] != want[k]);
            check(d1 == 0 && d4 == 0, in.name + ": formac == cv::Canny (both variants)",
                  std::to_string(d1) + ", " + std::to_string(d4) + " points differ; " +
                      std::to_string(cv::countNonZero(want[k])) + " edge points");
            if (t == threads.front()) {
                cv::Mat strong(M, N, CV_8U);
                canny_opencv(inputs[k].img.ptr(), in.low, in.high, M, N, 0, strong.ptr());
                int r = rounds_needed(want[k], strong);
                cv::Mat capped(M, N, CV_8U), short1(M, N, CV_8U);
                canny_opencv(inputs[k].img.ptr(), in.low, in.high, M, N, r - 1, capped.ptr());
                canny_opencv(inputs[k].img.ptr(), in.low, in.high, M, N, r - 2, short1.ptr());
                check(cv::countNonZero(capped != want[k]) == 0 && (r < 2 || cv::countNonZero(short1 != want[k]) > 0),
                      in.name + ": edges complete after exactly " + std::to_string(r - 1) + " growing rounds", "");
                char note[256];
                std::snprintf(note, sizeof note,
                              "%s (low %g, high %g): %d edge points, %d strong; the loop runs %d rounds "
                              "(1 step a round), %d (4 steps a round)",
                              in.name.c_str(), in.low, in.high, cv::countNonZero(want[k]), cv::countNonZero(strong),
                              r, (r - 1 + 3) / 4 + 1);
                round_notes.push_back(note);
                std::printf("  %s\n", note);
            }
        }
        std::fflush(stdout);
        const size_t V = v.size();
        for (int r = 0; r < rounds; ++r)
            for (size_t k = 0; k < V; ++k) {
                Variant& x = v[(r + k) % V];
                x.ms.push_back(bench_time_ms(x.run));
            }
        for (Variant& x : v) {
            double base = 0;
            for (Variant& y : v)
                if (y.baseline && y.input == x.input) base = median(y.ms);
            double med = median(x.ms), lo = *std::min_element(x.ms.begin(), x.ms.end());
            rows.push_back({x.input, x.name, t, med, lo, med / base});
            std::printf("  %-16s %d thr  %-36s %9.3f ms  (min %.3f)\n", x.input.c_str(), t, x.name.c_str(), med, lo);
            std::fflush(stdout);
        }
        canny_opencv_destroy(w1);
        canny_opencv_x4_destroy(w4);
        canny_opencv_destroy(w0);
    }
    const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    std::printf("\n## Results\n\nmachine: %s (%d CPUs); date: %s; load average after: %s; %.0f s in all. "
                "%d² images; median of %d interleaved rounds; ratio = median / cv::Canny's median for the same "
                "input and threads (> 1: slower than OpenCV).\n\n",
                machine.c_str(), omp_get_num_procs(), date.c_str(), load_average().c_str(), total_s, size, rounds);
    for (const std::string& n : round_notes) std::printf("- %s\n", n.c_str());
    std::printf("\n| input | size | threads | variant | median ms | ratio to cv::Canny | min ms |\n");
    std::printf("|---|---|---:|---|---:|---:|---:|\n");
    for (const Row& r : rows)
        std::printf("| %s | %d² | %d | %s | %.3f | %.2f | %.3f |\n", r.input.c_str(), size, r.threads, r.name.c_str(),
                    r.median_ms, r.ratio, r.min_ms);
    std::printf("\n† the same program capped at 0 rounds: Sobel, magnitude, non-maximum suppression and "
                "the output, without hysteresis (not the same edges: for scale only).\n");
    if (failures) std::printf("\n%d CHECK(S) FAILED\n", failures);
    return failures ? 1 : 0;
}
