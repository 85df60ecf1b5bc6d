# Packaging smoke test: configure, build and run a tiny project that consumes strata.
# Run as `cmake -D... -P run_consumer.cmake` (see tests/CMakeLists.txt). Any failing step is fatal.
#
#   CONSUMER_MODE         find_package: install STRATA_BINARY_DIR into a temporary prefix first and
#                         point CMAKE_PREFIX_PATH at it; add_subdirectory: pass STRATA_SOURCE_DIR.
#   CONSUMER_SOURCE_DIR   the consumer project
#   CONSUMER_WORK_DIR     scratch directory, wiped at the start
#   CONSUMER_GENERATOR, CONSUMER_CXX_COMPILER, CONSUMER_MAKE_PROGRAM, CONSUMER_CONFIG
#   CONSUMER_CTEST_COMMAND  ctest, which runs the consumer's own test (script mode has no CMAKE_CTEST_COMMAND)
#   CONSUMER_EXTRA_ARGS   '|'-separated extra -D arguments for the consumer's configure step
#   STRATA_SOURCE_DIR, STRATA_BINARY_DIR

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

if(CONSUMER_MODE STREQUAL "find_package")
  set(_prefix "${CONSUMER_WORK_DIR}/prefix")
  run_step("install strata" "${CMAKE_COMMAND}" --install "${STRATA_BINARY_DIR}" --prefix "${_prefix}"
           --config "${CONSUMER_CONFIG}")
  list(APPEND _configure_args "-DCMAKE_PREFIX_PATH=${_prefix}")
elseif(CONSUMER_MODE STREQUAL "add_subdirectory")
  list(APPEND _configure_args "-DSTRATA_SOURCE_DIR=${STRATA_SOURCE_DIR}")
else()
  message(FATAL_ERROR "run_consumer.cmake: unknown CONSUMER_MODE '${CONSUMER_MODE}'")
endif()

run_step("configure consumer" "${CMAKE_COMMAND}" ${_configure_args})
run_step("build consumer" "${CMAKE_COMMAND}" --build "${_build}" --config "${CONSUMER_CONFIG}")
run_step("run consumer" "${CONSUMER_CTEST_COMMAND}" --test-dir "${_build}" -C "${CONSUMER_CONFIG}" --output-on-failure)
message(STATUS "consumer (${CONSUMER_MODE}) configured, built and ran")
