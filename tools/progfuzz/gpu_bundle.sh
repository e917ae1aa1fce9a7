#!/usr/bin/env bash
# tools/progfuzz/gpu_bundle.sh — random programs for the CUDA backend.
#
#   tools/progfuzz/gpu_bundle.sh BUILD DIR START COUNT [--profile mixed|fusion|window|scan|loop|ranks|periodic] [--prefix P] [--with-c]
#          [--max-points N] [--special-values]
#
# Writes programs PREFIX<START> .. PREFIX<START+COUNT-1> of gen.py into
# DIR/programs and an e2e GPU bundle of them into DIR/bundle
# (BUILD/tests/e2e/e2e_gpu_bundle --programs: every program fused and
# --no-fuse at the sizes of its first line, against the evaluator's outputs
# on the same random inputs). On the GPU machine, with DIR carried:
#   bash tests/gpu/run_e2e_gpu.sh DIR/bundle
# A failing case names its program (manifest.txt, "case" lines); replay it on
# the CPU with the program in DIR/programs (tools/progfuzz/README.md).
# --with-c adds the C backend's code, so that `run_e2e_gpu.sh DIR/bundle
# --c-backend` checks the bundle itself on a machine without a GPU;
# --max-points N leaves out runs with a larger image (e2e_gpu_bundle's
# default 150000; 25000 keeps a bundle of 500 programs small enough to carry);
# --special-values gives the programs inputs with NaN, infinities, -0,
# subnormals and extremes (about one element in eight).
set -eu
usage="usage: gpu_bundle.sh BUILD DIR START COUNT [--profile mixed|fusion|window|scan|loop|ranks|periodic] [--prefix P] [--with-c] [--max-points N] [--special-values]"
build=${1:?$usage}; dir=${2:?$usage}; start=${3:?$usage}; count=${4:?$usage}
shift 4
profile=mixed; prefix=""; extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile=${2:?$usage}; shift 2 ;;
    --prefix) prefix=${2:?$usage}; shift 2 ;;
    --with-c) extra+=(--with-c); shift ;;
    --special-values) extra+=(--special-values); shift ;;
    --max-points) extra+=(--max-points "${2:?$usage}"); shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
bundler="$build/tests/e2e/e2e_gpu_bundle"
[ -x "$bundler" ] || { echo "gpu_bundle.sh: no $bundler (cmake --build $build --target e2e_gpu_bundle)" >&2; exit 2; }
rm -rf "$dir/programs" "$dir/bundle"
mkdir -p "$dir/programs"
files=()
for ((n = start; n < start + count; n++)); do
  f="$dir/programs/p$prefix$n.idsl"
  python3 "$here/gen.py" "$prefix$n" --profile "$profile" -o "$f"
  files+=("$f")
done
"$bundler" "$dir/bundle" "${extra[@]}" --programs "${files[@]}"
