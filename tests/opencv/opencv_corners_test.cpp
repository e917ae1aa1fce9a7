// The example corners (the strongest Harris corners: a response, its maximum, a
// threshold, a 3x3 peak test and topk) against
//   cv::goodFeaturesToTrack(img, corners, 500, quality, 0, noArray(), 3, 3, true, k)
// formac's generated C for examples/corners/corners.idsl, fused and --no-fuse
// (tests/opencv/CMakeLists.txt), on the sample photo (whole and cropped), noise,
// blurred noise, a checkerboard and tiny pictures, at several quality levels.
//
// What is compared: the set of corners. OpenCV sorts equal responses with the
// larger index first and topk puts the smaller first, so where equal responses
// straddle the 500th place the two choose different ones of them: there the test
// asks for the same number of corners with that response, and equal sets above it.
#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "camera.h"
#include "formac_image.h"

extern "C" {
#include "corners_fused.h"
#include "corners_unfused.h"
}

namespace {

using CornersFn = void (*)(unsigned char*, float, double, int, int, long long*, long long*);
constexpr int kMax = 500;

struct Picture {
  std::string what;
  cv::Mat img;  // CV_8U, continuous
};

std::vector<Picture> pictures() {
  std::vector<Picture> out;
  std::mt19937 rng(4242);
  auto noise = [&](int rows, int cols) {
    cv::Mat m(rows, cols, CV_8U);
    for (size_t i = 0; i < m.total(); ++i) m.data[i] = static_cast<unsigned char>(rng() % 256);
    return m;
  };
  cv::Mat cam = camera();
  if (!cam.empty()) {
    out.push_back({"camera.png", cam});
    const int crops[][4] = {{17, 29, 131, 67}, {250, 101, 37, 53}, {400, 0, 112, 512}, {0, 0, 3, 3}};
    for (auto& c : crops)
      out.push_back({"camera.png crop " + std::to_string(c[2]) + "x" + std::to_string(c[3]),
                     cam(cv::Rect(c[1], c[0], c[3], c[2])).clone()});
  }
  for (auto s : {std::pair{1, 1}, {1, 9}, {9, 1}, {2, 2}, {3, 3}, {4, 5}, {37, 53}, {257, 131}})
    out.push_back({"noise " + std::to_string(s.first) + "x" + std::to_string(s.second), noise(s.first, s.second)});
  {
    cv::Mat b;
    cv::GaussianBlur(noise(301, 277), b, cv::Size(9, 9), 2.5);
    out.push_back({"blurred noise 301x277", b});
  }
  {
    cv::Mat board(203, 187, CV_8U);
    for (int y = 0; y < board.rows; ++y)
      for (int x = 0; x < board.cols; ++x) board.at<unsigned char>(y, x) = ((y / 16 + x / 16) % 2) ? 230 : 20;
    out.push_back({"checkerboard 203x187", board});
  }
  out.push_back({"constant 40x40", cv::Mat(40, 40, CV_8U, cv::Scalar(77))});
  return out;
}

// Compares formac's list (the first n of best) with OpenCV's corners.
void expectSameCorners(const cv::Mat& img, const std::vector<long long>& best, long long n,
                       const std::vector<cv::Point2f>& cv, const std::string& what) {
  std::vector<long long> ours(best.begin(), best.begin() + std::min<long long>(n, kMax));
  ASSERT_EQ(ours.size(), cv.size()) << what << ": number of corners (" << n << " candidates)";
  if (ours.empty()) return;
  // OpenCV's response, to tell the corners at the cut apart.
  cv::Mat r;
  cv::cornerHarris(img, r, 3, 3, 0.04);
  auto response = [&](long long i) { return r.at<float>(static_cast<int>(i / img.cols), static_cast<int>(i % img.cols)); };
  std::vector<long long> theirs;
  for (const cv::Point2f& p : cv) theirs.push_back(static_cast<long long>(p.y) * img.cols + static_cast<long long>(p.x));
  float cut = response(theirs.back());
  std::multiset<float> cutOurs, cutTheirs;
  std::set<long long> aboveOurs, aboveTheirs;
  for (long long i : ours) (response(i) > cut ? (void)aboveOurs.insert(i) : (void)cutOurs.insert(response(i)));
  for (long long i : theirs) (response(i) > cut ? (void)aboveTheirs.insert(i) : (void)cutTheirs.insert(response(i)));
  EXPECT_EQ(aboveOurs, aboveTheirs) << what << ": corners above the last one's response " << cut;
  EXPECT_EQ(cutOurs, cutTheirs) << what << ": corners at the last one's response";
  // Where the list is not cut (fewer than 500 candidates) the sets are equal outright.
  if (n < kMax) {
    EXPECT_EQ(std::set<long long>(ours.begin(), ours.end()), std::set<long long>(theirs.begin(), theirs.end())) << what;
  }
}

class Corners : public ::testing::TestWithParam<bool> {};

TEST_P(Corners, SameSetAsGoodFeaturesToTrack) {
  CornersFn fn = GetParam() ? corners_fused : corners_unfused;
  for (const Picture& p : pictures())
    for (double quality : {0.01, 0.05, 0.3}) {
      std::string what = p.what + ", quality " + std::to_string(quality);
      std::vector<long long> best(kMax, -7);
      long long n = -7;
      cv::Mat in = p.img.clone();
      fn(in.data, 0.04f, quality, in.rows, in.cols, best.data(), &n);
      std::vector<cv::Point2f> cv;
      cv::goodFeaturesToTrack(p.img, cv, kMax, quality, 0, cv::noArray(), 3, 3, true, 0.04);
      expectSameCorners(p.img, best, n, cv, what);
    }
}

INSTANTIATE_TEST_SUITE_P(OpenCV, Corners, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "fused" : "unfused"; });

}  // namespace
