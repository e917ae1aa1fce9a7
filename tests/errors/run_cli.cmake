# Runs formac with a bad command line, ARGS (separated by '|'; @DIR@ stands
# for a scratch directory), and checks: exit status 1, and stderr has
# "formac: error: " followed by a message containing EXPECT.
cmake_minimum_required(VERSION 3.16)  # policies of script mode (-P)
file(MAKE_DIRECTORY ${DIR})
string(REPLACE "@DIR@" "${DIR}" ARGS "${ARGS}")
string(REPLACE "@DIR@" "${DIR}" EXPECT "${EXPECT}")
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${FORMAC} ${args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc STREQUAL "1")
  message(FATAL_ERROR "expected exit status 1, got '${rc}'; stderr:\n${err}")
endif()
string(FIND "${err}" "formac: error: " p)
if(NOT p EQUAL 0)
  message(FATAL_ERROR "stderr does not start with 'formac: error: ':\n${err}")
endif()
string(FIND "${err}" "${EXPECT}" p)
if(p EQUAL -1)
  message(FATAL_ERROR "stderr does not contain '${EXPECT}':\n${err}")
endif()
