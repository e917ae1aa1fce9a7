#!/usr/bin/env bash
# AOT-compiles the Halide generators of bench/gpu/halide into object files and
# headers under OUTDIR (default: <repo>/.bench-gpu/halide). Runs on the
# development machine (needs Debian's libhalide14-0-dev, no GPU); the objects
# embed PTX for sm_86 that the CUDA driver JIT-compiles on the GPU machine.
#   bash bench/gpu/halide/build_halide.sh [OUTDIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
out="${1:-$repo/.bench-gpu/halide}"
target="x86-64-linux-cuda-cuda_capability_86"
inc=/usr/include/halide14
gengen=/usr/src/halide14/GenGen.cpp
if [ ! -f "$inc/Halide.h" ] || [ ! -f "$gengen" ]; then
  echo "build_halide.sh: Halide 14 is missing: apt-get install libhalide14-0-dev" >&2
  exit 1
fi
mkdir -p "$out"
gen="$out/bench_generators"
srcs=("$here"/blur_gen.cpp "$here"/harris_gen.cpp "$here"/canny_gen.cpp)
if [ ! -x "$gen" ] || [ -n "$(find "${srcs[@]}" "$here/common.h" -newer "$gen")" ]; then
  echo "building the generators"
  g++ -std=c++17 -O1 -I"$inc" "${srcs[@]}" "$gengen" -o "$gen" -lHalide14 -ldl -lpthread
fi
# One shared runtime (with the CUDA module); the pipelines are built without it.
"$gen" -r halide_runtime -o "$out" -e object,h target="$target"
for p in blur harris canny; do
  for t in 8 32; do
    name="halide_${p}_t${t}"
    echo "generating $name"
    "$gen" -g "bench_$p" -f "$name" -o "$out" -e object,h,stmt,assembly \
      target="$target-no_runtime" tile_y="$t"
  done
done
ls -la "$out"
