#include "ir/Edges.h"

#include <algorithm>

namespace formac::ir {

std::vector<Edge> collectEdges(const Pipeline& p) {
  std::vector<Edge> edges;
  for (const auto& s : p.stages) {
    forEachPiece(s, [&](const Piece& pc) {
      forEachExpr(pc.body, [&](const Expr& e) {
        if (e.kind != Expr::ImageRead && e.kind != Expr::IndexRead) return;
        auto it = std::find_if(edges.begin(), edges.end(), [&](const Edge& x) {
          return x.producer == e.producer && x.consumer == s.id && x.mode == e.mode;
        });
        if (it == edges.end()) {
          Edge n;
          n.producer = e.producer;
          n.consumer = s.id;
          n.mode = e.mode;
          edges.push_back(n);
          it = edges.end() - 1;
        }
        if (e.kind == Expr::IndexRead) {
          it->symbolic = true;
          return;
        }
        if (it->minOffset.empty()) {
          for (const auto& a : e.axes) {
            it->minOffset.push_back(a.offset);
            it->maxOffset.push_back(a.offset);
          }
        }
        for (size_t d = 0; d < e.axes.size(); ++d) {
          it->minOffset[d] = std::min(it->minOffset[d], e.axes[d].offset);
          it->maxOffset[d] = std::max(it->maxOffset[d], e.axes[d].offset);
          if (e.axes[d].scale != 1) it->sampled = true;
          if (d < e.origin.size() && !isConst(e.origin[d])) it->symbolic = true;
        }
      });
    });
    // A loop reads its initial values and outer images whole, round after
    // round: an edge no fusion can follow.
    if (s.kind == Stage::LoopResult) {
      auto depend = [&](int producer) {
        for (const auto& x : edges)
          if (x.producer == producer && x.consumer == s.id) return;
        Edge n;
        n.producer = producer;
        n.consumer = s.id;
        n.symbolic = true;
        edges.push_back(n);
      };
      for (const auto& b : s.loop->carried) depend(b.outer);
      for (const auto& b : s.loop->reads) depend(b.outer);
    }
  }
  return edges;
}

}  // namespace formac::ir
