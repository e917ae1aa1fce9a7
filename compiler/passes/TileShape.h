// TileShape: the tile of a fused CUDA group whose tile is not fixed per
// target (every rank but 2), chosen from its members' reach: of the tiles of
// power-of-two sides, each larger than every member's halo along it, rows
// (the last side) of at least kMinRowPoints, with
// kMinTilePoints to kMaxTilePoints points, the one that computes and reads
// the fewest points per point of the sink (the members' regions, the sink's
// tile, and the regions of the inputs that they read, over the tile), within
// `fastBytes` of shared memory where one fits, else within `budget`; ties go
// to the larger tile, then the longer rows.
#pragma once

#include <vector>

#include "passes/FusionPlan.h"

namespace formac::passes {

constexpr int kMinTilePoints = 256;   // a point for every thread of the block
constexpr int kMaxTilePoints = 8192;  // 32 points a thread
// A member is not fused where the best tile would compute and read more than
// this many points per point needed, for each tiled stage and input of the
// group (the halos' recomputation): a deeper chain costs more than the
// memory it saves.
constexpr double kMaxRecompute = 4.0;
// Rows of at least this many points (rank 2 and up): a half warp's loads of
// 4-byte elements fill two 32-byte sectors.
constexpr int kMinRowPoints = 16;

// The tile for group `g` (its members' halos set), or empty when none fits
// `budget` or every fitting tile recomputes more than kMaxRecompute.
std::vector<int> tileFromReach(const ir::Pipeline& p, const FusionGroup& g, long long fastBytes,
                               long long budget);

}  // namespace formac::passes
