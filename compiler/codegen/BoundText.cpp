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

// "(n) - 1", "(n) - 1 - a" or "(n) - 1 + a" (LoopNest's upper bounds) as n and
// the constant added to n.
bool parseExtentBound(const std::string& text, std::string* n, long long* add) {
  std::string s = text;
  size_t space = s.find(' ');  // "M - 1": a parameter's last index
  if (space != std::string::npos && space > 0 && s[0] != '(' &&
      std::all_of(s.begin(), s.begin() + static_cast<long>(space), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }))
    s = "(" + s.substr(0, space) + ")" + s.substr(space);
  if (s.empty() || s[0] != '(') return false;
  int depth = 0;
  size_t close = 0;
  for (size_t i = 0; i < s.size() && !close; ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth == 0) close = i;
  }
  if (!close || s.compare(close, 5, ") - 1") != 0) return false;
  *n = s.substr(0, close + 1);
  std::string rest = s.substr(close + 5);
  long long k = 0;
  if (!rest.empty()) {
    if (rest.size() < 4 || (rest.compare(0, 3, " - ") != 0 && rest.compare(0, 3, " + ") != 0) ||
        !parseInteger(rest.substr(3), &k))
      return false;
    if (rest[1] == '-') k = -k;
  }
  *add = k - 1;
  return true;
}

}  // namespace

std::string plusConstant(const std::string& n, long long k) {
  return k == 0 ? n : n + (k < 0 ? " - " + std::to_string(-k) : " + " + std::to_string(k));
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
    if (parseExtentBound(b, &n, &k)) {
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
