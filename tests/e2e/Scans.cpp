// The scan and sat programs (Scans.h). Each program returns every scan it
// computes, so that a wrong line, dimension or conversion shows in an output.
#include "Scans.h"

#include <string>
#include <vector>

#include "Templates.h"

namespace formac::e2e {
namespace {

const char* const kTypes[] = {"int8", "int16", "uint16", "int", "int64", "float", "double"};
const char* const kParams[] = {"A", "B", "C", "D"};

// Sizes of the rank-2 and rank-3 programs: one point, one line along each
// dimension, primes, a line longer than 4096 points in a dimension.
std::vector<std::vector<long long>> runsOfRank(int rank) {
  if (rank == 2) return {{1, 1}, {1, 13}, {13, 1}, {7, 11}, {67, 131}, {3, 4099}, {4099, 3}};
  return {{1, 1, 1}, {2, 3, 5}, {1, 17, 1}, {3, 1, 4099}, {4099, 2, 1}};
}

std::string header(const std::string& type, int rank) {
  std::string ext, decl;
  for (int d = 0; d < rank; ++d) {
    ext += std::string(d ? "," : "") + kParams[d];
    decl += std::string(d ? ", " : "") + kParams[d];
  }
  return "parameter " + decl + ";\nvector#" + std::to_string(rank) + " " + type + " img[" + ext + "];\n";
}

// scan(x, d) for every d and sat(x) of an image x of each rank 1-4 (their
// extents share the parameters A..D), all returned: one program per type.
std::string everyRankAndDimension(const std::string& type) {
  std::string t = "parameter A, B, C, D;\n", body, ret;
  for (int rank = 1; rank <= 4; ++rank) {
    std::string x = "x" + std::to_string(rank), ext;
    for (int d = 0; d < rank; ++d) ext += std::string(d ? "," : "") + kParams[d];
    t += "vector#" + std::to_string(rank) + " " + type + " " + x + "[" + ext + "];\n";
    for (int d = 0; d < rank; ++d) {
      std::string s = x + "_s" + std::to_string(d);
      body += s + " = scan(" + x + ", " + std::to_string(d) + ");\n";
      ret += s + ", ";
    }
    body += x + "_sat = sat(" + x + ");\n";
    ret += x + "_sat" + std::string(rank < 4 ? ", " : "");
  }
  return t + body + "return " + ret + ";\n";
}

// Sizes for A..D: one point, primes, ones in different places, and a line of
// more than 4096 points (512 runs of ir::kScanRun) along each dimension.
const std::vector<std::vector<long long>> kRankRuns = {
    {1, 1, 1, 1}, {2, 3, 5, 7}, {13, 1, 7, 1}, {1, 17, 1, 3},
    {70001, 1, 1, 2}, {3, 4099, 1, 2}, {2, 1, 4099, 1}, {1, 2, 3, 4099}};

// sat(img, T) and scan(img, 1, T) for every result type T.
std::string everyResultType(const std::string& type) {
  std::string t = header(type, 2), ret;
  for (const char* to : kTypes) {
    t += std::string("sat_") + to + " = sat(img, " + to + ");\n";
    t += std::string("row_") + to + " = scan(img, 1, " + to + ");\n";
    ret += std::string(ret.empty() ? "" : ", ") + "sat_" + to + ", row_" + to;
  }
  return t + "return " + ret + ";\n";
}

}  // namespace

std::vector<ProgramCase> scanCases() {
  std::vector<ProgramCase> out;
  for (const char* t : kTypes) out.push_back(make(std::string("scan_ranks_") + t, everyRankAndDimension(t), kRankRuns));
  for (const char* t : kTypes)
    out.push_back(make(std::string("scan_types_") + t, everyResultType(t), runsOfRank(2)));

  // sat(img, int) wraps modulo 2^32 once a sum passes 2^31 - 1: 65535s (and
  // 65534s) over 300x300 points sum to about 5.9e9. int16 and int8 results
  // keep the low 16 and 8 bits.
  out.push_back(make("scan_wrap_int", R"(stencil big(vector#2 int8 X) { return cast<uint16>(65535 - X % 2); }
parameter M, N;
vector#2 int8 img[M,N];
b = big(img);
wide = sat(b);
narrow = sat(b, int);
short = sat(b, int16);
byte = scan(b, 0, int8);
return wide, narrow, short, byte;
)", {{300, 300}, {1, 70001}, {5, 7}}));

  // A sat of fixed extents whose rows are a whole number of vectors: gcc 12
  // warned (-Waggressive-loop-optimizations) in the row helper's tail loop
  // (progfuzz seed s26520167).
  out.push_back(make("scan_sat_fixed_rows", R"(vector#2 uint16 img[5,64];
vector#2 float f[3,48];
s = sat(img);
t = sat(f, float);
return s, t;
)", {{}}));

  // Box filters from a summed-area table: four corner reads with the window
  // clipped to the image (clamped high corners; low corners outside count 0
  // through a constant(0) read of an all-ones stage), the sum divided by the
  // area; and the same corners under other boundary modes.
  for (const char* t : {"int8", "float", "double"})
    out.push_back(make(std::string("scan_box_") + t, fill(R"(stencil one(vector#2 %T% X) { return 1; }
stencil box(vector#2 double I, vector#2 int In) {
  up = In@[-3,0];
  left = In@[0,-3];
  s = I@[2,2] - up * I@[-3,2] - left * I@[2,-3] + up * left * I@[-3,-3];
  return s / 25.0;
}
stencil corners(vector#2 %R% I) { return I@[1,1] - I@[-2,1] - I@[1,-2] + I@[-2,-2]; }
parameter M, N;
vector#2 %T% img[M,N];
I = sat(img, double);
J = sat(img);
mean = box(I:clamped, one(img):constant(0));
return mean, corners(J:mirror), corners(J:wrap), corners(J:constant(0)), corners(J:extend);
)", {{"%T%", t}, {"%R%", std::string(t) == "int8" ? "int64" : "double"}}), runsOfRank(2)));

  // Point-wise producers fused into the scan, a scan of a scan, a scan read
  // at offsets by a later stencil, a scan of a reduction along a dimension,
  // narrow results feeding arithmetic.
  out.push_back(make("scan_fused_producers", R"(stencil sq(vector#2 float X) { return X * X - 0.5f; }
stencil mix(vector#2 int16 A, vector#2 float B) { return A * 3 + cast<int16>(B > 0); }
stencil diff(vector#2 double S) { return S@[0,1] - S@[0,-1] + S@[1,0]; }
parameter M, N;
vector#2 float img[M,N];
vector#2 int16 lab[M,N];
a = sat(sq(img));
b = scan(mix(lab, img), 1, int);
c = scan(scan(img, 0), 1, float);
d = diff(scan(sq(img), 0):clamped);
rows = sum(img, 1);
e = scan(rows, 0);
return a, b, c, d, e;
)", runsOfRank(2)));
  out.push_back(make("scan_chain_rank3", R"(stencil grad(vector#3 int X) { return X@[0,0,1] - X@[0,0,-1] + X@[1,0,0]; }
stencil box3(vector#3 int64 I) {
  return I@[1,1,1] - I@[-2,1,1] - I@[1,-2,1] - I@[1,1,-2] + I@[-2,-2,1] + I@[-2,1,-2] + I@[1,-2,-2] - I@[-2,-2,-2];
}
parameter A, B, C;
vector#3 int img[A,B,C];
g = grad(img:wrap);
I = sat(g);
return box3(I:clamped), scan(g, 1, int16);
)", runsOfRank(3)));
  return out;
}

std::vector<ProgramCase> scanSpecialValueCases() {
  std::vector<ProgramCase> out;
  for (const char* t : {"float", "double"}) {
    ProgramCase ranks = make(std::string("scan_ranks_") + t + "_special", everyRankAndDimension(t),
                             {{2, 3, 5, 7}, {4099, 1, 2, 1}, {1, 67, 1, 131}});
    ranks.specialValues = true;
    out.push_back(ranks);
    ProgramCase types = make(std::string("scan_types_") + t + "_special", everyResultType(t), {{7, 11}, {3, 4099}});
    types.specialValues = true;
    out.push_back(types);
  }
  return out;
}

}  // namespace formac::e2e
