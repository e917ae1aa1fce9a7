// FusionPlan: which stages compute together in one fused kernel, and the
// tile each of them needs (seed 003, Algorithms 1 and 2).
//
// A group has one sink, written to memory, and members computed per tile in
// on-chip memory. Working back from the sink, a producer joins the group when
//  - it is a whole-extent stencil stage (one piece, no lattice step, the same
//    rank and extent as the sink) that is not a pipeline output,
//  - every consumer of it is already in the group (so it is never needed in
//    memory; a stage read by two fused consumers is computed once per tile and
//    shared by both),
//  - the group reads it only at unit scale, with no Wrap mode and no absolute
//    index (those reach outside any tile),
//  - the tiles still fit the on-chip budget.
// Everything else is materialised by its own group (Algorithm 2).
// Halo (Algorithm 1): a member's region is the sink tile widened by the
// hulls of its consumers' reads, accumulated along the paths to the sink.
// Clamp and mirror reads stay inside the region as long as the tile is at
// least one point larger than the halo (checked by the planner).
//
// Inlining (FusionOptions::inlineCheap, the CUDA backend): a member is not
// given a tile of its own but recomputed where it is read when that costs
// little: it is evaluated once per point of one stage computed in memory or
// in a tile (e.g. a gauss3 read only by the pointwise response), or it is
// pointwise (reads everything at offset 0) with at most kInlineOps
// operations (e.g. a product Ix*Ix read by a 3x3 window). Its halo still
// counts for the tiles it reads.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ir/Pipeline.h"

namespace formac::passes {

struct GroupMember {
  int stage = -1;
  std::vector<int> haloLo, haloHi;  // region = [tile_lo - haloLo, tile_hi + haloHi] per dim
  bool inlined = false;              // recomputed where read, no tile of its own
};

struct FusionGroup {
  int sink = -1;
  std::vector<GroupMember> members;  // topological order, sink excluded
  std::vector<int> tile;             // sink points per tile, per dimension
  // Light groups (at most kOnePassOps operations per point, all stages
  // together) are bound by memory latency, heavier ones by instruction issue:
  // the CUDA kernel computes each region in one pass for the former (every
  // load of a block in flight at once) and sweeps it in passes of a few rows
  // for the latter (no point computed twice).
  bool onePass = false;
  // A lone stencil (no members) that reads its neighbours, computed by the
  // tiled kernel all the same (FusionOptions::tileLoneStencils), in any rank.
  bool tiledAlone = false;
  // Why a lone stencil that reads its neighbours is not tiled (empty: it is,
  // or it reads none): over FusionOptions::maxGroupOperations, whose tiled
  // kernel would hold its body eight times.
  std::string notTiled;
  // A group of over FusionOptions::compactOperations operations a point: its
  // CUDA kernel keeps one copy of each stage's code per path (the sweep's
  // rows one column a thread, border blocks point by point, no forms for
  // fewer registers), so that nvcc's time stays bounded.
  bool compact = false;
  // CUDA: the Reduce stage (a histogram) that the group's kernel counts each
  // point of its sink into, the sink then never stored; -1: none
  // (KernelEpilogue.h).
  int epilogue = -1;
  // Every read of the group's stages wraps (LANGUAGE.md §5), along every
  // dimension: each stage is periodic in its extent, so a member's region
  // may reach past the image and hold, at each position, the value at the
  // wrapped one. Members read with wrap join such a group
  // (FusionOptions::periodicGroups).
  bool periodic = false;
  bool fused() const { return !members.empty(); }
  // Whether the group's code is the tiled kernel: fused, or tiled alone.
  bool tiledKernel() const { return fused() || tiledAlone; }
  long long onChipBytes(const ir::Pipeline& p) const;
};

struct FusionOptions {
  bool fuse = true;
  std::set<int> fusedRanks = {2};  // fused code is generated for sinks of these ranks
  long long onChipBudget = 48 * 1024;
  std::vector<int> preferredTile = {32, 32};  // rows, columns for rank 2
  // Ranks whose tiles are chosen per group from its members' reach
  // (passes/TileShape.h, within shrinkTo bytes where one fits) rather than
  // from preferredTile.
  std::set<int> reachTiledRanks;
  // Lone stencils that read a neighbour are computed by the tiled kernel:
  // check-free interior blocks, several points a thread at rank 2, the tile
  // of their reach at the reachTiledRanks (a block's loads then share L1:
  // on the H100, a 27-point 3-D stencil 1.76x, a 9-point 4-D one 2.33x and a
  // 5-tap 1-D one 1.11x faster than the plain kernel; bench/gpu/zoo/RESULTS.md).
  bool tileLoneStencils = false;
  // Stages read with wrap join a group whose every read wraps
  // (FusionGroup::periodic): on the H100, the zoo's heat1d (8 steps on a
  // ring) 3.109 -> 0.912 ms, box5_wrap 0.416 -> 0.255 ms.
  bool periodicGroups = false;
  // When > 0: a member joins only while the group computes at most this many
  // operations a point (pointOperations, members and sink together): the
  // kernel's size, and nvcc's time, stay bounded (CUDA: kCudaMaxGroupOperations).
  int maxGroupOperations = 0;
  int compactOperations = 0;  // when > 0: groups above it are compact (CUDA: kCudaCompactOperations)
  bool inlineCheap = false;     // mark cheap members inlined (see above)
  // When > 0: after grouping, halve the tile (rows first, then columns) while
  // its tiles need more than this many bytes and it stays larger than the halo.
  long long shrinkTo = 0;
  // A member joins only while the tile shrinkTo would leave keeps half the
  // preferred tile's points: each member computes its halo again in every
  // tile (on the H100, a 32-stage chain of 3-tap stages 3.88 -> 1.72 ms,
  // 20 Perona-Malik steps 9.25 -> 6.75 ms; bench/gpu/zoo/RESULTS.md).
  bool keepHalfTile = false;
  // When > 0: a member joins only while the divisions and math calls
  // (costlyOperations) that the members' halos compute again stay at most
  // this many a point of the sink: each non-inlined member's region over the
  // tile, less one, times its own. Compute-heavy chains want shallow groups
  // (20 Perona-Malik steps, 4 divisions a step, on the H100: 2 steps a group
  // 4.20 ms, 3 4.32, 4 4.93, 5 6.01; bench/gpu/zoo/RESULTS.md).
  double maxRecomputedCostly = 0;
  // When > 0: a group with at least this many costly operations a point is
  // compact too (nvcc took 30 s on 7 full kernels of 3 of those steps each).
  int compactCostly = 0;
};

// Divisions, remainders, powers and math calls (but min, max, abs, fabs,
// floor, ceil and round) of one point of a piece: the operations that take
// many instructions each.
int costlyOperations(const ir::Piece& pc);

constexpr int kInlineOps = 4;
constexpr int kOnePassOps = 32;

// A computed stage of one piece that covers its whole extent, point by point
// (start 0, step 1); what may join a group.
bool isWholeStencil(const ir::Pipeline& p, const ir::Stage& s);

// A whole stencil whose valid box is its whole extent: it computes every
// point (none left 0).
bool coversWholeExtent(const ir::Pipeline& p, const ir::Stage& s);

// Whether a member is cheap to recompute where it is read: every read at
// offset 0 (its value at a point needs its producers at that point only)
// and at most kInlineOps operations (a math call counts as more). Shared by
// the CUDA planner below and the CPU backend's InlineMembers.
bool cheapPointwise(const ir::Piece& pc);

// Whether `e` is a read of its producer at the point being computed (offset
// 0 and scale 1 along every axis, from the first lattice dimension, no
// symbolic origin).
bool readsOwnPoint(const ir::Expr& e);

// Operations of one point of a piece: reads, unary and binary operations,
// selects and casts count one each, a math call kInlineOps + 1.
int pointOperations(const ir::Piece& pc);

// Whether `stage` is computed inside a fused group (never in memory), or is
// the sink of one or tiled alone (which writes every point of its extent,
// zeros included).
bool isFusedMember(const std::vector<FusionGroup>& groups, int stage);
bool isFusedSink(const std::vector<FusionGroup>& groups, int stage);

// Groups in an order where producers come first; every computed stage is the
// sink of exactly one group or a member of one. With `whyMaterialised`, its
// element s says why computed stage s is stored in memory rather than fused
// into the tiles of a consumer ("" for members and input stages).
std::vector<FusionGroup> planFusion(const ir::Pipeline& p, const FusionOptions& o,
                                    std::vector<std::string>* whyMaterialised = nullptr);

}  // namespace formac::passes
