# One robustness test: gen_stress writes the input CASE.idsl into WORK, formac
# compiles it (to C, or only to EMIT when given), and the test checks
#   - the exit status is one of RC (e.g. "0|1"): never a crash, a timeout or 70;
#   - no "internal error" on stderr; a status of 1 comes with an "error:";
#   - stderr contains EXPECT, when given.
cmake_minimum_required(VERSION 3.16)  # policies of script mode (-P)
file(MAKE_DIRECTORY ${WORK})
set(input ${WORK}/${CASE}.idsl)
execute_process(COMMAND ${GEN} ${CASE} ${input} RESULT_VARIABLE rc OUTPUT_VARIABLE seed)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gen_stress ${CASE} failed")
endif()
message(STATUS "${seed}")  # random cases: `gen_stress CASE FILE SEED` remakes the input
if(EMIT)
  set(what --emit=${EMIT})
else()
  set(what -o ${WORK}/${CASE}.c)
endif()
# With CPU, formac may use that many seconds of CPU time (ulimit -t: the
# kernel ends it with SIGXCPU past them), however loaded the machine is.
set(limit)
if(CPU)
  set(limit sh -c "ulimit -t ${CPU} && exec \"$0\" \"$@\"")
endif()
execute_process(COMMAND ${limit} ${FORMAC} ${input} ${what} -w
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err TIMEOUT 120)
string(SUBSTRING "${err}" 0 2000 shown)
string(REPLACE "|" ";" allowed "${RC}")
if(NOT rc IN_LIST allowed)
  message(FATAL_ERROR "${CASE}: exit status '${rc}', expected ${RC}; the input is ${input}\n${shown}")
endif()
string(FIND "${err}" "internal error" p)
if(NOT p EQUAL -1)
  message(FATAL_ERROR "${CASE}: internal error; the input is ${input}\n${shown}")
endif()
if(rc EQUAL 1)
  string(FIND "${err}" "error: " p)
  if(p EQUAL -1)
    message(FATAL_ERROR "${CASE}: exit status 1 without an error message\n${shown}")
  endif()
endif()
if(DEFINED EXPECT AND NOT EXPECT STREQUAL "")
  string(FIND "${err}" "${EXPECT}" p)
  if(p EQUAL -1)
    message(FATAL_ERROR "${CASE}: stderr does not contain '${EXPECT}'\n${shown}")
  endif()
endif()
