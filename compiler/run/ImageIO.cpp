#include "run/ImageIO.h"

#include <unistd.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstring>

#include "formac_image.h"
#include "support/Diagnostics.h"

namespace formac::run {
namespace {

// Round half away from zero, saturate to [lo, hi]; NaN is 0.
double saturate(double v, double lo, double hi) {
  if (std::isnan(v)) return 0;
  v = std::round(v);
  return v < lo ? lo : (v > hi ? hi : v);
}

void storeScalar(ScalarKind k, double v, unsigned char* p) {
  switch (k) {
    case ScalarKind::Int8: {
      unsigned char x = static_cast<unsigned char>(saturate(v, 0, 255));
      std::memcpy(p, &x, sizeof x);
      return;
    }
    case ScalarKind::Int16: {
      short x = static_cast<short>(saturate(v, SHRT_MIN, SHRT_MAX));
      std::memcpy(p, &x, sizeof x);
      return;
    }
    case ScalarKind::Uint16: {
      unsigned short x = static_cast<unsigned short>(saturate(v, 0, USHRT_MAX));
      std::memcpy(p, &x, sizeof x);
      return;
    }
    case ScalarKind::Int64: {  // a file's samples are far inside int64
      long long x = static_cast<long long>(saturate(v, -9.2e18, 9.2e18));
      std::memcpy(p, &x, sizeof x);
      return;
    }
    case ScalarKind::Int: {
      int x = static_cast<int>(saturate(v, INT_MIN, INT_MAX));
      std::memcpy(p, &x, sizeof x);
      return;
    }
    case ScalarKind::Float: {
      float x = static_cast<float>(v);
      std::memcpy(p, &x, sizeof x);
      return;
    }
    case ScalarKind::Double: std::memcpy(p, &v, sizeof v); return;
  }
}

double loadScalar(ScalarKind k, const unsigned char* p) {
  switch (k) {
    case ScalarKind::Int8: return *p;
    case ScalarKind::Int16: { short x; std::memcpy(&x, p, sizeof x); return x; }
    case ScalarKind::Uint16: { unsigned short x; std::memcpy(&x, p, sizeof x); return x; }
    case ScalarKind::Int: { int x; std::memcpy(&x, p, sizeof x); return x; }
    case ScalarKind::Int64: { long long x; std::memcpy(&x, p, sizeof x); return static_cast<double>(x); }
    case ScalarKind::Float: { float x; std::memcpy(&x, p, sizeof x); return x; }
    case ScalarKind::Double: { double x; std::memcpy(&x, p, sizeof x); return x; }
  }
  return 0;
}

// A file sample (its stored value) -> the value an element of kind k takes.
double fromFile(ScalarKind k, SampleFormat f, double s) {
  if (isFloating(k)) return f == SampleFormat::U8 ? s / 255.0 : f == SampleFormat::U16 ? s / 65535.0 : s;
  if (k == ScalarKind::Int8) return f == SampleFormat::U16 ? s / 257.0 : f == SampleFormat::F32 ? s * 255.0 : s;
  return s;
}

// An element's value -> the sample stored in a file of format f.
double toFile(ScalarKind k, SampleFormat f, double v) {
  switch (f) {
    case SampleFormat::U8: return saturate(isFloating(k) ? v * 255.0 : v, 0, 255);
    case SampleFormat::U16:
      return saturate(isFloating(k) ? v * 65535.0 : k == ScalarKind::Int8 ? v * 257.0 : v, 0, 65535);
    case SampleFormat::F32: return k == ScalarKind::Int8 ? v / 255.0 : v;
  }
  return v;
}

// The scalar kind and byte offset of each channel of an element.
struct Channel {
  ScalarKind kind;
  size_t offset;
};
std::vector<Channel> channelLayout(const Type& t) {
  if (!t.isStruct()) return {{t.scalar, 0}};
  std::vector<Channel> out;
  for (size_t i = 0; i < t.structType->fields.size(); ++i)
    out.push_back({t.structType->fields[i].type, fieldOffset(*t.structType, static_cast<int>(i))});
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const char* channelWord(int n) { return n == 1 ? "1 channel (gray)" : n == 3 ? "3 channels (RGB)" : "channels"; }

bool hasChannelOf(const std::vector<Channel>& layout, ScalarKind k) {
  for (const auto& c : layout)
    if (c.kind == k) return true;
  return false;
}

// An int16 input takes 16-bit samples as stored, so one above 32767 is an
// error (it would be clipped): naming the input and the largest sample.
void requireInt16Fits(const formac_image& img, const std::string& path, const std::string& inputName,
                      const Type& type) {
  size_t n = static_cast<size_t>(img.width) * static_cast<size_t>(img.height) * static_cast<size_t>(img.channels);
  const unsigned short* s = static_cast<const unsigned short*>(img.data);
  unsigned short largest = n ? *std::max_element(s, s + n) : 0;
  if (largest > SHRT_MAX)
    throw UserError("'" + path + "' has 16-bit samples up to " + std::to_string(largest) + ", above 32767, but input '" +
                    inputName + "' is " + type.name() + (type.isStruct() ? " (int16 fields)" : "") +
                    ": declare it uint16 to read the samples as stored");
}

}  // namespace

int channelsOf(const Type& type, const std::string& imageName) {
  if (!type.isStruct()) return 1;
  size_t n = type.structType->fields.size();
  if (n == 3) return 3;
  throw UserError("formac run reads and writes images of numbers (gray) or of structs of 3 fields (RGB); '" +
                  imageName + "' is " + type.name() + " with " + std::to_string(n) + " fields");
}

std::string describeExtent(const std::vector<long long>& extent) {
  if (extent.size() == 2) return std::to_string(extent[1]) + "x" + std::to_string(extent[0]);
  std::string s;
  for (size_t d = 0; d < extent.size(); ++d) s += (d ? "x" : "") + std::to_string(extent[d]);
  return s;
}

InputFile readInputImage(const std::string& path, const std::string& inputName, const Type& type, int rank) {
  int want = channelsOf(type, inputName);
  if (rank != 1 && rank != 2)
    throw UserError("formac run reads 1- and 2-dimensional images; input '" + inputName + "' has " +
                    std::to_string(rank) + " dimensions");
  formac_image img{};
  char err[512];
  if (formac_image_read(path.c_str(), &img, err, sizeof err) != 0) throw UserError(err);
  struct Release {
    formac_image* img;
    ~Release() { formac_image_free(img); }
  } release{&img};
  if (img.channels != want)
    throw UserError("'" + path + "' has " + channelWord(img.channels) + ", but input '" + inputName + "' (" +
                    type.name() + ") takes " + channelWord(want));
  InputFile in;
  in.width = img.width;
  in.height = img.height;
  in.format = img.type == FORMAC_U8 ? SampleFormat::U8 : img.type == FORMAC_U16 ? SampleFormat::U16 : SampleFormat::F32;
  in.image.type = type;
  if (rank == 2) in.image.extent = {img.height, img.width};
  else in.image.extent = {static_cast<long long>(img.height) * img.width};
  size_t pixels = static_cast<size_t>(img.width) * static_cast<size_t>(img.height);
  size_t elem = typeSize(type);
  in.image.bytes.assign(pixels * elem, 0);
  std::vector<Channel> layout = channelLayout(type);
  if (img.type == FORMAC_U16 && hasChannelOf(layout, ScalarKind::Int16)) requireInt16Fits(img, path, inputName, type);
  for (size_t i = 0; i < pixels; ++i)
    for (size_t c = 0; c < layout.size(); ++c) {
      size_t at = i * layout.size() + c;
      double s = img.type == FORMAC_U8    ? static_cast<const unsigned char*>(img.data)[at]
                 : img.type == FORMAC_U16 ? static_cast<const unsigned short*>(img.data)[at]
                                          : static_cast<const float*>(img.data)[at];
      storeScalar(layout[c].kind, fromFile(layout[c].kind, in.format, s),
                  &in.image.bytes[i * elem + layout[c].offset]);
    }
  return in;
}

void checkOutputPath(const std::string& path) {
  std::string ext = lower(path);
  bool known = false;
  for (const char* e : {".png", ".pgm", ".ppm", ".pnm", ".pfm"}) known = known || endsWith(ext, e);
  if (!known)
    throw UserError("cannot write '" + path + "': formac run writes .png, .pgm, .ppm, .pnm or .pfm files");
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw UserError("cannot write '" + path + "': it is a folder");
    if (access(path.c_str(), W_OK) != 0) throw UserError("cannot write '" + path + "': " + std::strerror(errno));
    return;
  }
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw UserError("cannot write '" + path + "': folder '" + dir + "' does not exist");
  if (access(dir.c_str(), W_OK) != 0)
    throw UserError("cannot write '" + path + "': folder '" + dir + "' is not writable");
}

void writeOutputImage(const std::string& path, const std::string& outputName, const HostImage& img,
                      SampleFormat depth) {
  int channels = channelsOf(img.type, outputName);
  if (img.extent.size() != 1 && img.extent.size() != 2)
    throw UserError("formac run writes 1- and 2-dimensional images; output '" + outputName + "' has " +
                    std::to_string(img.extent.size()) + " dimensions");
  long long h = img.extent.size() == 2 ? img.extent[0] : 1;
  long long w = img.extent.back();
  if (w < 1 || h < 1)
    throw UserError("output '" + outputName + "' is empty (" + describeExtent(img.extent) +
                    "): nothing to write to '" + path + "'");
  if (w > INT_MAX || h > INT_MAX) throw UserError("output '" + outputName + "' is too large to write");
  std::vector<Channel> layout = channelLayout(img.type);
  // uint16 holds 16-bit samples: written as such, whatever the inputs were.
  if (depth == SampleFormat::U8 && hasChannelOf(layout, ScalarKind::Uint16)) depth = SampleFormat::U16;
  SampleFormat f = endsWith(lower(path), ".pfm") ? SampleFormat::F32 : depth;
  formac_pixel_type pt = f == SampleFormat::U8 ? FORMAC_U8 : f == SampleFormat::U16 ? FORMAC_U16 : FORMAC_F32;
  formac_image out{};
  if (formac_image_alloc(&out, static_cast<int>(w), static_cast<int>(h), channels, pt) != 0)
    throw UserError("output '" + outputName + "' (" + describeExtent(img.extent) + ") is too large to write");
  struct Release {
    formac_image* img;
    ~Release() { formac_image_free(img); }
  } release{&out};
  size_t elem = typeSize(img.type);
  size_t pixels = static_cast<size_t>(w) * static_cast<size_t>(h);
  for (size_t i = 0; i < pixels; ++i)
    for (size_t c = 0; c < layout.size(); ++c) {
      double v = toFile(layout[c].kind, f, loadScalar(layout[c].kind, &img.bytes[i * elem + layout[c].offset]));
      size_t at = i * layout.size() + c;
      if (f == SampleFormat::U8) static_cast<unsigned char*>(out.data)[at] = static_cast<unsigned char>(v);
      else if (f == SampleFormat::U16) static_cast<unsigned short*>(out.data)[at] = static_cast<unsigned short>(v);
      else static_cast<float*>(out.data)[at] = static_cast<float>(v);
    }
  char err[512];
  if (formac_image_write(path.c_str(), &out, err, sizeof err) != 0) throw UserError(err);
}

}  // namespace formac::run
