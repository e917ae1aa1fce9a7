#include "ProgramMatrix.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

namespace formac::e2e {
namespace {

using Subs = std::vector<std::pair<std::string, std::string>>;

// Replaces every %KEY% of `subs` in `text`.
std::string fill(std::string text, const Subs& subs) {
  for (const auto& [key, value] : subs)
    for (size_t at; (at = text.find(key)) != std::string::npos;) text.replace(at, key.size(), value);
  return text;
}

struct Mode {
  std::string spelling;  // "" for none
  std::string tag;
};
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

// Runs for 2-D programs with parameters M, N: a prime shape, 1x1, 1xN, Nx1,
// smaller than the reach of the stencils below, offsets larger than the image,
// and larger than a tile.
const std::vector<std::vector<long long>> k2D = {{13, 17}, {1, 1}, {1, 7}, {7, 1}, {2, 3},
                                                 {3, 4},   {0, 3}, {4, 0}, {70, 130}};
// Several tiles of a fused group in both directions.
const std::vector<std::vector<long long>> kLarge = {{13, 17}, {2, 3}, {150, 1100}, {129, 513}};

const char* kStruct = "struct s3 { float a; int16 b; int8 c; }\n";

ProgramCase make(const std::string& name, const std::string& source,
                 std::vector<std::vector<long long>> runs = k2D) {
  return ProgramCase{name, source, std::move(runs)};
}

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
  for (const char* t : {"int8", "int16", "int", "float", "double", "s3"}) {
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

// ------------------------------------------------------------ constructs
// Each template is instantiated for float and int8 (%T%); %CT(e)% spells
// cast<T>(e) so int8 programs keep int8 images.
struct Template {
  std::string name;
  std::string floatSource, int8Source;  // int8Source empty: the float one with %T% = int8
};

std::string forType(const Template& tp, const std::string& t) {
  const std::string& src = (t == "int8" && !tp.int8Source.empty()) ? tp.int8Source : tp.floatSource;
  return fill(src, {{"%T%", t}});
}

std::vector<Template> constructTemplates() {
  std::vector<Template> v;
  const char* header = "parameter M, N;\nvector#2 %T% img[M,N];\n";
  auto chain = [&](const std::string& m1, const std::string& m2) {
    return Template{"chain_" + m1 + "_" + m2,
                    std::string(R"(stencil bx(vector#2 %T% X) { return cast<%T%>((X@[0,-1] + 2 * X + X@[0,1]) / 4); }
stencil by(vector#2 %T% Y) { return cast<%T%>((Y@[-1,0] + 2 * Y + Y@[1,0]) / 4); }
)") + header + "tmp = bx(" + withMode("img", mode(m1)) + ");\nout = by(" + withMode("tmp", mode(m2)) +
                        ");\nreturn out;\n",
                    ""};
  };
  v.push_back(chain("none", "none"));
  v.push_back(chain("mirror", "none"));
  v.push_back(chain("none", "wrap"));
  v.push_back(chain("clamped", "constant"));
  v.push_back(chain("wrap", "mirror"));

  auto two = [&](const std::string& tag, const std::string& a, const std::string& b) {
    return Template{"twoargs_" + tag,
                    std::string(R"(stencil two(vector#2 %T% P, vector#2 %T% Q) {
  return cast<%T%>(P@[-3,-2] + P@[2,3] - Q@[-2,-3] + Q@[3,2]);
}
parameter M, N;
vector#2 %T% one[M,N];
vector#2 %T% other[M,N];
)") + "out = two(" + a + ", " + b + ");\nreturn out;\n",
                    ""};
  };
  v.push_back(two("none_wrap", "one", "other:wrap"));
  v.push_back(two("clamped_mirror", "one:clamped", "other:mirror"));
  v.push_back(two("same_mirror_wrap", "one:mirror", "one:wrap"));
  v.push_back(two("constant_none", "one:constant(2)", "other"));
  v.push_back(two("extend_constant7", "one:extend", "other:constant(7)"));

  v.push_back({"scalar_inputs", R"(stencil sc(vector#2 %T% X, float k, int n) {
  return cast<%T%>(X * k + X@[0,1] / n);
}
parameter M, N;
float k;
vector#2 %T% img[M,N];
int n;
return sc(img:mirror, k, n);
)", ""});
  v.push_back({"scalar_literals", R"(stencil sc(vector#2 %T% X, double k, int8 n) {
  return cast<%T%>(X * k - X@[1,0] / n + n);
}
double w;
parameter M, N;
vector#2 %T% img[M,N];
int8 n;
out = sc(img, 2.5, n);
return out;
)", ""});
  v.push_back({"ternary", R"(stencil t(vector#2 %T% X, vector#2 %T% Y) {
  c = (X > Y ? X - Y : Y@[0,1] * 2);
  d = (X@[1,0] == Y ? 1 : (X < 0.5 ? -1 : 0));
  e = X > 1 && Y < 3 || !(X == Y) ? 1 : 0;
  return cast<%T%>(c + d + e + (X > 0 ? X : -X));
}
parameter M, N;
vector#2 %T% img[M,N];
vector#2 %T% other[M,N];
return t(img:wrap, other);
)", ""});
  v.push_back({"math", R"(stencil m(vector#2 float X, vector#2 float Y) {
  a = sqrt(fabs(X)) + exp(X / 4) - log(fabs(Y) + 1);
  b = min(X, Y) * max(X@[0,1], Y) + abs(X - Y) - absd(X, Y@[1,0]);
  c = floor(X * 3) + ceil(Y) + round(X - Y) + X ^ 2 + fabs(Y) ^ 0.5;
  d = sin(X) * cos(Y) + atan(X) + atan2(Y, X) + tan(X / 8);
  e = sqrtf(fabs(Y)) + expf(Y / 8) + fminf(X, 1.5f) + fmaxf(Y, -0.5f) + min(X, 2);
  return a + b + c + d + e;
}
parameter M, N;
vector#2 float img[M,N];
vector#2 float other[M,N];
return m(img:mirror, other:clamped);
)", R"(stencil m(vector#2 int8 X, vector#2 int8 Y) {
  a = abs(X - Y) + absd(X, Y@[0,1]) + min(X, Y@[1,0]) - max(X, 100);
  b = sqrt(X) + floor(X / 3) + (X / 16) ^ 2 - cast<int>(exp(Y / 64.0)) + absd(Y, 200);
  return cast<int8>(a + b);
}
parameter M, N;
vector#2 int8 img[M,N];
vector#2 int8 other[M,N];
return m(img:mirror, other:clamped);
)"});
  v.push_back({"math_double", R"(stencil m(vector#2 double X) {
  a = sqrt(fabs(X)) + exp(X / 4) - log(fabs(X@[1,0]) + 1) + X ^ 3 + pow(fabs(X), 1.5);
  b = min(X, X@[0,1]) - max(X, 0.25) + abs(X@[-1,0]) + absd(X, 1) + floor(X) + ceil(X) + round(X);
  return a * b + sin(X) + cos(X) + atan2(X, X@[0,-1]) + cast<float>(X) * 3.0f;
}
parameter M, N;
vector#2 double img[M,N];
return m(img:wrap);
)", R"(stencil m(vector#2 int8 X) {
  return abs(X - 128) + absd(X, X@[1,0]) + min(X, X@[0,1]) + max(X, 7) + sqrt(X);
}
parameter M, N;
vector#2 int8 img[M,N];
return m(img:wrap);
)"});
  v.push_back({"casts", R"(stencil c(vector#2 float X) {
  a = cast<int>(X * 7.5) % 11;
  b = cast<float>(cast<int16>(X * 1000)) / 3;
  d = cast<double>(X) / 7 + cast<int8>(fabs(X) * 20);
  e = cast<float>(cast<double>(X) * 0.1) + cast<int>(X) / 2;
  return a + b + d + e;
}
parameter M, N;
vector#2 float img[M,N];
return c(img:extend);
)", R"(stencil c(vector#2 int8 X) {
  a = cast<int16>(X * 100) + cast<int8>(X + 200);
  b = cast<float>(X) / 7 + cast<double>(X) / 3.0;
  d = cast<int8>(X / 2.0 + 3) + cast<int>(b) % 5;
  return cast<int8>(a - d) + cast<int>(b * 4) + cast<int8>(-X);
}
parameter M, N;
vector#2 int8 img[M,N];
return c(img:extend);
)"});
  v.push_back({"intdiv", R"(stencil d(vector#2 float X, vector#2 float Y) {
  x = cast<int>(X * 250);
  y = cast<int>(Y * 250);
  a = x / (y % 7);
  b = x % (cast<int>(Y@[0,1] * 3) / 4 - 1);
  return a * 3 + b - cast<int>(X@[1,0] * 100) / -4 + x % -3;
}
parameter M, N;
vector#2 float img[M,N];
vector#2 float other[M,N];
return d(img:mirror, other);
)", R"(stencil d(vector#2 int8 X, vector#2 int8 Y) {
  a = X / (Y % 7) + (X - 128) / (Y - 128);
  b = (X - 200) % (Y@[0,1] / 64 - 1);
  return a * 3 + b - X@[1,0] / -4 + (X - 100) % -3 + -X % 7;
}
parameter M, N;
vector#2 int8 img[M,N];
vector#2 int8 other[M,N];
return d(img:mirror, other);
)"});
  for (const char* tag : {"none", "mirror", "wrap", "clamped", "constant"}) {
    Mode m = mode(tag);
    v.push_back({std::string("downsample_") + tag, std::string(R"(stencil dn(vector#2 %T% A) {
  return cast<%T%>((A@[(-1,2),(5,3)] + A@[(0,2),(0,3)] * 2 + A@[(1,2),(-4,3)] + A@[(3,2),(8,3)]) / 5);
}
)") + header + "return dn(" + withMode("img", m) + ");\n", ""});
  }
  v.push_back({"downsample_mixed", std::string(R"(stencil dr(vector#2 %T% A) {
  return cast<%T%>(A@[(-2,2),1] + A@[(2,2),-1] - A@[(0,2),0]);
}
stencil dc(vector#2 %T% B) { return cast<%T%>(B@[0,(-1,2)] + B@[0,(1,2)]); }
)") + header + "return dc(dr(img:mirror));\n", ""});
  const char* samples[][2] = {{"sample_m1_2_5_3", "img@[(-1,2),(5,3)]"},
                              {"sample_0_2_0_2", "img@[(0,2),(0,2)]"},
                              {"sample_3_3_m4_2", "img@[(3,3),(-4,2)]"},
                              {"sample_shift", "img@[1,-2]"}};
  for (auto& s : samples)
    v.push_back({s[0], std::string(header) + "picked = " + s[1] + ";\nreturn picked;\n", ""});
  v.push_back({"scatter", std::string(header) + "dest@[(-7,3),(5,2)] = img;\nreturn dest;\n", ""});
  v.push_back({"scatter_call", std::string("stencil f(vector#2 %T% X) { return cast<%T%>(X@[1,0] + X); }\n") +
                                   header + "dest@[(1,2),(0,1)] = f(img:mirror);\nreturn dest;\n", ""});
  v.push_back({"scatter_shift", std::string(header) + "dest@[2,-1] = img;\nreturn dest;\n", ""});
  v.push_back({"compose_rows", std::string(R"(stencil e(vector#2 %T% S) { return cast<%T%>(S@[-1,0] / 4 + S * 3 / 4); }
stencil o(vector#2 %T% S) { return cast<%T%>(S@[1,0] / 4 + S * 3 / 4); }
)") + header + "return ( @[(0,2),(0,1)] = e(img);\n         @[(1,2),(0,1)] = o(img); );\n", ""});
  v.push_back({"compose_up2d", R"(stencil r0(vector#2 %T% A) { return cast<%T%>(A@[-1,0] / 4 + A * 3 / 4); }
stencil r1(vector#2 %T% A) { return cast<%T%>(A@[1,0] / 4 + A * 3 / 4); }
vector uprows(vector#2 %T% A) {
  return ( @[(0,2),(0,1)] = r0(A:mirror); @[(1,2),(0,1)] = r1(A:mirror); );
}
stencil c0(vector#2 %T% B) { return cast<%T%>(B@[0,-1] / 4 + B * 3 / 4); }
stencil c1(vector#2 %T% B) { return cast<%T%>(B@[0,1] / 4 + B * 3 / 4); }
vector upcols(vector#2 %T% B) {
  return ( @[(0,1),(0,2)] = c0(B:wrap); @[(0,1),(1,2)] = c1(B); );
}
parameter M, N;
vector#2 %T% img[M,N];
return upcols(uprows(img));
)", ""});
  v.push_back({"compose_placed", std::string("stencil f(vector#2 %T% X) { return cast<%T%>(X@[1,0] - X); }\n") +
                                     header + "r = ( [0..M-1,0..N-1] = 3; [1.., 1..] = f(img); );\nreturn r;\n",
               ""});
  v.push_back({"compose_three", std::string("stencil sh(vector#2 %T% X) { return X@[-1,1]; }\n") + header +
                                    "w = sh(img:wrap);\nr = ( @[(0,3),(0,1)] = img; @[(1,3),(0,1)] = img@[1,0]; @[(2,3),(0,1)] = w; );\nreturn r;\n",
               ""});
  v.push_back({"crop_arg", std::string("stencil id(vector#2 %T% V) { return V; }\n") + header +
                               "res = id(img[3..M-1, 4..N-2]);\nreturn res;\n", ""});
  v.push_back({"crop_mode", std::string("stencil f(vector#2 %T% V) { return cast<%T%>(V@[-1,1] + V@[2,0]); }\n") +
                                header + "res = f(img[1..M-2, ..]:mirror);\nreturn res;\n", ""});
  v.push_back({"crop_beyond", std::string("stencil f(vector#2 %T% V) { return cast<%T%>(V + V@[0,1]); }\n") +
                                  header + "res = f(img[2..5, 1..]);\nreturn res;\n", ""});
  v.push_back({"crop_return", std::string("stencil f(vector#2 %T% V) { return cast<%T%>(V@[1,1] * 2); }\n") +
                                  header + "whole = f(img:wrap);\nreturn whole[1..M-2, 2..N-3];\n", ""});
  v.push_back({"place_call", std::string("stencil f(vector#2 %T% V) { return cast<%T%>(V@[0,-1] + V); }\n") +
                                 header + "out[2..,3..] = f(img:clamped);\nreturn out;\n", ""});
  v.push_back({"place_3d", std::string(header) + "placed[1..,3..,5..] = img;\nreturn placed;\n", ""});
  v.push_back({"place_open", std::string(header) + "out[..,4..] = img;\nreturn out;\n", ""});
  v.push_back({"vector_functions", R"(stencil blur(vector#2 %T% X) { return cast<%T%>((X@[-1,0] + X + X@[1,0]) / 3); }
stencil diff(vector#2 %T% A, vector#2 %T% B) { return cast<%T%>(A - B + 1); }
vector smooth(vector#2 %T% X) {
  blur = blur(X:mirror);
  return blur(blur:mirror);
}
vector dog(vector#2 %T% X) { return diff(smooth(X), X); }
parameter M, N;
vector#2 %T% img[M,N];
vector#2 %T% other[M,N];
a = dog(img);
b = dog(other);
return diff(a, b:wrap);
)", ""});
  v.push_back({"vector_function_nested_modes", R"(stencil sh(vector#2 %T% X) { return X@[-2,3]; }
vector twice(vector#2 %T% X) { return sh(sh(X:wrap):mirror); }
vector four(vector#2 %T% X) { return twice(twice(X)); }
parameter M, N;
vector#2 %T% img[M,N];
return four(img);
)", ""});
  v.push_back({"for_loop_mirror", R"(stencil step(vector#2 %T% X) {
  return cast<%T%>((X@[-1,0] + X@[1,0] + X + X@[0,-1] + X@[0,1]) / 5);
}
parameter M, N;
vector#2 %T% img[M,N];
g<0> = img;
for t = 1..4
  g<t> = step(g<t-1>:mirror);
endfor
return g<4>;
)", ""});
  v.push_back({"for_loop_zero_ring", R"(stencil step(vector#2 %T% X) { return cast<%T%>((X@[-1,0] + X@[1,1]) / 2 + X); }
stencil add(vector#2 %T% A, vector#2 %T% B) { return cast<%T%>(A - B); }
parameter M, N;
vector#2 %T% img[M,N];
h<1> = img;
for i = 2..5
  h<i> = step(h<i-1>);
endfor
for j = 1..2
  d<j> = add(h<j+3>, h<j>:wrap);
endfor
return add(d<1>, d<2>);
)", ""});
  return v;
}

void constructs(std::vector<ProgramCase>& out) {
  for (const Template& tp : constructTemplates())
    for (const char* t : {"float", "int8"}) out.push_back(make(tp.name + "_" + t, forType(tp, t)));
  // Structs: construction, field access, projections, struct selects.
  out.push_back(make("struct_build", std::string(kStruct) + R"(stencil mk(vector#2 float X, vector#2 int8 Y) {
  return struct s3(X@[0,1] * 2, cast<int16>(X * 1000) + Y, Y@[1,0] + 200);
}
stencil use(vector#2 s3 S) {
  v = (S.a > 0 ? S : S@[1,1]);
  return struct s3(v.a + S@[-1,0].a, v.b - S.b, v.c);
}
parameter M, N;
vector#2 float x[M,N];
vector#2 int8 y[M,N];
s = mk(x:mirror, y:wrap);
return use(s:constant(2));
)"));
  out.push_back(make("struct_statement", R"(struct pix { int8 r; int8 g; int8 b; }
stencil red(vector#2 pix P) { return cast<int8>(P.r + P@[1,0].g); }
parameter M, N;
vector#2 pix photo[M,N];
whole = struct pix(red(photo:clamped), photo.g, photo.b);
return whole[1..M-2, 2..N-3];
)"));
  out.push_back(make("struct_projection", std::string(kStruct) + R"(stencil f(vector#2 float A, vector#2 int16 B) { return A * B; }
parameter M, N;
vector#2 s3 img[M,N];
a = img.a;
b = img.b;
return f(a:mirror, b:wrap);
)"));
  out.push_back(make("struct_double_copy", R"(struct rgbd { double r; double g; double b; }
stencil sh(vector#2 rgbd P) { return P@[-2,3]; }
stencil lum(vector#2 rgbd P) { return 0.25 * P.r + 0.5 * P.g + 0.25 * P@[0,1].b; }
parameter M, N;
vector#2 rgbd img[M,N];
s = sh(img:constant(2));
t = sh(s:mirror);
return lum(t);
)"));
  out.push_back(make("struct_padding", R"(struct mix { int8 tag; double v; int16 w; }
stencil f(vector#2 mix P) { return struct mix(P@[0,1].tag, P.v * P@[1,0].w, P.w / 3); }
parameter M, N;
vector#2 mix img[M,N];
return f(img:wrap);
)"));
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
b = shi(bytes:constant(300));
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
  constructs(out);
  misc(out);
  larger(out);
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
