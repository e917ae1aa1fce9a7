// Removing stages that nothing reads any more (a pass folded them into their
// readers), shared by the passes that fold stages into others.
#pragma once

#include <set>

#include "ir/Pipeline.h"

namespace formac::passes {

// Removes the stages in `dead` and renumbers the others' ids, reads, loop
// bindings, inputs and outputs. No stage that stays may read a dead one.
void removeStages(ir::Pipeline& p, const std::set<int>& dead);

}  // namespace formac::passes
