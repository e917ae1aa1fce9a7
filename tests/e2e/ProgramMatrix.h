// The programs the e2e test runs, generated from templates.
//
// A covering set rather than the full cross product: every element type ×
// boundary mode at rank 2, every rank with float and a few modes, every
// construct with float and int8, each program run at awkward sizes (1x1, 1xN,
// Nx1, primes, smaller than the stencil's reach, offsets larger than the image,
// larger than a tile). The generated C is symbolic in the parameters, so one
// compiled program serves all its sizes.
#pragma once

#include <string>
#include <vector>

#include "CRunner.h"

namespace formac::e2e {

std::vector<ProgramCase> matrixCases();

// Matrix programs again (every type and boundary mode, the math, casts,
// ternaries, integer division, pointwise and two-argument programs) on
// inputs with special values (ProgramCase::specialValues), at fewer sizes.
std::vector<ProgramCase> specialValueCases();

// Scans and summed-area tables at sizes across the CUDA kernels' tiles
// (ScanTiles.cpp): in the GPU bundle, beside Scans.h's scanCases().
std::vector<ProgramCase> scanTileCases();

// Floating-point programs where a fused multiply-add would change the result.
std::vector<ProgramCase> contractionCases();

// Every tests/compat/*.idsl in `dir`, at its default sizes (13x17 per 2-D
// program) and a few awkward ones.
std::vector<ProgramCase> compatCases(const std::string& dir);

// The standard runs for a program with `params` parameters used as the
// extents of rank-`params` images.
std::vector<std::vector<long long>> standardRuns(size_t params);

}  // namespace formac::e2e
