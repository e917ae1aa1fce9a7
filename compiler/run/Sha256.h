// SHA-256 of a byte string, as 64 lowercase hex digits: the key of the
// on-disk cache of compiled pipelines (CompileCache.h). No LLVM needed, so the
// CUDA backend can cache without it.
#pragma once

#include <string>

namespace formac::run {

std::string sha256Hex(const std::string& bytes);

}  // namespace formac::run
