# Generates one program's CUDA and compiles it with nvcc; warnings fail.
file(MAKE_DIRECTORY ${WORK})
set(flags --print-cuda --kernel-name ${NAME} --cuda-output ${WORK}/${NAME}.cu -w)
if(VARIANT STREQUAL "unfused")
  list(APPEND flags --no-fuse)
endif()
execute_process(COMMAND ${FORMAC} ${PROGRAM} ${flags} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "formac failed on ${PROGRAM}")
endif()
execute_process(COMMAND ${NVCC} -arch=sm_90 -O3 -Werror all-warnings -c ${WORK}/${NAME}.cu
                        -o ${WORK}/${NAME}.o
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc rejects the generated CUDA of ${NAME} (${VARIANT}):\n${out}")
endif()
