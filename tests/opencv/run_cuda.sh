#!/usr/bin/env bash
# The OpenCV boundary comparison (README.md here) against formac's CUDA backend, for a
# GPU machine: generates the same programs as the ctest suite (Variants.cmake), turns
# each into CUDA with formac (fused, and --no-fuse for programs of several stages),
# builds them with nvcc, links them with the same test source (opencv_boundary_test.cpp:
# the CUDA entry points have the C signatures and take host pointers) and runs it.
#
#   tests/opencv/run_cuda.sh [--build-only] [--only GLOB] [-- GTEST_ARGS...]
#
# Environment: FORMAC (default build/formac), WORK (default build/opencv_cuda),
# NVCC (default nvcc on PATH, else /usr/local/cuda/bin/nvcc), CUDA_ARCH (sm_90),
# JOBS (default nproc), CXX (g++). --only GLOB keeps the entry points whose name
# matches GLOB (e.g. 'chain_*'); --build-only stops after linking (machines without
# a GPU). FORMAC_OPENCV_SIZES=RxC,... works as for the ctest suite.
# Needs: formac built, nvcc, cmake, a C++17 compiler, GoogleTest (libgtest-dev) and
# OpenCV's core and imgproc headers and libraries (pkg-config opencv4, or Debian's
# libopencv-imgproc-dev under /usr/include/opencv4).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build_only=0
only='*'
while (($#)); do
  case "$1" in
    --build-only) build_only=1; shift ;;
    --only) only=${2:?--only needs a glob}; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
formac=${FORMAC:-$root/build/formac}
work=${WORK:-$root/build/opencv_cuda}
arch=${CUDA_ARCH:-sm_90}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
cxx=${CXX:-g++}
die() { echo "run_cuda.sh: $*" >&2; exit 2; }

[ -x "$formac" ] || die "no formac at $formac (build it, or set FORMAC)"
nvcc=${NVCC:-$(command -v nvcc || true)}
[ -n "$nvcc" ] || nvcc=/usr/local/cuda/bin/nvcc
[ -x "$nvcc" ] || die "nvcc not found (set NVCC or put it on PATH)"
command -v cmake >/dev/null || die "cmake not found"

# OpenCV: pkg-config first; Debian's libopencv-imgproc-dev ships no opencv4.pc.
if pkg-config --exists opencv4 2>/dev/null; then
  opencv_cflags=$(pkg-config --cflags opencv4)
  opencv_libs="$(pkg-config --libs-only-L opencv4) -lopencv_imgproc -lopencv_core"
elif [ -f /usr/include/opencv4/opencv2/imgproc.hpp ]; then
  opencv_cflags=-I/usr/include/opencv4
  opencv_libs="-lopencv_imgproc -lopencv_core"
else
  die "OpenCV (core, imgproc) not found: no pkg-config opencv4 and no /usr/include/opencv4/opencv2/imgproc.hpp (apt-get install libopencv-imgproc-dev)"
fi
if pkg-config --exists gtest_main 2>/dev/null; then
  gtest_libs=$(pkg-config --libs gtest_main)
else
  gtest_libs="-lgtest_main -lgtest -lpthread"
fi

# The programs and the test's include files, as the C suite has them.
mkdir -p "$work/gen"
cmake -DOUT="$work" -DBACKEND=cuda -P "$here/Variants.cmake"
list="$work/kernels.selected.txt"
: >"$list"
while read -r name idsl variant; do
  # shellcheck disable=SC2053
  [[ $name == $only ]] && echo "$name $idsl $variant" >>"$list"
done <"$work/kernels.txt"
count=$(wc -l <"$list")
[ "$count" -gt 0 ] || die "no entry point matches --only '$only'"
echo "run_cuda.sh: $count entry points, formac $formac, $nvcc -arch=$arch, $jobs jobs"

# The test's include files list only the selected entry points.
grep -F -f <(awk '{print "\"" $1 ".h\""}' "$list") "$work/formac_opencv_headers.h" \
  >"$work/gen/formac_opencv_headers.h" || true
grep -F -f <(awk '{print " " $1 ","}' "$list") "$work/formac_opencv_kernels.inc" \
  >"$work/gen/formac_opencv_kernels.inc" || true

# formac, then nvcc, for each entry point (skipped when the object is newer than
# formac and the program).
export formac nvcc arch work
build_one() {
  local name=$1 idsl=$2 variant=$3 opt=""
  local cu="$work/gen/$name.cu" obj="$work/gen/$name.o"
  [ "$variant" = unfused ] && opt=--no-fuse
  if [ -f "$obj" ] && [ "$obj" -nt "$formac" ] && [ "$obj" -nt "$idsl" ]; then return 0; fi
  "$formac" "$idsl" --print-cuda --cuda-output "$cu" --header-file "$work/gen/$name.h" \
    --kernel-name "$name" $opt || { echo "FAIL formac $name"; return 1; }
  "$nvcc" -arch="$arch" -O3 -c "$cu" -o "$obj" >"$work/gen/$name.log" 2>&1 ||
    { echo "FAIL nvcc $name (see $work/gen/$name.log)"; head -5 "$work/gen/$name.log"; return 1; }
}
export -f build_one
if ! xargs -P "$jobs" -L 1 bash -c 'build_one "$@"' _ <"$list"; then
  die "some entry points did not build (above)"
fi

# The test itself: the same source as the C suite, linked with the CUDA objects.
objs=$(awk -v d="$work/gen" '{print d "/" $1 ".o"}' "$list")
# shellcheck disable=SC2086
"$cxx" -std=c++17 -O2 -Wall -Wextra -I"$work/gen" $opencv_cflags -c "$here/opencv_boundary_test.cpp" \
  -o "$work/opencv_boundary_test.o"
# shellcheck disable=SC2086
"$nvcc" -arch="$arch" -o "$work/opencv_boundary_test_cuda" "$work/opencv_boundary_test.o" $objs \
  $opencv_libs $gtest_libs -lm
echo "run_cuda.sh: built $work/opencv_boundary_test_cuda"
[ "$build_only" = 1 ] && exit 0
"$work/opencv_boundary_test_cuda" "$@"
