// The C text generated files start with: the formac_* helpers that printed
// expressions call (ExprPrinter) and the program's struct definitions.
#pragma once

#include <string>

#include "ir/Pipeline.h"

namespace formac::codegen {

// The prelude of helpers generated code relies on (boundary resolution,
// integer division, min/max). `qualifier` is "static inline" or
// "static __host__ __device__ __forceinline__".
std::string helperPrelude(const std::string& qualifier, bool cuda);
// `prelude` (helperPrelude's text for `qualifier`) with only the helpers and
// FORMAC_ macros that `code` names, directly or through other kept helpers,
// and the comments before the kept ones (issue 25: harris.c carried 37
// helpers, 27 of them never called).
std::string usedHelpers(const std::string& prelude, const std::string& qualifier, const std::string& code);
// CUDA's formac_div_odd_f: a float divided by an odd integer constant, bit-equal
// to __fdiv_rn in three roundings; and formac_div_odd_finite_f, the same for a
// finite x in fewer instructions.
std::string divisionByOddConstant();
// The C file's threads (FORMAC_PRAGMA, the parallel-points threshold), its
// row functions' attributes and the zero-signed additions.
std::string cpuPrelude();
// The OpenMP clause that keeps a loop of `points` points (a C expression) on
// the calling thread below FORMAC_PARALLEL_POINTS (cpuPrelude defines it):
// "if (points >= FORMAC_PARALLEL_POINTS)".
std::string parallelIf(const std::string& points);
// formac_pow_d / formac_pow_f, CUDA's x ^ y (integer powers exact, as the evaluator's).
std::string integerPowers();
// Struct definitions, each guarded so a header and a .c may both carry them;
// for CUDA also a formac_make_NAME constructor per struct.
std::string structDefinitions(const ir::Pipeline& p, bool cuda);

}  // namespace formac::codegen
