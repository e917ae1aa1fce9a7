#!/usr/bin/env bash
# bench/gpu/run_on_device.sh — run on the GPU machine, from the repository
# root, after bench/gpu/prepare.sh filled .bench-gpu/ here and it was carried
# there. Builds the benchmark with nvcc -arch=sm_90 -O3 (formac's generated
# CUDA, the NPP and Halide peers, the driver), runs it and prints the table
# last. Writes logs and the table to $OUT when set (else .bench-gpu/out).
#   bash bench/gpu/run_on_device.sh [bench_gpu options...]
# Environment: BENCH_NVFLAGS adds nvcc flags (e.g. -lineinfo for ncu's source
# page); EXPERIMENTS=1 first runs a diagnostic pass (sizes EXP_SIZES,
# default 8192) with the variants listed in .bench-gpu/exp/experiments.inc
# beside formac's own (bench_experiments.log; see bench_gpu.cu);
# NCU=1 also profiles formac's fused canny kernel with Nsight
# Compute (--clock-control none) and takes every kernel's duration and DRAM
# bytes at 8192x8192 (ncu_kernels.csv).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"
B="$repo/.bench-gpu"
OUTDIR="${OUT:-$B/out}"
mkdir -p "$OUTDIR" "$B/build"
if [ ! -f "$B/gen/blur.cu" ]; then
  echo "run_on_device.sh: $B/gen is missing: run bench/gpu/prepare.sh first and carry .bench-gpu" >&2
  exit 1
fi
CUDA="${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}"
NV=(nvcc -arch=sm_90 -O3 -std=c++17 -I"$B/gen" -I"$here" ${BENCH_NVFLAGS:-})
log="$OUTDIR/build.log"
: > "$log"
echo "== nvcc: $(nvcc --version | tail -1); CUDA at $CUDA" | tee -a "$log"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw --format=csv 2>&1 | tee -a "$log"

# formac's generated CUDA, fused and unfused, in parallel
pids=()
exp=()
[ -f "$B/exp/experiments.inc" ] && exp=(-DBENCH_EXPERIMENTS -I"$B/exp")
for f in "$B"/gen/*.cu "$B"/exp/*.cu; do
  [ -f "$f" ] || continue
  n="$(basename "$f" .cu)"
  ( "${NV[@]}" -Xptxas -v -c "$f" -o "$B/build/$n.o" > "$B/build/$n.ptxas.txt" 2>&1 || echo "FAILED: $n" >> "$B/build/$n.ptxas.txt" ) &
  pids+=($!)
done
"${NV[@]}" "${exp[@]}" -c "$here/bench_gpu.cu" -o "$B/build/bench_gpu.o" >> "$log" 2>&1 || { echo "bench_gpu.cu failed to compile" | tee -a "$log"; cat "$log"; exit 1; }

# Halide peers (objects AOT-compiled by prepare.sh; the driver JIT-compiles their PTX)
hobjs=()
if [ -f "$B/halide/halide_runtime.o" ]; then
  if "${NV[@]}" -x c++ -DBENCH_HALIDE -I"$B/halide" -I"$B/halide/include" -c "$here/peers_halide.cpp" -o "$B/build/peers_halide.o" >> "$log" 2>&1; then
    hobjs=("$B"/halide/*.o)
  else
    echo "== Halide peers failed to compile; building without them" | tee -a "$log"
    "${NV[@]}" -x c++ -c "$here/peers_halide.cpp" -o "$B/build/peers_halide.o"
  fi
else
  "${NV[@]}" -x c++ -c "$here/peers_halide.cpp" -o "$B/build/peers_halide.o"
fi

# NPP peers, where NPP is installed
npp_libs=()
if [ -f "$CUDA/include/npp.h" ] || [ -f "$CUDA/targets/x86_64-linux/include/npp.h" ]; then
  if "${NV[@]}" -DBENCH_NPP -c "$here/peers_npp.cu" -o "$B/build/peers_npp.o" >> "$log" 2>&1; then
    npp_libs=(-lnppif -lnppc)
  else
    echo "== NPP peers failed to compile; building without them. NPP's declarations:" | tee -a "$log"
    grep -rhE -A4 "nppiFilter(Canny|HarrisCorners)BorderGetBufferSize|NppStatus nppiFilter(Canny|HarrisCorners)Border_|NppStatus nppiFilter(Box|Column|Row|Gauss)Border_(32f|8u)_C1R_Ctx" \
      "$CUDA/include/" "$CUDA/targets/x86_64-linux/include/" 2>/dev/null | head -80 >> "$log"
    "${NV[@]}" -c "$here/peers_npp.cu" -o "$B/build/peers_npp.o"
  fi
else
  echo "== no NPP headers under $CUDA: building without the NPP peers" | tee -a "$log"
  "${NV[@]}" -c "$here/peers_npp.cu" -o "$B/build/peers_npp.o"
fi
for pid in "${pids[@]}"; do wait "$pid"; done
if grep -l FAILED "$B"/build/*.ptxas.txt; then cat "$B"/build/*.ptxas.txt; exit 1; fi
cat "$B"/build/*.ptxas.txt >> "$log"

link() {
  "${NV[@]}" -o "$B/build/bench_gpu" "$B"/build/*.o "${hobjs[@]}" "${npp_libs[@]}" -lcuda -ldl -lpthread
}
if ! link >> "$log" 2>&1; then
  if [ ${#npp_libs[@]} -gt 0 ]; then
    echo "== link with NPP failed; relinking without it" | tee -a "$log"
    "${NV[@]}" -c "$here/peers_npp.cu" -o "$B/build/peers_npp.o"
    npp_libs=()
  fi
  link >> "$log" 2>&1 || { echo "link failed" | tee -a "$log"; tail -30 "$log"; exit 1; }
fi
echo "== built $B/build/bench_gpu" | tee -a "$log"

if [ "${EXPERIMENTS:-0}" = 1 ] && [ ${#exp[@]} -gt 0 ]; then
  echo "== diagnostic run (--experiments: the variants of .bench-gpu/exp/experiments.inc)"
  "$B/build/bench_gpu" --experiments --sizes "${EXP_SIZES:-8192}" --md "$OUTDIR/table_experiments.md" 2>&1 | tee "$OUTDIR/bench_experiments.log"
fi

echo "== running"
"$B/build/bench_gpu" --md "$OUTDIR/table.md" "$@" 2>&1 | tee "$OUTDIR/bench.log"
rc=${PIPESTATUS[0]}

if [ "${NCU:-0}" = 1 ] && command -v ncu >/dev/null; then
  echo "== ncu: fused canny kernels of formac and Halide (check + timed call each), 8192x8192" | tee -a "$log"
  timeout 150 ncu --clock-control none -k "regex:canny_fused|_kernel_output" --launch-count 6 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats \
    "$B/build/bench_gpu" --only canny --sizes 8192 --reps 1 --warmup 0 --no-check > "$OUTDIR/ncu_canny_fused.txt" 2>&1
  echo "   rc $? ($OUTDIR/ncu_canny_fused.txt)"
  echo "== ncu: every kernel's duration and DRAM bytes, 8192x8192" | tee -a "$log"
  timeout 200 ncu --clock-control none --csv \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active \
    "$B/build/bench_gpu" --sizes 8192 --reps 1 --warmup 0 --no-check --no-flush > "$OUTDIR/ncu_kernels.csv" 2>&1
  echo "   rc $? ($OUTDIR/ncu_kernels.csv)"
fi


# the table again, last
cat "$OUTDIR/table.md"
exit "$rc"
