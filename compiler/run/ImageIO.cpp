#include "run/ImageIO.h"

#include <algorithm>
#include <unistd.h>
#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "formac_image.h"
#include "run/NpyFile.h"
#include "run/Samples.h"
#include "support/Diagnostics.h"

namespace formac::run {
namespace {

// The C type of an element's scalar, as a sample type.
formac_pixel_type pixelTypeOf(ScalarKind k) {
  switch (k) {
    case ScalarKind::Int8: return FORMAC_U8;
    case ScalarKind::Int16: return FORMAC_I16;
    case ScalarKind::Uint16: return FORMAC_U16;
    case ScalarKind::Int: return FORMAC_I32;
    case ScalarKind::Int64: return FORMAC_I64;
    case ScalarKind::Float: return FORMAC_F32;
    case ScalarKind::Double: return FORMAC_F64;
  }
  return FORMAC_F64;
}

// A file sample (its stored value) -> the value an element of kind k takes.
Scale fromFile(ScalarKind k, SampleFormat f) {
  if (isFloating(k)) return {1, f == SampleFormat::U8 ? 255.0 : f == SampleFormat::U16 ? 65535.0 : 1};
  if (k == ScalarKind::Int8) return f == SampleFormat::U16 ? Scale{1, 257} : f == SampleFormat::F32 ? Scale{255, 1} : Scale{};
  return {};
}

// An element's value -> the sample stored in a file of format f.
Scale toFile(ScalarKind k, SampleFormat f) {
  switch (f) {
    case SampleFormat::U8: return {isFloating(k) ? 255.0 : 1, 1};
    case SampleFormat::U16: return {isFloating(k) ? 65535.0 : k == ScalarKind::Int8 ? 257.0 : 1, 1};
    case SampleFormat::F32: return {1, k == ScalarKind::Int8 ? 255.0 : 1};
  }
  return {};
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

// A run of `pixels` elements of `t`, channel by channel: one run per field,
// or, when every field has one kind and there is no padding (an array of
// interleaved samples, like the file's), a single run of all the samples.
struct ChannelRun {
  ScalarKind kind;
  size_t offset, stride, count;
};
std::vector<ChannelRun> channelRuns(const Type& t, size_t pixels) {
  std::vector<Channel> layout = channelLayout(t);
  size_t elem = typeSize(t), scalar = static_cast<size_t>(scalarSize(layout[0].kind));
  bool uniform = elem == scalar * layout.size();
  for (const Channel& c : layout) uniform = uniform && c.kind == layout[0].kind;
  if (uniform) return {{layout[0].kind, 0, scalar, pixels * layout.size()}};
  std::vector<ChannelRun> runs;
  for (const Channel& c : layout) runs.push_back({c.kind, c.offset, elem, pixels});
  return runs;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool hasExtension(const std::string& path, std::initializer_list<const char*> exts) {
  std::string p = lower(path);
  for (const char* e : exts)
    if (endsWith(p, e)) return true;
  return false;
}

const char* channelWord(int n) {
  switch (n) {
    case 1: return "1 channel (gray)";
    case 2: return "2 channels (gray and alpha)";
    case 3: return "3 channels (RGB)";
    case 4: return "4 channels (RGBA)";
  }
  return "channels";
}

std::string plural(size_t n, const std::string& word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

std::string shapeText(const std::vector<long long>& shape) {
  std::string s;
  for (long long e : shape) s += (s.empty() ? "[" : ", ") + std::to_string(e);
  return s + "]";
}

// A decoded file: samples of one type, channels interleaved, in `shape`
// (without the channel axis).
struct Decoded {
  formac_pixel_type type = FORMAC_U8;
  bool exact = false;  // .npy: values as stored
  SampleFormat format = SampleFormat::U8;
  int channels = 1;
  std::vector<long long> shape;
  std::shared_ptr<unsigned char> data;
};

bool hasChannelOf(const std::vector<Channel>& layout, ScalarKind k) {
  for (const auto& c : layout)
    if (c.kind == k) return true;
  return false;
}

// An int16 input takes 16-bit samples as stored, so one above 32767 is an
// error (it would be clipped): naming the input and the largest sample.
void requireInt16Fits(const Decoded& d, size_t samples, const std::string& path, const std::string& inputName,
                      const Type& type) {
  const unsigned short* s = reinterpret_cast<const unsigned short*>(d.data.get());
  unsigned short largest = samples ? *std::max_element(s, s + samples) : 0;
  if (largest > SHRT_MAX)
    throw UserError("'" + path + "' has 16-bit samples up to " + std::to_string(largest) + ", above 32767, but input '" +
                    inputName + "' is " + type.name() + (type.isStruct() ? " (int16 fields)" : "") +
                    ": declare it uint16 to read the samples as stored");
}

Decoded decodePicture(const std::string& path) {
  formac_image img{};
  char err[512];
  if (formac_image_read_flags(path.c_str(), &img, FORMAC_READ_ALPHA | FORMAC_READ_PAGES, err, sizeof err) != 0)
    throw UserError(err);
  Decoded d;
  d.data.reset(static_cast<unsigned char*>(img.data), [](unsigned char* p) { std::free(p); });
  d.type = img.type;
  d.format = img.type == FORMAC_U8 ? SampleFormat::U8 : img.type == FORMAC_U16 ? SampleFormat::U16 : SampleFormat::F32;
  d.channels = img.channels;
  d.shape = {img.height, img.width};
  if (img.pages > 1) d.shape.insert(d.shape.begin(), img.pages);
  return d;
}

// A .npy array for an input of `want` channels: the last axis holds them.
Decoded decodeNpy(const std::string& path, int want, const std::string& inputName, const Type& type) {
  auto a = std::make_shared<NpyArray>(readNpy(path));
  Decoded d;
  d.type = a->type;
  d.exact = true;
  d.format = a->type == FORMAC_U16 ? SampleFormat::U16
             : a->type == FORMAC_F32 || a->type == FORMAC_F64 ? SampleFormat::F32 : SampleFormat::U8;
  d.shape = a->shape;
  if (want > 1) {
    if (d.shape.size() < 2 || d.shape.back() != want)
      throw UserError("'" + path + "' (shape " + shapeText(d.shape) + ") has no last axis of " +
                      std::to_string(want) + ": input '" + inputName + "' (" + type.name() + ") takes " +
                      channelWord(want) + ", the last axis of a .npy array");
    d.shape.pop_back();
    d.channels = want;
  }
  d.data = std::shared_ptr<unsigned char>(a, a->bytes.data());
  return d;
}

// Fits the file's channels to `want`: alpha dropped, RGB(A) to gray with
// `gray`; throws when they do not fit.
void fitChannels(Decoded& d, int want, bool gray, const std::string& path, const std::string& inputName,
                 const Type& type) {
  if (d.channels == want) return;
  bool dropAlpha = (d.channels == 2 && want == 1) || (d.channels == 4 && want == 3);
  bool toGray = gray && want == 1 && d.channels >= 3;
  if (!dropAlpha && !toGray)
    throw UserError("'" + path + "' has " + channelWord(d.channels) + ", but input '" + inputName + "' (" +
                    type.name() + ") takes " + channelWord(want) +
                    (want == 1 && d.channels >= 3 ? "; --gray converts it" : ""));
  size_t pixels = 1, es = formac_pixel_type_size(d.type);
  for (long long e : d.shape) pixels *= static_cast<size_t>(e);
  std::shared_ptr<unsigned char> out(new unsigned char[pixels * es * static_cast<size_t>(want)],
                                     std::default_delete<unsigned char[]>());
  if (toGray) {
    rgbToGray(d.type, d.data.get(), d.channels, pixels, out.get());
  } else {
    size_t keep = es * static_cast<size_t>(want), from = es * static_cast<size_t>(d.channels);
    for (size_t i = 0; i < pixels; ++i) std::memcpy(out.get() + i * keep, d.data.get() + i * from, keep);
  }
  d.data = out;
  d.channels = want;
}

// Leading extents of 1 dropped or added until `shape` has `rank`
// dimensions; empty when it cannot.
std::vector<long long> fitRank(std::vector<long long> shape, int rank) {
  while (static_cast<int>(shape.size()) > rank && shape.front() == 1) shape.erase(shape.begin());
  if (static_cast<int>(shape.size()) > rank) return {};
  shape.insert(shape.begin(), static_cast<size_t>(rank) - shape.size(), 1);
  return shape;
}

}  // namespace

int channelsOf(const Type& type, const std::string& imageName) {
  if (!type.isStruct()) return 1;
  size_t n = type.structType->fields.size();
  if (n >= 2 && n <= 4) return static_cast<int>(n);
  throw UserError("formac run reads and writes images of numbers (gray) or of structs of 2 to 4 fields (gray and "
                  "alpha, RGB, RGBA); '" +
                  imageName + "' is " + type.name() + " with " + plural(n, "field"));
}

std::string describeExtent(const std::vector<long long>& extent) {
  if (extent.size() == 2) return std::to_string(extent[1]) + "x" + std::to_string(extent[0]);
  std::string s;
  for (size_t d = 0; d < extent.size(); ++d) s += (d ? "x" : "") + std::to_string(extent[d]);
  return s;
}

InputFile readInputImage(const std::string& path, const std::string& inputName, const Type& type, int rank,
                         bool gray) {
  int want = channelsOf(type, inputName);
  if (rank < 1 || rank > 4)
    throw UserError("formac run reads images of 1 to 4 dimensions; input '" + inputName + "' has " +
                    std::to_string(rank));
  Decoded d = isNpyFile(path) ? decodeNpy(path, want, inputName, type) : decodePicture(path);
  fitChannels(d, want, gray, path, inputName, type);
  std::vector<long long> extent = fitRank(d.shape, rank);
  if (extent.empty()) {
    std::string what = d.shape.size() == 2 && !d.exact ? describeExtent(d.shape) : "shape " + shapeText(d.shape);
    throw UserError("'" + path + "' is " + std::to_string(d.shape.size()) + "-dimensional (" + what +
                    "), but input '" + inputName + "' is " + std::to_string(rank) + "-dimensional" +
                    (rank == 1 ? ": give a .npy of one dimension or a picture one row high" : ""));
  }
  InputFile in;
  in.format = d.format;
  in.image.type = type;
  in.image.extent = extent;
  size_t pixels = 1, es = formac_pixel_type_size(d.type);
  for (long long e : extent) pixels *= static_cast<size_t>(e);
  if (d.type == FORMAC_U16 && hasChannelOf(channelLayout(type), ScalarKind::Int16))
    requireInt16Fits(d, pixels * static_cast<size_t>(d.channels), path, inputName, type);
  in.image.bytes.assign(pixels * typeSize(type), 0);
  // The file's samples are interleaved: a run per field steps over the others.
  std::vector<ChannelRun> runs = channelRuns(type, pixels);
  for (size_t c = 0; c < runs.size(); ++c)
    convertSamples({d.type, d.data.get() + c * es, es * runs.size()},
                   {pixelTypeOf(runs[c].kind), in.image.bytes.data() + runs[c].offset, runs[c].stride}, runs[c].count,
                   d.exact ? Scale{} : fromFile(runs[c].kind, d.format));
  return in;
}

std::string formatValue(const Type& type, const unsigned char* at) {
  char buf[64];
  switch (type.scalar) {
    case ScalarKind::Int8: return std::to_string(*at);
    case ScalarKind::Int16: { short v; std::memcpy(&v, at, sizeof v); return std::to_string(v); }
    case ScalarKind::Uint16: { unsigned short v; std::memcpy(&v, at, sizeof v); return std::to_string(v); }
    case ScalarKind::Int: { int v; std::memcpy(&v, at, sizeof v); return std::to_string(v); }
    case ScalarKind::Int64: { long long v; std::memcpy(&v, at, sizeof v); return std::to_string(v); }
    case ScalarKind::Float: { float v; std::memcpy(&v, at, sizeof v); std::snprintf(buf, sizeof buf, "%.9g", v); return buf; }
    case ScalarKind::Double: { double v; std::memcpy(&v, at, sizeof v); std::snprintf(buf, sizeof buf, "%.17g", v); return buf; }
  }
  return "?";
}

void checkOutputPath(const std::string& path) {
  if (path == "-") return;
  if (!hasExtension(path, {".png", ".pgm", ".ppm", ".pnm", ".pfm", ".jpg", ".jpeg", ".tif", ".tiff", ".npy", ".txt"}))
    throw UserError("cannot write '" + path +
                    "': formac run writes .png, .jpg, .jpeg, .tif, .tiff, .npy, .pgm, .ppm, .pnm, .pfm or .txt files "
                    "('-': text on stdout)");
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

namespace {

// The .npy dtype of an output: its scalar's, or f8 for a struct of mixed
// field types.
formac_pixel_type npyTypeOf(const std::vector<Channel>& layout) {
  for (const Channel& c : layout)
    if (c.kind != layout[0].kind) return FORMAC_F64;
  return pixelTypeOf(layout[0].kind);
}

// Copies (exact) or converts (scaled) each channel of `img` into the
// interleaved samples at `out`, of type `to`.
void interleave(const HostImage& img, size_t pixels, formac_pixel_type to, bool exact, SampleFormat f,
                unsigned char* out) {
  std::vector<ChannelRun> runs = channelRuns(img.type, pixels);
  size_t es = formac_pixel_type_size(to);
  for (size_t c = 0; c < runs.size(); ++c)
    convertSamples({pixelTypeOf(runs[c].kind), img.bytes.data() + runs[c].offset, runs[c].stride},
                   {to, out + c * es, es * runs.size()}, runs[c].count, exact ? Scale{} : toFile(runs[c].kind, f));
}

}  // namespace

void writeOutputImage(const std::string& path, const std::string& outputName, const HostImage& img,
                      SampleFormat depth) {
  int channels = channelsOf(img.type, outputName);
  size_t rank = img.extent.size(), pixels = 1;
  // .npy and text hold an empty image (shape (0, 5); no values); image files do not.
  const bool holdsEmpty = path == "-" || hasExtension(path, {".txt", ".npy"});
  for (long long e : img.extent) {
    if (e < 1 && !holdsEmpty)
      throw UserError("output '" + outputName + "' is empty (" + describeExtent(img.extent) +
                      "): nothing to write to '" + path + "'");
    if (pixels > 0 && static_cast<unsigned long long>(e) > FORMAC_IMAGE_MAX_SAMPLES / pixels)
      throw UserError("output '" + outputName + "' (" + describeExtent(img.extent) + ") is too large to write");
    pixels *= static_cast<size_t>(e);
  }
  if (path == "-" || hasExtension(path, {".txt"})) {
    if (img.type.isStruct())
      throw UserError("output '" + outputName + "' holds '" + img.type.name() + "' values: write it to .npy, not '" +
                      path + "'");
    std::ostringstream text;
    size_t row = rank <= 1 ? 1 : static_cast<size_t>(img.extent.back()), size = typeSize(img.type);
    for (size_t i = 0; i < pixels; ++i)
      text << formatValue(img.type, img.bytes.data() + i * size) << ((i + 1) % row == 0 ? "\n" : " ");
    if (path == "-") {
      std::cout << text.str();
      return;
    }
    std::ofstream f(path, std::ios::binary);
    f << text.str();
    if (!f) throw UserError("cannot write '" + path + "'");
    return;
  }
  if (hasExtension(path, {".npy"})) {
    NpyArray a;
    a.type = npyTypeOf(channelLayout(img.type));
    a.shape = img.extent;
    if (channels > 1) a.shape.push_back(channels);
    a.bytes.resize(pixels * static_cast<size_t>(channels) * formac_pixel_type_size(a.type));
    interleave(img, pixels, a.type, true, depth, a.bytes.data());
    writeNpy(path, a);
    return;
  }
  bool tiff = hasExtension(path, {".tif", ".tiff"});
  if (rank > 3 || (rank == 3 && !tiff))
    throw UserError("output '" + outputName + "' is " + std::to_string(rank) + "-dimensional (" +
                    describeExtent(img.extent) + "): write it to " + (rank == 3 ? ".tif (one page each) or " : "") +
                    ".npy, not '" + path + "'");
  long long h = rank >= 2 ? img.extent[rank - 2] : 1, w = img.extent.back(), pages = rank == 3 ? img.extent[0] : 1;
  if (w > INT_MAX || h > INT_MAX || pages > INT_MAX)
    throw UserError("output '" + outputName + "' is too large to write");
  // uint16 holds 16-bit samples: written as such, whatever the inputs were.
  if (depth == SampleFormat::U8 && hasChannelOf(channelLayout(img.type), ScalarKind::Uint16)) depth = SampleFormat::U16;
  SampleFormat f = hasExtension(path, {".pfm"})                          ? SampleFormat::F32
                   : depth == SampleFormat::F32 && !tiff                 ? SampleFormat::U8
                   : hasExtension(path, {".jpg", ".jpeg"})               ? SampleFormat::U8
                                                                         : depth;
  formac_pixel_type pt = f == SampleFormat::U8 ? FORMAC_U8 : f == SampleFormat::U16 ? FORMAC_U16 : FORMAC_F32;
  formac_image out{};
  if (formac_image_alloc_pages(&out, static_cast<int>(w), static_cast<int>(h), static_cast<int>(pages), channels,
                               pt) != 0)
    throw UserError("output '" + outputName + "' (" + describeExtent(img.extent) + ") is too large to write");
  std::unique_ptr<formac_image, void (*)(formac_image*)> release(&out, formac_image_free);
  interleave(img, pixels, pt, false, f, static_cast<unsigned char*>(out.data));
  char err[512];
  if (formac_image_write(path.c_str(), &out, err, sizeof err) != 0) throw UserError(err);
}

}  // namespace formac::run
