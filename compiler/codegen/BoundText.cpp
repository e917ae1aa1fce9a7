#include "codegen/BoundText.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace formac::codegen {
namespace {

bool parseInteger(const std::string& s, long long* v) {
  if (s.empty()) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t k = i; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return false;
  *v = std::stoll(s);
  return true;
}

// "(n) - 1 - a", "(n) - 3", "M - 1", "M" (LoopNest's upper bounds, foldUpper's
// and shiftBound's results) as n and the constant added to n.
bool parseShiftedExtent(const std::string& text, std::string* n, long long* add) {
  size_t end = 0;
  if (!text.empty() && text[0] == '(') {
    int depth = 0;
    for (size_t i = 0; i < text.size() && !end; ++i) {
      if (text[i] == '(') ++depth;
      if (text[i] == ')' && --depth == 0) end = i + 1;
    }
  } else {
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
    if (end == 0 || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  }
  if (!end) return false;
  long long k = 0;
  for (size_t i = end; i < text.size();) {
    if (text.size() - i < 4 || (text.compare(i, 3, " - ") != 0 && text.compare(i, 3, " + ") != 0)) return false;
    size_t j = i + 3;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    long long v;
    if (!parseInteger(text.substr(i + 3, j - i - 3), &v)) return false;
    k += text[i + 1] == '-' ? -v : v;
    i = j;
  }
  *n = text[0] == '(' ? text.substr(0, end) : "(" + text.substr(0, end) + ")";
  *add = k;
  return true;
}

// "n", "n + k" or "n - k".
std::string plusConstant(const std::string& n, long long k) {
  return k == 0 ? n : n + (k < 0 ? " - " + std::to_string(-k) : " + " + std::to_string(k));
}

}  // namespace

std::string shiftBound(const std::string& text, long long k) {
  long long v;
  if (parseInteger(text, &v)) return std::to_string(v + k);
  std::string n;
  long long add;
  if (parseShiftedExtent(text, &n, &add)) return plusConstant(n + " - 1", add + 1 + k);
  return plusConstant(text, k);
}

// max(first, bounds...) with the integer bounds folded into one.
std::string foldLower(const std::string& first, const std::vector<std::string>& bounds) {
  std::vector<std::string> all = {first};
  all.insert(all.end(), bounds.begin(), bounds.end());
  bool haveInt = false;
  long long best = 0;
  std::vector<std::string> rest;
  for (const auto& b : all) {
    long long v;
    if (parseInteger(b, &v)) {
      best = haveInt ? std::max(best, v) : v;
      haveInt = true;
    } else if (std::find(rest.begin(), rest.end(), b) == rest.end()) {
      rest.push_back(b);
    }
  }
  std::string t = haveInt ? std::to_string(best) : "";
  for (const auto& r : rest) t = t.empty() ? r : "formac_maxll(" + t + ", " + r + ")";
  return t;
}

// min(first, bounds...) with the bounds on one extent folded into one.
std::string foldUpper(const std::string& first, const std::vector<std::string>& bounds) {
  std::vector<std::string> all = {first};
  all.insert(all.end(), bounds.begin(), bounds.end());
  std::vector<std::string> extents, rest;
  std::map<std::string, long long> least;
  for (const auto& b : all) {
    std::string n;
    long long k;
    if (parseShiftedExtent(b, &n, &k)) {
      if (!least.count(n)) extents.push_back(n), least[n] = k;
      least[n] = std::min(least[n], k);
    } else if (std::find(rest.begin(), rest.end(), b) == rest.end()) {
      rest.push_back(b);
    }
  }
  std::string t;
  for (const auto& n : extents) rest.push_back(plusConstant(n, least[n]));
  for (const auto& r : rest) t = t.empty() ? r : "formac_minll(" + t + ", " + r + ")";
  return t;
}

}  // namespace formac::codegen
