#!/usr/bin/env bash
# bench/cpu/ab.sh — A/B timing of two generated C files of one bench pipeline, run
# alternately in one process on the same input (the fairest comparison on a shared machine).
#
#   bash bench/cpu/ab.sh PIPELINE A.c B.c [THREADS] [CC_A] [CC_B]
#
# PIPELINE is blur, harris or canny; A.c and B.c are `formac bench/cpu/PIPELINE.idsl --print-c
# --kernel-name PIPELINE` outputs (from two formac versions, or hand-edited). Each is built with
# its compiler (default gcc) and `-O3 -march=native` plus $OPENMP (default -fopenmp; give
# OPENMP=-fno-openmp to compare gcc with clang, whose OpenMP runtimes cannot share a process).
# Prints the minimum over 25 alternated runs of each at 4096² (SIZE=n for another size).
set -euo pipefail
p=$1 a=$2 b=$3 threads=${4:-1} cca=${5:-gcc} ccb=${6:-${5:-gcc}}
openmp=${OPENMP:--fopenmp} size=${SIZE:-4096}
case $p in
  blur) args="float* in, float* out" call="in, out" ;;
  harris) args="float* in, float k, float* out" call="in, 0.04f, out" ;;
  canny) args="float* in, float low, float high, unsigned char* out" call="in, 0.25f, 0.40f, (unsigned char*)out" ;;
  *) echo "ab.sh: unknown pipeline $p" >&2; exit 2 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for v in A B; do
  src=$a cc=$cca
  [ $v = B ] && src=$b cc=$ccb
  # Rename the kernel's symbols so that both link into one program.
  sed "s/\b${p}_/${p}${v}_/g; s/^void ${p}(/void ${p}${v}(/" "$src" > "$work/$v.c"
  $cc -O3 -march=native $openmp -c "$work/$v.c" -o "$work/$v.o"
done
cat > "$work/main.c" <<EOF
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
typedef struct ${p}A_workspace ${p}A_workspace;
typedef struct ${p}B_workspace ${p}B_workspace;
${p}A_workspace* ${p}A_create(int, int);
${p}B_workspace* ${p}B_create(int, int);
int ${p}A_run(${p}A_workspace*, $args);
int ${p}B_run(${p}B_workspace*, $args);
int main(void) {
  const int n = $size;
  const size_t count = (size_t)n * n;
  float* in = malloc(count * 4);
  float* out = malloc(count * 4);
  unsigned s = 1;
  double best_a = 1e9, best_b = 1e9;
  omp_set_num_threads($threads);
  for (size_t i = 0; i < count; ++i) {
    s = s * 1103515245u + 12345u;
    in[i] = 0.001f + (float)(s >> 8) / 16777216.0f;
  }
  ${p}A_workspace* wa = ${p}A_create(n, n);
  ${p}B_workspace* wb = ${p}B_create(n, n);
  ${p}A_run(wa, $call);
  ${p}B_run(wb, $call);
  for (int r = 0; r < 25; ++r) {
    double t = omp_get_wtime();
    ${p}A_run(wa, $call);
    t = omp_get_wtime() - t;
    if (t < best_a) best_a = t;
    t = omp_get_wtime();
    ${p}B_run(wb, $call);
    t = omp_get_wtime() - t;
    if (t < best_b) best_b = t;
  }
  printf("$p %d² %d thread(s): A %.2f ms, B %.2f ms, B/A %.3f\n", n, $threads, best_a * 1e3,
         best_b * 1e3, best_b / best_a);
  return 0;
}
EOF
gcc -O2 -fopenmp "$work/main.c" "$work/A.o" "$work/B.o" -o "$work/ab" -lm
"$work/ab"
