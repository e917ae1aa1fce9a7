#include "support/Suggest.h"

#include <algorithm>
#include <cctype>

namespace formac {
namespace {

// Optimal string alignment distance; case-insensitive.
size_t editDistance(const std::string& a, const std::string& b) {
  auto same = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  };
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                          d[i - 1][j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string didYouMean(const std::string& name, const std::vector<std::string>& candidates) {
  // Very long names (hostile input) are not compared: the table is quadratic.
  if (name.size() > 64) return "";
  size_t limit = name.size() <= 4 ? 1 : 2;
  const std::string* best = nullptr;
  size_t bestDistance = limit + 1;
  for (const auto& c : candidates) {
    if (c == name || c.size() > 64) continue;
    size_t d = editDistance(name, c);
    if (d < bestDistance) {
      bestDistance = d;
      best = &c;
    }
  }
  return best ? " (did you mean '" + *best + "'?)" : "";
}

}  // namespace formac
