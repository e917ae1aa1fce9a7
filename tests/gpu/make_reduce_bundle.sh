#!/usr/bin/env bash
# The reduction programs of the e2e matrix (tests/e2e/Reductions.cpp: every op
# whole and along each dimension, histograms, where, topk, the point-wise
# inputs that CUDA reads 16 bytes a lane) bundled for run_e2e_gpu.sh: every
# output element of the CUDA build, fused and unfused, against the evaluator.
#
#   tests/gpu/make_reduce_bundle.sh BUILD DIR     # here (BUILD has e2e_c_test and e2e_gpu_bundle)
#   tests/gpu/run_e2e_gpu.sh DIR                  # on the GPU machine: "e2e gpu: P passed, F failed"
set -eu
build=${1:?usage: make_reduce_bundle.sh BUILD DIR}
dir=${2:?usage: make_reduce_bundle.sh BUILD DIR}
names=$("$build/tests/e2e/e2e_c_test" --gtest_list_tests |
  sed -n 's|^  MatchesEvaluator/\(reduce_[A-Za-z0-9_]*\).*|\1|p' | grep -v '_special$' | sort -u | paste -sd, -)
[ -n "$names" ] || { echo "no reduce_ programs in $build/tests/e2e/e2e_c_test" >&2; exit 1; }
"$build/tests/e2e/e2e_gpu_bundle" "$dir" --only "$names"
