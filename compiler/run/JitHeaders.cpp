#include "run/JitHeaders.h"

namespace formac::run {
namespace {

// C99's <math.h> functions, each for double and float (suffix f).
std::string mathHeader() {
  std::string s =
      "#ifndef FORMAC_JIT_MATH_H\n#define FORMAC_JIT_MATH_H\n"
      "#define INFINITY (__builtin_inff())\n#define NAN (__builtin_nanf(\"\"))\n"
      "#define HUGE_VAL (__builtin_huge_val())\n#define HUGE_VALF (__builtin_huge_valf())\n"
      "#define isnan(x) __builtin_isnan(x)\n#define isinf(x) __builtin_isinf(x)\n"
      "#define isfinite(x) __builtin_isfinite(x)\n#define signbit(x) __builtin_signbit(x)\n"
      "#define M_PI 3.14159265358979323846\n#define M_E 2.7182818284590452354\n"
      "#define M_SQRT2 1.41421356237309504880\n#define M_LN2 0.69314718055994530942\n";
  const char* unary[] = {"acos", "asin", "atan", "cos", "sin", "tan", "acosh", "asinh", "atanh", "cosh",
                         "sinh", "tanh", "exp", "exp2", "expm1", "log", "log10", "log1p", "log2", "logb",
                         "sqrt", "cbrt", "fabs", "ceil", "floor", "round", "trunc", "rint", "nearbyint",
                         "erf", "erfc", "tgamma", "lgamma"};
  const char* binary[] = {"atan2", "pow", "fmod", "fmin", "fmax", "fdim", "hypot", "copysign",
                          "remainder", "nextafter"};
  // sqrt is declared const: it sets errno only for a negative argument (to
  // EDOM, its result NaN either way) and generated code never reads errno;
  // const lets Clang vectorize it as gcc does. The values are the same.
  for (const char* f : unary) {
    std::string attr = std::string(f) == "sqrt" ? " __attribute__((const))" : "";
    s += "double " + std::string(f) + "(double)" + attr + ";\n";
    s += "float " + std::string(f) + "f(float)" + attr + ";\n";
  }
  for (const char* f : binary) {
    s += "double " + std::string(f) + "(double, double);\n";
    s += "float " + std::string(f) + "f(float, float);\n";
  }
  s += "double fma(double, double, double);\nfloat fmaf(float, float, float);\n"
       "double ldexp(double, int);\nfloat ldexpf(float, int);\n"
       "double frexp(double, int*);\nfloat frexpf(float, int*);\n"
       "double modf(double, double*);\nfloat modff(float, float*);\n"
       "long lround(double);\nlong lroundf(float);\nlong long llround(double);\nlong long llroundf(float);\n"
       "long lrint(double);\nlong lrintf(float);\nint ilogb(double);\nint ilogbf(float);\n"
       "double scalbn(double, int);\nfloat scalbnf(float, int);\n#endif\n";
  return s;
}

const char* kStddef =
    "#ifndef FORMAC_JIT_STDDEF_H\n#define FORMAC_JIT_STDDEF_H\n"
    "typedef __SIZE_TYPE__ size_t;\ntypedef __PTRDIFF_TYPE__ ptrdiff_t;\ntypedef __WCHAR_TYPE__ wchar_t;\n"
    "#define NULL ((void*)0)\n#define offsetof(t, m) __builtin_offsetof(t, m)\n#endif\n";

const char* kStdint =
    "#ifndef FORMAC_JIT_STDINT_H\n#define FORMAC_JIT_STDINT_H\n"
    "typedef __INT8_TYPE__ int8_t;\ntypedef __INT16_TYPE__ int16_t;\ntypedef __INT32_TYPE__ int32_t;\n"
    "typedef __INT64_TYPE__ int64_t;\ntypedef __UINT8_TYPE__ uint8_t;\ntypedef __UINT16_TYPE__ uint16_t;\n"
    "typedef __UINT32_TYPE__ uint32_t;\ntypedef __UINT64_TYPE__ uint64_t;\n"
    "typedef __INTPTR_TYPE__ intptr_t;\ntypedef __UINTPTR_TYPE__ uintptr_t;\n"
    "#define INT8_MAX __INT8_MAX__\n#define INT16_MAX __INT16_MAX__\n#define INT32_MAX __INT32_MAX__\n"
    "#define INT64_MAX __INT64_MAX__\n#define UINT8_MAX __UINT8_MAX__\n#define UINT16_MAX __UINT16_MAX__\n"
    "#define UINT32_MAX __UINT32_MAX__\n#define UINT64_MAX __UINT64_MAX__\n#define SIZE_MAX __SIZE_MAX__\n#endif\n";

const char* kLimits =
    "#ifndef FORMAC_JIT_LIMITS_H\n#define FORMAC_JIT_LIMITS_H\n"
    "#define CHAR_BIT __CHAR_BIT__\n#define SCHAR_MAX __SCHAR_MAX__\n#define SCHAR_MIN (-__SCHAR_MAX__ - 1)\n"
    "#define UCHAR_MAX (__SCHAR_MAX__ * 2 + 1)\n#define SHRT_MAX __SHRT_MAX__\n#define SHRT_MIN (-__SHRT_MAX__ - 1)\n"
    "#define USHRT_MAX (__SHRT_MAX__ * 2 + 1)\n#define INT_MAX __INT_MAX__\n#define INT_MIN (-__INT_MAX__ - 1)\n"
    "#define UINT_MAX (__INT_MAX__ * 2U + 1U)\n#define LONG_MAX __LONG_MAX__\n#define LONG_MIN (-__LONG_MAX__ - 1L)\n"
    "#define LLONG_MAX __LONG_LONG_MAX__\n#define LLONG_MIN (-__LONG_LONG_MAX__ - 1LL)\n#endif\n";

const char* kFloat =
    "#ifndef FORMAC_JIT_FLOAT_H\n#define FORMAC_JIT_FLOAT_H\n"
    "#define FLT_MAX __FLT_MAX__\n#define FLT_MIN __FLT_MIN__\n#define FLT_EPSILON __FLT_EPSILON__\n"
    "#define DBL_MAX __DBL_MAX__\n#define DBL_MIN __DBL_MIN__\n#define DBL_EPSILON __DBL_EPSILON__\n#endif\n";

const char* kStdbool =
    "#ifndef FORMAC_JIT_STDBOOL_H\n#define FORMAC_JIT_STDBOOL_H\n"
    "#define bool _Bool\n#define true 1\n#define false 0\n#endif\n";

const char* kStdarg =
    "#ifndef FORMAC_JIT_STDARG_H\n#define FORMAC_JIT_STDARG_H\n"
    "typedef __builtin_va_list va_list;\n#define va_start(ap, p) __builtin_va_start(ap, p)\n"
    "#define va_end(ap) __builtin_va_end(ap)\n#define va_arg(ap, t) __builtin_va_arg(ap, t)\n"
    "#define va_copy(d, s) __builtin_va_copy(d, s)\n#endif\n";

// glibc's names: `stderr` & co. are variables, FILE is struct _IO_FILE.
const char* kStdio =
    "#ifndef FORMAC_JIT_STDIO_H\n#define FORMAC_JIT_STDIO_H\n#include <stddef.h>\n#include <stdarg.h>\n"
    "typedef struct _IO_FILE FILE;\nextern FILE* stdin;\nextern FILE* stdout;\nextern FILE* stderr;\n"
    "#define EOF (-1)\n"
    "FILE* fopen(const char* restrict, const char* restrict);\nint fclose(FILE*);\nint fflush(FILE*);\n"
    "int fprintf(FILE* restrict, const char* restrict, ...);\nint printf(const char* restrict, ...);\n"
    "int sprintf(char* restrict, const char* restrict, ...);\n"
    "int snprintf(char* restrict, size_t, const char* restrict, ...);\n"
    "int vfprintf(FILE* restrict, const char* restrict, va_list);\n"
    "int vsnprintf(char* restrict, size_t, const char* restrict, va_list);\n"
    "int fscanf(FILE* restrict, const char* restrict, ...);\nint sscanf(const char* restrict, const char* restrict, ...);\n"
    "int fputs(const char* restrict, FILE* restrict);\nint puts(const char*);\nint fputc(int, FILE*);\n"
    "int putchar(int);\nchar* fgets(char* restrict, int, FILE* restrict);\nint fgetc(FILE*);\n"
    "size_t fread(void* restrict, size_t, size_t, FILE* restrict);\n"
    "size_t fwrite(const void* restrict, size_t, size_t, FILE* restrict);\nvoid perror(const char*);\n#endif\n";

const char* kStdlib =
    "#ifndef FORMAC_JIT_STDLIB_H\n#define FORMAC_JIT_STDLIB_H\n#include <stddef.h>\n"
    "#define EXIT_SUCCESS 0\n#define EXIT_FAILURE 1\n"
    "void* malloc(size_t);\nvoid* calloc(size_t, size_t);\nvoid* realloc(void*, size_t);\nvoid free(void*);\n"
    "void* aligned_alloc(size_t, size_t);\nint posix_memalign(void**, size_t, size_t);\n"
    "void abort(void);\nvoid exit(int);\nint atexit(void (*)(void));\nchar* getenv(const char*);\n"
    "int abs(int);\nlong labs(long);\nlong long llabs(long long);\nint atoi(const char*);\nlong atol(const char*);\n"
    "double atof(const char*);\nlong strtol(const char* restrict, char** restrict, int);\n"
    "unsigned long strtoul(const char* restrict, char** restrict, int);\n"
    "double strtod(const char* restrict, char** restrict);\n"
    "void qsort(void*, size_t, size_t, int (*)(const void*, const void*));\n#endif\n";

const char* kString =
    "#ifndef FORMAC_JIT_STRING_H\n#define FORMAC_JIT_STRING_H\n#include <stddef.h>\n"
    "void* memcpy(void* restrict, const void* restrict, size_t);\nvoid* memmove(void*, const void*, size_t);\n"
    "void* memset(void*, int, size_t);\nint memcmp(const void*, const void*, size_t);\n"
    "size_t strlen(const char*);\nint strcmp(const char*, const char*);\n"
    "int strncmp(const char*, const char*, size_t);\nchar* strcpy(char* restrict, const char* restrict);\n"
    "char* strncpy(char* restrict, const char* restrict, size_t);\nchar* strchr(const char*, int);\n"
    "char* strstr(const char*, const char*);\n#endif\n";

const char* kOmp =
    "#ifndef FORMAC_JIT_OMP_H\n#define FORMAC_JIT_OMP_H\n"
    "int omp_get_thread_num(void);\nint omp_get_num_threads(void);\nint omp_get_max_threads(void);\n"
    "void omp_set_num_threads(int);\nint omp_get_num_procs(void);\nint omp_in_parallel(void);\n"
    "double omp_get_wtime(void);\n#endif\n";

const char* kAssert =
    "#undef assert\n#ifdef NDEBUG\n#define assert(x) ((void)0)\n#else\n"
    "#define assert(x) ((x) ? (void)0 : __builtin_trap())\n#endif\n";

// What generated code asks sysconf (glibc's numbering).
const char* kUnistd =
    "#ifndef FORMAC_JIT_UNISTD_H\n#define FORMAC_JIT_UNISTD_H\n#include <stddef.h>\n"
    "long sysconf(int);\nint getpid(void);\n"
    "#define _SC_PAGESIZE 30\n#define _SC_NPROCESSORS_CONF 83\n#define _SC_NPROCESSORS_ONLN 84\n"
    "#define _SC_LEVEL1_DCACHE_SIZE 188\n#define _SC_LEVEL1_DCACHE_LINESIZE 190\n"
    "#define _SC_LEVEL2_CACHE_SIZE 191\n#define _SC_LEVEL3_CACHE_SIZE 194\n#endif\n";

// glibc: errno lives behind __errno_location().
const char* kErrno =
    "#ifndef FORMAC_JIT_ERRNO_H\n#define FORMAC_JIT_ERRNO_H\n"
    "int* __errno_location(void);\n#define errno (*__errno_location())\n#endif\n";

}  // namespace

const std::vector<std::pair<std::string, std::string>>& jitHeaders() {
  static const std::vector<std::pair<std::string, std::string>> headers = {
      {"math.h", mathHeader()}, {"stddef.h", kStddef}, {"stdint.h", kStdint}, {"limits.h", kLimits},
      {"float.h", kFloat},      {"stdbool.h", kStdbool}, {"stdarg.h", kStdarg}, {"stdio.h", kStdio},
      {"stdlib.h", kStdlib},    {"string.h", kString}, {"omp.h", kOmp},       {"assert.h", kAssert},
      {"errno.h", kErrno},      {"unistd.h", kUnistd}};
  return headers;
}

}  // namespace formac::run
