// The builder's nodes -> the front end's AST (ast::Program), as a Forma
// programmer would write the same pipeline: the stencils the program applies,
// one statement per stage the outputs need (a stencil result used once is a
// nested call), a point-wise expression over images as a stencil of its own,
// loops as `do ... while`. Every AST node carries the location of the host
// call that made it.
#pragma once

#include <memory>

#include "builder/Node.h"

namespace formac::builder {

// Throws UserError for what has no Forma spelling (a scalar expression
// returned as an output).
std::unique_ptr<ast::Program> toAst(const State& s);

}  // namespace formac::builder
