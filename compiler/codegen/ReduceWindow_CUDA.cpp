#include "codegen/ReduceWindow_CUDA.h"

#include <algorithm>
#include <functional>

#include "codegen/ExprPrinter.h"
#include "codegen/LoopNest.h"
#include "codegen/ReduceFlat_CUDA.h"
#include "codegen/Reduce_C.h"

namespace formac::codegen {
namespace {

std::string str(long long v) { return std::to_string(v); }

// Offsets along the last dimension a window reaches, rows it holds and
// values it holds in all (registers).
constexpr int kMaxReach = 8;
constexpr int kMaxRows = 16;
constexpr int kMaxValues = 96;

std::string name(const ReduceCuda& r, int id) { return r.names->stage[static_cast<size_t>(id)]; }
const ir::Stage& stageOf(const ReduceCuda& r, int id) { return r.pipeline->stages[static_cast<size_t>(id)]; }
int rankOf(const ReduceCuda& r) { return static_cast<int>(r.stage->reduction.input.axes.size()); }
std::string n(int d) { return "formac_n" + str(d); }
std::string p(int d) { return "formac_p" + str(d); }

// The row of w holding read e (reduce_flat::readsDomainShape), or -1.
int rowOf(const WindowReads& w, const ir::Expr& e) {
  for (size_t i = 0; i < w.rows.size(); ++i) {
    const WindowReads::Row& row = w.rows[i];
    if (row.producer != e.producer) continue;
    bool same = true;
    for (size_t d = 0; d < row.outer.size(); ++d) same = same && e.axes[d].offset == row.outer[d];
    if (same) return static_cast<int>(i);
  }
  return -1;
}

// The row's offset in elements from the point's (the other dimensions' offsets).
std::string rowOffset(const WindowReads::Row& row) {
  std::string t;
  for (size_t d = 0; d < row.outer.size(); ++d) {
    if (row.outer[d] == 0) continue;
    std::string term = "(long long)(" + str(row.outer[d]) + ")";
    for (size_t e = d + 1; e <= row.outer.size(); ++e) term += " * " + n(static_cast<int>(e));
    t += (t.empty() ? "" : " + ") + term;
  }
  return t.empty() ? "0" : t;
}

// Value x of type e from lane `lane` of the warp (shuffles take 4 or 8 bytes).
std::string shuffle(ScalarKind e, const std::string& x, const std::string& lane) {
  if (scalarSize(e) >= 4) return "__shfl_sync(0xffffffffu, " + x + ", " + lane + ")";
  return "(" + std::string(scalarCType(e)) + ")__shfl_sync(0xffffffffu, (int)" + x + ", " + lane + ")";
}

// Row i's window formac_r<i>[c - lo], c = lo .. per - 1 + hi: the lane's own
// load for 0 <= c < per, else lane j + m's (c = m * per + e), or memory.
std::vector<Stmt> rowWindow(const ReduceCuda& r, const WindowReads& w, int i) {
  const WindowReads::Row& row = w.rows[static_cast<size_t>(i)];
  ScalarKind e = stageOf(r, row.producer).type.scalar;
  std::string E = scalarCType(e), L = reduce_flat::loadType(w.per * scalarSize(e)), I = str(i), at = "formac_k + formac_ro" + I;
  std::string o = "formac_o" + I, win = "formac_r" + I;
  std::vector<Stmt> t = {decl(L, "formac_l" + I, "__ldg((const " + L + "*)(" + name(r, row.producer) + " + " + at + "))"),
                         declOnly(E, o + "[" + str(w.per) + "]"),
                         eval("memcpy(" + o + ", &formac_l" + I + ", sizeof " + o + ")"),
                         declOnly(E, win + "[" + str(w.per + row.hi - row.lo) + "]")};
  for (int c = row.lo; c < w.per + row.hi; ++c) {
    std::string slot = win + "[" + str(c - row.lo) + "]";
    if (c >= 0 && c < w.per) {
      t.push_back(assign(slot, o + "[" + str(c) + "]"));
      continue;
    }
    int m = c >= 0 ? c / w.per : -((-c + w.per - 1) / w.per), k = c - m * w.per;
    std::string lane = "(formac_j + " + str(m < 0 ? 32 + m : m) + ") & 31";
    std::string near = m < 0 ? "formac_j >= " + str(-m) : "formac_j < " + str(32 - m);
    t.push_back(block({decl(E, "formac_s", shuffle(e, o + "[" + str(k) + "]", lane)),
                       assign(slot, near + " ? formac_s : " + name(r, row.producer) + "[" + at + " + (" + str(c) + ")]")}));
  }
  return t;
}

}  // namespace

WindowReads windowReads(const ReduceCuda& r) {
  WindowReads w;
  const int rank = rankOf(r);
  if (r.stage->reduction.dim >= 0 || rank == 0) return w;
  bool ok = true;
  int widest = 0;
  std::function<void(const ir::Expr&)> walk = [&](const ir::Expr& e) {
    if (e.kind == ir::Expr::IndexRead) ok = false;
    if (e.kind == ir::Expr::ImageRead && !e.axes.empty()) {
      if (!reduce_flat::readsDomainShape(r, e)) {
        ok = false;
        return;
      }
      const int dx = e.axes[static_cast<size_t>(rank - 1)].offset;
      int i = rowOf(w, e);
      if (i < 0) {
        WindowReads::Row row;
        row.producer = e.producer;
        for (int d = 0; d + 1 < rank; ++d) row.outer.push_back(e.axes[static_cast<size_t>(d)].offset);
        row.lo = row.hi = dx;
        w.rows.push_back(row);
      } else {
        w.rows[static_cast<size_t>(i)].lo = std::min(w.rows[static_cast<size_t>(i)].lo, dx);
        w.rows[static_cast<size_t>(i)].hi = std::max(w.rows[static_cast<size_t>(i)].hi, dx);
      }
      widest = std::max(widest, scalarSize(e.type.scalar));
    }
    for (const auto& a : e.args) walk(*a);
  };
  const ir::Body& b = r.stage->reduction.input.body;
  for (const auto& l : b.lets) walk(*l.value);
  walk(*b.result);
  w.per = widest > 0 ? 16 / widest : 0;
  int values = 0;
  for (const auto& row : w.rows) {
    if (row.lo < -kMaxReach || row.hi > kMaxReach) ok = false;
    values += w.per + row.hi - row.lo;
  }
  if (!ok || w.per < 2 || w.rows.empty() || w.rows.size() > static_cast<size_t>(kMaxRows) || values > kMaxValues)
    return WindowReads{};
  return w;
}

std::string windowAligned(const ReduceCuda& r, const WindowReads& w) {
  std::string t;
  std::vector<int> seen;
  for (const auto& row : w.rows) {
    if (std::find(seen.begin(), seen.end(), row.producer) != seen.end()) continue;
    seen.push_back(row.producer);
    t += "(unsigned long long)" + name(r, row.producer) + " % " +
         str(w.per * scalarSize(stageOf(r, row.producer).type.scalar)) + " == 0 && ";
  }
  return t + n(rankOf(r) - 1) + " % " + str(w.per) + " == 0";
}

Stmt windowChunk(const ReduceCuda& r, const WindowReads& w, bool ordered, const Stmt& add,
                 std::vector<Stmt> pointByPoint) {
  const int rank = rankOf(r);
  const std::string per = str(w.per), step = str(ir::kSumLanes * w.per), lanes = str(ir::kSumLanes);
  const std::string chunk = str(ir::kSumChunk);
  ir::Stage domain = domainStage(*r.stage);
  const std::string T = cType(domain.type);
  LoopNestOptions lo = reduce_cuda::pointOptions(*r.pipeline, domain, *r.names);

  // Where the warp's points all lie in the box in which every read is in range.
  std::string inside;
  for (int d = 0; d < rank; ++d) {
    for (const auto& b : fastLowerBounds(lo, static_cast<size_t>(d))) inside += " && " + p(d) + " >= " + b;
    for (const auto& b : fastUpperBounds(lo, static_cast<size_t>(d)))
      inside += " && " + p(d) + (d == rank - 1 ? " + " + str(w.per - 1) : "") + " <= " + b;
  }
  inside = inside.empty() ? "1" : inside.substr(4);
  auto each = [&](std::vector<Stmt> body) {
    return unrolledLoop("int formac_u = 0", "formac_u < " + per, "++formac_u", std::move(body));
  };

  std::vector<Stmt> windows;
  for (size_t i = 0; i < w.rows.size(); ++i) windows.push_back(seq(rowWindow(r, w, static_cast<int>(i))));
  LoopNestOptions vec = lo;
  vec.preloaded = [&](const ir::Expr& e) {
    if (e.kind != ir::Expr::ImageRead || e.axes.empty()) return std::string();
    const int i = rowOf(w, e);
    const int at = e.axes[static_cast<size_t>(rank - 1)].offset - w.rows[static_cast<size_t>(i)].lo;
    return "formac_r" + str(i) + "[formac_u" + (at ? " + " + str(at) : "") + "]";
  };
  windows.push_back(each({declOnly(T, "formac_v"), seq(pointBody(vec, false)), assign("formac_w[formac_u]", "formac_v")}));
  std::vector<Stmt> pointwise;
  for (int d = 0; d < rank; ++d) pointwise.push_back(decl("I", "q" + str(d), p(d) + (d == rank - 1 ? " + formac_u" : "")));
  pointwise.push_back(seq(reduce_cuda::pointValue(r)));
  pointwise.push_back(assign("formac_w[formac_u]", "formac_v"));

  std::vector<Stmt> window = {declOnly(T, "formac_w[" + per + "]"),
                              ifThen("__ballot_sync(0xffffffffu, " + inside + ") == 0xffffffffu", std::move(windows),
                                     {each(std::move(pointwise))})};
  if (ordered) {
    window.push_back(eval("__syncwarp()"));
    window.push_back(eval("memcpy(formac_mine + formac_j * " + per + ", formac_w, sizeof formac_w)"));
    window.push_back(eval("__syncwarp()"));
    window.push_back(each({decl(T, "formac_v", "formac_mine[formac_u * " + lanes + " + formac_j]"), add}));
  } else {
    window.push_back(each({decl(T, "formac_v", "formac_w[formac_u]"), add}));
  }
  window.push_back(eval("formac_k += " + step));
  window.push_back(seq(reduce_cuda::advance(r, "formac_p", step)));

  std::vector<Stmt> rows = {comment(per + " points a lane along the last dimension, " + step +
                                    " a warp: each row a window (ReduceWindow_CUDA.h)."),
                            decl("long long", "formac_k", "formac_c * " + chunk + " + formac_j * " + per, false),
                            seq(reduce_cuda::pointIndices(r, "formac_p"))};
  for (size_t i = 0; i < w.rows.size(); ++i)
    rows.push_back(decl("long long", "formac_ro" + str(static_cast<long long>(i)), rowOffset(w.rows[i])));
  rows.push_back(forLoop("int formac_i = 0", "formac_i < " + str(ir::kSumChunk / (ir::kSumLanes * w.per)), "++formac_i",
                         std::move(window)));
  return ifThen("formac_aligned && formac_end - formac_c * " + chunk + " == " + chunk, std::move(rows),
                std::move(pointByPoint));
}

}  // namespace formac::codegen
