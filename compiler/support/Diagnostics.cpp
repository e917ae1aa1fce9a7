#include "support/Diagnostics.h"

#include <iostream>

namespace formac {

std::string SourceFile::lineText(int line) const {
  // Columns count from after a UTF-8 byte-order mark (the lexer skips it).
  size_t pos = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  for (int l = 1; l < line && pos != std::string::npos; ++l) {
    pos = text.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  if (pos == std::string::npos || pos > text.size()) return "";
  size_t end = text.find('\n', pos);
  return text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
}

std::string formatDiagnostic(const SourceLoc& loc, const std::string& severity,
                             const std::string& message) {
  if (!loc.valid()) return "formac: " + severity + ": " + message + "\n";
  std::string out = loc.file->path + ":" + std::to_string(loc.line) + ":" +
                    std::to_string(loc.col) + ": " + severity + ": " + message + "\n";
  std::string line = loc.file->lineText(loc.line);
  // Keep diagnostics printable: replace control bytes, cut very long lines.
  if (line.size() > 200) line = line.substr(0, 200) + " ...";
  std::string caret;
  for (size_t i = 0; i < line.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if (c < 32 && c != '\t') line[i] = ' ';
    if (static_cast<int>(i) + 1 < loc.col) caret += (line[i] == '\t') ? '\t' : ' ';
  }
  out += line + "\n" + caret + "^\n";
  return out;
}

UserError::UserError(const SourceLoc& loc, const std::string& message)
    : std::runtime_error(formatDiagnostic(loc, "error", message)), loc_(loc), message_(message) {}

UserError::UserError(const std::string& message)
    : std::runtime_error(formatDiagnostic(SourceLoc{}, "error", message)), message_(message) {}

UserError::UserError(const std::string& rendered, const SourceLoc& loc, const std::string& message)
    : std::runtime_error(rendered), loc_(loc), message_(message) {}

UserError UserError::combined(const std::vector<UserError>& errors, bool truncated) {
  FORMAC_INTERNAL_CHECK(!errors.empty(), "no errors to combine");
  std::string text;
  for (const auto& e : errors) text += e.what();
  if (truncated)
    text += formatDiagnostic(SourceLoc{}, "error", "too many errors; stopped after " +
                                                       std::to_string(errors.size()));
  return UserError(text, errors.front().loc(), errors.front().message());
}

void ErrorLog::add(const UserError& e) {
  for (const auto& seen : errors_)
    if (std::string(seen.what()) == e.what()) return;
  errors_.push_back(e);
  if (errors_.size() >= kLimit) throw UserError::combined(errors_, true);
}

void ErrorLog::throwIfAny() const {
  if (!errors_.empty()) throw UserError::combined(errors_, false);
}

void Warnings::add(const SourceLoc& loc, const std::string& message) {
  rendered_.push_back(formatDiagnostic(loc, "warning", message));
}

void userError(const SourceLoc& loc, const std::string& message) { throw UserError(loc, message); }

int reportFailure(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const UserError& e) {
    std::cerr << e.what();
    return 1;
  } catch (const InternalError& e) {
    std::cerr << "formac: internal error: " << e.what() << "\n";
    return 70;
  } catch (const std::bad_alloc&) {
    std::cerr << "formac: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "formac: internal error: " << e.what() << "\n";
    return 70;
  } catch (...) {
    std::cerr << "formac: internal error: an unknown exception\n";
    return 70;
  }
}

}  // namespace formac
