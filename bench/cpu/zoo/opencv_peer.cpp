// bench/cpu/zoo/opencv_peer.cpp — OpenCV 4's closest calls to the zoo programs that have
// one (peer.h says the command line). Same function, up to float rounding: gauss15,
// unsharp, maxfilter, opening8, gradients, pyramid_down (cv::pyrDown is the same 5x5
// binomial, REFLECT_101), gauss8 (OpenCV rounds its fixed-point 8-bit Gaussian its own
// way), harris (bench/cpu's OpenCV chain). blur is there for scale: OpenCV reflects at the
// border where the program's border is 0.
#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <memory>

#include "peer.h"

namespace {

struct Mats {
    std::vector<cv::Mat> m;
};

// An M x N input of `type` filled as the drivers fill it.
cv::Mat input(const std::vector<long long>& p, int type) {
    cv::Mat in((int)p[0], (int)p[1], type);
    if (type == CV_32F)
        peer_fill(in.ptr<float>(), in.total());
    else
        peer_fill(in.ptr<unsigned char>(), in.total());
    return in;
}

size_t bytes(const cv::Mat& in, size_t outputs) { return in.total() * in.elemSize() * (1 + outputs); }

template <typename F>
PeerRun make(const cv::Mat& in, size_t outputs, F f) {
    auto s = std::make_shared<Mats>();
    s->m.resize(8);
    return {[in, s, f] { f(in, s->m); }, bytes(in, outputs)};
}

cv::Mat taps(std::initializer_list<float> half) {  // symmetric kernel from its centre out
    std::vector<float> h(half);
    const int r = (int)h.size() - 1;
    cv::Mat k(2 * r + 1, 1, CV_32F);
    for (int i = 0; i <= r; i++) k.at<float>(r + i) = k.at<float>(r - i) = h[i];
    return k;
}

PeerRun blur(const std::vector<long long>& p) {
    const cv::Mat k = cv::Mat(3, 1, CV_32F, cv::Scalar(1.0f / 3.0f));
    return make(input(p, CV_32F), 1, [k](const cv::Mat& in, std::vector<cv::Mat>& m) {
        cv::sepFilter2D(in, m[0], CV_32F, k, k, cv::Point(-1, -1), 0, cv::BORDER_REFLECT_101);
    });
}

PeerRun gauss15(const std::vector<long long>& p) {
    const cv::Mat k = taps({0.128296f, 0.129195f, 0.108504f, 0.075973f, 0.044368f, 0.021592f,
                            0.008764f, 0.002955f});
    return make(input(p, CV_32F), 1, [k](const cv::Mat& in, std::vector<cv::Mat>& m) {
        cv::sepFilter2D(in, m[0], CV_32F, k, k, cv::Point(-1, -1), 0, cv::BORDER_REFLECT_101);
    });
}

PeerRun unsharp(const std::vector<long long>& p) {
    const cv::Mat k = taps({0.356213f, 0.225447f, 0.081144f, 0.015302f});
    return make(input(p, CV_32F), 1, [k](const cv::Mat& in, std::vector<cv::Mat>& m) {
        cv::sepFilter2D(in, m[1], CV_32F, k, k, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE);
        cv::addWeighted(in, 4.0, m[1], -3.0, 0.0, m[0]);  // in + 3 (in - blur)
    });
}

PeerRun maxfilter(const std::vector<long long>& p) {
    const cv::Mat k = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(7, 7));
    return make(input(p, CV_32F), 1, [k](const cv::Mat& in, std::vector<cv::Mat>& m) {
        cv::dilate(in, m[0], k, cv::Point(-1, -1), 1, cv::BORDER_REPLICATE);
    });
}

PeerRun opening8(const std::vector<long long>& p) {
    const cv::Mat k = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3));
    return make(input(p, CV_8U), 1, [k](const cv::Mat& in, std::vector<cv::Mat>& m) {
        cv::morphologyEx(in, m[0], cv::MORPH_OPEN, k, cv::Point(-1, -1), 1, cv::BORDER_REPLICATE);
    });
}

PeerRun gauss8(const std::vector<long long>& p) {
    return make(input(p, CV_8U), 1, [](const cv::Mat& in, std::vector<cv::Mat>& m) {
        cv::GaussianBlur(in, m[0], cv::Size(5, 5), 0, 0, cv::BORDER_REFLECT_101);
    });
}

PeerRun gradients(const std::vector<long long>& p) {
    return make(input(p, CV_32F), 3, [](const cv::Mat& in, std::vector<cv::Mat>& m) {
        cv::Scharr(in, m[0], CV_32F, 1, 0, 1, 0, cv::BORDER_REFLECT_101);
        cv::Scharr(in, m[1], CV_32F, 0, 1, 1, 0, cv::BORDER_REFLECT_101);
        cv::multiply(m[0], m[0], m[3]);
        cv::multiply(m[1], m[1], m[4]);
        cv::add(m[3], m[4], m[2]);
    });
}

PeerRun pyramid_down(const std::vector<long long>& p) {
    const cv::Mat in = input(p, CV_32F);
    PeerRun r = make(in, 0, [](const cv::Mat& in, std::vector<cv::Mat>& m) {
        cv::pyrDown(in, m[0]);
        for (int l = 1; l < 4; l++) cv::pyrDown(m[l - 1], m[l]);
    });
    r.bytes += r.bytes * 85 / 256;  // the four levels: 1/4 + 1/16 + 1/64 + 1/256
    return r;
}

PeerRun harris(const std::vector<long long>& p) {
    return make(input(p, CV_32F), 1, [](const cv::Mat& in, std::vector<cv::Mat>& m) {
        const int b = cv::BORDER_REFLECT_101;
        cv::Sobel(in, m[1], CV_32F, 1, 0, 3, 1, 0, b);
        cv::Sobel(in, m[2], CV_32F, 0, 1, 3, 1, 0, b);
        cv::multiply(m[1], m[1], m[3]);
        cv::multiply(m[2], m[2], m[4]);
        cv::multiply(m[1], m[2], m[5]);
        cv::GaussianBlur(m[3], m[3], cv::Size(3, 3), 0, 0, b);
        cv::GaussianBlur(m[4], m[4], cv::Size(3, 3), 0, 0, b);
        cv::GaussianBlur(m[5], m[5], cv::Size(3, 3), 0, 0, b);
        m[0].create(in.size(), CV_32F);
        cv::Mat& out = m[0];
        const cv::Mat &sxx = m[3], &syy = m[4], &sxy = m[5];
        cv::parallel_for_(cv::Range(0, in.rows), [&](const cv::Range& rows) {
            for (int i = rows.start; i < rows.end; i++) {
                const float *a = sxx.ptr<float>(i), *c = syy.ptr<float>(i), *d = sxy.ptr<float>(i);
                float* o = out.ptr<float>(i);
                for (int j = 0; j < in.cols; j++) {
                    const float det = a[j] * c[j] - d[j] * d[j], tr = a[j] + c[j];
                    o[j] = det - 0.04f * tr * tr;
                }
            }
        });
    });
}

void set_threads(int t) { cv::setNumThreads(t); }

}  // namespace

int main(int argc, char** argv) {
    return peer_main(argc, argv,
                     {{"blur", blur}, {"gauss15", gauss15}, {"unsharp", unsharp},
                      {"maxfilter", maxfilter}, {"opening8", opening8}, {"gauss8", gauss8},
                      {"gradients", gradients}, {"pyramid_down", pyramid_down}, {"harris", harris}},
                     set_threads);
}
