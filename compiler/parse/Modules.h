// Modules (LANGUAGE.md §7, docs/language-decisions.md): a program with its
// imports. Lexes and parses the main file and, depth first, every file that
// `import "path";` names, and returns one Program: the imported structs,
// stencils and vector functions ahead of the main file's own definitions.
//
// An imported file contributes its definitions only; its own imports are
// followed (each file is read once, a cycle is an error), and its
// declarations, statements and `return`, if it has them, are ignored. A name
// defined in two files is an error naming both places. `import "P";` in file
// F looks for P beside F (text without a file: in the current directory),
// then in each directory of `searchPath`, in order.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "parse/AST.h"

namespace formac {

// The files a program was read from: its SourceLocs point into them, so they
// must outlive the Program.
using SourceFiles = std::vector<std::unique_ptr<SourceFile>>;

// `main` must outlive the result too (it is not copied into `files`).
ast::Program parseProgram(const SourceFile& main, SourceFiles& files,
                          const std::vector<std::string>& searchPath);

// Where imports are found after the importing file's directory: each
// directory of $FORMAC_IMPORT_PATH (':'-separated), then the directory that
// holds formac's installed stdlib/ (share/formac beside the executable's
// bin/, then the install prefix's), then the source tree's (a build tree's
// formac). `import "stdlib/gaussian3x3.idsl";` names a file of stdlib/.
std::vector<std::string> defaultImportPath();

}  // namespace formac
