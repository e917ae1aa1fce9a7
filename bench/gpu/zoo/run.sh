#!/usr/bin/env bash
# bench/gpu/zoo/run.sh — the whole zoo (bench/zoo/*.idsl, sized by bench/zoo/zoo.txt) on the GPU:
# formac fused, --no-fuse and the roofline, checked bit for bit (README.md).
#   bash bench/gpu/zoo/run.sh prepare   # here (no GPU): generate, evaluate, compile: .bench-gpu/zoo
#   bash bench/gpu/zoo/run.sh device    # on the GPU machine, .bench-gpu carried: build, check, time, table
# prepare: FORMAC=path (default build/formac, built if missing), ZOO=dir (default bench/zoo),
#   SIZE=S (default 8192: zoo.txt's S), ONLY=a,b (those programs), JOBS=n (parallel nvcc here, default 1:
#   the nvcc times recorded here are then one compile at a time), LOCAL_NVCC=0 (no nvcc here: the
#   device compiles everything anyway, in about 40 s; here it takes most of an hour on 2 cores).
# device: ONLY=a,b (those programs), RUN_OPTS (e.g. "--reps 50 --no-c") go to each program's driver; writes the logs and zoo_table.md
#   to $OUT (else .bench-gpu/zoo/out).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
B="$repo/.bench-gpu/zoo"
NV=(nvcc -arch=sm_90 -O3 -std=c++17)

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# cpu_seconds LOG CMD...: runs CMD (output to LOG) and prints the processor time it and its children took
# (user + system): the development machine is shared, so its wall times say little.
cpu_seconds() {
  local log="$1" tf rc TIMEFORMAT='%U %S'
  shift
  tf="$(mktemp)"
  { time "$@" > "$log" 2>&1; } 2> "$tf"
  rc=$?
  awk '{ printf "%.1f", $1 + $2 }' "$tf"
  rm -f "$tf"
  return "$rc"
}

failure() {  # VARIANT STATUS: what went wrong with its nvcc
  if [ "$2" = 124 ]; then echo "$1 nvcc timed out (NVCC_TIMEOUT=${NVCC_TIMEOUT:-300} s)"; else echo "$1 nvcc failed"; fi
}

# build-one DIR TAG: compile one program's fused and unfused CUDA (timed), its C and glue, and link
# zoo_NAME against $B/zoo_driver.o. Writes DIR/nvcc_TAG.txt: "fused_s unfused_s status" (nvcc's
# processor seconds).
build_one() {
  local d="$1" tag="$2" n fs us status=""
  n="$(basename "$d")"
  cd "$d" || return 1
  rm -f "nvcc_$tag.txt" "zoo_$n"
  fs="$(cpu_seconds zf_nvcc.log timeout "${NVCC_TIMEOUT:-300}" "${NV[@]}" -c "zf_$n.cu" -o zf.o)" || status="$(failure fused $?)"
  us="$(cpu_seconds zu_nvcc.log timeout "${NVCC_TIMEOUT:-300}" "${NV[@]}" -c "zu_$n.cu" -o zu.o)" ||
    status="${status:+$status, }$(failure --no-fuse $?)"
  if [ -z "$status" ]; then
    status=ok
    { gcc -std=c99 -O3 -march=native -fopenmp -c "zc_$n.c" -o zc.o &&
      g++ -std=c++17 -O2 -I"$here" -I. -c glue.cpp -o glue.o &&
      "${NV[@]}" -o "zoo_$n" "$B/zoo_driver.o" zf.o zu.o zc.o glue.o -Xcompiler -fopenmp; } > link.log 2>&1 ||
      status="C, glue or link failed"
  fi
  echo "$fs $us $status" > "nvcc_$tag.txt"
  echo "   $n: nvcc fused ${fs} s, unfused ${us} s (processor time): $status"
  [ "$status" = ok ] || { tail -20 zf_nvcc.log zu_nvcc.log link.log 2>/dev/null | sed 's/^/     /'; }
}

# The program folders, those of $ONLY (a,b) when set.
programs() {
  local d
  for d in "$B"/programs/*/; do
    d="${d%/}"
    [ -z "${ONLY:-}" ] || [[ ",$ONLY," == *",$(basename "$d"),"* ]] && echo "$d"
  done
}

build_all() {  # TAG JOBS
  "${NV[@]}" -I"$here" -I"$here/.." -Xcompiler -fopenmp -c "$here/zoo_driver.cu" -o "$B/zoo_driver.o" ||
    { echo "run.sh: zoo_driver.cu failed to compile" >&2; exit 1; }
  local dirs=()
  for d in $(programs); do [ -f "$d/SKIP" ] || dirs+=("$d"); done
  printf '%s\n' "${dirs[@]}" | xargs -P "$2" -I{} bash "$here/run.sh" build-one {} "$1"
}

case "${1:-}" in
  prepare)
    FORMAC="${FORMAC:-$repo/build/formac}"
    ZOO="${ZOO:-$repo/bench/zoo}"
    if [ ! -f "$ZOO/zoo.txt" ]; then echo "run.sh: no $ZOO/zoo.txt (ZOO=dir picks the zoo)" >&2; exit 1; fi
    if [ ! -x "$FORMAC" ]; then
      echo "== building formac ($FORMAC)"
      cmake -S "$repo" -B "$(dirname "$FORMAC")" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
        cmake --build "$(dirname "$FORMAC")" -j2 --target formac || exit 1
    fi
    rm -rf "$B" && mkdir -p "$B/programs"
    echo "== generating CUDA (fused, --no-fuse) and C, and the evaluator's outputs at zoo.txt's test sizes"
    only=()
    [ -n "${ONLY:-}" ] && only=(--only "$ONLY")
    python3 "$here/prepare.py" "$FORMAC" "$ZOO" "$B/programs" --size "${SIZE:-8192}" "${only[@]}" || exit 1
    git -C "$repo" rev-parse --short HEAD > "$B/REPO_COMMIT" 2>/dev/null
    "$FORMAC" --version 2>/dev/null | head -1 > "$B/FORMAC_VERSION"
    if [ "${LOCAL_NVCC:-1}" != 0 ] && command -v nvcc >/dev/null; then
      echo "== compiling here: nvcc -arch=sm_90 -O3, ${JOBS:-1} at a time (runs only on a GPU)"
      export NVCC_TIMEOUT="${NVCC_TIMEOUT:-3600}"  # a shared machine: only the device's limit matters
      build_all here "${JOBS:-1}"
      echo "== formac's C against the evaluator at zoo.txt's test sizes (the glue and the inputs' formula)"
      for d in $(programs); do
        n="$(basename "$d")"
        [ -x "$d/zoo_$n" ] || continue
        (cd "$d" && "./zoo_$n" --dir . --cpu-only | sed -n 's/^   test sizes: /   '"$n"': /p; /MISMATCH/p') || failed="${failed:-} $n"
      done
      [ -z "${failed:-}" ] || { echo "run.sh: C differs from the evaluator:$failed" >&2; exit 1; }
      find "$B" \( -name '*.o' -o -name 'zoo_*' -type f \) -delete
    fi
    du -sh "$B"
    echo "== ready: carry .bench-gpu and run bash bench/gpu/zoo/run.sh device on the GPU machine"
    ;;
  device)
    OUTDIR="${OUT:-$B/out}"
    LOGS="$B/logs"  # every program's log, and build.log; tarred into $OUTDIR/logs.tar.gz at the end
    mkdir -p "$OUTDIR" && rm -rf "$LOGS" && mkdir -p "$LOGS"
    if [ ! -d "$B/programs" ]; then echo "run.sh: no $B/programs: run.sh prepare first, carry .bench-gpu" >&2; exit 1; fi
    gpu="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC'); ${gpu:-no nvidia-smi}; $(nvcc --version | tail -1); $(nproc) CPUs"
    echo "== building: nvcc -arch=sm_90 -O3, $(nproc) at a time"
    t="$(now)"
    build_all device "$(nproc)" 2>&1 | tee "$LOGS/build.log"
    echo "   built in $(since "$t") s"
    : > "$OUTDIR/rows.txt"
    rc=0
    for d in $(programs); do
      n="$(basename "$d")"
      if [ -f "$d/SKIP" ]; then
        echo "ZOO_ROW|$n|-|-|-|-|-|-|skipped: $(cat "$d/SKIP")|-" >> "$OUTDIR/rows.txt"
        continue
      fi
      status="$(cut -d' ' -f3- "$d/nvcc_device.txt" 2>/dev/null)"
      [ -n "$status" ] || status="not built"
      if [ "$status" != ok ]; then
        echo "ZOO_ROW|$n|-|-|-|-|-|-|$status|-" >> "$OUTDIR/rows.txt"
        rc=1
        continue
      fi
      (cd "$d" && timeout "${RUN_TIMEOUT:-120}" "./zoo_$n" --dir . ${RUN_OPTS:-}) > "$LOGS/$n.log" 2>&1
      prc=$?
      grep -v '^ZOO_ROW' "$LOGS/$n.log"
      if grep -q '^ZOO_ROW' "$LOGS/$n.log"; then
        grep '^ZOO_ROW' "$LOGS/$n.log" | tail -1 >> "$OUTDIR/rows.txt"
      else
        echo "ZOO_ROW|$n|-|-|-|-|-|-|exit status $prc$([ $prc = 124 ] && echo ' (timeout)'), no result|-" >> "$OUTDIR/rows.txt"
        tail -5 "$LOGS/$n.log"
      fi
      [ $prc = 0 ] || rc=1
    done
    {
      echo "GPU zoo, $(date -u '+%Y-%m-%d %H:%M UTC'), ${gpu:-?}, $(nvcc --version | tail -1 | sed 's/^Build //'),"
      echo "formac $(cat "$B/REPO_COMMIT" 2>/dev/null || echo '?') (prepared), S = zoo.txt's nominal size"
      echo
      bash "$here/table.sh" "$OUTDIR/rows.txt" "$B/programs"
    } > "$OUTDIR/zoo_table.md"
    tar -czf "$OUTDIR/logs.tar.gz" -C "$B" logs
    echo
    cat "$OUTDIR/zoo_table.md"
    exit "$rc"
    ;;
  build-one) build_one "$2" "$3" ;;
  *) echo "usage: run.sh prepare|device (README.md)" >&2; exit 2 ;;
esac
