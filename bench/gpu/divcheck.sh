#!/usr/bin/env bash
# On the GPU machine, after bench/gpu/prepare.sh here (.bench-gpu carried):
#   bash bench/gpu/divcheck.sh
# Compares formac_div_odd_f and formac_div_odd_finite_f (taken from formac's
# CUDA for blur) with __fdiv_rn over all 2^32 floats (the finite one over the
# finite ones), for every odd divisor below 4096 (and their negatives)
# and odd ones up to 2^21 sampled. See divcheck.cu.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
B="${BENCH_DIR:-$here/../../.bench-gpu}"
mkdir -p "$B/build"
sed -n '/^static __device__ __forceinline__ float formac_div_odd/,/^}/p' "$B/gen/blur.cu" > "$B/build/div_odd.h"
grep -q formac_div_odd_finite_f "$B/build/div_odd.h" || { echo "divcheck: no formac_div_odd_(finite_)f in $B/gen/blur.cu"; exit 2; }
nvcc -arch=sm_90 -O3 -I"$B/build" -o "$B/build/divcheck" "$here/divcheck.cu"
divisors=$(python3 -c "
import random
r = random.Random(7)
odd = list(range(3, 4096, 2))
odd += sorted(r.randrange(4097, 1 << 21) | 1 for _ in range(400)) + [(1 << 21) - 1, (1 << 21) - 3]
print(' '.join(str(c) for c in odd + [-c for c in odd[:200]]))")
"$B/build/divcheck" $divisors
