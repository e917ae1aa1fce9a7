// The last step of printing C and CUDA: lines longer than a reader's screen are
// broken at spaces between tokens, preferring the shallowest nesting (after a
// comma, before an operator), and continued four columns deeper.
//
// Whitespace only: the compiler sees the same tokens in the same order.
// A line that is one block comment is continued under its text. Preprocessor
// lines and their continuations, and other lines holding a comment or a string
// or character literal, are left as they are.
#pragma once
#include <string>

namespace formac::codegen {

constexpr size_t kLineWidth = 100;

std::string wrapLongLines(const std::string& code, size_t width = kLineWidth);

}  // namespace formac::codegen
