// IndexBounds: bounds of lattice indices as data (LoopNest's fast bounds,
// the fused CUDA kernels' boxes), printed as C once, folded where the terms
// allow. A bound is the greatest (a lower bound) or least (an upper bound)
// of its terms; a term is an integer, an extent plus a constant, or C text
// plus a constant.
#pragma once

#include <string>
#include <vector>

#include "ir/Size.h"

namespace formac::codegen {

struct IndexTerm {
  enum Kind { Integer, Extent, Text } kind = Integer;
  std::string base;  // Extent: the extent as C, parenthesised ("(M)"); Text: a C expression
  long long k = 0;   // added to the base (Integer: the value)
};

IndexTerm integerTerm(long long k);
// (extent) + k, `extent` as C.
IndexTerm extentTerm(const std::string& extent, long long k);
IndexTerm textTerm(const std::string& c);
// A size as a term: an integer, a parameter plus a constant, or text.
IndexTerm sizeTerm(const ir::Size& s, const std::vector<std::string>& paramNames);
// The term as LoopNest writes a single bound: an extent term as "(n) - 1 - a".
std::string termText(const IndexTerm& t);

struct IndexBound {
  std::vector<IndexTerm> terms;
  // The bound plus k (every term plus k).
  IndexBound shifted(long long k) const;
  // The greatest (lower bounds) or least of this bound's terms and b's.
  IndexBound& add(const IndexBound& b);
};

// The operands of max(terms...) as C: the integers folded into one, then the
// other terms (each once), in order.
std::vector<std::string> lowerOperands(const IndexBound& b);
// The operands of min(terms...) as C: the integers and texts (each once), then
// one term per extent (its least constant).
std::vector<std::string> upperOperands(const IndexBound& b);
// max(terms...) and min(terms...) as C, of the operands above.
std::string printLower(const IndexBound& b);
std::string printUpper(const IndexBound& b);

}  // namespace formac::codegen
