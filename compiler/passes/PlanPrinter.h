// The lowered pipeline's plan as stable text (`formac --emit=plan`): per
// group its sink, tile, on-chip bytes and members with their halos and
// whether each is inlined, and why every stage in memory is there.
#pragma once

#include <string>

#include "passes/Lower.h"

namespace formac::passes {

std::string printPlan(const LoweredPipeline& l);

// The DAG in Graphviz's dot, each fused group a cluster (`formac --emit=dot`).
std::string printPlanDot(const LoweredPipeline& l);

}  // namespace formac::passes
