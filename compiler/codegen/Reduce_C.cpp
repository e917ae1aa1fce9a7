#include "codegen/Reduce_C.h"

#include <cmath>
#include <cstdio>
#include <vector>

#include "codegen/ExprPrinter.h"
#include "codegen/LoopNest.h"
#include "codegen/Prelude.h"
#include "codegen/Stmt.h"

namespace formac::codegen {
namespace {

using ir::ReduceOp;

std::string str(long long v) { return std::to_string(v); }

std::string integerLimit(ScalarKind k, bool highest) {
  long long lo, hi;
  integerRange(k, &lo, &hi);
  long long v = highest ? hi : lo;
  if (k == ScalarKind::Int64) return highest ? "9223372036854775807LL" : "(-9223372036854775807LL - 1)";
  if (k == ScalarKind::Int && !highest) return "(-2147483647 - 1)";
  return v < 0 ? "(" + str(v) + ")" : str(v);
}

// How one op accumulates a chunk (`formac_acc`, or the lanes of a floating
// sum) and combines the chunks' partials.
struct Accumulation {
  std::string partialType;
  std::vector<Stmt> init;     // statements starting a chunk
  std::vector<Stmt> add;      // statements adding formac_v
  std::string finish;         // the chunk's partial, an expression
  std::vector<Stmt> combine;  // statements leaving the value of partials[0..n) in formac_r
  bool lanes = false;         // a floating sum: formac_lane[32]
  // An 8-bit histogram: formac_v's bin (an expression), for runs taken 4
  // points at a time, point j into sub-histogram j.
  std::string bin8;
  // A histogram: statements starting a thread's work, ending each chunk, ending the thread's work,
  // ending the function.
  std::vector<Stmt> threadInit, chunkEnd, threadEnd, functionEnd;
};

// 8-bit histograms of up to this many bins count into 4 sub-histograms a thread.
constexpr long long kSubHistogramBins = 1024;

// The bin of each 8-bit value v as the generated C computes it, floor((v -
// lo) * bins / (hi - lo)) in double; `bins` where v is not counted.
std::vector<long long> binsOf8Bit(const ir::Reduction& r) {
  std::vector<long long> lut(256);
  for (int v = 0; v < 256; ++v) {
    const double x = v, b = std::floor((x - r.lo) * static_cast<double>(r.bins) / (r.hi - r.lo));
    lut[static_cast<size_t>(v)] =
        x >= r.lo && x < r.hi && b >= 0.0 && b < static_cast<double>(r.bins) ? static_cast<long long>(b) : r.bins;
  }
  return lut;
}

// Whether every 8-bit value's bin is v + *shift for one shift (unit bins
// that count every value: 256 bins over [0, 256)); else the bin is looked
// up in the table formac_lut.
bool binsAreAShift(const ir::Reduction& r, long long* shift) {
  std::vector<long long> lut = binsOf8Bit(r);
  *shift = lut[0];
  for (int v = 0; v < 256; ++v)
    if (lut[static_cast<size_t>(v)] != v + *shift || lut[static_cast<size_t>(v)] >= r.bins) return false;
  return true;
}

Accumulation accumulation(const ir::Stage& s) {
  ScalarKind elem = s.reduction.input.body.result->type.scalar;
  std::string T = scalarCType(elem), lanes = str(ir::kSumLanes);
  Accumulation a;
  auto fold = [&](const std::string& init, Stmt step) {
    return std::vector<Stmt>{decl(a.partialType, "formac_r", init, false), declOnly("long long", "formac_i"),
                             forLoop("formac_i = 0", "formac_i < formac_chunks", "++formac_i", {std::move(step)})};
  };
  switch (s.reduction.op) {
    case ReduceOp::Sum:
      if (isFloating(elem)) {
        a.partialType = "double";
        a.lanes = true;
        a.init = {declOnly("double", "formac_lane[" + lanes + "]"), declOnly("int", "formac_j"),
                  forLoop("formac_j = 0", "formac_j < " + lanes, "++formac_j", {assign("formac_lane[formac_j]", "0.0")})};
        a.add = {eval("formac_lane[formac_k & " + str(ir::kSumLanes - 1) + "] += (double)formac_v")};
        a.finish = "formac_lane_sum(formac_lane)";
        a.combine = {decl("double", "formac_r", "formac_sum_d(formac_p, formac_chunks)", false)};
      } else {
        a.partialType = "unsigned long long";
        // A chunk of 2048 values of 16 bits or fewer sums within an int
        // (2048 * 65535 < 2^31): the loop then adds without widening each value.
        bool narrow = elem == ScalarKind::Int8 || elem == ScalarKind::Int16 || elem == ScalarKind::Uint16;
        a.init = {decl(narrow ? "int" : "unsigned long long", "formac_acc", "0", false)};
        a.add = {eval(narrow ? "formac_acc += formac_v" : "formac_acc += (unsigned long long)formac_v")};
        a.finish = narrow ? "(unsigned long long)(long long)formac_acc" : "formac_acc";
        a.combine = fold("0", eval("formac_r += formac_p[formac_i]"));
      }
      break;
    case ReduceOp::Min:
    case ReduceOp::Max: {
      bool isMax = s.reduction.op == ReduceOp::Max;
      a.partialType = T;
      if (isFloating(elem)) {
        // In a chunk: the order-preserving integer key of each value, NaN's
        // replaced by the limit no value has (INT_MIN is the key of a NaN),
        // all by masks, so that the loop is a plain integer max a compiler
        // vectorizes; the chunk's partial is a value again (NaN when it had
        // none). The partials combine with formac_max_total_f, where NaN is
        // the identity.
        bool f32 = elem == ScalarKind::Float;
        std::string suf = f32 ? "f" : "d", K = f32 ? "int" : "long long", bytes = f32 ? "4" : "8";
        std::string fn = std::string(isMax ? "formac_max_total_" : "formac_min_total_") + suf;
        std::string lim = f32 ? (isMax ? "(-2147483647 - 1)" : "2147483647")
                              : (isMax ? "(-9223372036854775807LL - 1)" : "9223372036854775807LL");
        std::string mag = f32 ? "0x7fffffff" : "0x7fffffffffffffffLL", inf = f32 ? "0x7f800000" : "0x7ff0000000000000LL";
        std::string shift = f32 ? "31" : "63";
        a.init = {decl(K, "formac_acc", lim, false)};
        a.add = {block({declOnly(K, "formac_b"), eval("memcpy(&formac_b, &formac_v, " + bytes + ")"),
                        decl(K, "formac_nan", "-(" + K + ")((formac_b & " + mag + ") > " + inf + ")"),
                        decl(K, "formac_key", "((formac_b ^ ((formac_b >> " + shift + ") & " + mag + ")) & ~formac_nan) | (" +
                                                  lim + " & formac_nan)"),
                        assign("formac_acc", std::string("formac_key") + (isMax ? " > " : " < ") +
                                                 "formac_acc ? formac_key : formac_acc")})};
        a.finish = "formac_acc == " + lim + " ? NAN : formac_unkey_" + suf + "(formac_acc)";
        a.combine = fold(std::string("formac_chunks == 0 ? ") + (isMax ? "-INFINITY" : "INFINITY") + " : NAN",
                         assign("formac_r", fn + "(formac_r, formac_p[formac_i])"));
      } else {
        std::string identity = integerLimit(elem, !isMax), cmp = isMax ? " > " : " < ";
        a.init = {decl(T, "formac_acc", identity, false)};
        a.add = {assign("formac_acc", "formac_v" + cmp + "formac_acc ? formac_v : formac_acc")};
        a.combine = fold(identity, ifThen("formac_p[formac_i]" + cmp + "formac_r", {assign("formac_r", "formac_p[formac_i]")}));
      }
      if (!isFloating(elem)) a.finish = "formac_acc";
      break;
    }
    case ReduceOp::Histogram: {
      // Integers of 8 or 16 bits: each possible value's bin, computed once
      // by the rule (-1: not counted); other types compute it per point.
      const ir::Reduction& r = s.reduction;
      std::string lo = doubleLiteral(r.lo), hi = doubleLiteral(r.hi), bins = str(r.bins);
      auto binOf = [&](const std::string& x) {
        return decl("double", "formac_b", "floor((" + x + " - " + lo + ") * " + bins + ".0 / (" + hi + " - " + lo + "))");
      };
      auto counted = [&](const std::string& x) {
        return x + " >= " + lo + " && " + x + " < " + hi + " && formac_b >= 0.0 && formac_b < " + bins + ".0";
      };
      a.partialType = "long long";
      bool small = elem == ScalarKind::Int8 || elem == ScalarKind::Int16 || elem == ScalarKind::Uint16;
      if (elem == ScalarKind::Int8 && r.bins <= kSubHistogramBins) {
        // 8-bit values: each value's bin in a table (bins: not counted), or
        // the value itself plus a constant where that is the rule's bin for
        // every value (binsAreAShift), and per thread 4 histograms of 32-bit
        // counters, point j of each 4 in the j-th (k mod 4 where a run is
        // not a whole 4): equal values in a row are 4 independent chains of
        // increments, not one. They are added into the thread's int64
        // histogram every 2^20 chunks (no counter reaches 2^32) and at the end.
        long long shift = 0;
        const bool shifted = binsAreAShift(r, &shift);
        const std::string bin = !shifted ? "formac_lut[formac_v]" : shift ? "formac_v + " + str(shift) : "formac_v";
        if (!shifted)
          a.init = {declOnly("int", "formac_lut[256]"), declOnly("int", "formac_i"),
                    forLoop("formac_i = 0", "formac_i < 256", "++formac_i",
                            {decl("double", "formac_x", "(double)formac_i"), binOf("formac_x"),
                             assign("formac_lut[formac_i]", counted("formac_x") + " ? (int)formac_b : " + bins)})};
        a.threadInit = {declOnly("unsigned", "formac_h4[4][" + bins + " + 1]"), decl("long long", "formac_since", "0", false),
                        eval("memset(formac_h4, 0, sizeof formac_h4)")};
        a.add = {eval("++formac_h4[formac_k & 3][" + bin + "]")};
        a.bin8 = bin;
        const Stmt flush = eval("formac_hist_flush(formac_h, &formac_h4[0][0], " + bins + ")");
        a.chunkEnd = {ifThen("++formac_since == 1048576", {flush, assign("formac_since", "0")})};
        a.threadEnd = {flush};
      } else if (small) {
        long long vlo, vhi;
        integerRange(elem, &vlo, &vhi);
        std::string n = str(vhi - vlo + 1), base = str(-vlo);
        a.init = {decl("int*", "formac_lut", "(int*)malloc(" + n + " * sizeof(int))", false), declOnly("long long", "formac_i"),
                  forLoop("formac_i = 0", "formac_lut && formac_i < " + n, "++formac_i",
                          {decl("double", "formac_x", "(double)(formac_i - " + base + ")"), binOf("formac_x"),
                           assign("formac_lut[formac_i]", counted("formac_x") + " ? (int)formac_b : -1")})};
        a.add = {block({declOnly("int", "formac_l"),
                        ifThen("formac_lut", {assign("formac_l", "formac_lut[(long long)formac_v + " + base + "]")},
                               {decl("double", "formac_x", "(double)formac_v"), binOf("formac_x"),
                                assign("formac_l", counted("formac_x") + " ? (int)formac_b : -1")}),
                        ifThen("formac_l >= 0", {eval("++formac_h[formac_l]")})})};
        a.functionEnd = {eval("free(formac_lut)")};
      } else {
        a.add = {block({decl("double", "formac_x", "(double)formac_v"), binOf("formac_x"),
                        ifThen(counted("formac_x"), {eval("++formac_h[(long long)formac_b]")})})};
      }
      break;
    }
    case ReduceOp::Where:
    case ReduceOp::TopK:
      a.partialType = "long long";
      break;
    case ReduceOp::Count:
      a.partialType = "long long";
      // At most 2048 in a chunk: 8-bit values count in 16 bits, which a
      // vectoriser widens to once (not to 32 bits, four times as many vectors).
      a.init = {decl(elem == ScalarKind::Int8 ? "unsigned short" : "int", "formac_acc", "0", false)};
      a.add = {elem == ScalarKind::Int8 ? assign("formac_acc", "(unsigned short)(formac_acc + (formac_v != 0))")
                                        : eval("formac_acc += formac_v != 0")};
      a.finish = "(long long)formac_acc";
      a.combine = fold("0", eval("formac_r += formac_p[formac_i]"));
      break;
    case ReduceOp::Any:
    case ReduceOp::All: {
      bool any = s.reduction.op == ReduceOp::Any;
      a.partialType = "int";
      a.init = {decl("int", "formac_acc", any ? "0" : "1", false)};
      a.add = {eval(std::string("formac_acc ") + (any ? "|" : "&") + "= formac_v != 0")};
      a.finish = "formac_acc";
      a.combine = fold(any ? "0" : "1", eval(std::string("formac_r ") + (any ? "|" : "&") + "= formac_p[formac_i]"));
      break;
    }
  }
  return a;
}

// A FORMAC_PRAGMA line of OpenMP that is not one loop's: a parallel region, a
// loop of the region's threads.
Stmt pragma(const std::string& omp) { return text("FORMAC_PRAGMA(" + omp + ")\n"); }

}  // namespace

ir::Stage domainStage(const ir::Stage& s) {
  ir::Stage d;
  d.id = s.id;
  d.name = s.name;
  const ir::Piece& in = s.kind == ir::Stage::Scan ? s.scan.input : s.reduction.input;
  d.type = in.body.result->type;
  for (const auto& a : in.axes) d.extent.push_back(a.count);
  d.pieces.push_back(in);
  return d;
}

std::string doubleLiteral(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string t = buf;
  if (t.find_first_of(".en") == std::string::npos) t += ".0";
  return v < 0 ? "(" + t + ")" : t;
}

std::string indent(const std::string& text, const std::string& ind) {
  std::string out, line;
  for (char c : text) {
    line += c;
    if (c == '\n') {
      out += (line == "\n" ? "" : ind) + line;
      line.clear();
    }
  }
  return out + (line.empty() ? "" : ind + line);
}

std::string reducePartialType(const ir::Stage& s) { return accumulation(s).partialType; }

std::string reducePartialCount(const ir::Pipeline& p, const Names& n, const ir::Stage& s) {
  if (s.reduction.op == ReduceOp::Histogram) return "(size_t)1";  // a histogram per thread instead
  // TopK: the thread count, each thread's heap size, and its heap of k (key, index) pairs.
  if (s.reduction.op == ReduceOp::TopK)
    return "(size_t)(formac_max_threads() + 1) * (size_t)(2 * " + str(s.reduction.bins) + " + 1)";
  std::string len = "1", outs = "1";
  const auto& axes = s.reduction.input.axes;
  for (size_t d = 0; d < axes.size(); ++d) {
    std::string c = "(long long)(" + ir::printSize(axes[d].count, n.param) + ")";
    (s.reduction.dim < 0 || static_cast<int>(d) == s.reduction.dim ? len : outs) += " * " + c;
  }
  (void)p;
  return "(size_t)(" + outs + ") * (size_t)((" + len + " + " + str(ir::kSumChunk - 1) + ") / " +
         str(ir::kSumChunk) + ")";
}

std::string emitReduceFunction(const ReduceFunctionC& f) {
  const ir::Stage& s = *f.stage;
  const ir::Reduction& r = s.reduction;
  const Names& n = *f.names;
  ir::Stage domain = domainStage(s);
  int rank = static_cast<int>(r.input.axes.size());
  auto count = [&](int d) { return "(long long)(" + ir::printSize(r.input.axes[static_cast<size_t>(d)].count, n.param) + ")"; };
  auto q = [](int d) { return "q" + std::to_string(d); };
  std::string len, outs;
  for (int d = 0; d < rank; ++d) {
    std::string& product = r.dim < 0 || d == r.dim ? len : outs;
    product += (product.empty() ? "" : " * ") + count(d);
  }
  if (outs.empty()) outs = "1";
  Accumulation a = accumulation(s);
  std::string chunk = str(ir::kSumChunk), elem = cType(domain.type), mask = str(ir::kSumLanes - 1),
              lanes = str(ir::kSumLanes);
  // The dimension a run of points goes along: the last (whole image) or the
  // reduced one. A chunk is a sequence of runs, each within one line of it.
  int run = r.dim < 0 ? rank - 1 : r.dim;
  std::string qr = q(run);

  // Lattice indices at the chunk's first point. (A divisor is never a
  // constant 0, which gcc rejects even where the code never runs: an empty
  // domain of constant extent.)
  auto divisor = [&](int d) { return "(" + count(d) + " > 0 ? " + count(d) + " : 1)"; };
  std::vector<Stmt> start = {decl("long long", "formac_rest", r.dim < 0 ? "formac_c * " + chunk : "formac_o", false)};
  for (int d = rank - 1; d >= 0; --d) {
    if (d == r.dim) continue;
    bool first = d == 0 || (d == 1 && r.dim == 0);
    start.push_back(decl("long long", "formac_" + q(d) + "_at", first ? "formac_rest" : "formac_rest % " + divisor(d)));
    if (!first) start.push_back(eval("formac_rest /= " + divisor(d)));
  }
  for (int d = 0; d < rank; ++d)
    start.push_back(decl("long long", q(d), d == r.dim ? "formac_c * " + chunk : "formac_" + q(d) + "_at", false));
  start.push_back(eval("(void)formac_rest"));
  // After a run that ended its line (whole image): the next line.
  std::vector<Stmt> carry;
  if (r.dim < 0 && rank > 1) {
    Stmt next = eval("++q0");
    for (int d = 1; d <= rank - 2; ++d) next = ifThen("++" + q(d) + " == " + count(d), {assign(q(d), "0"), next});
    carry.push_back(ifThen(qr + " == " + count(run), {assign(qr, "0"), next}));
  }

  LoopNestOptions lo;
  lo.pipeline = f.pipeline;
  lo.stage = &domain;
  lo.piece = &domain.pieces[0];
  lo.names = &n;
  lo.openmp = f.openmp;
  lo.resultVariable = "formac_v";
  // Without boundary-mode reads every point is read unchecked, and the runs
  // are loops a C compiler vectorizes; otherwise each point resolves its reads.
  bool checked = needsBorderChecks(lo);
  const Stmt point = seq({declOnly(elem, "formac_v"), seq(pointBody(lo, checked))});
  // The loop over this call's chunks: `init` starts a chunk, `add` takes
  // formac_v (the value at lattice index q, linear index formac_k), `end`
  // ends it; its iterations shared among threads with the OpenMP clauses
  // `parallel`.
  const std::string pointText = printerFor(false).print(point);
  const bool reads = mentions(pointText, qr);  // whether the point's code reads its index along the run
  // Along a dimension, the indices of the other dimensions that the point's
  // code does not read (a value of scalars only) stay quiet for -Wunused.
  if (carry.empty())
    for (int d = 0; d < rank; ++d)
      if (d != run && !mentions(pointText, q(d))) start.push_back(eval("(void)" + q(d)));
  auto chunkLoop = [&](const std::vector<Stmt>& init, const std::vector<Stmt>& add, const std::vector<Stmt>& end,
                       const std::string& parallel) {
    std::vector<Stmt> runs;
    // (Only the loops of `a`'s own add have lanes or sub-histograms.)
    if (a.lanes && !checked && run == rank - 1) {
      // Lane k & 31 takes point k: whole blocks of 32 points from a k that
      // is a multiple of 32 go lane by lane in one vectorizable loop.
      runs.push_back(forLoop("", qr + " < formac_x1 && (formac_k & " + mask + ")", "++" + qr + ", ++formac_k",
                             {point, seq(add)}));
      std::vector<Stmt> lane = {point, eval("formac_lane[formac_j] += (double)formac_v")};
      if (reads) lane.insert(lane.begin(), decl("long long", qr, "formac_q + formac_j"));
      std::vector<Stmt> block32 = {declOnly("int", "formac_j"),
                                   forLoop("formac_j = 0", "formac_j < " + lanes, "++formac_j", std::move(lane))};
      if (reads) block32.insert(block32.begin(), decl("long long", "formac_q", qr));
      runs.push_back(forLoop("", qr + " + " + lanes + " <= formac_x1", qr + " += " + lanes + ", formac_k += " + lanes,
                             std::move(block32)));
    }
    if (!a.bin8.empty() && !checked && run == rank - 1) {
      // 4 points at a time, point j into sub-histogram j: four independent
      // chains of increments with constant addresses (gcc keeps k & 3 a
      // computed index otherwise). 2.5x faster for 256 bins of 8-bit data.
      std::vector<Stmt> four;
      if (reads) four.push_back(decl("long long", "formac_q", qr));
      for (int j = 0; j < 4; ++j) {
        std::vector<Stmt> one = {point, eval("++formac_h4[" + str(j) + "][" + a.bin8 + "]")};
        if (reads) one.insert(one.begin(), decl("long long", qr, "formac_q + " + str(j)));
        four.push_back(block(std::move(one)));
      }
      runs.push_back(forLoop("", qr + " + 4 <= formac_x1", qr + " += 4, formac_k += 4", std::move(four)));
    }
    // The points left one at a time; after a loop of whole blocks, counted
    // down from their number (`for (; q < x1; ...)` there makes gcc 12 warn,
    // wrongly, of undefined behaviour at iteration 2^61 when the extent is a
    // constant multiple of 32: -Waggressive-loop-optimizations, on by default).
    runs.push_back(runs.empty() ? forLoop("", qr + " < formac_x1", "++" + qr + ", ++formac_k", {point, seq(add)})
                                : forLoop("long long formac_t = formac_x1 - " + qr, "formac_t > 0",
                                          "--formac_t, ++" + qr + ", ++formac_k", {point, seq(add)}));
    return forLoop(
        "formac_w = 0", "formac_w < formac_outs * formac_chunks", "++formac_w",
        {decl("long long", "formac_o", "formac_w / formac_per"), decl("long long", "formac_c", "formac_w % formac_per"),
         decl("long long", "formac_end",
              "formac_len - formac_c * " + chunk + " < " + chunk + " ? formac_len : formac_c * " + chunk + " + " + chunk),
         decl("long long", "formac_k", "formac_c * " + chunk, false), seq(start), seq(init), eval("(void)formac_o"),
         whileLoop("formac_k < formac_end",
                   {comment("A run: the chunk's points left in this line."),
                    decl("long long", "formac_x1",
                         qr + " + (formac_end - formac_k < " + count(run) + " - " + qr + " ? formac_end - formac_k : " +
                             count(run) + " - " + qr + ")"),
                    seq(std::move(runs)), seq(carry)}),
         seq(end)},
        parallel);
  };
  // Threads only for work worth waking them for (FORMAC_PARALLEL_POINTS).
  const std::string worth = parallelIf("formac_outs * formac_len");
  const std::string parallelFor = f.openmp ? "schedule(static) " + worth : "";
  const Stmt region = f.openmp ? pragma("omp parallel num_threads(formac_nt) " + worth) : seq({});
  const Stmt forEach = f.openmp ? pragma("omp for schedule(static)") : seq({});

  std::string out = n.stage[static_cast<size_t>(s.id)];
  std::vector<Stmt> t = {
      comment("points combined into one value"), decl("long long", "formac_len", len),
      decl("long long", "formac_outs", outs),
      decl("long long", "formac_chunks", "(formac_len + " + str(ir::kSumChunk - 1) + ") / " + chunk),
      comment("The divisor below: an empty domain of constant extent has no chunk, and gcc\n"
              "rejects a division by a constant 0 even in a loop that never runs."),
      decl("long long", "formac_per", "formac_chunks > 0 ? formac_chunks : 1"), declOnly("long long", "formac_w")};
  std::string k = str(r.bins);
  switch (r.op) {
    case ReduceOp::Histogram:
      // A histogram per thread, added up at the end: no contention whatever
      // the values (every value in one bin included).
      t.insert(t.end(),
               {decl("int", "formac_nt", "formac_max_threads()", false),
                decl("long long*", "formac_hs", "(long long*)calloc((size_t)formac_nt * " + k + ", sizeof(long long))", false),
                eval("(void)formac_partials"),
                ifThen("!formac_hs", {assign("formac_nt", "1"), assign("formac_hs", out),
                                      eval("memset(" + out + ", 0, " + k + " * sizeof(long long))")}),
                seq(a.init), region,
                block({decl("long long*", "formac_h", "formac_hs + (size_t)formac_thread_num() * " + k, false),
                       seq(a.threadInit), forEach, chunkLoop({}, a.add, a.chunkEnd, ""), seq(a.threadEnd)}),
                ifThen("formac_hs != " + out,
                       {declOnly("long long", "formac_b"),
                        forLoop("formac_b = 0", "formac_b < " + k, "++formac_b",
                                {decl("long long", "formac_n", "0", false), declOnly("int", "formac_t"),
                                 forLoop("formac_t = 0", "formac_t < formac_nt", "++formac_t",
                                         {eval("formac_n += formac_hs[(size_t)formac_t * " + k + " + formac_b]")}),
                                 assign(out + "[formac_b]", "formac_n")}),
                        eval("free(formac_hs)")}),
                seq(a.functionEnd)});
      break;
    case ReduceOp::Where:
      // Compaction (seed 001 §39.3): each chunk counts its points, an
      // exclusive scan of the counts gives where each chunk writes, and the
      // chunks that start below k write their indices.
      t.insert(t.end(),
               {decl("long long", "formac_total", "0", false), declOnly("long long", "formac_i"),
                chunkLoop({decl("long long", "formac_acc", "0", false)}, {eval("formac_acc += formac_v != 0")},
                          {assign("formac_partials[formac_w]", "formac_acc")}, parallelFor),
                forLoop("formac_w = 0", "formac_w < formac_chunks", "++formac_w",
                        {decl("long long", "formac_n", "formac_partials[formac_w]"),
                         assign("formac_partials[formac_w]", "formac_total"), eval("formac_total += formac_n")}),
                chunkLoop({decl("long long", "formac_at", "formac_partials[formac_w]", false),
                           ifThen("formac_at >= " + k, {eval("continue")})},
                          {ifThen("formac_v != 0 && formac_at < " + k, {assign(out + "[formac_at++]", "formac_k")})}, {},
                          parallelFor),
                forLoop("formac_i = formac_total < " + k + " ? formac_total : " + k, "formac_i < " + k, "++formac_i",
                        {assign(out + "[formac_i]", "-1")})});
      break;
    case ReduceOp::TopK: {
      // The k best of each thread's chunks in a heap (formac_topk_push),
      // then every thread's pushed into the first's and sorted.
      ScalarKind elem = domain.type.scalar;
      std::string key = elem == ScalarKind::Float ? "(long long)formac_key_f(formac_v)"
                        : elem == ScalarKind::Double ? "formac_key_d(formac_v)" : "(long long)formac_v";
      Stmt push = eval("formac_topk_push(formac_h, formac_n, " + k + ", " + key + ", formac_k)");
      if (isFloating(elem)) push = ifThen("formac_v == formac_v", {push});
      t.insert(t.end(),
               {decl("int", "formac_nt", "(int)formac_partials[0]"),
                decl("long long*", "formac_sizes", "formac_partials + 1", false),
                decl("long long*", "formac_heaps", "formac_partials + 1 + formac_nt", false),
                declOnly("long long", "formac_i"), declOnly("long long", "formac_m"), declOnly("int", "formac_t"),
                forLoop("formac_t = 0", "formac_t < formac_nt", "++formac_t", {assign("formac_sizes[formac_t]", "0")}),
                region,
                block({decl("long long*", "formac_h", "formac_heaps + (size_t)formac_thread_num() * 2 * " + k, false),
                       decl("long long*", "formac_n", "formac_sizes + formac_thread_num()", false), forEach,
                       chunkLoop({}, {push}, {}, "")}),
                forLoop("formac_t = 1", "formac_t < formac_nt", "++formac_t",
                        {forLoop("formac_i = 0", "formac_i < formac_sizes[formac_t]", "++formac_i",
                                 {decl("const long long*", "formac_e", "formac_heaps + (size_t)formac_t * 2 * " + k + " + 2 * formac_i", false),
                                  eval("formac_topk_push(formac_heaps, formac_sizes, " + k + ", formac_e[0], formac_e[1])")})}),
                assign("formac_m", "formac_sizes[0]"), eval("formac_topk_sort(formac_heaps, formac_m)"),
                forLoop("formac_i = 0", "formac_i < " + k, "++formac_i",
                        {assign(out + "[formac_i]", "formac_i < formac_m ? formac_heaps[2 * formac_i + 1] : -1")})});
      break;
    }
    default:
      t.push_back(chunkLoop(a.init, a.add, {assign("formac_partials[formac_w]", a.finish)}, parallelFor));
      t.push_back(forLoop("formac_w = 0", "formac_w < formac_outs", "++formac_w",
                          {decl(a.partialType + "*", "formac_p", "formac_partials + formac_w * formac_chunks", false),
                           seq(a.combine), assign(out + "[formac_w]", "(" + cType(s.type) + ")formac_r")},
                          f.openmp ? "schedule(static) if (formac_outs > 1)" : ""));
  }
  return printerFor(false).print(function("static", "void", f.name, f.params, std::move(t), n.param)) + "\n";
}

std::string reducePrelude(const std::string& qualifier) {
  std::string q = qualifier + " ", lanes = str(ir::kSumLanes), chunk = str(ir::kSumChunk);
  std::string t =
      "/* A chunk's lanes folded pairwise: lane[j] += lane[j + s], s = 16 .. 1\n"
      "   (ir/Pipeline.h, kSumChunk). */\n" +
      q + "double formac_lane_sum(double* lane) {\n  int s, j;\n"
      "  for (s = " + str(ir::kSumLanes / 2) + "; s >= 1; s /= 2)\n    for (j = 0; j < s; ++j) lane[j] += lane[j + s];\n"
      "  return lane[0];\n}\n"
      "/* The sum of n chunk sums p[0..n) (overwritten): one is the result; more\n"
      "   are summed as chunks of " + chunk + " by the same rule. */\n" +
      q + "double formac_sum_d(double* p, long long n) {\n"
      "  while (n > 1) {\n"
      "    long long chunks = (n + " + str(ir::kSumChunk - 1) + ") / " + chunk + ", c, k;\n"
      "    for (c = 0; c < chunks; ++c) {\n"
      "      double lane[" + lanes + "];\n      int j;\n"
      "      long long end = n - c * " + chunk + " < " + chunk + " ? n : c * " + chunk + " + " + chunk + ";\n"
      "      for (j = 0; j < " + lanes + "; ++j) lane[j] = 0.0;\n"
      "      for (k = c * " + chunk + "; k < end; ++k) lane[k & " + str(ir::kSumLanes - 1) + "] += p[k];\n"
      "      p[c] = formac_lane_sum(lane);\n    }\n    n = chunks;\n  }\n"
      "  return n == 1 ? p[0] : 0.0;\n}\n"
      "/* min and max of floating values in a total order: NaN is skipped (the\n"
      "   identity), -0 is below +0. */\n";
  t += "/* An integer key per floating value whose order is the values' (-0\n"
       "   below +0), and back. */\n";
  for (const char* suf : {"f", "d"}) {
    bool f32 = std::string(suf) == "f";
    std::string T = f32 ? "float" : "double", K = f32 ? "int" : "long long", bytes = f32 ? "4" : "8",
                shift = f32 ? "31" : "63", mag = f32 ? "0x7fffffff" : "0x7fffffffffffffffLL";
    t += q + K + " formac_key_" + suf + "(" + T + " v) {\n  " + K + " b;\n  memcpy(&b, &v, " + bytes +
         ");\n  return b ^ ((b >> " + shift + ") & " + mag + ");\n}\n";
    t += q + T + " formac_unkey_" + suf + "(" + K + " k) {\n  " + K + " b = k ^ ((k >> " + shift + ") & " + mag +
         ");\n  " + T + " v;\n  memcpy(&v, &b, " + bytes + ");\n  return v;\n}\n";
  }
  t += "/* A thread's 4 histograms of 32-bit counters (n + 1 bins each, the last\n"
       "   not counted) added into its int64 histogram h[0..n), and zeroed. */\n" +
       q + "void formac_hist_flush(long long* h, unsigned* h4, long long n) {\n"
       "  long long b;\n"
       "  for (b = 0; b < n; ++b) h[b] += (long long)h4[b] + h4[n + 1 + b] + h4[2 * (n + 1) + b] + h4[3 * (n + 1) + b];\n"
       "  memset(h4, 0, 4 * (size_t)(n + 1) * sizeof(unsigned));\n}\n";
  t += "/* topk: a heap of the k best (key, index) pairs seen, the worst at the root;\n"
       "   better is a larger key, then a smaller index. */\n" +
       q + "int formac_topk_worse(long long ka, long long ia, long long kb, long long ib) {\n"
       "  return ka < kb || (ka == kb && ia > ib);\n}\n" +
       q + "void formac_topk_down(long long* h, long long n, long long i, long long key, long long idx) {\n"
       "  for (;;) {\n    long long c = 2 * i + 1;\n    if (c >= n) break;\n"
       "    if (c + 1 < n && formac_topk_worse(h[2 * c + 2], h[2 * c + 3], h[2 * c], h[2 * c + 1])) ++c;\n"
       "    if (!formac_topk_worse(h[2 * c], h[2 * c + 1], key, idx)) break;\n"
       "    h[2 * i] = h[2 * c];\n    h[2 * i + 1] = h[2 * c + 1];\n    i = c;\n  }\n"
       "  h[2 * i] = key;\n  h[2 * i + 1] = idx;\n}\n" +
       q + "void formac_topk_push(long long* h, long long* n, long long k, long long key, long long idx) {\n"
       "  long long i;\n"
       "  if (*n == k) {\n"
       "    if (formac_topk_worse(key, idx, h[0], h[1]) || (key == h[0] && idx == h[1])) return;\n"
       "    formac_topk_down(h, k, 0, key, idx);\n    return;\n  }\n"
       "  for (i = (*n)++; i > 0; i = (i - 1) / 2) {\n"
       "    const long long p = (i - 1) / 2;\n"
       "    if (!formac_topk_worse(key, idx, h[2 * p], h[2 * p + 1])) break;\n"
       "    h[2 * i] = h[2 * p];\n    h[2 * i + 1] = h[2 * p + 1];\n  }\n"
       "  h[2 * i] = key;\n  h[2 * i + 1] = idx;\n}\n"
       "/* The heap's n pairs sorted best first. */\n" +
       q + "void formac_topk_sort(long long* h, long long n) {\n"
       "  while (n > 1) {\n"
       "    const long long key = h[2 * (n - 1)], idx = h[2 * (n - 1) + 1];\n"
       "    h[2 * (n - 1)] = h[0];\n    h[2 * (n - 1) + 1] = h[1];\n"
       "    --n;\n    formac_topk_down(h, n, 0, key, idx);\n  }\n}\n";
  for (const char* suf : {"f", "d"}) {
    std::string T = std::string(suf) == "f" ? "float" : "double";
    t += q + T + " formac_max_total_" + suf + "(" + T + " a, " + T + " b) {\n"
         "  if (a != a) return b;\n  if (b != b) return a;\n"
         "  return (b > a || (b == a && !signbit(b))) ? b : a;\n}\n";
    t += q + T + " formac_min_total_" + suf + "(" + T + " a, " + T + " b) {\n"
         "  if (a != a) return b;\n  if (b != b) return a;\n"
         "  return (b < a || (b == a && signbit(b))) ? b : a;\n}\n";
  }
  return t;
}

}  // namespace formac::codegen
