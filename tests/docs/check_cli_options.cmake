# Every option a program prints with --help is documented in docs/cli.md (issue 28: a reference of
# every CLI option). Run as
#   cmake -DSOURCE_DIR=<repository> -DSTRATA_EVAL=<strata-eval> [-DSTRATA_PAPER_REPORT=<path>]
#         [-DSTRATA_TRAIN_HCRMAP_DQN=<path>] [-DSTRATA_CHIPLET_WINDOW=<path>] -P check_cli_options.cmake
# For each subcommand S of strata-eval, the options of `strata-eval S --help` must appear in the
# section "### `strata-eval S`" of docs/cli.md (up to the next heading); for each other program
# (strata-paper-report, strata-train-hcrmap-dqn, strata-chiplet-window: those given, i.e. built),
# the options of `<program> --help` must appear in its section "## <program>". An option is found
# when "--name" appears not followed by a letter, digit or '-'. Fails listing every missing option.
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/cli_page.cmake")

set(_findings "")
set(_checked 0)
# check(<label> <heading> <program> [args...])
function(_check label heading)
  execute_process(COMMAND ${ARGN} --help RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    set(_findings "${_findings};${label} --help exited with ${_rc}: ${_err}" PARENT_SCOPE)
    return()
  endif()
  _section("${heading}" _body)
  if(_body STREQUAL "")
    set(_findings "${_findings};docs/cli.md has no section '${heading}'" PARENT_SCOPE)
    return()
  endif()
  string(REGEX MATCHALL "--[a-z][a-z0-9-]*" _opts "${_out}")
  list(REMOVE_DUPLICATES _opts)
  list(REMOVE_ITEM _opts "--help")
  set(_n ${_checked})
  foreach(_o IN LISTS _opts)
    math(EXPR _n "${_n} + 1")
    string(REGEX MATCH "${_o}([^a-z0-9-]|$)" _hit "${_body}")
    if(NOT _hit)
      set(_findings "${_findings};${label}: ${_o} is not documented in docs/cli.md, section '${heading}'" PARENT_SCOPE)
    endif()
  endforeach()
  set(_checked ${_n} PARENT_SCOPE)
endfunction()

foreach(_sub IN ITEMS eval hcrmap list serve run plot sensitivity validate thermal explain)
  _check("strata-eval ${_sub}" "### `strata-eval ${_sub}`" "${STRATA_EVAL}" ${_sub})
endforeach()
foreach(_p IN ITEMS "strata-paper-report=STRATA_PAPER_REPORT" "strata-train-hcrmap-dqn=STRATA_TRAIN_HCRMAP_DQN"
                    "strata-chiplet-window=STRATA_CHIPLET_WINDOW")
  string(REGEX MATCH "^([^=]+)=(.*)$" _m "${_p}")
  set(_name "${CMAKE_MATCH_1}")
  set(_var "${CMAKE_MATCH_2}")
  if(${_var})
    _check("${_name}" "## ${_name}" "${${_var}}")
  endif()
endforeach()

list(FILTER _findings EXCLUDE REGEX "^$")
if(_findings)
  list(JOIN _findings "\n  " _text)
  message(FATAL_ERROR "docs/cli.md misses options the programs print with --help:\n  ${_text}")
endif()
if(_checked LESS 50)
  message(FATAL_ERROR "check_cli_options.cmake: only ${_checked} options read from --help; the check would test little")
endif()
message(STATUS "docs/cli.md documents all ${_checked} options the programs print with --help")
