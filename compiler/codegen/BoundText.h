// BoundText: bounds of index boxes as C expressions (the text LoopNest
// gives: integers, "(n) - 1 - k" forms, anything else), folded where the
// text allows: one integer for several integer bounds, one bound per extent.
#pragma once

#include <string>
#include <vector>

namespace formac::codegen {

// The bound `text` + k, in a form foldLower / foldUpper fold: an integer
// stays an integer, "(n) - 1 - a" (or "(n) - 3", "M - 1 + a") becomes
// "(n) - 1 - b"; other text gets " + k".
std::string shiftBound(const std::string& text, long long k);
// max(first, bounds...) with the integer bounds folded into one.
std::string foldLower(const std::string& first, const std::vector<std::string>& bounds);
// min(first, bounds...) with the bounds on one extent folded into one.
std::string foldUpper(const std::string& first, const std::vector<std::string>& bounds);

}  // namespace formac::codegen
