// The global operations of LANGUAGE.md §7 called at statement level
// (`m = max(img);`, `rows = sum(img, 1);`): what each name means and the IR
// stage each builds. A user's stencil or vector function of the same name
// wins (docs/language-decisions.md).
#pragma once

#include <optional>
#include <string>

#include "ir/Pipeline.h"

namespace formac::sema {

std::optional<ir::ReduceOp> reductionNamed(const std::string& fn);

// The Reduce stage of `op` over stage `src` (along `dim`, -1 for every
// point; a rank-1 image reduced along 0 gives the same scalar), named and
// numbered by the caller. `src` is a scalar image.
ir::Stage reductionStage(const ir::Pipeline& p, ir::ReduceOp op, int src, int dim, const SourceLoc& loc);

// The histogram stage of `src` (LANGUAGE.md §7): int64[bins] counting the
// values in [lo, hi).
ir::Stage histogramStage(const ir::Pipeline& p, int src, long long bins, double lo, double hi, const SourceLoc& loc);

// `where(mask, k)` / `topk(img, k)` (LANGUAGE.md §7): int64[k] of indices.
ir::Stage selectionStage(const ir::Pipeline& p, ir::ReduceOp op, int src, long long k, const SourceLoc& loc);

// `scan(src, dim[, type])`, or `sat(src[, type])` for dim = -1 (LANGUAGE.md
// §7): prefix sums in int64 or double, converted to `type` (default: the
// accumulation type).
ir::Stage scanStage(const ir::Pipeline& p, int src, int dim, std::optional<ScalarKind> type, const SourceLoc& loc);

// The rank-0 read of a scalar stage (a reduction), as a later stage reads it.
ir::ExprPtr scalarStageRead(const ir::Pipeline& p, int stage);

}  // namespace formac::sema
