// Scans and summed-area tables (LANGUAGE.md §7) against OpenCV: the examples
// boxfilter and adaptive_threshold and variants of them with other radii
// (scan/box.idsl.in, scan/athresh.idsl.in), compiled by formac at build time
// (tests/opencv/CMakeLists.txt; fused, and --no-fuse for the examples), on random
// 8-bit images of awkward sizes (1x1, one row, one column, primes, 1024x768) and
// on a smooth picture with noise, compared with
//   box filters          cv::boxFilter(CV_64F, normalize, BORDER_CONSTANT) within
//                        1e-12 relative. The SAT form reads the table clamped at
//                        the window's corners and counts corners above or left
//                        of the picture as 0: the window clipped to the picture,
//                        divided by the whole window's area, which is exactly a
//                        zero border. (Clamped corners alone would not give
//                        BORDER_REPLICATE: a replicated border repeats edge
//                        pixels inside the window, the clipped sum drops them.)
//   adaptive_threshold   cv::adaptiveThreshold(255, ADAPTIVE_THRESH_MEAN_C,
//                        THRESH_BINARY, block, c), pixel for pixel, for blocks of
//                        3 (OpenCV's fixed-point mean), 11, 17 and 31 (its float
//                        mean) and several c, negative ones too.
// Outputs start poisoned (0xA5 bytes), so a pixel left unwritten shows.
#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "adaptive_threshold_fused.h"
#include "adaptive_threshold_unfused.h"
#include "athresh_r1.h"
#include "athresh_r15.h"
#include "athresh_r8.h"
#include "box_r1.h"
#include "box_r10.h"
#include "boxfilter_fused.h"
#include "boxfilter_unfused.h"
}

namespace {

struct Size2 {
  int rows, cols;
};
const Size2 kSizes[] = {{1, 1}, {1, 4099}, {4099, 1}, {7, 13}, {5, 5}, {257, 131}, {1024, 768}};

std::string sizeName(Size2 s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }

// Random 8-bit values, or (smooth) a gradient with a little noise, where the
// local mean is close to the pixel and the threshold's comparison is tight.
cv::Mat testImage(Size2 s, bool smooth, unsigned seed) {
  std::mt19937 rng(seed);
  cv::Mat img(s.rows, s.cols, CV_8U);
  for (int i = 0; i < s.rows; ++i)
    for (int j = 0; j < s.cols; ++j) {
      int v = smooth ? 40 + (i * 3 + j * 2) % 170 + static_cast<int>(rng() % 7) : static_cast<int>(rng() % 256);
      img.at<unsigned char>(i, j) = static_cast<unsigned char>(v);
    }
  img.at<unsigned char>(0, 0) = 200;  // never all zero
  return img;
}

// ---- box filters -------------------------------------------------------------------
using BoxFn = void (*)(unsigned char*, int, int, double*);

void checkBox(BoxFn fn, int radius, const std::string& name) {
  unsigned seed = 1;
  for (Size2 s : kSizes)
    for (bool smooth : {false, true}) {
      cv::Mat img = testImage(s, smooth, seed++), copy = img.clone(), want;
      int k = 2 * radius + 1;
      cv::boxFilter(img, want, CV_64F, cv::Size(k, k), cv::Point(-1, -1), true, cv::BORDER_CONSTANT);
      std::vector<double> got(img.total());
      std::memset(static_cast<void*>(got.data()), 0xA5, got.size() * sizeof(double));
      fn(img.data, s.rows, s.cols, got.data());
      ASSERT_EQ(cv::norm(img, copy, cv::NORM_INF), 0) << name << ": the input changed";
      for (size_t i = 0; i < got.size(); ++i) {
        double w = want.at<double>(static_cast<int>(i) / s.cols, static_cast<int>(i) % s.cols);
        ASSERT_LE(std::fabs(got[i] - w), 1e-12 * std::max(1.0, std::fabs(w)))
            << name << " " << sizeName(s) << (smooth ? " smooth" : " random") << ": pixel " << i << " is " << got[i]
            << ", boxFilter gives " << w;
      }
    }
}

TEST(BoxFilter, ExampleFused) { checkBox(boxfilter_fused, 3, "boxfilter"); }
TEST(BoxFilter, ExampleUnfused) { checkBox(boxfilter_unfused, 3, "boxfilter --no-fuse"); }
TEST(BoxFilter, Radius1) { checkBox(box_r1, 1, "box_r1"); }
TEST(BoxFilter, Radius10) { checkBox(box_r10, 10, "box_r10"); }

// ---- adaptive threshold ------------------------------------------------------------
using ThresholdFn = void (*)(unsigned char*, int, int, int, unsigned char*);

void checkThreshold(ThresholdFn fn, int radius, const std::string& name) {
  unsigned seed = 100;
  for (Size2 s : kSizes)
    for (bool smooth : {false, true})
      for (int c : {-5, 0, 2, 7}) {
        cv::Mat img = testImage(s, smooth, seed++), copy = img.clone(), want;
        cv::adaptiveThreshold(img, want, 255, cv::ADAPTIVE_THRESH_MEAN_C, cv::THRESH_BINARY, 2 * radius + 1, c);
        std::vector<unsigned char> got(img.total(), 0xA5);
        fn(img.data, c, s.rows, s.cols, got.data());
        ASSERT_EQ(cv::norm(img, copy, cv::NORM_INF), 0) << name << ": the input changed";
        size_t ones = 0;
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(int(got[i]), int(want.data[i])) << name << " " << sizeName(s) << (smooth ? " smooth" : " random")
                                                    << " c = " << c << ": pixel " << i << " = " << int(img.data[i]);
          ones += got[i] != 0;
        }
        if (s.rows * s.cols > 1000) {  // both answers occur: the test would see a constant output
          EXPECT_GT(ones, 0u) << name << " " << sizeName(s) << " c = " << c;
          EXPECT_LT(ones, got.size()) << name << " " << sizeName(s) << " c = " << c;
        }
      }
}

TEST(AdaptiveThreshold, ExampleFused) { checkThreshold(adaptive_threshold_fused, 5, "adaptive_threshold"); }
TEST(AdaptiveThreshold, ExampleUnfused) {
  checkThreshold(adaptive_threshold_unfused, 5, "adaptive_threshold --no-fuse");
}
TEST(AdaptiveThreshold, Block3) { checkThreshold(athresh_r1, 1, "athresh_r1"); }
TEST(AdaptiveThreshold, Block17) { checkThreshold(athresh_r8, 8, "athresh_r8"); }
TEST(AdaptiveThreshold, Block31) { checkThreshold(athresh_r15, 15, "athresh_r15"); }

}  // namespace
