// ImageIO: image files <-> images in a program's C layout, for `formac run`.
//
// Takes a file path and an image input's element type and rank; returns the
// pixels converted to that type (and back for outputs). The mapping, also in
// README.md ("Using it"):
//   element type   8-bit file    16-bit file     PFM            -> 8-bit (16-bit) file / PFM
//   int8           as stored     /257, rounded   x255, rounded  as is (x257)    / /255
//   uint16         as stored     as stored       rounded        always 16-bit, as is / as is
//   int16          as stored     as stored; an error above 32767  rounded  clamped 0..255 (0..65535) / as is
//   int, int64     as stored     as stored       rounded        clamped 0..255 (0..65535) / as is
//   float, double  /255 -> 0..1  /65535 -> 0..1  as stored      x255 (x65535), rounded, clamped / as is
// Rounding is half away from zero; conversions to integers saturate; NaN
// becomes 0. A scalar element type takes one channel (gray), a struct of three
// fields takes RGB (fields in order). A rank-2 image [H, W] is a picture H rows
// high; a rank-1 image takes the pixels row after row.
#pragma once

#include <string>
#include <vector>

#include "ir/Types.h"

namespace formac::run {

// An image in C layout: row-major, the last dimension contiguous, structs
// with natural alignment (what generated code and the evaluator take).
struct HostImage {
  Type type;
  std::vector<long long> extent;
  std::vector<unsigned char> bytes;
};

// How a file stores its samples.
enum class SampleFormat { U8, U16, F32 };

struct InputFile {
  HostImage image;
  SampleFormat format = SampleFormat::U8;
  int width = 0, height = 0;
};

// Reads `path` for image input `inputName` (element type `type`, rank 1 or
// 2). Throws UserError for an unreadable file or a wrong channel count.
InputFile readInputImage(const std::string& path, const std::string& inputName, const Type& type,
                         int rank);

// Writes `img` (rank 1 or 2) to `path`: PNG/PGM/PPM with 8- or 16-bit
// samples (`depth` U8 or U16), PFM as floats, by the extension. Throws
// UserError when it cannot.
void writeOutputImage(const std::string& path, const std::string& outputName, const HostImage& img,
                      SampleFormat depth);

// Fails early, before any compiling, when `path` cannot be written: an
// unknown extension, or a folder that does not exist or is not writable.
void checkOutputPath(const std::string& path);

// 1 for a scalar element type, 3 for a struct of three fields; throws
// UserError (naming `imageName`) for any other struct.
int channelsOf(const Type& type, const std::string& imageName);

// "512x384" (width x height) for a rank-2 extent [384, 512]; "N" for rank 1.
std::string describeExtent(const std::vector<long long>& extent);

}  // namespace formac::run
