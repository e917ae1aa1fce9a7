#include "run/CompileCache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "run/Sha256.h"

namespace formac::run {
namespace {

std::string envOr(const char* name, const std::string& otherwise) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : otherwise;
}

// mkdir -p; true when `dir` exists afterwards.
bool makeDirs(const std::string& dir) {
  if (dir.empty()) return false;
  for (size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    std::string part = dir.substr(0, slash);
    if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
    if (slash == std::string::npos) break;
  }
  struct stat st;
  return stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

CompileCache::CompileCache(std::string dir) : dir_(dir.empty() ? defaultDir() : std::move(dir)) {}

std::string CompileCache::defaultDir() {
  std::string dir = envOr("FORMAC_CACHE_DIR", "");
  if (!dir.empty()) return dir;
  std::string xdg = envOr("XDG_CACHE_HOME", "");
  if (!xdg.empty()) return xdg + "/formac";
  std::string home = envOr("HOME", "");
  return home.empty() ? std::string() : home + "/.cache/formac";
}

std::string CompileCache::pathFor(const std::string& key, const std::string& suffix) const {
  return dir_ + "/" + sha256Hex(key) + suffix;
}

bool CompileCache::load(const std::string& key, const std::string& suffix, std::string& bytes) const {
  if (dir_.empty()) return false;
  std::ifstream in(pathFor(key, suffix), std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return false;
  bytes = ss.str();
  return !bytes.empty();
}

bool CompileCache::store(const std::string& key, const std::string& suffix, const std::string& bytes) const {
  if (dir_.empty() || !makeDirs(dir_)) return false;
  std::string path = pathFor(key, suffix);
  std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return false;
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace formac::run
