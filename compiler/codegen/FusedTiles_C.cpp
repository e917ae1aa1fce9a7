#include "codegen/FusedTiles_C.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "codegen/ExprPrinter.h"
#include "codegen/FusedSlides_C.h"
#include "codegen/InlineMembers.h"
#include "codegen/LoopNest.h"
#include "codegen/Prelude.h"
#include "codegen/StageFacts.h"
#include "ir/Edges.h"

namespace formac::codegen {
namespace {

using ir::Expr;
using fused_c::inputReach;
using fused_c::rowReadable;
using fused_c::Slide;
using fused_c::wrapFree;

constexpr int kPrefetchRows = 2;  // rows beyond the newest read that are prefetched

std::string str(long long v) { return std::to_string(v); }
// "x + k", "x - k" or "x".
std::string plus(const std::string& x, long long k) {
  return k > 0 ? x + " + " + str(k) : k < 0 ? x + " - " + str(-k) : x;
}

// Whether a row's code calls a formac_ helper for a value (formac_max_f,
// formac_div_odd_f, ...), not only to resolve an index at the border. The
// helpers are defined outside FORMAC_NO_WRAPV_BEGIN's region, and gcc will
// not inline across it ("optimization level attribute mismatch"): the row's
// loop then stops vectorising (a fused chain of max stencils ran 6x slower
// than unfused, bench/zoo/bugs/fused_max_slow.idsl).
bool callsValueHelper(const std::string& code) {
  static const std::set<std::string> index = {"formac_clamp", "formac_mirror", "formac_wrap", "formac_in_range",
                                              "formac_row", "formac_minll", "formac_maxll"};
  for (size_t at = code.find("formac_"); at != std::string::npos; at = code.find("formac_", at + 1)) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(code[at - 1])) || code[at - 1] == '_')) continue;
    size_t end = at;
    while (end < code.size() && (std::isalnum(static_cast<unsigned char>(code[end])) || code[end] == '_')) ++end;
    if (end < code.size() && code[end] == '(' && !index.count(code.substr(at, end - at))) return true;
  }
  return false;
}

class Emitter {
 public:
  explicit Emitter(const FusedGroupC& g)
      : g_(g), p_(*g.pipeline), inl_(inlineMembers(p_, *g.names, *g.group)),
        slide_(fused_c::slides(inl_.pieces, sink(), stage(sink()).rank())),
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
    std::ostringstream os;
    os << ind << "{\n";
    if (rank() == 1)
      os << ind << "  /* Chunks of about N / (8 threads) points (at least 4096), halved while one\n"
         << ind << "     thread's buffers exceed half the L2. */\n";
    else if (rank() >= 3)
      // Strips of a plane cost their halos in a dimension that is not
      // vectorized: a 4-step 3-D heat chain at 256^3 ran 20% faster with whole
      // planes in rings of 2.4 MB (in L3) than with strips of 32 rows in L2.
      os << ind << "  /* Strips as wide as the image while one thread's rings fit in 4 times the L2\n"
         << ind << "     (else halved); bands of about M / (2 threads) planes, at least 4 times\n"
         << ind << "     the " << prime << " planes a band computes before its first output plane. */\n";
    else
      os << ind << "  /* Strips as wide as the image while one thread's rings fit in half the L2\n"
         << ind << "     (else halved); bands of about M / (8 threads) rows, at least 4 times\n"
         << ind << "     the " << prime << " rows a band computes before its first output row. */\n";
    os << ind << "  const size_t budget = formac_l2_bytes()" << (rank() >= 3 ? " * 4" : " / 2") << ";\n"
       << ind << "  const long long threads = formac_max_threads();\n"
       << ind << "  long long w = formac_maxll(" << columns(sink()) << ", 1), h;\n";
    if (rank() == 1)
      os << ind << "  w = formac_minll(w, formac_maxll((" << columns(sink()) << ") / (8 * threads), 4096));\n";
    if (!anyRing())
      os << ind << "  (void)budget;\n";
    else
      os << ind << "  while (w > " << std::max(rank() >= 3 ? 16 : 64, 2 * (halo + 1)) << " && " << ringBytes("w")
         << " > budget)\n"
         << ind << "    w = (w + 1) / 2;\n";
    if (rank() == 1)
      os << ind << "  h = 1;\n";
    else
      os << ind << "  h = formac_maxll((" << size(stage(sink()).extent[0]) << ") / (" << (rank() == 2 ? 8 : 2)
         << " * threads), " << std::max(4 * prime, 8) << ");\n";
    os << ind << "  " << th << " = h;\n"
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
  // The group's rank. Its dimension 1 is cut into strips (rank 1: its only
  // one), dimension 0 slid along, the ones after 1 computed whole: a strip of
  // a plane is then one run of memory, which hardware prefetchers follow (a
  // strip of the last dimension made a 3-D chain read 4.4 cache lines a row,
  // 1 KB apart: 1.4 times slower than unfused at 256^3).
  int rank() const { return stage(sink()).rank(); }
  size_t strip() const { return rank() >= 2 ? 1 : 0; }
  size_t last() const { return static_cast<size_t>(rank() - 1); }
  std::string q(size_t d) const { return "q" + str(static_cast<long long>(d)); }
  std::string extent(int id, size_t d) const { return "(" + size(stage(id).extent[d]) + ")"; }
  std::string columns(int id) const { return size(stage(id).extent[strip()]); }
  std::string width(int id, const std::string& tw) const {
    const Slide& s = slide_.at(id);
    return "(" + tw + " + " + str(s.colLo + s.colHi) + ")";
  }
  // " * (C) * (D)": the elements of one point of the strip's dimension, the
  // dimensions after it whole ("" in rank 1 and 2).
  std::string inner(int id) const {
    std::string t;
    for (size_t d = strip() + 1; d <= last(); ++d) t += " * " + extent(id, d);
    return t;
  }
  // Elements of one slot of a ring: the strip and its halo, by the
  // dimensions after it.
  std::string slotElements(int id, const std::string& tw) const { return width(id, tw) + inner(id); }
  // Elements of one row (plane) of stage `id` in memory.
  std::string planeElements(int id) const { return "(" + columns(id) + ")" + inner(id); }
  // Where element idx[1..last] of a slot of stage `id` (or of a row of it in
  // memory) lies, relative to column a of the strip.
  std::string lineIndex(int id, const std::vector<std::string>& idx) const {
    if (rank() <= 2) return "(" + idx[strip()] + ") - a";
    return lineStart(id, idx) + " + (" + idx[last()] + ")";
  }
  // Where the line idx[1..last-1] starts (rank 3 and 4).
  std::string lineStart(int id, const std::vector<std::string>& idx) const {
    std::string t = "((" + idx[1] + ") - a)";
    for (size_t d = 2; d < last(); ++d) t = "(" + t + " * " + extent(id, d) + " + (" + idx[d] + "))";
    return t + " * " + extent(id, last());
  }

  // Where row `row` of member `id` lies in its ring.
  std::string ringRow(int id, const std::string& row) const {
    int r = slide_.at(id).ring;
    return r == 1 ? "tile_" + name(id) : "tile_" + name(id) + " + " + row + " % " + str(r) + " * " + slotElements(id, "TW");
  }

  // Bytes of one thread's rings for strips of `tw` columns (C expression).
  std::string ringBytes(const std::string& tw) const {
    std::string t = "(size_t)0";
    for (const auto& [id, s] : slide_)
      if (ring(id))
        t += " + formac_align64((size_t)" + str(s.ring) + " * (size_t)" + slotElements(id, tw) + " * sizeof(" +
             cType(stage(id).type) + ")) + 64";
    return t;
  }

  std::string zeroOf(const ir::Stage& s) const {
    return s.type.isStruct() ? "((" + cType(s.type) + "){0})" : "(" + cType(s.type) + ")0";
  }

  std::string bounds(const LoopNestOptions& lo, bool fast) const {
    std::string t;
    for (size_t d = 0; d <= last(); ++d) {
      std::string D = str(static_cast<long long>(d));
      t += "  const long long lo" + D + " = " + pieceFirstIndex(lo, d) + ";\n";
      t += "  const long long hi" + D + " = " + pieceLastIndex(lo, d) + ";\n";
      if (!fast) continue;
      // Folded: max(0, -1, 0, 1) is 1, min(M - 1, (M) - 1 - 1) is (M) - 2.
      t += "  const long long fast_lo" + D + " = " + fastFirstIndex(lo, d) + ";\n";
      t += "  const long long fast_hi" + D + " = " + fastLastIndex(lo, d) + ";\n";
    }
    return t;
  }

  // The runs of one line (the point's other indices fixed) over columns
  // [a, b] into out[q - a] (rank 3 and 4: the whole last dimension into
  // out[q]): zeros before the valid box, checked points with
  // the check-free run (in lines where no read leaves its image) inside that
  // loop where it starts, zeros after. The checked body is written once:
  // compile times grow with every copy of it. Each run's end is computed
  // first so that the compiler sees plain counted loops. `in` indents it.
  std::string lineRuns(const LoopNestOptions& options, bool fast, const std::string& out, const std::string& in) const {
    // The lets that depend on no point, once before the runs.
    LoopNestOptions lo = options;
    lo.invariantLets = PointLets::PointDependent;
    std::string c = q(last()), L = str(static_cast<long long>(last()));
    std::string b = rank() <= 2 ? "b" : extent(lo.stage->id, last()) + " - 1";
    std::string zero = in + "    " + out + "[" + c + (rank() <= 2 ? " - a" : "") + "] = " + zeroOf(*lo.stage) + ";\n";
    auto loop = [&](const std::string& end, const std::string& body, const std::string& at) {
      return in + at + "for (; " + c + " <= " + end + "; ++" + c + ") {\n" + body + in + at + "}\n";
    };
    std::string t = loop("formac_minll(" + b + ", lo" + L + " - 1)", zero, "  ");
    t += in + "  {\n" + in + "    const long long end = formac_minll(" + b + ", hi" + L + ");\n" +
         emitInvariantLets(lo, in + "    ");
    if (!fast)
      return t + loop("end", emitPointBody(lo, false, in + "      "), "    ") + in + "  }\n" + loop(b, zero, "  ");
    std::string lineTest, start = "formac_maxll(" + c + ", fast_lo" + L + ")";
    for (size_t d = 0; d < last(); ++d) {
      std::string D = str(static_cast<long long>(d));
      lineTest += (d ? " && " : "") + q(d) + " >= fast_lo" + D + " && " + q(d) + " <= fast_hi" + D;
    }
    if (!lineTest.empty()) {
      t += in + "    const int fast_row = " + lineTest + ";\n";
      start = "fast_row ? " + start + " : end + 1";
    }
    t += in + "    const long long fast_start = " + start + ";\n" + in +
         "    const long long fast_end = formac_minll(end, fast_hi" + L + ");\n" + in + "    for (; " + c +
         " <= end; ++" + c + ") {\n" + in + "      if (" + c + " == fast_start) {\n";
    t += loop("fast_end", emitPointBody(lo, false, in + "          "), "        ");
    t += in + "        if (" + c + " > end) break;\n" + in + "      }\n";
    t += emitPointBody(lo, true, in + "      ") + in + "    }\n" + in + "  }\n";
    return t + loop(b, zero, "  ");
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
    return "formac_minll(" + plus("t1 + TW - 1", slide_.at(id).colHi) + ", (" + columns(id) + ") - 1)";
  }

  // The body of a row function past its bounds: rank 1 one line, rank 2 row
  // q0 (zeros outside the valid box), rank 3 and 4 every line of rows a..b
  // of plane q0, each at `line` (zeros outside the valid box).
  std::string rowBody(const LoopNestOptions& lo, bool fast, const std::string& line) const {
    if (rank() == 1) return "  long long q0 = a;\n" + lineRuns(lo, fast, "row", "");
    if (rank() == 2)
      return "  long long q1 = a;\n  if (q0 < lo0 || q0 > hi0) {\n    for (; q1 <= b; ++q1) row[q1 - a] = " +
             zeroOf(*lo.stage) + ";\n    return;\n  }\n" + lineRuns(lo, fast, "row", "");
    std::string c = q(last()), t = "  long long " + q(1), outside = "q0 < lo0 || q0 > hi0", in = "  ";
    std::vector<std::string> idx;
    for (size_t d = 0; d <= last(); ++d) idx.push_back(q(d));
    for (size_t d = 2; d <= last(); ++d) t += ", " + q(d);
    t += ";\n";
    for (size_t d = 1; d < last(); ++d) {
      std::string D = str(static_cast<long long>(d));
      t += in + (d == 1 ? "for (q1 = a; q1 <= b; ++q1) {\n"
                        : "for (" + q(d) + " = 0; " + q(d) + " < " + extent(lo.stage->id, d) + "; ++" + q(d) + ") {\n");
      outside += " || " + q(d) + " < lo" + D + " || " + q(d) + " > hi" + D;
      in += "  ";
    }
    t += in + cType(lo.stage->type) + "* restrict const " + line + " = row + " + lineStart(lo.stage->id, idx) + ";\n";
    t += in + c + " = 0;\n" + in + "if (" + outside + ") {\n" + in + "  for (; " + c + " < " +
         extent(lo.stage->id, last()) + "; ++" + c + ") " + line + "[" + c + "] = " + zeroOf(*lo.stage) + ";\n" + in +
         "  continue;\n" + in + "}\n";
    t += lineRuns(lo, fast, line, in.substr(2));
    for (size_t d = 1; d < last(); ++d) {
      in.resize(in.size() - 2);
      t += in + "}\n";
    }
    return t;
  }

  // One row q0 of stage `id` (rank 3 and 4: plane q0; rank 1: the chunk),
  // columns a..b of the strip starting at t1, into row[q1 - a]. Each read
  // goes through a restrict pointer to the row (plane) it reads (of a ring,
  // or of an image in memory), so that C compilers vectorize the runs
  // without alias checks; element [q1 - a] of every row pointer is column
  // q1, so that the loop has one induction variable.
  // `call` receives the arguments after (row, q0, t1, TW) of a call from the
  // group function.
  std::string rowFunction(int id, const ir::Piece& pc, std::string& call) const {
    const ir::Stage& s = stage(id);
    Locals locals(programNames_);
    std::string line = rank() >= 3 ? locals.claim("line") : "row";
    std::map<std::pair<int, std::string>, std::string> rows;  // (producer, row index) -> pointer
    std::set<int> bases;                                        // producers indexed in full
    LoopNestOptions lo;
    lo.pipeline = &p_;
    lo.stage = &s;
    lo.piece = &pc;
    lo.names = g_.names;
    lo.openmp = false;
    lo.outsideCache = g_.outsideCache;
    lo.resultVariable = line + "[" + q(last()) + (rank() <= 2 ? " - a]" : "]");
    lo.hoistBranchReads = [](int) { return true; };
    lo.access = [&](int pid, const std::vector<std::string>& idx) -> std::string {
      if (!rowReadable(p_, pc, pid, rank())) {
        bases.insert(pid);
        std::string t = "(" + idx[0] + ")";
        for (size_t d = 1; d < idx.size(); ++d)
          t = "(" + t + " * (" + size(stage(pid).extent[d]) + ") + (" + idx[d] + "))";
        return name(pid) + "[" + t + "]";
      }
      auto key = std::make_pair(pid, rank() >= 2 ? idx[0] : "");
      if (!rows.count(key)) rows[key] = locals.claim(name(pid) + "_r" + str(static_cast<long long>(rows.size())));
      return rows[key] + "[" + lineIndex(pid, idx) + "]";
    };
    bool fast = needsBorderChecks(lo);
    std::string body = rowBody(lo, fast, line);

    std::string params = cType(s.type) + "* restrict row, " + (rank() >= 2 ? "const long long q0, " : "") +
                         "const long long t1, const long long TW";
    for (const auto& [key, ptr] : rows) {
      const ir::Stage& ps = stage(key.first);
      params += ", const " + cType(ps.type) + "* restrict " + ptr;
      std::string rowIndex = rank() >= 2 ? "formac_row(" + key.second + ", " + size(ps.extent[0]) + ")" : "";
      // The pointer's element [q1 - a] is column q1 of that row (rank 3 and
      // 4: its line a is the strip's first).
      if (ring(key.first))
        call += ", " + ringRow(key.first, rowIndex) + " + (" + first_.at(id) + " - " + first_.at(key.first) + ")" +
                inner(key.first);
      else
        call += ", " + name(key.first) + " + " + (rank() >= 2 ? rowIndex + " * " + planeElements(key.first) + " + " : "") +
                first_.at(id) + inner(key.first);
    }
    // Scalars of the pipeline (reductions) are read from their buffers.
    ir::forEachExpr(pc.body, [&](const Expr& e) {
      if (e.kind == Expr::ImageRead && stage(e.producer).rank() == 0) bases.insert(e.producer);
    });
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
    // The sizes the function uses, and no others: no `(void)M;` lines.
    std::string text = "  const long long a = " + firstColumn(id) + ", b = " + lastColumn(id) + ";\n" +
                       bounds(lo, fast) + body;
    for (const auto& prm : g_.names->param)
      if (mentions(text, prm)) {
        params += ", const long long " + prm;
        call += ", " + prm;
      }
    const char* what = rank() == 1 ? ": points a..b, into row[q0 - a] */\n"
                       : rank() == 2 ? ": row q0, columns a..b, into row[q1 - a] */\n"
                                     : ": rows a..b of plane q0, whole */\n";
    std::ostringstream os;
    bool noWrapv = wrapFree(pc) && !callsValueHelper(body);
    if (noWrapv) os << "FORMAC_NO_WRAPV_BEGIN\n";
    os << "/* " << name(id) << " = " << s.origin << what
       << "static FORMAC_NOINLINE void " << rowFunctionName(id) << "(" << params << ") {\n" << text << "}\n";
    os << (noWrapv ? "FORMAC_NO_WRAPV_END\n\n" : "\n");
    return os.str();
  }

  std::string groupFunction(const std::map<int, std::string>& calls) const {
    const passes::FusionGroup& grp = *g_.group;
    std::string M = rank() >= 2 ? size(stage(sink()).extent[0]) : "1", N = columns(sink());
    std::ostringstream os;
    os << "/* Fused on the CPU: ";
    for (const auto& [id, pc] : inl_.pieces) os << name(id) << (id == sink() ? "" : ", ");
    if (!inl_.inlined.empty()) {
      os << " (computed where read:";
      for (int id : inl_.inlined) os << " " << name(id);
      os << ")";
    }
    if (rank() == 1)
      os << ".\n   Chunks of TW points of " << name(sink())
         << " are shared among the threads; each stored member computes\n"
            "   its chunk with the halo its consumers read, then the next stage reads it. */\n";
    else
      os << ".\n   Tiles of TH " << (rank() == 2 ? "rows" : "planes") << " x TW columns of " << name(sink())
         << " are shared among the threads. Down a tile, each stored\n"
         << "   member keeps a ring of its last " << (rank() == 2 ? "rows" : "planes") << " and computes one new "
         << (rank() == 2 ? "row per output row" : "plane per output plane") << ", a\n"
            "   few " << (rank() == 2 ? "rows" : "planes") << " ahead of it (seed 003 section 2.3, sliding windows as in Halide). */\n";
    os << "static void " << g_.functionName << "(" << g_.signature
       << ", unsigned char* scratch, const size_t scratch_stride, const int nthreads, const long long TH, "
          "const long long TW) {\n";
    std::ostringstream b;  // the function's body, after the parameters it leaves unused
    if (rank() >= 2) b << "  const long long tiles0 = ((" << M << ") + TH - 1) / TH;\n";
    b << "  const long long tiles1 = ((" << N << ") + TW - 1) / TW;\n"
      << "  long long tile;\n";
    std::vector<std::string> parameters = {"nthreads", "scratch", "scratch_stride"};
    if (rank() == 1) parameters.push_back("TH");
    parameters.insert(parameters.end(), g_.names->param.begin(), g_.names->param.end());
    int start = 0;
    for (const auto& [id, s] : slide_) start = std::min(start, s.first - s.lead);
    // Threads only for work worth waking them for (FORMAC_PARALLEL_POINTS):
    // every point of the sink (a 161³ volume has 25921 planes x rows, under
    // the threshold, but 4.2M points).
    std::string points;
    for (int d = 0; d < rank(); ++d) points += (d ? " * " : "") + extent(sink(), static_cast<size_t>(d));
    if (g_.openmp)
      b << "  FORMAC_PRAGMA(omp parallel for schedule(dynamic, 1) num_threads(nthreads) " << parallelIf(points) << ")\n";
    if (rank() == 1)
      b << "  for (tile = 0; tile < tiles1; ++tile) {\n    const long long t1 = tile * TW;\n";
    else
      b << "  for (tile = 0; tile < tiles0 * tiles1; ++tile) {\n"
         << "    const long long t0 = (tile / tiles1) * TH, t1 = (tile % tiles1) * TW;\n"
         << "    const long long end = formac_minll(t0 + TH, " << M << ");\n"
         << "    long long i;\n";
    // The thread's rings, each 64-byte aligned, one cache line apart.
    std::string previous = "scratch + (size_t)formac_thread_num() * scratch_stride";
    for (const auto& [id, s] : slide_) {
      if (!ring(id)) continue;
      std::string T = cType(stage(id).type), n = name(id);
      if (rank() == 1)
        b << "    /* " << n << ": " << s.colLo << " and " << s.colHi << " points beyond the chunk */\n";
      else
        b << "    /* " << n << ": a ring of " << s.ring << (rank() == 2 ? " rows, " : " planes, ") << s.lead
           << " ahead of the output " << (rank() == 2 ? "row" : "plane") << "; " << s.colLo << " and " << s.colHi
           << " columns beyond the strip */\n";
      b << "    " << T << "* tile_" << n << " = (" << T << "*)(" << previous << ");\n";
      previous = "(unsigned char*)tile_" + n + " + formac_align64((size_t)" + str(s.ring) + " * (size_t)" +
                 slotElements(id, "TW") + " * sizeof(" + T + ")) + 64";
    }
    // (A stage none of whose rows is read through pointers, such as a sink
    // reading only constants and inlined members, leaves its own unused.)
    std::string callText;
    for (const auto& [id, c] : calls) callText += c;
    for (const auto& [id, f] : first_)
      b << "    const long long " << f << " = " << firstColumn(id) << ";\n" << unusedParameters({f}, callText, "    ");
    if (rank() == 1) {
      for (const auto& m : grp.members)
        if (ring(m.stage))
          b << "    " << rowFunctionName(m.stage) << "(" << ringRow(m.stage, "") << ", t1, TW" << calls.at(m.stage)
             << ");\n";
      b << "    " << rowFunctionName(sink()) << "(" << name(sink()) << " + t1, t1, TW" << calls.at(sink())
         << ");\n  }\n}\n\n";
      return os.str() + unusedParameters(parameters, b.str()) + b.str();
    }
    std::string unit = rank() == 2 ? "row" : "plane";
    b << "    /* Step i: output " << unit << " i, and each member's " << unit
       << " as far ahead of it as its consumers read */\n"
       << "    for (i = " << plus("t0", start) << "; i < end; ++i) {\n";
    // Hardware prefetchers start late on each new row: ask for the rows of
    // the images in memory a few steps before they are read.
    for (const auto& [pid, reach] : inputReach(p_, inl_.pieces, slide_, sink())) {
      if (reach < 0) continue;
      std::string row = plus("i", reach + kPrefetchRows), T = cType(stage(pid).type);
      b << "      /* Prefetch the row of " << name(pid) << " read " << kPrefetchRows
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
      b << "      {\n        const long long q0 = " << plus("i", s.lead) << ";\n        "
         << (cond.empty() ? "" : "if (" + cond + ") ") << rowFunctionName(id) << "(" << row << ", q0, t1, TW"
         << calls.at(id) << ");\n      }\n";
    };
    for (const auto& m : grp.members)
      if (ring(m.stage)) step(m.stage, ringRow(m.stage, "q0"));
    step(sink(), name(sink()) + " + q0 * " + planeElements(sink()) + " + t1" + inner(sink()));
    b << "    }\n  }\n}\n\n";
    return os.str() + unusedParameters(parameters, b.str()) + b.str();
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
