// The front end as one call: source text (or a built AST) -> a checked pipeline.
//
// parse (with its imports, parse/Modules.h) -> sema -> verify, the sequence
// the driver, `formac run`, the C++ API, the tests and the fuzzer all run.
// Throws UserError for a bad program (every error of the file, up to a
// limit); warnings are added to `warnings`.
#pragma once

#include <string>
#include <vector>

#include "ir/Pipeline.h"
#include "parse/Modules.h"
#include "support/Diagnostics.h"

namespace formac {

// `source` and `imported` (the files its imports read, found beside the
// importing file, then in `importPath`) must outlive the pipeline: its
// locations point into them.
ir::Pipeline checkedPipeline(const SourceFile& source, const std::string& entryName, Warnings& warnings,
                             SourceFiles& imported, const std::vector<std::string>& importPath);

// A program built without text (compiler/builder): sema -> verify, the same
// checks and messages as a parsed program's. Its locations' files must
// outlive the pipeline.
ir::Pipeline checkedPipeline(const ast::Program& program, const std::string& entryName, Warnings& warnings);

}  // namespace formac
