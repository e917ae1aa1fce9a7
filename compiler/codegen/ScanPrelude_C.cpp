// The C helpers of scans (Scan_C.h scanPrelude): the carry stacks of the
// floating order, the integer sat's vector row prefix, and the floating
// sat's 8 x 8 block sweep.
#include <string>

#include "codegen/Scan_C.h"

namespace formac::codegen {
namespace {

// formac_sat_step_<suffix>: `lanes` points of a row of an integer sat,
// out[j] = prev[j] + c + x[0] + .. + x[j], where the carry c (in every lane
// of *carry) is the row's sum before them; *carry becomes the sum after them.
// The vector's prefix is taken by log-step shifted adds, and the carry kept in
// a vector (a permute, no trip through a scalar register). Where the compiler
// has __builtin_shufflevector (gcc 12, clang), each shift is one two-vector
// permute; gcc made some of the constructors `{0, v[0], v[1], ...}` of scalar
// inserts. The row's values come a step at a time from a small array the
// caller fills (in registers), never from a staged row: staging the row first
// took 1.6x OpenCV's time for the 8-bit sat into int at 4096², 1 thread.
// out may be prev.
std::string satStepHelper(const std::string& q, const std::string& U, const std::string& suffix, int lanes) {
  std::string V = "formac_v" + std::to_string(lanes) + suffix, shuffled, built, last;
  for (int k = 1; k < lanes; k *= 2) {
    std::string e, s;
    for (int i = 0; i < lanes; ++i) {
      e += (i ? ", " : "") + (i < k ? std::string("0") : "v[" + std::to_string(i - k) + "]");
      s += (i ? ", " : "") + std::to_string(i < k ? i : lanes + i - k);
    }
    shuffled += "  v += __builtin_shufflevector(z, v, " + s + ");\n";
    built += "  v += (" + V + "){" + e + "};\n";
  }
  for (int i = 0; i < lanes; ++i) last += (i ? ", " : "") + std::to_string(lanes - 1);
  std::string L = std::to_string(lanes), bytes = std::to_string(lanes) + " * sizeof(" + U + ")";
  return "typedef " + U + " " + V + " __attribute__((vector_size(" + L + " * sizeof(" + U + "))));\n" + q +
         "void formac_sat_step_" + suffix + "(const " + U + "* x, const " + U + "* prev, " + U + "* out, " + V +
         "* carry) {\n"
         "  " + V + " v, a;\n"
         "  memcpy(&v, x, " + bytes + ");\n  memcpy(&a, prev, " + bytes + ");\n"
         "#if FORMAC_HAS_SHUFFLEVECTOR\n  const " + V + " z = {0};\n" + shuffled +
         "  v += *carry;\n  *carry = __builtin_shufflevector(v, v, " + last + ");\n"
         "#else\n" + built +
         "  v += *carry;\n  *carry = (" + V + "){0} + v[" + std::to_string(lanes - 1) + "];\n"
         "#endif\n"
         "  a += v;\n"
         "  memcpy(out, &a, " + bytes + ");\n}\n";
}

// The 8 x 8 block v[0..7] (v[k]: row k) transposed in place by three
// butterfly stages of two-vector shuffles (each a constructor of lanes,
// which gcc and clang make a permute).
std::string transpose8() {
  std::string t;
  for (int d = 4; d >= 1; d /= 2)
    for (int i = 0; i < 8; ++i) {
      if (i & d) continue;
      std::string lo, hi;
      for (int j = 0; j < 8; ++j) {
        std::string sep = j ? ", " : "";
        lo += sep + ((j & d) ? "b[" + std::to_string(j - d) + "]" : "a[" + std::to_string(j) + "]");
        hi += sep + ((j & d) ? "b[" + std::to_string(j) + "]" : "a[" + std::to_string(j + d) + "]");
      }
      std::string a = "v[" + std::to_string(i) + "]", b = "v[" + std::to_string(i + d) + "]";
      t += "  a = " + a + ";\n  b = " + b + ";\n  " + a + " = (formac_v8d){" + lo + "};\n  " + b + " = (formac_v8d){" + hi +
           "};\n";
    }
  return t;
}

// The floating sat's sweep (Scan_C's floatSweep): 8 rows at a time, in
// blocks of 8 x 8 (a run of each row), every row's run scanned with the
// rows in the lanes of a vector, then transposed back and each column's
// run of the 8 rows scanned with the columns in the lanes; the carry stacks
// are formac_scan_d's, side by side.
std::string floatingSweepHelpers(const std::string& q) {
  static_assert(ir::kScanRun == 8, "the sweep's blocks are a run of 8 points by a run of 8 rows");
  std::string depth = std::to_string(kScanDepth);
  return "/* The floating sat in one sweep: blocks of a run of 8 rows by a run of 8 columns. */\n"
         "typedef double formac_v8d __attribute__((vector_size(8 * sizeof(double))));\n" +
         q + "void formac_transpose8_d(formac_v8d* v) {\n  formac_v8d a, b;\n" + transpose8() + "}\n"
         "/* The first n <= 8 lanes of v to `to`, and back (n == 8 is the usual case:\n"
         "   a copy of constant size). */\n" +
         q + "void formac_put8_d(double* to, const formac_v8d* v, long long n) {\n"
         "  if (n == 8) memcpy(to, v, sizeof *v);\n  else memcpy(to, v, (size_t)n * sizeof(double));\n}\n" +
         q + "void formac_get8_d(formac_v8d* v, const double* from, long long n) {\n"
         "  if (n == 8) memcpy(v, from, sizeof *v);\n  else {\n    const formac_v8d zero = {0};\n    *v = zero;\n"
         "    memcpy(v, from, (size_t)n * sizeof(double));\n  }\n}\n"
         "/* 8 rows scanned along their runs, side by side (lanes: rows). */\n"
         "typedef struct {\n  formac_v8d g[" + depth + "], p[" + depth + "], base, e;\n  int depth;\n  long long runs;\n"
         "} formac_sat8_d;\n" +
         q + "void formac_sat8_d_begin(formac_sat8_d* s, const double* base) {\n"
         "  memcpy(&s->base, base, sizeof s->base);\n  s->e = s->base;\n  s->depth = 0;\n  s->runs = 0;\n}\n"
         "/* The runs' totals t of the 8 rows pushed (formac_scan_d_push, lane by lane). */\n" +
         q + "void formac_sat8_d_push(formac_sat8_d* s, const formac_v8d* t) {\n"
         "  formac_v8d l = *t;\n  long long r;\n"
         "  for (r = s->runs++; r & 1; r >>= 1) l = s->g[--s->depth] + l;\n"
         "  s->g[s->depth] = l;\n"
         "  s->e = s->p[s->depth] = (s->depth ? s->p[s->depth - 1] : s->base) + l;\n"
         "  ++s->depth;\n}\n"
         "/* The 8 rows' runs in the next w columns (x as below; w a multiple of 8) pushed. */\n" +
         q + "void formac_sat8_d_runs(formac_sat8_d* s, const double* x, long long w) {\n"
         "  formac_v8d v[8], l;\n  const formac_v8d zero = {0};\n  int k;\n  long long c;\n"
         "  for (c = 0; c < w; c += 8) {\n"
         "    for (k = 0; k < 8; ++k) memcpy(&v[k], x + k * w + c, sizeof v[k]);\n"
         "    formac_transpose8_d(v);\n"
         "    l = zero;\n    for (k = 0; k < 8; ++k) l += v[k];\n"
         "    formac_sat8_d_push(s, &l);\n  }\n}\n"
         "/* The next w columns of the 8 rows (x, row stride w; w a multiple of 8 but\n"
         "   at the end of the rows): scanned along the rows, then each column's run\n"
         "   of the 8 rows from colE, its carry; colL gets their totals. The first nr\n"
         "   rows of the result go to out (row stride os), which may be x. */\n" +
         q + "void formac_sat8_d_next(formac_sat8_d* restrict s, const double* x, long long w,\n"
         "                        const double* restrict colE, double* restrict colL, double* out, long long os, int nr) {\n"
         "  formac_v8d v[8];\n  const formac_v8d zero = {0};\n  int k;\n  long long c;\n"
         "  for (c = 0; c < w; c += 8) {\n"
         "    const long long n = w - c < 8 ? w - c : 8;\n"
         "    formac_v8d l = zero, ce = zero, lc = zero;\n"
         "    for (k = 0; k < 8; ++k) formac_get8_d(&v[k], x + k * w + c, n);\n"
         "    formac_transpose8_d(v);\n"
         "    for (k = 0; k < 8; ++k) {\n      l += v[k];\n      v[k] = s->e + l;\n    }\n"
         "    formac_sat8_d_push(s, &l);\n"
         "    formac_transpose8_d(v);\n"
         "    formac_get8_d(&ce, colE + c, n);\n"
         "    for (k = 0; k < 8; ++k) {\n      lc += v[k];\n      v[k] = ce + lc;\n    }\n"
         "    for (k = 0; k < nr; ++k) formac_put8_d(out + k * os + c, &v[k], n);\n"
         "    formac_put8_d(colL + c, &lc, n);\n  }\n}\n"
         "/* The run totals l[0..w) of w lines pushed on their stacks, side by side\n"
         "   (g, p: a level every `stride`), as formac_scan_d_push with base 0; e gets\n"
         "   the next carries. */\n" +
         q + "void formac_scan_lanes_d_push(double* restrict g, double* restrict p, int* depth, long long* runs,\n"
         "                              double* restrict l, double* restrict e, long long w, long long stride) {\n"
         "  double *gd, *pd;\n  long long r, j;\n"
         "  for (r = (*runs)++; r & 1; r >>= 1) {\n"
         "    gd = g + (long long)--*depth * stride;\n"
         "    for (j = 0; j < w; ++j) l[j] = gd[j] + l[j];\n  }\n"
         "  gd = g + (long long)*depth * stride;\n  pd = p + (long long)*depth * stride;\n"
         "  for (j = 0; j < w; ++j) {\n    gd[j] = l[j];\n    e[j] = pd[j] = (*depth ? pd[j - stride] : 0) + l[j];\n  }\n"
         "  ++*depth;\n}\n";
}

// formac_sweep_band: the columns of a band of the floating sat's sweep, an
// aligned group of runs (8 * 2^k columns, at most 16 bands), for the least
// time: the bands taken in turn by the thread free first (schedule(dynamic,
// 1)), plus the pre-pass over every band but the last, which the threads
// share and which costs about half a band's sweep per column. The smallest
// band with band * threads >= cols (the choice before) gave 4097 columns on 2
// threads bands of 4096 and 1: one thread swept them all, 26 ms against 18.
std::string sweepBandHelper(const std::string& q) {
  return "/* The columns of a band of the floating sat's sweep (8 * 2^k, at most 16 bands): the least\n"
         "   time, the bands taken in turn by the thread free first, plus the pre-pass over all bands\n"
         "   but the last (shared by the threads, half a sweep's cost a column). */\n" +
         q + "long long formac_sweep_band(long long cols, long long threads) {\n"
         "  long long band, best = 8, best_cost = -1;\n"
         "  if (threads < 1) threads = 1;\n"
         "  if (threads > 16) threads = 16;\n"
         "  for (band = 8;; band *= 2) {\n"
         "    const long long bands = cols > 0 ? (cols + band - 1) / band : 1;\n"
         "    if (bands <= 16) {\n"
         "      long long load[16] = {0}, end = 0, b, t;\n"
         "      for (b = 0; b < bands; ++b) {\n"
         "        long long m = 0;\n"
         "        for (t = 1; t < threads; ++t)\n"
         "          if (load[t] < load[m]) m = t;\n"
         "        load[m] += FORMAC_MIN(band, cols - b * band);\n"
         "        if (load[m] > end) end = load[m];\n"
         "      }\n"
         "      const long long cost = 2 * end + (bands - 1) * band / threads;\n"
         "      if (best_cost < 0 || cost <= best_cost) {  /* ties: fewer bands */\n"
         "        best = band;\n"
         "        best_cost = cost;\n"
         "      }\n"
         "    }\n"
         "    if (band >= cols) return best;\n"
         "  }\n"
         "}\n";
}

}  // namespace

std::string scanPrelude(const std::string& qualifier) {
  std::string q = qualifier + " ", depth = std::to_string(kScanDepth);
  return "/* The carry of a line scanned in the floating order (ir/Pipeline.h): the\n"
         "   aligned groups of runs completed so far, largest first (equal sizes\n"
         "   merge, left + right), and their running sums from `base`, the carry at\n"
         "   the first run. The next run's carry is the last running sum. */\n"
         "typedef struct {\n  double g[" + depth + "], p[" + depth + "], base;\n  int depth;\n  long long runs;\n"
         "} formac_scan_d;\n" +
         q + "void formac_scan_d_begin(formac_scan_d* s, double base) {\n"
         "  s->base = base;\n  s->depth = 0;\n  s->runs = 0;\n}\n" +
         q + "double formac_scan_d_carry(const formac_scan_d* s) { return s->depth ? s->p[s->depth - 1] : s->base; }\n" +
         q + "void formac_scan_d_push(formac_scan_d* s, double t) {\n"
         "  long long r;\n"
         "  for (r = s->runs++; r & 1; r >>= 1) t = s->g[--s->depth] + t;\n"
         "  s->g[s->depth] = t;\n"
         "  s->p[s->depth] = (s->depth ? s->p[s->depth - 1] : s->base) + t;\n"
         "  ++s->depth;\n}\n"
         "/* The group of every run pushed (a power of two of them). */\n" +
         q + "double formac_scan_d_group(const formac_scan_d* s) { return s->g[0]; }\n"
         "/* Integer sums are exact in any order: the carry is the running sum. */\n"
         "typedef struct {\n  long long sum;\n} formac_scan_l;\n" +
         q + "void formac_scan_l_begin(formac_scan_l* s, long long base) { s->sum = base; }\n" +
         q + "long long formac_scan_l_carry(const formac_scan_l* s) { return s->sum; }\n" +
         q + "void formac_scan_l_push(formac_scan_l* s, long long t) { s->sum += t; }\n" +
         q + "long long formac_scan_l_group(const formac_scan_l* s) { return s->sum; }\n"
         "/* Points of a row of an integer sat added to the sums above them (modulo 2^32 or 2^64). */\n"
         "#if defined(__has_builtin)\n#if __has_builtin(__builtin_shufflevector)\n#define FORMAC_HAS_SHUFFLEVECTOR 1\n#endif\n#endif\n"
         "#ifndef FORMAC_HAS_SHUFFLEVECTOR\n#define FORMAC_HAS_SHUFFLEVECTOR 0\n#endif\n" +
         satStepHelper(q, "unsigned", "u", kSatLanesU) + satStepHelper(q, "unsigned long long", "ul", kSatLanesUl) +
         floatingSweepHelpers(q) + sweepBandHelper(q);
}


}  // namespace formac::codegen
