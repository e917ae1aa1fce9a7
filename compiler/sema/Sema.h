// Sema: the AST -> the pipeline IR (compiler/ir/Pipeline.h).
//
// Resolves every name (stencils, vector functions, images, scalars,
// parameters, struct fields), types every expression by C's rules, computes
// extents as Sizes of the parameters, inlines stencil bodies and vector
// functions, unrolls `for` loops with indexed names, and checks single
// assignment and equal extents. Checks each definition, declaration and
// statement on its own and throws all the errors together (UserError::combined);
// adds warnings for legal but suspicious code.
#pragma once

#include <string>

#include "ir/Pipeline.h"
#include "parse/AST.h"

namespace formac {

ir::Pipeline buildPipeline(const ast::Program& program, const std::string& name,
                           Warnings& warnings);

}  // namespace formac
