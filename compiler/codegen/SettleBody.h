// What the settling code of a monotone propagation (Settle_C.h,
// Settle_CUDA.h) shares: the body of X<i> printed as assignments to
// formac_v, and the parameters the printed code uses.
#pragma once

#include <string>
#include <vector>

#include "codegen/ExprPrinter.h"
#include "codegen/Naming.h"
#include "codegen/Stmt.h"
#include "ir/Pipeline.h"

namespace formac::codegen {

struct SettleParameters {
  std::vector<Param> list;                  // const short* k, int t, long long M (as the body names them)
  std::vector<int> reads, scalars, params;  // which of the loop's reads, scalars and parameters
  // The call's arguments: the outer names of those reads (in Loop::reads
  // order), scalars and parameters (by index).
  std::vector<std::string> arguments(const std::vector<std::string>& reads, const std::vector<std::string>& scalars,
                                     const std::vector<std::string>& params) const;
};

// The body's lets (`const T v_x = ...;`) and `formac_v = <result>;`, a line
// each, indented by `indent`.
std::string printSettleValue(const ir::Body& b, ExprContext& ctx, const std::string& indent);

// The loop's reads, scalars and parameters that `text` mentions (`bn`: the
// body's names); pointers get the printer's restrict when `restrictPointers`.
SettleParameters settleParameters(const ir::Loop& loop, const Names& bn, const std::string& text,
                                  bool restrictPointers);

}  // namespace formac::codegen
