// Command-line options of formac (Forma's flags keep working, LANGUAGE.md §6).
#pragma once

#include <string>
#include <vector>

namespace formac {

struct Options {
  std::string input;
  std::string emit;          // tokens|ast|dag|plan|dot|c|cuda; empty: by target
  std::string dumpAfter;     // a pass of passes::passList(), or "all"
  std::string target = "openmp";
  std::string output;        // -o / --c-output / --cuda-output
  std::string headerFile;
  std::string kernelName;
  bool printC = false, printCuda = false;
  bool noFuse = false;
  bool openmp = true;
  bool warnings = true;
  bool warningsAsErrors = false;
  bool help = false, version = false;
};

// Throws UserError for an unknown or malformed option.
Options parseOptions(const std::vector<std::string>& args);
std::string usage();

}  // namespace formac
