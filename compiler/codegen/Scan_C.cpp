#include "codegen/Scan_C.h"

#include <memory>

#include "codegen/ExprPrinter.h"
#include "codegen/LoopNest.h"
#include "codegen/Prelude.h"
#include "codegen/Reduce_C.h"
#include "codegen/Stmt.h"

namespace formac::codegen {
namespace {

// Points per segment of a long contiguous line: a power of two of runs, so
// a segment is an aligned group of the order and its carry a combination of
// earlier segments' groups.
constexpr long long kScanSegment = 8192LL * ir::kScanRun;
// Neighbouring strided lines a thread walks together.
constexpr int kScanLanes = 64;

std::string str(long long v) { return std::to_string(v); }
std::string q(int d) { return "q" + std::to_string(d); }

bool floating(const ir::Stage& s) { return s.scan.accumulate == ScalarKind::Double; }

// Whether the sums need a buffer of their own: several passes (sat of
// several dimensions) whose result is converted to another type.
// Integer sums stored as integers: the conversion keeps the low bits, so the
// sums may be kept in the result's type between passes.
bool integerOnly(const ir::Stage& s) { return !floating(s) && !isFloating(s.type.scalar); }

// A sat of two dimensions or more sweeps the last two at once (satSweep,
// floatSweep), then takes a pass per earlier dimension.
bool sweeps(const ir::Stage& s) { return s.scan.dim < 0 && s.rank() >= 2; }

bool needsAccumulator(const ir::Stage& s) {
  return s.type.scalar != s.scan.accumulate && s.scan.dim < 0 && s.rank() > 2 && !integerOnly(s);
}

// Bands of rows a sweep computes in parallel (at most; one per thread), each
// from the sums above it.
constexpr int kSweepBands = 16;
// Columns a floating sweep stages at a time (8 rows of them: 4 KiB, on the
// stack, in L1).
constexpr int kSweepChunk = 64;
// A sweep's sums: 32-bit lanes where the result keeps 32 bits or fewer of them.
bool narrowLanes(const ir::Stage& s) { return integerOnly(s) && scalarSize(s.type.scalar) <= 4; }
std::string sweepLane(const ir::Stage& s) { return narrowLanes(s) ? "unsigned" : "unsigned long long"; }
std::string laneSuffix(const ir::Stage& s) { return narrowLanes(s) ? "u" : "ul"; }
std::string suffix(const ir::Stage& s) { return floating(s) ? "d" : "l"; }

// `x` (of the accumulation type) converted to the stage's type as cast<T>
// converts: printed as an ir Cast of it (ExprPrinter's one rule).
std::string converted(const ir::Stage& s, const std::string& x) {
  if (s.type.scalar == s.scan.accumulate) return x;
  auto sum = std::make_shared<ir::Expr>();
  sum->kind = ir::Expr::Local;
  sum->local = 0;
  sum->type = Type::of(s.scan.accumulate);
  ir::Expr cast;
  cast.kind = ir::Expr::Cast;
  cast.type = Type::of(s.type.scalar);
  cast.args.push_back(sum);
  ExprContext ctx;
  ctx.lets.push_back("(" + x + ")");
  return printCExpr(cast, ctx);
}

// Statements declaring q<from>..q<to-1> from the row-major linear index
// `linear` over those dimensions.
std::vector<Stmt> decode(const std::vector<std::string>& n, int from, int to, const std::string& linear) {
  if (from >= to) return {};
  std::vector<Stmt> t = {decl("long long", "formac_rest", linear, false)};
  for (int d = to - 1; d > from; --d) {
    t.push_back(assign(q(d), "formac_rest % " + n[static_cast<size_t>(d)]));
    t.push_back(eval("formac_rest /= " + n[static_cast<size_t>(d)]));
  }
  t.push_back(assign(q(from), "formac_rest"));
  return {block(std::move(t))};
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

// for (i = from; i < end; ++i) { body }, its iterations shared among threads
// with the OpenMP clauses `parallel` when not empty.
Stmt upTo(const std::string& i, const std::string& from, const std::string& end, std::vector<Stmt> body,
          const std::string& parallel = "") {
  return forLoop(i + " = " + from, i + " < " + end, "++" + i, std::move(body), parallel);
}

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

  std::string emit() {
    std::vector<Stmt> t;
    for (int d = 0; d < rank_; ++d)
      t.push_back(decl("long long", n_[static_cast<size_t>(d)],
                       "(long long)(" + ir::printSize(s_.extent[static_cast<size_t>(d)], f_.names->param) + ")"));
    bool scratch = needsAccumulator(s_);
    std::string accType = scratch ? A_ : cType(s_.type);
    t.push_back(comment(std::string("The sums between passes: ") +
                        (scratch ? "scratch, converted at the end" : "in the output itself") + "."));
    t.push_back(decl(accType + "* const", "formac_acc", scratch ? "formac_scratch" : out_, false));
    t.push_back(eval("(void)formac_acc"));
    t.push_back(comment("formac_scratch: unused by strided passes into the output"));
    t.push_back(eval("(void)formac_scratch"));
    std::vector<int> dims;
    if (s_.scan.dim >= 0) dims.push_back(s_.scan.dim);
    else
      for (int d = rank_ - (sweeps(s_) ? 3 : 1); d >= 0; --d) dims.push_back(d);
    Pass sweep{rank_ - 2, true, dims.empty()};
    if (sweeps(s_)) t.push_back(floating(s_) ? floatSweep(sweep) : satSweep(sweep));
    for (size_t i = 0; i < dims.size(); ++i) {
      Pass p{dims[i], i == 0 && !sweeps(s_), i + 1 == dims.size()};
      t.push_back(p.dim == rank_ - 1 ? contiguousPass(p) : stridedPass(p));
    }
    return CPrinter().print(function("static", "void", f_.name, f_.params, std::move(t), f_.names->param)) + "\n";
  }

 private:
  // The lattice indices of a point, private to each iteration of a parallel loop.
  std::vector<Stmt> indices() const {
    std::vector<Stmt> t;
    for (int d = 0; d < rank_; ++d) t.push_back(decl("long long", q(d), "0", false));
    for (int d = 0; d < rank_; ++d) t.push_back(eval("(void)" + q(d)));
    return t;
  }

  // Declares formac_v (accumulation type): the value at q0.. (first pass) or
  // the accumulator at `at`.
  Stmt value(const Pass& p, const std::string& at) const {
    if (!p.fromBody) return decl(A_, "formac_v", "(" + A_ + ")formac_acc[" + at + "]");
    return pointValue(checked_);
  }
  // Declares formac_v: the input piece's value at q0.., with or without border checks.
  Stmt pointValue(bool checked) const {
    return seq({declOnly(cType(domain_.type), "formac_x"), seq(pointBody(lo_, checked)),
                decl(A_, "formac_v", "(" + A_ + ")formac_x")});
  }
  // `use` after formac_v at every point of the current row (the earlier
  // lattice indices set) from last index `lo` to `hi` (exclusive), left in
  // formac_v's last index. With border checks, the points where every read
  // of the input is in range take the check-free body: the placement
  // `Z[1.., 1..] = img` a sat reads as img@[-1,-1]:constant(0) took 26 ms
  // at 4096² with a check a point, against 17 for img itself.
  Stmt eachValue(const Pass& p, const std::string& at, const std::string& lo, const std::string& hi,
                 const Stmt& use) const {
    std::string qj = q(rank_ - 1);
    if (!p.fromBody || !checked_) return upTo(qj, lo, hi, {value(p, at), use});
    const Stmt checkedBody = seq({pointValue(true), use}), freeBody = seq({pointValue(false), use});
    return block({seq(checkFree(lo, hi)), upTo(qj, lo, "formac_e0", {checkedBody}),
                  forLoop("", qj + " < formac_e1", "++" + qj, {freeBody}), forLoop("", qj + " < " + hi, "++" + qj, {checkedBody})},
                 "check-free where every read is in range");
  }
  // formac_e0 .. formac_e1 - 1: the last indices from `lo` to `hi` (exclusive)
  // of the current row where every read of the input is in range.
  std::vector<Stmt> checkFree(const std::string& lo, const std::string& hi) const {
    std::string inside;
    for (int d = 0; d + 1 < rank_; ++d)
      inside += (inside.empty() ? "" : " && ") + q(d) + " >= " + fastFirstIndex(lo_, static_cast<size_t>(d)) + " && " + q(d) +
                " <= " + fastLastIndex(lo_, static_cast<size_t>(d));
    return {decl("int", "formac_inside", inside.empty() ? std::string("1") : inside),
            decl("long long", "formac_e0",
                 "formac_inside ? FORMAC_MAX(" + lo + ", FORMAC_MIN(" + hi + ", " +
                     fastFirstIndex(lo_, static_cast<size_t>(rank_ - 1)) + ")) : " + hi),
            decl("long long", "formac_e1",
                 "formac_inside ? FORMAC_MAX(formac_e0, FORMAC_MIN(" + hi + ", " +
                     fastLastIndex(lo_, static_cast<size_t>(rank_ - 1)) + " + 1)) : " + hi)};
  }
  Stmt store(const Pass& p, const std::string& at, const std::string& sum) const {
    if (p.toOutput) return assign(out_ + "[" + at + "]", converted(s_, sum));
    return assign("formac_acc[" + at + "]", sum);
  }
  // The OpenMP clauses of a loop over the image's lines or bands: threads only
  // for images worth waking them for (FORMAC_PARALLEL_POINTS); none without OpenMP.
  std::string parallelFor(const std::string& schedule = "static") const {
    return f_.openmp ? "schedule(" + schedule + ") " + parallelIf(product(n_, 0, rank_)) : "";
  }
  std::string stack() const { return "formac_scan_" + X_; }

  // Lines along the last dimension, each contiguous.
  Stmt contiguousPass(const Pass& p) const {
    int d = p.dim;
    std::string seg = str(kScanSegment), run = str(ir::kScanRun), qd = q(d);
    std::vector<Stmt> lineStart = decode(n_, 0, d, "formac_o");
    std::string at = "formac_o * formac_len + " + qd;
    Stmt groups = forLoop(
        "formac_w = 0", "formac_w < formac_lines * formac_segs", "++formac_w",
        {decl("long long", "formac_o", "formac_w / formac_segs"), decl("long long", "formac_c", "formac_w % formac_segs"),
         declOnly("long long", "formac_k"), declOnly(stack(), "formac_s"), seq(indices()),
         comment("formac_o: unused when the first pass of a rank-1 scan reads its input"), eval("(void)formac_o"),
         ifThen("formac_c == formac_segs - 1", {eval("continue")}), seq(lineStart),
         eval(stack() + "_begin(&formac_s, 0)"),
         forLoop("formac_k = formac_c * " + seg, "formac_k < (formac_c + 1) * " + seg, "formac_k += " + run,
                 {decl(A_, "formac_l", "0", false),
                  upTo(qd, "formac_k", "formac_k + " + run, {value(p, at), eval("formac_l += formac_v")}),
                  eval(stack() + "_push(&formac_s, formac_l)")}),
         assign("formac_seg[formac_w]", stack() + "_group(&formac_s)")},
        parallelFor());
    Stmt carries = upTo(
        "formac_w", "0", "formac_lines",
        {decl(A_ + "* const", "formac_g", "formac_seg + formac_w * formac_segs", false), declOnly("long long", "formac_c"),
         declOnly(stack(), "formac_s"), eval(stack() + "_begin(&formac_s, 0)"),
         upTo("formac_c", "0", "formac_segs",
              {decl(A_, "formac_group", "formac_g[formac_c]"), assign("formac_g[formac_c]", stack() + "_carry(&formac_s)"),
               ifThen("formac_c + 1 < formac_segs", {eval(stack() + "_push(&formac_s, formac_group)")})})},
        parallelFor());
    Stmt sweep = forLoop(
        "formac_w = 0", "formac_w < formac_lines * formac_segs", "++formac_w",
        {decl("long long", "formac_o", "formac_w / formac_segs"), decl("long long", "formac_c", "formac_w % formac_segs"),
         decl("long long", "formac_end",
              "formac_len - formac_c * " + seg + " < " + seg + " ? formac_len : (formac_c + 1) * " + seg),
         declOnly("long long", "formac_k"), declOnly(stack(), "formac_s"), seq(indices()), seq(lineStart),
         eval(stack() + "_begin(&formac_s, formac_segs > 1 ? formac_seg[formac_w] : 0)"),
         forLoop("formac_k = formac_c * " + seg, "formac_k < formac_end", "formac_k += " + run,
                 {decl(A_, "formac_e", stack() + "_carry(&formac_s)"),
                  decl("long long", "formac_x1", "formac_end - formac_k < " + run + " ? formac_end : formac_k + " + run),
                  decl(A_, "formac_l", "0", false),
                  upTo(qd, "formac_k", "formac_x1",
                       {value(p, at), eval("formac_l += formac_v"), store(p, at, "formac_e + formac_l")}),
                  ifThen("formac_x1 < formac_end", {eval(stack() + "_push(&formac_s, formac_l)")})})},
        parallelFor());
    return block({decl("long long", "formac_len", n_[static_cast<size_t>(d)]),
                  decl("long long", "formac_lines", product(n_, 0, d)),
                  comment("At least 1: a constant empty line would make gcc see a division by zero (never run)."),
                  decl("long long", "formac_segs",
                       "formac_len > 0 ? (formac_len + " + str(kScanSegment - 1) + ") / " + seg + " : 1"),
                  decl(A_ + "* const", "formac_seg", "formac_scratch + " + accPoints(), false),
                  declOnly("long long", "formac_w"), eval("(void)formac_seg"),
                  ifThen("formac_segs > 1",
                         {comment("Each segment's group (but the last's), then each segment's carry."), groups, carries}),
                  sweep},
                 "Along dimension " + std::to_string(d) + ": contiguous lines, in runs of " + run +
                     " points, long ones in segments of " + seg);
  }

  // Lines along an earlier dimension: a block of neighbouring lines at a
  // time, their carry stacks side by side.
  Stmt stridedPass(const Pass& p) const {
    int d = p.dim;
    std::string run = str(ir::kScanRun), lanes = str(kScanLanes), depth = str(kScanDepth);
    std::string at = "formac_at + formac_j";
    auto eachLane = [](std::vector<Stmt> body) { return upTo("formac_j", "0", "formac_jn", std::move(body)); };
    std::vector<Stmt> point = {value(p, at), eval("formac_l[formac_j] += formac_v"),
                               store(p, at, "formac_e[formac_j] + formac_l[formac_j]")};
    if (p.fromBody) point.insert(point.begin(), seq(decode(n_, d + 1, rank_, "formac_j0 + formac_j")));
    Stmt body = forLoop(
        "formac_w = 0", "formac_w < " + product(n_, 0, d) + " * formac_blocks", "++formac_w",
        {decl("long long", "formac_o", "formac_w / formac_blocks"),
         decl("long long", "formac_j0", "formac_w % formac_blocks * " + lanes),
         decl("int", "formac_jn", "(int)(formac_inner - formac_j0 < " + lanes + " ? formac_inner - formac_j0 : " + lanes + ")"),
         comment("Per line: the run's sum, its carry, and the stack of completed groups\n"
                 "with their running sums (formac_scan_" + X_ + "_push, lane by lane)."),
         declOnly(A_, "formac_l[" + lanes + "]"), declOnly(A_, "formac_e[" + lanes + "]"),
         declOnly(A_, "formac_g[" + depth + "][" + lanes + "]"), declOnly(A_, "formac_p[" + depth + "][" + lanes + "]"),
         decl("int", "formac_depth", "0", false), declOnly("int", "formac_j"), decl("long long", "formac_runs", "0", false),
         declOnly("long long", "formac_k"), seq(indices()), seq(decode(n_, 0, d, "formac_o")),
         forLoop("formac_k = 0", "formac_k < formac_len", "formac_k += " + run,
                 {decl("long long", "formac_x1", "formac_len - formac_k < " + run + " ? formac_len : formac_k + " + run),
                  eachLane({assign("formac_e[formac_j]", "formac_depth ? formac_p[formac_depth - 1][formac_j] : 0"),
                            assign("formac_l[formac_j]", "0")}),
                  upTo(q(d), "formac_k", "formac_x1",
                       {decl("long long", "formac_at", "(formac_o * formac_len + " + q(d) + ") * formac_inner + formac_j0"),
                        eachLane(std::move(point))}),
                  ifThen("formac_x1 < formac_len",
                         {declOnly("long long", "formac_r"),
                          forLoop("formac_r = formac_runs++", "formac_r & 1", "formac_r >>= 1",
                                  {eval("--formac_depth"),
                                   eachLane({assign("formac_l[formac_j]",
                                                    "formac_g[formac_depth][formac_j] + formac_l[formac_j]")})}),
                          eachLane({assign("formac_g[formac_depth][formac_j]", "formac_l[formac_j]"),
                                    assign("formac_p[formac_depth][formac_j]",
                                           "(formac_depth ? formac_p[formac_depth - 1][formac_j] : 0) + formac_l[formac_j]")}),
                          eval("++formac_depth")})})},
        parallelFor());
    return block({decl("long long", "formac_len", n_[static_cast<size_t>(d)]),
                  decl("long long", "formac_inner", product(n_, d + 1, rank_)), comment("formac_blocks: as formac_segs"),
                  decl("long long", "formac_blocks",
                       "formac_inner > 0 ? (formac_inner + " + str(kScanLanes - 1) + ") / " + lanes + " : 1"),
                  declOnly("long long", "formac_w"), body},
                 "Along dimension " + std::to_string(d) + ": lines strided by formac_inner points, " + lanes +
                     " side by side, in runs of " + run);
  }

  // Dimensions rank-2 and rank-1 of an integer sat at once (sweeps()): a
  // row's values, a vector's worth at a time (formac_t, kept in registers),
  // go through a vector prefix carried along the row (formac_sat_step_*) and
  // are added to the sums above them: the result's previous row, or a row
  // `above` when the result has another width (then converted into the
  // result). A band of rows per thread
  // starts from the sums of the bands above (their column sums first, then a
  // prefix over bands and along the row). The sums are kept modulo 2^32 in
  // unsigned lanes when the result is an integer of 32 bits or fewer (it
  // keeps their low bits), else modulo 2^64.
  Stmt satSweep(const Pass& p) const {
    FORMAC_INTERNAL_CHECK(p.fromBody, "an integer sat's sweep that does not read the input (it is the first pass)");
    std::string rows = n_[static_cast<size_t>(rank_ - 2)], cols = n_[static_cast<size_t>(rank_ - 1)];
    std::string qi = q(rank_ - 2), qj = q(rank_ - 1), U = sweepLane(s_), bands = str(kSweepBands);
    std::string at = "(formac_plane * formac_rows + " + qi + ") * formac_cols + " + qj;
    // The rows of band `b`.
    auto band = [&](std::vector<Stmt> body, const std::string& b = "formac_b") {
      return forLoop(qi + " = " + b + " * formac_per", qi + " < formac_rows && " + qi + " < (" + b + " + 1) * formac_per",
                     "++" + qi, std::move(body));
    };
    Stmt planeStart = seq({seq(indices()), seq(decode(n_, 0, rank_ - 2, "formac_plane"))});
    std::string threads = f_.openmp ? "formac_max_threads()" : "1";
    // The sums go straight into the result when it has the lanes' width (its
    // previous row is the sums above), else through `above`, then converted.
    bool direct = integerOnly(s_) && scalarSize(s_.type.scalar) == (narrowLanes(s_) ? 4 : 8);
    std::string first = qi + " == formac_b * formac_per", row = "(formac_plane * formac_rows + " + qi + ") * formac_cols";
    const int lanes = narrowLanes(s_) ? kSatLanesU : kSatLanesUl;
    const std::string L = str(lanes), V = "formac_v" + L + laneSuffix(s_);
    // formac_p: the sums above the row; formac_o: where its sums go.
    std::vector<Stmt> rowStart;
    if (direct) {
      rowStart = {decl(U + "* const", "formac_o", "(" + U + "*)formac_acc + " + row, false),
                  decl("const " + U + "* const", "formac_p",
                       first + " ? formac_carry + formac_b * formac_cols : formac_o - formac_cols", false)};
    } else {
      rowStart = {ifThen(first, {eval("memcpy(formac_a, formac_carry + formac_b * formac_cols, (size_t)formac_cols * sizeof(" +
                                      U + "))")}),
                  decl(U + "* const", "formac_o", "formac_a", false), decl("const " + U + "* const", "formac_p", "formac_a", false)};
    }
    // The points one at a time, from `lo` to `hi` (exclusive).
    auto single = [&](const std::string& lo, const std::string& hi, bool checked) {
      return upTo(qj, lo, hi, {pointValue(checked), assign("formac_o[" + qj + "]",
                                                          "formac_p[" + qj + "] + (formac_s += (" + U + ")formac_v)")});
    };
    // A vector's worth of points at a time from `lo` while they lie below `hi`.
    auto steps = [&](const std::string& lo, const std::string& hi, bool checked) {
      return forLoop("formac_j = " + lo, "formac_j + " + L + " <= " + hi, "formac_j += " + L,
                     {declOnly(U, "formac_t[" + L + "]"),
                      upTo(qj, "formac_j", "formac_j + " + L,
                           {pointValue(checked), assign("formac_t[" + qj + " - formac_j]", "(" + U + ")formac_v")}),
                      eval("formac_sat_step_" + laneSuffix(s_) +
                           "(formac_t, formac_p + formac_j, formac_o + formac_j, &formac_cv)")});
    };
    std::vector<Stmt> sweepRow = rowStart;
    sweepRow.push_back(declOnly("long long", "formac_j"));  // each thread's own
    sweepRow.push_back(decl(V, "formac_cv", "{0}", false));
    sweepRow.push_back(decl(U, "formac_s", "0", false));
    if (checked_) {
      // The steps where no read needs a check (decided once a row), the
      // points before and after them one at a time with checks.
      sweepRow.push_back(seq(checkFree("0", "formac_cols")));
      sweepRow.push_back(single("0", "formac_e0", true));
      sweepRow.push_back(assign("formac_cv", "(" + V + "){0} + formac_s"));
      sweepRow.push_back(steps("formac_e0", "formac_e1", false));
      sweepRow.push_back(assign("formac_s", "formac_cv[0]"));
      sweepRow.push_back(single("formac_j", "formac_cols", true));
    } else {
      sweepRow.push_back(steps("0", "formac_cols", false));
      sweepRow.push_back(assign("formac_s", "formac_cv[0]"));
      sweepRow.push_back(single("formac_j", "formac_cols", false));
    }
    if (!direct) sweepRow.push_back(upTo(qj, "0", "formac_cols", {store(p, at, "(" + A_ + ")formac_a[" + qj + "]")}));
    // The column sums of each band but the last, a share of its columns a
    // thread (with two threads, the first band alone would leave one idle).
    Stmt columnSums = forLoop(
        "formac_w = 0", "formac_w < (formac_bands - 1) * formac_bands", "++formac_w",
        {decl("long long", "formac_cb", "formac_w / formac_bands"),
         decl("long long", "formac_j0", "formac_cols * (formac_w % formac_bands) / formac_bands"),
         decl("long long", "formac_j1", "formac_cols * (formac_w % formac_bands + 1) / formac_bands"),
         decl(U + "* const", "formac_c", "formac_carry + (formac_cb + 1) * formac_cols", false), planeStart,
         declOnly("long long", "formac_j"),  // each thread's own
         upTo("formac_j", "formac_j0", "formac_j1", {assign("formac_c[formac_j]", "0")}),
         band({eachValue(p, at, "formac_j0", "formac_j1", eval("formac_c[" + qj + "] += (" + U + ")formac_v"))}, "formac_cb")},
        parallelFor());
    auto eachBand = [&](const std::string& j0, const std::string& add) {
      return upTo("formac_b", "1", "formac_bands",
                  {decl(U + "* const", "formac_c", "formac_carry + formac_b * formac_cols", false),
                   upTo("formac_j", j0, "formac_cols", {eval("formac_c[formac_j] += formac_c[formac_j - " + add + "]")})});
    };
    Stmt carries = block({declOnly("long long", "formac_j"),
                          upTo("formac_j", "0", "formac_cols", {assign("formac_carry[formac_j]", "0")}),
                          eachBand("0", "formac_cols"), eachBand("1", "1")},
                         "band b's carry: the column sums of bands 0 .. b-1, summed along the row");
    Stmt sweep = forLoop(
        "formac_b = 0", "formac_b < formac_bands", "++formac_b",
        {comment("formac_a: unused when direct"),
         decl(U + "* const", "formac_a", "formac_above + formac_b * formac_cols", false), eval("(void)formac_a"),
         planeStart, band({block(std::move(sweepRow))})},
        parallelFor());
    return seq(
        {comment("Along dimensions " + std::to_string(rank_ - 1) + " and " + std::to_string(rank_ - 2) +
                 " at once (integer sums are exact in any order, kept in " + U + "):\n"
                 "each row's running sum plus the sums above it, in bands of rows (one per thread)\n"
                 "that start from the bands above."),
         block({decl("long long", "formac_rows", rows), decl("long long", "formac_cols", cols),
                decl("long long", "formac_bands",
                     "FORMAC_MIN(FORMAC_MIN(formac_rows, (long long)" + threads + "), " + bands + ")"),
                decl("long long", "formac_per", "formac_bands > 0 ? (formac_rows + formac_bands - 1) / formac_bands : 1"),
                comment("per band: the sums above it"),
                decl(U + "* const", "formac_carry", "(" + U + "*)(formac_scratch + " + accPoints() + ")", false),
                comment("per band: the sums above a row"),
                decl(U + "* const", "formac_above", "formac_carry + " + bands + " * formac_cols", false),
                declOnly("long long", "formac_plane"), declOnly("long long", "formac_b"), declOnly("long long", "formac_w"),
                upTo("formac_plane", "0", product(n_, 0, rank_ - 2), {columnSums, carries, sweep})})});
  }

  // Dimensions rank-2 and rank-1 of a floating sat in one sweep, in the
  // floating order (formac_sat8_d_next): a run of 8 rows at a time, staged
  // kSweepChunk columns at a time, scanned along the rows and then down the
  // columns while in cache. Threads take bands of columns, each an aligned
  // group of runs, the next band to the thread free first (its width from
  // formac_sweep_band, the prelude: 4097 columns were bands of 4096 and 1),
  // and a band's rows start from the groups of the bands before it (a
  // pre-pass over the rows, 8 at a time, as the contiguous pass's segments).
  // The values are the same whatever the bands.
  Stmt floatSweep(const Pass& p) const {
    std::string rows = n_[static_cast<size_t>(rank_ - 2)], cols = n_[static_cast<size_t>(rank_ - 1)];
    std::string qi = q(rank_ - 2), bands = str(kSweepBands), run = str(ir::kScanRun);
    std::string chunk = str(kSweepChunk), depth = str(kScanDepth), threads = f_.openmp ? "formac_max_threads()" : "1";
    Stmt lineStart = seq({seq(indices()), seq(decode(n_, 0, rank_ - 2, "formac_plane"))});
    // The results go straight into a double accumulator (the output, or the
    // scratch of a later pass), else out of the buffer, converted.
    bool direct = !p.toOutput || s_.type.scalar == ScalarKind::Double;
    std::string base = "formac_base[(formac_k + formac_r) * " + bands + " + formac_b]";
    Stmt groups = forLoop(
        "formac_w = 0", "formac_w < (formac_rows + " + str(ir::kScanRun - 1) + ") / " + run, "++formac_w",
        {decl("long long", "formac_k", "formac_w * " + run), runHead(), declOnly("double", "formac_x8[" + run + " * " + chunk + "]"),
         declOnly("formac_sat8_d", "formac_s"), declOnly("formac_sat8_d", "formac_c"), declOnly("long long", "formac_b"),
         declOnly("long long", "formac_c0"), declOnly("long long", "formac_r"), lineStart,
         upTo("formac_r", "0", run, {assign("formac_b8[formac_r]", "0")}), eval("formac_sat8_d_begin(&formac_c, formac_b8)"),
         upTo("formac_b", "0", "formac_bands",
              {upTo("formac_r", "0", "formac_nr", {assign(base, "formac_c.e[formac_r]")}),
               ifThen("formac_b + 1 == formac_bands", {eval("break")}), eval("formac_sat8_d_begin(&formac_s, formac_b8)"),
               forLoop("formac_c0 = formac_b * formac_band", "formac_c0 < (formac_b + 1) * formac_band", "formac_c0 += " + chunk,
                       {decl("long long", "formac_cw", "FORMAC_MIN(" + chunk + ", (formac_b + 1) * formac_band - formac_c0)"),
                        stage(p), eval("formac_sat8_d_runs(&formac_s, formac_x8, formac_cw)")}),
               eval("formac_sat8_d_push(&formac_c, &formac_s.g[0])")})},
        parallelFor());
    std::string qj = q(rank_ - 1), at = "(formac_plane * formac_rows + " + qi + ") * formac_cols + " + qj;
    std::vector<Stmt> next = {
        eval("formac_sat8_d_next(&formac_s, formac_x8, formac_cw, formac_ce + formac_c0, formac_cl + formac_c0, " +
             std::string(direct ? "formac_acc + (formac_plane * formac_rows + formac_k) * formac_cols + formac_c0, "
                                  "formac_cols, (int)formac_nr"
                                : "formac_x8, formac_cw, (int)formac_nr") + ")")};
    if (!direct)
      next.push_back(upTo("formac_r", "0", "formac_nr",
                          {assign(qi, "formac_k + formac_r"),
                           upTo(qj, "formac_c0", "formac_c0 + formac_cw",
                                {store(p, at, "formac_x8[formac_r * formac_cw + " + qj + " - formac_c0]")})}));
    Stmt sweep = forLoop(
        "formac_b = 0", "formac_b < formac_bands", "++formac_b",
        {decl("long long", "formac_j0", "formac_b * formac_band"),
         decl("long long", "formac_wd", "FORMAC_MIN(formac_band, formac_cols - formac_j0)"),
         declOnly("double", "formac_x8[" + run + " * " + chunk + "]"), decl("int", "formac_depth", "0", false),
         decl("long long", "formac_runs", "0", false), declOnly("long long", "formac_k"), declOnly("long long", "formac_r"),
         declOnly("long long", "formac_c0"), lineStart,
         upTo("formac_c0", "formac_j0", "formac_j0 + formac_wd", {assign("formac_ce[formac_c0]", "0")}),
         forLoop("formac_k = 0", "formac_k < formac_rows", "formac_k += " + run,
                 {runHead(), declOnly("formac_sat8_d", "formac_s"),
                  upTo("formac_r", "0", run,
                       {assign("formac_b8[formac_r]", "formac_r < formac_nr && formac_bands > 1 ? " + base + " : 0")}),
                  eval("formac_sat8_d_begin(&formac_s, formac_b8)"),
                  forLoop("formac_c0 = formac_j0", "formac_c0 < formac_j0 + formac_wd", "formac_c0 += " + chunk,
                          {decl("long long", "formac_cw", "FORMAC_MIN(" + chunk + ", formac_j0 + formac_wd - formac_c0)"),
                           stage(p), seq(std::move(next))}),
                  ifThen("formac_k + " + run + " < formac_rows",
                         {eval("formac_scan_lanes_d_push(formac_g + formac_j0, formac_p + formac_j0, &formac_depth, "
                               "&formac_runs, formac_cl + formac_j0, formac_ce + formac_j0, formac_wd, formac_cols)")})})},
        parallelFor("dynamic, 1"));
    return block(
        {decl("long long", "formac_rows", rows), decl("long long", "formac_cols", cols),
         decl("long long", "formac_threads", "FORMAC_MIN((long long)" + threads + ", " + bands + ")"),
         comment("per column: its carry"), decl("double* const", "formac_ce", "formac_scratch + " + accPoints(), false),
         comment("per column: its run's total"), decl("double* const", "formac_cl", "formac_ce + formac_cols", false),
         comment("per column: its carry stack"), decl("double* const", "formac_g", "formac_cl + formac_cols", false),
         decl("double* const", "formac_p", "formac_g + " + depth + " * formac_cols", false),
         comment("per row and band: its carry"),
         decl("double* const", "formac_base", "formac_p + " + depth + " * formac_cols", false),
         decl("long long", "formac_band", "formac_sweep_band(formac_cols, formac_threads)"),
         declOnly("long long", "formac_bands"), declOnly("long long", "formac_plane"), declOnly("long long", "formac_w"),
         assign("formac_bands", "formac_cols > 0 ? (formac_cols + formac_band - 1) / formac_band : 1"),
         upTo("formac_plane", "0", product(n_, 0, rank_ - 2),
              {ifThen("formac_bands > 1",
                      {comment("Each row's carry at each band: the groups of the bands before it."), groups}),
               declOnly("long long", "formac_b"), sweep})},
        "Along dimensions " + std::to_string(rank_ - 1) + " and " + std::to_string(rank_ - 2) + " in one sweep: runs of " +
            run + " rows, scanned along the rows, then down the columns.");
  }

  // The rows of the run at formac_k (how many, and a carry each).
  Stmt runHead() const {
    std::string run = str(ir::kScanRun);
    return seq({decl("long long", "formac_nr", "FORMAC_MIN(" + run + ", formac_rows - formac_k)"),
                declOnly("double", "formac_b8[" + run + "]")});
  }

  // The values of the run's rows at columns formac_c0 .. + formac_cw staged
  // in formac_x8 (row stride formac_cw), 0 in the rows past the last.
  Stmt stage(const Pass& p) const {
    std::string qi = q(rank_ - 2), qj = q(rank_ - 1), run = str(ir::kScanRun);
    std::string at = "(formac_plane * formac_rows + " + qi + ") * formac_cols + " + qj;
    return upTo("formac_r", "0", run,
                {assign(qi, "formac_k + formac_r"),
                 ifThen("formac_r < formac_nr",
                        {eachValue(p, at, "formac_c0", "formac_c0 + formac_cw",
                                   assign("formac_x8[formac_r * formac_cw + " + qj + " - formac_c0]", "formac_v"))},
                        {eval("memset(formac_x8 + formac_r * formac_cw, 0, (size_t)formac_cw * sizeof(double))")})});
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
  std::string sweep;
  if (sweeps(s) && floating(s))  // floatSweep: a carry, a total and a stack per column, a carry per row and band
    sweep = " + (size_t)" + str(2 + 2 * kScanDepth) + " * " + len + " + (size_t)" + str(kSweepBands) +
            " * (size_t)(" + ir::printSize(s.extent[static_cast<size_t>(s.rank() - 2)], n.param) + ")";
  else if (sweeps(s))  // satSweep: per band a carry, the sums above and a line
    sweep = " + (size_t)" + str(2 * kSweepBands) + " * " + len;
  return "(" + (needsAccumulator(s) ? points : std::string("0")) + " + " + lines + " * ((" + len + " + " +
         str(kScanSegment - 1) + ") / " + str(kScanSegment) + ")" + sweep + ")";
}

std::string emitScanFunction(const ScanFunctionC& f) { return ScanPrinter(f).emit(); }

}  // namespace formac::codegen
