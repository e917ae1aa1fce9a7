#include "codegen/FusedLayout_CUDA.h"

#include <algorithm>
#include <set>

#include "ir/Edges.h"

namespace formac::codegen {

GroupLayout::GroupLayout(const ir::Pipeline& p, const passes::FusionGroup& g) : GroupMembers(p, g) {
  batches_ = computeBatches();
  place();
}

// Whether every read `a` makes of `b` is of the point itself
// (passes::readsOwnPoint), none through inlined members.
bool GroupLayout::readsOnlyItsPoint(int a, int b) const {
  bool only = true;
  ir::forEachExpr(stage(a).pieces[0].body, [&](const ir::Expr& e) {
    if (e.kind != ir::Expr::ImageRead) return;
    if (e.producer == b)
      only = only && passes::readsOwnPoint(e);
    else if (inlined(e.producer) && dependsOn(e.producer, b))
      only = false;
  });
  return only;
}
bool GroupLayout::sameRegion(int a, int b) const {
  return H(a) == H(b) && W(a) == W(b) && halo(a, 0, false) == halo(b, 0, false) &&
         halo(a, 1, false) == halo(b, 1, false);
}

// Members with tiles, in order, grouped into loops: consecutive members of
// one region share a loop (and its loads) when each reads the others of
// the loop only at its own point: in check-free code, it reads their values
// there from registers (the checked frame reads the tiles, which the same
// thread stored just before).
std::vector<std::vector<int>> GroupLayout::computeBatches() const {
  std::vector<std::vector<int>> out;
  for (const auto& m : g_.members) {
    if (m.inlined) continue;
    bool join = !out.empty() && sameRegion(out.back()[0], m.stage);
    for (int other : join ? out.back() : std::vector<int>{})
      if (dependsOn(m.stage, other) && !readsOnlyItsPoint(m.stage, other)) join = false;
    if (join)
      out.back().push_back(m.stage);
    else
      out.push_back({m.stage});
  }
  return out;
}

// Tiles in member order (16-byte aligned); then each staged input, over
// the tiles of later batches (not yet written while it is read) where it
// fits, without raising the bytes past what the group had or 48 KB.
void GroupLayout::place() {
  long long offset = 0;
  std::vector<long long> batchEnd;
  for (const auto& batch : batches_) {
    for (int id : batch) {
      tileAt_[id] = offset;
      long long n = static_cast<long long>(typeSize(stage(id).type)) * H(id) * W(id);
      offset = (offset + n + 15) / 16 * 16;
    }
    batchEnd.push_back(offset);
  }
  total_ = offset;
  if (g_.onePass) return;
  const long long limit = std::max(total_, 48LL * 1024);
  std::map<size_t, long long> next;  // per batch: where its next staged input goes
  for (const Staged& candidate : candidates()) {
    Staged s = candidate;
    long long& at = next.emplace(s.batch, batchEnd[s.batch]).first->second;
    long long n = static_cast<long long>(typeSize(stage(s.input).type)) * s.size[0] * s.size[1];
    if (at + n > limit) continue;
    s.offset = at;
    at = (at + n + 15) / 16 * 16;
    total_ = std::max(total_, at);
    staged_.push_back(s);
  }
}

// Inputs worth staging: read with at least kStageMinTaps offsets, all by
// the members of one batch (not by inlined members or the sink) and at
// q + offset, with elements of 4 or 8 bytes.
std::vector<GroupLayout::Staged> GroupLayout::candidates() const {
  std::map<int, std::set<size_t>> readers;            // input -> batches reading it
  std::map<int, std::set<std::pair<int, int>>> taps;  // input -> offsets read
  std::set<int> elsewhere;                            // inputs read outside the batches
  std::map<int, size_t> batchOf;
  for (size_t b = 0; b < batches_.size(); ++b)
    for (int id : batches_[b]) batchOf[id] = b;
  std::vector<int> all;
  for (const auto& m : g_.members) all.push_back(m.stage);
  all.push_back(g_.sink);
  for (int id : all)
    ir::forEachExpr(stage(id).pieces[0].body, [&](const ir::Expr& e) {
      if ((e.kind != ir::Expr::ImageRead && e.kind != ir::Expr::IndexRead) || member(e.producer)) return;
      // Staged reads are q + offset: not scaled, shifted or placed.
      bool plain = e.kind == ir::Expr::ImageRead && e.axes.size() == 2 && e.firstDim == 0 && e.origin.empty();
      for (const auto& a : e.axes) plain = plain && a.scale == 1;
      auto b = batchOf.find(id);
      if (b == batchOf.end() || !plain) {
        elsewhere.insert(e.producer);
        return;
      }
      readers[e.producer].insert(b->second);
      taps[e.producer].insert({e.axes[0].offset, e.axes[1].offset});
    });
  std::vector<Staged> out;
  for (const auto& [input, batches] : readers) {
    size_t bytes = typeSize(stage(input).type);
    if (elsewhere.count(input) || batches.size() != 1 || (bytes != 4 && bytes != 8) ||
        static_cast<int>(taps[input].size()) < kStageMinTaps)
      continue;
    Staged s;
    s.input = input;
    s.batch = *batches.begin();
    s.vec = static_cast<int>(16 / bytes);
    if (TX() % s.vec) continue;
    int region = batches_[s.batch][0];
    auto [r, c] = *taps[input].begin();
    int lo[2] = {r, c}, hi[2] = {r, c};
    for (const auto& [tr, tc] : taps[input]) {
      lo[0] = std::min(lo[0], tr), hi[0] = std::max(hi[0], tr);
      lo[1] = std::min(lo[1], tc), hi[1] = std::max(hi[1], tc);
    }
    s.lo[0] = lo[0] - halo(region, 0, false);
    s.size[0] = H(region) + hi[0] - lo[0];
    // Columns from a multiple of vec (t1 is one), as many as cover the reads.
    int c0 = lo[1] - halo(region, 1, false), c1 = c0 + W(region) - 1 + hi[1] - lo[1];
    s.lo[1] = static_cast<int>(ir::floorDiv(c0, s.vec)) * s.vec;
    s.size[1] = (c1 - s.lo[1] + s.vec) / s.vec * s.vec;
    out.push_back(s);
  }
  return out;
}

}  // namespace formac::codegen
