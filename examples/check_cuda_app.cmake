# Builds examples/cuda_app (formac_add_pipeline(... TARGET_KIND cuda)) against
# this build installed into WORK/prefix, and runs it:
#   cmake -DBUILD=<formac build> -DAPP=<examples/cuda_app> -DWORK=dir
#         -DNVCC=<nvcc> -DGENERATOR=... -DC_COMPILER=... -P check_cuda_app.cmake
# The app checks every output point against the known values; without a GPU
# it exits 77 and this passes, having compiled and linked it (CI). First, a
# project without the CUDA language must fail with formac_add_pipeline's
# message. Optional
# -DCUDA_ARCHITECTURES=90 builds SASS for that GPU instead of PTX for 7.5.
file(REMOVE_RECURSE ${WORK})
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed:\n${out}")
  endif()
endfunction()
set(arch)
if(CUDA_ARCHITECTURES)
  set(arch -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES})
endif()
step("installing" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
file(WRITE ${WORK}/no_cuda/CMakeLists.txt
     "cmake_minimum_required(VERSION 3.18)\nproject(no_cuda LANGUAGES C)\nfind_package(formac REQUIRED)\n"
     "add_executable(app ${APP}/main.c)\n"
     "formac_add_pipeline(TARGET app SOURCE ${APP}/gradient.idsl TARGET_KIND cuda)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/no_cuda -B ${WORK}/no_cuda/build -G ${GENERATOR}
                -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${WORK}/prefix
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(REGEX REPLACE "[ \n]+" " " out "${out}")
if(rc EQUAL 0 OR NOT out MATCHES "TARGET_KIND cuda needs the CUDA language")
  message(FATAL_ERROR "TARGET_KIND cuda without the CUDA language: want an error, got (exit ${rc}):\n${out}")
endif()
step("configuring cuda_app against the installed formac"
     ${CMAKE_COMMAND} -S ${APP} -B ${WORK}/build -G ${GENERATOR} -DCMAKE_C_COMPILER=${C_COMPILER}
     -DCMAKE_CUDA_COMPILER=${NVCC} -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release ${arch})
step("building cuda_app" ${CMAKE_COMMAND} --build ${WORK}/build)
execute_process(COMMAND ${WORK}/build/cuda_app RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 77)
  message(STATUS "cuda_app built and linked; not run: ${out}")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "cuda_app failed (exit ${rc}):\n${out}")
else()
  message(STATUS "${out}")
endif()
