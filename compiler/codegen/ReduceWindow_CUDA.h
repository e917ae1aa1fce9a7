// The stencil inputs of a whole CUDA reduction, read a row window a lane.
//
// A whole (dim = -1) Reduce stage whose input body reads scalar producers of
// the domain's shape at constant offsets (a stencil: no index, no struct
// field, no scaled axis), not all at the point itself (those are
// ReduceFlat_CUDA.h's), takes `per` consecutive points a lane along the last
// dimension in a full, aligned chunk whose rows hold a multiple of `per`
// points. Where all 32 * per points of the warp lie in the box in which every
// read is in range, each row a producer is read at (an offset in the other
// dimensions) is one 16-byte load a lane (fewer bytes for narrower
// producers), and the neighbours along the row come from the adjacent lanes'
// loads by shuffles (from memory at the warp's two ends); the body is then
// computed for each point from registers. Elsewhere the points go one at a
// time with their boundary modes. The values and their order are those of
// the point-by-point loop: a floating sum's values pass through shared
// memory as ReduceFlat_CUDA's do, so that lane j adds the points k = j mod 32.
//
// The sum of a 3x3 blur loaded 9 values a point (L1 hits, one lane a point);
// here it loads 3 vectors and shuffles 6 values for 4 points.
#pragma once

#include <string>
#include <vector>

#include "codegen/Reduce_CUDA.h"

namespace formac::codegen {

struct WindowReads {
  // A row of a producer: the offsets along every dimension but the last,
  // and the range of offsets along the last.
  struct Row {
    int producer = -1;
    std::vector<int> outer;
    int lo = 0, hi = 0;
  };
  std::vector<Row> rows;
  int per = 0;  // points a lane (0: the body is no such stencil)
};

WindowReads windowReads(const ReduceCuda& r);

// An expression: every producer's pointer aligned to its load (per
// elements) and the last dimension's extent a multiple of per.
std::string windowAligned(const ReduceCuda& r, const WindowReads& w);

// The statement of chunkLoop's body for a chunk: when it is full and
// windowAligned (formac_aligned), per points a lane as above, each value
// passed to `add` (a statement using formac_v), through formac_mine when
// `ordered` (a floating sum); else `pointByPoint`.
Stmt windowChunk(const ReduceCuda& r, const WindowReads& w, bool ordered, const Stmt& add,
                 std::vector<Stmt> pointByPoint);

}  // namespace formac::codegen
