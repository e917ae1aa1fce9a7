// The `do` loop programs of the e2e tests (LANGUAGE.md §7, issue 29;
// Loops.cpp): loops that stop at round 1 (a fixed point at once, a condition
// never true), at the cap of a literal or a parameter (no round for a cap of
// 0 or less), at a fixed point after many rounds (a spiral whose fill crosses
// the image's fused tiles down and up, one point a round); empty images;
// several carried images of different types; bodies of rank 1 and 3, with
// reductions, scans, body images read by later body stages; integer and
// floating images. Each program also carries a round counter and returns it,
// so a wrong number of rounds shows in an output. The C suites (e2e_c_test's
// Loops/*, fused, and CBackendUnfused) run them; a GPU bundle may take the
// same list once the CUDA backend compiles loops.
#pragma once

#include <vector>

#include "CRunner.h"

namespace formac::e2e {

std::vector<ProgramCase> loopCases();

// A program of loopCases() whose first output is its round counter (every
// point holds the rounds that ran), with the rounds each run gives (the
// evaluator's value, which LoopRounds checks).
struct LoopRounds {
  const char* name;
  std::vector<long long> rounds;  // per run of the case; -1: an empty image, nothing to check
};
std::vector<LoopRounds> loopRounds();

}  // namespace formac::e2e
