// `do` loops against references (LANGUAGE.md §7; README.md here, "Loops"):
//
//   examples/canny/canny_opencv.idsl   cv::Canny(img, edges, low, high) (aperture 3, L1),
//                                      byte for byte: the sample photo, noise, smoothed
//                                      noise, a spiral whose weak edge needs thousands of
//                                      rounds, and sizes down to 1x1, 1xN and Nx1
//   examples/fillholes/fillholes.idsl  a flood fill from outside the image through the
//                                      4-connected background (0/255 images), and on
//                                      gray images the sequential reconstruction of
//                                      Vincent (1993): raster and anti-raster sweeps
//                                      until nothing changes
//
// Each program is formac's C, fused and --no-fuse (tests/opencv/CMakeLists.txt).
// Outputs start poisoned (0xA5), so a point left unwritten shows.
#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "canny_opencv_fused.h"
#include "canny_opencv_unfused.h"
#include "fillholes_fused.h"
#include "fillholes_unfused.h"
#include "camera.h"
#include "formac_image.h"
}

namespace {

using Canny = void (*)(unsigned char*, double, double, int, int, int, unsigned char*);
using Fill = void (*)(unsigned char*, int, int, int, unsigned char*);

struct Variant {
  const char* name;
  Canny canny;
  Fill fill;
};
const Variant kVariants[] = {{"fused", canny_opencv_fused, fillholes_fused},
                             {"unfused", canny_opencv_unfused, fillholes_unfused}};

// Enough rounds for any image: a chain can be no longer than the image.
int allRounds(const cv::Mat& img) { return img.rows * img.cols + 1; }

cv::Mat runCanny(Canny f, const cv::Mat& img, double low, double high, int rounds) {
  cv::Mat out(img.rows, img.cols, CV_8U, cv::Scalar(0xA5));
  cv::Mat in = img.clone();
  f(in.ptr(), low, high, img.rows, img.cols, rounds, out.ptr());
  return out;
}

// The first differing point, for the failure message.
std::string firstDifference(const cv::Mat& a, const cv::Mat& b) {
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < a.cols; ++j)
      if (a.at<uchar>(i, j) != b.at<uchar>(i, j))
        return "(" + std::to_string(i) + "," + std::to_string(j) + "): " + std::to_string(a.at<uchar>(i, j)) +
               " vs " + std::to_string(b.at<uchar>(i, j));
  return "none";
}

void expectCannyLikeOpenCV(const cv::Mat& img, double low, double high, const std::string& what) {
  cv::Mat want;
  cv::Canny(img, want, low, high, 3, false);
  for (const Variant& v : kVariants) {
    cv::Mat got = runCanny(v.canny, img, low, high, allRounds(img));
    EXPECT_EQ(cv::countNonZero(got != want), 0)
        << what << " " << img.rows << "x" << img.cols << ", low " << low << ", high " << high << " (" << v.name
        << "): " << cv::countNonZero(got != want) << " points differ, the first at " << firstDifference(got, want)
        << " (formac vs OpenCV); OpenCV has " << cv::countNonZero(want) << " edge points";
  }
}

cv::Mat noise(int rows, int cols, unsigned seed) {
  cv::Mat m(rows, cols, CV_8U);
  std::mt19937 rng(seed);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m.at<uchar>(i, j) = static_cast<uchar>(rng() & 255);
  return m;
}

// Noise blurred into blobs: long, winding edges of every direction.
cv::Mat blobs(int rows, int cols, unsigned seed) {
  cv::Mat m = noise(rows, cols, seed), b;
  cv::GaussianBlur(m, b, cv::Size(0, 0), 3.0, 3.0, cv::BORDER_REFLECT_101);
  cv::normalize(b, m, 0, 255, cv::NORM_MINMAX);
  return m;
}

// A square spiral of a 1-pixel line, dim (60 on 10) but for its last 20 points (200):
// with `high` above every edge strength of the dim part (corners included) and `low`
// below it, the strong edges are at the bright end only, and the spiral's edge is
// reached by hysteresis one point a round, along thousands of points.
cv::Mat spiral(int n, int* length) {
  cv::Mat m(n, n, CV_8U, cv::Scalar(10));
  // Arms right, down, left, up, ... of lengths a, a, a, a-4, a-4, a-8, a-8, ...:
  // 4 pixels between neighbouring arms.
  std::vector<cv::Point> path = {{2, 2}};
  const int dx[] = {1, 0, -1, 0}, dy[] = {0, 1, 0, -1};
  int len = n - 5;
  for (int arm = 0; len > 0; ++arm) {
    for (int k = 0; k < len; ++k) path.push_back(path.back() + cv::Point(dx[arm % 4], dy[arm % 4]));
    if (arm >= 2 && arm % 2 == 0) len -= 4;
  }
  size_t k = 0;
  for (const cv::Point& p : path) m.at<uchar>(p) = static_cast<uchar>(k++ + 20 < path.size() ? 60 : 200);
  *length = static_cast<int>(path.size());
  return m;
}

TEST(Canny, MatchesOpenCVOnThePhoto) {
  cv::Mat img = camera();
  ASSERT_FALSE(img.empty());
  for (auto [low, high] : {std::pair{50.0, 150.0}, {100.0, 200.0}, {20.7, 80.2}, {150.0, 50.0}, {0.0, 0.0},
                           {-5.0, 30.0}, {300.0, 1000.0}, {90.0, 90.0}})
    expectCannyLikeOpenCV(img, low, high, "camera");
}

TEST(Canny, MatchesOpenCVOnNoiseAndBlobs) {
  for (auto [rows, cols] : {std::pair{257, 131}, {64, 64}, {31, 17}}) {
    cv::Mat n = noise(rows, cols, static_cast<unsigned>(rows * 1000 + cols));
    for (auto [low, high] : {std::pair{200.0, 600.0}, {400.0, 900.0}, {1000.0, 1100.0}})
      expectCannyLikeOpenCV(n, low, high, "noise");
    cv::Mat b = blobs(rows, cols, static_cast<unsigned>(rows + cols));
    for (auto [low, high] : {std::pair{10.0, 60.0}, {5.0, 120.0}, {30.5, 31.5}})
      expectCannyLikeOpenCV(b, low, high, "blobs");
  }
}

TEST(Canny, MatchesOpenCVOnTinyAndThinImages) {
  for (auto [rows, cols] : {std::pair{1, 1}, {1, 2}, {2, 1}, {2, 2}, {3, 3}, {1, 37}, {37, 1}, {2, 45}, {5, 3}}) {
    cv::Mat n = noise(rows, cols, static_cast<unsigned>(7 * rows + cols));
    for (auto [low, high] : {std::pair{20.0, 100.0}, {200.0, 400.0}, {0.0, 1.0}})
      expectCannyLikeOpenCV(n, low, high, "noise");
  }
}

TEST(Canny, HysteresisFollowsASpiralToItsEnd) {
  int length = 0;
  cv::Mat img = spiral(96, &length);
  ASSERT_GT(length, 2000);
  const double low = 100, high = 500;
  cv::Mat want;
  cv::Canny(img, want, low, high, 3, false);
  // Hysteresis matters here: the strong points alone are a small part of the edges.
  cv::Mat strongOnly;
  cv::Canny(img, strongOnly, high - 1, high, 3, false);
  ASSERT_GT(cv::countNonZero(strongOnly), 0);
  ASSERT_GT(cv::countNonZero(want), 20 * cv::countNonZero(strongOnly));
  expectCannyLikeOpenCV(img, low, high, "spiral");
  for (const Variant& v : kVariants) {
    // No round at all: the strong points only.
    cv::Mat none = runCanny(v.canny, img, low, high, 0);
    EXPECT_GT(cv::countNonZero(none), 0) << v.name;
    EXPECT_EQ(cv::countNonZero(none & ~strongOnly), 0) << v.name;
    // Capped at 50 rounds the fill has covered a stretch of the spiral only: at most
    // 2 points a round on each side of the strong ones.
    cv::Mat capped = runCanny(v.canny, img, low, high, 50);
    int n = cv::countNonZero(capped);
    EXPECT_GT(n, cv::countNonZero(none) + 50) << v.name;
    EXPECT_LT(n, cv::countNonZero(none) + 4 * 50) << v.name;
    EXPECT_EQ(cv::countNonZero(capped & ~want), 0) << v.name << ": capped edges are a subset of the full ones";
    // Capped at 1000 rounds, still short of the far end: the chain is longer.
    cv::Mat longer = runCanny(v.canny, img, low, high, 1000);
    EXPECT_GT(cv::countNonZero(longer), n + 900) << v.name;
    EXPECT_GT(cv::countNonZero(longer != want), 0) << v.name;
  }
}

// ---- fill holes ----

cv::Mat runFill(Fill f, const cv::Mat& img, int rounds) {
  cv::Mat out(img.rows, img.cols, CV_8U, cv::Scalar(0xA5));
  cv::Mat in = img.clone();
  f(in.ptr(), img.rows, img.cols, rounds, out.ptr());
  return out;
}

// 0/255 images: 255 where the image is, and where its 0 points are cut off from
// outside the image (4-connected flood fill from the border through 0 points).
cv::Mat floodFillHoles(const cv::Mat& img) {
  cv::Mat outside(img.rows, img.cols, CV_8U, cv::Scalar(0));
  std::vector<cv::Point> stack;
  auto push = [&](int i, int j) {
    if (i < 0 || j < 0 || i >= img.rows || j >= img.cols) return;
    if (img.at<uchar>(i, j) != 0 || outside.at<uchar>(i, j)) return;
    outside.at<uchar>(i, j) = 1;
    stack.push_back({j, i});
  };
  for (int i = 0; i < img.rows; ++i) push(i, 0), push(i, img.cols - 1);
  for (int j = 0; j < img.cols; ++j) push(0, j), push(img.rows - 1, j);
  while (!stack.empty()) {
    cv::Point p = stack.back();
    stack.pop_back();
    push(p.y - 1, p.x), push(p.y + 1, p.x), push(p.y, p.x - 1), push(p.y, p.x + 1);
  }
  cv::Mat filled(img.rows, img.cols, CV_8U);
  for (int i = 0; i < img.rows; ++i)
    for (int j = 0; j < img.cols; ++j) filled.at<uchar>(i, j) = outside.at<uchar>(i, j) ? 0 : 255;
  return filled;
}

// Gray images: the complement's reconstruction by dilation from 255 outside the
// image, by Vincent's sequential sweeps (each point takes the max of itself and its
// already-swept 4-neighbours, capped by the mask) until a pair of sweeps changes
// nothing; the result is its complement.
cv::Mat sweepFillHoles(const cv::Mat& img) {
  const int rows = img.rows, cols = img.cols;
  std::vector<int> mask(rows * cols), r(rows * cols, 0);
  for (int k = 0; k < rows * cols; ++k) mask[k] = 255 - img.data[k];
  auto at = [&](int i, int j) { return i < 0 || j < 0 || i >= rows || j >= cols ? 255 : r[i * cols + j]; };
  for (bool changed = true; changed;) {
    changed = false;
    auto visit = [&](int i, int j, int di, int dj) {
      int v = std::min(std::max({r[i * cols + j], at(i - di, j), at(i, j - dj), at(i + di, j), at(i, j + dj)}),
                       mask[i * cols + j]);
      if (v != r[i * cols + j]) r[i * cols + j] = v, changed = true;
    };
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) visit(i, j, 1, 1);
    for (int i = rows - 1; i >= 0; --i)
      for (int j = cols - 1; j >= 0; --j) visit(i, j, -1, -1);
  }
  cv::Mat filled(rows, cols, CV_8U);
  for (int k = 0; k < rows * cols; ++k) filled.data[k] = static_cast<uchar>(255 - r[k]);
  return filled;
}

// Random 0/255 pictures: blobs thresholded, so that rings and enclosed regions of
// every shape occur.
cv::Mat binaryBlobs(int rows, int cols, unsigned seed, int level) {
  cv::Mat b = blobs(rows, cols, seed), m;
  cv::threshold(b, m, level, 255, cv::THRESH_BINARY);
  return m;
}

void expectFill(const cv::Mat& img, const cv::Mat& want, const std::string& what) {
  for (const Variant& v : kVariants) {
    cv::Mat got = runFill(v.fill, img, allRounds(img));
    EXPECT_EQ(cv::countNonZero(got != want), 0) << what << " " << img.rows << "x" << img.cols << " (" << v.name
                                                << "): first difference at " << firstDifference(got, want);
  }
}

TEST(FillHoles, BinaryLikeAFloodFill) {
  for (auto [rows, cols] : {std::pair{1, 1}, {1, 9}, {9, 1}, {3, 3}, {64, 64}, {131, 257}}) {
    for (int level : {90, 128, 160}) {
      cv::Mat img = binaryBlobs(rows, cols, static_cast<unsigned>(rows * cols + level), level);
      cv::Mat want = floodFillHoles(img);
      expectFill(img, want, "blobs above " + std::to_string(level));
    }
  }
  // A ring with a 3x3 hole, a ring open to the outside, and a diamond of diagonal
  // steps: closed for the 4-connected background, its 13 inner points a hole.
  cv::Mat img(9, 20, CV_8U, cv::Scalar(0));
  cv::rectangle(img, cv::Rect(1, 1, 5, 5), cv::Scalar(255));  // closed: 3x3 hole
  cv::rectangle(img, cv::Rect(8, 1, 5, 5), cv::Scalar(255));
  img.at<uchar>(3, 12) = 0;                                    // open on the right
  for (int i = 0; i < img.rows; ++i)
    for (int j = 0; j < img.cols; ++j)
      if (std::abs(i - 4) + std::abs(j - 16) == 3) img.at<uchar>(i, j) = 255;
  cv::Mat want = floodFillHoles(img);
  EXPECT_EQ(cv::countNonZero(want) - cv::countNonZero(img), 9 + 13) << "the 3x3 hole and the diamond's inside";
  expectFill(img, want, "rings");
}

TEST(FillHoles, GrayLikeSequentialReconstruction) {
  for (auto [rows, cols] : {std::pair{2, 3}, {47, 29}, {128, 96}}) {
    cv::Mat img = blobs(rows, cols, static_cast<unsigned>(rows + 3 * cols));
    expectFill(img, sweepFillHoles(img), "gray blobs");
  }
  cv::Mat img = camera();
  ASSERT_FALSE(img.empty());
  cv::Mat want = sweepFillHoles(img);
  EXPECT_GT(cv::countNonZero(want != img), 1000) << "the photo has holes to fill";
  expectFill(img, want, "camera");
}

}  // namespace
