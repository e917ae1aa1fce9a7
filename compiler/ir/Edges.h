// Producer -> consumer edges of a pipeline with their offset hulls: for each
// (producer, consumer, boundary mode), the min and max offset read along each
// dimension. Fusion sizes its halos from these (seed 003, Algorithm 1).
#pragma once

#include <vector>

#include "ir/Pipeline.h"

namespace formac::ir {

struct Edge {
  int producer = -1;
  int consumer = -1;
  BoundaryMode mode = BoundaryMode::None;
  std::vector<int> minOffset, maxOffset;
  bool sampled = false;   // some read has scale != 1
  bool symbolic = false;  // some read has a symbolic origin or an absolute index
};

std::vector<Edge> collectEdges(const Pipeline& p);

// Calls `f` on every expression node of a body (lets, then result), pre-order.
template <typename F>
void forEachExpr(const Body& body, F&& f);

// `e` rebuilt bottom-up: `f` sees each node, its arguments already rebuilt,
// and returns its replacement, or null to keep it. Unchanged subtrees are
// shared, not copied.
template <typename F>
ExprPtr rebuildExpr(const ExprPtr& e, F&& f);

}  // namespace formac::ir

#include "ir/Edges.inl"
