// How the stored stages of a fused CPU group (FusedTiles_C.h) slide down a
// band, from the reads of their consumers, and which of their reads the row
// functions serve through row (plane) pointers.
#pragma once

#include <map>

#include "ir/Pipeline.h"

namespace formac::codegen::fused_c {

// How a stored stage of the group slides down a band: at step y it computes
// its row y + lead (the sink's row is y), from the band's row t0 + first on,
// and keeps the last `ring` rows, enough for every read of its consumers,
// boundary modes included. Its columns (rank 3 and 4: its points along
// dimension 1; rank 1: its points) reach colLo and colHi beyond the strip.
struct Slide {
  int lead = 0, first = 0, ring = 1, colLo = 0, colHi = 0;
};

// Slides of the stored stages (`pieces`: the group's, members inlined), from
// the reads of their consumers. Rank 1 slides nowhere: every lead is 0.
std::map<int, Slide> slides(const std::map<int, ir::Piece>& pieces, int sink, int rank);

// No integer +, -, * or negation in the body: whether signed overflow wraps
// (the evaluator's semantics, gcc's wrapv) cannot change its values.
bool wrapFree(const ir::Piece& pc);

// A producer read through row (plane) pointers: every read of it is an
// ImageRead of an image of the group's rank indexed along every dimension.
bool rowReadable(const ir::Pipeline& p, const ir::Piece& pc, int producer, int rank);

// For each image in memory that a rank-2 group reads row by row (same extent
// as the sink, unit steps), how far ahead of the output row its newest row
// read is; -1 for images read otherwise (not prefetched). Empty for other
// ranks: a plane's rows are read one after another, and rank 1 has no rows
// to run ahead of.
std::map<int, int> inputReach(const ir::Pipeline& p, const std::map<int, ir::Piece>& pieces,
                              const std::map<int, Slide>& slide, int sink);

}  // namespace formac::codegen::fused_c
