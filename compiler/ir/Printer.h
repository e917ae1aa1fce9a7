// A stable text form of the pipeline IR (`formac --emit=dag`) and a Graphviz
// form (`--emit=dot`). Golden tests compare these.
#pragma once

#include <string>

#include "ir/Pipeline.h"

namespace formac::ir {

std::string printPipeline(const Pipeline& p);
// A group of stages drawn as one box (a fused kernel), labelled.
struct DotCluster {
  std::string label;
  std::vector<int> stages;
};
std::string printDot(const Pipeline& p, const std::vector<DotCluster>& clusters = {});
std::string printExpr(const Pipeline& p, const Expr& e);

}  // namespace formac::ir
