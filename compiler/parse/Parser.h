// Parser: tokens -> AST (grammar/forma.ebnf). Hand-written recursive descent;
// each parse function carries the rule it implements. Throws UserError at the
// first syntax error, naming what was expected and what was found.
#pragma once

#include <vector>

#include "lex/Token.h"
#include "parse/AST.h"

namespace formac {

ast::Program parse(const std::vector<Token>& tokens);

}  // namespace formac
