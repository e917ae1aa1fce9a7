#!/usr/bin/env bash
# On a GPU machine: `formac run --backend=cuda` (NVRTC + the driver API)
# against `--backend=eval`, byte for byte. See tests/gpu/README.md.
#
#   tests/gpu/run_formac_run_cuda.sh [WORKDIR]     (default: build-formac-run-cuda)
#   FORMAC_EXE=build/formac tests/gpu/run_formac_run_cuda.sh   (use that formac, no build)
#
# Builds formac from this checkout (cmake, Release, no JIT, no tests, no
# examples), then runs every example (examples/*/*.idsl) on the sample photo
# and on random gray images of awkward sizes (67x45, 1031x777, 16-bit
# 130x97), and at 67x45 and 300x200 every compat program (tests/compat/*.idsl)
# that formac run can feed with gray or RGB images (found by asking the
# evaluator) and a program that needs over 48 KB of shared memory; the GPU
# suite's reductions (tests/gpu/reductions.idsl: every op, histograms, where,
# topk) and the fuzzer's scan seeds (tests/fuzz/seeds/scan_*.idsl: sat, scans
# along each dimension) at 67x45, 1031x777, 16-bit 130x97 and 2053x2111 (over
# 2048 chunks of 2048 points: two levels of partials): the evaluator's
# outputs (PFM, the raw values) and printed scalars against the CUDA
# backend's, fused and --no-fuse, with cmp (the examples with `do` loops
# among them: canny_full, canny_opencv, fillholes). Then one program twice in a fresh
# cache, to show NVRTC once and a cache hit after. Prints a FAIL line per mismatch or failed
# run, then
#   formac run cuda: P passed, F failed, S skipped in T s
# (passed and failed count runs of a case, fused or unfused; skipped: cases
# or programs formac run's evaluator cannot feed)
# and exits non-zero when anything failed. Needs cmake, a C/C++ compiler,
# libpng, the NVIDIA driver and NVRTC; nvcc is not used.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mkdir -p "${1:-$root/build-formac-run-cuda}" && cd "${1:-$root/build-formac-run-cuda}" && pwd) || exit 2
start=$SECONDS
jobs=$(nproc)

# ---------------------------------------------------------------- build
if [ -n "${FORMAC_EXE:-}" ]; then
  formac=$(cd "$(dirname "$FORMAC_EXE")" && pwd)/$(basename "$FORMAC_EXE")
  echo "== using $formac"
else
  echo "== building formac in $work/build"
  if ! cmake -S "$root" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DFORMAC_ENABLE_JIT=OFF \
        -DFORMAC_BUILD_TESTS=OFF -DFORMAC_BUILD_EXAMPLES=OFF >"$work/cmake.log" 2>&1 ||
     ! cmake --build "$work/build" -j"$jobs" --target formac >>"$work/cmake.log" 2>&1; then
    tail -30 "$work/cmake.log"
    echo "formac run cuda: the build failed ($work/cmake.log)"
    exit 2
  fi
  formac=$work/build/formac
  echo "   built in $((SECONDS - start)) s"
fi

# ---------------------------------------------------------------- inputs
in=$work/inputs out=$work/out
rm -rf "$in" "$out" "$work/cache" "$work/cache_demo"
mkdir -p "$in" "$out"
export FORMAC_CACHE_DIR=$work/cache
# pnm KIND W H MAXVAL FILE: random samples (kept in $in to reproduce a failure).
pnm() {
  local channels=1 bytes=1
  [ "$1" = P6 ] && channels=3
  [ "$4" -gt 255 ] && bytes=2
  { printf '%s\n%s %s\n%s\n' "$1" "$2" "$3" "$4"; head -c $(($2 * $3 * channels * bytes)) /dev/urandom; } >"$5"
}
cp "$root/examples/data/camera.png" "$in/camera.png"
pnm P5 67 45 255 "$in/g67.pgm"
pnm P5 300 200 255 "$in/g300.pgm"
pnm P5 1031 777 255 "$in/g1031.pgm"
pnm P5 130 97 65535 "$in/g16.pgm"
pnm P5 2053 2111 255 "$in/g2053.pgm"
pnm P6 67 45 255 "$in/rgb67.ppm"
pnm P6 300 200 255 "$in/rgb300.ppm"
# Six fused stages reaching 4 points out: over 48 KB of shared memory per
# block, the opt-in path.
{
  echo "stencil wide(vector#2 double X) { return (X@[-4,0] + X@[4,0] + X@[0,-4] + X@[0,4] + X) / 5.0; }"
  echo "parameter M, N;"
  echo "vector#2 double a[M,N];"
  echo "s0 = wide(a:mirror);"
  for k in 1 2 3 4; do echo "s$k = wide(s$((k - 1)):mirror);"; done
  echo "return wide(s4:mirror);"
} >"$in/wide.idsl"

# ---------------------------------------------------------------- cases
# Each program's cases run as one job, several at a time (the GPU is shared);
# each job prints PASS, FAIL and skip lines into $work/results/PROGRAM.
rm -rf "$work/results"
mkdir -p "$work/results"
parallel=$((jobs < 8 ? jobs : 8))

params() {  # the examples' scalar inputs
  case $1 in
    canny) echo "-p low=0.25 -p high=0.5" ;;
    harris) echo "-p k=0.04" ;;
    unsharp) echo "-p amount=1.5" ;;
    threshold8) echo "-p t=128" ;;
    adaptive_threshold) echo "-p c=5" ;;
    canny_full) echo "-p low=0.25 -p high=0.5 -p R=1000" ;;
    canny_opencv) echo "-p low=50 -p high=150 -p R=1000" ;;
    fillholes) echo "-p R=1000" ;;
    corners) echo "-p k=0.04 -p quality=0.01" ;;
  esac
}

# check NAME PROGRAM OUTPUTS ARGS...: eval, then cuda fused and unfused, compared
# (the images, and the scalars printed on stdout).
check() {
  local name=$1 program=$2 outputs=$3 o args variant v eval_args cuda_args log ok
  shift 3
  args="$*"
  eval_args=""
  for ((o = 0; o < outputs; o++)); do eval_args="$eval_args -o $out/$name.eval.$o.pfm"; done
  if ! "$formac" run "$program" $args $eval_args --backend=eval >"$out/$name.eval.stdout" 2>"$out/$name.eval.log"; then
    echo "skip $name: the evaluator: $(tail -1 "$out/$name.eval.log")"
    return
  fi
  for variant in fused unfused; do
    v=""
    [ $variant = unfused ] && v=--no-fuse
    cuda_args=""
    for ((o = 0; o < outputs; o++)); do cuda_args="$cuda_args -o $out/$name.$variant.$o.pfm"; done
    if ! "$formac" run "$program" $args $cuda_args --backend=cuda $v >"$out/$name.$variant.stdout" 2>"$out/$name.$variant.log"; then
      echo "FAIL $name $variant: formac run --backend=cuda failed: $(cat "$out/$name.$variant.log")"
      continue
    fi
    ok=1
    for ((o = 0; o < outputs; o++)); do
      if ! cmp -s "$out/$name.eval.$o.pfm" "$out/$name.$variant.$o.pfm"; then
        echo "FAIL $name $variant: output $o differs from the evaluator's:" \
          "$(cmp "$out/$name.eval.$o.pfm" "$out/$name.$variant.$o.pfm" 2>&1 | head -1)"
        ok=0
      fi
    done
    if ! cmp -s "$out/$name.eval.stdout" "$out/$name.$variant.stdout"; then
      echo "FAIL $name $variant: the printed scalars differ from the evaluator's:" \
        "$(diff "$out/$name.eval.stdout" "$out/$name.$variant.stdout" | head -4 | tr '\n' ' ')"
      ok=0
    fi
    [ $ok = 1 ] && echo "PASS $name $variant"
  done
}

# outputs PROGRAM ARGS...: how many images the program returns (the
# evaluator's complaint about a wrong --output count says; 1 without one).
outputs() {
  local program=$1 log
  shift
  log=$("$formac" run "$program" "$@" -o "$out/outputs.$$.$RANDOM.pfm" --backend=eval 2>&1)
  echo "$log" | sed -n 's/.* returns \([0-9]*\) images\{0,1\}.*, but .*/\1/p' | grep . || echo 1
}

# How a compat program is fed: "KIND OUTPUTS PARAMS" (KIND: g, gg, c, cc,
# ccc = gray or RGB inputs; PARAMS: -p NAME=1 for each scalar input), or
# nothing when the evaluator takes none of them.
feed() {
  local program=$1 probe=$2 kind args n o outs params log try scalar
  for kind in g gg c cc ccc; do
    args="" n=1 params=""
    for ((o = 0; o < ${#kind}; o++)); do
      [ "${kind:o:1}" = g ] && args="$args -i $in/g67.pgm" || args="$args -i $in/rgb67.ppm"
    done
    for try in 1 2 3 4 5 6; do
      outs=""
      for ((o = 0; o < n; o++)); do outs="$outs -o $out/$probe.probe$o.pfm"; done
      log=$("$formac" run "$program" $args $params $outs --backend=eval 2>&1) && { echo "$kind $n$params"; return; }
      scalar=$(echo "$log" | sed -n "s/.*scalar input '\([A-Za-z0-9_]*\)' .* needs a value.*/\1/p")
      if [ -n "$scalar" ]; then
        params="$params -p $scalar=1"
      elif echo "$log" | grep -q ' returns [0-9]* images, but'; then
        n=$(echo "$log" | sed -n 's/.* returns \([0-9]*\) images, but.*/\1/p')
      else
        break
      fi
    done
  done
}

example() {
  local program=$1 p image n
  p=$(basename "$program" .idsl)
  n=$(outputs "$program" -i "$in/g67.pgm" $(params "$p"))
  for image in camera.png g67.pgm g1031.pgm g16.pgm; do
    check "$p.${image%.*}" "$program" "$n" -i "$in/$image" $(params "$p")
  done
}

# A program of gray inputs only (each input the same image), at sizes that
# leave partial chunks, tiles and warps, and one of several reduction levels.
suite() {
  local program=$1 p k count image args n
  p=test_$(basename "$program" .idsl)
  count=$(grep -c '^vector#' "$program")
  for image in g67.pgm g1031.pgm g16.pgm g2053.pgm; do
    args=""
    for ((k = 0; k < count; k++)); do args="$args -i $in/$image"; done
    n=$(outputs "$program" $args)
    check "$p.${image%.*}" "$program" "$n" $args
  done
}

compat() {
  local program=$1 p kind outputs scalars size args n
  p=compat_$(basename "$program" .idsl)
  read -r kind outputs scalars <<<"$(feed "$program" "$p")"
  if [ -z "${kind:-}" ]; then
    echo "skip $p: formac run cannot feed it gray or RGB 2-D images"
    return
  fi
  for size in 67 300; do
    args=""
    for ((n = 0; n < ${#kind}; n++)); do
      [ "${kind:n:1}" = g ] && args="$args -i $in/g$size.pgm" || args="$args -i $in/rgb$size.ppm"
    done
    check "$p.$size" "$program" "$outputs" $args $scalars
  done
}

echo "== examples and compat programs, $parallel at a time"
for program in "$root"/examples/*/*.idsl "$root"/tests/compat/*.idsl "$in/wide.idsl" \
  "$root"/tests/gpu/reductions.idsl "$root"/tests/fuzz/seeds/scan_*.idsl; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n; done
  case $program in
    "$root"/examples/*) example "$program" >"$work/results/$(basename "$program" .idsl)" 2>&1 & ;;
    "$root"/tests/gpu/* | "$root"/tests/fuzz/*)
      suite "$program" >"$work/results/test_$(basename "$program" .idsl)" 2>&1 & ;;
    *) compat "$program" >"$work/results/compat_$(basename "$program" .idsl)" 2>&1 & ;;
  esac
done
wait
cat "$work"/results/* | grep -v '^PASS'
passed=$(cat "$work"/results/* | grep -c '^PASS')
failed=$(cat "$work"/results/* | grep -c '^FAIL')
skipped=$(cat "$work"/results/* | grep -c '^skip')
echo "   $((SECONDS - start)) s"
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

# ---------------------------------------------------------------- the cache
echo "== the cache: canny twice in a fresh cache (--verbose)"
canny="$root/examples/canny/canny.idsl -i $in/camera.png -p low=0.25 -p high=0.5 --backend=cuda -v"
first=$(FORMAC_CACHE_DIR=$work/cache_demo "$formac" run $canny -o "$out/cache1.pfm" 2>&1)
echo "$first" | grep 'cuda' | sed 's/^/   1: /'
second=$(FORMAC_CACHE_DIR=$work/cache_demo "$formac" run $canny -o "$out/cache2.pfm" --repeat 20 2>&1)
echo "$second" | grep 'cuda\|runs:' | sed 's/^/   2: /'
if ! echo "$first" | grep -q 'cuda: cached as' || echo "$first" | grep -q '(cached)'; then
  fail "cache: the first run did not compile and store the module"
elif ! echo "$second" | grep -q 'cuda: cache hit, loaded' || ! echo "$second" | grep -q '(cached)'; then
  fail "cache: the second run did not hit the cache"
elif ! cmp -s "$out/cache1.pfm" "$out/cache2.pfm"; then
  fail "cache: the cached module gives other bytes"
else
  passed=$((passed + 1))
fi

echo "formac run cuda: $passed passed, $failed failed, $skipped skipped in $((SECONDS - start)) s"
[ $failed = 0 ] && [ $passed -gt 0 ]
