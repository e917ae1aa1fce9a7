// Diagnostics: the two error channels of formac.
//
// User errors (bad programs, bad flags) are reported as
//   file:line:col: error: message
//   <source line>
//   <caret>
// and end compilation with exit status 1. Internal invariant failures are a
// separate channel ("internal error:", exit status 70). Nothing in the compiler
// calls exit() or abort(): errors travel as exceptions to the driver.
#pragma once

#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace formac {

// One loaded source file; locations point into it.
struct SourceFile {
  std::string path;
  std::string text;
  // Returns line `line` (1-based) without its newline.
  std::string lineText(int line) const;
};

struct SourceLoc {
  const SourceFile* file = nullptr;
  int line = 0;
  int col = 0;
  bool valid() const { return file != nullptr && line > 0; }
};

// A user-facing diagnostic rendered in the standard form.
std::string formatDiagnostic(const SourceLoc& loc, const std::string& severity,
                             const std::string& message);

// Thrown for a user error; carries the already-rendered diagnostic text.
class UserError : public std::runtime_error {
 public:
  UserError(const SourceLoc& loc, const std::string& message);
  explicit UserError(const std::string& message);  // no location (flags, files)
  // Several errors reported together: what() renders them all in order and,
  // when `truncated`, a last line saying that formac stopped there; loc() and
  // message() are the first error's.
  static UserError combined(const std::vector<UserError>& errors, bool truncated);
  const std::string& message() const { return message_; }
  SourceLoc loc() const { return loc_; }

 private:
  UserError(const std::string& rendered, const SourceLoc& loc, const std::string& message);
  SourceLoc loc_;
  std::string message_;
};

// Thrown when an invariant of the compiler itself is broken.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& what) : std::logic_error(what) {}
};

// Collects warnings (errors are thrown); the driver prints them.
class Warnings {
 public:
  void add(const SourceLoc& loc, const std::string& message);
  const std::vector<std::string>& rendered() const { return rendered_; }

 private:
  std::vector<std::string> rendered_;
};

// The errors of one phase (parse, sema), which recovers at statement and
// definition boundaries so that a file's errors are reported together.
class ErrorLog {
 public:
  static constexpr size_t kLimit = 20;
  // Records `e` (a diagnostic identical to one recorded is dropped); at the
  // kLimit-th error, throws them all.
  void add(const UserError& e);
  bool empty() const { return errors_.empty(); }
  // Throws every recorded error as one UserError, if there is any.
  void throwIfAny() const;

 private:
  std::vector<UserError> errors_;
};

[[noreturn]] void userError(const SourceLoc& loc, const std::string& message);

// Prints what a command threw and returns its exit status: 1 for a user
// error (or no memory), 70 for an internal error.
int reportFailure(std::exception_ptr failure);

// Runs a command's body; what it throws becomes its exit status.
template <typename Body>
int exitStatusOf(Body&& body) {
  try {
    return body();
  } catch (...) {
    return reportFailure(std::current_exception());
  }
}

}  // namespace formac

#define FORMAC_INTERNAL_CHECK(cond, msg)                                   \
  do {                                                                     \
    if (!(cond))                                                           \
      throw ::formac::InternalError(std::string(__FILE__) + ":" +          \
                                    std::to_string(__LINE__) + ": " + (msg)); \
  } while (0)
