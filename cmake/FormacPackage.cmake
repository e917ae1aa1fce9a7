# FormacPackage.cmake — formac as a package other CMake projects use:
#   find_package(formac) gives formac::formac (the compiler), formac::runtime
#   (image I/O and timers, headers in <prefix>/include/formac),
#   formac::run (the C++ API that compiles pipelines at run time,
#   #include "run/Pipeline.h"; headers in <prefix>/include/formac/compiler)
#   and formac_add_pipeline (FormacPipeline.cmake).
# Included by the top-level CMakeLists.txt after runtime/ is added.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The same names inside this build, so that examples/ (and formac_add_pipeline)
# read the same in-tree and against an installed package.
add_executable(formac::formac ALIAS formac)
add_library(formac::runtime ALIAS formac_runtime)
add_library(formac::run ALIAS formac_run)
set_target_properties(formac_core PROPERTIES EXPORT_NAME core)
set_target_properties(formac_run PROPERTIES EXPORT_NAME run)

# runtime/ puts its source folder on the include path; an installed package
# must point at the installed headers instead.
set_target_properties(formac_runtime PROPERTIES
  EXPORT_NAME runtime
  INTERFACE_INCLUDE_DIRECTORIES
    "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/runtime>;$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/formac>")

set(FORMAC_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/formac")

install(TARGETS formac EXPORT formacTargets
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(TARGETS formac_runtime EXPORT formacTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
# The C++ API and the compiler it runs (static libraries), with the compiler's
# headers in their source layout (run/Pipeline.h includes ir/Pipeline.h, ...).
install(TARGETS formac_core formac_run EXPORT formacTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/compiler/"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/formac/compiler"
        FILES_MATCHING PATTERN "*.h" PATTERN "*.inl")
install(FILES "${PROJECT_SOURCE_DIR}/runtime/formac_image.h"
              "${PROJECT_SOURCE_DIR}/runtime/formac_timer.h"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/formac")
# The stdlib, for `import "stdlib/gaussian3x3.idsl";` (parse/Modules.h finds
# share/formac beside the installed bin/).
install(DIRECTORY "${PROJECT_SOURCE_DIR}/stdlib/"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/formac/stdlib"
        FILES_MATCHING PATTERN "*.idsl" PATTERN "README.md")
install(EXPORT formacTargets NAMESPACE formac::
        FILE formacTargets.cmake DESTINATION "${FORMAC_INSTALL_CMAKEDIR}")

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/formacConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/formacConfig.cmake"
  INSTALL_DESTINATION "${FORMAC_INSTALL_CMAKEDIR}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/formacConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/formacConfig.cmake"
              "${PROJECT_BINARY_DIR}/formacConfigVersion.cmake"
              "${CMAKE_CURRENT_LIST_DIR}/FormacPipeline.cmake"
        DESTINATION "${FORMAC_INSTALL_CMAKEDIR}")
