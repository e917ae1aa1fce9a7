#include "codegen/FusedTiles_C.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "codegen/ExprPrinter.h"
#include "codegen/InlineMembers.h"
#include "codegen/LoopNest.h"
#include "codegen/StageFacts.h"
#include "ir/Edges.h"

namespace formac::codegen {
namespace {

using ir::BoundaryMode;
using ir::Expr;

constexpr int kPrefetchRows = 2;  // rows beyond the newest read that are prefetched

std::string str(long long v) { return std::to_string(v); }
// "x + k", "x - k" or "x".
std::string plus(const std::string& x, long long k) {
  return k > 0 ? x + " + " + str(k) : k < 0 ? x + " - " + str(-k) : x;
}

// How a stored stage of the group slides down a band: at step y it computes
// its row y + lead (the sink's row is y), from the band's row t0 + first on,
// and keeps the last `ring` rows, enough for every read of its consumers,
// boundary modes included. Its columns reach colLo and colHi beyond the strip.
struct Slide {
  int lead = 0, first = 0, ring = 1, colLo = 0, colHi = 0;
};

// Slides of the stored stages, from the reads of their consumers (after
// inlining). A read at row offset o of a consumer at row v needs row v + o,
// or where a boundary mode takes it: a clamped read row 0 or M-1, a mirrored
// read a row within |o| of v.
std::map<int, Slide> slides(const std::map<int, ir::Piece>& pieces, int sink) {
  std::map<int, Slide> out;
  out[sink] = Slide{};
  for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) {
    int id = it->first;
    if (id == sink) continue;
    Slide s;
    int oldest = 0;
    bool any = false;
    for (const auto& [c, pc] : pieces) {
      if (c <= id) continue;
      const Slide& sc = out.at(c);
      ir::forEachExpr(pc.body, [&](const Expr& e) {
        if (e.kind != Expr::ImageRead || e.producer != id) return;
        int o = e.axes[0].offset, o1 = e.axes[1].offset;
        bool mirror = e.mode == BoundaryMode::Mirror || e.mode == BoundaryMode::Wrap;
        bool clamp = e.mode == BoundaryMode::Clamped || e.mode == BoundaryMode::Extend;
        int ahead = mirror ? std::abs(o) : clamp ? std::max(o, 0) : o;
        int behind = mirror ? -std::abs(o) : clamp ? std::min(o, 0) : o;
        int lo = sc.colLo + std::max(0, -o1), hi = sc.colHi + std::max(0, o1);
        if (mirror) lo = hi = std::max(lo, hi);  // a reflection lands on the other side
        s.lead = any ? std::max(s.lead, sc.lead + ahead) : sc.lead + ahead;
        oldest = any ? std::min(oldest, sc.lead + behind) : sc.lead + behind;
        s.first = any ? std::min(s.first, sc.first + behind) : sc.first + behind;
        s.colLo = std::max(s.colLo, lo);
        s.colHi = std::max(s.colHi, hi);
        any = true;
      });
    }
    s.ring = s.lead - oldest + 1;
    out[id] = s;
  }
  return out;
}

// No integer +, -, * or negation in the body: whether signed overflow wraps
// (the evaluator's semantics, gcc's wrapv) cannot change its values.
bool wrapFree(const ir::Piece& pc) {
  bool ok = true;
  ir::forEachExpr(pc.body, [&](const Expr& e) {
    bool arithmetic = (e.kind == Expr::Unary && e.unOp == ir::UnOp::Neg) ||
                      (e.kind == Expr::Binary &&
                       (e.binOp == ir::BinOp::Add || e.binOp == ir::BinOp::Sub || e.binOp == ir::BinOp::Mul));
    if (arithmetic && (e.type.isStruct() || !isFloating(e.type.scalar))) ok = false;
  });
  return ok;
}

// A producer read through row pointers: every read of it is an ImageRead of
// a two-dimensional image indexed by the point's row and column.
bool rowReadable(const ir::Pipeline& p, const ir::Piece& pc, int producer) {
  bool ok = p.stages[static_cast<size_t>(producer)].rank() == 2;
  ir::forEachExpr(pc.body, [&](const Expr& e) {
    if ((e.kind == Expr::ImageRead || e.kind == Expr::IndexRead) && e.producer == producer)
      ok = ok && e.kind == Expr::ImageRead && e.firstDim == 0 && e.axes.size() == 2;
  });
  return ok;
}

// For each image in memory that the group reads row by row (same extent as
// the sink, unit steps), how far ahead of the output row its newest row read
// is; -1 for images read otherwise (not prefetched).
std::map<int, int> inputReach(const ir::Pipeline& p, const std::map<int, ir::Piece>& pieces,
                              const std::map<int, Slide>& slide, int sink) {
  std::map<int, int> out;
  const ir::Stage& s = p.stages[static_cast<size_t>(sink)];
  int np = static_cast<int>(p.params.size());
  for (const auto& stored : pieces) {
    int lead = slide.at(stored.first).lead;
    ir::forEachExpr(stored.second.body, [&](const Expr& e) {
      if ((e.kind != Expr::ImageRead && e.kind != Expr::IndexRead) || pieces.count(e.producer)) return;
      const ir::Stage& src = p.stages[static_cast<size_t>(e.producer)];
      bool simple = e.kind == Expr::ImageRead && e.firstDim == 0 && e.axes.size() == 2 && e.origin.empty() &&
                    src.rank() == 2 && ir::sameSize(src.extent[0], s.extent[0], np) &&
                    ir::sameSize(src.extent[1], s.extent[1], np);
      for (const auto& a : e.axes) simple = simple && a.scale == 1;
      int reach = simple ? lead + std::abs(e.axes[0].offset) : -1;
      auto it = out.find(e.producer);
      if (it == out.end()) out[e.producer] = reach;
      else it->second = (it->second < 0 || reach < 0) ? -1 : std::max(it->second, reach);
    });
  }
  return out;
}

class Emitter {
 public:
  explicit Emitter(const FusedGroupC& g)
      : g_(g), p_(*g.pipeline), inl_(inlineMembers(p_, *g.names, *g.group)), slide_(slides(inl_.pieces, sink())),
        programNames_(programNames(*g.names)) {
    Locals group(programNames_);
    for (const auto& [id, s] : slide_) first_[id] = group.claim("a_" + name(id));
  }

  std::string functions() {
    std::ostringstream os;
    std::map<int, std::string> calls;
    for (const auto& [id, pc] : inl_.pieces) os << rowFunction(id, pc, calls[id]);
    os << groupFunction(calls);
    return os.str();
  }

  std::string tileChoice(const std::string& th, const std::string& tw, const std::string& bytes,
                         const std::string& ind) const {
    int halo = 0, prime = 0;
    for (const auto& [id, s] : slide_) {
      halo = std::max({halo, s.colLo, s.colHi});
      prime = std::max(prime, s.lead - s.first);
    }
    const ir::Stage& out = stage(sink());
    std::ostringstream os;
    os << ind << "{\n"
       << ind << "  /* Strips as wide as the image while one thread's rings fit in half the L2\n"
       << ind << "     (else halved); bands of about M / (8 threads) rows, at least 4 times\n"
       << ind << "     the " << prime << " rows a band computes before its first output row. */\n"
       << ind << "  const size_t budget = formac_l2_bytes() / 2;\n"
       << ind << "  const long long threads = formac_max_threads();\n"
       << ind << "  long long w = formac_maxll(" << size(out.extent[1]) << ", 1), h;\n";
    if (!anyRing())
      os << ind << "  (void)budget;\n";
    else
      os << ind << "  while (w > " << std::max(64, 2 * (halo + 1)) << " && " << ringBytes("w") << " > budget)\n"
         << ind << "    w = (w + 1) / 2;\n";
    os
       << ind << "  h = formac_maxll((" << size(out.extent[0]) << ") / (8 * threads), " << std::max(4 * prime, 8)
       << ");\n"
       << ind << "  " << th << " = h;\n"
       << ind << "  " << tw << " = w;\n"
       << ind << "  " << bytes << " = " << ringBytes("w") << " + 256;\n"
       << ind << "}\n";
    return os.str();
  }

 private:
  int sink() const { return g_.group->sink; }
  const ir::Stage& stage(int id) const { return p_.stages[static_cast<size_t>(id)]; }
  const std::string& name(int id) const { return g_.names->stage[static_cast<size_t>(id)]; }
  std::string size(const ir::Size& s) const { return ir::printSize(s, g_.names->param); }
  bool ring(int id) const { return id != sink() && inl_.pieces.count(id) > 0; }
  bool anyRing() const { return inl_.pieces.size() > 1; }
  std::string rowFunctionName(int id) const { return g_.functionName + "_row_" + name(id); }
  std::string width(int id, const std::string& tw) const {
    const Slide& s = slide_.at(id);
    return "(" + tw + " + " + str(s.colLo + s.colHi) + ")";
  }

  // Where row `row` of member `id` lies in its ring.
  std::string ringRow(int id, const std::string& row) const {
    int r = slide_.at(id).ring;
    return r == 1 ? "tile_" + name(id) : "tile_" + name(id) + " + " + row + " % " + str(r) + " * " + width(id, "TW");
  }

  // Bytes of one thread's rings for strips of `tw` columns (C expression).
  std::string ringBytes(const std::string& tw) const {
    std::string t = "(size_t)0";
    for (const auto& [id, s] : slide_)
      if (ring(id))
        t += " + formac_align64((size_t)" + str(s.ring) + " * (size_t)" + width(id, tw) + " * sizeof(" +
             cType(stage(id).type) + ")) + 64";
    return t;
  }

  std::string zeroOf(const ir::Stage& s) const {
    return s.type.isStruct() ? "((" + cType(s.type) + "){0})" : "(" + cType(s.type) + ")0";
  }

  std::string bounds(const LoopNestOptions& lo, bool fast) const {
    std::string t;
    for (size_t d = 0; d < 2; ++d) {
      std::string D = str(static_cast<long long>(d));
      t += "  const long long lo" + D + " = " + pieceFirstIndex(lo, d) + ";\n";
      t += "  const long long hi" + D + " = " + pieceLastIndex(lo, d) + ";\n";
      if (!fast) continue;
      std::string flo = "lo" + D, fhi = "hi" + D;
      auto lower = fastLowerBounds(lo, d), upper = fastUpperBounds(lo, d);
      for (const auto& b : std::set<std::string>(lower.begin(), lower.end())) flo = "formac_maxll(" + flo + ", " + b + ")";
      for (const auto& b : std::set<std::string>(upper.begin(), upper.end())) fhi = "formac_minll(" + fhi + ", " + b + ")";
      t += "  const long long fast_lo" + D + " = " + flo + ";\n";
      t += "  const long long fast_hi" + D + " = " + fhi + ";\n";
    }
    return t;
  }

  // The runs of row q0 over columns [a, b]: zeros before the valid box,
  // checked points with the check-free run (in rows where no read leaves its
  // image) inside that loop where it starts, zeros after. The checked body is
  // written once: compile times grow with every copy of it. Each run's end is
  // computed first so that the compiler sees plain counted loops.
  std::string rowRuns(const LoopNestOptions& lo, bool fast) const {
    std::string zero = "    row[q1 - a] = " + zeroOf(*lo.stage) + ";\n";
    auto loop = [](const std::string& end, const std::string& body, const std::string& in) {
      return in + "for (; q1 <= " + end + "; ++q1) {\n" + body + in + "}\n";
    };
    std::string t = loop("formac_minll(b, lo1 - 1)", zero, "  ");
    t += "  {\n    const long long end = formac_minll(b, hi1);\n";
    if (!fast) return t + loop("end", emitPointBody(lo, false, "      "), "    ") + "  }\n" + loop("b", zero, "  ");
    t += "    const int fast_row = q0 >= fast_lo0 && q0 <= fast_hi0;\n"
         "    const long long fast_start = fast_row ? formac_maxll(q1, fast_lo1) : end + 1;\n"
         "    const long long fast_end = formac_minll(end, fast_hi1);\n"
         "    for (; q1 <= end; ++q1) {\n"
         "      if (q1 == fast_start) {\n";
    t += loop("fast_end", emitPointBody(lo, false, "          "), "        ");
    t += "        if (q1 > end) break;\n      }\n";
    t += emitPointBody(lo, true, "      ") + "    }\n  }\n";
    return t + loop("b", zero, "  ");
  }

  // Locals of a generated function named clear of the pipeline's names
  // (which the function may use) and of each other.
  // The program's names (`program`, built once per group: copying them for
  // each row function made a chain of n stages cost n^2) and those claimed.
  struct Locals {
    const std::set<std::string>& program;
    std::set<std::string> taken;
    explicit Locals(const std::set<std::string>& programNames) : program(programNames) {}
    std::string claim(const std::string& base) {
      std::string name = base;
      for (int k = 2; program.count(name) || !taken.insert(name).second; ++k) name = base + "_" + str(k);
      return name;
    }
  };
  static std::set<std::string> programNames(const Names& n) {
    std::set<std::string> all;
    for (const auto* v : {&n.stage, &n.scalar, &n.param}) all.insert(v->begin(), v->end());
    return all;
  }

  // The first and last columns of stage `id` for the strip [t1, t1 + TW).
  std::string firstColumn(int id) const { return "formac_maxll(" + plus("t1", -slide_.at(id).colLo) + ", 0)"; }
  std::string lastColumn(int id) const {
    return "formac_minll(" + plus("t1 + TW - 1", slide_.at(id).colHi) + ", (" + size(stage(id).extent[1]) + ") - 1)";
  }

  // One row q0 of stage `id`, columns a..b of the strip starting at t1, into
  // row[q1 - a]. Each read goes through a restrict pointer to the row it
  // reads (of a ring, or of an image in memory), so that C compilers
  // vectorize the runs without alias checks; element [q1 - a] of every
  // pointer is column q1, so that the loop has one induction variable.
  // `call` receives the arguments after (row, q0, t1, TW) of a call from the
  // group function.
  std::string rowFunction(int id, const ir::Piece& pc, std::string& call) const {
    const ir::Stage& s = stage(id);
    Locals locals(programNames_);
    std::map<std::pair<int, std::string>, std::string> rows;  // (producer, row index) -> pointer
    std::set<int> bases;                                        // producers indexed in full
    LoopNestOptions lo;
    lo.pipeline = &p_;
    lo.stage = &s;
    lo.piece = &pc;
    lo.names = g_.names;
    lo.openmp = false;
    lo.resultVariable = "row[q1 - a]";
    lo.hoistBranchReads = [](int) { return true; };
    lo.access = [&](int pid, const std::vector<std::string>& idx) -> std::string {
      if (!rowReadable(p_, pc, pid)) {
        bases.insert(pid);
        if (idx.empty()) return name(pid) + "[0]";  // a scalar of the pipeline (a reduction)
        std::string t = "(" + idx[0] + ")";
        for (size_t d = 1; d < idx.size(); ++d)
          t = "(" + t + " * (" + size(stage(pid).extent[d]) + ") + (" + idx[d] + "))";
        return name(pid) + "[" + t + "]";
      }
      auto key = std::make_pair(pid, idx[0]);
      if (!rows.count(key)) rows[key] = locals.claim(name(pid) + "_r" + str(static_cast<long long>(rows.size())));
      return rows[key] + "[(" + idx[1] + ") - a]";
    };
    bool fast = needsBorderChecks(lo);
    std::string body = rowRuns(lo, fast);

    std::string params = cType(s.type) + "* restrict row, const long long q0, const long long t1, const long long TW";
    for (const auto& [key, ptr] : rows) {
      const ir::Stage& ps = stage(key.first);
      params += ", const " + cType(ps.type) + "* restrict " + ptr;
      std::string rowIndex = "formac_row(" + key.second + ", " + size(ps.extent[0]) + ")";
      // The pointer's element [q1 - a] is column q1 of that row.
      if (ring(key.first))
        call += ", " + ringRow(key.first, rowIndex) + " + (" + first_.at(id) + " - " + first_.at(key.first) + ")";
      else
        call += ", " + name(key.first) + " + " + rowIndex + " * (" + size(ps.extent[1]) + ") + " + first_.at(id);
    }
    for (int pid : bases) {
      params += ", const " + cType(stage(pid).type) + "* restrict " + name(pid);
      call += ", " + name(pid);
    }
    std::set<int> scalars;
    ir::forEachExpr(pc.body, [&](const Expr& e) {
      if (e.kind == Expr::ScalarIn) scalars.insert(e.scalar);
    });
    for (int i : scalars) {
      params += std::string(", const ") + scalarCType(p_.scalars[static_cast<size_t>(i)].type) + " " +
                g_.names->scalar[static_cast<size_t>(i)];
      call += ", " + g_.names->scalar[static_cast<size_t>(i)];
    }
    std::string unused;
    for (const auto& prm : g_.names->param) {
      params += ", const long long " + prm;
      call += ", " + prm;
      unused += "  (void)" + prm + ";\n";
    }
    std::ostringstream os;
    bool noWrapv = wrapFree(pc);
    if (noWrapv) os << "FORMAC_NO_WRAPV_BEGIN\n";
    os << "/* " << name(id) << " = " << s.origin << ": row q0, columns a..b, into row[q1 - a] */\n"
       << "static FORMAC_NOINLINE void " << rowFunctionName(id) << "(" << params << ") {\n"
       << "  const long long a = " << firstColumn(id) << ", b = " << lastColumn(id) << ";\n";
    os << bounds(lo, fast) << "  long long q1 = a;\n"
       << "  if (q0 < lo0 || q0 > hi0) {\n    for (; q1 <= b; ++q1) row[q1 - a] = " << zeroOf(s)
       << ";\n    return;\n  }\n"
       << body << unused << "}\n";
    os << (noWrapv ? "FORMAC_NO_WRAPV_END\n\n" : "\n");
    return os.str();
  }

  std::string groupFunction(const std::map<int, std::string>& calls) const {
    const passes::FusionGroup& grp = *g_.group;
    const ir::Stage& out = stage(sink());
    std::string M = size(out.extent[0]), N = size(out.extent[1]);
    std::ostringstream os;
    os << "/* Fused on the CPU: ";
    for (const auto& [id, pc] : inl_.pieces) os << name(id) << (id == sink() ? "" : ", ");
    if (!inl_.inlined.empty()) {
      os << " (computed where read:";
      for (int id : inl_.inlined) os << " " << name(id);
      os << ")";
    }
    os << ".\n   Tiles of TH rows x TW columns of " << name(sink())
       << " are shared among the threads. Down a tile, each stored\n"
          "   member keeps a ring of its last rows and computes one new row per output row, a\n"
          "   few rows ahead of it (seed 003 section 2.3, sliding windows as in Halide). */\n";
    os << "static void " << g_.functionName << "(" << g_.signature
       << ", unsigned char* scratch, const size_t scratch_stride, const int nthreads, const long long TH, "
          "const long long TW) {\n"
       << "  const long long tiles0 = ((" << M << ") + TH - 1) / TH;\n"
       << "  const long long tiles1 = ((" << N << ") + TW - 1) / TW;\n"
       << "  long long tile;\n  (void)nthreads;\n  (void)scratch;\n  (void)scratch_stride;\n";
    for (const auto& prm : g_.names->param) os << "  (void)" << prm << ";\n";
    int start = 0;
    for (const auto& [id, s] : slide_) start = std::min(start, s.first - s.lead);
    if (g_.openmp) os << "  FORMAC_PRAGMA(omp parallel for schedule(dynamic, 1) num_threads(nthreads))\n";
    os << "  for (tile = 0; tile < tiles0 * tiles1; ++tile) {\n"
       << "    const long long t0 = (tile / tiles1) * TH, t1 = (tile % tiles1) * TW;\n"
       << "    const long long end = formac_minll(t0 + TH, " << M << ");\n"
       << "    long long i;\n";
    // The thread's rings, each 64-byte aligned, one cache line apart.
    std::string previous = "scratch + (size_t)formac_thread_num() * scratch_stride";
    for (const auto& [id, s] : slide_) {
      if (!ring(id)) continue;
      std::string T = cType(stage(id).type), n = name(id);
      os << "    /* " << n << ": a ring of " << s.ring << " rows, " << s.lead << " ahead of the output row; "
         << s.colLo << " and " << s.colHi << " columns beyond the strip */\n"
         << "    " << T << "* tile_" << n << " = (" << T << "*)(" << previous << ");\n";
      previous = "(unsigned char*)tile_" + n + " + formac_align64((size_t)" + str(s.ring) + " * (size_t)" +
                 width(id, "TW") + " * sizeof(" + T + ")) + 64";
    }
    // (A stage none of whose rows is read through pointers, such as a sink
    // reading only constants and inlined members, leaves its own unused.)
    for (const auto& [id, f] : first_)
      os << "    const long long " << f << " = " << firstColumn(id) << ";\n    (void)" << f << ";\n";
    os << "    /* Step i: output row i, and each member's row as far ahead of it as its consumers read */\n"
       << "    for (i = " << plus("t0", start) << "; i < end; ++i) {\n";
    // Hardware prefetchers start late on each new row: ask for the rows of
    // the images in memory a few steps before they are read.
    for (const auto& [pid, reach] : inputReach(p_, inl_.pieces, slide_, sink())) {
      if (reach < 0) continue;
      std::string row = plus("i", reach + kPrefetchRows), T = cType(stage(pid).type);
      os << "      /* Prefetch the row of " << name(pid) << " read " << kPrefetchRows
         << " steps from now: hardware prefetchers start late on each row */\n"
         << "      if (" << row << " < " << M << ")\n"
         << "        formac_prefetch(" << name(pid) << " + (" << row << ") * (" << N << ") + formac_maxll(t1 - 16, 0), "
         << "(size_t)(formac_minll(t1 + TW + 16, " << N << ") - formac_maxll(t1 - 16, 0)) * sizeof(" << T << "));\n";
    }
    // Each stored stage computes its row i + lead when the band needs it
    // (from row t0 + first on) and it lies in the image.
    auto step = [&](int id, const std::string& row) {
      const Slide& s = slide_.at(id);
      std::vector<std::string> when;
      if (s.first - s.lead > start) when.push_back("q0 >= " + plus("t0", s.first));
      if (s.first < 0) when.push_back("q0 >= 0");
      if (s.lead > 0) when.push_back("q0 < " + M);
      std::string cond;
      for (const auto& w : when) cond += (cond.empty() ? "" : " && ") + w;
      // An image of no rows (a sample of a smaller one): clang calls
      // `q0 >= 0 && q0 < 0` always false (-Wtautological-overlap-compare).
      if (s.lead > 0 && M == "0") cond = "0";
      os << "      {\n        const long long q0 = " << plus("i", s.lead) << ";\n        "
         << (cond.empty() ? "" : "if (" + cond + ") ") << rowFunctionName(id) << "(" << row << ", q0, t1, TW"
         << calls.at(id) << ");\n      }\n";
    };
    for (const auto& m : grp.members)
      if (ring(m.stage)) step(m.stage, ringRow(m.stage, "q0"));
    step(sink(), name(sink()) + " + q0 * (" + N + ") + t1");
    os << "    }\n  }\n}\n\n";
    return os.str();
  }

  const FusedGroupC& g_;
  const ir::Pipeline& p_;
  InlinedGroup inl_;
  std::map<int, Slide> slide_;
  std::set<std::string> programNames_;
  std::map<int, std::string> first_;  // the group function's local holding a stage's first column
};

}  // namespace

std::string emitFusedGroupFunction(const FusedGroupC& g) { return Emitter(g).functions(); }

std::string emitTileChoice(const FusedGroupC& g, const std::string& th, const std::string& tw,
                           const std::string& bytes, const std::string& indent) {
  return Emitter(g).tileChoice(th, tw, bytes, indent);
}

}  // namespace formac::codegen
