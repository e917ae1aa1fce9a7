// Which members of a fused CPU group are computed where they are read instead
// of being stored row by row (FusedTiles_C.h), and the stage bodies with those
// members written into their consumers:
//  - a pointwise member (it reads everything at offset 0) of at most
//    passes::kInlineOps operations is substituted at each read: Ixx = Ix*Ix
//    read by a 3x3 window becomes Ix@[a]*Ix@[a] at each offset a;
//  - a member computed on its whole extent and read by one consumer only, at
//    offset 0 only, becomes lets of that consumer (computed once per point):
//    canny's thin inside classify.
// Values do not change: the same operations run on the same operands.
#pragma once

#include <map>
#include <set>

#include "codegen/Naming.h"
#include "ir/Pipeline.h"
#include "passes/FusionPlan.h"

namespace formac::codegen {

struct InlinedGroup {
  std::set<int> inlined;            // members computed inside their consumers
  std::map<int, ir::Piece> pieces;  // every other stage of the group: its piece, members inlined
};

InlinedGroup inlineMembers(const ir::Pipeline& p, const Names& names, const passes::FusionGroup& g);

}  // namespace formac::codegen
