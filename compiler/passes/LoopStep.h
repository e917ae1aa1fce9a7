// The step of a `do` loop that carries one image X: X<i>'s value at a point
// as one body, for the local fixed point's analysis and printers
// (LocalFixpoint.h).
//
// A body may compute X<i> through stages of its own (`n<i> = near(X<i-1>);
// X<i> = f(X<i-1>, n<i>);`). A stage that only X<i>, or other such stages,
// read, and only at the point they compute, is inlined: its lets and its value
// become lets of X<i>'s body, in the body's order, and its reads become reads
// of that let. The values are the same: the stage's body, with its
// conversion to the stage's type, evaluated at the same point.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ir/Pipeline.h"

namespace formac::passes {

// Whether `e` reads `producer` at the point computed (offset 0, scale 1).
bool readsAtCentre(const ir::Expr& e, int producer);

// Whether piece `pc` of a stage of extent `ext` computes every point.
bool wholeImage(const ir::Piece& pc, const std::vector<ir::Size>& ext, int params);

// X<i>'s body (stage `next` of `body`) with the stages inlined that the
// step computes for it; `others` are the stages the condition needs (kept,
// never inlined, never read by X<i>). False, with the reason, when some other
// body stage is not such a stage.
bool flattenStep(const ir::Pipeline& body, int next, const std::set<int>& others, ir::Body* out, std::string* why);

}  // namespace formac::passes
