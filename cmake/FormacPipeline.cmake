# FormacPipeline.cmake — compile a Forma pipeline (.idsl) into a CMake target.
#
#   formac_add_pipeline(TARGET <target> SOURCE <file.idsl>
#                       [KERNEL <name>] [TARGET_KIND openmp|cuda]
#                       [OPTIONS <formac flags>...] [DEPENDS <files>...])
#
# At build time formac turns SOURCE into <name>.c (or <name>.cu) and <name>.h
# in ${CMAKE_CURRENT_BINARY_DIR}/formac/<target>/ (regenerated when the .idsl
# or formac itself changes). The source is added to <target> and that folder
# to its include path (so `#include "<name>.h"` works). The entry point is
#   void <name>(<inputs in declaration order>, <int per parameter>, T* output);
# plus <name>_create / <name>_run / <name>_destroy (see the generated header,
# plain C in both kinds).
#
#   KERNEL       the entry point's name; default: SOURCE's file name without
#                its extension.
#   TARGET_KIND  what formac generates: `openmp` (default; C99 + OpenMP: links
#                OpenMP::OpenMP_C and libm) or `cuda` (a .cu file whose entry
#                points take host or device pointers, plus <name>_run_async on
#                a stream). `cuda` needs the CUDA language enabled first
#                (project(... LANGUAGES C CUDA) or enable_language(CUDA)); the
#                target then links the CUDA runtime as CMake's CUDA language
#                does (CUDA_RUNTIME_LIBRARY), for the CUDA_ARCHITECTURES the
#                project chooses.
#   OPTIONS      extra formac flags, e.g. --no-fuse or -Werror.
#   DEPENDS      more files whose change regenerates the code: what SOURCE
#                imports (`import "stdlib/gaussian3x3.idsl";`).
#
# formac is the target `formac::formac`: inside formac's own build an alias of
# the `formac` executable target (built before the pipeline), from an
# installed package the imported executable (find_package(formac)). Set
# FORMAC_EXECUTABLE to use another formac binary instead.
include_guard(GLOBAL)

function(formac_add_pipeline)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "TARGET;SOURCE;KERNEL;TARGET_KIND" "OPTIONS;DEPENDS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "formac_add_pipeline: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  foreach(required TARGET SOURCE)
    if(NOT arg_${required})
      message(FATAL_ERROR "formac_add_pipeline: ${required} is required")
    endif()
  endforeach()
  if(NOT TARGET ${arg_TARGET})
    message(FATAL_ERROR "formac_add_pipeline: '${arg_TARGET}' is not a target "
                        "(create it with add_executable or add_library first)")
  endif()
  if(NOT arg_TARGET_KIND)
    set(arg_TARGET_KIND openmp)
  endif()
  if(NOT arg_TARGET_KIND MATCHES "^(openmp|cuda)$")
    message(FATAL_ERROR "formac_add_pipeline: TARGET_KIND '${arg_TARGET_KIND}' is not "
                        "supported ('openmp' or 'cuda')")
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(arg_TARGET_KIND STREQUAL "cuda" AND NOT "CUDA" IN_LIST languages)
    message(FATAL_ERROR "formac_add_pipeline: TARGET_KIND cuda needs the CUDA language: "
                        "project(... LANGUAGES C CUDA) or enable_language(CUDA) before this call")
  endif()

  get_filename_component(source "${arg_SOURCE}" ABSOLUTE)
  if(NOT EXISTS "${source}")
    message(FATAL_ERROR "formac_add_pipeline: SOURCE '${arg_SOURCE}' does not exist")
  endif()
  set(kernel "${arg_KERNEL}")
  if(NOT kernel)
    get_filename_component(kernel "${source}" NAME_WE)
  endif()
  if(NOT kernel MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "formac_add_pipeline: KERNEL '${kernel}' is not a C identifier")
  endif()

  # Which formac runs, and what the generated files depend on.
  if(FORMAC_EXECUTABLE)
    set(formac_command "${FORMAC_EXECUTABLE}")
    set(formac_depends "${FORMAC_EXECUTABLE}")
  elseif(TARGET formac::formac)
    get_target_property(built_here formac::formac ALIASED_TARGET)
    set(formac_command "$<TARGET_FILE:formac::formac>")
    if(built_here)
      set(formac_depends ${built_here})  # target-level and file-level dependency
    else()
      set(formac_depends "$<TARGET_FILE:formac::formac>")
    endif()
  else()
    message(FATAL_ERROR "formac_add_pipeline: no formac executable: build inside formac, "
                        "call find_package(formac), or set FORMAC_EXECUTABLE")
  endif()

  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/formac/${arg_TARGET}")
  set(out_h "${out_dir}/${kernel}.h")
  if(arg_TARGET_KIND STREQUAL "cuda")
    set(out_c "${out_dir}/${kernel}.cu")
    set(emit --print-cuda --cuda-output "${out_c}")
  else()
    set(out_c "${out_dir}/${kernel}.c")
    set(emit --print-c --c-output "${out_c}")
  endif()
  file(RELATIVE_PATH shown "${CMAKE_BINARY_DIR}" "${out_c}")
  add_custom_command(
    OUTPUT "${out_c}" "${out_h}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${out_dir}"
    COMMAND ${formac_command} "${source}" ${emit} --kernel-name ${kernel}
            --header-file "${out_h}" ${arg_OPTIONS}
    DEPENDS "${source}" ${formac_depends} ${arg_DEPENDS}
    COMMENT "formac: generating ${shown}"
    VERBATIM)
  target_sources(${arg_TARGET} PRIVATE "${out_c}" "${out_h}")
  target_include_directories(${arg_TARGET} PRIVATE "${out_dir}")
  if(arg_TARGET_KIND STREQUAL "openmp")
    if(NOT TARGET OpenMP::OpenMP_C)
      find_package(OpenMP REQUIRED COMPONENTS C)
    endif()
    # Neither flag changes a value the generated code computes (it never reads
    # errno or floating-point exception flags); together they let the compiler
    # vectorize sqrt and selects, which the in-file pragmas cannot fully do.
    if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
      set_source_files_properties("${out_c}" PROPERTIES COMPILE_OPTIONS "-fno-math-errno;-fno-trapping-math")
    endif()
    target_link_libraries(${arg_TARGET} PRIVATE OpenMP::OpenMP_C)
    if(UNIX)
      target_link_libraries(${arg_TARGET} PRIVATE m)
    endif()
    target_compile_features(${arg_TARGET} PRIVATE c_std_99)
  endif()
endfunction()
