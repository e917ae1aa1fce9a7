// bench/cpu/pipelines.cpp — the variants of each pipeline: formac fused and --no-fuse
// (workspace API), Halide (hand schedule, autoschedulers), OpenCV (closest calls).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include "HalideRuntime.h"
#include "bench.h"

// formac-generated (C; the headers say extern "C")
#include "blur_fused.h"
#include "blur_unfused.h"
#include "canny_fused.h"
#include "canny_unfused.h"
#include "harris_fused.h"
#include "harris_unfused.h"
#ifdef BENCH_FORMAC_NOERRNO  // the fused code again, with -fno-math-errno -fno-trapping-math
#include "blur_fused_noerrno.h"
#include "canny_fused_noerrno.h"
#include "harris_fused_noerrno.h"
#endif

// Halide, AOT-compiled; each autoscheduler's libraries exist where CMake defined
// BENCH_HALIDE_<name>.
#include "blur_halide_manual.h"
#include "canny_halide_manual.h"
#include "harris_halide_manual.h"
#ifdef BENCH_HALIDE_Mullapudi2016
#include "blur_halide_Mullapudi2016.h"
#include "canny_halide_Mullapudi2016.h"
#include "harris_halide_Mullapudi2016.h"
#endif
#ifdef BENCH_HALIDE_Adams2019
#include "blur_halide_Adams2019.h"
#include "canny_halide_Adams2019.h"
#include "harris_halide_Adams2019.h"
#endif
#ifdef BENCH_HALIDE_Li2018
#include "blur_halide_Li2018.h"
#include "canny_halide_Li2018.h"
#include "harris_halide_Li2018.h"
#endif

const float kHarrisK = 0.04f;
// Canny's thresholds on the gradient magnitude of the smoothed image. Inputs are uniform
// in [0.001, 1); these give about 18% strong and 13% weak pixels (printed by the check).
const float kCannyLow = 0.25f;
const float kCannyHigh = 0.40f;

namespace {

const char* const kNoErrno = "formac fused -fno-math-errno -fno-trapping-math";

template <typename T>
T* new_output(Bench* b, const Input& in) {
    void* p = std::calloc((size_t)in.M * in.N, sizeof(T));
    if (!p) {
        std::fprintf(stderr, "out of memory\n");
        std::exit(1);
    }
    b->keep.emplace_back(p, std::free);
    return (T*)p;
}

template <typename W>
void keep_workspace(Bench* b, W* ws, void (*destroy)(W*)) {
    b->keep.emplace_back(ws, [destroy](void* p) { destroy((W*)p); });
}

void hl_check(int rc, const std::string& what) {
    if (rc != 0) {
        std::fprintf(stderr, "%s failed with %d\n", what.c_str(), rc);
        std::exit(1);
    }
}

// Halide wraps the caller's memory; x = column, y = row.
template <typename T>
std::shared_ptr<Halide::Runtime::Buffer<T>> hl_wrap(Bench* b, T* data, const Input& in) {
    auto buf = std::make_shared<Halide::Runtime::Buffer<T>>(data, in.N, in.M);
    b->keep.push_back(buf);
    return buf;
}

// ------------------------------------------------------------------------------ blur

typedef int (*HalideBlur)(halide_buffer_t*, halide_buffer_t*);

void add_halide_blur(Bench* b, const Input& in, const std::string& name, HalideBlur fn) {
    float* o = new_output<float>(b, in);
    // Listing 1 has no boundary mode: Halide computes the interior [1, N-2] x [1, M-2],
    // where formac computes its result, and the border keeps its zeros.
    auto crop = std::make_shared<Halide::Runtime::Buffer<float>>(
        hl_wrap(b, o, in)->cropped({{1, in.N - 2}, {1, in.M - 2}}));
    b->keep.push_back(crop);
    auto input = std::make_shared<Halide::Runtime::Buffer<float>>(in.hl);
    b->keep.push_back(input);
    b->variants.push_back({name, [=]() { hl_check(fn(*input, *crop), name); }, o});
}

bool make_blur(const Input& in, Bench* b) {
    b->margin = 1;
    float* data = in.data;
    auto* wf = blur_fused_create(in.M, in.N);
    auto* wu = blur_unfused_create(in.M, in.N);
    if (!wf || !wu) return false;
    keep_workspace(b, wf, blur_fused_destroy);
    keep_workspace(b, wu, blur_unfused_destroy);
    float* of = new_output<float>(b, in);
    float* ou = new_output<float>(b, in);
    b->variants.push_back({"formac fused", [=]() { blur_fused_run(wf, data, of); }, of});
    b->variants.push_back({"formac --no-fuse", [=]() { blur_unfused_run(wu, data, ou); }, ou});
#ifdef BENCH_FORMAC_NOERRNO
    auto* wn = blur_fused_noerrno_create(in.M, in.N);
    if (!wn) return false;
    keep_workspace(b, wn, blur_fused_noerrno_destroy);
    float* on = new_output<float>(b, in);
    b->variants.push_back({kNoErrno, [=]() { blur_fused_noerrno_run(wn, data, on); }, on});
#endif

    add_halide_blur(b, in, "halide manual", blur_halide_manual);
#ifdef BENCH_HALIDE_Mullapudi2016
    add_halide_blur(b, in, "halide Mullapudi2016", blur_halide_Mullapudi2016);
#endif
#ifdef BENCH_HALIDE_Adams2019
    add_halide_blur(b, in, "halide Adams2019", blur_halide_Adams2019);
#endif
#ifdef BENCH_HALIDE_Li2018
    add_halide_blur(b, in, "halide Li2018", blur_halide_Li2018);
#endif

    // OpenCV: the separable [1/3 1/3 1/3] filter in both directions; and the normalised
    // 3x3 box filter (sum * 1/9). Both compute Listing 1's function up to rounding.
    cv::Mat src = in.mat;
    float* o1 = new_output<float>(b, in);
    cv::Mat k3 = (cv::Mat_<float>(1, 3) << 1.0f / 3, 1.0f / 3, 1.0f / 3);
    cv::Mat dst1(in.M, in.N, CV_32F, o1);
    b->variants.push_back({"opencv sepFilter2D",
                           [=]() mutable {
                               cv::sepFilter2D(src, dst1, CV_32F, k3, k3, cv::Point(-1, -1), 0,
                                               cv::BORDER_REFLECT_101);
                           },
                           o1});
    float* o2 = new_output<float>(b, in);
    cv::Mat dst2(in.M, in.N, CV_32F, o2);
    b->variants.push_back({"opencv blur",
                           [=]() mutable {
                               cv::blur(src, dst2, cv::Size(3, 3), cv::Point(-1, -1),
                                        cv::BORDER_REFLECT_101);
                           },
                           o2});
    return true;
}

// ---------------------------------------------------------------------------- harris

typedef int (*HalideHarris)(halide_buffer_t*, float, halide_buffer_t*);

void add_halide_harris(Bench* b, const Input& in, const std::string& name, HalideHarris fn) {
    float* o = new_output<float>(b, in);
    auto out = hl_wrap(b, o, in);
    auto input = std::make_shared<Halide::Runtime::Buffer<float>>(in.hl);
    b->keep.push_back(input);
    b->variants.push_back({name, [=]() { hl_check(fn(*input, kHarrisK, *out), name); }, o});
}

// det - k*trace^2 from the three window sums, as cornerHarris's own final loop does
// (OpenCV has no call for it), parallel like the rest.
void cv_harris_response(const cv::Mat& sxx, const cv::Mat& syy, const cv::Mat& sxy, float k,
                        cv::Mat& out) {
    cv::parallel_for_(cv::Range(0, sxx.rows), [&](const cv::Range& r) {
        const int N = sxx.cols;
        for (int i = r.start; i < r.end; i++) {
            const float* a = sxx.ptr<float>(i);
            const float* b = syy.ptr<float>(i);
            const float* c = sxy.ptr<float>(i);
            float* o = out.ptr<float>(i);
            for (int j = 0; j < N; j++) {
                const float det = a[j] * b[j] - c[j] * c[j];
                const float tr = a[j] + b[j];
                o[j] = det - k * tr * tr;
            }
        }
    });
}

bool make_harris(const Input& in, bool other_functions, Bench* b) {
    b->margin = 2;
    float* data = in.data;
    auto* wf = harris_fused_create(in.M, in.N);
    auto* wu = harris_unfused_create(in.M, in.N);
    if (!wf || !wu) return false;
    keep_workspace(b, wf, harris_fused_destroy);
    keep_workspace(b, wu, harris_unfused_destroy);
    float* of = new_output<float>(b, in);
    float* ou = new_output<float>(b, in);
    b->variants.push_back(
        {"formac fused", [=]() { harris_fused_run(wf, data, kHarrisK, of); }, of});
    b->variants.push_back(
        {"formac --no-fuse", [=]() { harris_unfused_run(wu, data, kHarrisK, ou); }, ou});
#ifdef BENCH_FORMAC_NOERRNO
    auto* wn = harris_fused_noerrno_create(in.M, in.N);
    if (!wn) return false;
    keep_workspace(b, wn, harris_fused_noerrno_destroy);
    float* on = new_output<float>(b, in);
    b->variants.push_back(
        {kNoErrno, [=]() { harris_fused_noerrno_run(wn, data, kHarrisK, on); }, on});
#endif

    add_halide_harris(b, in, "halide manual", harris_halide_manual);
#ifdef BENCH_HALIDE_Mullapudi2016
    add_halide_harris(b, in, "halide Mullapudi2016", harris_halide_Mullapudi2016);
#endif
#ifdef BENCH_HALIDE_Adams2019
    add_halide_harris(b, in, "halide Adams2019", harris_halide_Adams2019);
#endif
#ifdef BENCH_HALIDE_Li2018
    add_halide_harris(b, in, "halide Li2018", harris_halide_Li2018);
#endif

    // OpenCV: Sobel x and y, the three products, the 3x3 Gaussian (OpenCV's fixed ksize-3
    // kernel is [1 2 1]/4 per axis), the response; REFLECT_101 at every stage, as each
    // `:mirror` in harris.idsl. The intermediates persist, like formac's workspace.
    cv::Mat src = in.mat;
    float* o = new_output<float>(b, in);
    cv::Mat dst(in.M, in.N, CV_32F, o);
    std::vector<cv::Mat> m(8);
    for (cv::Mat& x : m) x.create(in.M, in.N, CV_32F);
    b->variants.push_back({"opencv",
                           [=]() mutable {
                               cv::Mat &ix = m[0], &iy = m[1], &ixx = m[2], &iyy = m[3],
                                       &ixy = m[4];
                               cv::Mat &sxx = m[5], &syy = m[6], &sxy = m[7];
                               const int bd = cv::BORDER_REFLECT_101;
                               cv::Sobel(src, ix, CV_32F, 1, 0, 3, 1, 0, bd);
                               cv::Sobel(src, iy, CV_32F, 0, 1, 3, 1, 0, bd);
                               cv::multiply(ix, ix, ixx);
                               cv::multiply(iy, iy, iyy);
                               cv::multiply(ix, iy, ixy);
                               cv::GaussianBlur(ixx, sxx, cv::Size(3, 3), 0, 0, bd);
                               cv::GaussianBlur(iyy, syy, cv::Size(3, 3), 0, 0, bd);
                               cv::GaussianBlur(ixy, sxy, cv::Size(3, 3), 0, 0, bd);
                               cv_harris_response(sxx, syy, sxy, kHarrisK, dst);
                           },
                           o});

    if (!other_functions) return true;
    // cv::cornerHarris: an unweighted 3x3 window and Sobel scaled by 1/(4*3) —
    // another function, timed for scale only.
    float* o2 = new_output<float>(b, in);
    cv::Mat dst2(in.M, in.N, CV_32F, o2);
    Variant v{
        "opencv cornerHarris (other fn)",
        [=]() mutable { cv::cornerHarris(src, dst2, 3, 3, kHarrisK, cv::BORDER_REFLECT_101); }, o2};
    v.same_function = false;
    b->variants.push_back(v);
    return true;
}

// ----------------------------------------------------------------------------- canny

typedef int (*HalideCanny)(halide_buffer_t*, float, float, halide_buffer_t*);

void add_halide_canny(Bench* b, const Input& in, const std::string& name, HalideCanny fn) {
    uint8_t* o = new_output<uint8_t>(b, in);
    auto out = hl_wrap(b, o, in);
    auto input = std::make_shared<Halide::Runtime::Buffer<float>>(in.hl);
    b->keep.push_back(input);
    b->variants.push_back(
        {name, [=]() { hl_check(fn(*input, kCannyLow, kCannyHigh, *out), name); }, o});
}

// Non-maximum suppression and the double threshold at one pixel, exactly as canny.idsl's
// thin and classify: mu, mc, md are the rows of mag above, at and below; jl, j, jr the
// columns. Every neighbour is loaded before the selects, so that the interior loop has no
// branches and gcc vectorises it (CMakeLists.txt adds -fno-trapping-math for this file:
// without it gcc if-converts no float comparison here).
inline uint8_t thin_classify(const float* mu, const float* mc, const float* md, int jl, int j,
                             int jr, float gx, float gy, float low, float high) {
    const float ax = std::fabs(gx), ay = std::fabs(gy);
    const bool horiz = ay <= 0.41421f * ax, vert = ax <= 0.41421f * ay, diag = gx * gy > 0;
    const float ul = mu[jl], u = mu[j], ur = mu[jr], l = mc[jl], m = mc[j], r = mc[jr];
    const float dl = md[jl], d = md[j], dr = md[jr];
    const float a = horiz ? l : vert ? u : diag ? ul : ur;
    const float c = horiz ? r : vert ? d : diag ? dr : dl;
    const bool above_a = m > a, not_below_c = m >= c;
    const float e = (above_a & not_below_c) ? m : 0.0f;
    const bool strong = e >= high, weak = e >= low;
    return strong ? 255 : weak ? 128 : 0;
}

// NMS + threshold over the image, mag read with REFLECT_101 at the border (`mag:mirror`).
// OpenCV has no float NMS: cv::Canny does it inside its 8-bit implementation.
void cv_thin_classify(const cv::Mat& gx, const cv::Mat& gy, const cv::Mat& mag, float low,
                      float high, cv::Mat& out) {
    const int bd = cv::BORDER_REFLECT_101;
    cv::parallel_for_(cv::Range(0, mag.rows), [&](const cv::Range& r) {
        // Locals, not captured references: the stores to o cannot change them.
        const int M = mag.rows, N = mag.cols;
        const float lo = low, hi = high;
        for (int i = r.start; i < r.end; i++) {
            const float* mu = mag.ptr<float>(cv::borderInterpolate(i - 1, M, bd));
            const float* mc = mag.ptr<float>(i);
            const float* md = mag.ptr<float>(cv::borderInterpolate(i + 1, M, bd));
            const float* px = gx.ptr<float>(i);
            const float* py = gy.ptr<float>(i);
            uint8_t* o = out.ptr<uint8_t>(i);
            for (int j : {0, N - 1})
                o[j] = thin_classify(mu, mc, md, cv::borderInterpolate(j - 1, N, bd), j,
                                     cv::borderInterpolate(j + 1, N, bd), px[j], py[j], lo, hi);
            for (int j = 1; j < N - 1; j++)
                o[j] = thin_classify(mu, mc, md, j - 1, j, j + 1, px[j], py[j], lo, hi);
        }
    });
}

bool make_canny(const Input& in, bool other_functions, Bench* b) {
    b->margin = 4;
    b->u8_output = true;
    float* data = in.data;
    auto* wf = canny_fused_create(in.M, in.N);
    auto* wu = canny_unfused_create(in.M, in.N);
    if (!wf || !wu) return false;
    keep_workspace(b, wf, canny_fused_destroy);
    keep_workspace(b, wu, canny_unfused_destroy);
    uint8_t* of = new_output<uint8_t>(b, in);
    uint8_t* ou = new_output<uint8_t>(b, in);
    b->variants.push_back(
        {"formac fused", [=]() { canny_fused_run(wf, data, kCannyLow, kCannyHigh, of); }, of});
    b->variants.push_back({"formac --no-fuse",
                           [=]() { canny_unfused_run(wu, data, kCannyLow, kCannyHigh, ou); }, ou});
#ifdef BENCH_FORMAC_NOERRNO
    auto* wn = canny_fused_noerrno_create(in.M, in.N);
    if (!wn) return false;
    keep_workspace(b, wn, canny_fused_noerrno_destroy);
    uint8_t* on = new_output<uint8_t>(b, in);
    b->variants.push_back(
        {kNoErrno, [=]() { canny_fused_noerrno_run(wn, data, kCannyLow, kCannyHigh, on); }, on});
#endif

    add_halide_canny(b, in, "halide manual", canny_halide_manual);
#ifdef BENCH_HALIDE_Mullapudi2016
    add_halide_canny(b, in, "halide Mullapudi2016", canny_halide_Mullapudi2016);
#endif
#ifdef BENCH_HALIDE_Adams2019
    add_halide_canny(b, in, "halide Adams2019", canny_halide_Adams2019);
#endif
#ifdef BENCH_HALIDE_Li2018
    add_halide_canny(b, in, "halide Li2018", canny_halide_Li2018);
#endif

    // OpenCV: filter2D with the 5x5 kernel / 159 (not separable, so not GaussianBlur),
    // Sobel x and y, magnitude, then NMS and the double threshold in a parallel_for_
    // loop; REFLECT_101 at every stage, as each `:mirror` in canny.idsl.
    cv::Mat src = in.mat;
    uint8_t* o = new_output<uint8_t>(b, in);
    cv::Mat dst(in.M, in.N, CV_8U, o);
    std::vector<cv::Mat> m(4);
    for (cv::Mat& x : m) x.create(in.M, in.N, CV_32F);
    cv::Mat kern = (cv::Mat_<float>(5, 5) << 2, 4, 5, 4, 2, 4, 9, 12, 9, 4, 5, 12, 15, 12, 5, 4, 9,
                    12, 9, 4, 2, 4, 5, 4, 2);
    kern /= 159.0f;
    b->variants.push_back({"opencv",
                           [=]() mutable {
                               cv::Mat &smooth = m[0], &gx = m[1], &gy = m[2], &mag = m[3];
                               const int bd = cv::BORDER_REFLECT_101;
                               cv::filter2D(src, smooth, CV_32F, kern, cv::Point(-1, -1), 0, bd);
                               cv::Sobel(smooth, gx, CV_32F, 1, 0, 3, 1, 0, bd);
                               cv::Sobel(smooth, gy, CV_32F, 0, 1, 3, 1, 0, bd);
                               cv::magnitude(gx, gy, mag);
                               cv_thin_classify(gx, gy, mag, kCannyLow, kCannyHigh, dst);
                           },
                           o});

    if (!other_functions) return true;
    // cv::Canny takes 8-bit images only, does not smooth, and includes hysteresis —
    // another function, timed for scale only (input scaled to 0..255 beforehand).
    uint8_t* o2 = new_output<uint8_t>(b, in);
    cv::Mat dst2(in.M, in.N, CV_8U, o2);
    cv::Mat in8;
    in.mat.convertTo(in8, CV_8U, 255.0);
    Variant v{"opencv Canny 8-bit (other fn)",
              [=]() mutable { cv::Canny(in8, dst2, 40, 80, 3, true); }, o2};
    v.same_function = false;
    b->variants.push_back(v);
    return true;
}

}  // namespace

bool make_bench(const std::string& pipeline, const Input& in, bool other_functions, Bench* out) {
    if (pipeline == "blur") return make_blur(in, out);
    if (pipeline == "harris") return make_harris(in, other_functions, out);
    if (pipeline == "canny") return make_canny(in, other_functions, out);
    return false;
}
