// Settle_C: the C of a `do` loop that is a monotone propagation
// (passes/LocalFixpoint.h): after round 1, the rounds run to their fixed point
// in place, point by point, from worklists.
//
// The image is cut into bands of rows. Round 1's changes queue the points
// that read them (first in, first out: with last in, first out a low value
// ran far ahead of the higher one that overtook it later; fill holes at 512²
// took 0.58 s against 55 ms); then the bands of one parity at a time (their neighbours
// idle, so no point is written while another thread reads it) pop points,
// recompute them with the loop's body and, where a value changes, queue the
// points that read it: in the band's own list, or in the list the band above
// or below is handed. Rounds of exchange repeat until no list holds a point.
// A point that holds a value the proof found stable (LocalFixpoint::stable:
// canny's 0 and 2) is never queued: it cannot change, and most of a changed
// edge's neighbours are such points (canny_opencv on the tiled camera at
// 4096², 2 threads: about 1.8x faster; bench/cpu/RESULTS.md).
#pragma once

#include <string>
#include <vector>

#include "codegen/Naming.h"
#include "codegen/SettleBody.h"
#include "ir/Pipeline.h"
#include "passes/LocalFixpoint.h"

namespace formac::codegen {

// The worklist type and its helpers, once per file that settles a loop.
std::string settlePreludeC();

struct SettleC {
  std::string function;    // the static functions
  SettleParameters takes;  // what the function takes after x and x0
};

// `name`(x, x0, <arguments>, &scratch, limit, &passes): 0 with the fixed
// point in x, or 1 (run the rounds one by one instead). `scratch`, a
// formac_settle_scratch of the workspace (zeroed at first, released by
// formac_settle_release), keeps the lists and marks between runs.
SettleC settleFunctionC(const ir::Loop& loop, const passes::LocalFixpoint& lf, const std::string& name, bool openmp);

}  // namespace formac::codegen
