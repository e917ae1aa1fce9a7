#include "codegen/IndexBounds.h"

#include <algorithm>
#include <map>

namespace formac::codegen {
namespace {

// "n", "n + k" or "n - k".
std::string plusConstant(const std::string& n, long long k) {
  return k == 0 ? n : n + (k < 0 ? " - " + std::to_string(-k) : " + " + std::to_string(k));
}

// The term as one operand of a fold (extents as "(n) - k").
std::string operand(const IndexTerm& t) {
  switch (t.kind) {
    case IndexTerm::Integer: return std::to_string(t.k);
    case IndexTerm::Extent:
    case IndexTerm::Text: return plusConstant(t.base, t.k);
  }
  return "";
}

// `first`, then formac_maxll / formac_minll of it and each of `rest` in turn.
std::string chain(const std::vector<std::string>& all, const char* fn) {
  std::string t;
  for (const auto& r : all) t = t.empty() ? r : std::string(fn) + "(" + t + ", " + r + ")";
  return t;
}

void addOnce(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

}  // namespace

IndexTerm integerTerm(long long k) { return IndexTerm{IndexTerm::Integer, "", k}; }
IndexTerm extentTerm(const std::string& extent, long long k) { return IndexTerm{IndexTerm::Extent, "(" + extent + ")", k}; }
IndexTerm textTerm(const std::string& c) { return IndexTerm{IndexTerm::Text, c, 0}; }

IndexTerm sizeTerm(const ir::Size& s, const std::vector<std::string>& paramNames) {
  long long v;
  if (ir::isConst(s, &v)) return integerTerm(v);
  long long k = 0;
  const ir::SizeNode* n = s.get();
  if ((n->kind == ir::SizeNode::Add || n->kind == ir::SizeNode::Sub) && ir::isConst(n->rhs, &v)) {
    k = n->kind == ir::SizeNode::Add ? v : -v;
    n = n->lhs.get();
  }
  if (n->kind == ir::SizeNode::Param) return extentTerm(paramNames[static_cast<size_t>(n->param)], k);
  return textTerm(ir::printSize(s, paramNames));
}

std::string termText(const IndexTerm& t) {
  return t.kind == IndexTerm::Extent ? plusConstant(t.base + " - 1", t.k + 1) : operand(t);
}

IndexBound IndexBound::shifted(long long k) const {
  IndexBound b = *this;
  for (auto& t : b.terms) t.k += k;
  return b;
}

IndexBound& IndexBound::add(const IndexBound& b) {
  terms.insert(terms.end(), b.terms.begin(), b.terms.end());
  return *this;
}

std::vector<std::string> lowerOperands(const IndexBound& b) {
  bool haveInt = false;
  long long best = 0;
  std::vector<std::string> all;
  for (const auto& t : b.terms)
    if (t.kind == IndexTerm::Integer) best = haveInt ? std::max(best, t.k) : t.k, haveInt = true;
  if (haveInt) all.push_back(std::to_string(best));
  for (const auto& t : b.terms)
    if (t.kind != IndexTerm::Integer) addOnce(all, operand(t));
  return all;
}

std::vector<std::string> upperOperands(const IndexBound& b) {
  std::vector<std::string> all, extents;
  std::map<std::string, long long> least;
  for (const auto& t : b.terms) {
    if (t.kind != IndexTerm::Extent) {
      addOnce(all, operand(t));
      continue;
    }
    auto [it, fresh] = least.emplace(t.base, t.k);
    if (fresh) extents.push_back(t.base);
    it->second = std::min(it->second, t.k);
  }
  for (const auto& n : extents) all.push_back(plusConstant(n, least[n]));
  return all;
}

std::string printLower(const IndexBound& b) { return chain(lowerOperands(b), "formac_maxll"); }
std::string printUpper(const IndexBound& b) { return chain(upperOperands(b), "formac_minll"); }

}  // namespace formac::codegen
