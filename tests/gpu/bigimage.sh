#!/usr/bin/env bash
# tests/gpu/bigimage.sh — images of more than 2^31 points on the GPU (README.md: "Big images").
#   bash tests/gpu/bigimage.sh prepare   # here: formac's CUDA (fused, --no-fuse) and C of
#                                        # bigimage/big2d.idsl and big3d.idsl into .bench-gpu/bigimage,
#                                        # compiled and linked with nvcc to catch errors
#   bash tests/gpu/bigimage.sh device    # on the GPU machine, .bench-gpu carried: build and run
# prepare: FORMAC=path (default build/formac). device: arguments go to the driver
# (--2d N, --2d-small N, --3d N, --only 2d|2d-small|3d). Needs about 35 GB of host memory and
# 30 GB of device memory (the --no-fuse run of 50000 x 50000: input, intermediate, output).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
B="$repo/.bench-gpu/bigimage"
NV=(nvcc -arch=sm_90 -O3 -std=c++17)

build() {  # compile everything in $B and link $B/bigimage
  local pids=() f
  for f in "$B"/*_f.cu "$B"/*_u.cu; do
    "${NV[@]}" -c "$f" -o "${f%.cu}.o" &
    pids+=($!)
  done
  for f in "$B"/*_c.c; do gcc -std=c99 -O3 -march=native -fopenmp -c "$f" -o "${f%.c}.o"; done
  "${NV[@]}" -I"$B" -Xcompiler -fopenmp -c "$here/bigimage/bigimage.cu" -o "$B/bigimage.o"
  for p in "${pids[@]}"; do wait "$p"; done
  "${NV[@]}" -o "$B/bigimage" "$B"/*.o -Xcompiler -fopenmp
}

case "${1:-}" in
  prepare)
    FORMAC="${FORMAC:-$repo/build/formac}"
    rm -rf "$B" && mkdir -p "$B"
    for p in big2d big3d; do
      src="$here/bigimage/$p.idsl"
      "$FORMAC" "$src" --print-cuda --kernel-name "${p}_f" --cuda-output "$B/${p}_f.cu" --header-file "$B/${p}_f.h"
      "$FORMAC" "$src" --print-cuda --no-fuse --kernel-name "${p}_u" --cuda-output "$B/${p}_u.cu" --header-file "$B/${p}_u.h"
      "$FORMAC" "$src" --print-c --kernel-name "${p}_c" --c-output "$B/${p}_c.c" --header-file "$B/${p}_c.h"
    done
    if [ "${LOCAL_NVCC:-1}" != 0 ] && command -v nvcc >/dev/null; then  # LOCAL_NVCC=0: the device builds it
      build
      rm -f "$B"/*.o "$B/bigimage"
      echo "== compiled and linked here (runs only on a GPU)"
    fi
    echo "== ready: carry .bench-gpu and run bash tests/gpu/bigimage.sh device on the GPU machine"
    ;;
  device)
    shift
    [ -f "$B/big2d_f.cu" ] || { echo "bigimage.sh: run bigimage.sh prepare first and carry .bench-gpu" >&2; exit 1; }
    nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv,noheader || true
    free -g | head -2
    build
    "$B/bigimage" "$@"
    ;;
  *) echo "usage: bigimage.sh prepare|device [driver options]" >&2; exit 2 ;;
esac
