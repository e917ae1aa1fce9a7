#!/usr/bin/env bash
# On a GPU machine, after run_compat_gpu.sh built DIR: runs compute-sanitizer
# memcheck and racecheck on programs that exercise fused tiles (halos,
# boundary modes, several members), partial tiles and the unfused kernels.
# Prints one line per check and "sanitizers: N passed, M failed".
set -u
dir=${1:?bundle directory}
cd "$dir"
pass=0; fail=0
for x in canny_fused canny_mirror_fused blur_mirror_fused mixed_bdy_CM_fused hdr_direct_fused \
         try_struct_fused compose_fused sobel_fused canny_unfused hello_world4D_unfused; do
  [ -x "$x.x" ] || { echo "skip $x (not built)"; continue; }
  for tool in memcheck racecheck; do
    if out=$(compute-sanitizer --tool $tool --error-exitcode 9 "./$x.x" 61 67 2>&1); then
      pass=$((pass+1)); echo "ok   $tool $x"
    else
      fail=$((fail+1)); echo "FAIL $tool $x"; echo "$out" | grep -E "=========" | head -8
    fi
  done
done
echo "sanitizers: $pass passed, $fail failed"
[ $fail -eq 0 ]
