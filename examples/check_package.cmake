# Checks the installed package (cmake -DBUILD=<formac build> -DEXAMPLES=<examples/>
# -DWORK=dir -DGENERATOR=... -DC_COMPILER=... -P check_package.cmake): installs the
# build into WORK/prefix, configures examples/ on its own against it
# (find_package(formac)), builds the blur app and runs its test; then builds
# examples/run_api (the C++ API, formac::run) against it and runs it.
file(REMOVE_RECURSE ${WORK})
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed:\n${out}")
  endif()
endfunction()
step("installing" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
if(NOT EXISTS ${WORK}/prefix/share/formac/stdlib/gaussian3x3.idsl)
  message(FATAL_ERROR "the stdlib is not installed in share/formac/stdlib (import \"stdlib/...\";)")
endif()
step("configuring examples/ against the installed formac"
     ${CMAKE_COMMAND} -S ${EXAMPLES} -B ${WORK}/build -G ${GENERATOR}
     -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${WORK}/prefix
     -DFORMAC_EXAMPLES=blur -DCMAKE_BUILD_TYPE=Release)
step("building blur against the installed formac"
     ${CMAKE_COMMAND} --build ${WORK}/build --target blur)
file(STRINGS ${WORK}/build/CMakeCache.txt found REGEX "^formac_DIR:")
string(FIND "${found}" "formac_DIR:PATH=${WORK}/prefix/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "find_package(formac) did not find the installed package: ${found}")
endif()
step("running blur" ${CMAKE_COMMAND} -E chdir ${WORK}/build ${CMAKE_CTEST_COMMAND}
     -R "^example_blur$" --output-on-failure)

step("configuring examples/run_api against the installed formac"
     ${CMAKE_COMMAND} -S ${EXAMPLES}/run_api -B ${WORK}/run_api -G ${GENERATOR}
     -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release)
step("building run_api against the installed formac" ${CMAKE_COMMAND} --build ${WORK}/run_api)
# The JIT's library is found through FORMAC_JIT_PLUGIN when the prefix is not
# the one formac was configured for.
set(plugin ${WORK}/prefix/lib/formac/libformac_jit.so)
if(EXISTS ${plugin})
  set(ENV{FORMAC_JIT_PLUGIN} ${plugin})
endif()
set(ENV{FORMAC_CACHE_DIR} ${WORK}/cache)
step("running run_api" ${WORK}/run_api/run_api)
