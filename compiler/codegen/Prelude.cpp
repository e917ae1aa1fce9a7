#include "codegen/Prelude.h"

#include <cctype>
#include <set>
#include <sstream>
#include <vector>

namespace formac::codegen {
namespace {

// The helpers of one integer type (int: suffix "i", int64: "l"): division
// and remainder (formac_idiv, formac_idiv_l), the identity (formac_int),
// abs, and +, -, *, negation and absd wrapping through unsigned arithmetic.
struct IntegerHelpers {
  const char *suf, *ty, *u, *divSuffix, *identity, *minValue;
};
std::string integerHelpers(const std::string& q, const IntegerHelpers& h, bool cuda) {
  std::string t = h.ty, u = h.u, suf = h.suf, d = h.divSuffix;
  std::string two = "(" + t + " a, " + t + " b)", head = q + " " + t + " ";
  std::string neg = "(" + t + ")(0u - (" + u + ")a)";
  std::string s;
  if (!cuda && t == "int") {
    // x86 has no vector integer division: through double, gcc vectorizes the
    // loop (depth_fill16's mean of the valid samples: 3.6x faster on 2 cores).
    s += head + "formac_idiv" + d + two + " {\n"
         "  /* Through double: exact (every int is a double, and a quotient that is not an\n"
         "     integer lies at least 1/|b| from one, far more than its rounding error,\n"
         "     under |a| 2^-53), and it vectorizes; by a constant, C's division. */\n"
         "  const double q = (double)a / (double)(b == 0 ? 1 : b);\n"
         "#if defined(__GNUC__)\n"
         "  if (__builtin_constant_p(b)) return b == 0 ? 0 : (b == -1 ? " + neg + " : a / b);\n"
         "#endif\n"
         "  return b == 0 ? 0 : (b == -1 ? " + neg + " : (int)q);\n}\n";
    s += head + "formac_imod" + d + two + " {\n"
         "  const int q = formac_idiv(a, b);\n"
         "  return (b == 0 || b == -1) ? 0 : (int)((unsigned)a - (unsigned)b * (unsigned)q);\n}\n";
  } else {
    s += head + "formac_idiv" + d + two + " {\n  return b == 0 ? 0 : (b == -1 ? " + neg + " : a / b);\n}\n";
    s += head + "formac_imod" + d + two + " { return (b == 0 || b == -1) ? 0 : a % b; }\n";
  }
  s += head + h.identity + "(" + t + " a) { return a; }\n";
  // abs of the most negative value is itself (it wraps, as in C). ptxas turns
  // `a < 0 ? -a : a` into IABS and then assumes the result is >= 0: a later
  // `abs(x) < 0`, or the lower bound of a computed read `t[abs(x)]`, is dropped
  // (progfuzz gl5 read 16 GiB before a buffer). Testing for the minimum first
  // keeps that case visible to it.
  if (cuda)
    s += head + "formac_abs_" + suf + "(" + t + " a) { return a == " + h.minValue + " ? a : (a < 0 ? -a : a); }\n";
  else
    s += head + "formac_abs_" + suf + "(" + t + " a) { return a < 0 ? " + neg + " : a; }\n";
  const char* ops[][2] = {{"add", "+"}, {"sub", "-"}, {"mul", "*"}};
  for (auto& op : ops)
    s += head + "formac_" + op[0] + "_" + suf + two + " { return (" + t + ")((" + u + ")a " + op[1] + " (" + u + ")b); }\n";
  s += head + "formac_neg_" + suf + "(" + t + " a) { return " + neg + "; }\n";
  s += head + "formac_min_" + suf + two + " { return a < b ? a : b; }\n";
  s += head + "formac_max_" + suf + two + " { return a > b ? a : b; }\n";
  s += head + "formac_absd_" + suf + two + " {\n  return (" + t + ")(a > b ? (" + u + ")a - (" + u + ")b : (" + u + ")b - (" + u + ")a);\n}\n";
  return s;
}

// The identifiers starting with formac_ or FORMAC_ in `text`, in one pass.
std::set<std::string> formacNames(const std::string& text) {
  std::set<std::string> out;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = 0; at < text.size(); ++at) {
    if ((text[at] != 'f' && text[at] != 'F') || (at > 0 && word(text[at - 1]))) continue;
    if (text.compare(at, 7, "formac_") != 0 && text.compare(at, 7, "FORMAC_") != 0) continue;
    size_t end = at;
    while (end < text.size() && word(text[end])) ++end;
    out.insert(text.substr(at, end - at));
    at = end;
  }
  return out;
}

// One piece of a prelude: a comment, or a definition (a helper up to the line
// where its braces close, or a #define) and the name it defines.
struct PreludePiece {
  std::string text, name;
};

std::vector<PreludePiece> splitPrelude(const std::string& prelude, const std::string& qualifier) {
  std::vector<PreludePiece> out;
  std::istringstream in(prelude);
  bool inComment = false;
  int depth = 0;
  for (std::string line; std::getline(in, line);) {
    line += "\n";
    bool continues = inComment || depth > 0;
    if (!continues) {
      out.push_back(PreludePiece{"", ""});
      bool definition = line.rfind(qualifier + " ", 0) == 0 || line.rfind("#define ", 0) == 0;
      if (definition) {
        size_t at = line.find(line[0] == '#' ? "FORMAC_" : "formac_");
        size_t end = at;
        while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_')) ++end;
        if (at != std::string::npos) out.back().name = line.substr(at, end - at);
      }
    }
    out.back().text += line;
    if (line.rfind("/*", 0) == 0 || inComment) {
      inComment = line.find("*/") == std::string::npos;
      continue;
    }
    for (char c : line) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
  }
  return out;
}

}  // namespace

std::string usedHelpers(const std::string& prelude, const std::string& qualifier, const std::string& code) {
  std::vector<PreludePiece> pieces = splitPrelude(prelude, qualifier);
  std::set<std::string> used = formacNames(code);
  // Helpers call helpers (formac_ceildiv calls formac_floordiv): keep adding
  // the names the kept ones use, later pieces first.
  for (bool grew = true; grew;) {
    grew = false;
    for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) {
      if (it->name.empty() || !used.count(it->name)) continue;
      for (const auto& n : formacNames(it->text))
        grew = used.insert(n).second || grew;
    }
  }
  // A comment stays when a definition after it, before the next comment, stays.
  std::string out, comment;
  bool keptSince = false;
  for (const auto& pc : pieces) {
    if (pc.name.empty()) {
      comment = pc.text;
      keptSince = false;
    } else if (used.count(pc.name)) {
      if (!keptSince) out += comment;
      keptSince = true;
      out += pc.text;
    }
  }
  return out;
}

std::string helperPrelude(const std::string& q, bool cuda) {
  std::string s;
  s += "/* Boundary modes (LANGUAGE.md §5), correct for any offset; an index at most\n"
       "   one extent outside is resolved without a division. */\n";
  // CUDA: templates, so that kernels indexing with int resolve in 32 bits
  // (a 64-bit remainder is a called routine of ~70 instructions there).
  std::string tpl = cuda ? "template <typename A, typename B>\n" : "";
  std::string T = cuda ? "auto" : "long long", A = cuda ? "A" : "long long", B = cuda ? "B" : "long long";
  std::string ret = cuda ? " -> decltype(i + n)" : "";
  std::string open = cuda ? "  typedef decltype(i + n) T;\n" : "  typedef long long T;\n";
  s += tpl + q + " int formac_in_range(" + A + " i, " + B + " n) { return i >= 0 && i < n; }\n";
  s += tpl + q + " " + T + " formac_clamp(" + A + " i, " + B + " n)" + ret + " {\n" + open +
       "  return i < 0 ? (T)0 : (i >= n ? (T)(n - 1) : (T)i);\n}\n";
  s += tpl + q + " " + T + " formac_wrap(" + A + " i, " + B + " n)" + ret + " {\n" + open +
       "  long long m;\n"
       "  if (i >= 0 && i < n) return (T)i;\n"
       "  if (i < 0 && i >= -n) return (T)(i + n);\n"
       "  if (i >= n && i - n < n) return (T)(i - n);\n"
       "  m = (long long)i % (long long)n;\n"
       "  return (T)(m < 0 ? m + n : m);\n}\n";
  s += tpl + q + " " + T + " formac_mirror(" + A + " i, " + B + " n)" + ret + " {\n" + open +
       "  long long period, m;\n"
       "  if (i >= 0 && i < n) return (T)i;\n"
       "  if (n == 1) return (T)0;\n"
       "  if (i < 0 && i > -n) return (T)(-i);\n"
       "  if (i >= n && i - n < n - 1) return (T)((n - 1) - (i - (n - 1)));\n"
       "  period = 2 * ((long long)n - 1);\n"
       "  m = (long long)i % period;\n"
       "  if (m < 0) m += period;\n"
       "  return (T)(m < n ? m : period - m);\n}\n";
  s += "/* Integer division and remainder by zero give 0 (the evaluator agrees); a truth\n"
       "   value compared with a number goes through formac_int (-Wbool-compare would call\n"
       "   it constant); +, -, * and negation wrap, as in the evaluator, whatever the\n"
       "   compiler (clang has no pragma for -fwrapv; nvcc has no such flag). */\n";
  s += integerHelpers(q, {"i", "int", "unsigned", "", "formac_int", "(-2147483647 - 1)"}, cuda);
  s += integerHelpers(q, {"l", "long long", "unsigned long long", "_l", "formac_int64", "(-9223372036854775807LL - 1)"}, cuda);
  s += "/* Floating -> int as x86 converts (and the evaluator): truncation toward zero,\n"
       "   INT_MIN outside int's range and for NaN (C leaves those undefined, gcc folds\n"
       "   them, CUDA saturates); narrower integer types then keep the low bits. int64:\n"
       "   the same in 64 bits, INT64_MIN outside its range and for NaN. */\n";
  s += q + " int formac_ftoi(double x) {\n"
           "  return (x > -2147483649.0 && x < 2147483648.0) ? (int)x : (int)(-2147483647 - 1);\n}\n";
  s += q + " int formac_ftoi_f(float x) {\n"
           "  return (x >= -2147483648.0f && x < 2147483648.0f) ? (int)x : (int)(-2147483647 - 1);\n}\n";
  s += q + " long long formac_ftoi_l(double x) {\n"
           "  return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (long long)x\n"
           "                                                                   : (-9223372036854775807LL - 1);\n}\n";
  if (!cuda)
    s += "/* A float rounded from a double, widened again: gcc 12's basic-block vectorizer\n"
         "   folds (double)(float)x to x, dropping the rounding; an empty asm hides where\n"
         "   the float came from. */\n" +
         q + " double formac_widen_rounded(float f) {\n"
             "#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))\n"
             "  __asm__(\"\" : \"+x\"(f));\n"
             "#elif defined(__GNUC__) && !defined(__clang__) && defined(__aarch64__)\n"
             "  __asm__(\"\" : \"+w\"(f));\n"
             "#elif defined(__GNUC__) && !defined(__clang__)\n"
             "  __asm__(\"\" : \"+m\"(f));\n"
             "#endif\n"
             "  return f;\n}\n";
  s += "/* Index arithmetic: floor and ceiling division, max and min. */\n";
  s += q + " long long formac_floordiv(long long a, long long b) {\n"
           "  long long q = a / b;\n  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n}\n";
  s += q + " long long formac_ceildiv(long long a, long long b) { return -formac_floordiv(-a, b); }\n";
  s += q + " long long formac_maxll(long long a, long long b) { return a > b ? a : b; }\n";
  s += q + " long long formac_minll(long long a, long long b) { return a < b ? a : b; }\n";
  s += "/* min, max and absolute difference of floats and doubles. */\n";
  const char* types[][2] = {{"f", "float"}, {"d", "double"}};
  for (auto& t : types) {
    std::string suf = t[0], ty = t[1];
    s += q + " " + ty + " formac_min_" + suf + "(" + ty + " a, " + ty + " b) { return a < b ? a : b; }\n";
    s += q + " " + ty + " formac_max_" + suf + "(" + ty + " a, " + ty + " b) { return a > b ? a : b; }\n";
    s += q + " " + ty + " formac_absd_" + suf + "(" + ty + " a, " + ty + " b) { return a > b ? a - b : b - a; }\n";
  }
  if (!cuda) {
    s += "/* min and max of 8- and 16-bit values (ExprPrinter: narrowMinMax). */\n";
    const char* narrow[][2] = {{"uc", "unsigned char"}, {"us", "unsigned short"}, {"s", "short"}};
    for (auto& t : narrow) {
      std::string suf = t[0], ty = t[1];
      s += q + " " + ty + " formac_min_" + suf + "(" + ty + " a, " + ty + " b) { return a < b ? a : b; }\n";
      s += q + " " + ty + " formac_max_" + suf + "(" + ty + " a, " + ty + " b) { return a > b ? a : b; }\n";
    }
  }
  s += "#define FORMAC_MAX(a, b) ((a) > (b) ? (a) : (b))\n";
  s += "#define FORMAC_MIN(a, b) ((a) < (b) ? (a) : (b))\n";
  return s;
}

std::string divisionByOddConstant() {
  // Why it is exact (compiler/codegen/README.md, "Division by a constant"): with
  // r = RN(1/c), q = RN(x r) is within 1.5 ulp of x / c, so the remainder
  // x - q c is a multiple of ulp(q) (or of 2^-149) below 2^24 of them: the fma
  // gives it exactly. q + e r then differs from x / c by e (r - 1/c), under
  // 1.5 * 2^-24 ulp; and x / c, an integer over an odd c, lies at least
  // 1/(2|c|) ulp from every rounding boundary (a midpoint would need c to
  // divide twice an odd multiple of its ulp). So the last fma rounds as x / c
  // does, subnormal results included. Checked over all 2^32 floats for every
  // odd c up to 1023 (bench/gpu/divcheck.cu). What the fma would get wrong is
  // outside that argument: an infinite x (its remainder is NaN: fmaxf makes it
  // finite, and q + e r stays infinite) and the sign of a zero (copysignf).
  return "/* x / c for a float c that is an odd integer, 3 <= |c| < 2^21, r = RN(1/c):\n"
         "   correctly rounded for every x, as __fdiv_rn, in three roundings and no\n"
         "   branch (formac: compiler/codegen/README.md). */\n"
         "static __device__ __forceinline__ float formac_div_odd_f(float x, float c, float r) {\n"
         "  const float q = __fmul_rn(x, r);\n"
         "  const float e = fmaxf(__fmaf_rn(-q, c, x), -3.40282347e38f);  /* NaN for an infinite x */\n"
         "  return copysignf(__fmaf_rn(e, r, q), c < 0.0f ? -x : x);\n"
         "}\n"
         // A finite x, c > 0: the remainder's negation q c - x (exact, as
         // above), then q - (q c - x) r: the same rounding, and a zero gets x's
         // sign without copysignf (x = -0: q = -0, q c - x = +0, -0 - (+0) r = -0).
         "/* The same for a finite x and c > 0 (formac knows x is finite): two fmas. */\n"
         "static __device__ __forceinline__ float formac_div_odd_finite_f(float x, float c, float r) {\n"
         "  const float q = __fmul_rn(x, r);\n"
         "  return __fmaf_rn(__fmaf_rn(q, c, -x), -r, q);\n"
         "}\n\n";
}

std::string integerPowers() {
  // CUDA's pow is within 2 ulp and powf within 4 (CUDA Math API); glibc's,
  // which the evaluator and the C backend call, within 1, so it returns a
  // representable result exactly and CUDA's may miss it: pow(86, 1) gave
  // 85.99999999999999, and a conversion to int 85. An integer to a power that
  // is a non-negative integer is an integer, and below 2^50 (2^20 in float) an
  // error of 4 ulp is under 1/4, so rounding to the nearest integer gives it.
  return "/* x ^ y: an integer to a non-negative integer power is that integer exactly,\n"
         "   as the evaluator's pow gives it (CUDA's pow may miss it by an ulp). */\n"
         "static __device__ __forceinline__ double formac_pow_d(double x, double y) {\n"
         "  const double r = pow(x, y);\n"
         "  return (x == trunc(x) && y == trunc(y) && y >= 0.0 && fabs(r) < 1125899906842624.0) ? rint(r) : r;\n"
         "}\n"
         "static __device__ __forceinline__ float formac_pow_f(float x, float y) {\n"
         "  const float r = powf(x, y);\n"
         "  return (x == truncf(x) && y == truncf(y) && y >= 0.0f && fabsf(r) < 1048576.0f) ? rintf(r) : r;\n"
         "}\n\n";
}

std::string structDefinitions(const ir::Pipeline& p, bool cuda) {
  std::string s;
  for (const auto& st : p.structs) {
    std::string guard = "FORMAC_STRUCT_" + st->name;
    s += "#ifndef " + guard + "\n#define " + guard + "\n";
    if (st->builtinCuda && cuda) {
      // CUDA defines float4 & co.
    } else if (st->builtinCuda) {
      s += "typedef struct {";
      for (const auto& f : st->fields) s += " " + std::string(scalarCType(f.type)) + " " + f.name + ";";
      s += " } " + st->name + ";\n";
    } else {
      s += "struct " + st->name + " {";
      for (const auto& f : st->fields) s += " " + std::string(scalarCType(f.type)) + " " + f.name + ";";
      s += " };\n";
    }
    if (cuda) {
      std::string ty = st->builtinCuda ? st->name : "struct " + st->name;
      s += "static __host__ __device__ __forceinline__ " + ty + " formac_make_" + st->name + "(";
      // Parameters f0, f1, ...: a field may be called anything, `v` included.
      for (size_t i = 0; i < st->fields.size(); ++i)
        s += (i ? ", " : "") + std::string(scalarCType(st->fields[i].type)) + " f" + std::to_string(i);
      s += ") {\n  " + ty + " formac_value;\n";
      for (size_t i = 0; i < st->fields.size(); ++i)
        s += "  formac_value." + st->fields[i].name + " = f" + std::to_string(i) + ";\n";
      s += "  return formac_value;\n}\n";
    }
    s += "#endif\n";
  }
  return s;
}

std::string parallelIf(const std::string& points) { return "if (" + points + " >= FORMAC_PARALLEL_POINTS)"; }

std::string cpuPrelude() {
  return "#ifdef _OPENMP\n#define FORMAC_PRAGMA(x) _Pragma(#x)\n"
         "FORMAC_HELPER int formac_thread_num(void) { return omp_get_thread_num(); }\n"
         "FORMAC_HELPER int formac_max_threads(void) { return omp_get_max_threads(); }\n"
         "#else\n#define FORMAC_PRAGMA(x)\n"
         "FORMAC_HELPER int formac_thread_num(void) { return 0; }\n"
         "FORMAC_HELPER int formac_max_threads(void) { return 1; }\n#endif\n"
         "/* Loops over fewer points than this run on the calling thread: waking the\n"
         "   team costs more than they do (2-3 us on 2 cores, 40 us and more while the\n"
         "   threads sleep). -DFORMAC_PARALLEL_POINTS=0 gives every loop its threads. */\n"
         "#ifndef FORMAC_PARALLEL_POINTS\n#define FORMAC_PARALLEL_POINTS 65536\n#endif\n"
         "/* A fused row function loops over a row: inlining it gains nothing and\n"
         "   makes compile times several times longer. */\n"
         "#if defined(__GNUC__)\n#define FORMAC_NOINLINE __attribute__((noinline))\n"
         "#else\n#define FORMAC_NOINLINE\n#endif\n"
         "/* Around a row function without integer arithmetic of the program's:\n"
         "   gcc folds the index arithmetic better without wrapv. */\n"
         "#if defined(__GNUC__) && !defined(__clang__)\n"
         "#define FORMAC_NO_WRAPV_BEGIN _Pragma(\"GCC push_options\") _Pragma(\"GCC optimize(\\\"no-wrapv\\\")\")\n"
         "#define FORMAC_NO_WRAPV_END _Pragma(\"GCC pop_options\")\n"
         "#else\n#define FORMAC_NO_WRAPV_BEGIN\n#define FORMAC_NO_WRAPV_END\n#endif\n"
         "/* x + 0 and 0 - x, as IEEE computes them (+0 for x = +-0): gcc 12 folds\n"
         "   0.0f - (float)i to -(float)i, -0 for i = 0. */\n"
         "FORMAC_HELPER float formac_zadd_f(float x) { return x == 0.0f ? 0.0f : x; }\n"
         "FORMAC_HELPER float formac_zsub_f(float x) { return x == 0.0f ? 0.0f : -x; }\n"
         "FORMAC_HELPER double formac_zadd_d(double x) { return x == 0.0 ? 0.0 : x; }\n"
         "FORMAC_HELPER double formac_zsub_d(double x) { return x == 0.0 ? 0.0 : -x; }\n"
         "FORMAC_HELPER size_t formac_align64(size_t n) { return (n + 63) / 64 * 64; }\n"
         "/* Asks for the bytes [p, p + n) ahead of their first read. */\n"
         "FORMAC_HELPER void formac_prefetch(const void* p, size_t n) {\n"
         "#if defined(__GNUC__)\n"
         "  const char* c = (const char*)p;\n  size_t k;\n"
         "  for (k = 0; k < n; k += 64) __builtin_prefetch(c + k);\n"
         "#else\n  (void)p;\n  (void)n;\n#endif\n}\n"
         "/* Row i of an image of n rows, or the nearest one: where a fused row reads. */\n"
         "FORMAC_HELPER long long formac_row(long long i, long long n) {\n"
         "  return i >= n ? n - 1 : (i < 0 ? 0 : i);\n}\n"
         "/* The L2 size of this machine (sysconf, else Linux sysfs; 512 KiB when\n"
         "   neither says). */\n"
         "FORMAC_HELPER size_t formac_l2_bytes(void) {\n"
         "  size_t bytes = 0;\n  char unit = 0;\n  unsigned long v = 0;\n  FILE* f;\n"
         "#ifdef _SC_LEVEL2_CACHE_SIZE\n"
         "  long s = sysconf(_SC_LEVEL2_CACHE_SIZE);\n"
         "  if (s >= 64 * 1024) return (size_t)s;\n"
         "#endif\n"
         "  f = fopen(\"/sys/devices/system/cpu/cpu0/cache/index2/size\", \"r\");\n"
         "  if (f) {\n    if (fscanf(f, \"%lu%c\", &v, &unit) >= 1)\n"
         "      bytes = (size_t)v * (unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1);\n"
         "    fclose(f);\n  }\n"
         "  return bytes >= 64 * 1024 ? bytes : (size_t)512 * 1024;\n}\n\n";
}

}  // namespace formac::codegen
