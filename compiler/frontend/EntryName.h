// The generated entry point's name (LANGUAGE.md §7, "Entry-point names").
//
// The name is `--kernel-name` when given, else the source file's stem made a
// C identifier. The entry point is an external symbol next to the C library,
// libm, OpenMP and the CUDA runtime, so a stem that collides with one of
// their names (log.idsl, exp.idsl, main.idsl) becomes STEM_pipeline with a
// warning; an explicit name that collides is an error.
#pragma once

#include <string>

#include "support/Diagnostics.h"

namespace formac {

// Whether `name` is a keyword of C or C++, a function or object of the C
// library, libm, POSIX's unistd.h, OpenMP or CUDA, or one of formac's own
// generated names (formac_*, FORMAC_*): a name an external entry point must
// not take.
bool isExternalName(const std::string& name);

// `explicitName` when not empty (a UserError if it is not a C identifier or
// collides), else the stem of `sourcePath` ("pipeline" without one).
std::string entryPointName(const std::string& sourcePath, const std::string& explicitName,
                           Warnings& warnings);

}  // namespace formac
