// Lexer: source text -> tokens (LANGUAGE.md §1).
// Takes a SourceFile, returns the whole token list ending in Tok::End.
// Throws UserError on a bad character, an unterminated comment or a literal
// out of range.
#pragma once

#include <vector>

#include "lex/Token.h"

namespace formac {

std::vector<Token> lex(const SourceFile& file);

}  // namespace formac
