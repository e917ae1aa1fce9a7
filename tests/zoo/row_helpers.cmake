# c_row_helpers_inline: the fused C of bench/zoo/bugs/fused_max_slow.idsl (two
# chained max stencils) calls formac_max_f in its row functions; no such call
# may sit inside a FORMAC_NO_WRAPV_BEGIN ... END region, where gcc refuses to
# inline helpers defined outside it and the rows stop vectorising (6x slower
# than --no-fuse). Then gcc -Winline must not report a failed inlining.
#   cmake -DFORMAC=... -DCC=... -DSRC=program.idsl -DWORK=dir -P row_helpers.cmake
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${FORMAC} ${SRC} --emit=c -o ${WORK}/rows.c RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "formac failed on ${SRC}")
endif()
file(STRINGS ${WORK}/rows.c lines)
set(inside FALSE)
set(calls 0)
foreach(line IN LISTS lines)
  if(line STREQUAL "FORMAC_NO_WRAPV_BEGIN")
    set(inside TRUE)
  elseif(line STREQUAL "FORMAC_NO_WRAPV_END")
    set(inside FALSE)
  elseif(line MATCHES "formac_max_f\\(")
    math(EXPR calls "${calls} + 1")
    if(inside)
      message(FATAL_ERROR "formac_max_f is called inside a no-wrapv region of ${WORK}/rows.c:\n${line}")
    endif()
  endif()
endforeach()
if(calls EQUAL 0)
  message(FATAL_ERROR "${WORK}/rows.c calls no formac_max_f: the test no longer tests anything")
endif()
execute_process(COMMAND ${CC} -std=c99 -O3 -fopenmp -Winline -c ${WORK}/rows.c -o ${WORK}/rows.o
                ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR err MATCHES "inlining failed")
  message(FATAL_ERROR "gcc on ${WORK}/rows.c:\n${err}")
endif()
