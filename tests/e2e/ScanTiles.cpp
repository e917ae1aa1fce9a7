// Scan programs across the CUDA kernels' tiles (LANGUAGE.md §7 scan and sat;
// declared in ProgramMatrix.h), in the GPU bundle beside Scans.cpp's list
// (which the C suites run). Every element type at rank 2 along each dimension and sat, with
// result types (default, float, int); ranks 1, 3 and 4 along every dimension
// and sat; sizes across the CUDA kernels' tiles (2048 values along the last
// dimension, 64 rows down the others: 1x70001, 70001x1, 3001x5, 257x263,
// 3x4099) and awkward ones (1x1, 1xN, Nx1, primes, empty); a point-wise
// producer absorbed into the scan (fused) or kept in memory (unfused, or
// also returned); special values. Floating results must equal the
// evaluator's bits (ir/Pipeline.h, the floating Scan order).
#include <string>
#include <vector>

#include "ProgramMatrix.h"
#include "Templates.h"

namespace formac::e2e {
namespace {

const char* const kParams[] = {"A", "B", "C", "D"};

// scan(img, d) for every d, and sat(img), of a rank-`rank` image of `type`;
// with `converted`, also sat(img, float) and the last dimension's scan as int.
std::string everyDim(const std::string& type, int rank, bool converted) {
  std::string ext, ret;
  for (int d = 0; d < rank; ++d) ext += std::string(d ? "," : "") + kParams[d];
  std::string t = "parameter " + ext + ";\nvector#" + std::to_string(rank) + " " + type + " img[" + ext + "];\n";
  for (int d = 0; d < rank; ++d) {
    t += "s" + std::to_string(d) + " = scan(img, " + std::to_string(d) + ");\n";
    ret += "s" + std::to_string(d) + ", ";
  }
  t += "t = sat(img);\n";
  ret += "t";
  if (converted) {
    t += "tf = sat(img, float);\nsi = scan(img, " + std::to_string(rank - 1) + ", int);\n";
    ret += ", tf, si";
  }
  return t + "return " + ret + ";\n";
}

}  // namespace

std::vector<ProgramCase> scanTileCases() {
  std::vector<ProgramCase> out;
  const std::vector<std::vector<long long>> small2 = {{13, 17}, {1, 1}, {1, 7}, {7, 1}, {0, 3}, {70, 130}, {3, 2}};
  // Every element type, rank 2, at sizes within a tile or a few.
  for (const char* t : {"int8", "uint16", "int16", "int", "int64", "float", "double"})
    out.push_back(make(std::string("scantile_r2_") + t, everyDim(t, 2, true), small2));
  // Several tiles along and across lines: floating (the look-back's order
  // shows in the bits) and 8-bit.
  // 520 x 1100: 5 x 9 SAT tiles, groups of up to 4 and 8 tiles.
  const std::vector<std::vector<long long>> large2 = {{1, 70001}, {70001, 1}, {3001, 5}, {257, 263}, {3, 4099},
                                                      {520, 1100}};
  out.push_back(make("scantile_tiles_float", R"(parameter A, B;
vector#2 float img[A,B];
t = sat(img);
c = scan(img, 0);
return t, c;
)", large2));
  const std::vector<std::vector<long long>> fewer2 = {{1, 70001}, {3001, 5}, {67, 263}, {3, 4099}};
  out.push_back(make("scantile_tiles_double", R"(parameter A, B;
vector#2 double img[A,B];
t = sat(img);
c = scan(img, 0, float);
return t, c;
)", fewer2));
  out.push_back(make("scantile_tiles_int8", R"(parameter A, B;
vector#2 int8 img[A,B];
t = sat(img, int);
return t;
)", fewer2));
  // Ranks 1, 3 and 4.
  out.push_back(make("scantile_r1_float", everyDim("float", 1, true), {{13}, {1}, {0}, {2049}, {2053}, {20011}}));
  out.push_back(make("scantile_r1_int16", everyDim("int16", 1, false), {{13}, {1}, {2049}, {20011}}));
  const std::vector<std::vector<long long>> r3 = {{5, 7, 3}, {1, 1, 1}, {2, 3, 4}, {3, 1, 2049}, {131, 2, 3}, {2, 67, 5}};
  for (const char* t : {"float", "double", "int"})
    out.push_back(make(std::string("scantile_r3_") + t, everyDim(t, 3, false), r3));
  const std::vector<std::vector<long long>> r4 = {{3, 5, 2, 4}, {1, 1, 1, 1}, {2, 3, 70, 5}, {67, 2, 1, 3}};
  for (const char* t : {"float", "int16"})
    out.push_back(make(std::string("scantile_r4_") + t, everyDim(t, 4, false), r4));

  // A point-wise producer: absorbed into the scan with fusion on (read only
  // by it, at the point scanned), in memory without; a chain, one with
  // boundary-mode reads, and one also returned (never absorbed).
  const std::vector<std::vector<long long>> mixed = {{13, 17}, {1, 1}, {1, 2100}, {130, 70}, {67, 131}};
  out.push_back(make("scantile_fused_float", R"(stencil lin(vector#2 float X) { return X * 2 - 1; }
parameter A, B;
vector#2 float img[A,B];
t = sat(lin(img));
return t;
)", mixed));
  out.push_back(make("scantile_fused_chain_int", R"(stencil lin(vector#2 int X) { return X * 2 - 1; }
stencil sq(vector#2 int X) { return X * X; }
parameter A, B;
vector#2 int img[A,B];
r = scan(sq(lin(img)), 1, float);
return r;
)", mixed));
  out.push_back(make("scantile_fused_blur_double", R"(stencil blur(vector#2 double X) { return (X@[0,-1] + X + X@[0,1]) / 3; }
parameter A, B;
vector#2 double img[A,B];
c = scan(blur(img:mirror), 0);
return c;
)", mixed));
  out.push_back(make("scantile_unfused_returned", R"(stencil lin(vector#2 float X) { return X * 2 - 1; }
stencil box(vector#2 double I) { return I@[1,1] - I@[1,-1] - I@[-1,1] + I@[-1,-1]; }
parameter A, B;
vector#2 float img[A,B];
l = lin(img);
t = sat(l);
return l, t, box(t:clamped);
)", mixed));

  // Special values (NaN, infinities, -0, subnormals, extremes).
  for (const char* t : {"float", "double", "int"}) {
    ProgramCase c = make(std::string("scantile_special_") + t, everyDim(t, 2, true), {{13, 17}, {1, 7}, {70, 130}});
    c.specialValues = true;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace formac::e2e
