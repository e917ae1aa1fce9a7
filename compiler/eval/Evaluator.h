// The reference evaluator: runs a pipeline directly on host buffers.
//
// Slow, simple and obviously right; it defines what a program means
// (compiler/ir/Pipeline.h states the semantics) and is the oracle every
// backend is tested against. Arithmetic is done in the C types the IR records,
// in the IR's order, so results are bit-identical to the generated code.
// Two definitions where C leaves things undefined, shared with the backends:
// integer division and remainder by zero give 0; signed overflow wraps.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/Pipeline.h"

namespace formac::eval {

// An image in C layout (row-major, last dimension contiguous, structs with
// natural alignment).
struct Buffer {
  Type type;
  std::vector<long long> extent;
  std::vector<unsigned char> bytes;
  size_t elementCount() const;
};

struct Inputs {
  std::vector<long long> params;                // one per Pipeline::params
  std::vector<double> scalars;                  // one per Pipeline::scalars
  std::vector<const unsigned char*> images;     // one per input stage, in stage order
  std::vector<long long>* loopRounds = nullptr;  // if set: the rounds each do loop ran, appended in order
};

// Returns one buffer per Pipeline::outputs. Throws UserError if a size
// evaluates negative.
std::vector<Buffer> evaluate(const ir::Pipeline& p, const Inputs& in);

// Every operation whose operands are all constants replaced by its value,
// computed as evaluate() computes it, and locals that are constants by the
// constant (then dropped). The C backend folds before printing: gcc would
// otherwise fold them its own way (0.0 / 0.0 is +NaN folded, -NaN computed on
// x86; `2147483647 + 1` warns).
void foldConstants(ir::Body& b);
void foldConstants(ir::Pipeline& p);

// The sum of `x` in the order every backend follows (ir::kSumChunk).
double floatingSum(std::vector<double> x);

// The inclusive prefix sums of `x` in the order every backend follows
// (ir::kScanRun).
std::vector<double> floatingScan(const std::vector<double>& x);

// The index an out-of-range read resolves to (Clamped, Extend, Mirror, Wrap),
// or -1 when the read has no in-range source (None, Constant).
long long resolveIndex(long long i, long long n, ir::BoundaryMode mode);

}  // namespace formac::eval
