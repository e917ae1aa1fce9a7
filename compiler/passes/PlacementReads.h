// placement-reads: a stage that places a whole image at an offset, zeros
// around it (`Z[1.., 1..] = img;`), is computed point by point over its whole
// extent as a read of that image at the shifted point with the constant-0
// border (`img@[-1,-1]` outside the image: 0), so it fuses like any stencil.
//
// The stage must be one piece of step 1 whose lattice is the read image's
// extent (every point of it computed), its body a read of that image at the
// lattice point (with no field), or a conversion of one; its points outside
// the lattice were 0 and a constant-0 read gives 0, converted as before. The
// values are the same at every point. Issue 28: OpenCV's integral layout,
// `Z[1.., 1..] = img; I = sat(Z);`, then scans img without storing Z.
#pragma once

#include "ir/Pipeline.h"

namespace formac::passes {

void placementReads(ir::Pipeline& p);

}  // namespace formac::passes
