#!/usr/bin/env bash
# tests/gpu/zoo_gpu_bundle.sh — the bench/zoo programs as an e2e GPU bundle.
#
#   tests/gpu/zoo_gpu_bundle.sh BUILD DIR [--with-c]
#
# Copies every bench/zoo/*.idsl into DIR/programs with a first line naming the sizes of
# its zoo.txt `test` column, and writes the bundle into DIR/bundle
# (BUILD/tests/e2e/e2e_gpu_bundle --programs: each program's CUDA fused and --no-fuse,
# the harness, random inputs and the evaluator's outputs). On the GPU machine:
#   bash tests/gpu/run_e2e_gpu.sh DIR/bundle
# With --with-c, `run_e2e_gpu.sh DIR/bundle --c-backend` checks the bundle on the CPU.
set -eu
usage="usage: zoo_gpu_bundle.sh BUILD DIR [--with-c]"
build=${1:?$usage}; dir=${2:?$usage}
shift 2
zoo="$(cd "$(dirname "$0")/../../bench/zoo" && pwd)"
bundler="$build/tests/e2e/e2e_gpu_bundle"
[ -x "$bundler" ] || { echo "zoo_gpu_bundle.sh: no $bundler (cmake --build $build --target e2e_gpu_bundle)" >&2; exit 2; }
rm -rf "$dir/programs" "$dir/bundle"
mkdir -p "$dir/programs"
files=()
while read -r name _ _ sizes _; do
  case "$name" in ''|'#'*) continue ;; esac
  { echo "// sizes=$sizes"; cat "$zoo/$name.idsl"; } > "$dir/programs/$name.idsl"
  files+=("$dir/programs/$name.idsl")
done < "$zoo/zoo.txt"
"$bundler" "$dir/bundle" "$@" --programs "${files[@]}"
