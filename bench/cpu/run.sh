#!/usr/bin/env bash
# bench/cpu/run.sh — install what is missing (Debian), build and run the CPU benchmark.
#
#   bash bench/cpu/run.sh [formac_bench options, e.g. --sizes 2048 --runs 15]
#
# Environment: FORMAC=path/to/formac (default: build-lead/formac at the repository root,
# built there if missing), BENCH_BUILD_DIR (default: bench/cpu/build), CMAKE_ARGS (more
# -D options for bench/cpu/CMakeLists.txt). The output ends with the markdown table; it
# is also saved to $BENCH_BUILD_DIR/results.md.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${BENCH_BUILD_DIR:-$here/build}"
formac="${FORMAC:-$root/build-lead/formac}"
jobs="$(nproc 2>/dev/null || echo 2)"

missing=()
for pkg in cmake g++ libhalide14-0-dev libopencv-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$pkg")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "run.sh: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

if [ ! -x "$formac" ]; then
  echo "run.sh: building formac in $root/build-lead"
  cmake -S "$root" -B "$root/build-lead"
  cmake --build "$root/build-lead" -j"$jobs" --target formac
fi

# shellcheck disable=SC2086  # CMAKE_ARGS is a list of options
cmake -S "$here" -B "$build" -DFORMAC="$formac" ${CMAKE_ARGS:-}
cmake --build "$build" -j"$jobs"
"$build/formac_bench" "$@" | tee "$build/results.md"
