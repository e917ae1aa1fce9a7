// Helpers shared by the tests of compiler/run: files, commands, a scratch
// folder per test binary.
#pragma once

#include <string>

namespace formac::test {

struct CommandResult {
  int status = -1;     // the exit status
  std::string output;  // stdout and stderr together
};

// Runs `command` through the shell.
CommandResult runCommand(const std::string& command);
std::string readFile(const std::string& path);
void writeFile(const std::string& path, const std::string& text);
bool fileExists(const std::string& path);
// An empty folder (removed first if it exists).
void freshFolder(const std::string& path);
std::string quote(const std::string& s);

}  // namespace formac::test
