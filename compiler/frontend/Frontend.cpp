#include "frontend/Frontend.h"

#include "ir/Verifier.h"
#include "lex/Lexer.h"
#include "parse/Parser.h"
#include "sema/Sema.h"

namespace formac {

ir::Pipeline checkedPipeline(const SourceFile& source, const std::string& entryName,
                             Warnings& warnings) {
  ir::Pipeline pipeline = buildPipeline(parse(lex(source)), entryName, warnings);
  ir::verify(pipeline);
  return pipeline;
}

}  // namespace formac
