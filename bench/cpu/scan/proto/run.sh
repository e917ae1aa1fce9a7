#!/usr/bin/env bash
# bench/cpu/scan/proto/run.sh [rounds] — build the prototypes against the bench's generated
# C (run bench/cpu/scan/run.sh first) and time them (README.md here).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
gen="${BENCH_BUILD_DIR:-$here/../build}/formac"
out="${PROTO_BUILD_DIR:-$here/../build/proto}"
flags="-O3 -march=native -fopenmp"
bash "$here/variants.sh" "$gen" "$out"
cd "$out"
for c in *.c "$here"/sat_fused.c "$here"/sat8_fused.c "$here"/sat8_vec.c "$here"/scancol_rowmajor.c; do
  gcc $flags -I"$out" -c "$c" -o "$(basename "${c%.c}").o" -fopt-info-vec-optimized="$(basename "${c%.c}").vec"
done
g++ -O2 $(pkg-config --cflags opencv4 2>/dev/null || echo -I/usr/include/opencv4) -c "$here/opencv_ref.cpp" -o opencv_ref.o
gcc $flags -I"$out" "$here/harness.c" *.o -o harness -lopencv_imgproc -lopencv_core -lstdc++
[ "${PROTO_BUILD_ONLY:-0}" = 1 ] || OMP_STACKSIZE=16M ./harness "${1:-15}"
