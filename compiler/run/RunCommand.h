// `formac run`: compiles a Forma program in-process and runs it on image files.
//
//   formac run PROGRAM.idsl --input a.png [--input b.png ...] [--param NAME=VALUE ...]
//              --output out.png [--output out2.tif ...] [--gray] [--backend=jit|eval|cuda] [--verbose]
//
// One --output per value the program returns (`return a, b;`), in order.
//
// Takes the arguments after `run`; returns the exit status (0; 1 for a user
// error, with one message on stderr; 70 for an internal error). Prints one
// line of timing to stderr.
#pragma once

#include <string>
#include <vector>

namespace formac::run {

int runCommand(const std::vector<std::string>& args);
std::string runUsage();

}  // namespace formac::run
