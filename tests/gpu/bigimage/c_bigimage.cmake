# ctest c_bigimage: formac's C of bigc.idsl on an image of 2^31 + 2^16 bytes (bigc_main.c
# checks the values). Arguments: FORMAC, CC, SRC (this folder), WORK.
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${FORMAC} ${SRC}/bigc.idsl -w --print-c --kernel-name bigc --c-output ${WORK}/bigc.c
                        --header-file ${WORK}/bigc.h RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "formac failed on bigc.idsl")
endif()
execute_process(COMMAND ${CC} -std=c99 -O2 -fopenmp -Wall -Wextra -Werror -I${WORK} ${WORK}/bigc.c
                        ${SRC}/bigc_main.c -o ${WORK}/bigc_test
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the C of bigc.idsl does not compile:\n${out}")
endif()
execute_process(COMMAND ${WORK}/bigc_test RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "c_bigimage failed")
endif()
