#include "codegen/Scan_C.h"

#include "codegen/ExprPrinter.h"
#include "codegen/LoopNest.h"
#include "codegen/Reduce_C.h"

namespace formac::codegen {
namespace {

// Points per segment of a long contiguous line: a power of two of runs, so
// a segment is an aligned group of the order and its carry a combination of
// earlier segments' groups.
constexpr long long kScanSegment = 8192LL * ir::kScanRun;
// Neighbouring strided lines a thread walks together.
constexpr int kScanLanes = 64;
// The deepest carry stack: a line has fewer than 2^63 runs.
constexpr int kScanDepth = 64;

std::string str(long long v) { return std::to_string(v); }
std::string q(int d) { return "q" + std::to_string(d); }

bool floating(const ir::Stage& s) { return s.scan.accumulate == ScalarKind::Double; }

// Whether the sums need a buffer of their own: several passes (sat of
// several dimensions) whose result is converted to another type.
// Integer sums stored as integers: the conversion keeps the low bits, so the
// sums may be kept in the result's type between passes.
bool integerOnly(const ir::Stage& s) { return !floating(s) && !isFloating(s.type.scalar); }

bool needsAccumulator(const ir::Stage& s) {
  return s.type.scalar != s.scan.accumulate && s.scan.dim < 0 && s.rank() > 1 && !integerOnly(s);
}

// An integer sat of two dimensions or more sweeps the last two at once
// (satSweep): each row's running sum plus the sums above it.
bool sweeps(const ir::Stage& s) { return !floating(s) && s.scan.dim < 0 && s.rank() >= 2; }

// Bands of rows a sweep computes in parallel, each from the sums above it.
constexpr int kSweepBands = 16;
std::string suffix(const ir::Stage& s) { return floating(s) ? "d" : "l"; }

// `x` (of the accumulation type) converted to the stage's type as cast<T>
// converts (ExprPrinter's Cast: x86's floating -> integer conversion).
std::string converted(const ir::Stage& s, const std::string& x) {
  ScalarKind to = s.type.scalar;
  std::string T = scalarCType(to);
  if (to == s.scan.accumulate) return x;
  if (!floating(s) || isFloating(to)) return "(" + T + ")(" + x + ")";
  if (to == ScalarKind::Int64) return "formac_ftoi_l(" + x + ")";
  return "((" + T + ")formac_ftoi(" + x + "))";
}

// Statements declaring q<from>..q<to-1> from the row-major linear index
// `linear` over those dimensions.
std::string decode(const std::vector<std::string>& n, int from, int to, const std::string& linear) {
  if (from >= to) return "";
  std::string t = "long long formac_rest = " + linear + ";\n";
  for (int d = to - 1; d > from; --d)
    t += q(d) + " = formac_rest % " + n[static_cast<size_t>(d)] + ";\nformac_rest /= " + n[static_cast<size_t>(d)] + ";\n";
  return "{\n" + indent(t + q(from) + " = formac_rest;\n", "  ") + "}\n";
}

std::string product(const std::vector<std::string>& n, int from, int to) {
  std::string t;
  for (int d = from; d < to; ++d) t += (t.empty() ? "" : " * ") + n[static_cast<size_t>(d)];
  return t.empty() ? "1" : t;
}

struct Pass {
  int dim;
  bool fromBody;  // the first pass evaluates the input piece; later ones read formac_acc
  bool toOutput;  // the last pass writes the stage's type
};

class ScanPrinter {
 public:
  explicit ScanPrinter(const ScanFunctionC& f) : f_(f), s_(*f.stage), domain_(domainStage(*f.stage)) {
    rank_ = s_.rank();
    for (int d = 0; d < rank_; ++d) n_.push_back("formac_n" + std::to_string(d));
    A_ = scanAccumulatorType(s_);
    X_ = suffix(s_);
    out_ = f.names->stage[static_cast<size_t>(s_.id)];
    lo_.pipeline = f.pipeline;
    lo_.stage = &domain_;
    lo_.piece = &domain_.pieces[0];
    lo_.names = f.names;
    lo_.openmp = f.openmp;
    lo_.resultVariable = "formac_x";
    checked_ = needsBorderChecks(lo_);
  }

  std::string function() {
    std::string t = "static void " + f_.name + "(" + f_.parameters + ") {\n";
    for (const auto& prm : f_.names->param) t += "  (void)" + prm + ";\n";
    for (int d = 0; d < rank_; ++d)
      t += "  const long long " + n_[static_cast<size_t>(d)] + " = (long long)(" +
           ir::printSize(s_.extent[static_cast<size_t>(d)], f_.names->param) + ");\n";
    bool scratch = needsAccumulator(s_);
    std::string accType = scratch ? A_ : cType(s_.type);
    t += std::string("  /* The sums between passes: ") +
         (scratch ? "scratch, converted at the end" : "in the output itself") + ". */\n"
         "  " + accType + "* const formac_acc = " + (scratch ? "formac_scratch" : out_) + ";\n  (void)formac_acc;\n  (void)formac_scratch;  /* unused by strided passes into the output */\n";
    std::vector<int> dims;
    if (s_.scan.dim >= 0) dims.push_back(s_.scan.dim);
    else
      for (int d = rank_ - (sweeps(s_) ? 3 : 1); d >= 0; --d) dims.push_back(d);
    if (sweeps(s_)) t += indent(satSweep(Pass{rank_ - 2, true, dims.empty()}), "  ");
    for (size_t i = 0; i < dims.size(); ++i) {
      Pass p{dims[i], i == 0 && !sweeps(s_), i + 1 == dims.size()};
      t += indent(p.dim == rank_ - 1 ? contiguousPass(p) : stridedPass(p), "  ");
    }
    return t + "}\n\n";
  }

 private:
  // The lattice indices of a point, private to each iteration of a parallel loop.
  std::string indices() const {
    std::string t = "long long", v;
    for (int d = 0; d < rank_; ++d) {
      t += std::string(d ? ", " : " ") + q(d) + " = 0";
      v += "(void)" + q(d) + ";";
    }
    return t + ";\n" + v + "\n";
  }

  // Declares formac_v (accumulation type): the value at q0.. (first pass) or
  // the accumulator at `at`.
  std::string value(const Pass& p, const std::string& at) {
    if (!p.fromBody) return "const " + A_ + " formac_v = (" + A_ + ")formac_acc[" + at + "];\n";
    return cType(domain_.type) + " formac_x;\n" + emitPointBody(lo_, checked_, "") + "const " + A_ +
           " formac_v = (" + A_ + ")formac_x;\n";
  }
  std::string store(const Pass& p, const std::string& at, const std::string& sum) {
    if (p.toOutput) return out_ + "[" + at + "] = " + converted(s_, sum) + ";\n";
    return "formac_acc[" + at + "] = " + sum + ";\n";
  }
  std::string parallelFor() const { return f_.openmp ? "FORMAC_PRAGMA(omp parallel for schedule(static))\n" : ""; }
  std::string stack() const { return "formac_scan_" + X_; }

  // Lines along the last dimension, each contiguous.
  std::string contiguousPass(const Pass& p) {
    int d = p.dim;
    std::string seg = str(kScanSegment), run = str(ir::kScanRun), qd = q(d);
    std::string lineStart = decode(n_, 0, d, "formac_o");
    std::string at = "formac_o * formac_len + " + qd;
    std::string t = "{ /* Along dimension " + std::to_string(d) + ": contiguous lines, in runs of " + run +
                    " points, long ones in segments of " + seg + " */\n"
                    "  const long long formac_len = " + n_[static_cast<size_t>(d)] + ";\n"
                    "  const long long formac_lines = " + product(n_, 0, d) + ";\n"
                    "  const long long formac_segs = (formac_len + " + str(kScanSegment - 1) + ") / " + seg + ";\n"
                    "  " + A_ + "* const formac_seg = formac_scratch + " + accPoints() + ";\n"
                    "  long long formac_w;\n"
                    "  (void)formac_seg;\n"
                    "  if (formac_segs > 1) {\n"
                    "    /* Each segment's group (but the last's), then each segment's carry. */\n";
    std::string groups =
        "for (formac_w = 0; formac_w < formac_lines * formac_segs; ++formac_w) {\n"
        "  const long long formac_o = formac_w / formac_segs, formac_c = formac_w % formac_segs;\n"
        "  long long formac_k;\n  " + stack() + " formac_s;\n" + indent(indices(), "  ") +
        "  (void)formac_o;  /* unused when the first pass of a rank-1 scan reads its input */\n"
        "  if (formac_c == formac_segs - 1) continue;\n" + indent(lineStart, "  ") +
        "  " + stack() + "_begin(&formac_s, 0);\n"
        "  for (formac_k = formac_c * " + seg + "; formac_k < (formac_c + 1) * " + seg + "; formac_k += " + run + ") {\n"
        "    " + A_ + " formac_l = 0;\n"
        "    for (" + qd + " = formac_k; " + qd + " < formac_k + " + run + "; ++" + qd + ") {\n" +
        indent(value(p, at) + "formac_l += formac_v;\n", "      ") + "    }\n"
        "    " + stack() + "_push(&formac_s, formac_l);\n  }\n"
        "  formac_seg[formac_w] = " + stack() + "_group(&formac_s);\n}\n";
    std::string carries =
        "for (formac_w = 0; formac_w < formac_lines; ++formac_w) {\n"
        "  " + A_ + "* const formac_g = formac_seg + formac_w * formac_segs;\n"
        "  long long formac_c;\n  " + stack() + " formac_s;\n"
        "  " + stack() + "_begin(&formac_s, 0);\n"
        "  for (formac_c = 0; formac_c < formac_segs; ++formac_c) {\n"
        "    const " + A_ + " formac_group = formac_g[formac_c];\n"
        "    formac_g[formac_c] = " + stack() + "_carry(&formac_s);\n"
        "    if (formac_c + 1 < formac_segs) " + stack() + "_push(&formac_s, formac_group);\n  }\n}\n";
    t += indent(parallelFor() + groups + parallelFor() + carries, "    ") + "  }\n";
    std::string sweep =
        "for (formac_w = 0; formac_w < formac_lines * formac_segs; ++formac_w) {\n"
        "  const long long formac_o = formac_w / formac_segs, formac_c = formac_w % formac_segs;\n"
        "  const long long formac_end = formac_len - formac_c * " + seg + " < " + seg + " ? formac_len : (formac_c + 1) * " +
        seg + ";\n"
        "  long long formac_k;\n  " + stack() + " formac_s;\n" + indent(indices() + lineStart, "  ") +
        "  " + stack() + "_begin(&formac_s, formac_segs > 1 ? formac_seg[formac_w] : 0);\n"
        "  for (formac_k = formac_c * " + seg + "; formac_k < formac_end; formac_k += " + run + ") {\n"
        "    const " + A_ + " formac_e = " + stack() + "_carry(&formac_s);\n"
        "    const long long formac_x1 = formac_end - formac_k < " + run + " ? formac_end : formac_k + " + run + ";\n"
        "    " + A_ + " formac_l = 0;\n"
        "    for (" + qd + " = formac_k; " + qd + " < formac_x1; ++" + qd + ") {\n" +
        indent(value(p, at) + "formac_l += formac_v;\n" + store(p, at, "formac_e + formac_l"), "      ") + "    }\n"
        "    if (formac_x1 < formac_end) " + stack() + "_push(&formac_s, formac_l);\n  }\n}\n";
    return t + indent(parallelFor() + sweep, "  ") + "}\n";
  }

  // Lines along an earlier dimension: a block of neighbouring lines at a
  // time, their carry stacks side by side.
  std::string stridedPass(const Pass& p) {
    int d = p.dim;
    std::string run = str(ir::kScanRun), lanes = str(kScanLanes), depth = str(kScanDepth);
    std::string at = "formac_at + formac_j";
    std::string eachLane = "for (formac_j = 0; formac_j < formac_jn; ++formac_j)";
    std::string point = value(p, at) + "formac_l[formac_j] += formac_v;\n" +
                        store(p, at, "formac_e[formac_j] + formac_l[formac_j]");
    if (p.fromBody) point = decode(n_, d + 1, rank_, "formac_j0 + formac_j") + point;
    std::string t =
        "{ /* Along dimension " + std::to_string(d) + ": lines strided by formac_inner points, " + lanes +
        " side by side, in runs of " + run + " */\n"
        "  const long long formac_len = " + n_[static_cast<size_t>(d)] + ";\n"
        "  const long long formac_inner = " + product(n_, d + 1, rank_) + ";\n"
        "  const long long formac_blocks = (formac_inner + " + str(kScanLanes - 1) + ") / " + lanes + ";\n"
        "  long long formac_w;\n";
    std::string body =
        "for (formac_w = 0; formac_w < " + product(n_, 0, d) + " * formac_blocks; ++formac_w) {\n"
        "  const long long formac_o = formac_w / formac_blocks, formac_j0 = formac_w % formac_blocks * " + lanes + ";\n"
        "  const int formac_jn = (int)(formac_inner - formac_j0 < " + lanes + " ? formac_inner - formac_j0 : " + lanes + ");\n"
        "  /* Per line: the run's sum, its carry, and the stack of completed groups\n"
        "     with their running sums (formac_scan_" + X_ + "_push, lane by lane). */\n"
        "  " + A_ + " formac_l[" + lanes + "], formac_e[" + lanes + "], formac_g[" + depth + "][" + lanes +
        "], formac_p[" + depth + "][" + lanes + "];\n"
        "  int formac_depth = 0, formac_j;\n"
        "  long long formac_runs = 0, formac_k;\n" +
        indent(indices() + decode(n_, 0, d, "formac_o"), "  ") +
        "  for (formac_k = 0; formac_k < formac_len; formac_k += " + run + ") {\n"
        "    const long long formac_x1 = formac_len - formac_k < " + run + " ? formac_len : formac_k + " + run + ";\n"
        "    " + eachLane + " {\n"
        "      formac_e[formac_j] = formac_depth ? formac_p[formac_depth - 1][formac_j] : 0;\n"
        "      formac_l[formac_j] = 0;\n    }\n"
        "    for (" + q(d) + " = formac_k; " + q(d) + " < formac_x1; ++" + q(d) + ") {\n"
        "      const long long formac_at = (formac_o * formac_len + " + q(d) + ") * formac_inner + formac_j0;\n"
        "      " + eachLane + " {\n" + indent(point, "        ") + "      }\n    }\n"
        "    if (formac_x1 < formac_len) {\n"
        "      long long formac_r;\n"
        "      for (formac_r = formac_runs++; formac_r & 1; formac_r >>= 1) {\n"
        "        --formac_depth;\n"
        "        " + eachLane + " formac_l[formac_j] = formac_g[formac_depth][formac_j] + formac_l[formac_j];\n      }\n"
        "      " + eachLane + " {\n"
        "        formac_g[formac_depth][formac_j] = formac_l[formac_j];\n"
        "        formac_p[formac_depth][formac_j] = (formac_depth ? formac_p[formac_depth - 1][formac_j] : 0) + "
        "formac_l[formac_j];\n      }\n"
        "      ++formac_depth;\n    }\n  }\n}\n";
    return t + indent(parallelFor() + body, "  ") + "}\n";
  }

  // Dimensions rank-2 and rank-1 of an integer sat at once (sweeps()): a
  // row's sums are its running sum plus the sums above it, kept per column;
  // bands of rows start from the sums of the bands above (their column sums
  // first, then a prefix over bands and along the row).
  std::string satSweep(const Pass& p) {
    std::string rows = n_[static_cast<size_t>(rank_ - 2)], cols = n_[static_cast<size_t>(rank_ - 1)];
    std::string qi = q(rank_ - 2), qj = q(rank_ - 1), bands = str(kSweepBands);
    std::string at = "(formac_plane * formac_rows + " + qi + ") * formac_cols + " + qj;
    std::string band = "for (" + qi + " = formac_b * formac_per; " + qi + " < formac_rows && " + qi +
                       " < (formac_b + 1) * formac_per; ++" + qi + ")";
    std::string planeStart = indices() + decode(n_, 0, rank_ - 2, "formac_plane");
    std::string t =
        "{ /* Along dimensions " + std::to_string(rank_ - 1) + " and " + std::to_string(rank_ - 2) +
        " at once (integer sums are exact in any order): each row's running sum\n"
        "     plus the sums above it, in bands of rows that start from the bands above them. */\n"
        "  const long long formac_rows = " + rows + ", formac_cols = " + cols + ";\n"
        "  const long long formac_bands = formac_rows < " + bands + " ? formac_rows : " + bands + ";\n"
        "  const long long formac_per = formac_bands > 0 ? (formac_rows + formac_bands - 1) / formac_bands : 1;\n"
        "  long long* const formac_carry = (long long*)formac_scratch + " + accPoints() + ";  /* per band: the sums above it */\n"
        "  long long* const formac_above = formac_carry + " + bands + " * formac_cols;  /* per band: the sums above a row */\n"
        "  long long formac_plane, formac_b, formac_j;\n"
        "  for (formac_plane = 0; formac_plane < " + product(n_, 0, rank_ - 2) + "; ++formac_plane) {\n";
    std::string columnSums =
        "for (formac_b = 0; formac_b < formac_bands - 1; ++formac_b) {\n"
        "  long long* const formac_c = formac_carry + (formac_b + 1) * formac_cols;\n" + indent(planeStart, "  ") +
        "  for (formac_j = 0; formac_j < formac_cols; ++formac_j) formac_c[formac_j] = 0;\n"
        "  " + band + "\n"
        "    for (" + qj + " = 0; " + qj + " < formac_cols; ++" + qj + ") {\n" +
        indent(value(p, at) + "formac_c[" + qj + "] += formac_v;\n", "      ") + "    }\n}\n";
    std::string carries =
        "/* Band b's carry: the column sums of bands 0 .. b-1, summed along the row. */\n"
        "for (formac_j = 0; formac_j < formac_cols; ++formac_j) formac_carry[formac_j] = 0;\n"
        "for (formac_b = 1; formac_b < formac_bands; ++formac_b) {\n"
        "  long long* const formac_c = formac_carry + formac_b * formac_cols;\n"
        "  for (formac_j = 0; formac_j < formac_cols; ++formac_j) formac_c[formac_j] += formac_c[formac_j - formac_cols];\n"
        "}\n"
        "for (formac_b = 1; formac_b < formac_bands; ++formac_b) {\n"
        "  long long* const formac_c = formac_carry + formac_b * formac_cols;\n"
        "  for (formac_j = 1; formac_j < formac_cols; ++formac_j) formac_c[formac_j] += formac_c[formac_j - 1];\n"
        "}\n";
    std::string sweep =
        "for (formac_b = 0; formac_b < formac_bands; ++formac_b) {\n"
        "  long long* const formac_a = formac_above + formac_b * formac_cols;\n" + indent(planeStart, "  ") +
        "  memcpy(formac_a, formac_carry + formac_b * formac_cols, (size_t)formac_cols * sizeof(long long));\n"
        "  " + band + " {\n"
        "    long long formac_r = 0;\n"
        "    for (" + qj + " = 0; " + qj + " < formac_cols; ++" + qj + ") {\n" +
        indent(value(p, at) + "formac_r += formac_v;\nformac_a[" + qj + "] += formac_r;\n" +
                   store(p, at, "formac_a[" + qj + "]"), "      ") +
        "    }\n  }\n}\n";
    return t + indent(parallelFor() + columnSums + carries + parallelFor() + sweep, "    ") + "  }\n}\n";
  }

  std::string accPoints() const { return needsAccumulator(s_) ? product(n_, 0, rank_) : "0"; }

  const ScanFunctionC& f_;
  const ir::Stage& s_;
  ir::Stage domain_;
  LoopNestOptions lo_;
  bool checked_ = false;
  int rank_ = 0;
  std::vector<std::string> n_;
  std::string A_, X_, out_;
};

}  // namespace

std::string scanAccumulatorType(const ir::Stage& s) { return floating(s) ? "double" : "long long"; }

std::string scanScratchCount(const Names& n, const ir::Stage& s) {
  // The accumulator when it is not the output (sat of several dimensions
  // into another type), then a group per segment of the contiguous lines.
  std::string points = "(size_t)1", lines = "(size_t)1", len;
  for (int d = 0; d < s.rank(); ++d) {
    std::string e = "(size_t)(" + ir::printSize(s.extent[static_cast<size_t>(d)], n.param) + ")";
    points += " * " + e;
    if (d + 1 < s.rank()) lines += " * " + e;
    else len = e;
  }
  std::string sweep = sweeps(s) ? " + (size_t)" + str(2 * kSweepBands) + " * " + len : "";
  return "(" + (needsAccumulator(s) ? points : std::string("0")) + " + " + lines + " * ((" + len + " + " +
         str(kScanSegment - 1) + ") / " + str(kScanSegment) + ")" + sweep + ")";
}

std::string emitScanFunction(const ScanFunctionC& f) { return ScanPrinter(f).function(); }

std::string scanPrelude(const std::string& qualifier) {
  std::string q = qualifier + " ", depth = str(kScanDepth);
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
         q + "long long formac_scan_l_group(const formac_scan_l* s) { return s->sum; }\n";
}

}  // namespace formac::codegen
