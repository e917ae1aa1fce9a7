// Checks the invariants of a pipeline before any backend runs: stage ids
// match positions, producers precede consumers, reads match their producer's
// rank and type, pieces are well formed, Lets are referenced after their
// definition. A failure is an internal error (the front end built bad IR).
#pragma once

#include "ir/Pipeline.h"

namespace formac::ir {

void verify(const Pipeline& p);

}  // namespace formac::ir
