#!/usr/bin/env bash
# bench/cpu/zoo/waitpolicy.sh — zoo_waitpolicy under each OpenMP wait policy; prints a
# markdown table (README.md, "OpenMP wait policy").
#
#   bash bench/cpu/zoo/waitpolicy.sh BUILD_DIR [THREADS=2] [RUNS=21] [S=2048]
set -euo pipefail
build="$1"
threads="${2:-2}"
runs="${3:-21}"
size="${4:-2048}"
echo "harris ${size}², ${threads} threads, median of ${runs}; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| OMP_WAIT_POLICY | GOMP_SPINCOUNT | formac alone | Halide alone | formac, alternated | Halide, alternated | Halide alternated / alone |"
echo "|---|---|---:|---:|---:|---:|---:|"
for setting in "unset unset" "passive unset" "active unset" "unset 0" "unset 10000" "unset 1000000"; do
  read -r policy spin <<<"$setting"
  env=(env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT)
  [ "$policy" = unset ] || env+=("OMP_WAIT_POLICY=$policy")
  [ "$spin" = unset ] || env+=("GOMP_SPINCOUNT=$spin")
  read -r fa ha fm hm < <("${env[@]}" "$build/zoo_waitpolicy" "$threads" "$runs" "$size")
  ratio=$(awk -v a="$hm" -v b="$ha" 'BEGIN { printf "%.2f", a / b }')
  echo "| $policy | $spin | $fa | $ha | $fm | $hm | $ratio |"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
