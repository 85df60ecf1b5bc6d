# Packaging smoke test: configure, build and run a tiny project that consumes strata.
# Run as `cmake -D... -P run_consumer.cmake` (see tests/CMakeLists.txt). Any failing step is fatal.
#
#   CONSUMER_MODE         find_package: install STRATA_BINARY_DIR into a temporary prefix first and
#                         point CMAKE_PREFIX_PATH at it; every strata-* program built in that tree
#                         must be installed, and nothing without the prefix;
#                         install_unbuilt: configure STRATA_SOURCE_DIR afresh (STRATA_CONFIGURE_ARGS),
#                         install it WITHOUT building anything, check that headers and package files
#                         are there and no program is, then consume it as find_package does;
#                         add_subdirectory: pass STRATA_SOURCE_DIR.
#   STRATA_CONFIGURE_ARGS '|'-separated -D arguments for strata's own configure (install_unbuilt)
#   CONSUMER_SOURCE_DIR   the consumer project
#   CONSUMER_WORK_DIR     scratch directory, wiped at the start
#   CONSUMER_GENERATOR, CONSUMER_CXX_COMPILER, CONSUMER_MAKE_PROGRAM, CONSUMER_CONFIG
#   CONSUMER_CTEST_COMMAND  ctest, which runs the consumer's own test (script mode has no CMAKE_CTEST_COMMAND)
#   CONSUMER_EXTRA_ARGS   '|'-separated extra -D arguments for the consumer's configure step
#   STRATA_SOURCE_DIR, STRATA_BINARY_DIR

cmake_minimum_required(VERSION 3.25)  # policies in script mode (if(IN_LIST))

foreach(_var CONSUMER_MODE CONSUMER_SOURCE_DIR CONSUMER_WORK_DIR STRATA_SOURCE_DIR STRATA_BINARY_DIR)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer.cmake: ${_var} is not set")
  endif()
endforeach()
if(NOT CONSUMER_CTEST_COMMAND)
  get_filename_component(_bin "${CMAKE_COMMAND}" DIRECTORY)
  set(CONSUMER_CTEST_COMMAND "${_bin}/ctest")
endif()
if(NOT CONSUMER_CONFIG)
  set(CONSUMER_CONFIG Release)
endif()

function(run_step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    list(JOIN ARGN " " _cmd)
    message(FATAL_ERROR "${name} failed (${_rc}):\n  ${_cmd}\n${_out}")
  endif()
endfunction()

file(REMOVE_RECURSE "${CONSUMER_WORK_DIR}")
file(MAKE_DIRECTORY "${CONSUMER_WORK_DIR}")
set(_build "${CONSUMER_WORK_DIR}/build")

set(_configure_args -S "${CONSUMER_SOURCE_DIR}" -B "${_build}" "-DCMAKE_BUILD_TYPE=${CONSUMER_CONFIG}")
if(CONSUMER_GENERATOR)
  list(APPEND _configure_args -G "${CONSUMER_GENERATOR}")
endif()
if(CONSUMER_CXX_COMPILER)
  list(APPEND _configure_args "-DCMAKE_CXX_COMPILER=${CONSUMER_CXX_COMPILER}")
endif()
if(CONSUMER_MAKE_PROGRAM)
  list(APPEND _configure_args "-DCMAKE_MAKE_PROGRAM=${CONSUMER_MAKE_PROGRAM}")
endif()
if(CONSUMER_EXTRA_ARGS)
  string(REPLACE "|" ";" _extra "${CONSUMER_EXTRA_ARGS}")
  list(APPEND _configure_args ${_extra})
endif()

# Installed programs: every one is named strata-*; returns their names in <out>.
function(check_installed_programs prefix out)
  file(GLOB _installed LIST_DIRECTORIES false RELATIVE "${prefix}/bin" "${prefix}/bin/*")
  foreach(_p IN LISTS _installed)
    if(NOT _p MATCHES "^strata-")
      message(FATAL_ERROR "installed program '${_p}' lacks the strata- prefix")
    endif()
  endforeach()
  set(${out} "${_installed}" PARENT_SCOPE)
endfunction()

# The files every install holds, built or not.
function(check_installed_package prefix)
  foreach(_f include/strata/strata.hpp include/strata/version.hpp include/strata/device/mono3d.hpp)
    if(NOT EXISTS "${prefix}/${_f}")
      message(FATAL_ERROR "install is missing ${_f}")
    endif()
  endforeach()
  file(GLOB_RECURSE _config "${prefix}/*/strataConfig.cmake")
  file(GLOB_RECURSE _version "${prefix}/*/strataConfigVersion.cmake")
  file(GLOB_RECURSE _targets "${prefix}/*/strataTargets.cmake")
  if(NOT _config OR NOT _version OR NOT _targets)
    message(FATAL_ERROR "install is missing the CMake package files (strataConfig, -Version, -Targets)")
  endif()
endfunction()

if(CONSUMER_MODE STREQUAL "find_package")
  set(_prefix "${CONSUMER_WORK_DIR}/prefix")
  run_step("install strata" "${CMAKE_COMMAND}" --install "${STRATA_BINARY_DIR}" --prefix "${_prefix}"
           --config "${CONSUMER_CONFIG}")
  check_installed_package("${_prefix}")
  check_installed_programs("${_prefix}" _installed)
  # Programs built in the tree (single- or multi-config layout) are installed.
  file(GLOB _built LIST_DIRECTORIES false RELATIVE "${STRATA_BINARY_DIR}/examples"
       "${STRATA_BINARY_DIR}/examples/strata-*" "${STRATA_BINARY_DIR}/examples/${CONSUMER_CONFIG}/strata-*")
  foreach(_p IN LISTS _built)
    get_filename_component(_p "${_p}" NAME)
    if(NOT _p IN_LIST _installed)
      message(FATAL_ERROR "program ${_p} was built but not installed (installed: ${_installed})")
    endif()
  endforeach()
  list(APPEND _configure_args "-DCMAKE_PREFIX_PATH=${_prefix}")
  # strata::compiled built in that tree: the package has the `compiled` component.
  file(GLOB_RECURSE _compiled_lib "${_prefix}/*strata_compiled*")
  list(FILTER _compiled_lib EXCLUDE REGEX "\\.cmake$")
  if(_compiled_lib)
    list(APPEND _configure_args "-DEXPECT_COMPILED=ON")
  endif()
  foreach(_doc share/doc/strata/README.md share/doc/strata/cli.md share/strata/hf/README.md)
    if(NOT EXISTS "${_prefix}/${_doc}")
      message(FATAL_ERROR "install is missing ${_doc}")
    endif()
  endforeach()
elseif(CONSUMER_MODE STREQUAL "install_unbuilt")
  set(_strata_build "${CONSUMER_WORK_DIR}/strata-build")
  set(_prefix "${CONSUMER_WORK_DIR}/prefix")
  set(_strata_args -S "${STRATA_SOURCE_DIR}" -B "${_strata_build}" "-DCMAKE_BUILD_TYPE=${CONSUMER_CONFIG}")
  foreach(_var GENERATOR CXX_COMPILER MAKE_PROGRAM)
    if(CONSUMER_${_var})
      if(_var STREQUAL "GENERATOR")
        list(APPEND _strata_args -G "${CONSUMER_GENERATOR}")
      else()
        list(APPEND _strata_args "-DCMAKE_${_var}=${CONSUMER_${_var}}")
      endif()
    endif()
  endforeach()
  if(CONSUMER_EXTRA_ARGS)
    string(REPLACE "|" ";" _extra "${CONSUMER_EXTRA_ARGS}")
    list(APPEND _strata_args ${_extra})
  endif()
  if(STRATA_CONFIGURE_ARGS)
    string(REPLACE "|" ";" _extra "${STRATA_CONFIGURE_ARGS}")
    list(APPEND _strata_args ${_extra})
  endif()
  run_step("configure strata" "${CMAKE_COMMAND}" ${_strata_args})
  run_step("install strata without a build" "${CMAKE_COMMAND}" --install "${_strata_build}"
           --prefix "${_prefix}" --config "${CONSUMER_CONFIG}")
  check_installed_package("${_prefix}")
  check_installed_programs("${_prefix}" _installed)
  if(_installed)
    message(FATAL_ERROR "nothing was built, yet programs were installed: ${_installed}")
  endif()
  list(APPEND _configure_args "-DCMAKE_PREFIX_PATH=${_prefix}")
elseif(CONSUMER_MODE STREQUAL "add_subdirectory")
  list(APPEND _configure_args "-DSTRATA_SOURCE_DIR=${STRATA_SOURCE_DIR}")
else()
  message(FATAL_ERROR "run_consumer.cmake: unknown CONSUMER_MODE '${CONSUMER_MODE}'")
endif()

run_step("configure consumer" "${CMAKE_COMMAND}" ${_configure_args})
run_step("build consumer" "${CMAKE_COMMAND}" --build "${_build}" --config "${CONSUMER_CONFIG}")
run_step("run consumer" "${CONSUMER_CTEST_COMMAND}" --test-dir "${_build}" -C "${CONSUMER_CONFIG}" --output-on-failure)
if(CONSUMER_MODE STREQUAL "add_subdirectory")
  # The consumer links strata::strata only: the vendored strata::compiled is not built for it.
  file(GLOB_RECURSE _vendored_compiled "${_build}/strata/*strata_compiled*")
  list(FILTER _vendored_compiled EXCLUDE REGEX "(\\.cmake|/CMakeFiles/.*)$")
  if(_vendored_compiled)
    message(FATAL_ERROR "add_subdirectory built strata::compiled, which the consumer does not link: ${_vendored_compiled}")
  endif()
endif()
message(STATUS "consumer (${CONSUMER_MODE}) configured, built and ran")
