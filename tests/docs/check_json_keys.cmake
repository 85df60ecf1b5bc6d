# Every key strata-eval writes with --json is documented in docs/cli.md (issue 28: every JSON key
# documented). Run as
#   cmake -DSOURCE_DIR=<repository> -DSTRATA_EVAL=<strata-eval> -P check_json_keys.cmake
# For a few representative command lines of each subcommand with JSON output, the keys of every
# object in the output (the first element of each array stands for the rest) must each appear in
# the subcommand's section "### `strata-eval S`" of docs/cli.md as a word of its own (not part of a
# longer identifier). Fails listing every undocumented key.
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/cli_page.cmake")

# Appends to _keys (in the caller) the member names of the JSON value at path ARGN of `json`.
function(_collect json)
  string(JSON _type TYPE "${json}" ${ARGN})
  if(_type STREQUAL "OBJECT")
    string(JSON _n LENGTH "${json}" ${ARGN})
    if(_n EQUAL 0)
      return()
    endif()
    math(EXPR _last "${_n} - 1")
    foreach(_i RANGE ${_last})
      string(JSON _name MEMBER "${json}" ${ARGN} ${_i})
      list(APPEND _keys "${_name}")
      set(_keys "${_keys}" PARENT_SCOPE)
      _collect("${json}" ${ARGN} "${_name}")
      set(_keys "${_keys}" PARENT_SCOPE)
    endforeach()
  elseif(_type STREQUAL "ARRAY")
    string(JSON _n LENGTH "${json}" ${ARGN})
    if(_n GREATER 0)
      _collect("${json}" ${ARGN} 0)
      set(_keys "${_keys}" PARENT_SCOPE)
    endif()
  endif()
endfunction()

set(_findings "")
set(_checked 0)
function(_check sub)
  execute_process(COMMAND "${STRATA_EVAL}" ${sub} ${ARGN} --json WORKING_DIRECTORY "${SOURCE_DIR}"
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "strata-eval ${sub} ${ARGN} --json exited with ${_rc}: ${_err}")
  endif()
  set(_keys "")
  _collect("${_out}")
  list(REMOVE_DUPLICATES _keys)
  _section("### `strata-eval ${sub}`" _body)
  if(_body STREQUAL "")
    message(FATAL_ERROR "docs/cli.md has no section '### `strata-eval ${sub}`'")
  endif()
  set(_n ${_checked})
  foreach(_k IN LISTS _keys)
    math(EXPR _n "${_n} + 1")
    string(REGEX MATCH "(^|[^A-Za-z0-9_])${_k}([^A-Za-z0-9_]|$)" _hit "${_body}")
    if(NOT _hit)
      list(APPEND _findings "strata-eval ${sub} --json writes the key '${_k}', which docs/cli.md does not document")
    endif()
  endforeach()
  set(_findings "${_findings}" PARENT_SCOPE)
  set(_checked ${_n} PARENT_SCOPE)
endfunction()

_check(eval --model Mixtral-8x7B --machine h100_sxm5 --phase decode --batch 8 --context 2048)
_check(eval --model Mixtral-8x7B --machine stratum-l --phase decode --batch 16 --context 2048 --hit-rate 0.316 --detail experts)
_check(eval --model DeepSeek-V2-Lite --machine h100_sxm5 --phase decode --batch 8 --context 512 --ep 2 --attention dp
       --redundant-experts 1)
_check(hcrmap --model DeepSeek-V2-Lite --trace tests/data/traces/dsv2lite_esft_trace_intent.csv --mode prefill
       --max-windows 1 --layers 2 --policy hcrmap)
_check(serve examples/scenarios/serve_mixtral_stages.json)
_check(serve examples/scenarios/serve_mixtral_engine.json)

if(_findings)
  list(JOIN _findings "\n  " _text)
  message(FATAL_ERROR "undocumented JSON keys:\n  ${_text}")
endif()
if(_checked LESS 80)
  message(FATAL_ERROR "check_json_keys.cmake: only ${_checked} keys read; the check would test little")
endif()
message(STATUS "docs/cli.md documents all ${_checked} JSON keys of the checked command lines")
