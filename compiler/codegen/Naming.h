// C names for a pipeline's stages, scalars and parameters, unique and clear
// of C keywords, the formac_ helpers and each other. Shared by the backends.
#pragma once

#include <string>
#include <vector>

#include "codegen/Stmt.h"
#include "ir/Pipeline.h"

namespace formac::codegen {

struct Names {
  std::vector<std::string> stage;   // by stage id
  std::vector<std::string> scalar;  // by scalar index
  std::vector<std::string> param;   // by param index
};

Names assignNames(const ir::Pipeline& p, const std::string& kernelName);

// The C parameter list of the Forma entry point (inputs in declaration
// order, int per parameter, one output pointer per result), and its
// argument list for a call that forwards the same names.
std::string entryParameters(const ir::Pipeline& p, const Names& n);
// Inputs then outputs, without the parameters (the workspace knows them).
std::vector<Param> runParams(const ir::Pipeline& p, const Names& n);
std::string runParameters(const ir::Pipeline& p, const Names& n);
std::string runArguments(const ir::Pipeline& p, const Names& n);
std::string createParameters(const ir::Pipeline& p, const Names& n);
std::string createArguments(const ir::Pipeline& p, const Names& n);
// Whether `name` occurs in `text` as a whole identifier.
bool mentions(const std::string& text, const std::string& name);
// `(void)name;` lines, at `indent`, for those of `names` that `body` does not
// mention outside its pragmas: parameters a function may leave unused, kept
// quiet for -Wunused without noise where they are read.
std::string unusedParameters(const std::vector<std::string>& names, const std::string& body,
                             const std::string& indent = "  ");
// Output `i`'s parameter name.
std::string outputName(const ir::Pipeline& p, size_t i);
// A comment line per output giving its element type and extent.
std::string outputExtentComment(const ir::Pipeline& p, const Names& n);

}  // namespace formac::codegen
