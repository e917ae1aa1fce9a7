#include "codegen/LineWrap.h"

#include <vector>

namespace formac::codegen {
namespace {

// Whether a line is only comment text: it opens a block comment (or is
// `inside` one) and closes it at its end, if at all.
bool onlyComment(const std::string& line, bool inside) {
  size_t first = line.find_first_not_of(' '), close = line.find("*/");
  bool opens = first != std::string::npos && line.compare(first, 2, "/*") == 0;
  return (opens || inside) && (close == std::string::npos || close == line.size() - 2) &&
         line.find('"') == std::string::npos;
}

// Lines whose characters a break could change the meaning of (a string
// literal other than extern "C"'s, a comment).
bool untouchable(std::string line) {
  if (line.compare(0, 11, "extern \"C\" ") == 0) line.erase(0, 11);
  return line.find('"') != std::string::npos || line.find('\'') != std::string::npos ||
         line.find("//") != std::string::npos || line.find("/*") != std::string::npos ||
         line.find("*/") != std::string::npos;
}

// A space at which the line may break, how deeply nested it sits, and how
// well it reads there: 0 after a comma, 1 beside an operator, 2 between words.
struct Break {
  size_t at;
  int depth;
  int kind;
  bool before(const Break& o) const { return depth != o.depth ? depth < o.depth : kind <= o.kind; }
};

bool isOperator(char c) { return std::string("+-*/%<>=&|?:!^").find(c) != std::string::npos; }

// The spaces between tokens after the indentation, with their depth in
// parentheses and brackets.
std::vector<Break> breaks(const std::string& line, size_t indent) {
  std::vector<Break> b;
  int depth = 0;
  bool launch = false;  // within a kernel launch's <<<...>>>, which stays on one line
  for (size_t i = indent; i < line.size(); ++i) {
    char c = line[i];
    if (line.compare(i, 3, "<<<") == 0) launch = true;
    if (line.compare(i, 3, ">>>") == 0) launch = false;
    if (launch) continue;
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
    else if (c == ' ' && i + 1 < line.size() && line[i + 1] != ' ' && line[i - 1] != ' ')
      b.push_back({i, depth, line[i - 1] == ',' ? 0 : isOperator(line[i - 1]) || isOperator(line[i + 1]) ? 1 : 2});
  }
  return b;
}

// One line, broken greedily: each piece ends at the best break (Break::before)
// of the last half of the room it has, the rightmost of equals; else at the
// last break that fits, or the first past the width where none does.
std::string wrapLine(const std::string& line, size_t width, size_t deeper) {
  size_t indent = line.find_first_not_of(' ');
  if (indent == std::string::npos) return line;
  std::string cont(indent + deeper, ' ');
  std::vector<Break> b = breaks(line, indent);
  std::string out;
  size_t start = 0, used = 0;  // the piece starts at line[start]; used: columns before it
  size_t k = 0;
  while (used + (line.size() - start) > width) {
    size_t room = width > used ? width - used : 0, limit = start + room;
    size_t best = b.size();
    for (size_t j = k; j < b.size() && b[j].at <= limit; ++j) {
      if (b[j].at < start + room / 2) continue;
      if (best == b.size() || b[j].before(b[best])) best = j;
    }
    if (best == b.size()) {
      for (size_t j = k; j < b.size() && b[j].at <= limit; ++j) best = j;
      if (best == b.size()) {
        while (k < b.size() && b[k].at <= start) ++k;
        if (k == b.size()) break;
        best = k;
      }
    }
    if (b[best].at <= start) break;
    out += line.substr(start, b[best].at - start) + "\n" + cont;
    start = b[best].at + 1;
    used = cont.size();
    k = best + 1;
  }
  return out + line.substr(start);
}

}  // namespace

std::string wrapLongLines(const std::string& code, size_t width) {
  std::string out;
  out.reserve(code.size() + code.size() / 16);
  bool continued = false;  // the previous line ended a preprocessor line with '\'
  bool inComment = false;  // a block comment opened on an earlier line is still open
  size_t pos = 0;
  while (pos < code.size()) {
    size_t end = code.find('\n', pos);
    bool last = end == std::string::npos;
    std::string line = code.substr(pos, last ? std::string::npos : end - pos);
    size_t first = line.find_first_not_of(' ');
    bool directive = continued || (first != std::string::npos && line[first] == '#');
    continued = directive && !line.empty() && line.back() == '\\';
    bool comment = !directive && onlyComment(line, inComment);
    bool opens = comment && !inComment;
    if (line.size() <= width || directive) out += line;
    else if (comment) out += wrapLine(line, width, opens ? 3 : 0);  // continued under its text
    else if (!untouchable(line)) out += wrapLine(line, width, 4);
    else out += line;
    if (!directive) {
      size_t open = line.rfind("/*"), close = line.rfind("*/");
      if (open != std::string::npos && (close == std::string::npos || close < open)) inComment = true;
      else if (close != std::string::npos) inComment = false;
    }
    if (last) break;
    out += '\n';
    pos = end + 1;
  }
  return out;
}

}  // namespace formac::codegen
