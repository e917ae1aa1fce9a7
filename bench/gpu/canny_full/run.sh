#!/usr/bin/env bash
# bench/gpu/canny_full/run.sh — Canny with hysteresis on the GPU against NPP (README.md).
#   bash bench/gpu/canny_full/run.sh prepare   # here: generate CUDA and C into .bench-gpu/canny_full
#   bash bench/gpu/canny_full/run.sh device    # on the GPU machine, .bench-gpu carried: build and run
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
B="$repo/.bench-gpu/canny_full"
case "${1:-}" in
  prepare)
    FORMAC="${FORMAC:-$repo/build/formac}"
    rm -rf "$B" && mkdir -p "$B"
    p="$repo/examples/canny/canny_opencv.idsl"
    "$FORMAC" "$p" -w --print-cuda --kernel-name canny_gpu --cuda-output "$B/canny_gpu.cu" --header-file "$B/canny_gpu.h"
    "$FORMAC" "$p" -w --print-c --kernel-name canny_cpu --c-output "$B/canny_cpu.c" --header-file "$B/canny_cpu.h"
    # The photo as raw bytes (a .npy), through an identity program.
    printf 'stencil id(vector#2 int8 X) { return X; }\nparameter M, N;\nvector#2 int8 img[M,N];\nreturn id(img);\n' > "$B/id.idsl"
    "$FORMAC" run "$B/id.idsl" --backend=eval --input "$repo/examples/data/camera.png" --output "$B/camera.npy" >/dev/null
    cp "$here/../bench_timing.h" "$here/bench_canny_full.cu" "$B/"
    echo "prepared $B"
    ;;
  device)
    shift
    cd "$B"
    CUDA="$(dirname "$(dirname "$(command -v nvcc)")")"
    npp=()
    if [ -f "$CUDA/include/npp.h" ] || [ -f "$CUDA/targets/x86_64-linux/include/npp.h" ]; then
      npp=(-DBENCH_NPP -lnppif -lnppc)
    fi
    gcc -O3 -march=native -fopenmp -c canny_cpu.c -o canny_cpu.o
    nvcc -arch=sm_90 -O3 -std=c++17 -I. bench_canny_full.cu canny_gpu.cu canny_cpu.o -Xcompiler -fopenmp \
      -o bench_canny_full "${npp[@]}"
    ./bench_canny_full "$@"
    ;;
  *) echo "usage: run.sh prepare|device [--size N] [--reps R]" >&2; exit 2 ;;
esac
