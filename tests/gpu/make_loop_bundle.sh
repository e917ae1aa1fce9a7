#!/usr/bin/env bash
# The do loops for the GPU: tests/gpu/loops/*.idsl and the loop examples
# (canny_opencv, fillholes, each given sizes here: M x N x R, R = 0 and R small
# enough to stop the loop before its fixed point among them) exported by
# e2e_gpu_bundle with the evaluator's outputs; run_e2e_gpu.sh DIR checks them.
#   make_loop_bundle.sh BUILD_DIR DIR
set -euo pipefail
build=${1:?usage: make_loop_bundle.sh BUILD_DIR DIR}
dir=${2:?usage: make_loop_bundle.sh BUILD_DIR DIR}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
with_sizes() {  # example, sizes
  { echo "// sizes=$2"; cat "$here/../../examples/$1"; } >"$work/$(basename "$1")"
}
with_sizes canny/canny_opencv.idsl 13x17x500,64x80x500,200x300x3,1x1x5,40x50x0
with_sizes fillholes/fillholes.idsl 13x17x500,64x80x1000,200x300x7,1x1x3,30x20x0
cp "$here"/loops/*.idsl "$work/"
"$build/tests/e2e/e2e_gpu_bundle" "$dir" --programs "$work"/*.idsl
