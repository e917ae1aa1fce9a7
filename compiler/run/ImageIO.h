// ImageIO: image files <-> images in a program's C layout, for `formac run`.
//
// Takes a file path and an image input's element type and rank; returns the
// pixels converted to that type (and back for outputs). The mapping, also in
// README.md ("Using it"):
//   element type   8-bit file    16-bit file     float file     -> 8-bit (16-bit) file / float file
//   int8           as stored     /257, rounded   x255, rounded  as is (x257)    / /255
//   uint16         as stored     as stored       rounded        always 16-bit, as is / as is
//   int16          as stored     as stored; an error above 32767  rounded  clamped 0..255 (0..65535) / as is
//   int, int64     as stored     as stored       rounded        clamped 0..255 (0..65535) / as is
//   float, double  /255 -> 0..1  /65535 -> 0..1  as stored      x255 (x65535), rounded, clamped / as is
// 8-bit: PNG, JPEG, TIFF, PGM/PPM; 16-bit: PNG, TIFF, PGM/PPM; float: PFM and
// 32-bit float TIFF. A .npy file holds exact values both ways (as stored,
// rounded and saturated into an integer type; written in the element's own
// dtype). Rounding is half away from zero; conversions to integers
// saturate; NaN becomes 0.
//
// Channels: a scalar element type takes 1 (gray), a struct of 2 fields gray
// and alpha, of 3 fields RGB, of 4 fields RGBA (fields in order); a file
// with alpha given to an input without it loses the alpha, and `gray`
// converts an RGB(A) file for a scalar input (Samples.h has the formula). A
// .npy file's channels are its last axis (shape = extent + [fields]) for a
// struct type, none for a scalar one.
// Shape: a picture is 2-D [H, W] (H rows high), a multi-page TIFF 3-D
// [pages, H, W], a .npy file its shape. Leading extents of 1 are dropped or
// added to meet the input's rank (a picture one row high is 1-D; a picture
// is a volume of one page); any other mismatch is an error.
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

// How a picture file stores its samples (a .npy file: as 8-bit unless it
// holds u2 (U16) or f4/f8 (F32) values).
enum class SampleFormat { U8, U16, F32 };

struct InputFile {
  HostImage image;
  SampleFormat format = SampleFormat::U8;
};

// Reads `path` for image input `inputName` (element type `type`, rank 1 to
// 4); `gray` converts RGB(A) pictures for a scalar type. Throws UserError
// for an unreadable file or one whose channels or shape do not fit.
InputFile readInputImage(const std::string& path, const std::string& inputName, const Type& type, int rank,
                         bool gray = false);

// Writes `img` to `path`, the format by the extension: PNG/PGM/PPM/TIFF
// with 8- or 16-bit samples (`depth` U8 or U16; F32 gives float TIFF and
// 8-bit otherwise), JPEG 8-bit, PFM float, .npy exact, .txt as text (one
// line per row, exact: formatValue; "-" is stdout). 3-D images go to TIFF
// (pages) or .npy, 4-D to .npy. Throws UserError when it cannot.
void writeOutputImage(const std::string& path, const std::string& outputName, const HostImage& img,
                      SampleFormat depth);

// One value of scalar type `type` at `at`, as text that reads back to the
// same value: "117", "0.123456791" (float: 9 digits), double 17.
std::string formatValue(const Type& type, const unsigned char* at);

// Fails early, before any compiling, when `path` cannot be written: an
// unknown extension, or a folder that does not exist or is not writable.
void checkOutputPath(const std::string& path);

// 1 for a scalar element type, 2, 3 or 4 for a struct of that many fields;
// throws UserError (naming `imageName`) for any other struct.
int channelsOf(const Type& type, const std::string& imageName);

// "512x384" (width x height) for a rank-2 extent [384, 512]; "N" for rank 1.
std::string describeExtent(const std::vector<long long>& extent);

}  // namespace formac::run
