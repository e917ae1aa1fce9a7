#include "passes/Target.h"

namespace formac::passes {

FusionOptions Target::fusionOptions() const {
  FusionOptions fo;
  fo.fuse = fuse;
  if (kind == C) {
    fo.onChipBudget = 1LL << 40;  // tiles are sized at run time for the cache
    fo.preferredTile = {64, 64, 64, 512};  // planes, rows, columns: the last `rank` of these
    fo.fusedRanks = {1, 2, 3, 4};
  } else {
    fo.preferredTile = {32, 64};
    fo.onChipBudget = kCudaHopperSharedBytes;
    fo.shrinkTo = kCudaDefaultSharedBytes;
    fo.keepHalfTile = true;
    fo.inlineCheap = true;
    fo.fusedRanks = {1, 2, 3, 4};
    fo.reachTiledRanks = {1, 3, 4};
    fo.tileLoneStencils = true;
    fo.periodicGroups = true;
    fo.maxGroupOperations = kCudaMaxGroupOperations;
    fo.compactOperations = kCudaCompactOperations;
    fo.maxRecomputedCostly = kCudaMaxRecomputedCostly;
    fo.compactCostly = kCudaCompactCostly;
  }
  return fo;
}

}  // namespace formac::passes
