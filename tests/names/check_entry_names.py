#!/usr/bin/env python3
"""A program file named like a name of C, C++, the C library, libm, POSIX,
OpenMP or CUDA (log.idsl, main.idsl, EOF.idsl) must give an entry point that
compiles next to those names (LANGUAGE.md §7: the stem becomes STEM_pipeline,
with a warning).

    check_entry_names.py --formac build/formac --work DIR [--cc cc] [--cxx c++] [--clang clang] [--nvcc nvcc] [--jobs J]
    check_entry_names.py --work DIR --write-list compiler/frontend/HeaderNames.inc

--write-list writes the names of step 1 that formac's prefix rules do not
cover (compiler/frontend/EntryName.cpp) as the table formac checks a stem
against; run it again when a new header joins HEADERS.

1. Collects the candidate names: every identifier and macro of the headers the
   generated code and its callers include (math.h, stdio.h, stdlib.h,
   string.h, unistd.h, omp.h, preprocessed by --cc) and EXTRA_NAMES (keywords,
   other headers' and CUDA's names).
2. Compiles a small program saved as NAME.idsl for each, to C and its header
   (formac may warn; it must not fail).
3. Compiles one translation unit that includes those headers and every
   generated header, as C with --cc and --clang and as C++ with --cxx, and as
   CUDA with --nvcc (with cuda_runtime.h); then compiles the generated .c of
   the ordinary names and of a sample of the renamed with --cc, and the
   generated .cu of a few renamed (log, max, dim3) with --nvcc.
A failing unit is split until the names that break it are found. Exit status 1
when some name breaks the generated code; the failures are listed.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys

PROGRAM = """parameter M, N;
vector#2 float img[M, N];
stencil box(vector#2 float X) { return (X@[0,-1] + X + X@[0,1]) / 3.0f; }
return box(img:mirror);
"""
HEADERS = ["math.h", "stdio.h", "stdlib.h", "string.h", "unistd.h", "omp.h"]
# Names beside those of HEADERS, for the table too: C's and C++'s keywords,
# what other C libraries and headers a caller may include declare (time.h,
# signal.h, setjmp.h...), libm's functions that other systems declare (each
# with its f and l forms), and CUDA's device functions and vector types.
C_KEYWORDS = """auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef
union unsigned void volatile while _Alignas _Alignof _Atomic _Bool _Complex _Generic
_Imaginary _Noreturn _Static_assert _Thread_local""".split()
CPP_KEYWORDS = """alignas alignof and and_eq asm bitand bitor bool catch char8_t char16_t char32_t class
co_await co_return co_yield compl concept const_cast consteval constexpr constinit decltype
delete dynamic_cast explicit export false friend mutable namespace new noexcept not not_eq
nullptr operator or or_eq private protected public reinterpret_cast requires static_assert
static_cast template this thread_local throw true try typeid typename using virtual wchar_t
xor xor_eq std""".split()
LIBM = """acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh drem erf erfc exp exp10
exp2 expm1 fabs fdim finite floor fma fmax fmin fmod frexp gamma hypot ilogb isinf isnan j0
j1 jn ldexp lgamma lgamma_r llrint llround log log10 log1p log2 logb lrint lround modf nan
nearbyint nextafter nexttoward pow pow10 remainder remquo rint round scalb scalbln scalbn
significand sin sincos sinh sqrt tan tanh tgamma trunc y0 y1 yn signbit fpclassify isfinite
isnormal isgreater isless""".split()
LIBC = """main abort abs atexit at_quick_exit atof atoi atol atoll aligned_alloc bsearch calloc div
drand48 ecvt erand48 exit _Exit fcvt free gcvt getenv initstate jrand48 l64a labs lcong48
ldiv llabs lldiv lrand48 malloc mblen mbstowcs mbtowc memalign mkdtemp mkstemp mktemp
mrand48 nrand48 posix_memalign putenv qsort quick_exit rand rand_r random realloc
reallocarray realpath seed48 setenv setstate srand srand48 srandom strtod strtof strtol
strtold strtoll strtoul strtoull system unsetenv valloc wcstombs wctomb clearenv clearerr
ctermid fclose fdopen feof ferror fflush fgetc fgetpos fgets fileno fopen fprintf fputc
fputs fread freopen fscanf fseek fseeko fsetpos ftell ftello fwrite getc getchar getdelim
getline gets open_memstream pclose perror popen printf putc putchar puts remove rename
rewind scanf setbuf setvbuf snprintf sprintf sscanf tempnam tmpfile tmpnam ungetc vfprintf
vfscanf vprintf vscanf vsnprintf vsprintf vsscanf dprintf asprintf stdin stdout stderr errno
bcmp bcopy bzero explicit_bzero ffs index memccpy memchr memcmp memcpy memmem memmove
mempcpy memrchr memset rawmemchr rindex stpcpy stpncpy strcasecmp strcat strchr strcmp
strcoll strcpy strcspn strdup strerror strerror_r strlen strncasecmp strncat strncmp strncpy
strndup strnlen strpbrk strrchr strsep strsignal strspn strstr strtok strtok_r strxfrm
strlcpy strlcat basename access alarm brk chdir chown chroot close confstr crypt daemon dup
dup2 dup3 environ execl execle execlp execv execve execvp faccessat fchdir fchown fdatasync
fexecve fork fpathconf fsync ftruncate getcwd getegid geteuid getgid getgroups gethostid
gethostname getlogin getopt getpagesize getpgid getpgrp getpid getppid getsid getuid isatty
lchown link linkat lockf lseek nice optarg opterr optind optopt pathconf pause pipe pipe2
pread profil pwrite read readlink readlinkat rmdir sbrk setegid seteuid setgid setpgid
setpgrp setregid setreuid setsid setuid sleep swab symlink symlinkat sync syncfs syscall
sysconf tcgetpgrp tcsetpgrp truncate ttyname ttyname_r unlink unlinkat usleep vfork write
assert clock time difftime mktime strftime gmtime localtime asctime ctime signal raise
setjmp longjmp va_start va_end va_arg offsetof size_t ptrdiff_t wchar_t FILE NULL EOF int8_t
int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intptr_t uintptr_t""".split()
CUDA_NAMES = """blockIdx threadIdx blockDim gridDim warpSize dim3 min max umin umax llmin llmax ullmin
ullmax atomicAdd atomicSub atomicExch atomicMin atomicMax atomicInc atomicDec atomicCAS
atomicAnd atomicOr atomicXor clock64 printf malloc free memcpy memset rsqrt rsqrtf rcbrt
rcbrtf sinpi cospi sincospi normcdf normcdfinv erfinv erfcinv norm3d norm4d rhypot saturate
float2 float3 float4 int2 int3 int4 uint2 uint3 uint4 double2 char4 uchar4 short2 ushort2
longlong2 make_float2 make_float3 make_float4 make_int2 make_int4 make_uint4 make_double2
make_uchar4 tex1D tex2D tex3D surf2Dread surf2Dwrite""".split()
EXTRA_NAMES = set(C_KEYWORDS + CPP_KEYWORDS + LIBC + CUDA_NAMES +
                  [m + s for m in LIBM for s in ("", "f", "l")])
# Names of no library: their entry points keep the file's name.
ORDINARY = ["blur", "harris", "gauss_x", "laplacian", "pyramid2", "my_log"]
IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def header_names(cc, work):
    src = os.path.join(work, "headers.c")
    with open(src, "w") as f:
        f.write("".join(f"#include <{h}>\n" for h in HEADERS))
    names = set()
    # Generated C defines _GNU_SOURCE: the headers declare glibc's extensions.
    pre = run([cc, "-D_GNU_SOURCE", "-fopenmp", "-E", "-P", src])
    macros = run([cc, "-D_GNU_SOURCE", "-fopenmp", "-dM", "-E", src])
    if pre.returncode or macros.returncode:
        sys.exit(f"cannot preprocess the headers:\n{pre.stderr}{macros.stderr}")
    names.update(IDENT.findall(pre.stdout))
    for line in macros.stdout.splitlines():
        m = re.match(r"#define ([A-Za-z_][A-Za-z0-9_]*)", line)
        if m:
            names.add(m.group(1))
    return names


def compile_program(formac, work, name):
    base = os.path.join(work, "p", name)
    with open(base + ".idsl", "w") as f:
        f.write(PROGRAM)
    r = run([formac, base + ".idsl", "--print-c", "-o", base + ".c", "--header-file", base + ".h"])
    if r.returncode != 0:
        return name, None, r.stderr
    return name, "_pipeline" in open(base + ".h").read(), r.stderr


def unit_fails(compiler, lang, work, names, tag):
    """Whether one unit including the headers and the headers of `names` fails to compile."""
    ext = {"c": ".c", "c++": ".cpp", "cu": ".cu"}[lang]
    path = os.path.join(work, f"unit_{tag}{ext}")
    with open(path, "w") as f:
        f.write("#ifndef _GNU_SOURCE\n#define _GNU_SOURCE\n#endif\n")
        if lang == "cu":
            f.write("#include <cuda_runtime.h>\n")
        f.write("".join(f"#include <{h}>\n" for h in HEADERS))
        f.write("".join(f'#include "p/{n}.h"\n' for n in names))
    if lang == "cu":
        cmd = [compiler, "-arch=sm_90", "-Xcompiler", "-fopenmp", "-c", path, "-o", path + ".o"]
    else:
        cmd = [compiler, "-fopenmp", "-fsyntax-only", "-Werror", "-x", lang, path]
    r = run(cmd, cwd=work)
    return r.returncode != 0, r.stderr


def failing_names(compiler, lang, work, names, tag=""):
    failed, log = unit_fails(compiler, lang, work, names, tag or "all")
    if not failed:
        return []
    if len(names) == 1:
        return [(names[0], log[-1500:])]
    half = len(names) // 2
    return (failing_names(compiler, lang, work, names[:half], tag + "a") +
            failing_names(compiler, lang, work, names[half:], tag + "b"))


def covered_by_prefix(name):
    """Names EntryName.cpp's prefix rules already reserve."""
    if name.startswith(("__", "omp_", "cuda", "CUDA", "nvrtc", "formac_", "FORMAC_")):
        return True
    return any(name.startswith(p) and len(name) > len(p) and name[len(p)].isupper()
               for p in ("_", "cu", "nv"))


def write_list(path, names):
    names = sorted(n for n in names if not covered_by_prefix(n))
    with open(path, "w") as f:
        f.write("// Generated by tests/names/check_entry_names.py --write-list: the identifiers and\n"
                "// macros of the headers generated code includes (glibc, _GNU_SOURCE; libgomp's\n"
                "// omp.h) and its EXTRA_NAMES (C's and C++'s keywords, other headers' and CUDA's\n"
                "// names), less those EntryName.cpp's prefix rules cover. A file stem among them\n"
                "// gets the entry point STEM_pipeline.\n")
        line = ""
        for n in names:
            item = f'"{n}", '
            if len(line) + len(item) > 96:
                f.write(line.rstrip() + "\n")
                line = ""
            line += item
        f.write(line.rstrip() + "\n")
    print(f"{len(names)} names written to {path}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--formac")
    ap.add_argument("--write-list")
    ap.add_argument("--work", required=True)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--cxx", default="c++")
    ap.add_argument("--clang", default="")
    ap.add_argument("--nvcc", default="")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    os.makedirs(os.path.join(a.work, "p"), exist_ok=True)

    names = header_names(a.cc, a.work) | EXTRA_NAMES
    names = sorted(n for n in names if IDENT.fullmatch(n))
    if a.write_list:
        write_list(a.write_list, names)
        return 0
    names += ORDINARY
    problems = []
    renamed, kept = [], []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for name, was_renamed, err in pool.map(lambda n: compile_program(a.formac, a.work, n), names):
            if was_renamed is None:
                problems.append((name, "formac failed:\n" + err))
            else:
                (renamed if was_renamed else kept).append(name)
                if was_renamed and "_pipeline" not in err:
                    problems.append((name, "renamed without a warning"))
    good = renamed + kept
    print(f"{len(names)} names: {len(renamed)} entry points renamed, {len(kept)} kept")
    if sorted(kept) != sorted(ORDINARY):
        problems.append(("(kept)", f"kept {sorted(kept)}, expected exactly {sorted(ORDINARY)}"))

    compilers = [(a.cc, "c"), (a.cxx, "c++")]
    if a.clang:
        compilers.append((a.clang, "c"))
    if a.nvcc:
        compilers.append((a.nvcc, "cu"))
    for compiler, lang in compilers:
        failed, log = unit_fails(compiler, lang, a.work, [], "none")
        if failed:  # the headers alone: no name is to blame
            problems.append(("(no program)", f"{compiler} -x {lang}:\n{log[-1500:]}"))
            continue
        bad = failing_names(compiler, lang, a.work, good)
        print(f"{os.path.basename(compiler)} ({lang}), every header in one unit: {len(bad)} names fail")
        problems += [(n, f"{compiler} -x {lang}:\n{log}") for n, log in bad]

    # The generated code itself: the ordinary names and a sample of the renamed.
    sample = kept + renamed[:: max(1, len(renamed) // 40)]
    def build(name):
        base = os.path.join(a.work, "p", name)
        r = run([a.cc, "-fopenmp", "-Werror", "-c", base + ".c", "-o", base + ".o"])
        return name, r
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for name, r in pool.map(build, sample):
            if r.returncode:
                problems.append((name, f"{a.cc} {name}.c:\n{r.stderr[-1500:]}"))
    print(f"{len(sample)} generated .c files compiled")
    if a.nvcc:
        for name in ["log", "max", "dim3"]:
            base = os.path.join(a.work, "p", name)
            r = run([a.formac, base + ".idsl", "--print-cuda", "-o", base + ".cu", "-w"])
            if r.returncode == 0:
                r = run([a.nvcc, "-arch=sm_90", "-c", base + ".cu", "-o", base + ".cu.o"])
            if r.returncode:
                problems.append((name, f"{a.nvcc} {name}.cu:\n{r.stderr[-1500:]}"))
        print("3 generated .cu files compiled")

    for name, why in problems:
        print(f"FAIL {name}: {why}")
    print(f"{len(problems)} failures")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
