// The reduction programs of the e2e matrix (LANGUAGE.md §7; declared in
// Templates.h): every op over element types, the whole image and along each
// dimension at ranks 1-3, reductions feeding stencils' scalar parameters, a
// reduction of a computed stage (and of a reduction), several outputs with
// returned scalars. Sizes cross the chunk of 2048 points (ir::kSumChunk)
// along a line and in total: empty domains, 1x1, 1xN, primes, lines of
// 2049 and 4099 points, and 2049x2049 (more than 2048 partials: three
// levels of the floating-sum rule).
#include <string>
#include <vector>

#include "Templates.h"

namespace formac::e2e {
namespace {

const char* const kParams[] = {"A", "B", "C"};

// sum, min, max, count, any and all of `img` (along `dim`, -1: every point),
// all returned.
std::string everyOp(const std::string& type, int rank, int dim) {
  std::string ext, decl;
  for (int d = 0; d < rank; ++d) {
    ext += std::string(d ? "," : "") + kParams[d];
    decl += std::string(d ? ", " : "") + kParams[d];
  }
  std::string along = dim < 0 ? "" : ", " + std::to_string(dim);
  std::string t = "parameter " + decl + ";\nvector#" + std::to_string(rank) + " " + type + " img[" + ext + "];\n";
  for (const char* op : {"sum", "min", "max", "count", "any", "all"})
    t += std::string("r_") + op + " = " + op + "(img" + along + ");\n";
  return t + "return r_sum, r_min, r_max, r_count, r_any, r_all;\n";
}

// The ranges of histogram(), a mask's threshold that few points pass,
// per element type (the random values of Values.h).
struct SelectionType {
  const char* type;
  const char* lo;
  const char* hi;
  const char* rare;
};
const SelectionType kSelectionTypes[] = {
    {"int8", "0", "256", "250"},           {"int16", "-3000", "3001.5", "2990"}, {"uint16", "0", "65536", "65000"},
    {"int", "-1000", "1000", "990"},       {"int64", "-1099511627776.0", "1099511627777.0", "cast<int64>(1090000) * 1000000"},
    {"float", "-4", "4", "3.9"},           {"double", "-4", "4.25", "3.9"}};

// histogram, where and topk of `img` (and of a constant image, a mask) of
// one element type, all returned.
std::string selections(const SelectionType& s) {
  return fill(R"(stencil flat(vector#2 %T% X) { return cast<%T%>(5); }
stencil dense(vector#2 %T% X) { return cast<int8>(X > 0); }
stencil rare(vector#2 %T% X) { return cast<int8>(X > %RARE%); }
parameter M, N;
vector#2 %T% img[M,N];
h_warp = histogram(img, 61, %LO%, %HI%);
h_block = histogram(img, 3000, %LO%, %HI%);
h_global = histogram(img, 10000, %LO%, %HI%);
h_inner = histogram(img, 8, -2.5, 2.5);
h_one = histogram(flat(img), 10, 0, 10);
w_1 = where(dense(img), 1);
w_dense = where(dense(img), 3000);
w_rare = where(rare(img), 5000);
w_img = where(img, 50);
t_1 = topk(img, 1);
t_7 = topk(img, 7);
t_big = topk(img, 2500);
t_all = topk(img, 5000);
t_ties = topk(flat(img), 5);
return h_warp, h_block, h_global, h_inner, h_one, w_1, w_dense, w_rare, w_img, t_1, t_7, t_big, t_all, t_ties;
)", {{"%T%", s.type}, {"%LO%", s.lo}, {"%HI%", s.hi}, {"%RARE%", s.rare}});
}

}  // namespace

void reductions(std::vector<ProgramCase>& out) {
  const std::vector<std::vector<long long>> r1 = {{13}, {1}, {0}, {2}, {2048}, {2049}, {4097}, {70001}};
  const std::vector<std::vector<long long>> r2 = {{13, 17}, {1, 1},  {1, 7},     {7, 1},     {0, 3},
                                                  {4, 0},   {70, 130}, {3, 2049}, {2050, 3}, {30, 4099},
                                                  {4099, 30}, {70, 4099}};
  const std::vector<std::vector<long long>> r3 = {{5, 7, 3}, {1, 1, 1}, {2, 0, 3},    {2, 3, 4},
                                                  {3, 1, 2049}, {2049, 2, 3}, {2, 2050, 3}};
  const std::vector<std::string> all = {"float", "double", "int8", "int16", "uint16", "int", "int64"};
  for (const char* t : {"float", "double", "int16", "int64"})
    out.push_back(make(std::string("reduce_r1_") + t, everyOp(t, 1, -1), r1));
  for (const auto& t : all)
    for (int dim = -1; dim < 2; ++dim)
      out.push_back(make("reduce_r2_" + t + (dim < 0 ? "_whole" : "_dim" + std::to_string(dim)), everyOp(t, 2, dim), r2));
  for (const char* t : {"float", "int", "int8"})
    for (int dim = -1; dim < 3; ++dim)
      out.push_back(make(std::string("reduce_r3_") + t + (dim < 0 ? "_whole" : "_dim" + std::to_string(dim)),
                         everyOp(t, 3, dim), r3));

  // Histograms, where and topk: every type at the chunk-crossing sizes;
  // rank 1 and 3 with one of each.
  for (const auto& s : kSelectionTypes) out.push_back(make(std::string("reduce_select_") + s.type, selections(s), r2));
  out.push_back(make("reduce_select_r1", R"(parameter A;
vector#1 float img[A];
h = histogram(img, 256, -4, 4);
w = where(img, 3000);
t = topk(img, 2049);
return h, w, t;
)", r1));
  out.push_back(make("reduce_select_r3", R"(stencil grad(vector#3 int16 X) { return X@[0,0,1] - X@[0,0,-1] + X@[1,0,0]; }
parameter A, B, C;
vector#3 int16 img[A,B,C];
g = grad(img:mirror);
h = histogram(g, 500, -9000, 9000);
w = where(g, 100);
t = topk(g, 100);
return h, w, t;
)", r3));

  // Histograms of rank-2 stencils (CUDA: counted by the stencil's tiled
  // kernel as each point is computed, never stored; passes/KernelEpilogue.h):
  // shift rules and the rule's function, a copy of the counts a warp (256
  // bins), one a block (3000) and none (10000: atomics into the result), a
  // fused chain, and a stencil that another stage reads too (stored).
  out.push_back(make("reduce_hist_stencil", R"(stencil grad(vector#2 int8 X) {
  return cast<int8>((absd(X@[1,0], X@[-1,0]) + absd(X@[0,1], X@[0,-1])) / 2);
}
stencil diff(vector#2 float X) { return X@[0,1] - X@[0,-1] + 0.5 * X@[1,1]; }
stencil box(vector#2 float X) { return (X@[-1,0] + X + X@[1,0]) / 3; }
stencil steps(vector#2 float X) { return cast<int16>(X * 700); }
parameter M, N;
vector#2 float img[M,N];
vector#2 int8 bytes[M,N];
h_shift = histogram(grad(bytes:clamped), 256, 0, 256);
h_rule = histogram(diff(img:mirror), 61, -2.5, 3);
h_block = histogram(diff(box(img:clamped):wrap), 3000, -4, 4);
h_global = histogram(diff(img:constant(0.25)), 10000, -3, 3);
d = diff(img:clamped);
h_shared = histogram(d, 100, -2, 2);
h_words = histogram(steps(box(img:mirror)), 64, -512, 512);
return h_shift, h_rule, h_block, h_global, h_shared, d, h_words;
)", {{13, 17}, {1, 1}, {1, 70}, {70, 1}, {0, 3}, {33, 65}, {97, 131}, {300, 257}, {1031, 2049}}));

  // where over more than 32 CUDA tiles of 8 chunks (16384 points): a tile's
  // look-back reads the words of the tiles before it 32 at a time, and goes
  // on past a window without a tile whose total is published.
  out.push_back(make("reduce_where_tiles", R"(stencil dense(vector#2 float X) { return cast<int8>(X > 0); }
parameter M, N;
vector#2 float img[M,N];
w = where(dense(img), 700000);
few = where(dense(img), 3);
return w, few;
)", {{1100, 600}, {1, 540673}}));

  // Point-wise inputs (CUDA: 16 bytes a lane; ReduceFlat_CUDA.h): two
  // producers of different widths, a comparison, 8-bit histograms whose bins
  // are a shift (every value counted, or a range checked) and a table.
  out.push_back(make("reduce_pointwise", R"(stencil mix(vector#2 float X, vector#2 int8 Y) { return X * 0.5f + Y; }
stencil above(vector#2 float X) { return X > 0.25f ? 1 : 0; }
stencil half(vector#2 int8 Y) { return cast<int8>(Y / 2); }
stencil hundred(vector#2 float X) { return cast<int16>(X * 100.0f); }
parameter M, N;
vector#2 float img[M,N];
vector#2 int8 bytes[M,N];
s = sum(mix(img, bytes));
m = min(mix(img, bytes));
n = count(above(img));
h_all = histogram(bytes, 256, 0, 256);
h_shift = histogram(half(bytes), 32, 16, 80);
h_words = histogram(hundred(img), 64, -256, 256);
h_mix = histogram(mix(img, bytes), 100, 0, 300);
return s, m, n, h_all, h_shift, h_words, h_mix;
)", {{13, 17}, {1, 1}, {0, 3}, {64, 64}, {70, 130}, {3, 2049}, {30, 4099}, {70, 4099}}));

  // Points whose value does not depend on where they are (the C runs'
  // unrolled loops then declare no index), and 8-bit bins that are the value
  // plus a constant (binOf8Bit: 44 here).
  out.push_back(make("reduce_unread_index", R"(stencil five(vector#2 float X) { return 5.0f; }
stencil seven(vector#2 int8 X) { return cast<int8>(7); }
parameter M, N;
vector#2 float img[M,N];
vector#2 int8 bytes[M,N];
s = sum(five(img));
h_seven = histogram(seven(bytes), 256, 0, 256);
h_shift = histogram(bytes, 300, -44, 256);
return s, h_seven, h_shift;
)", {{13, 17}, {1, 1}, {0, 3}, {70, 130}, {3, 2049}, {30, 4099}}));

  // A reduction along a dimension of a value that reads no index (the C
  // chunk loop declared the other dimensions' indices unread; progfuzz
  // s2828000017).
  out.push_back(make("reduce_dim_unread_index", R"(stencil k(vector#2 int8 P, int v) { return cast<int16>(v); }
parameter M, N;
vector#2 int8 img[2*M+1,N];
r = any(img);
c0 = count(k(img[.., 2..N-1], r), 0);
c1 = sum(k(img, 3), 1);
return c0, c1;
)", {{1, 1}, {1, 3}, {0, 5}, {6, 7}, {1100, 4}}));

  // Sums of more than 2048 chunks: the partials' rule has a level of its
  // own (CUDA: two groups of partials, each combined by the warp that
  // completes it, then the top group).
  for (const char* t : {"float", "double"})
    out.push_back(make(std::string("reduce_levels_") + t, fill(R"(parameter M, N;
vector#2 %T% img[M,N];
s = sum(img);
m = max(img);
c = count(img);
return s, m, c;
)", {{"%T%", t}}), {{2049, 2049}, {1, 2048}, {13, 17}}));

  // A reduction as a stencil's scalar parameter (converted to its type).
  out.push_back(make("reduce_scale_by_max", R"(stencil scale(vector#2 float X, float m) { return X / m; }
parameter M, N;
vector#2 float img[M,N];
m = max(img);
out = scale(img, m);
return out;
)", r2));
  out.push_back(make("reduce_center_int", R"(stencil center(vector#2 int16 X, double mean, int n) { return X - mean + n; }
parameter M, N;
vector#2 int16 img[M,N];
s = sum(img);
lo = min(img);
out = center(img:mirror, s, lo);
return out, s;
)", r2));

  // Reductions of computed stages, a reduction of a reduction, reductions
  // along a dimension read by a stencil, several outputs with scalars.
  out.push_back(make("reduce_computed_chain", R"(stencil grad(vector#2 float X) { return X@[0,1] - X@[0,-1] + X@[1,0] * 0.5f; }
stencil norm(vector#2 float G, float m, double s) { return G / m + s; }
stencil above(vector#2 float G) { return cast<int8>(G > 0.5f); }
stencil diff(vector#1 double R) { return R@[1] - R; }
parameter M, N;
vector#2 float img[M,N];
g = grad(img:mirror);
m = max(g);
s = sum(g);
rows = sum(g, 1);
total = sum(rows);
mask = above(g);
n = count(mask);
some = any(mask);
every = all(mask);
cols = min(g, 0);
return norm(g, m, s), m, s, rows, total, diff(rows:clamped), n, some, every, cols;
)", r2));
  out.push_back(make("reduce_rank3_chain", R"(stencil blur(vector#3 int X) { return X@[0,0,-1] + X@[0,0,1] - 2 * X@[1,0,0]; }
stencil shift(vector#2 int64 P, int64 lo) { return P - lo; }
parameter A, B, C;
vector#3 int img[A,B,C];
b = blur(img:wrap);
planes = sum(b, 2);
lo = min(planes);
cmax = max(b, 1);
return shift(planes, lo), lo, cmax;
)", r3));
  // Whole reductions of stencils (CUDA: a row window a lane, ReduceWindow_CUDA.h):
  // rows of several producers and widths, reaches up to 7 along the row on
  // either side (shuffles from lanes 2 away), a row read only to one side,
  // every boundary mode; rows a multiple of 4 points long that a warp's 128
  // points cross, long rows whose middle warps lie inside, and rows of no
  // such multiple (point by point).
  out.push_back(make("reduce_window", R"(stencil box(vector#2 float X) {
  return (X@[-1,-1] + X@[0,-1] + X@[1,-1] + X@[-1,0] + X + X@[1,0] + X@[-1,1] + X@[0,1] + X@[1,1]) / 9.0f;
}
stencil wide(vector#2 float X, vector#2 int8 Y) { return X@[0,-5] * 0.5f + X@[0,7] - Y@[1,-2] + Y@[-1,3]; }
stencil far(vector#2 int8 Y) { return cast<int8>(Y@[0,5] - Y@[2,7]); }
stencil dd(vector#2 double D) { return D@[0,-1] - D@[0,1] + D@[-2,0] * 0.25; }
stencil cmp(vector#2 float X) { return X@[0,1] > X@[0,-1] ? 1 : 0; }
stencil words(vector#2 uint16 W) { return W@[0,-3] + W@[1,1]; }
parameter M, N;
vector#2 float img[M,N];
vector#2 int8 bytes[M,N];
vector#2 double dbl[M,N];
vector#2 uint16 w16[M,N];
return sum(box(img:clamped)), sum(wide(img:mirror, bytes:wrap)), max(far(bytes:constant(3))),
  min(far(bytes:clamped)), sum(far(bytes:mirror)), sum(dd(dbl:clamped)), count(cmp(img:clamped)),
  any(cmp(img:constant(0))), max(box(img:wrap)), sum(words(w16:clamped)), min(words(w16:mirror));
)", {{13, 17}, {1, 1}, {0, 3}, {3, 2048}, {1, 8192}, {33, 516}, {9, 4100}, {70, 1024}, {40, 2052}}));
  out.push_back(make("reduce_window_r3", R"(stencil heat(vector#3 float V) {
  return V@[-1,0,0] + V@[1,0,0] + V@[0,-1,0] + V@[0,1,0] + V@[0,0,-1] + V@[0,0,1] - 6.0f * V;
}
parameter A, B, C;
vector#3 float vol[A,B,C];
return sum(heat(vol:clamped)), max(heat(vol:mirror));
)", {{1, 1, 1}, {3, 5, 7}, {4, 6, 256}, {5, 9, 516}}));
  out.push_back(make("reduce_window_r1", R"(parameter A;
vector#1 float v[A];
stencil d(vector#1 float X) { return X@[1] - X@[-1] * 0.5f; }
return sum(d(v:clamped)), max(d(v:wrap));
)", {{1}, {7}, {2048}, {4100}, {20000}}));

  // Constant extents that are multiples of 32 (not 32 or 64): gcc 12 warned
  // (-Waggressive-loop-optimizations, on by default) in the floating sum's
  // loop of the points left after whole blocks of 32, and the 8-bit
  // histogram's after blocks of 4 (a helper's Otsu program).
  out.push_back(make("reduce_fixed_extents", R"(vector#1 double v[256];
vector#1 float w[2048];
vector#2 float g[4,64];
vector#2 int8 img[8,96];
return sum(v), sum(w), sum(g, 1), histogram(img, 256, 0, 256), sum(img);
)", {{}}));
}

}  // namespace formac::e2e
