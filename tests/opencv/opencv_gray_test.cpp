// formac run's --gray (compiler/run/Samples.h rgbToGray, through
// run::readInputImage) against OpenCV's cvtColor(COLOR_RGB2GRAY) itself: 8- and
// 16-bit samples bit for bit, float within 4 units in the last place (OpenCV's
// vectorised float path fuses the multiply-adds; formac sums left to right).
#include <gtest/gtest.h>

#include <cmath>
#include <opencv2/imgproc.hpp>
#include <cstring>
#include <random>

#include "formac_image.h"
#include "run/ImageIO.h"
#include "run/Samples.h"

namespace {

template <typename T>
cv::Mat randomRgb(int depth, unsigned seed) {
  cv::Mat m(37, 53, CV_MAKETYPE(depth, 3));
  std::mt19937 rng(seed);
  for (size_t i = 0; i < m.total() * 3; ++i) {
    T v = std::is_floating_point<T>::value ? static_cast<T>(rng() % 100000) / static_cast<T>(99999)
                                           : static_cast<T>(rng());
    reinterpret_cast<T*>(m.data)[i] = v;
  }
  return m;
}

template <typename T>
void expectGrayMatches(int depth, formac_pixel_type type, unsigned seed) {
  cv::Mat rgb = randomRgb<T>(depth, seed), want, got(rgb.rows, rgb.cols, CV_MAKETYPE(depth, 1));
  cv::cvtColor(rgb, want, cv::COLOR_RGB2GRAY);
  formac::run::rgbToGray(type, rgb.data, 3, rgb.total(), got.data);
  for (size_t i = 0; i < rgb.total(); ++i) {
    T a = reinterpret_cast<T*>(got.data)[i], b = reinterpret_cast<T*>(want.data)[i];
    if (std::is_floating_point<T>::value) {
      EXPECT_LE(std::fabs(static_cast<double>(a) - b), 4.0 * (std::nextafter(static_cast<float>(b), 2.0f) - b)) << i;
    } else {
      ASSERT_EQ(a, b) << i;
    }
  }
}

TEST(OpenCvGray, EightBit) { expectGrayMatches<unsigned char>(CV_8U, FORMAC_U8, 1); }
TEST(OpenCvGray, SixteenBit) { expectGrayMatches<unsigned short>(CV_16U, FORMAC_U16, 2); }
TEST(OpenCvGray, Float) { expectGrayMatches<float>(CV_32F, FORMAC_F32, 3); }

// End to end: an RGB PNG read for a gray int8 input with --gray.
TEST(OpenCvGray, ThroughReadInputImage) {
  cv::Mat rgb = randomRgb<unsigned char>(CV_8U, 4), want;
  cv::cvtColor(rgb, want, cv::COLOR_RGB2GRAY);
  formac_image img{rgb.cols, rgb.rows, 3, FORMAC_U8, rgb.data, 1};
  char err[256];
  std::string path = ::testing::TempDir() + "/opencv_gray.png";
  ASSERT_EQ(formac_image_write(path.c_str(), &img, err, sizeof err), 0) << err;
  formac::run::HostImage g =
      formac::run::readInputImage(path, "in", formac::Type::of(formac::ScalarKind::Int8), 2, true).image;
  ASSERT_EQ(g.bytes.size(), want.total());
  EXPECT_EQ(std::memcmp(g.bytes.data(), want.data, want.total()), 0);
}

}  // namespace
