#!/usr/bin/env bash
# Generates the CUDA of every compat program, fused and unfused, into DIR
# with its driver, for run_compat_gpu.sh on a GPU machine.
set -eu
formac=${1:?formac binary}; dir=${2:?output directory}
src=$(cd "$(dirname "$0")/../compat" && pwd)
mkdir -p "$dir"
for drv in "$src"/*_driver.c; do
  t=$(basename "$drv" _driver.c)
  cp "$drv" "$src/$t.idsl" "$dir/"
  "$formac" "$src/$t.idsl" --print-cuda --kernel-name "$t" --cuda-output "$dir/${t}_fused.cu" -w
  "$formac" "$src/$t.idsl" --print-cuda --no-fuse --kernel-name "$t" --cuda-output "$dir/${t}_unfused.cu" -w
done
