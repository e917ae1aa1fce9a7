// Prints IR expressions as C (shared by the C/OpenMP and CUDA backends).
//
// A read prints as an index into its producer's buffer. Reads of the
// "checked" flavour resolve out-of-range indices by the read's boundary mode
// through the formac_* helpers of the generated prelude; "fast" reads index
// directly and are only emitted where the caller proved every read in range.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/Prelude.h"
#include "ir/Pipeline.h"

namespace formac::codegen {

struct ExprContext {
  const ir::Pipeline* pipeline = nullptr;
  std::vector<std::string> q;       // C names of the lattice indices
  std::vector<std::string> lets;    // C names of the body's Lets
  // The Lets' values, where known (parallel to `lets`; shorter: unknown).
  std::vector<const ir::Expr*> letValues;
  std::vector<std::string> params;  // C names of the parameters (for symbolic sizes)
  bool checked = true;              // border code: resolve boundary modes
  // C expression for the extent of stage `id` along `dim`.
  std::function<std::string(int id, int dim)> extent;
  // C name of the buffer of stage `id`.
  std::function<std::string(int id)> buffer;
  // C name of scalar input `i`.
  std::function<std::string(int i)> scalar;
  // CUDA flavour: C++ (no compound literals), and multiplications and
  // divisions that nvcc may not contract into fma whatever its flags.
  bool cuda = false;
  // When set, prints the access of producer `id` at the (already resolved)
  // per-dimension indices, instead of indexing its global buffer. Fused
  // kernels use it to read on-chip tiles.
  std::function<std::string(int id, const std::vector<std::string>& idx)> access;
  // When set and it gives text for a read, that text is the read's value (a
  // value the caller loaded already: the settling kernel's neighbourhood,
  // each point of it loaded once). Empty text: the read is printed as usual.
  std::function<std::string(const ir::Expr& read)> preloaded;
  // With `checked`: the producers whose out-of-range reads `access` resolves
  // itself (a tile whose halo holds the boundary's values), read unresolved.
  std::function<bool(int id)> resolved;
  // CUDA, check-free code: reads (ImageRead) whose value the caller has
  // checked is below 2^100 in magnitude (2^1000 for double), e.g. every
  // element of an input staged in shared memory. Then 2^k * x (0 <= k <= 20)
  // is exact, and s + 2^k * x is one correctly rounded fma: the same value.
  std::function<bool(const ir::Expr& read)> boundedRead;
  // When set, becomes true where a bound from boundedRead chose a form (an
  // fma, formac_div_odd_finite_f): printed without boundedRead, the text
  // would differ exactly when it is true.
  bool* boundedFormUsed = nullptr;
};

std::string printCExpr(const ir::Expr& e, const ExprContext& ctx);
std::string cLiteral(const ir::Expr& e);
// The C spelling of a type ("float", "struct rgb").
std::string cType(const Type& t);
// A C identifier made from `name` (letters, digits, '_').
std::string cIdentifier(const std::string& name);

}  // namespace formac::codegen
