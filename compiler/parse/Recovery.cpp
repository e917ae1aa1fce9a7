#include "parse/Recovery.h"

namespace formac {

size_t nextItemAfterError(const std::vector<Token>& toks, size_t start, size_t errorAt) {
  Tok first = toks[start].kind;
  bool braced = first == Tok::KwStruct || first == Tok::KwStencil ||
                (first == Tok::KwVector && toks[start + 1].kind != Tok::Hash);
  int depth = 0;  // of braces, counted from the item's start
  for (size_t i = start;; ++i) {
    Tok k = toks[i].kind;
    bool past = i >= errorAt;
    if (k == Tok::End) return i;
    if (past && depth == 0 && i > start &&
        (k == Tok::KwStencil || k == Tok::KwStruct || k == Tok::KwParameter || k == Tok::KwReturn))
      return i;
    if (k == Tok::LBrace) ++depth;
    if (k == Tok::RBrace && --depth <= 0 && braced && past)
      return toks[i + 1].kind == Tok::Semi ? i + 2 : i + 1;
    if (k == Tok::Semi && depth <= 0 && past) return i + 1;
  }
}

}  // namespace formac
