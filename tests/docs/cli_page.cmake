# Shared by check_cli_options.cmake and check_json_keys.cmake: checks SOURCE_DIR and STRATA_EVAL are
# set, reads docs/cli.md into _page and defines _section(heading out), the text under a heading.
foreach(_var SOURCE_DIR STRATA_EVAL)
  if(NOT ${_var})
    message(FATAL_ERROR "${CMAKE_CURRENT_LIST_FILE}: ${_var} is not set")
  endif()
endforeach()

file(READ "${SOURCE_DIR}/docs/cli.md" _page)

# The text of docs/cli.md from the line `heading` to the next heading of the same or a higher level.
function(_section heading out)
  string(FIND "${_page}" "\n${heading}\n" _at)
  if(_at EQUAL -1)
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  math(EXPR _at "${_at} + 1")
  string(SUBSTRING "${_page}" ${_at} -1 _rest)
  string(REGEX MATCH "^(#+) " _level "${heading}")
  string(LENGTH "${CMAKE_MATCH_1}" _depth)
  # Cut at the next heading of depth <= _depth.
  string(FIND "${_rest}" "\n" _first_nl)
  math(EXPR _first_nl "${_first_nl} + 1")
  string(SUBSTRING "${_rest}" ${_first_nl} -1 _body)
  set(_cut -1)
  foreach(_d RANGE 1 ${_depth})
    string(REPEAT "#" ${_d} _hashes)
    string(FIND "${_body}" "\n${_hashes} " _next)
    if(NOT _next EQUAL -1 AND (_cut EQUAL -1 OR _next LESS _cut))
      set(_cut ${_next})
    endif()
  endforeach()
  if(NOT _cut EQUAL -1)
    string(SUBSTRING "${_body}" 0 ${_cut} _body)
  endif()
  set(${out} "${_body}" PARENT_SCOPE)
endfunction()

