// The matrix programs that compute with values (not only move them) again,
// on inputs where about one element in eight is NaN, an infinity, -0, a
// subnormal or an extreme of its type (Values.h). Every backend must give
// the evaluator's bits there too (any NaN for a NaN).
#include <string>

#include "ProgramMatrix.h"

namespace formac::e2e {

std::vector<ProgramCase> specialValueCases() {
  static const char* const kFamilies[] = {"types_", "math_",     "casts_",   "ternary_", "unary_",
                                          "intdiv_", "pointwise_", "twoargs_", "fused_", "constdiv_",
                                          "wide_",  "reduce_"};
  std::vector<ProgramCase> out;
  for (ProgramCase c : matrixCases()) {
    bool chosen = false;
    for (const char* f : kFamilies) chosen = chosen || c.name.rfind(f, 0) == 0;
    if (!chosen) continue;
    c.name += "_special";
    c.specialValues = true;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace formac::e2e
