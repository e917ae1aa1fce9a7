#!/usr/bin/env bash
# On a GPU machine: builds examples/cuda_app (a C program linking formac's CUDA
# output through formac_add_pipeline(... TARGET_KIND cuda)) and runs it; the
# app checks every output point against the known values. See tests/gpu/README.md.
#
#   tests/gpu/run_cuda_app.sh [WORKDIR] [ARCH]   (defaults: build-cuda-app, 90)
#
# Builds formac (Release, no JIT, no tests, no examples), installs it into
# WORKDIR/prefix, then examples/check_cuda_app.cmake builds the app for sm_ARCH
# with nvcc and runs it. Prints the app's line, exits non-zero on any failure
# and when no GPU was found. Needs cmake, a C/C++ compiler, libpng, libjpeg,
# libtiff, libdeflate, nvcc and the NVIDIA driver.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mkdir -p "${1:-$root/build-cuda-app}" && cd "${1:-$root/build-cuda-app}" && pwd)
arch=${2:-90}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cmake -S "$root" -B "$work/formac" -DCMAKE_BUILD_TYPE=Release -DFORMAC_ENABLE_JIT=OFF \
      -DFORMAC_BUILD_TESTS=OFF -DFORMAC_BUILD_EXAMPLES=OFF >"$work/cmake.log" 2>&1
cmake --build "$work/formac" -j"$(nproc)" >>"$work/cmake.log" 2>&1
out=$(cmake -DBUILD="$work/formac" -DAPP="$root/examples/cuda_app" -DWORK="$work/app" \
            -DNVCC="$nvcc" -DGENERATOR="Unix Makefiles" -DC_COMPILER=cc -DCUDA_ARCHITECTURES="$arch" \
            -P "$root/examples/check_cuda_app.cmake" 2>&1)
echo "$out"
case "$out" in
  *"every point matches"*) exit 0 ;;
  *) echo "cuda_app: not run or failed"; exit 1 ;;
esac
