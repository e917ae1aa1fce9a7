#include "codegen/Naming.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

#include "codegen/ExprPrinter.h"
#include "codegen/Stmt.h"
#include "support/Diagnostics.h"

namespace formac::codegen {
namespace {

// C's and C++'s keywords (the CUDA file is C++), with C++'s alternative tokens.
bool isKeyword(const std::string& name) {
  static const std::set<std::string> words = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
      "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
      "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
      "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool", "_Complex",
      "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "catch", "char8_t",
      "char16_t", "char32_t", "class", "co_await", "co_return", "co_yield", "compl", "concept",
      "const_cast", "consteval", "constexpr", "constinit", "decltype", "delete", "dynamic_cast",
      "explicit", "export", "false", "friend", "mutable", "namespace", "new", "noexcept", "not",
      "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
      "reinterpret_cast", "requires", "static_assert", "static_cast", "template", "this",
      "thread_local", "throw", "true", "try", "typeid", "typename", "using", "virtual", "wchar_t",
      "xor", "xor_eq", "bool"};
  return words.count(name) > 0;
}

// Names a user's image, scalar or parameter cannot keep (beside the keywords):
// what the generated code calls or declares in the scopes those names are
// printed in.
const std::set<std::string>& reserved() {
  static const std::set<std::string> words = {
      "output", "ws", "main",
      "abs", "sqrt", "exp", "log", "pow", "sin", "cos", "tan", "atan", "atan2", "fabs", "floor",
      "ceil", "round", "min", "max", "memset", "memcpy", "malloc", "calloc", "free", "size_t",
      "std",
      // CUDA's built-in variables and types the kernels use, the device
      // functions they call, and the scan kernels' accumulator type A_
      "blockIdx", "threadIdx", "blockDim", "gridDim", "warpSize", "atomicAdd", "atomicMax",
      "atomicMin", "atomicCAS", "atomicOr", "atomicExch", "A_",
      // What the generated code calls or declares next to the names given here:
      // the C library, the float math functions, the entry point's locals and
      // the workspace's members.
      "stderr", "stdout", "stdin", "fprintf", "printf", "fopen", "fclose", "fscanf", "FILE",
      "NULL", "EOF", "errno", "memmove", "sqrtf", "expf", "logf", "powf", "sinf", "cosf",
      "tanf", "atanf", "atan2f", "fabsf", "floorf", "ceilf", "roundf", "cached", "unused",
      "border_end", "period", "scratch", "scratch_stride", "nthreads",
      // locals of the fused loops (FusedTiles_C) and the CUDA kernels and run()
      "a", "b", "v", "z", "i", "t0", "t1", "t2", "t3", "TH", "TW", "tile", "tiles0", "tiles1", "mine",
      "row", "rest", "outer_count", "checked_end", "fast_end", "fast_row", "fast_start", "end",
      "tid", "nx", "ny", "nz", "tiles",
      "grid", "block", "rows", "cols", "w", "h", "budget", "dim3", "r", "c", "int_index", "device",
      "shared_optin", "stream",
      // the CUDA kernels' index type
      "I"};
  return words;
}

// Object-like macros of the headers the generated code (and a caller's code
// around its header) includes: math.h (INFINITY, NAN, M_PI, FP_NAN...),
// stdio.h, stdlib.h, unistd.h, limits.h, stdint.h, float.h, omp.h. A name
// of theirs would be replaced by the preprocessor: `int* restrict INFINITY`.
bool isHeaderMacro(const std::string& name) {
  static const std::set<std::string> words = {
      "AIO_PRIO_DELTA_MAX", "BC_BASE_MAX", "BC_DIM_MAX", "BC_SCALE_MAX", "BC_STRING_MAX",
      "BIG_ENDIAN", "BOOL_MAX", "BOOL_WIDTH", "BUFSIZ", "BYTE_ORDER", "CHARCLASS_NAME_MAX",
      "CLOSE_RANGE_CLOEXEC", "CLOSE_RANGE_UNSHARE", "COLL_WEIGHTS_MAX", "DECIMAL_DIG",
      "DELAYTIMER_MAX", "EOF", "EXIT_FAILURE", "EXIT_SUCCESS", "EXPR_NEST_MAX", "FD_SETSIZE",
      "FILENAME_MAX", "FOPEN_MAX", "F_LOCK", "F_OK", "F_TEST", "F_TLOCK", "F_ULOCK",
      "HOST_NAME_MAX", "INFINITY", "IOV_MAX", "LINE_MAX", "LITTLE_ENDIAN", "LOGIN_NAME_MAX",
      "L_INCR", "L_SET", "L_XTND", "L_ctermid", "L_cuserid", "L_tmpnam", "MATH_ERREXCEPT",
      "MATH_ERRNO", "MAXFLOAT", "MAX_CANON", "MAX_INPUT", "MB_CUR_MAX", "MB_LEN_MAX",
      "MQ_PRIO_MAX", "NAME_MAX", "NAN", "NFDBITS", "NGROUPS_MAX", "NL_ARGMAX", "NL_LANGMAX",
      "NL_MSGMAX", "NL_NMAX", "NL_SETMAX", "NL_TEXTMAX", "NULL", "NZERO", "PATH_MAX",
      "PDP_ENDIAN", "PIPE_BUF", "PTHREAD_DESTRUCTOR_ITERATIONS", "PTHREAD_KEYS_MAX",
      "PTHREAD_STACK_MIN", "P_tmpdir", "RAND_MAX", "RENAME_EXCHANGE", "RENAME_NOREPLACE",
      "RENAME_WHITEOUT", "RE_DUP_MAX", "RTSIG_MAX", "R_OK", "SEEK_CUR", "SEEK_DATA", "SEEK_END",
      "SEEK_HOLE", "SEEK_SET", "SEM_VALUE_MAX", "SNAN", "SNANF", "SNANL", "SSIZE_MAX",
      "STDERR_FILENO", "STDIN_FILENO", "STDOUT_FILENO", "TMP_MAX", "TTY_NAME_MAX", "WCONTINUED",
      "WEXITED", "WNOHANG", "WNOWAIT", "WORD_BIT", "WSTOPPED", "WUNTRACED", "W_OK",
      "XATTR_LIST_MAX", "XATTR_NAME_MAX", "XATTR_SIZE_MAX", "X_OK", "math_errhandling", "stderr",
      "stdin", "stdout", "errno", "assert", "offsetof", "linux", "unix", "i386"};
  if (words.count(name)) return true;
  // Families: math constants (M_PI, M_PIl ...), classification (FP_NAN),
  // HUGE_VAL*, SNAN*, the limits of limits.h, stdint.h and float.h, OpenMP's
  // KMP_*, and C's reserved `_X...`.
  for (const char* prefix : {"M_", "FP_", "HUGE_VAL", "SNAN", "FLT", "DBL_", "LDBL_", "KMP_", "SIZE_",
                             "PTRDIFF_", "SIG_ATOMIC", "WCHAR_", "WINT_", "SCHAR_", "UCHAR_", "CHAR_",
                             "SHRT_", "USHRT_", "LONG_", "ULONG_", "LLONG_", "ULLONG_"})
    if (name.rfind(prefix, 0) == 0) return true;
  if ((name.rfind("INT", 0) == 0 || name.rfind("UINT", 0) == 0) && name.find('_') != std::string::npos)
    return true;
  return name.size() > 1 && name[0] == '_' && isupper(static_cast<unsigned char>(name[1]));
}

bool digitsFrom(const std::string& s, size_t at) {
  if (at >= s.size()) return false;
  for (size_t i = at; i < s.size(); ++i)
    if (!isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// Names in the generated code's own namespaces: helpers and macros
// (formac_*, FORMAC_*), implementation names (__*), OpenMP (omp_*), the CUDA
// runtime (cuda*, CUDA*) and CUDA's vector types (float4, int2 ...), the
// kernel's functions (K_*), stencil locals (v_*), and the loop indices and
// bounds of a loop nest (q0, lo0, hi0, fast_lo0, fast_hi0) and the outputs
// (output0, output1, ...).
// CUDA's vector types: float4, int2, uchar4, longlong2, double3 ... (no
// std::regex: in a process that loaded another libstdc++ first, as Python
// with torch does, its locale facets crash).
bool isCudaVectorType(const std::string& name) {
  if (name.size() < 2 || name.back() < '1' || name.back() > '4') return false;
  std::string base = name.substr(0, name.size() - 1);
  if (base == "float" || base == "double") return true;
  if (base[0] == 'u') base = base.substr(1);
  for (const char* t : {"char", "short", "int", "long", "longlong"})
    if (base == t) return true;
  return false;
}

bool inGeneratedNamespace(const std::string& name, const std::string& kernelName) {
  if (isHeaderMacro(name)) return true;
  for (const char* prefix : {"formac_", "FORMAC_", "__", "omp_", "v_", "tile_", "d_", "bytes", "cuda", "CUDA"})
    if (name.rfind(prefix, 0) == 0) return true;
  if (isCudaVectorType(name)) return true;
  if (name.rfind(kernelName + "_", 0) == 0) return true;
  for (const char* stem : {"q", "lo", "hi", "fast_lo", "fast_hi", "output", "tile_rows", "tile_cols"}) {
    std::string st = stem;
    if (name.rfind(st, 0) == 0 && digitsFrom(name, st.size())) return true;
  }
  return false;
}

// The name a stage's code goes by: its own, or, for a stage the program does
// not name (sema calls it _t<id>), the function it applies ("response" for
// `return response(sxx, syy, sxy, k);`), else "t<id>".
std::string readableName(const ir::Stage& s) {
  const std::string& n = s.name;
  if (n.size() <= 2 || n.compare(0, 2, "_t") != 0 || !digitsFrom(n, 2)) return n;
  size_t end = 0;
  while (end < s.origin.size() && (std::isalnum(static_cast<unsigned char>(s.origin[end])) || s.origin[end] == '_'))
    ++end;
  if (end > 0 && end < s.origin.size() && s.origin[end] == '(' &&
      !std::isdigit(static_cast<unsigned char>(s.origin[0])))
    return s.origin.substr(0, end);
  return n.substr(1);
}

// A struct's name and its fields' are printed as the program writes them
// (the header declares the struct for the caller's code), so they must be
// names that C, C++ and the generated code leave free: no keyword, no macro
// of the headers, no CUDA vector type, none of the generated code's struct
// tags (formac_*, KERNEL_workspace ...).
void checkStructNames(const ir::Pipeline& p, const std::string& kernelName) {
  for (const auto& s : p.structs) {
    if (s->builtinCuda) continue;
    auto check = [&](const std::string& n, bool tag, const std::string& what) {
      std::string why;
      if (isKeyword(n))
        why = "a C or C++ keyword";
      else if (isHeaderMacro(n))
        why = "a macro of the C headers the generated code includes";
      else if (tag && isCudaVectorType(n))
        why = "a CUDA vector type (declare it as `struct " + n + ";`)";
      else if (tag && (n.rfind("formac_", 0) == 0 || n.rfind(kernelName + "_", 0) == 0))
        why = "spelled like the generated code's own names (formac_*, " + kernelName + "_*)";
      if (!why.empty()) throw UserError(s->loc, "'" + n + "' is " + why + " and cannot name " + what);
    };
    check(s->name, true, "a struct");
    for (const auto& f : s->fields) check(f.name, false, "a field of struct '" + s->name + "'");
  }
}

}  // namespace

Names assignNames(const ir::Pipeline& p, const std::string& kernelName) {
  checkStructNames(p, kernelName);
  Names n;
  std::set<std::string> taken = reserved();
  taken.insert(kernelName);
  // Prefixing "v" leaves those namespaces within a few steps (v_x -> vv_x),
  // also for the numbered candidates (a taken `v` tries v_2 -> vv_2).
  auto clear = [&](std::string name) {
    while (inGeneratedNamespace(name, kernelName)) name = "v" + name;
    return name;
  };
  auto claim = [&](std::string base) {
    base = clear(cIdentifier(base));
    std::string name = base;
    for (int k = 2; taken.count(name) || isKeyword(name); ++k) name = clear(base + "_" + std::to_string(k));
    taken.insert(name);
    return name;
  };
  for (const auto& prm : p.params) n.param.push_back(claim(prm.name));
  for (const auto& s : p.scalars) n.scalar.push_back(claim(s.name));
  for (const auto& s : p.stages) n.stage.push_back(claim(readableName(s)));
  return n;
}

std::string outputName(const ir::Pipeline& p, size_t i) {
  return p.outputs.size() == 1 ? "output" : "output" + std::to_string(i);
}

static std::string inputParameters(const ir::Pipeline& p, const Names& n) {
  std::string t;
  for (const auto& in : p.inputs) {
    if (!t.empty()) t += ", ";
    if (in.kind == ir::EntryArg::Image)
      t += cType(p.stages[static_cast<size_t>(in.index)].type) + "* " + n.stage[static_cast<size_t>(in.index)];
    else
      t += std::string(scalarCType(p.scalars[static_cast<size_t>(in.index)].type)) + " " +
           n.scalar[static_cast<size_t>(in.index)];
  }
  return t;
}

static std::string outputParameters(const ir::Pipeline& p) {
  std::string t;
  for (size_t i = 0; i < p.outputs.size(); ++i)
    t += (i ? ", " : "") + cType(p.stages[static_cast<size_t>(p.outputs[i])].type) + "* " +
         outputName(p, i);
  return t;
}

std::string entryParameters(const ir::Pipeline& p, const Names& n) {
  std::string t = inputParameters(p, n);
  for (const auto& prm : n.param) t += (t.empty() ? "" : ", ") + std::string("int ") + prm;
  return t + (t.empty() ? "" : ", ") + outputParameters(p);
}

std::vector<Param> runParams(const ir::Pipeline& p, const Names& n) {
  std::vector<Param> t;
  for (const auto& in : p.inputs)
    if (in.kind == ir::EntryArg::Image)
      t.push_back(Param{cType(p.stages[static_cast<size_t>(in.index)].type) + "*", n.stage[static_cast<size_t>(in.index)]});
    else
      t.push_back(Param{scalarCType(p.scalars[static_cast<size_t>(in.index)].type), n.scalar[static_cast<size_t>(in.index)]});
  for (size_t i = 0; i < p.outputs.size(); ++i)
    t.push_back(Param{cType(p.stages[static_cast<size_t>(p.outputs[i])].type) + "*", outputName(p, i)});
  return t;
}

std::string runParameters(const ir::Pipeline& p, const Names& n) { return printerFor(false).params(runParams(p, n)); }

std::string runArguments(const ir::Pipeline& p, const Names& n) {
  std::string t;
  for (const auto& in : p.inputs)
    t += (t.empty() ? "" : ", ") +
         (in.kind == ir::EntryArg::Image ? n.stage[static_cast<size_t>(in.index)]
                                         : n.scalar[static_cast<size_t>(in.index)]);
  for (size_t i = 0; i < p.outputs.size(); ++i) t += (t.empty() ? "" : ", ") + outputName(p, i);
  return t;
}

std::string createParameters(const ir::Pipeline& p, const Names& n) {
  std::string t;
  for (const auto& prm : n.param) t += (t.empty() ? "" : ", ") + std::string("int ") + prm;
  (void)p;
  return t.empty() ? "void" : t;
}

std::string createArguments(const ir::Pipeline& p, const Names& n) {
  std::string t;
  for (const auto& prm : n.param) t += (t.empty() ? "" : ", ") + prm;
  (void)p;
  return t;
}

std::string outputExtentComment(const ir::Pipeline& p, const Names& n) {
  std::string t;
  for (size_t i = 0; i < p.outputs.size(); ++i) {
    const ir::Stage& s = p.stages[static_cast<size_t>(p.outputs[i])];
    if (s.rank() == 0) {
      t += "/* " + outputName(p, i) + ": one " + cType(s.type) + " (" + s.origin + ") */\n";
      continue;
    }
    t += "/* " + outputName(p, i) + ": " + cType(s.type) + "[";
    for (int d = 0; d < s.rank(); ++d)
      t += (d ? "][" : "") + ir::printSize(s.extent[static_cast<size_t>(d)], n.param);
    t += "] (row-major, last index contiguous) */\n";
  }
  return t;
}

bool mentions(const std::string& text, const std::string& name) {
  auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1))
    if ((at == 0 || !part(text[at - 1])) && (at + name.size() == text.size() || !part(text[at + name.size()])))
      return true;
  return false;
}

std::string unusedParameters(const std::vector<std::string>& names, const std::string& body,
                             const std::string& indent) {
  // What the compiler reads as code: not comments ("/* A run: ... */"), not
  // string literals, not pragmas (num_threads(nthreads) vanishes in a build
  // without OpenMP). One pass over the body, looking each identifier up among
  // the names (a search of the whole text per name is quadratic in a long
  // pipeline).
  std::set<std::string_view> unread(names.begin(), names.end());
  auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  const size_t n = body.size();
  bool lineStart = true;
  for (size_t i = 0; i < n && !unread.empty();) {
    char c = body[i];
    if (lineStart) {
      size_t first = body.find_first_not_of(' ', i);
      if (first != std::string::npos &&
          (body[first] == '#' || body.compare(first, 14, "FORMAC_PRAGMA(") == 0)) {
        i = std::min(body.find('\n', first), n);
        continue;
      }
      lineStart = false;
    }
    if (c == '\n') {
      lineStart = true;
      ++i;
    } else if (c == '/' && i + 1 < n && body[i + 1] == '*') {
      size_t close = body.find("*/", i + 2);
      i = close == std::string::npos ? n : close + 2;
    } else if (c == '/' && i + 1 < n && body[i + 1] == '/') {
      i = std::min(body.find('\n', i), n);
    } else if (c == '"' || c == '\'') {
      for (++i; i < n && body[i] != c && body[i] != '\n'; ++i)
        if (body[i] == '\\') ++i;
      ++i;
    } else if (part(c)) {
      size_t end = i;
      while (end < n && part(body[end])) ++end;
      // A member (`formac_c.e`, `ws->e`) is not the parameter of that name.
      size_t before = i;
      while (before > 0 && body[before - 1] == ' ') --before;
      bool member = before > 0 && (body[before - 1] == '.' || (before > 1 && body.compare(before - 2, 2, "->") == 0));
      if (!member) unread.erase(std::string_view(body).substr(i, end - i));
      i = end;
    } else {
      ++i;
    }
  }
  std::string t;
  for (const auto& name : names)
    if (unread.count(name)) t += indent + "(void)" + name + ";\n";
  return t;
}

}  // namespace formac::codegen
