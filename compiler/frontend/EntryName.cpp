#include "frontend/EntryName.h"

#include <cctype>
#include <cstring>
#include <iterator>
#include <set>
#include <sstream>

namespace formac {
namespace {

// The identifiers and macros of the headers on a glibc system (generated).
const char* const kHeaderNames[] = {
#include "frontend/HeaderNames.inc"
};

// Whitespace-separated word lists, one per origin: what other C libraries,
// headers a caller may include (time.h, signal.h, setjmp.h...) and CUDA's
// device code declare, besides the generated table.
const char* const kCKeywords =
    "auto break case char const continue default do double else enum extern float for goto if "
    "inline int long register restrict return short signed sizeof static struct switch typedef "
    "union unsigned void volatile while _Alignas _Alignof _Atomic _Bool _Complex _Generic "
    "_Imaginary _Noreturn _Static_assert _Thread_local";
const char* const kCppKeywords =
    "alignas alignof and and_eq asm bitand bitor bool catch char8_t char16_t char32_t class "
    "co_await co_return co_yield compl concept const_cast consteval constexpr constinit decltype "
    "delete dynamic_cast explicit export false friend mutable namespace new noexcept not not_eq "
    "nullptr operator or or_eq private protected public reinterpret_cast requires static_assert "
    "static_cast template this thread_local throw true try typeid typename using virtual wchar_t "
    "xor xor_eq std";
// libm's functions; each also exists with an f and an l suffix.
const char* const kMath =
    "acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh drem erf erfc exp exp10 "
    "exp2 expm1 fabs fdim finite floor fma fmax fmin fmod frexp gamma hypot ilogb isinf isnan j0 "
    "j1 jn ldexp lgamma lgamma_r llrint llround log log10 log1p log2 logb lrint lround modf nan "
    "nearbyint nextafter nexttoward pow pow10 remainder remquo rint round scalb scalbln scalbn "
    "significand sin sincos sinh sqrt tan tanh tgamma trunc y0 y1 yn signbit fpclassify isfinite "
    "isnormal isgreater isless";
// stdlib.h, stdio.h, string.h, unistd.h and the other headers generated code
// and its callers include (glibc's declarations, the common ones).
const char* const kLibc =
    "main abort abs atexit at_quick_exit atof atoi atol atoll aligned_alloc bsearch calloc div "
    "drand48 ecvt erand48 exit _Exit fcvt free gcvt getenv initstate jrand48 l64a labs lcong48 "
    "ldiv llabs lldiv lrand48 malloc mblen mbstowcs mbtowc memalign mkdtemp mkstemp mktemp "
    "mrand48 nrand48 posix_memalign putenv qsort quick_exit rand rand_r random realloc "
    "reallocarray realpath seed48 setenv setstate srand srand48 srandom strtod strtof strtol "
    "strtold strtoll strtoul strtoull system unsetenv valloc wcstombs wctomb clearenv "
    "clearerr ctermid fclose fdopen feof ferror fflush fgetc fgetpos fgets fileno fopen fprintf "
    "fputc fputs fread freopen fscanf fseek fseeko fsetpos ftell ftello fwrite getc getchar "
    "getdelim getline gets open_memstream pclose perror popen printf putc putchar puts remove "
    "rename rewind scanf setbuf setvbuf snprintf sprintf sscanf tempnam tmpfile tmpnam ungetc "
    "vfprintf vfscanf vprintf vscanf vsnprintf vsprintf vsscanf dprintf asprintf stdin stdout "
    "stderr errno "
    "bcmp bcopy bzero explicit_bzero ffs index memccpy memchr memcmp memcpy memmem memmove "
    "mempcpy memrchr memset rawmemchr rindex stpcpy stpncpy strcasecmp strcat strchr strcmp "
    "strcoll strcpy strcspn strdup strerror strerror_r strlen strncasecmp strncat strncmp "
    "strncpy strndup strnlen strpbrk strrchr strsep strsignal strspn strstr strtok strtok_r "
    "strxfrm strlcpy strlcat basename "
    "access alarm brk chdir chown chroot close confstr crypt daemon dup dup2 dup3 environ "
    "execl execle execlp execv execve execvp faccessat fchdir fchown fdatasync fexecve fork "
    "fpathconf fsync ftruncate getcwd getegid geteuid getgid getgroups gethostid gethostname "
    "getlogin getopt getpagesize getpgid getpgrp getpid getppid getsid getuid isatty lchown "
    "link linkat lockf lseek nice optarg opterr optind optopt pathconf pause pipe pipe2 pread "
    "profil pwrite read readlink readlinkat rmdir sbrk setegid seteuid setgid setpgid setpgrp "
    "setregid setreuid setsid setuid sleep swab symlink symlinkat sync syncfs syscall sysconf "
    "tcgetpgrp tcsetpgrp truncate ttyname ttyname_r unlink unlinkat usleep vfork write "
    "assert clock time difftime mktime strftime gmtime localtime asctime ctime signal raise "
    "setjmp longjmp va_start va_end va_arg offsetof size_t ptrdiff_t wchar_t FILE NULL EOF "
    "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intptr_t uintptr_t";
// The CUDA runtime and device functions a .cu file sees besides cuda*/__*.
const char* const kCuda =
    "blockIdx threadIdx blockDim gridDim warpSize dim3 min max umin umax llmin llmax ullmin "
    "ullmax atomicAdd atomicSub atomicExch atomicMin atomicMax atomicInc atomicDec atomicCAS "
    "atomicAnd atomicOr atomicXor clock64 printf malloc free memcpy memset rsqrt rsqrtf rcbrt "
    "rcbrtf sinpi cospi sincospi normcdf normcdfinv erfinv erfcinv norm3d norm4d rhypot "
    "saturate float2 float3 float4 int2 int3 int4 uint2 uint3 uint4 double2 char4 uchar4 "
    "short2 ushort2 longlong2 make_float2 make_float3 make_float4 make_int2 make_int4 "
    "make_uint4 make_double2 make_uchar4 tex1D tex2D tex3D surf2Dread surf2Dwrite";

const std::set<std::string>& externalNames() {
  static const std::set<std::string> names = [] {
    std::set<std::string> s(std::begin(kHeaderNames), std::end(kHeaderNames));
    for (const char* list : {kCKeywords, kCppKeywords, kLibc, kCuda}) {
      std::istringstream in(list);
      for (std::string w; in >> w;) s.insert(w);
    }
    std::istringstream in(kMath);
    for (std::string w; in >> w;) s.insert({w, w + "f", w + "l"});
    return s;
  }();
  return names;
}

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool isCIdentifier(const std::string& s) {
  if (s.empty() || isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::string stemOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return base.substr(0, base.find('.'));
}

}  // namespace

bool isExternalName(const std::string& name) {
  // Reserved to the implementation (C11 7.1.3), OpenMP's, CUDA's and formac's own.
  for (const char* prefix : {"__", "omp_", "cuda", "CUDA", "nvrtc", "formac_", "FORMAC_"})
    if (startsWith(name, prefix)) return true;
  // _X (C11 7.1.3), and the CUDA driver's and NVIDIA's libraries' cuX, nvX.
  for (const char* prefix : {"_", "cu", "nv"})
    if (startsWith(name, prefix) && name.size() > strlen(prefix) &&
        isupper(static_cast<unsigned char>(name[strlen(prefix)])))
      return true;
  return externalNames().count(name) > 0;
}

std::string entryPointName(const std::string& sourcePath, const std::string& explicitName,
                           Warnings& warnings) {
  if (!explicitName.empty()) {
    if (!isCIdentifier(explicitName))
      throw UserError("kernel name '" + explicitName + "' is not a C identifier");
    if (isExternalName(explicitName))
      throw UserError("kernel name '" + explicitName +
                      "' is a name of C, C++, the C library, OpenMP or CUDA; choose another");
    return explicitName;
  }
  std::string stem = stemOf(sourcePath);
  if (stem.empty()) return "pipeline";
  std::string id;
  for (char c : stem) id += isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (isdigit(static_cast<unsigned char>(id[0]))) id = "k_" + id;
  if (isExternalName(id)) {
    warnings.add(SourceLoc{}, "the entry point is named '" + id + "_pipeline': '" + id +
                                  "' (the file's name) is a name of C, C++, the C library, "
                                  "OpenMP or CUDA; --kernel-name chooses another");
    id += "_pipeline";
  }
  return id;
}

}  // namespace formac
