#!/usr/bin/env bash
# bench/gpu/scan/run.sh — formac's scans and SATs against CUB, NPP and Python peers (README.md).
#   bash bench/gpu/scan/run.sh prepare   # here: generate the CUDA into .bench-gpu/scan
#   bash bench/gpu/scan/run.sh device    # on the GPU machine, .bench-gpu carried: build and run
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
B="$repo/.bench-gpu/scan"
radii="1 3 7 15 31 63 127"
case "${1:-}" in
  prepare)
    FORMAC="${FORMAC:-$repo/build/formac}"
    rm -rf "$B" && mkdir -p "$B"
    for f in "$here"/*.idsl; do
      n="$(basename "$f" .idsl)"
      "$FORMAC" "$f" -w --print-cuda --kernel-name "$n" --cuda-output "$B/$n.cu" --header-file "$B/$n.h"
    done
    # One box filter per radius, from box.idsl.in, and boxes.h listing them.
    {
      echo "// The box filters of run.sh prepare, one per radius."
      echo "#pragma once"
      for r in $radii; do echo "#include \"box_r$r.h\""; done
      echo "struct BoxFilter { int radius; void* (*create)(int, int); int (*run)(void*, float*, float*); void (*destroy)(void*); };"
      echo "static const BoxFilter g_boxes[] = {"
      for r in $radii; do
        echo "  {$r, [](int m, int n) -> void* { return box_r${r}_create(m, n); },"
        echo "   [](void* w, float* i, float* o) { return box_r${r}_run((box_r${r}_workspace*)w, i, o); },"
        echo "   [](void* w) { box_r${r}_destroy((box_r${r}_workspace*)w); }},"
      done
      echo "};"
    } > "$B/boxes.h"
    for r in $radii; do
      sed -e "s/AREA/$(( (2 * r + 1) * (2 * r + 1) ))/" -e "s/-R-1/-$((r + 1))/g" -e "s/\bR\b/$r/g" \
        "$here/box.idsl.in" > "$B/box_r$r.idsl"
      "$FORMAC" "$B/box_r$r.idsl" -w --print-cuda --kernel-name "box_r$r" --cuda-output "$B/box_r$r.cu" \
        --header-file "$B/box_r$r.h"
    done
    cp "$here/../bench_timing.h" "$here/bench_scan.cu" "$here/peers_scan.py" "$here/../peers_timing.py" "$B/"
    nvcc -arch=sm_90 -O3 -std=c++17 -I"$B" -c "$B/bench_scan.cu" -o /dev/null
    echo "prepared $B"
    ;;
  device)
    shift
    cd "$B"
    CUDA="$(dirname "$(dirname "$(command -v nvcc)")")"
    npp=()
    if [ -f "$CUDA/include/npp.h" ] || [ -f "$CUDA/targets/x86_64-linux/include/npp.h" ]; then
      npp=(-DBENCH_NPP -lnppist -lnppif -lnppc)
    fi
    nvcc -arch=sm_90 -O3 -std=c++17 -I. *.cu -o bench_scan "${npp[@]}" ||
      { echo "(built without NPP: it did not compile)"; nvcc -arch=sm_90 -O3 -std=c++17 -I. *.cu -o bench_scan; }
    ./bench_scan "$@"
    python3 peers_scan.py "$@" || echo "(the Python peers did not run)"
    ;;
  *) echo "usage: run.sh prepare|device [--size N] [--reps R]" >&2; exit 2 ;;
esac
