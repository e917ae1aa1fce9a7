// The examples equalize and otsu (histogram + scan + lookup) against OpenCV:
// formac's generated C for examples/equalize/equalize.idsl and
// examples/otsu/otsu.idsl, fused and --no-fuse (tests/opencv/CMakeLists.txt),
// called on pictures of many kinds and sizes and compared exactly with
//   equalize   cv::equalizeHist(src, dst)                                  every pixel
//   otsu       cv::threshold(src, dst, 0, 255, THRESH_BINARY | THRESH_OTSU)
//              the returned threshold and every pixel
// The pictures: examples/data/camera.png (whole, crops of awkward sizes, and its
// values quantised to a few levels), uniform noise, constant pictures, two values in
// any proportion (one pixel of the other value included), a few grey levels, a
// narrow range, two Gaussian modes; sizes 1x1, 1x2, 2x1, 1xN, Nx1 and primes.
// Outputs start poisoned (0xA5 bytes), so a result left unwritten shows.
#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "camera.h"
#include "formac_image.h"

extern "C" {
#include "equalize_fused.h"
#include "equalize_unfused.h"
#include "otsu_fused.h"
#include "otsu_unfused.h"
}

namespace {

using EqualizeFn = void (*)(unsigned char*, int, int, unsigned char*);
using OtsuFn = void (*)(unsigned char*, int, int, unsigned char*, long long*);

struct Picture {
  std::string what;
  cv::Mat img;  // CV_8U, continuous
};

std::string sizeName(int rows, int cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

// Every kind of picture at every size; the seed is fixed.
std::vector<Picture> pictures() {
  std::vector<Picture> out;
  std::mt19937 rng(2701);
  auto add = [&](const std::string& what, cv::Mat m) { out.push_back({what, m}); };
  auto make = [&](int rows, int cols, const std::function<int(int)>& value) {
    cv::Mat m(rows, cols, CV_8U);
    for (int i = 0; i < rows * cols; ++i) m.data[i] = static_cast<unsigned char>(value(i));
    return m;
  };

  cv::Mat cam = camera();
  if (!cam.empty()) {
    add("camera.png", cam);
    const int crops[][4] = {{0, 0, 1, 1}, {100, 3, 1, 509}, {3, 300, 211, 1}, {17, 29, 131, 67},
                            {250, 101, 37, 53}, {400, 0, 112, 512}};
    for (auto& c : crops)
      add("camera.png rows " + std::to_string(c[0]) + "+" + std::to_string(c[2]) + ", cols " +
              std::to_string(c[1]) + "+" + std::to_string(c[3]),
          cam(cv::Rect(c[1], c[0], c[3], c[2])).clone());
    for (int step : {2, 37, 64, 128}) {
      cv::Mat q = cam.clone();
      for (size_t i = 0; i < q.total(); ++i) q.data[i] = static_cast<unsigned char>(q.data[i] / step * step);
      add("camera.png quantised to multiples of " + std::to_string(step), q);
    }
  }

  // Each value of a range once (KnownValues' 0..6: the roundings at .5), and all 256.
  add("0..6 once each", make(1, 7, [&](int i) { return i; }));
  add("0..255 once each", make(16, 16, [&](int i) { return i; }));

  const int sizes[][2] = {{1, 1}, {1, 2}, {2, 1}, {1, 4099}, {1031, 1}, {7, 13}, {37, 53}, {131, 67}, {257, 131}};
  for (auto& s : sizes) {
    int rows = s[0], cols = s[1];
    std::string at = " " + sizeName(rows, cols);
    add("noise" + at, make(rows, cols, [&](int) { return rng() % 256; }));
    for (int c : {0, 255, int(rng() % 256)})
      add("constant " + std::to_string(c) + at, make(rows, cols, [&](int) { return c; }));
    for (int trial = 0; trial < 3; ++trial) {
      int a = rng() % 256, b = rng() % 256;
      unsigned share = rng() % 1001;  // per mille of a
      add("two values " + std::to_string(a) + ", " + std::to_string(b) + at,
          make(rows, cols, [&](int) { return rng() % 1000 < share ? a : b; }));
    }
    {
      int a = rng() % 256, b = rng() % 256, one = rng() % (rows * cols);
      add("all " + std::to_string(a) + " but one " + std::to_string(b) + at,
          make(rows, cols, [&](int i) { return i == one ? b : a; }));
    }
    for (int k : {3, 5}) {
      std::vector<int> level(k);
      for (int& l : level) l = rng() % 256;
      add(std::to_string(k) + " grey levels" + at, make(rows, cols, [&](int) { return level[rng() % k]; }));
    }
    {
      int lo = rng() % 240, w = 1 + rng() % 15;
      add("values " + std::to_string(lo) + ".." + std::to_string(lo + w) + at,
          make(rows, cols, [&](int) { return lo + rng() % (w + 1); }));
    }
    {
      double m1 = rng() % 128, m2 = 128 + rng() % 128, s1 = 3 + rng() % 30, s2 = 3 + rng() % 30;
      std::normal_distribution<double> g1(m1, s1), g2(m2, s2);
      unsigned share = 100 + rng() % 800;
      add("two modes" + at, make(rows, cols, [&](int) {
            double v = rng() % 1000 < share ? g1(rng) : g2(rng);
            return v < 0 ? 0 : v > 255 ? 255 : int(v);
          }));
    }
  }
  // Over 1 / FLT_EPSILON (8.4e6) pixels a bin of one pixel has a share below
  // FLT_EPSILON, and OpenCV's Otsu skips such leading and trailing thresholds: two
  // broad modes with a few pixels at both ends, 4099x4099; and over 2^24 pixels,
  // where the counts equalisation converts to float are rounded.
  {
    cv::Mat big(4099, 4099, CV_8U);
    for (size_t i = 0; i < big.total(); ++i) {
      unsigned r = rng();
      big.data[i] = static_cast<unsigned char>((r & 1 ? 40 : 140) + (r >> 8) % 40 + (r >> 16) % 40);
    }
    for (int k = 0; k < 3; ++k) big.data[rng() % big.total()] = static_cast<unsigned char>(k);
    for (int k = 0; k < 3; ++k) big.data[rng() % big.total()] = static_cast<unsigned char>(253 + k);
    add("two modes and 6 outliers 4099x4099", big);
  }
  return out;
}

const std::vector<Picture>& allPictures() {
  static const std::vector<Picture> p = pictures();
  return p;
}

void checkEqualize(EqualizeFn fn) {
  ASSERT_EQ(allPictures().size(), 122u);  // 11 from camera.png, 2 ramps, 12 kinds at 9 sizes, 1 large
  for (const Picture& p : allPictures()) {
    cv::Mat want, got(p.img.rows, p.img.cols, CV_8U);
    cv::equalizeHist(p.img, want);
    std::memset(got.data, 0xA5, got.total());
    fn(p.img.data, p.img.rows, p.img.cols, got.data);
    if (std::memcmp(got.data, want.data, got.total()) == 0) continue;
    for (size_t i = 0; i < p.img.total(); ++i)
      ASSERT_EQ(int(got.data[i]), int(want.data[i])) << p.what << ": pixel " << i << " (value "
                                                     << int(p.img.data[i]) << ")";
  }
}

void checkOtsu(OtsuFn fn) {
  ASSERT_EQ(allPictures().size(), 122u);  // 11 from camera.png, 2 ramps, 12 kinds at 9 sizes, 1 large
  for (const Picture& p : allPictures()) {
    cv::Mat want, got(p.img.rows, p.img.cols, CV_8U);
    double t = cv::threshold(p.img, want, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
    std::memset(got.data, 0xA5, got.total());
    long long gotT;
    std::memset(&gotT, 0xA5, sizeof gotT);
    fn(p.img.data, p.img.rows, p.img.cols, got.data, &gotT);
    ASSERT_EQ(gotT, (long long)t) << p.what;
    if (std::memcmp(got.data, want.data, got.total()) == 0) continue;
    for (size_t i = 0; i < p.img.total(); ++i)
      ASSERT_EQ(int(got.data[i]), int(want.data[i])) << p.what << ": pixel " << i << " (value "
                                                     << int(p.img.data[i]) << ", threshold " << t << ")";
  }
}

// What the pictures exercise, so that a change to pictures() cannot quietly
// drop a case: OpenCV's thresholds and the equalised value of a middle grey.
TEST(HistExamples, KnownValues) {
  cv::Mat two(3, 5, CV_8U, cv::Scalar(40));
  two.at<unsigned char>(1, 2) = 200;
  two.at<unsigned char>(2, 4) = 200;
  long long t = -1;
  cv::Mat got(3, 5, CV_8U);
  otsu_fused(two.data, 3, 5, got.data, &t);
  EXPECT_EQ(t, 40);  // the first of the equal thresholds 40..199
  EXPECT_EQ(int(got.at<unsigned char>(1, 2)), 255);
  EXPECT_EQ(int(got.at<unsigned char>(0, 0)), 0);
  cv::Mat flat(4, 4, CV_8U, cv::Scalar(77)), flatOut(4, 4, CV_8U);
  otsu_fused(flat.data, 4, 4, flatOut.data, &t);
  EXPECT_EQ(t, 0);  // no threshold splits one value: OpenCV's 0
  EXPECT_EQ(int(flatOut.at<unsigned char>(3, 3)), 255);
  equalize_fused(flat.data, 4, 4, flatOut.data);
  EXPECT_EQ(int(flatOut.at<unsigned char>(3, 3)), 77);  // one value: left as it is
  // 0..6: 6 pixels above the darkest, scale 42.5; 1, 3, 5 pixels give 42.5,
  // 127.5, 212.5, rounded half to even (cvRound): 42, 128, 212
  cv::Mat seven = (cv::Mat_<unsigned char>(1, 7) << 0, 1, 2, 3, 4, 5, 6);
  cv::Mat sevenOut(1, 7, CV_8U);
  equalize_fused(seven.data, 1, 7, sevenOut.data);
  const int want[7] = {0, 42, 85, 128, 170, 212, 255};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(int(sevenOut.data[i]), want[i]) << "value " << i;
}

TEST(Equalize, Fused) { checkEqualize(equalize_fused); }
TEST(Equalize, Unfused) { checkEqualize(equalize_unfused); }
TEST(Otsu, Fused) { checkOtsu(otsu_fused); }
TEST(Otsu, Unfused) { checkOtsu(otsu_unfused); }

}  // namespace
