// The C function of a Reduce stage (ir/Pipeline.h): parallel over chunks of
// ir::kSumChunk points, each reduced by one thread into a partial, the
// partials then combined, floating sums in ir's order (bit-identical to the
// evaluator), the rest in any order (their results do not depend on it).
#pragma once

#include <string>
#include <vector>

#include "codegen/Naming.h"
#include "codegen/Stmt.h"
#include "ir/Pipeline.h"

namespace formac::codegen {

struct ReduceFunctionC {
  const ir::Pipeline* pipeline = nullptr;
  const ir::Stage* stage = nullptr;  // a Reduce stage
  const Names* names = nullptr;
  bool openmp = true;
  std::string name;        // of the function
  std::vector<Param> params;  // its parameters; the last before the sizes is `formac_partials`
};

// The workspace scratch a Reduce stage needs: this many elements of
// reducePartialType (C expressions of the parameters).
std::string reducePartialCount(const ir::Pipeline& p, const Names& n, const ir::Stage& s);
std::string reducePartialType(const ir::Stage& s);

std::string emitReduceFunction(const ReduceFunctionC& f);

// A Reduce or Scan stage's input as a stage of its own, the shape LoopNest
// prints a point of: its extent is the reduced domain (the reduction and scan
// printers).
ir::Stage domainStage(const ir::Stage& s);

// A double constant as C reads it back exactly: "0.5", "(-3.0)".
std::string doubleLiteral(double v);

// `text` with `ind` before each line that is not empty.
std::string indent(const std::string& text, const std::string& ind);

// Helpers of every reduction (formac_sum_d, the floating min/max): printed
// once when a pipeline has reductions. `qualifier` as helperPrelude's.
std::string reducePrelude(const std::string& qualifier);

}  // namespace formac::codegen
