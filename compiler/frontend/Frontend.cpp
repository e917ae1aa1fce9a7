#include "frontend/Frontend.h"

#include "ir/Verifier.h"
#include "sema/Sema.h"

namespace formac {

ir::Pipeline checkedPipeline(const SourceFile& source, const std::string& entryName, Warnings& warnings,
                             SourceFiles& imported, const std::vector<std::string>& importPath) {
  return checkedPipeline(parseProgram(source, imported, importPath), entryName, warnings);
}

ir::Pipeline checkedPipeline(const ast::Program& program, const std::string& entryName, Warnings& warnings) {
  ir::Pipeline pipeline = buildPipeline(program, entryName, warnings);
  ir::verify(pipeline);
  return pipeline;
}

}  // namespace formac
