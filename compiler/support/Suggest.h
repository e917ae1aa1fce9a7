// "did you mean 'gauss_x'?": the nearest known name to a misspelt one.
#pragma once

#include <string>
#include <vector>

namespace formac {

// " (did you mean 'x'?)" for the candidate closest to `name` by edit distance
// (insertions, deletions, substitutions, swaps of neighbours; case differences
// cost nothing), when it is close enough to be a typo: at most 1 edit for
// names of up to 4 letters, 2 for longer ones. Otherwise "". Ties go to the
// first candidate in the list.
std::string didYouMean(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace formac
