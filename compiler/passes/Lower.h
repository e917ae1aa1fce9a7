// Lower: the back end's passes as one list (Halide's Lower.cpp is the model).
//
// lower(pipeline, target) runs every pass of passList() in order on a copy of
// the checked pipeline and returns the lowered pipeline that the printers
// (codegen/) print without deciding anything the passes decide. The driver's
// --emit=plan prints the result (PlanPrinter.h), --dump-after=PASS the state
// after one pass.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/Pipeline.h"
#include "passes/FusionPlan.h"
#include "passes/LocalFixpoint.h"
#include "passes/Target.h"

namespace formac::passes {

struct LoweredPipeline {
  Target target;
  ir::Pipeline pipeline;             // the stages, as the passes left them
  bool planned = false;              // plan-fusion has run
  std::vector<FusionGroup> groups;   // producers first; every computed stage in one
  // Per stage id: why a computed stage is stored in memory rather than fused
  // into a consumer's tiles ("" for fused members and inputs).
  std::vector<std::string> whyMaterialised;
  // Per loop (the id of its first LoopResult stage): whether its rounds may
  // iterate inside tiles to a local fixed point (LocalFixpoint.h), and why.
  std::map<int, LocalFixpoint> localFixpoints;
};

struct Pass {
  const char* name;      // for --dump-after
  const char* contract;  // one sentence: what it guarantees afterwards
  void (*run)(LoweredPipeline&);
};

// The passes, in the order lower() runs them.
const std::vector<Pass>& passList();

// Runs every pass; `after` (if set) sees the lowered pipeline after each.
LoweredPipeline lower(const ir::Pipeline& p, const Target& target,
                      const std::function<void(const Pass&, const LoweredPipeline&)>& after = {});

}  // namespace formac::passes
