// A stable text form of the AST (`formac --emit=ast`), one node per line,
// indented by depth. Golden tests compare it.
#pragma once

#include <string>

#include "parse/AST.h"

namespace formac::ast {

std::string printProgram(const Program& p);

}  // namespace formac::ast
