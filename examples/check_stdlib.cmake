# Checks one stdlib snippet (cmake -DFORMAC=... -DSNIPPET=x.idsl -DCC=cc -DWORK=dir
# -P check_stdlib.cmake): formac accepts it (--emit=dag) and its generated C
# compiles without warnings.
get_filename_component(stem ${SNIPPET} NAME_WE)
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${FORMAC} ${SNIPPET} --emit=dag
                RESULT_VARIABLE rc OUTPUT_VARIABLE dag ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "formac --emit=dag rejects ${stem}.idsl:\n${err}")
endif()
execute_process(COMMAND ${FORMAC} ${SNIPPET} --print-c --kernel-name ${stem}
                        --c-output ${WORK}/${stem}.c --header-file ${WORK}/${stem}.h
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "formac --print-c fails on ${stem}.idsl:\n${err}")
endif()
execute_process(COMMAND ${CC} -std=c99 -fopenmp -Wall -Wextra -Werror -c ${WORK}/${stem}.c
                        -o ${WORK}/${stem}.o
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the generated C of ${stem}.idsl does not compile:\n${err}")
endif()
