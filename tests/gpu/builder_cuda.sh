#!/usr/bin/env bash
# On a GPU machine: the embedded builder's pipelines (compiler/builder) through
# the CUDA backend (NVRTC + the driver API) against the evaluator, byte for byte:
# tests/run/builder_test with FORMAC_TEST_CUDA=1 (blur, harris and canny built
# in C++; the other cases run on the evaluator and the JIT as in CI).
#
#   tests/gpu/builder_cuda.sh [WORKDIR]     (default: build-builder-cuda)
#
# Builds builder_test from this checkout (Release, no JIT, no examples); needs
# cmake, a C/C++ compiler, GoogleTest, libpng, the NVIDIA driver and NVRTC.
# Prints gtest's summary and exits non-zero when anything failed.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mkdir -p "${1:-$root/build-builder-cuda}" && cd "${1:-$root/build-builder-cuda}" && pwd) || exit 2
if ! cmake -S "$root" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DFORMAC_ENABLE_JIT=OFF \
      -DFORMAC_BUILD_EXAMPLES=OFF >"$work/cmake.log" 2>&1 ||
   ! cmake --build "$work/build" -j"$(nproc)" --target builder_test >>"$work/cmake.log" 2>&1; then
  tail -30 "$work/cmake.log"
  echo "builder cuda: the build failed ($work/cmake.log)"
  exit 2
fi
cd "$work/build/tests/run" && FORMAC_TEST_CUDA=1 ./builder_test
