#!/usr/bin/env bash
# On a GPU machine: builds and runs an e2e GPU bundle (made by e2e_gpu_bundle)
# and compares every output with the evaluator's. See tests/gpu/README.md.
#
#   run_e2e_gpu.sh DIR [--c-backend | --emulate]
#
# Each batch's CUDA is compiled with nvcc -arch=sm_90 -O3, fused and unfused,
# all in parallel, and linked with the C harness; a batch that nvcc rejects as
# a whole is built program by program, and a program that does not compile
# fails its cases. Then every batch runs and src/e2e_check.c compares by each
# case's rule. Prints one FAIL line per failing case, then
# "e2e gpu: P passed, F failed"; exits non-zero when a case failed.
# --c-backend builds the bundle's C code (e2e_gpu_bundle --with-c) in place of
# the CUDA: the same harness, inputs and checks without a GPU. E2E_NVFLAGS adds
# nvcc flags: -DFORMAC_INDEX_64 runs every kernel's 64-bit-index form.
# --emulate builds the CUDA program by program through emulate/emucc (a CPU
# emulation of the CUDA that the scan kernels use; emulate/README.md) and
# skips the run_async harness: the CUDA kernels' results without a GPU.
set -u
usage="usage: run_e2e_gpu.sh DIR [--c-backend | --emulate]"
dir=$(cd "${1:?$usage}" && pwd) || exit 2
case "${2:-}" in
  "") backend=cuda ;;
  --c-backend) backend=c ;;
  --emulate) backend=cuda; NVCC="$(cd "$(dirname "$0")" && pwd)/emulate/emucc" ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
cd "$dir"
[ -f manifest.txt ] || { echo "no manifest.txt in $dir" >&2; exit 2; }
NVCC=${NVCC:-nvcc}
emulate=$([ "$NVCC" = nvcc ] || echo 1)
if [ $backend = cuda ] && [ -z "$emulate" ] && ! command -v nvcc >/dev/null; then echo "nvcc is not on PATH" >&2; exit 2; fi

export backend NVCC emulate
export CFLAGS="-std=c99 -O2 -fopenmp -DFORMAC_PARALLEL_POINTS=0 -Wall -Wextra -Werror"  # as the C suites build
export NVFLAGS="-arch=sm_90 -O3 ${E2E_NVFLAGS:-}"  # E2E_NVFLAGS=-DFORMAC_INDEX_64: 64-bit indices
jobs=$(nproc)
start=$SECONDS
rm -rf build out
mkdir -p build out

cc -std=c99 -O2 -Wall -o build/e2e_check src/e2e_check.c -lm || exit 2
# The harness: one object per program and a main per batch. With CUDA, each
# program also runs through <kernel>_run_async on device images (E2E_DEVICE).
if [ $backend = cuda ] && [ -z "$emulate" ]; then
  export CFLAGS="$CFLAGS -DE2E_DEVICE"
  nvcc $NVFLAGS -c src/e2e_device.cu -o build/e2e_device.o || exit 2
fi
printf '%s\n' src/h*.c src/main_b*.c |
  xargs -P "$jobs" -I{} sh -c 'f={}; o=build/$(basename "$f" .c); cc $CFLAGS -Isrc -c "$f" -o "$o.o" >"$o.log" 2>&1'

# build_batch B VARIANT: build/bB_VARIANT.x, with its log build/bB_VARIANT.log.
build_batch() {
  local b=$1 v=$2 id ids objs log=build/b$1_$2.log
  ids=$(awk -v b="$b" '$1 == "batch" && $2 == b { $1 = $2 = ""; print }' manifest.txt)
  objs="build/main_b$b.o"
  [ $backend = cuda ] && [ -z "$emulate" ] && objs="$objs build/e2e_device.o"
  if [ $backend = cuda ] && [ -z "$emulate" ] && nvcc $NVFLAGS -c "src/b${b}_$v.cu" -o "build/b${b}_$v.o" >"$log" 2>&1; then
    objs="$objs build/b${b}_$v.o"
    for id in $ids; do objs="$objs build/h$id.o"; done
  else
    [ $backend = cuda ] && [ -z "$emulate" ] && echo "== the batch does not compile as one file: program by program" >>"$log"
    for id in $ids; do
      echo "== program $id" >>"$log"
      if compile_program "$id" "$v" >>"$log" 2>&1; then
        objs="$objs build/h$id.o build/p${id}_$v.o"
      else
        # A stand-in that fails the program's cases.
        printf '#include <stdio.h>\nint e2e_run_%s(const char* dir) {\n  (void)dir;\n  printf("note the generated code does not compile (%s)\\n");\n  return 1;\n}\n' \
          "$id" "$log" >"build/stub${id}_$v.c"
        cc -c "build/stub${id}_$v.c" -o "build/stub${id}_$v.o" >>"$log" 2>&1
        objs="$objs build/stub${id}_$v.o"
      fi
    done
  fi
  echo "== link" >>"$log"
  if [ $backend = cuda ]; then
    $NVCC $NVFLAGS -o "build/b${b}_$v.x" $objs -lgomp -lm >>"$log" 2>&1
  else
    cc -fopenmp -o "build/b${b}_$v.x" $objs -lm >>"$log" 2>&1
  fi
}
# compile_program ID VARIANT: build/pID_VARIANT.o from its .cu (or .c).
compile_program() {
  if [ $backend = cuda ]; then
    $NVCC $NVFLAGS -c "src/p$1_$2.cu" -o "build/p$1_$2.o"
  else
    cc $CFLAGS -c "src/p$1_$2.c" -o "build/p$1_$2.o"
  fi
}
export -f build_batch compile_program

pairs() {  # every "BATCH VARIANT"
  awk '$1 == "batch" { print $2, "fused"; print $2, "unfused" }' manifest.txt
}
pairs | xargs -P "$jobs" -n 2 bash -c 'build_batch "$0" "$1"'
built=$SECONDS
echo "e2e gpu: $(pairs | wc -l) batches built ($backend) in $((built - start)) s"
for log in build/*.log; do
  if grep -q "program by program" "$log"; then echo "note: ${log%.log}: $(head -3 "$log" | tr '\n' ' ')"; fi
done

pairs | xargs -P "$jobs" -n 2 sh -c 'build/e2e_check . "$1" "$0" >"out/b$0_$1.txt" 2>&1'
echo "e2e gpu: batches ran in $((SECONDS - built)) s"
pairs | while read -r b v; do cat "out/b${b}_$v.txt"; done >out/all.txt
grep -v '^cases ' out/all.txt
# Each batch ends with "cases PASSED FAILED"; a batch without it failed to check.
awk -v batches="$(pairs | wc -l)" '$1 == "cases" { p += $2; f += $3; n++ } END {
       if (n < batches) printf "e2e gpu: %d batches gave no result\n", batches - n
       printf "e2e gpu: %d passed, %d failed\n", p, f
       exit (f > 0 || n < batches) }' out/all.txt
