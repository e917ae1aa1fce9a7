#include "run/NpyFile.h"

#include <cerrno>
#include <cctype>
#include <cstring>
#include <fstream>

#include "support/Diagnostics.h"

namespace formac::run {
namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct Dtype {
  const char* descr;
  formac_pixel_type type;
};
const Dtype kDtypes[] = {{"|u1", FORMAC_U8}, {"<u1", FORMAC_U8},  {"<u2", FORMAC_U16},
                         {"<i2", FORMAC_I16}, {"<i4", FORMAC_I32}, {"<f4", FORMAC_F32},
                         {"<f8", FORMAC_F64}, {"<i8", FORMAC_I64}};

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw UserError("'" + path + "': " + why);
}

// The value of 'key' in the header's dictionary, as text: a quoted string
// with its quotes, a tuple with its parentheses, or a word (True, False).
// Parsed by hand, not with std::regex: in a process that loaded another
// libstdc++ first (Python with torch), its locale facets crash.
std::string field(const std::string& header, const std::string& key, const std::string& path) {
  auto missing = [&]() { fail(path, "invalid .npy header (no '" + key + "'): " + header); };
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) missing();
  at += key.size() + 2;
  auto skipSpaces = [&]() {
    while (at < header.size() && std::isspace(static_cast<unsigned char>(header[at]))) ++at;
  };
  skipSpaces();
  if (at >= header.size() || header[at] != ':') missing();
  ++at;
  skipSpaces();
  if (at >= header.size()) missing();
  size_t end = at;
  if (header[at] == '\'' || header[at] == '(') {
    end = header.find(header[at] == '(' ? ')' : '\'', at + 1);
    if (end == std::string::npos) missing();
    ++end;
  } else {
    while (end < header.size() && std::isalpha(static_cast<unsigned char>(header[end]))) ++end;
  }
  return header.substr(at, end - at);
}

std::vector<long long> parseShape(const std::string& text, const std::string& path) {
  std::vector<long long> shape;
  for (size_t at = 0; at < text.size();) {
    if (!std::isdigit(static_cast<unsigned char>(text[at]))) {
      ++at;
      continue;
    }
    size_t end = at;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    if (end - at > 12) fail(path, "array too large (shape " + text + ")");
    shape.push_back(std::stoll(text.substr(at, end - at)));
    at = end;
  }
  if (shape.empty()) fail(path, "a 0-dimensional .npy array holds no image (shape ())");
  if (shape.size() > 5)
    fail(path, "a .npy array of " + std::to_string(shape.size()) +
                   " dimensions (formac reads 1 to 4, and a channel axis)");
  return shape;
}

}  // namespace

bool isNpyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[kMagicSize] = {};
  return in.read(magic, kMagicSize) && std::memcmp(magic, kMagic, kMagicSize) == 0;
}

NpyArray readNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::strerror(errno));
  unsigned char pre[kMagicSize + 2 + 4] = {};
  if (!in.read(reinterpret_cast<char*>(pre), kMagicSize + 2) || std::memcmp(pre, kMagic, kMagicSize) != 0)
    fail(path, "not a .npy file");
  int major = pre[kMagicSize];
  if (major < 1 || major > 3) fail(path, ".npy version " + std::to_string(major) + " is not supported (1 to 3)");
  size_t lenBytes = major == 1 ? 2 : 4;
  if (!in.read(reinterpret_cast<char*>(pre), static_cast<std::streamsize>(lenBytes))) fail(path, "truncated .npy header");
  size_t headerLen = pre[0] | pre[1] << 8 | (lenBytes == 4 ? (size_t{pre[2]} << 16 | size_t{pre[3]} << 24) : 0);
  if (headerLen > (1u << 20)) fail(path, "invalid .npy header (" + std::to_string(headerLen) + " bytes)");
  std::string header(headerLen, '\0');
  if (!in.read(&header[0], static_cast<std::streamsize>(headerLen))) fail(path, "truncated .npy header");

  NpyArray a;
  std::string descr = field(header, "descr", path);
  descr = descr.substr(1, descr.size() - 2);
  bool known = false;
  for (const Dtype& d : kDtypes)
    if (descr == d.descr) {
      a.type = d.type;
      known = true;
    }
  if (!known)
    fail(path, "dtype '" + descr + "' is not supported (little-endian u1, u2, i2, i4, f4 or f8)");
  if (field(header, "fortran_order", path) == "True")
    fail(path, "Fortran-order arrays are not supported (save a C-order array: np.ascontiguousarray)");
  a.shape = parseShape(field(header, "shape", path), path);

  size_t n = 1;
  for (long long e : a.shape) {
    if (e < 0) fail(path, "a negative extent in its shape");
    if (n > 0 && static_cast<unsigned long long>(e) > FORMAC_IMAGE_MAX_SAMPLES / n)
      fail(path, "array too large (more than 2^31 values)");
    n *= static_cast<size_t>(e);
  }
  a.bytes.resize(n * formac_pixel_type_size(a.type));
  if (!in.read(reinterpret_cast<char*>(a.bytes.data()), static_cast<std::streamsize>(a.bytes.size())))
    fail(path, "truncated file (the shape needs " + std::to_string(a.bytes.size()) + " bytes of data)");
  return a;
}

void writeNpy(const std::string& path, const NpyArray& a) {
  const char* descr = nullptr;
  for (const Dtype& d : kDtypes)
    if (d.type == a.type && !descr) descr = d.descr;
  std::string shape;
  for (long long e : a.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(e);
  if (a.shape.size() == 1) shape += ",";
  std::string header =
      std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }";
  size_t total = kMagicSize + 2 + 2 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string pre(kMagic, kMagicSize);
  pre += '\x01';
  pre += '\x00';
  pre += static_cast<char>(header.size() & 0xff);
  pre += static_cast<char>(header.size() >> 8);
  std::ofstream out(path, std::ios::binary);
  out << pre << header;
  out.write(reinterpret_cast<const char*>(a.bytes.data()), static_cast<std::streamsize>(a.bytes.size()));
  out.close();
  if (!out) {
    std::remove(path.c_str());
    fail(path, std::string("write error: ") + std::strerror(errno));
  }
}

}  // namespace formac::run
