// The C library headers the JIT compiles generated code against.
//
// Generated C includes <math.h>, <stdio.h>, <stdlib.h>, <string.h>,
// <unistd.h> and <omp.h> (a header it starts to include must be added here).
// The JIT does not read the system's headers (a machine without a C compiler
// may have none): it mounts these small declarations-only versions in
// Clang's in-memory file system instead. The functions are the C
// library's (glibc's: FILE, errno and the sysconf numbers are its) and
// libomp's own, found in the process when the code is linked.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace formac::run {

// (file name, contents), e.g. ("math.h", "...").
const std::vector<std::pair<std::string, std::string>>& jitHeaders();

}  // namespace formac::run
