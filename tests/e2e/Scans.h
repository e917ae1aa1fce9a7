// The scan and sat programs of the e2e tests (LANGUAGE.md §7, Scans.cpp):
// every element type at ranks 1-4 along every dimension and sat, every result
// type, box filters reading a summed-area table at its corners, point-wise
// producers fused into the scan, sizes of one point, one line, primes and
// lines longer than 4096 points. The C suites (e2e_c_test's Scans/*) run
// them; a GPU bundle may take the same list.
#pragma once

#include <vector>

#include "CRunner.h"

namespace formac::e2e {

std::vector<ProgramCase> scanCases();

// The float and double ones again, on inputs with special values (NaN,
// infinities, -0, subnormals, extremes: Values.h), at fewer sizes.
std::vector<ProgramCase> scanSpecialValueCases();

}  // namespace formac::e2e
