// fold-crops: a stage that copies a box of another (`out = B[0..M-1, 0..N-1]`,
// or any read of B at the point plus constant offsets) computes B's points
// there itself, and B is removed, when nothing else reads B, B is one piece
// computed point by point (start 0, step 1) and B reads no computed stage of
// its own extent (which could fuse with B, but not with the crop): its body, with every read
// moved by the offsets, is evaluated at the same points of B, and those lie
// inside B's valid box (checked), so every value is the same. Pads computed
// and cropped away (a box filter from OpenCV's integral layout) then cost
// neither B's extra points nor the copy.
#pragma once

#include "ir/Pipeline.h"

namespace formac::passes {

void foldCrops(ir::Pipeline& p);

}  // namespace formac::passes
