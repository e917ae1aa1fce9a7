#include "parse/Modules.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <map>
#include <set>

#include "lex/Lexer.h"
#include "parse/Parser.h"

// Set by CMakeLists.txt; a build without them finds imports beside the file
// and along $FORMAC_IMPORT_PATH.
#ifndef FORMAC_INSTALL_DATADIR
#define FORMAC_INSTALL_DATADIR ""
#endif
#ifndef FORMAC_SOURCE_DIR
#define FORMAC_SOURCE_DIR ""
#endif

namespace formac {
namespace {

// Limits that keep a hostile program from exhausting time or memory.
constexpr long long kMaxImportBytes = 16 << 20;  // one imported file
constexpr size_t kMaxImportDepth = 100;           // a imports b imports c ...
constexpr size_t kMaxImportedFiles = 1000;

std::string directoryOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string joinPath(const std::string& dir, const std::string& rel) {
  if (dir.empty() || dir == ".") return rel;
  return dir.back() == '/' ? dir + rel : dir + "/" + rel;
}

std::string canonical(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) ? std::string(buf) : path;
}

// Reads an imported file. Anything but a regular file (a directory, /dev/zero,
// a FIFO) or one too large is an error; the file is opened without blocking and
// read up to the limit, so no import can hang formac.
std::unique_ptr<SourceFile> readImported(const std::string& path, const SourceLoc& at) {
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) userError(at, "cannot open '" + path + "'");
  struct Close {
    int fd;
    ~Close() { close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    userError(at, "cannot import '" + path + "': not a regular file");
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0) userError(at, "cannot read '" + path + "'");
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (static_cast<long long>(text.size()) > kMaxImportBytes)
      userError(at, "cannot import '" + path + "': larger than " +
                        std::to_string(kMaxImportBytes >> 20) + " MiB");
  }
  return std::make_unique<SourceFile>(SourceFile{path, std::move(text)});
}

// Where one definition (of any file) came from, by name.
struct Defined {
  std::string kind;  // "stencil", "vector function", "struct"
  SourceLoc loc;
};

class Loader {
 public:
  Loader(SourceFiles& files, const std::vector<std::string>& searchPath)
      : files_(files), searchPath_(searchPath) {}

  ast::Program run(const SourceFile& main) {
    ast::Program program = parse(lex(main), ParseAs::Program);
    ast::Program merged;
    stack_.push_back({canonical(main.path), main.path});
    importAll(program, main, merged);
    stack_.pop_back();
    errors_.throwIfAny();
    merged.imports = std::move(program.imports);
    addDefinitions(program, merged);
    errors_.throwIfAny();
    for (auto& d : program.params) merged.params.push_back(std::move(d));
    for (auto& d : program.inputs) merged.inputs.push_back(std::move(d));
    merged.stmts = std::move(program.stmts);
    merged.returnLoc = program.returnLoc;
    merged.results = std::move(program.results);
    return merged;
  }

 private:
  // The imports of `program` (read from `file`), depth first, into `merged`.
  void importAll(const ast::Program& program, const SourceFile& file, ast::Program& merged) {
    for (const auto& imp : program.imports) {
      try {
        importOne(imp, file, merged);
      } catch (const UserError& e) {
        errors_.add(e);
      }
    }
  }

  void importOne(const ast::Import& imp, const SourceFile& from, ast::Program& merged) {
    std::string path = resolve(imp, from);
    std::string key = canonical(path);
    for (size_t i = 0; i < stack_.size(); ++i) {
      if (stack_[i].canonical != key) continue;
      std::string cycle;
      for (size_t j = i; j < stack_.size(); ++j) cycle += "'" + stack_[j].shown + "' imports ";
      userError(imp.loc, "import cycle: " + cycle + "'" + path + "' again");
    }
    if (!done_.insert(key).second) return;  // imported once, however often it is named
    if (stack_.size() >= kMaxImportDepth)
      userError(imp.loc, "imports nested more than " + std::to_string(kMaxImportDepth) +
                             " files deep");
    if (files_.size() >= kMaxImportedFiles)
      userError(imp.loc, "more than " + std::to_string(kMaxImportedFiles) + " imported files");
    files_.push_back(readImported(path, imp.loc));
    const SourceFile& file = *files_.back();
    ast::Program module = parse(lex(file), ParseAs::Module);
    stack_.push_back({key, path});
    importAll(module, file, merged);
    stack_.pop_back();
    addDefinitions(module, merged);
  }

  // Beside the importing file, then along the search path.
  std::string resolve(const ast::Import& imp, const SourceFile& from) {
    if (imp.path[0] == '/') {
      if (access(imp.path.c_str(), F_OK) != 0) userError(imp.loc, "cannot find '" + imp.path + "'");
      return imp.path;
    }
    std::vector<std::string> dirs;
    dirs.push_back(from.path == "<memory>" ? "" : directoryOf(from.path));
    dirs.insert(dirs.end(), searchPath_.begin(), searchPath_.end());
    std::string looked;
    for (const auto& dir : dirs) {
      std::string candidate = joinPath(dir, imp.path);
      if (access(candidate.c_str(), F_OK) == 0) return candidate;
      looked += (looked.empty() ? "" : ", ") + (dir.empty() ? std::string(".") : dir);
    }
    userError(imp.loc, "cannot find '" + imp.path + "' (looked in " + looked + ")");
  }

  // Moves the definitions of `from` into `into`; a name another file defines is an error.
  void addDefinitions(ast::Program& from, ast::Program& into) {
    for (auto& s : from.structs)
      if (claim(structs_, "struct", s.name, s.loc)) into.structs.push_back(std::move(s));
    for (auto& s : from.stencils)
      if (claim(functions_, "stencil", s.name, s.loc)) into.stencils.push_back(std::move(s));
    for (auto& f : from.vectorFns)
      if (claim(functions_, "vector function", f.name, f.loc)) into.vectorFns.push_back(std::move(f));
  }

  // Records where `name` is defined. Two definitions in one file are Sema's to
  // report (with their lines); in two files, this reports them.
  bool claim(std::map<std::string, Defined>& names, const std::string& kind,
             const std::string& name, const SourceLoc& loc) {
    auto [it, fresh] = names.emplace(name, Defined{kind, loc});
    if (fresh || it->second.loc.file == loc.file) return true;
    const SourceLoc& other = it->second.loc;
    errors_.add(UserError(loc, kind + " '" + name + "' clashes with " + it->second.kind + " '" +
                                   name + "' defined at " + other.file->path + ":" +
                                   std::to_string(other.line)));
    return false;
  }

  SourceFiles& files_;
  const std::vector<std::string>& searchPath_;
  struct Open {
    std::string canonical, shown;
  };
  std::vector<Open> stack_;  // the files being imported, the main file first
  std::set<std::string> done_;
  std::map<std::string, Defined> structs_, functions_;
  ErrorLog errors_;
};

}  // namespace

ast::Program parseProgram(const SourceFile& main, SourceFiles& files,
                          const std::vector<std::string>& searchPath) {
  return Loader(files, searchPath).run(main);
}

std::vector<std::string> defaultImportPath() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("FORMAC_IMPORT_PATH")) {
    std::string list = env;
    for (size_t start = 0; start <= list.size();) {
      size_t colon = list.find(':', start);
      if (colon == std::string::npos) colon = list.size();
      if (colon > start) dirs.push_back(list.substr(start, colon - start));
      start = colon + 1;
    }
  }
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    std::string bin = directoryOf(std::string(exe, static_cast<size_t>(n)));
    dirs.push_back(joinPath(directoryOf(bin), "share/formac"));
  }
  for (const char* dir : {FORMAC_INSTALL_DATADIR, FORMAC_SOURCE_DIR})
    if (*dir) dirs.push_back(dir);
  return dirs;
}

}  // namespace formac
