// Where the parser goes on after a syntax error, so that one mistake gives
// one error and the file's other errors are still found.
#pragma once

#include <cstddef>
#include <vector>

#include "lex/Token.h"

namespace formac {

// The item (definition, declaration or statement) starting at token `start`
// has a syntax error at token `errorAt`. Returns the index of the token after
// the item: past the ';' that ends it (a definition: past the '}' closing its
// body, and a ';' after it), or at a keyword that only starts an item
// (stencil, struct, parameter, return) after the error; the End token when
// the file ends first.
size_t nextItemAfterError(const std::vector<Token>& toks, size_t start, size_t errorAt);

}  // namespace formac
