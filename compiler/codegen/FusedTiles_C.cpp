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
#include "codegen/NameScope.h"
#include "codegen/Stmt.h"
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
        program_(programScope(*g.names)) {
    NameScope group(&program_);
    for (const auto& [id, s] : slide_) first_[id] = group.fresh("a_" + name(id));
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
    for (const auto& [id, sl] : slide_) {
      halo = std::max({halo, sl.colLo, sl.colHi});
      prime = std::max(prime, sl.lead - sl.first);
    }
    std::vector<Stmt> t;
    if (rank() == 1)
      t.push_back(comment("Chunks of about N / (8 threads) points (at least 4096), halved while one\n"
                          "thread's buffers exceed half the L2."));
    else if (rank() >= 3)
      // Strips of a plane cost their halos in a dimension that is not
      // vectorized: a 4-step 3-D heat chain at 256^3 ran 20% faster with whole
      // planes in rings of 2.4 MB (in L3) than with strips of 32 rows in L2.
      t.push_back(comment("Strips as wide as the image while one thread's rings fit in 4 times the L2\n"
                          "(else halved); bands of about M / (2 threads) planes, at least 4 times\n"
                          "the " + str(prime) + " planes a band computes before its first output plane."));
    else
      t.push_back(comment("Strips as wide as the image while one thread's rings fit in half the L2\n"
                          "(else halved); bands of about M / (8 threads) rows, at least 4 times\n"
                          "the " + str(prime) + " rows a band computes before its first output row."));
    t.push_back(decl("size_t", "budget", std::string("formac_l2_bytes()") + (rank() >= 3 ? " * 4" : " / 2")));
    t.push_back(decl("long long", "threads", "formac_max_threads()"));
    t.push_back(decl("long long", "w", "formac_maxll(" + columns(sink()) + ", 1)", false));
    t.push_back(declOnly("long long", "h"));
    if (rank() == 1)
      t.push_back(assign("w", "formac_minll(w, formac_maxll((" + columns(sink()) + ") / (8 * threads), 4096))"));
    if (!anyRing())
      t.push_back(eval("(void)budget"));
    else
      t.push_back(whileLoop("w > " + str(std::max(rank() >= 3 ? 16 : 64, 2 * (halo + 1))) + " && " + ringBytes("w") +
                                " > budget",
                            {assign("w", "(w + 1) / 2")}));
    if (rank() == 1)
      t.push_back(assign("h", "1"));
    else
      t.push_back(assign("h", "formac_maxll((" + size(stage(sink()).extent[0]) + ") / (" + (rank() == 2 ? "8" : "2") +
                                  " * threads), " + str(std::max(4 * prime, 8)) + ")"));
    t.push_back(assign(th, "h"));
    t.push_back(assign(tw, "w"));
    t.push_back(assign(bytes, ringBytes("w") + " + 256"));
    return printerFor(false).print(block(std::move(t)), ind);
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

  std::vector<Stmt> bounds(const LoopNestOptions& lo, bool fast) const {
    std::vector<Stmt> t;
    for (size_t d = 0; d <= last(); ++d) {
      std::string D = str(static_cast<long long>(d));
      t.push_back(decl("long long", "lo" + D, pieceFirstIndex(lo, d)));
      t.push_back(decl("long long", "hi" + D, pieceLastIndex(lo, d)));
      if (!fast) continue;
      // Folded: max(0, -1, 0, 1) is 1, min(M - 1, (M) - 1 - 1) is (M) - 2.
      t.push_back(decl("long long", "fast_lo" + D, fastFirstIndex(lo, d)));
      t.push_back(decl("long long", "fast_hi" + D, fastLastIndex(lo, d)));
    }
    return t;
  }

  // The runs of one line (the point's other indices fixed) over columns
  // [a, b] into out[q - a] (rank 3 and 4: the whole last dimension into
  // out[q]): zeros before the valid box, checked points with
  // the check-free run (in lines where no read leaves its image) inside that
  // loop where it starts, zeros after. The checked body is written once:
  // compile times grow with every copy of it. Each run's end is computed
  // first so that the compiler sees plain counted loops.
  std::vector<Stmt> lineRuns(const LoopNestOptions& options, bool fast, const std::string& out, NameScope& scope) const {
    // The lets that depend on no point, once before the runs.
    LoopNestOptions lo = options;
    lo.invariantLets = PointLets::PointDependent;
    NameScope run(&scope);
    lo.scope = &run;
    std::string c = q(last()), L = str(static_cast<long long>(last()));
    std::string b = rank() <= 2 ? "b" : extent(lo.stage->id, last()) + " - 1";
    Stmt zero = assign(out + "[" + c + (rank() <= 2 ? " - a" : "") + "]", zeroOf(*lo.stage));
    auto loop = [&](const std::string& end, std::vector<Stmt> body) {
      return forLoop("", c + " <= " + end, "++" + c, std::move(body));
    };
    std::vector<Stmt> t = {loop("formac_minll(" + b + ", lo" + L + " - 1)", {zero})};
    std::string end = run.fresh("end");
    std::vector<Stmt> runs = {decl("long long", end, "formac_minll(" + b + ", hi" + L + ")")};
    for (Stmt& st : invariantLets(lo)) runs.push_back(std::move(st));
    if (!fast) {
      runs.push_back(loop(end, pointBody(lo, false)));
    } else {
      std::string lineTest, start = "formac_maxll(" + c + ", fast_lo" + L + ")";
      for (size_t d = 0; d < last(); ++d) {
        std::string D = str(static_cast<long long>(d));
        lineTest += (d ? " && " : "") + q(d) + " >= fast_lo" + D + " && " + q(d) + " <= fast_hi" + D;
      }
      if (!lineTest.empty()) {
        std::string fastRow = run.fresh("fast_row");
        runs.push_back(decl("int", fastRow, lineTest));
        start = fastRow + " ? " + start + " : " + end + " + 1";
      }
      std::string fastStart = run.fresh("fast_start"), fastEnd = run.fresh("fast_end");
      runs.push_back(decl("long long", fastStart, start));
      runs.push_back(decl("long long", fastEnd, "formac_minll(" + end + ", fast_hi" + L + ")"));
      std::vector<Stmt> point = {ifThen(c + " == " + fastStart,
                                        {loop(fastEnd, pointBody(lo, false)), ifThen(c + " > " + end, {eval("break")})})};
      for (Stmt& st : pointBody(lo, true)) point.push_back(std::move(st));
      runs.push_back(loop(end, std::move(point)));
    }
    t.push_back(block(std::move(runs)));
    t.push_back(loop(b, {zero}));
    return t;
  }

  // The program's names, which a generated function may use: the scope
  // around each function's (built once per group: copying them for each row
  // function made a chain of n stages cost n^2).
  static NameScope programScope(const Names& n) {
    NameScope all;
    for (const auto* v : {&n.stage, &n.scalar, &n.param})
      for (const auto& name : *v) all.take(name);
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
  std::vector<Stmt> rowBody(const LoopNestOptions& lo, bool fast, const std::string& line, NameScope& scope) const {
    std::vector<Stmt> t;
    auto append = [](std::vector<Stmt>& to, std::vector<Stmt> more) {
      for (Stmt& st : more) to.push_back(std::move(st));
    };
    if (rank() == 1) {
      t.push_back(decl("long long", "q0", "a", false));
      append(t, lineRuns(lo, fast, "row", scope));
      return t;
    }
    if (rank() == 2) {
      t.push_back(decl("long long", "q1", "a", false));
      t.push_back(ifThen("q0 < lo0 || q0 > hi0",
                         {forLoop("", "q1 <= b", "++q1", {assign("row[q1 - a]", zeroOf(*lo.stage))}), eval("return")}));
      append(t, lineRuns(lo, fast, "row", scope));
      return t;
    }
    std::string c = q(last()), outside = "q0 < lo0 || q0 > hi0";
    std::vector<std::string> idx;
    for (size_t d = 0; d <= last(); ++d) idx.push_back(q(d));
    for (size_t d = 1; d <= last(); ++d) t.push_back(declOnly("long long", q(d)));
    for (size_t d = 1; d < last(); ++d) {
      std::string D = str(static_cast<long long>(d));
      outside += " || " + q(d) + " < lo" + D + " || " + q(d) + " > hi" + D;
    }
    std::vector<Stmt> each = {
        decl(cType(lo.stage->type) + "* restrict const", line, "row + " + lineStart(lo.stage->id, idx), false), assign(c, "0"),
        ifThen(outside, {forLoop("", c + " < " + extent(lo.stage->id, last()), "++" + c,
                                 {assign(line + "[" + c + "]", zeroOf(*lo.stage))}),
                         eval("continue")})};
    append(each, lineRuns(lo, fast, line, scope));
    for (size_t d = last() - 1; d >= 1; --d)
      each = {d == 1 ? forLoop("q1 = a", "q1 <= b", "++q1", std::move(each))
                     : forLoop(q(d) + " = 0", q(d) + " < " + extent(lo.stage->id, d), "++" + q(d), std::move(each))};
    append(t, std::move(each));
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
    NameScope locals(&program_);
    for (const char* fixed : {"row", "q0", "t1", "TW", "a", "b"}) locals.take(fixed);
    std::string line = rank() >= 3 ? locals.fresh("line") : "row";
    std::map<std::pair<int, std::string>, std::string> rows;  // (producer, row index) -> pointer
    std::set<int> bases;                                        // producers indexed in full
    LoopNestOptions lo;
    lo.pipeline = &p_;
    lo.stage = &s;
    lo.piece = &pc;
    lo.names = g_.names;
    lo.openmp = false;
    lo.outsideCache = g_.outsideCache;
    lo.scope = &locals;
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
      if (!rows.count(key)) rows[key] = locals.fresh(name(pid) + "_r" + str(static_cast<long long>(rows.size())));
      return rows[key] + "[" + lineIndex(pid, idx) + "]";
    };
    bool fast = needsBorderChecks(lo);
    std::vector<Stmt> body = {decl("long long", "a", firstColumn(id)), decl("long long", "b", lastColumn(id))};
    for (Stmt& st : bounds(lo, fast)) body.push_back(std::move(st));
    for (Stmt& st : rowBody(lo, fast, line, locals)) body.push_back(std::move(st));

    std::vector<Param> params = {Param{cType(s.type), "row", true, false}};
    if (rank() >= 2) params.push_back(Param{"long long", "q0", false, true});
    params.push_back(Param{"long long", "t1", false, true});
    params.push_back(Param{"long long", "TW", false, true});
    for (const auto& [key, ptr] : rows) {
      const ir::Stage& ps = stage(key.first);
      params.push_back(Param{cType(ps.type), ptr, true, true});
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
      params.push_back(Param{cType(stage(pid).type), name(pid), true, true});
      call += ", " + name(pid);
    }
    std::set<int> scalars;
    ir::forEachExpr(pc.body, [&](const Expr& e) {
      if (e.kind == Expr::ScalarIn) scalars.insert(e.scalar);
    });
    for (int i : scalars) {
      params.push_back(Param{scalarCType(p_.scalars[static_cast<size_t>(i)].type), g_.names->scalar[static_cast<size_t>(i)],
                             false, true});
      call += ", " + g_.names->scalar[static_cast<size_t>(i)];
    }
    // The sizes the function uses, and no others: no `(void)M;` lines.
    const CPrinter printer;
    std::string code = printer.print(body, "  ");
    for (const auto& prm : g_.names->param)
      if (mentions(code, prm)) {
        params.push_back(Param{"long long", prm, false, true});
        call += ", " + prm;
      }
    const char* what = rank() == 1 ? ": points a..b, into row[q0 - a]"
                       : rank() == 2 ? ": row q0, columns a..b, into row[q1 - a]"
                                     : ": rows a..b of plane q0, whole";
    bool noWrapv = wrapFree(pc) && !callsValueHelper(code);
    std::vector<Stmt> out;
    if (noWrapv) out.push_back(text("FORMAC_NO_WRAPV_BEGIN\n"));
    out.push_back(comment(name(id) + " = " + s.origin + what));
    // The body printed once, above (the sizes it names are the parameters).
    out.push_back(function("static FORMAC_NOINLINE", "void", rowFunctionName(id), params, {text(code)}));
    out.push_back(text(noWrapv ? "FORMAC_NO_WRAPV_END\n\n" : "\n"));
    return printer.print(out);
  }

  std::string groupFunction(const std::map<int, std::string>& calls) const {
    const passes::FusionGroup& grp = *g_.group;
    std::string M = rank() >= 2 ? size(stage(sink()).extent[0]) : "1", N = columns(sink());
    std::string about = "Fused on the CPU: ";
    for (const auto& [id, pc] : inl_.pieces) about += name(id) + (id == sink() ? "" : ", ");
    if (!inl_.inlined.empty()) {
      about += " (computed where read:";
      for (int id : inl_.inlined) about += " " + name(id);
      about += ")";
    }
    std::string unit = rank() == 2 ? "row" : "plane";
    if (rank() == 1)
      about += ".\nChunks of TW points of " + name(sink()) +
               " are shared among the threads; each stored member computes\n"
               "its chunk with the halo its consumers read, then the next stage reads it.";
    else
      about += ".\nTiles of TH " + unit + "s x TW columns of " + name(sink()) +
               " are shared among the threads. Down a tile, each stored\nmember keeps a ring of its last " + unit +
               "s and computes one new " + unit + " per output " + unit + ", a\nfew " + unit +
               "s ahead of it (seed 003 section 2.3, sliding windows as in Halide).";
    std::vector<Param> params = g_.signature;
    params.push_back(Param{"unsigned char*", "scratch", false, false});  // the rings are carved from it
    params.push_back(Param{"size_t", "scratch_stride", false, true});
    params.push_back(Param{"int", "nthreads", false, true});
    params.push_back(Param{"long long", "TH", false, true});
    params.push_back(Param{"long long", "TW", false, true});
    std::vector<Stmt> b;  // the function's body
    if (rank() >= 2) b.push_back(decl("long long", "tiles0", "((" + M + ") + TH - 1) / TH"));
    b.push_back(decl("long long", "tiles1", "((" + N + ") + TW - 1) / TW"));
    b.push_back(declOnly("long long", "tile"));
    std::vector<std::string> quiet = {"nthreads", "scratch", "scratch_stride"};
    if (rank() == 1) quiet.push_back("TH");
    quiet.insert(quiet.end(), g_.names->param.begin(), g_.names->param.end());
    int start = 0;
    for (const auto& [id, sl] : slide_) start = std::min(start, sl.first - sl.lead);
    // Threads only for work worth waking them for (FORMAC_PARALLEL_POINTS):
    // every point of the sink (a 161³ volume has 25921 planes x rows, under
    // the threshold, but 4.2M points).
    std::string points;
    for (int d = 0; d < rank(); ++d) points += (d ? " * " : "") + extent(sink(), static_cast<size_t>(d));
    std::vector<Stmt> tile;
    if (rank() == 1) {
      tile.push_back(decl("long long", "t1", "tile * TW"));
    } else {
      tile.push_back(decl("long long", "t0", "(tile / tiles1) * TH"));
      tile.push_back(decl("long long", "t1", "(tile % tiles1) * TW"));
      tile.push_back(decl("long long", "end", "formac_minll(t0 + TH, " + M + ")"));
      tile.push_back(declOnly("long long", "i"));
    }
    // The thread's rings, each 64-byte aligned, one cache line apart.
    std::string previous = "scratch + (size_t)formac_thread_num() * scratch_stride";
    for (const auto& [id, sl] : slide_) {
      if (!ring(id)) continue;
      std::string T = cType(stage(id).type), n = name(id);
      if (rank() == 1)
        tile.push_back(comment(n + ": " + str(sl.colLo) + " and " + str(sl.colHi) + " points beyond the chunk"));
      else
        tile.push_back(comment(n + ": a ring of " + str(sl.ring) + " " + unit + "s, " + str(sl.lead) +
                               " ahead of the output " + unit + "; " + str(sl.colLo) + " and " + str(sl.colHi) +
                               " columns beyond the strip"));
      tile.push_back(decl(T + "*", "tile_" + n, "(" + T + "*)(" + previous + ")", false));
      previous = "(unsigned char*)tile_" + n + " + formac_align64((size_t)" + str(sl.ring) + " * (size_t)" +
                 slotElements(id, "TW") + " * sizeof(" + T + ")) + 64";
    }
    // (A stage none of whose rows is read through pointers, such as a sink
    // reading only constants and inlined members, leaves its own unused.)
    std::string callText;
    for (const auto& [id, c] : calls) callText += c;
    for (const auto& [id, f] : first_) {
      tile.push_back(decl("long long", f, firstColumn(id)));
      if (!mentions(callText, f)) tile.push_back(eval("(void)" + f));
    }
    if (rank() == 1) {
      for (const auto& m : grp.members)
        if (ring(m.stage))
          tile.push_back(eval(rowFunctionName(m.stage) + "(" + ringRow(m.stage, "") + ", t1, TW" + calls.at(m.stage) + ")"));
      tile.push_back(eval(rowFunctionName(sink()) + "(" + name(sink()) + " + t1, t1, TW" + calls.at(sink()) + ")"));
      b.push_back(forLoop("tile = 0", "tile < tiles1", "++tile", std::move(tile), threads(points)));
      return groupText(about, params, std::move(b), quiet);
    }
    std::vector<Stmt> stepI;
    // Hardware prefetchers start late on each new row: ask for the rows of
    // the images in memory a few steps before they are read.
    for (const auto& [pid, reach] : inputReach(p_, inl_.pieces, slide_, sink())) {
      if (reach < 0) continue;
      std::string row = plus("i", reach + kPrefetchRows), T = cType(stage(pid).type);
      stepI.push_back(comment("Prefetch the row of " + name(pid) + " read " + str(kPrefetchRows) +
                              " steps from now: hardware prefetchers start late on each row"));
      stepI.push_back(ifThen(row + " < " + M,
                             {eval("formac_prefetch(" + name(pid) + " + (" + row + ") * (" + N +
                                   ") + formac_maxll(t1 - 16, 0), (size_t)(formac_minll(t1 + TW + 16, " + N +
                                   ") - formac_maxll(t1 - 16, 0)) * sizeof(" + T + "))")}));
    }
    // Each stored stage computes its row i + lead when the band needs it
    // (from row t0 + first on) and it lies in the image.
    auto step = [&](int id, const std::string& row) {
      const Slide& sl = slide_.at(id);
      std::vector<std::string> when;
      if (sl.first - sl.lead > start) when.push_back("q0 >= " + plus("t0", sl.first));
      if (sl.first < 0) when.push_back("q0 >= 0");
      if (sl.lead > 0) when.push_back("q0 < " + M);
      std::string cond;
      for (const auto& w : when) cond += (cond.empty() ? "" : " && ") + w;
      // An image of no rows (a sample of a smaller one): clang calls
      // `q0 >= 0 && q0 < 0` always false (-Wtautological-overlap-compare).
      if (sl.lead > 0 && M == "0") cond = "0";
      Stmt call = eval(rowFunctionName(id) + "(" + row + ", q0, t1, TW" + calls.at(id) + ")");
      stepI.push_back(block({decl("long long", "q0", plus("i", sl.lead)), cond.empty() ? call : ifThen(cond, {call})}));
    };
    for (const auto& m : grp.members)
      if (ring(m.stage)) step(m.stage, ringRow(m.stage, "q0"));
    step(sink(), name(sink()) + " + q0 * " + planeElements(sink()) + " + t1" + inner(sink()));
    tile.push_back(comment("Step i: output " + unit + " i, and each member's " + unit +
                           " as far ahead of it as its consumers read"));
    tile.push_back(forLoop("i = " + plus("t0", start), "i < end", "++i", std::move(stepI)));
    b.push_back(forLoop("tile = 0", "tile < tiles0 * tiles1", "++tile", std::move(tile), threads(points)));
    return groupText(about, params, std::move(b), quiet);
  }

  // The OpenMP clauses of the tile loop (none without OpenMP).
  std::string threads(const std::string& points) const {
    return g_.openmp ? "schedule(dynamic, 1) num_threads(nthreads) " + parallelIf(points) : "";
  }

  std::string groupText(const std::string& about, const std::vector<Param>& params, std::vector<Stmt> body,
                        const std::vector<std::string>& quiet) const {
    return CPrinter().print({comment(about), function("static", "void", g_.functionName, params, std::move(body), quiet)}) +
           "\n";
  }

  const FusedGroupC& g_;
  const ir::Pipeline& p_;
  InlinedGroup inl_;
  std::map<int, Slide> slide_;
  NameScope program_;
  std::map<int, std::string> first_;  // the group function's local holding a stage's first column
};

}  // namespace

std::string emitFusedGroupFunction(const FusedGroupC& g) { return Emitter(g).functions(); }

std::string emitTileChoice(const FusedGroupC& g, const std::string& th, const std::string& tw,
                           const std::string& bytes, const std::string& indent) {
  return Emitter(g).tileChoice(th, tw, bytes, indent);
}

}  // namespace formac::codegen
