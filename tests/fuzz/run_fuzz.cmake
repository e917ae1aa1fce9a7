# Runs fuzz_frontend for SECONDS starting from the programs in SEEDS
# (directories separated by '|') and the corpus earlier runs grew in WORK/corpus. Fails when libFuzzer reports a finding;
# the input that caused it is saved as WORK/crash-* (or leak-*, timeout-*, oom-*).
cmake_minimum_required(VERSION 3.16)  # policies of script mode (-P)
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/seeds)
string(REPLACE "|" ";" seed_dirs "${SEEDS}")
foreach(dir ${seed_dirs})
  file(GLOB seeds ${dir}/*.idsl)
  file(COPY ${seeds} DESTINATION ${WORK}/seeds)
endforeach()
execute_process(
  COMMAND ${FUZZER} ${WORK}/corpus ${WORK}/seeds
          -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048 -max_len=8192
          -dict=${DICT} -artifact_prefix=${WORK}/ -print_final_stats=1
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(REGEX MATCH "stat::number_of_executed_units: *[0-9]+" execs "${out}")
message(STATUS "fuzz_frontend: ${SECONDS} s, ${execs}")
if(NOT rc EQUAL 0)
  string(LENGTH "${out}" n)
  if(n GREATER 6000)
    math(EXPR from "${n} - 6000")
    string(SUBSTRING "${out}" ${from} 6000 out)
  endif()
  message(FATAL_ERROR "fuzz_frontend found a problem (exit ${rc}); the input is in ${WORK}/:\n${out}")
endif()
