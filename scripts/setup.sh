#!/usr/bin/env bash
# Installs what formac needs on a Debian machine (only the missing packages)
# and builds it into build/. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
have() { dpkg -s "$1" >/dev/null 2>&1; }
# clang + libclang-rt-14-dev: the libFuzzer test of the front end (tests/fuzz).
# llvm-14-dev libclang-14-dev libclang-cpp14-dev libomp-14-dev liblld-14-dev: the JIT of
# `formac run` (compiler/run; the build goes on without it, FORMAC_ENABLE_JIT=OFF).
# libopencv-imgproc-dev (pulls libopencv-core-dev): tests/opencv, every boundary mode
# against OpenCV's filters (skipped without it). Not libopencv-dev: that brings every
# OpenCV module and its GUI, video and codec dependencies for two libraries.
# python3-dev pybind11-dev python3-numpy python3-pytest libdlpack-dev: the Python module
# `formac` (python/) and its tests (the build goes on without the module).
# libpng-dev libjpeg-dev libtiff-dev libdeflate-dev: the runtime's image files (PNG read with
# libpng, written with libdeflate; JPEG; TIFF), all required. On Debian libjpeg-dev pulls
# libjpeg62-turbo-dev.
for pkg in cmake g++ gcc make libgtest-dev libpng-dev libjpeg-dev libtiff-dev libdeflate-dev \
           pkg-config clang libclang-rt-14-dev \
           llvm-14-dev libclang-14-dev libclang-cpp14-dev libomp-14-dev liblld-14-dev \
           libopencv-imgproc-dev \
           python3-dev pybind11-dev python3-numpy python3-pytest libdlpack-dev; do
  have "$pkg" || need+=("$pkg")
done
if ((${#need[@]})); then
  echo "setup: installing ${need[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs"
