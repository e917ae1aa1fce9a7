#include "frontend/Frontend.h"

#include "ir/Verifier.h"
#include "sema/Sema.h"

namespace formac {

ir::Pipeline checkedPipeline(const SourceFile& source, const std::string& entryName, Warnings& warnings,
                             SourceFiles& imported, const std::vector<std::string>& importPath) {
  ir::Pipeline pipeline = buildPipeline(parseProgram(source, imported, importPath), entryName, warnings);
  ir::verify(pipeline);
  return pipeline;
}

}  // namespace formac
