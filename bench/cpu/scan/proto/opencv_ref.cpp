// OpenCV's integral on the harness's buffers (M x N input, (M+1) x (N+1) output).
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
extern "C" void cv_threads(int t) { cv::setNumThreads(t); }
extern "C" void cv_integral_u8_32s(const unsigned char* in, int* out, int M, int N) {
    cv::Mat src(M, N, CV_8U, (void*)in), dst(M + 1, N + 1, CV_32S, out);
    cv::integral(src, dst, CV_32S);
}
extern "C" void cv_integral_u8_64f(const unsigned char* in, double* out, int M, int N) {
    cv::Mat src(M, N, CV_8U, (void*)in), dst(M + 1, N + 1, CV_64F, out);
    cv::integral(src, dst, CV_64F);
}
extern "C" void cv_integral_f32_64f(const float* in, double* out, int M, int N) {
    cv::Mat src(M, N, CV_32F, (void*)in), dst(M + 1, N + 1, CV_64F, out);
    cv::integral(src, dst, CV_64F);
}
extern "C" void cv_box_f32(const float* in, float* out, int M, int N, int r) {
    cv::Mat src(M, N, CV_32F, (void*)in), dst(M, N, CV_32F, out);
    cv::boxFilter(src, dst, CV_32F, cv::Size(2 * r + 1, 2 * r + 1), cv::Point(-1, -1), true, cv::BORDER_CONSTANT);
}
