// Samples: converting strided runs of samples between C types, and RGB to
// gray, for ImageIO.
//
// A value v read from `from` becomes v * mul / div (in double), then, for an
// integer `to`, is rounded half away from zero and saturated to its range
// (NaN becomes 0); a floating `to` takes it as C's conversion does.
#pragma once

#include <cstddef>

#include "formac_image.h"

namespace formac::run {

struct Scale {
  double mul = 1, div = 1;
};

// A run of n samples: the i-th at data + i * stride bytes.
struct SampleSource {
  formac_pixel_type type;
  const unsigned char* data;
  size_t stride;
};
struct SampleTarget {
  formac_pixel_type type;
  unsigned char* data;
  size_t stride;
};

void convertSamples(const SampleSource& from, const SampleTarget& to, size_t n, Scale s);

// `pixels` pixels of `channels` (3 or 4; a fourth, alpha, is ignored)
// interleaved samples of `type` -> one gray sample each, in `gray`, as
// OpenCV's cvtColor(RGB2GRAY): U8 and U16 in fixed point,
// (9798 R + 19235 G + 3735 B + 16384) >> 15; other types in float,
// 0.299f R + 0.587f G + 0.114f B (summed in that order; F64 in double).
void rgbToGray(formac_pixel_type type, const unsigned char* rgb, int channels, size_t pixels,
               unsigned char* gray);

}  // namespace formac::run
