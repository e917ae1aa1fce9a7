#!/usr/bin/env bash
# The e2e GPU bundle checked without a GPU (ctest e2e_gpu_bundle_on_cpu):
# exports a few programs at a few sizes with the C backend's code too, runs
# them through run_e2e_gpu.sh --c-backend (every case must pass: the harness,
# inputs, expected bytes and checks are right), then changes expected values
# to see that e2e_check notices: one ulp fails an exact case, one ulp of a
# double passes an approx case, a large change fails it. The harness of the
# CUDA build (-DE2E_DEVICE, src/e2e_device.cu) is compiled, not run.
#
#   check_bundle_on_cpu.sh E2E_GPU_BUNDLE WORKDIR
set -eu
exporter=${1:?usage: check_bundle_on_cpu.sh E2E_GPU_BUNDLE WORKDIR}
work=${2:?usage: check_bundle_on_cpu.sh E2E_GPU_BUNDLE WORKDIR}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
"$exporter" "$work" --with-c --runs 3 --per-batch 3 --only \
  types_chain_float_mirror,types_stencil_s3_wrap,chain_wrap_mirror_int8,math_double_float,multiple_outputs,fixed_extents,rank3_constructs
"$here/run_e2e_gpu.sh" "$work" --c-backend
# The CUDA build's harness (E2E_DEVICE: the run_async call) compiles too.
for f in "$work"/src/h*.c; do cc -std=c99 -Wall -Wextra -Werror -DE2E_DEVICE -I"$work/src" -fsyntax-only "$f"; done
if command -v nvcc >/dev/null; then nvcc -arch=sm_90 -c "$work/src/e2e_device.cu" -o "$work/build/e2e_device.o"; fi
echo "ok: the E2E_DEVICE harness compiles"

# flip FILE BYTE: flips the lowest bit of that byte.
flip() {
  local v
  v=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "\\$(printf '%03o' $((v ^ 1)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# expect pass|fail PROGRAM BYTE: with that byte of the program's first expected
# output flipped, e2e_check on its batch (fused) must give that verdict.
expect() {
  local want=$1 program=$2 byte=$3 batch file got out
  read -r batch file < <(awk -v p="$program" '$1 == "case" && $2 == p && $4 == "fused" {
                            split($10, o, ":"); print $5, o[1]; exit }' "$work/manifest.txt")
  cp "$work/data/$file" "$work/saved.want"
  flip "$work/data/$file" "$byte"
  if out=$("$work/build/e2e_check" "$work" fused "$batch"); then got=pass; else got=fail; fi
  mv "$work/saved.want" "$work/data/$file"
  if [ $got = fail ] && ! grep -q "^FAIL $program .*element 0 " <<<"$out"; then got="fail for another reason"; fi
  if [ "$got" != $want ]; then
    echo "e2e_check should $want $program with byte $byte of data/$file changed, but:"
    echo "$out"
    exit 1
  fi
  echo "ok: $want for $program with byte $byte of data/$file changed"
}
expect fail types_chain_float_mirror 0   # f32, exact: one ulp
expect pass math_double_float 0          # f64, approx: one ulp
expect fail math_double_float 6          # f64, approx: a change of 2^-4 of the mantissa
