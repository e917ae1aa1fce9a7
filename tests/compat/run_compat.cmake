# Runs one compat test: generate C, compile it with the driver, run it at the
# default size and at awkward sizes the driver accepts.
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${FORMAC} ${SRC}/${NAME}.idsl --init-zero --print-c --kernel-name ${NAME}
                        --c-output ${WORK}/${NAME}.c -w
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "formac failed on ${NAME}.idsl")
endif()
execute_process(COMMAND ${CC} -std=c99 -O2 -fopenmp -Wall -Wextra -Werror
                        ${WORK}/${NAME}.c ${SRC}/${NAME}_driver.c -lm -o ${WORK}/${NAME}.x
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the generated C of ${NAME} does not compile with its driver")
endif()
# The same C must build clean with clang, and without OpenMP.
find_program(CLANG clang)
if(CLANG)
  execute_process(COMMAND ${CLANG} -std=c99 -O1 -Wall -Wextra -Werror -c ${WORK}/${NAME}.c
                          -o ${WORK}/${NAME}.clang.o
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "clang (no OpenMP) rejects the generated C of ${NAME}:\n${out}")
  endif()
endif()
set(sizes "" "1 7" "3 2" "17 1" "5 5" "61 67")
foreach(size IN LISTS sizes)
  separate_arguments(args UNIX_COMMAND "${size}")
  execute_process(COMMAND ${WORK}/${NAME}.x ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(out MATCHES "need ")  # the driver's own size precondition
    continue()
  endif()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NAME} at size '${size}': ${out}")
  endif()
endforeach()
