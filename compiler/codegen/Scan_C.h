// The C function of a Scan stage (ir/Pipeline.h): one pass per dimension
// scanned (sat: the last first), each reading every point once and writing
// it once, floating sums in ir's order (bit-identical to the evaluator).
//
//  * A pass walks each line in runs of ir::kScanRun points: a run's points
//    are added sequentially (l) and written as E + l, E the run's carry; at
//    the end of a run its total joins a stack of the aligned groups completed
//    so far (equal sizes merge: the balanced trees of the order), whose
//    running sums give the next run's carry (formac_scan_d_push, the prelude).
//  * Along the last dimension the lines are contiguous: parallel over lines,
//    and over segments of kScanSegment points within a long line (the
//    segments' group sums first, then their carries, then the segments).
//  * Along an earlier dimension the lines are strided: a thread takes a block
//    of kScanLanes neighbouring lines and walks them together, one vector
//    operation per point row.
//  * A sat sweeps its last two dimensions at once (one read of the input,
//    one write of the result): integer sums row by row, a vector prefix of
//    the row plus the sums above it; floating ones in blocks of a run of 8
//    rows by a run of 8 columns, in the same order (codegen/README.md).
//  * The input piece's body (the fused producers) is evaluated in the first
//    pass; later passes read the stage's accumulator (the output itself when
//    its type is the accumulation type, else workspace scratch), and the
//    last pass converts to the stage's type as cast<T> does.
#pragma once

#include <string>
#include <vector>

#include "codegen/Naming.h"
#include "codegen/Stmt.h"
#include "ir/Pipeline.h"

namespace formac::codegen {

// The deepest carry stack: a line has fewer than 2^63 runs.
constexpr int kScanDepth = 64;

struct ScanFunctionC {
  const ir::Pipeline* pipeline = nullptr;
  const ir::Stage* stage = nullptr;  // a Scan stage
  const Names* names = nullptr;
  bool openmp = true;
  std::string name;        // of the function
  std::vector<Param> params;  // its parameters; the last before the sizes is `formac_scratch`
};

// "double" or "long long": the type sums accumulate in.
std::string scanAccumulatorType(const ir::Stage& s);
// The workspace scratch a Scan stage needs: this many elements of
// scanAccumulatorType (a C expression of the parameters).
std::string scanScratchCount(const Names& n, const ir::Stage& s);

std::string emitScanFunction(const ScanFunctionC& f);

// The points of a row an integer sat's sweep takes at a time
// (formac_sat_step_u and _ul: 64 bytes of sums).
constexpr int kSatLanesU = 16, kSatLanesUl = 8;

// The helpers of scans (ScanPrelude_C.cpp: the carry stacks formac_scan_*,
// the sweeps' formac_sat_step_* and formac_sat8_d_*): printed once when a
// pipeline has scans. `qualifier` as helperPrelude's.
std::string scanPrelude(const std::string& qualifier);

}  // namespace formac::codegen
