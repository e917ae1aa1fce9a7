#!/usr/bin/env bash
# On a GPU machine, after run_compat_gpu.sh built DIR: runs compute-sanitizer
# memcheck and racecheck on programs that exercise fused tiles (halos,
# boundary modes, several members), partial tiles and the unfused kernels.
# Prints one line per check and "sanitizers: N passed, M failed".
set -u
dir=${1:?bundle directory}
cd "$dir"
pass=0; fail=0
check() {  # program, rows, columns
  local x=$1
  [ -x "$x.x" ] || { echo "skip $x (not built)"; return; }
  for tool in memcheck racecheck; do
    if out=$(compute-sanitizer --tool $tool --error-exitcode 9 "./$x.x" "$2" "$3" 2>&1); then
      pass=$((pass+1)); echo "ok   $tool $x $2x$3"
    else
      fail=$((fail+1)); echo "FAIL $tool $x $2x$3"; echo "$out" | grep -E "=========" | head -8
    fi
  done
}
for x in canny_fused canny_mirror_fused blur_mirror_fused mixed_bdy_CM_fused hdr_direct_fused \
         try_struct_fused compose_fused sobel_fused canny_unfused hello_world4D_unfused; do
  check "$x" 61 67
done
# Interior blocks with rows a multiple of 16 bytes: canny's image is staged in
# shared memory over the tiles of later loops (FusedKernel_CUDA's GroupLayout).
check canny_fused 100 200
echo "sanitizers: $pass passed, $fail failed"
[ $fail -eq 0 ]
