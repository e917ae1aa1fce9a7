// The on-disk cache of compiled pipelines (JIT objects and libraries, NVRTC modules).
//
// An entry is a file named by the SHA-256 of its key, where the key holds
// everything the compiled bytes depend on: the generated source, the target
// (triple, CPU, features), the compiler options and formac's version. The
// directory is $FORMAC_CACHE_DIR, else $XDG_CACHE_HOME/formac, else
// ~/.cache/formac. Entries are written to a temporary file and renamed, so a
// concurrent reader sees a whole entry or none. A cache that cannot be read
// or written is a miss, never an error.
#pragma once

#include <string>

namespace formac::run {

class CompileCache {
 public:
  // `dir` empty: the default directory above.
  explicit CompileCache(std::string dir = "");
  static std::string defaultDir();

  const std::string& dir() const { return dir_; }
  // The file that holds the entry for `key`, ending in `suffix` (".o").
  std::string pathFor(const std::string& key, const std::string& suffix) const;
  // True and the entry's bytes when present.
  bool load(const std::string& key, const std::string& suffix, std::string& bytes) const;
  // Stores an entry; returns false (and leaves no partial file) on failure.
  bool store(const std::string& key, const std::string& suffix, const std::string& bytes) const;

 private:
  std::string dir_;
};

}  // namespace formac::run
