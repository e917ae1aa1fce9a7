# Runs one example app (cmake -DAPP=... -DINPUT=in.png -DWORK=dir [-DEXPECTED=x.md5]
# -P run_example.cmake): wrong usage and a missing input must exit 1 with a
# message; a real run must exit 0 and write a PNG as large as the input; and the
# 8-bit result written as APP.pgm must have the MD5 that EXPECTED lists for it.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
get_filename_component(app ${APP} NAME)

# The width and height in a PNG's IHDR chunk (bytes 16..23, big-endian).
function(png_size path out_var)
  file(READ ${path} head LIMIT 24 HEX)
  string(SUBSTRING "${head}" 0 16 magic)
  if(NOT magic STREQUAL "89504e470d0a1a0a")
    message(FATAL_ERROR "${app}: '${path}' is not a PNG")
  endif()
  string(SUBSTRING "${head}" 32 8 w)
  string(SUBSTRING "${head}" 40 8 h)
  math(EXPR w "0x${w}")
  math(EXPR h "0x${h}")
  set(${out_var} "${w}x${h}" PARENT_SCOPE)
endfunction()

execute_process(COMMAND ${APP} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "usage: ${app} ")
  message(FATAL_ERROR "${app} without arguments: exit ${rc}, stderr '${err}' (want 1 and a usage line)")
endif()

execute_process(COMMAND ${APP} ${WORK}/missing.png ${WORK}/never.png
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "missing.png" OR EXISTS ${WORK}/never.png)
  message(FATAL_ERROR "${app} on a missing file: exit ${rc}, stderr '${err}' (want 1 and the file's name)")
endif()

execute_process(COMMAND ${APP} ${INPUT} ${WORK}/out.png
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${app} ${INPUT}: exit ${rc}\n${out}${err}")
endif()
png_size(${INPUT} want)
png_size(${WORK}/out.png got)
if(NOT got STREQUAL want)
  message(FATAL_ERROR "${app}: out.png is ${got}, the input ${want}")
endif()
message(STATUS "${out}")

# The values: generated code must compute what it did when the outputs were
# checked (against NumPy references, and by eye); fusion must not change them.
if(EXPECTED)
  file(STRINGS ${EXPECTED} lines REGEX "  ${app}\\.pgm$")
  if(NOT lines)
    message(FATAL_ERROR "${EXPECTED} lists no ${app}.pgm")
  endif()
  string(REGEX REPLACE " .*" "" want_md5 "${lines}")
  execute_process(COMMAND ${APP} ${INPUT} ${WORK}/${app}.pgm
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${app} ${INPUT} ${WORK}/${app}.pgm: exit ${rc}\n${out}${err}")
  endif()
  file(MD5 ${WORK}/${app}.pgm got_md5)
  if(NOT got_md5 STREQUAL want_md5)
    message(FATAL_ERROR "${app}: the output changed: ${WORK}/${app}.pgm has MD5 ${got_md5}, "
      "${EXPECTED} says ${want_md5}. Look at the image; if the new one is right, "
      "update that file (md5sum ${app}.pgm).")
  endif()
endif()
