#!/usr/bin/env bash
# bench/gpu/prepare.sh — run on the development machine (no GPU needed).
# Builds formac if needed, generates the CUDA of blur/harris/canny fused and
# unfused, AOT-compiles the Halide peers, and compiles everything with nvcc
# -arch=sm_90 to catch errors early. Everything lands in <repo>/.bench-gpu/
# (ignored by git), the folder that run_on_device.sh needs on the GPU machine:
#   bash bench/gpu/prepare.sh            # then carry .bench-gpu to the device
# Environment: FORMAC=path/to/formac (default build-lead/formac, built if missing),
# SKIP_HALIDE=1 to leave the Halide peers out.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"
B="$repo/.bench-gpu"
FORMAC="${FORMAC:-$repo/build-lead/formac}"
mkdir -p "$B/gen" "$B/check"

if [ ! -x "$FORMAC" ]; then
  echo "== building formac ($FORMAC)"
  bdir="$(dirname "$FORMAC")"
  cmake -S "$repo" -B "$bdir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$bdir" -j2 --target formac
fi

echo "== generating CUDA with $FORMAC"
for p in blur harris canny; do
  # fused (the default) and one kernel per stage
  "$FORMAC" "bench/gpu/$p.idsl" --print-cuda --kernel-name "$p" \
    --cuda-output "$B/gen/$p.cu" --header-file "$B/gen/$p.h"
  "$FORMAC" "bench/gpu/$p.idsl" --print-cuda --no-fuse --kernel-name "${p}_nf" \
    --cuda-output "$B/gen/${p}_nf.cu" --header-file "$B/gen/${p}_nf.h"
done
# Experiments (bench_gpu --experiments): variants of the generated CUDA kept in
# $B/exp by whoever measures a change (name.cu, name.h and a line in
# experiments.inc each: see bench_gpu.cu); left as they are.
mkdir -p "$B/exp"
"$FORMAC" --version 2>/dev/null | head -1 > "$B/gen/FORMAC_VERSION" || true
git -C "$repo" rev-parse --short HEAD > "$B/gen/REPO_COMMIT" 2>/dev/null || true

if [ "${SKIP_HALIDE:-0}" != 1 ]; then
  echo "== Halide 14 peers"
  if [ ! -f /usr/include/halide14/Halide.h ]; then
    echo "   installing libhalide14-0-dev"
    apt-get install -y libhalide14-0-dev >/dev/null
  fi
  bash "$here/halide/build_halide.sh" "$B/halide"
  mkdir -p "$B/halide/include"
  cp /usr/include/halide14/HalideRuntime.h /usr/include/halide14/HalideRuntimeCuda.h "$B/halide/include/"
  rm -f "$B/halide"/*.s  # not needed on the device

  echo "== host check: float64 reference vs formac's C vs the Halide algorithms"
  H="$B/hostcheck"
  mkdir -p "$H"
  "$B/halide/bench_generators" -r halide_runtime_host -o "$H" -e object,h target=host
  for p in blur harris canny; do
    "$B/halide/bench_generators" -g "bench_$p" -f "halide_${p}_host" -o "$H" -e object,h target=host-no_runtime tile_y=0
    "$FORMAC" "bench/gpu/$p.idsl" --print-c --kernel-name "c_$p" --c-output "$H/c_$p.c" --header-file "$H/c_$p.h"
    gcc -O2 -c "$H/c_$p.c" -o "$H/c_$p.o"
  done
  g++ -std=c++17 -O2 -I"$H" -I"$here" -I/usr/include/halide14 "$here/host_check.cpp" "$H"/*.o -o "$H/host_check" -ldl -lpthread
  "$H/host_check"
  rm -rf "$H" "$B/halide/bench_generators"
else
  rm -rf "$B/halide"
fi

if command -v nvcc >/dev/null; then
  echo "== compiling here with nvcc -arch=sm_90 (NPP only on the device)"
  NV=(nvcc -arch=sm_90 -O3 -std=c++17 -I"$B/gen" -I"$here")
  pids=()
  for f in "$B"/gen/*.cu "$B"/exp/*.cu; do
    [ -f "$f" ] || continue
    "${NV[@]}" -c "$f" -o "$B/check/$(basename "$f" .cu).o" -Xptxas -v > "$B/check/$(basename "$f" .cu).ptxas.txt" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  exp=()
  [ -f "$B/exp/experiments.inc" ] && exp=(-DBENCH_EXPERIMENTS -I"$B/exp")
  "${NV[@]}" "${exp[@]}" -c "$here/bench_gpu.cu" -o "$B/check/bench_gpu.o"
  "${NV[@]}" -c "$here/peers_npp.cu" -o "$B/check/peers_npp.o"
  hobjs=()
  if [ -d "$B/halide" ]; then
    "${NV[@]}" -x c++ -DBENCH_HALIDE -I"$B/halide" -I"$B/halide/include" -c "$here/peers_halide.cpp" -o "$B/check/peers_halide.o"
    hobjs=("$B"/halide/*.o)
  else
    "${NV[@]}" -x c++ -c "$here/peers_halide.cpp" -o "$B/check/peers_halide.o"
  fi
  "${NV[@]}" -o "$B/check/bench_gpu" "$B"/check/*.o "${hobjs[@]}" \
    -L/usr/local/cuda/lib64/stubs -lcuda -ldl -lpthread
  echo "   built $B/check/bench_gpu (links here; runs only on a GPU)"
  grep -h "registers\|Compiling entry" "$B"/check/*.ptxas.txt | sed 's/^/   /' | grep -B1 registers | grep -v "^--" | paste - - | \
    sed -E 's/ptxas info *: Compiling entry function .([A-Za-z0-9_]+). for .sm_90.(.*)ptxas info *: Used/\1:/' | sed -n 1,40p  # (head would end the pipe early: pipefail)
  rm -rf "$B/check"/*.o
fi
du -sh "$B"
echo "== ready: carry .bench-gpu and run bash bench/gpu/run_on_device.sh on the GPU machine"
