#!/usr/bin/env bash
# bench/gpu/reduce/run.sh — formac's reductions against CUB, NPP and torch (README.md).
#   bash bench/gpu/reduce/run.sh prepare   # here: generate the CUDA into .bench-gpu/reduce
#   bash bench/gpu/reduce/run.sh device    # on the GPU machine, .bench-gpu carried: build and run
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
B="$repo/.bench-gpu/reduce"
case "${1:-}" in
  prepare)
    FORMAC="${FORMAC:-$repo/build/formac}"
    mkdir -p "$B"
    for f in "$here"/*.idsl; do
      n="$(basename "$f" .idsl)"
      "$FORMAC" "$f" -w --print-cuda --kernel-name "$n" --cuda-output "$B/$n.cu" --header-file "$B/$n.h" ||
        { echo "(left out: $n)"; rm -f "$B/$n.cu" "$B/$n.h"; }
    done
    cp "$here/../bench_timing.h" "$here/bench_reduce.cu" "$here/peers_reduce.py" "$here/../peers_timing.py" "$B/"
    nvcc -arch=sm_90 -O3 -std=c++17 -I"$B" -c "$B/bench_reduce.cu" -o /dev/null
    echo "prepared $B"
    ;;
  device)
    shift
    cd "$B"
    CUDA="$(dirname "$(dirname "$(command -v nvcc)")")"
    npp=()
    if [ -f "$CUDA/include/npp.h" ] || [ -f "$CUDA/targets/x86_64-linux/include/npp.h" ]; then npp=(-DBENCH_NPP -lnppist -lnppc); fi
    nvcc -arch=sm_90 -O3 -std=c++17 -I. *.cu -o bench_reduce "${npp[@]}" ||
      { echo "(built without NPP: it did not compile)"; nvcc -arch=sm_90 -O3 -std=c++17 -I. *.cu -o bench_reduce; }
    ./bench_reduce "$@"
    python3 peers_reduce.py "$@" || echo "(the Python peers did not run)"
    ;;
  *) echo "usage: run.sh prepare|device [--size N] [--reps R]" >&2; exit 2 ;;
esac
