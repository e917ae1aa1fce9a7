#!/usr/bin/env bash
# On a GPU machine: builds every compat program's generated CUDA (fused and
# unfused) with its C driver and runs it at the default and awkward sizes.
# Usage: run_compat_gpu.sh DIR   (DIR holds NAME.idsl, NAME_driver.c,
# NAME_fused.cu and NAME_unfused.cu, as made by make_gpu_bundle.sh)
set -u
dir=${1:?bundle directory}
cd "$dir"
pass=0; fail=0
# Build everything first, in parallel (nvcc is slow; the machine has many cores).
for drv in *_driver.c; do gcc -std=c99 -O2 -c "$drv" -o "${drv%.c}.o"; done
ls *_fused.cu *_unfused.cu 2>/dev/null | sed 's/\.cu$//' |
  xargs -P "$(nproc)" -I{} sh -c 'nvcc -arch=sm_90 -O3 -o {}.x {}.cu "$(echo {} | sed -E "s/_(un)?fused$//")_driver.o" -lm >{}.log 2>&1 || rm -f {}.x'
build() {  # name variant: built above when {name}_{variant}.x exists
  [ -x "$1_$2.x" ]
}
for drv in *_driver.c; do
  t=${drv%_driver.c}
  for v in fused unfused; do
    [ -f "${t}_$v.cu" ] || continue
    if ! build "$t" "$v"; then echo "FAIL $t ($v): does not build"; head -5 "${t}_$v.log"; fail=$((fail+1)); continue; fi
    ok=1
    for size in "" "1 7" "3 2" "17 1" "5 5" "61 67"; do
      out=$(./"${t}_$v.x" $size 2>&1); rc=$?
      case "$out" in *"need "*) continue;; esac
      if [ $rc -ne 0 ]; then ok=0; echo "FAIL $t ($v) at size '$size': $(echo "$out" | tail -2)"; fi
    done
    if [ $ok = 1 ]; then pass=$((pass+1)); else fail=$((fail+1)); fi
  done
done
echo "gpu compat: $pass passed, $fail failed"
[ $fail -eq 0 ]
