#include "codegen/FusedSlides_C.h"

#include <algorithm>
#include <cstdlib>

#include "ir/Edges.h"

namespace formac::codegen::fused_c {

using ir::BoundaryMode;
using ir::Expr;

// Slides of the stored stages, from the reads of their consumers (after
// inlining). A read at row offset o of a consumer at row v needs row v + o,
// or where a boundary mode takes it: a clamped read row 0 or M-1, a mirrored
// read a row within |o| of v.
std::map<int, Slide> slides(const std::map<int, ir::Piece>& pieces, int sink, int rank) {
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
        // Rank 1 has no dimension to slide along: one chunk a strip.
        int o = rank >= 2 ? e.axes[0].offset : 0, o1 = e.axes[rank >= 2 ? 1 : 0].offset;
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

bool rowReadable(const ir::Pipeline& p, const ir::Piece& pc, int producer, int rank) {
  bool ok = p.stages[static_cast<size_t>(producer)].rank() == rank;
  ir::forEachExpr(pc.body, [&](const Expr& e) {
    if ((e.kind == Expr::ImageRead || e.kind == Expr::IndexRead) && e.producer == producer)
      ok = ok && e.kind == Expr::ImageRead && e.firstDim == 0 && e.axes.size() == static_cast<size_t>(rank);
  });
  return ok;
}

std::map<int, int> inputReach(const ir::Pipeline& p, const std::map<int, ir::Piece>& pieces,
                              const std::map<int, Slide>& slide, int sink) {
  std::map<int, int> out;
  const ir::Stage& s = p.stages[static_cast<size_t>(sink)];
  if (s.rank() != 2) return out;
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

}  // namespace formac::codegen::fused_c
