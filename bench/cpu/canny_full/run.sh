#!/usr/bin/env bash
# bench/cpu/canny_full/run.sh — build and run the Canny-with-hysteresis benchmark.
#
#   bash bench/cpu/canny_full/run.sh [formac_bench_canny_full options, e.g. --rounds 11]
#
# Environment: FORMAC=path/to/formac (default: build/formac at the repository root),
# BENCH_BUILD_DIR (default: bench/cpu/canny_full/build). The output ends with the
# markdown table; it is also saved to $BENCH_BUILD_DIR/results.md. OMP_WAIT_POLICY is
# PASSIVE unless set: on a busy 2-core machine spinning OpenMP threads between the
# loop's many short parallel regions made formac 5-6x slower (RESULTS.md).
set -euo pipefail
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
build="${BENCH_BUILD_DIR:-$here/build}"
formac="${FORMAC:-$root/build/formac}"
cmake -S "$here" -B "$build" -DFORMAC="$formac"
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)"
"$build/formac_bench_canny_full" "$@" | tee "$build/results.md"
