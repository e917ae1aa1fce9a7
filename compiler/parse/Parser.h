// Parser: tokens -> AST (grammar/forma.ebnf). Hand-written recursive descent;
// each parse function carries the rule it implements. A syntax error names
// what was expected and what was found; the parser then skips to the end of
// that definition or statement and goes on, and throws all the errors of the
// file together (up to ErrorLog::kLimit) at the end.
#pragma once

#include <vector>

#include "lex/Token.h"
#include "parse/AST.h"

namespace formac {

// A Program ends with `return`; a Module (an imported file, LANGUAGE.md §7)
// may stop after its definitions.
enum class ParseAs { Program, Module };

ast::Program parse(const std::vector<Token>& tokens, ParseAs as = ParseAs::Program);

}  // namespace formac
