// The front end as one call: source text -> a checked pipeline.
//
// lex -> parse -> sema -> verify, the sequence the driver, `formac run`, the
// C++ API, the tests and the fuzzer all run. Throws UserError for a bad
// program; warnings are added to `warnings`.
#pragma once

#include <string>

#include "ir/Pipeline.h"
#include "support/Diagnostics.h"

namespace formac {

// `source` must outlive the pipeline: its locations point into it.
ir::Pipeline checkedPipeline(const SourceFile& source, const std::string& entryName,
                             Warnings& warnings);

}  // namespace formac
