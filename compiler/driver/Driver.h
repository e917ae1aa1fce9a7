// The formac driver: command-line options -> the compilation steps, as a list.
//
//   source --lex--> tokens --parse--> AST --buildPipeline--> IR --verify-->
//   --generateC / generateCuda--> files
//
// `--emit=STAGE` prints the named stage's dump and stops there. Returns the
// process exit status: 0, 1 for a user error, 70 for an internal error.
#pragma once

#include <string>
#include <vector>

namespace formac {

int runDriver(const std::vector<std::string>& args);

}  // namespace formac
