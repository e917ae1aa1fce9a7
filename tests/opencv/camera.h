// The sample photo examples/data/camera.png as an 8-bit gray cv::Mat (a test
// failure, and an empty Mat, when it cannot be read or is not 8-bit gray).
// FORMAC_CAMERA_PNG is its path (tests/opencv/CMakeLists.txt).
#pragma once

#include <gtest/gtest.h>

#include <opencv2/core.hpp>

#include "formac_image.h"

inline cv::Mat camera() {
  formac_image img;
  char err[256] = "";
  if (formac_image_read(FORMAC_CAMERA_PNG, &img, err, sizeof err) != 0) {
    ADD_FAILURE() << FORMAC_CAMERA_PNG << ": " << err;
    return cv::Mat();
  }
  cv::Mat m;
  if (img.type == FORMAC_U8 && img.channels == 1) m = cv::Mat(img.height, img.width, CV_8U, img.data).clone();
  formac_image_free(&img);
  EXPECT_FALSE(m.empty()) << FORMAC_CAMERA_PNG << " is not 8-bit gray";
  return m;
}
