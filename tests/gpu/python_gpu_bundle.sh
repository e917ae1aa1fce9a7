#!/usr/bin/env bash
# Copies pybind11's and DLPack's headers from this machine (Debian:
# pybind11-dev, libdlpack-dev) into build-gpu-headers/include, for a GPU
# machine that has neither: carry build-gpu-headers with the checkout and
# tests/gpu/python_gpu.sh uses it when it finds no pybind11 there.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$root/build-gpu-headers/include"
cp -r /usr/include/pybind11 /usr/include/dlpack "$root/build-gpu-headers/include/"
du -sh "$root/build-gpu-headers"
