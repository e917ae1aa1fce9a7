#include "ProgramMatrix.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "Templates.h"

namespace formac::e2e {

std::string fill(std::string text, const Subs& subs) {
  for (const auto& [key, value] : subs)
    for (size_t at; (at = text.find(key)) != std::string::npos;) text.replace(at, key.size(), value);
  return text;
}

const std::vector<Mode>& allModes() {
  static const std::vector<Mode> m = {{"", "none"},          {"clamped", "clamped"},
                                      {"extend", "extend"},  {"mirror", "mirror"},
                                      {"wrap", "wrap"},      {"constant(2)", "constant"}};
  return m;
}
Mode mode(const std::string& tag) {
  for (const auto& m : allModes())
    if (m.tag == tag) return m;
  return {};
}
std::string withMode(const std::string& image, const Mode& m) {
  return m.spelling.empty() ? image : image + ":" + m.spelling;
}

const std::vector<std::vector<long long>> k2D = {{13, 17}, {1, 1}, {1, 7}, {7, 1}, {2, 3},
                                                 {3, 4},   {0, 3}, {4, 0}, {70, 130}};
const std::vector<std::vector<long long>> kLarge = {{13, 17}, {2, 3}, {150, 1100}, {129, 513}};

const char* const kStruct = "struct s3 { float a; int16 b; int8 c; }\n";

ProgramCase make(const std::string& name, const std::string& source,
                 std::vector<std::vector<long long>> runs) {
  return ProgramCase{name, source, std::move(runs)};
}

namespace {

// ------------------------------------------------------------ types × modes
void typesAndModes(std::vector<ProgramCase>& out) {
  const char* single = R"(stencil f(vector#2 %T% X) {
  s = X@[-1,2] + 2 * X@[3,-2] - X@[-7,9];
  return cast<%T%>(s / 3 + X@[0,1] - X);
}
parameter M, N;
vector#2 %T% img[M,N];
out = f(%IMG%);
return out;
)";
  const char* singleStruct = R"(stencil f(vector#2 s3 X) {
  return struct s3(X@[-1,2].a * 0.5f + X@[3,-2].a, X@[-7,9].b - X.b, X@[0,1].c + X@[1,0].c);
}
parameter M, N;
vector#2 s3 img[M,N];
out = f(%IMG%);
return out;
)";
  const char* chain = R"(stencil g(vector#2 %T% X) { return X@[1,-1]; }
stencil h(vector#2 %T% Y) { return cast<%T%>(Y@[-2,0] - Y@[0,2] + 2 * Y); }
parameter M, N;
vector#2 %T% img[M,N];
a = g(%IMG%);
b = h(%A%);
return b;
)";
  const char* chainStruct = R"(stencil g(vector#2 s3 X) { return X@[1,-1]; }
stencil h(vector#2 s3 Y) {
  return struct s3(Y@[-2,0].a - Y@[0,2].a, Y.b + Y@[0,-1].b, Y@[0,-2].c);
}
parameter M, N;
vector#2 s3 img[M,N];
a = g(%IMG%);
b = h(%A%);
return b;
)";
  for (const char* t : {"int8", "int16", "uint16", "int", "int64", "float", "double", "s3"}) {
    bool st = std::string(t) == "s3";
    for (const Mode& m : allModes()) {
      Subs subs = {{"%T%", t}, {"%IMG%", withMode("img", m)}, {"%A%", withMode("a", m)}};
      std::string pre = st ? kStruct : "";
      out.push_back(make(std::string("types_stencil_") + t + "_" + m.tag,
                         pre + fill(st ? singleStruct : single, subs)));
      out.push_back(make(std::string("types_chain_") + t + "_" + m.tag,
                         pre + fill(st ? chainStruct : chain, subs)));
    }
  }
}

// ------------------------------------------------------------ ranks
void ranks(std::vector<ProgramCase>& out) {
  const std::vector<std::string> reads1 = {"[-2]", "[3]", "[1]", "[-1]"};
  const std::vector<std::string> reads2 = {"[-1,2]", "[2,-3]", "[0,1]", "[-1,0]"};
  const std::vector<std::string> reads3 = {"[-1,0,2]", "[2,-3,0]", "[0,1,-1]", "[-1,0,0]"};
  const std::vector<std::string> reads4 = {"[-1,0,2,1]", "[2,-3,0,-1]", "[0,1,-1,0]", "[-1,0,0,0]"};
  const std::vector<std::vector<std::string>> reads = {reads1, reads2, reads3, reads4};
  const std::vector<std::vector<std::vector<long long>>> runs = {
      {{1}, {2}, {5}, {13}, {300}},
      k2D,
      {{1, 1, 1}, {2, 3, 4}, {5, 7, 3}, {13, 1, 6}, {9, 11, 10}},
      {{1, 1, 1, 1}, {2, 3, 1, 4}, {3, 5, 4, 2}, {6, 7, 5, 8}}};
  const char* params[] = {"A", "B", "C", "D"};
  for (int r = 1; r <= 4; ++r) {
    std::string ext, paramDecl;
    for (int d = 0; d < r; ++d) {
      ext += std::string(d ? "," : "") + params[d];
      paramDecl += std::string(d ? ", " : "") + params[d];
    }
    const auto& rd = reads[static_cast<size_t>(r - 1)];
    for (const char* t : {"float", "int8"}) {
      bool f = std::string(t) == "float";
      std::string body1 = f ? "X@" + rd[0] + " + X@" + rd[1] + " * 0.5f - X@" + rd[2]
                            : "cast<int8>(X@" + rd[0] + " + X@" + rd[1] + " * 3 - X@" + rd[2] + ")";
      std::string body2 = f ? "Y + Y@" + rd[3] + " * 0.25f" : "cast<int8>(Y - Y@" + rd[3] + " / 2)";
      std::vector<std::string> modes = {"none", "clamped", "extend", "mirror", "wrap", "constant"};
      if (!f) modes = {"extend", "constant"};
      for (const auto& tag : modes) {
        Mode m = mode(tag);
        std::string src = "stencil f(vector#" + std::to_string(r) + " " + t + " X) { return " + body1 +
                          "; }\nstencil g(vector#" + std::to_string(r) + " " + t + " Y) { return " +
                          body2 + "; }\nparameter " + paramDecl + ";\nvector#" + std::to_string(r) +
                          " " + t + " img[" + ext + "];\na = f(" + withMode("img", m) +
                          ");\nb = g(" + withMode("a", m) + ");\nreturn b;\n";
        out.push_back(make("rank" + std::to_string(r) + "_" + t + "_" + tag, src,
                           runs[static_cast<size_t>(r - 1)]));
      }
    }
  }
}

// ------------------------------------------------------------ odds and ends
void misc(std::vector<ProgramCase>& out) {
  out.push_back(make("fixed_extents", R"(stencil j(vector#2 float X) {
  return (1.0f / 5.0f) * (X@[-1,0] + X@[1,0] + X + X@[0,-1] + X@[0,1]);
}
vector#2 float grid[37, 23];
a = j(grid:mirror);
return j(a);
)", {{}}));
  out.push_back(make("param_defaults", R"(parameter M = 5, N = 9;
stencil f(vector#2 int X) { return X@[-1,0] * 3 - X@[0,2]; }
vector#2 int img[M,N];
return f(img:wrap);
)"));
  out.push_back(make("index_reads", R"(stencil f(vector#2 int8 X, vector#1 int L, vector#2 float W) {
  return L[X] + W[0,1] * 2 + W[X % 3, X % 2];
}
parameter M, N;
vector#2 int8 img[M,N];
vector#1 int lut[256];
vector#2 float w[M,N];
return f(img, lut, w);
)", {{13, 17}, {1, 7}, {2, 3}, {70, 130}}));
  out.push_back(make("index_reads_mode", R"(stencil f(vector#2 float X, vector#2 float W) {
  return W[cast<int>(X * 3), cast<int>(X * 5)] + W[-1, 20];
}
parameter M, N;
vector#2 float img[M,N];
vector#2 float w[M,N];
return f(img, w:mirror);
)"));
  out.push_back(make("literals", R"(stencil f(vector#2 float X, vector#2 double Y) {
  a = X * 0.1234567891234f + 1e-3 + .5 + 3.0f;
  b = Y * 0.1234567891234567 + 1e30 * 1e-30 + 1.0000001 - 2.5e-300 / 1e-10;
  return a + b + 16777217 + X * 1e-45f;
}
parameter M, N;
vector#2 float img[M,N];
vector#2 double other[M,N];
return f(img, other);
)"));
  out.push_back(make("unary", R"(stencil f(vector#2 int8 X, vector#2 int16 Y, vector#2 float Z) {
  a = -X + !X + !(Y > 0) - -Y;
  b = (X > 100 ? X : -X);
  c = -Z * -(Z@[0,1]) + !Z;
  return a + b + c;
}
parameter M, N;
vector#2 int8 x[M,N];
vector#2 int16 y[M,N];
vector#2 float z[M,N];
return f(x, y, z:wrap);
)"));
  out.push_back(make("constant_values", R"(stencil sh(vector#2 float X) { return X@[-2,2]; }
stencil shi(vector#2 int8 X) { return X@[-2,2]; }
stencil add(vector#2 float A, vector#2 int8 B, vector#2 float C) { return A + B + C; }
parameter M, N;
vector#2 float img[M,N];
vector#2 int8 bytes[M,N];
a = sh(img:constant(0.5));
b = shi(bytes:constant(255));
c = sh(img:constant(0));
return add(a, b, c);
)"));
  out.push_back(make("multiple_outputs", R"(stencil f(vector#2 float X) { return X@[1,0] - X; }
stencil g(vector#2 float X) { return cast<int16>(X * 100); }
parameter M, N;
vector#2 float img[M,N];
a = f(img:mirror);
b = g(a);
return b, a, b;
)"));
  out.push_back(make("return_input", R"(parameter M, N;
vector#2 double img[M,N];
return img;
)"));
  out.push_back(make("down_up_chain", R"(stencil dn(vector#2 float A) {
  return 0.25f * A@[(-1,2),(-1,2)] + 0.5f * A@[(0,2),(0,2)] + 0.25f * A@[(1,2),(1,2)];
}
stencil u0(vector#2 float A) { return A; }
stencil u1(vector#2 float A) { return 0.5f * (A + A@[1,0]); }
parameter M, N;
vector#2 float img[M,N];
small = dn(img:mirror);
return ( @[(0,2),(0,1)] = u0(small); @[(1,2),(0,1)] = u1(small:clamped); );
)"));
  out.push_back(make("wide_offsets", R"(stencil f(vector#2 float X) { return X@[-7,9] + X@[11,-13] * 2; }
stencil g(vector#2 float X) { return X@[25,-40] - X@[-31,3]; }
parameter M, N;
vector#2 float img[M,N];
a = f(img:mirror);
b = f(img:wrap);
c = g(a:mirror);
d = g(b:wrap);
return c, d;
)", {{3, 4}, {1, 1}, {2, 2}, {1, 5}, {13, 17}}));
}

// Larger images (several tiles) and more dimensions for the other constructs.
void larger(std::vector<ProgramCase>& out) {
  out.push_back(make("large_blur_chain", R"(stencil bx(vector#2 float X) { return (X@[0,-1] + X + X@[0,1]) / 3; }
stencil by(vector#2 float Y) { return (Y@[-1,0] + Y + Y@[1,0]) / 3; }
stencil sub(vector#2 float A, vector#2 float B) { return A - B * 0.5f; }
parameter M, N;
vector#2 float img[M,N];
t1 = bx(img);
t2 = by(t1);
t3 = bx(t2:mirror);
t4 = by(t3:clamped);
return sub(t4, t1:wrap);
)", kLarge));
  out.push_back(make("large_int8_chain", R"(stencil d(vector#2 int8 X) { return cast<int8>(absd(X@[0,1], X@[1,0])); }
stencil s(vector#2 int8 X) { return cast<int8>((X@[-2,-2] + X@[2,2] + 2 * X) / 4); }
parameter M, N;
vector#2 int8 img[M,N];
e = d(img:extend);
return s(e);
)", kLarge));
  // Images wide enough that one thread's rows of the fused rings exceed half
  // of any L2: the CPU tiles cut them into strips (FusedTiles_C).
  out.push_back(make("wide_strips", R"(stencil a(vector#2 float X) { return X@[-2,0] + X@[2,1] * 0.5f - X@[0,-3]; }
stencil b(vector#2 float X) { return X@[-1,-1] - X@[2,2] + X; }
stencil c(vector#2 float X, vector#2 float Y) { return X@[1,0] * Y@[-2,1] + Y@[0,3]; }
parameter M, N;
vector#2 float img[M,N];
s1 = a(img:mirror);
s2 = b(s1:clamped);
s3 = a(s2);
return c(s3:mirror, s1);
)", {{7, 40009}, {12, 30011}, {3, 65537}}));
  // A heavy group whose first loop reads its input at 25 offsets: interior
  // blocks copy the input to shared memory first when its rows are 16-byte
  // aligned (N a multiple of 4 floats, 2 doubles; GroupLayout::Staged), the
  // other sizes read it from memory. Float, int and double.
  for (const char* T : {"float", "int", "double"})
    out.push_back(make(std::string("staged_window_") + T, fill(R"(stencil w5(vector#2 %T% X) {
  return (1 * X@[-2,-2] + 2 * X@[-2,-1] + 3 * X@[-2,0] + 4 * X@[-2,1] + 5 * X@[-2,2] + 6 * X@[-1,-2] + 7 * X@[-1,-1] + 8 * X@[-1,0] + 9 * X@[-1,1] + 10 * X@[-1,2] + 11 * X@[0,-2] + 12 * X@[0,-1] + 13 * X + 14 * X@[0,1] + 15 * X@[0,2] + 16 * X@[1,-2] + 17 * X@[1,-1] + 18 * X@[1,0] + 19 * X@[1,1] + 20 * X@[1,2] + 21 * X@[2,-2] + 22 * X@[2,-1] + 23 * X@[2,0] + 24 * X@[2,1] + 25 * X@[2,2]) / 7;
}
stencil dx(vector#2 %T% S) { return S@[0,1] - S@[0,-1] + 2 * (S@[1,1] - S@[-1,-1]); }
stencil dy(vector#2 %T% S) { return S@[1,0] - S@[-1,0] + S@[1,-1] * 3; }
stencil mix(vector#2 %T% A, vector#2 %T% B) { return A@[0,-1] * B@[1,0] - A + B@[-1,1]; }
parameter M, N;
vector#2 %T% img[M,N];
s = w5(img:mirror);
a = dx(s:mirror);
b = dy(s:clamped);
return mix(a:mirror, b:extend);
)", {{"%T%", T}}), {{13, 17}, {150, 1100}, {129, 512}, {70, 130}, {97, 258}}));
  // Staged reads times a power of two, 2^0 to 2^20, added to or subtracted
  // from a sum: one fma each in blocks whose staged window is below 2^100
  // (ExprContext::boundedRead), the product and the sum elsewhere. With
  // special values (-MAX next to MAX: MAX * 2 overflows where the fma would
  // not) every such block takes the second form, as it must. The float form
  // divides two bounded sums by odd constants (formac_div_odd_finite_f there:
  // a finite x; / -7 as -(x / 7)).
  for (const char* T : {"float", "double"})
    out.push_back(make(std::string("fused_scaled_taps_") + T, fill(R"(stencil taps(vector#2 %T% X) {
  a = (X@[-2,-2] + 2 * X@[-2,-1] - 4 * X@[-2,0] + X@[-2,1] * 8) / 3;
  b = 2 * X@[-1,-2] - (X@[-1,-1] + 3 * X@[-1,0]) + 1048576 * X@[-1,1];
  c = X@[0,-2] / 2 + 2097152 * X@[0,-1] - X * 16 + X@[0,1] * 1;
  d = (4 * X@[1,-2] - X@[1,-1] + X@[1,0] * 2 + X@[1,1]) / -7.0f;
  return a + b - c + d + (X@[2,-2] - 2 * X@[2,-1] + 6 * X@[2,0] - 1 * X@[2,1]);
}
stencil smooth(vector#2 %T% S) { return S@[0,-1] + 2 * S + S@[0,1]; }
parameter M, N;
vector#2 %T% img[M,N];
t = taps(img:mirror);
return smooth(t:clamped);
)", {{"%T%", T}}), {{13, 17}, {150, 1100}, {129, 512}, {70, 132}, {97, 258}}));
  // A struct of one float is staged as well (4 bytes), but its values are not
  // checked, so its power-of-two taps stay products: with special values,
  // -MAX + 2 * MAX must be +inf, as the program says.
  out.push_back(make("fused_staged_struct_one", R"(struct one { float v; }
stencil taps(vector#2 one X) {
  a = X@[-2,-2].v + 2 * X@[-2,-1].v - 4 * X@[-2,0].v + X@[-2,1].v * 8 + 2 * X@[-1,-2].v - X@[-1,-1].v;
  b = 1048576 * X@[-1,0].v + X@[-1,1].v + 2 * X@[0,-2].v - X@[0,-1].v + X.v * 16 + X@[0,1].v;
  c = 4 * X@[1,-2].v - X@[1,-1].v + X@[1,0].v * 2 + X@[1,1].v - 2 * X@[2,-1].v + X@[2,1].v;
  return (a + b - c) / 3;
}
stencil smooth(vector#2 float S) { return S@[0,-1] + 2 * S + S@[0,1]; }
parameter M, N;
vector#2 one img[M,N];
t = taps(img:mirror);
return smooth(t:clamped);
)", {{13, 17}, {150, 1100}, {129, 512}, {70, 132}}));
  // The same window read at twice the scale: not staged (the copy holds
  // q + offset reads only).
  out.push_back(make("staged_window_scaled", R"(stencil w5(vector#2 float X) {
  return (1 * X@[(-2,2),(-2,2)] + 2 * X@[(-2,2),(-1,2)] + 3 * X@[(-2,2),(0,2)] + 4 * X@[(-2,2),(1,2)] + 5 * X@[(-2,2),(2,2)] + 6 * X@[(-1,2),(-2,2)] + 7 * X@[(-1,2),(-1,2)] + 8 * X@[(-1,2),(0,2)] + 9 * X@[(-1,2),(1,2)] + 10 * X@[(-1,2),(2,2)] + 11 * X@[(0,2),(-2,2)] + 12 * X@[(0,2),(-1,2)] + 13 * X@[(0,2),(0,2)] + 14 * X@[(0,2),(1,2)] + 15 * X@[(0,2),(2,2)] + 16 * X@[(1,2),(-2,2)] + 17 * X@[(1,2),(-1,2)] + 18 * X@[(1,2),(0,2)] + 19 * X@[(1,2),(1,2)] + 20 * X@[(1,2),(2,2)] + 21 * X@[(2,2),(-2,2)] + 22 * X@[(2,2),(-1,2)] + 23 * X@[(2,2),(0,2)] + 24 * X@[(2,2),(1,2)] + 25 * X@[(2,2),(2,2)]) / 7;
}
stencil dx(vector#2 float S) { return S@[0,1] - S@[0,-1] + 2 * (S@[1,1] - S@[-1,-1]) + S@[-1,0] * S@[1,0]; }
parameter M, N;
vector#2 float img[M,N];
s = w5(img:mirror);
return dx(s:mirror);
)", {{13, 17}, {150, 1100}, {200, 700}, {97, 258}}));
  // Repeated subexpressions become lets (codegen/CommonSubexpressions.h):
  // canny's repeated tests under nested ?:, a product of reads, and an integer
  // division guarded against a zero divisor, which must stay under its guard
  // (d is 0 at a quarter of the points; evaluated there, it would trap).
  out.push_back(make("common_subexpressions", R"(stencil pick(vector#2 float X, vector#2 float Y) {
  ax = fabs(X);
  ay = fabs(Y);
  a = (ay <= 0.41421f * ax ? Y@[0,-1] : (ax <= 0.41421f * ay ? Y@[-1,0] : (X * Y > 0 ? Y@[-1,-1] : Y@[-1,1])));
  b = (ay <= 0.41421f * ax ? Y@[0,1] : (ax <= 0.41421f * ay ? Y@[1,0] : (X * Y > 0 ? Y@[1,1] : Y@[1,-1])));
  return (Y > a ? (Y >= b ? Y : 0.0f) : 0.0f) + (X@[1,1] - X) * (X@[1,1] - X);
}
stencil guard(vector#2 int8 Z) {
  d = Z@[0,1] % 4;
  return (d != 0 ? Z / d : 0) + (d != 0 ? Z / d : 7) + (Z@[1,0] - Z) / 3 * ((Z@[1,0] - Z) / 3);
}
stencil both(vector#2 float P, vector#2 int G) { return P@[1,0] + G@[0,-1] - P * G; }
parameter M, N;
vector#2 float img[M,N];
vector#2 float other[M,N];
vector#2 int8 bytes[M,N];
p = pick(img:mirror, other:mirror);
g = guard(bytes:clamped);
return both(p:mirror, g:clamped), g;
)", {{13, 17}, {2, 3}, {150, 1100}, {129, 512}}));
  // Integers to integer powers, converted to int: exact in the evaluator
  // (glibc's pow is within 1 ulp), where CUDA's pow and powf (2 and 4 ulp)
  // gave pow(86, 1) = 85.99999999999999 and so 85 (formac_pow_d).
  out.push_back(make("integer_powers", R"(stencil ipow(vector#2 int8 B, vector#2 int16 S) {
  e = B@[0,1] % 4;
  return cast<int>(B ^ e) + cast<int>(S ^ 1) + cast<int>((S % 200) ^ 3) + cast<int>((B % 16) ^ (e + 2));
}
stencil fpow(vector#2 int8 B) {
  return cast<int>(cast<float>(B % 64) ^ cast<float>(B@[1,0] % 4)) + cast<int>(cast<float>(B) ^ 2.0f);
}
parameter M, N;
vector#2 int8 bytes[M,N];
vector#2 int16 shorts[M,N];
return ipow(bytes:mirror, shorts), fpow(bytes:clamped);
)", {{13, 17}, {150, 1100}, {129, 512}}));
  // Reads indexed by reads, five deep, some under ?: and with constant(c):
  // each compound index is a let (bindReadIndices), computed even where the
  // ?: does not ask for it, with the evaluator's values.
  out.push_back(make("nested_index_reads", R"(stencil f(vector#2 int8 B, vector#2 float X) {
  i = B[B[B[cast<int>(X) % 5, 1] % 7, B@[0,1] % 3] % 9 - 2, 2];
  j = X > 0 ? B[i % 4, B[i % 3 + 1, i] % 5] : B[cast<int>(X@[1,0] * 3), -1];
  return X[j % 6, B[i % 5, j % 4] % 11 - 3] + i * j;
}
stencil g(vector#2 float X, vector#2 int8 B) {
  return X[cast<int>(X[B % 4, B@[1,1] % 5 - 1]) % 3, 2] + X@[-1,0];
}
parameter M, N;
vector#2 int8 bytes[M,N];
vector#2 float img[M,N];
return f(bytes, img:mirror), g(img:constant(0.5f), bytes:clamped);
)", {{13, 17}, {2, 3}, {1, 1}, {40, 9}}));
  out.push_back(make("large_downsample_chain", R"(stencil dn(vector#2 double A) {
  return 0.25 * A@[(-1,2),(-1,2)] + 0.5 * A@[(0,2),(0,2)] + 0.25 * A@[(1,2),(1,2)];
}
stencil sm(vector#2 double A) { return A@[-1,1] + A@[1,-1]; }
parameter M, N;
vector#2 double img[M,N];
return sm(dn(sm(img:mirror)));
)", kLarge));
  out.push_back(make("large_wide_offsets", R"(stencil f(vector#2 float X) { return X@[-7,9] + X@[11,-13] * 2; }
stencil g(vector#2 float X) { return X@[25,-40] - X@[-31,3]; }
parameter M, N;
vector#2 float img[M,N];
a = f(img:mirror);
b = f(img:clamped);
c = g(a:mirror);
d = g(b:clamped);
e = f(c:extend);
return e, d;
)", {{13, 17}, {3, 4}, {150, 1100}, {45, 700}, {129, 80}}));
  out.push_back(make("large_diamond_struct", std::string(kStruct) + R"(stencil sp(vector#2 float X) { return struct s3(X@[-1,0] * 0.5f, cast<int16>(X * 100), cast<int8>(X * 10)); }
stencil l(vector#2 s3 S) { return S@[0,-2].a + S@[0,2].b; }
stencil r(vector#2 s3 S) { return S@[2,0].c - S@[-2,1].a; }
stencil j(vector#2 float A, vector#2 float B) { return A * B + A@[1,1]; }
parameter M, N;
vector#2 float img[M,N];
s = sp(img:mirror);
left = l(s:clamped);
right = r(s:mirror);
return j(left:mirror, right:constant(2));
)", kLarge));
  // A last tile narrower than the halo: a mirrored read there reflects below
  // the tile's region (tiles of 64 rows, 512 columns).
  out.push_back(make("fused_mirror_last_tile", R"(stencil id(vector#2 float S) { return S; }
stencil up(vector#2 float A) { return A@[1,0] - A@[0,1] * 2; }
stencil dn(vector#2 float A) { return A@[-1,0] + A@[0,-1]; }
parameter M, N;
vector#2 float img[M,N];
a = id(img);
b = up(a:mirror);
c = id(img:wrap);
return b, dn(c:mirror);
)", {{13, 17}, {65, 5}, {3, 513}, {129, 1025}, {66, 514}}));
  out.push_back(make("fused_scalars_compose", R"(stencil f(vector#2 double X, double k) { return X@[0,-1] * k + X@[2,0]; }
stencil g(vector#2 double A, int n) { return A@[-1,0] / n + A; }
stencil h(vector#2 double A) { return A@[1,1] - A; }
parameter M, N;
double k;
vector#2 double img[M,N];
int n;
a = f(img:clamped, k);
b = g(a, n);
return ( @[(0,2),(0,1)] = h(b:extend); @[(1,2),(0,1)] = g(b:constant(2), n); );
)", {{13, 17}, {2, 3}, {150, 1100}, {65, 513}}));
  const std::vector<std::vector<long long>> r3 = {{5, 7, 3}, {1, 1, 1}, {2, 3, 4}, {9, 11, 10}};
  out.push_back(make("rank3_constructs", R"(stencil f(vector#3 float X) { return X@[(1,2),0,(-1,3)] + X@[(0,2),1,(2,3)]; }
parameter A, B, C;
vector#3 float img[A,B,C];
small = f(img:wrap);
picked = img@[(1,2),(0,1),(-1,3)];
sc@[(1,2),(0,1),(-2,3)] = small;
up = ( @[(0,1),(0,2),(0,1)] = img; @[(0,1),(1,2),(0,1)] = img@[0,1,0]; );
return sc, picked, up;
)", r3));
  out.push_back(make("rank1_constructs", R"(stencil f(vector#1 int8 X) { return cast<int8>(X@[(1,2)] + X@[(-3,2)]); }
parameter N;
vector#1 int8 v[N];
h = f(v:mirror);
s@[(3,3)] = h;
up = ( @[(0,2)] = v; @[(1,2)] = v@[1]; );
crop = v[2..N-2];
return s, up, crop;
)", {{1}, {2}, {7}, {13}, {300}}));
  out.push_back(make("size_expressions", R"(stencil f(vector#2 float X) { return X@[1,-1] * 2; }
parameter M, N, P;
vector#2 float img[2*M+1, (N+3)/2];
vector#2 float other[2*M+1, (N+3)/2];
a = f(img:wrap);
b = f(other);
c = a[1..P, ..];
return c, b;
)", {{3, 5, 2}, {1, 1, 1}, {6, 13, 12}, {0, 2, 0}}));
  out.push_back(make("index_reads_constant", R"(stencil f(vector#2 float X, vector#2 float W) {
  return W[cast<int>(X * 3), cast<int>(X) + 1] - W[2, -1];
}
parameter M, N;
vector#2 float img[M,N];
vector#2 float w[M,N];
return f(img, w:constant(5));
)"));
}

// ------------------------------------------------------------ fused ranks 1, 3, 4
// Chains the C backend fuses in ranks other than 2: rank 3 and 4 slide
// planes down bands (rings of planes, the middle dimensions whole), rank 1
// computes chunks with their halos. Sizes with many bands, several strips
// (rings over half the L2) and several chunks.
void fusedRanks(std::vector<ProgramCase>& out) {
  const char* heat = R"(stencil heat(vector#3 float U) {
  return U + 0.125f * (U@[-1,0,0] + U@[1,0,0] + U@[0,-1,0] + U@[0,1,0] + U@[0,0,-1] + U@[0,0,1] - 6.0f * U);
}
stencil far(vector#3 float U) { return U@[-2,0,0] * 0.5f + U@[0,2,-3] - U@[3,-1,0]; }
parameter A, B, C;
vector#3 float u[A,B,C];
u1 = heat(u:clamped);
u2 = heat(u1:mirror);
u3 = far(u2%MODE%);
u4 = heat(u3);
return heat(u4%MODE%);
)";
  for (const std::string m : {":clamped", ":mirror", "", ":extend", ":constant(2)"}) {
    std::vector<std::vector<long long>> runs = {{1, 1, 1}, {2, 3, 4}, {9, 11, 10}, {37, 23, 19}, {4, 1, 70},
                                                {100, 3, 5}};  // 3 bands of 44 planes
    if (m == ":mirror") runs.push_back({20, 150, 900});  // rings over half the L2: several strips
    std::string tag = m.empty() ? "none" : m.substr(1, m.find('(') - 1);
    out.push_back(make("fused_rank3_" + tag, fill(heat, {{"%MODE%", m}}), runs));
  }
  out.push_back(make("fused_rank4", R"(stencil f(vector#4 float X) {
  return X@[-1,0,1,0] + X@[1,-1,0,2] * 0.5f - X@[0,1,-1,-1];
}
stencil sq(vector#4 float X) { return X * X; }
parameter A, B, C, D;
vector#4 float v[A,B,C,D];
a = f(v:mirror);
b = sq(a);
c = f(b:clamped);
return f(c);
)",
                     {{1, 1, 1, 1}, {3, 5, 4, 2}, {6, 7, 5, 80}, {11, 2, 3, 9}, {50, 2, 3, 4}}));
  out.push_back(make("fused_rank1", R"(stencil f(vector#1 int X) { return X@[-2] + 3 * X - X@[1]; }
stencil g(vector#1 int X) { return X@[4] / 2 + X@[-3]; }
stencil sq(vector#1 int X) { return X * X; }
parameter N;
vector#1 int v[N];
a = f(v:mirror);
b = sq(a);
c = g(b:clamped);
d = f(c);
return g(d:mirror);
)",
                     {{1}, {2}, {5}, {13}, {4097}, {70001}}));
}

}  // namespace

std::vector<std::vector<long long>> standardRuns(size_t params) {
  switch (params) {
    case 0: return {{}};
    case 1: return {{13}, {1}, {2}};
    case 2: return {{13, 17}, {1, 7}, {3, 2}, {11, 14}, {70, 130}};
    case 3: return {{5, 7, 3}, {1, 1, 1}, {2, 3, 4}};
    case 4: return {{3, 5, 2, 4}, {1, 1, 1, 1}};
    default: return {std::vector<long long>(params, 3)};
  }
}

std::vector<ProgramCase> matrixCases() {
  std::vector<ProgramCase> out;
  typesAndModes(out);
  ranks(out);
  fusedRanks(out);
  constructs(out);
  misc(out);
  larger(out);
  reductions(out);
  periodic(out);
  reframed(out);
  return out;
}

std::vector<ProgramCase> contractionCases() {
  std::vector<ProgramCase> out;
  const char* fl = R"(stencil f(vector#2 %T% X, vector#2 %T% Y) {
  a = X * Y + X@[0,1];
  b = X@[1,0] * X@[-1,0] - Y * Y@[0,-1];
  c = a * b + X * 0.3 + Y * Y * Y;
  return c - a * Y + b * X;
}
parameter M, N;
vector#2 %T% img[M,N];
vector#2 %T% other[M,N];
return f(img:%MODE%, other:%MODE%);
)";
  for (const char* t : {"float", "double"})
    for (const char* m : {"mirror", "wrap", "clamped"})
      out.push_back(make(std::string("fma_") + t + "_" + m, fill(fl, {{"%T%", t}, {"%MODE%", m}}),
                         {{13, 17}, {70, 130}}));
  return out;
}

std::vector<ProgramCase> compatCases(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return {};
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".idsl") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<ProgramCase> out;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    // The parameter count decides the sizes: count the names declared by
    // `parameter` statements.
    size_t params = 0;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      size_t at = line.find("parameter");
      if (at != 0) continue;
      params += 1 + static_cast<size_t>(std::count(line.begin(), line.end(), ','));
    }
    std::string name = "compat_" + f.stem().string();
    for (char& c : name)
      if (!isalnum(static_cast<unsigned char>(c))) c = '_';
    out.push_back(make(name, text, standardRuns(params)));
  }
  return out;
}

}  // namespace formac::e2e
