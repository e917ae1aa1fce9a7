// Generated code as a sequence of tokens: runs of spaces and newlines become
// one space, so that a test's expected text does not depend on where the
// printer breaks long lines (codegen/LineWrap.h).
#pragma once
#include <string>

namespace formac {

inline std::string flat(const std::string& code) {
  std::string out;
  for (char c : code) {
    bool space = c == ' ' || c == '\n';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  return out;
}

}  // namespace formac
