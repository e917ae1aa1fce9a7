#!/bin/bash
# Runs the rank-fusion bundle (tests/gpu/make_rankfusion_bundle.py) on the GPU machine:
# per program, nvcc -O3 of its fused CUDA (timed: the "nvcc s" column), its unfused CUDA and C,
# then its driver: fused and unfused time (ms, median of 50 run_async calls on device images),
# a device-to-device copy of the input (the memory floor), fused / copy, unfused / fused, and
# whether C, fused and unfused agree bit for bit at the small size and fused and unfused at
# the large one.
#   bash tests/gpu/rankfusion.sh [BUNDLE]        (default .bench-gpu/rankfusion; ARCH=90)
set -u
B=${1:-.bench-gpu/rankfusion}
ARCH=${ARCH:-90}
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null || NVCC=/usr/local/cuda/bin/nvcc
cd "$B" || { echo "no bundle at $B (python3 tests/gpu/make_rankfusion_bundle.py)"; exit 1; }
build() {
  local p=$1 t0 t1
  t0=$(date +%s.%N)
  "$NVCC" -arch=sm_$ARCH -O3 -c ${p}_f.cu -o ${p}_f.o || return 1
  t1=$(date +%s.%N)
  awk "BEGIN { print $t1 - $t0 }" > ${p}_f.seconds
  "$NVCC" -arch=sm_$ARCH -O3 -c ${p}_u.cu -o ${p}_u.o || return 1
  gcc -O2 -c ${p}_c.c -o ${p}_c.o || return 1
  "$NVCC" -arch=sm_$ARCH -O3 -std=c++17 -o ${p}_bench ${p}_bench.cu ${p}_f.o ${p}_u.o ${p}_c.o -lm || return 1
}
for p in $(cat programs.txt); do build $p > ${p}_build.log 2>&1 & done
wait
printf "%-13s %-20s %10s %10s %10s %8s %8s %8s  %-5s %-5s\n" program size "fused ms" "unfused ms" "copy ms" \
  fused/cp unf/fus "nvcc s" small large
fail=0
for p in $(cat programs.txt); do
  if [ ! -x ${p}_bench ]; then echo "$p: build failed"; tail -20 ${p}_build.log; fail=1; continue; fi
  ./${p}_bench "$(printf %.1f "$(cat ${p}_f.seconds)")" || fail=1
done
exit $fail
