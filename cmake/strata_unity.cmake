# Unity builds of the project's own programs and tests (never of users of strata::strata): the
# sources of one target are compiled a few per translation unit, so the library's headers are
# parsed and instantiated once per batch. Sources that share a translation unit must not define the
# same name at namespace scope: a clash is a redefinition, or worse an overload that the other
# file's calls silently pick. strata_unity_check(<sources>) stops configuration on a clash.

# Names a source defines at namespace scope: a line at column 0 naming a function, variable,
# struct, class or enum (the project's sources do not indent namespace members).
function(_strata_unity_names src out)
  file(STRINGS "${src}" _lines REGEX "^[A-Za-z_]")
  set(_names "")
  foreach(_l IN LISTS _lines)
    if(_l MATCHES "^(TEST_CASE|TEST_SUITE|TYPE_TO_STRING|SCENARIO|DOCTEST|using |namespace|inline namespace|template|static_assert|extern)")
      continue()
    endif()
    if(_l MATCHES "^(struct|class|enum class|enum) ([A-Za-z_][A-Za-z0-9_]*)")
      list(APPEND _names "${CMAKE_MATCH_2}")
    elseif(_l MATCHES "^[A-Za-z_][A-Za-z0-9_:<>,*& ]*[ *&]([A-Za-z_][A-Za-z0-9_]*) *[(={[]")
      list(APPEND _names "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES _names)
  set(${out} "${_names}" PARENT_SCOPE)
endfunction()

# Stops configuration if two of the sources define the same name. `allowed` lists names the
# sources declare on purpose in several files (one definition, declared elsewhere).
function(strata_unity_check)
  cmake_parse_arguments(_u "" "" "SOURCES;ALLOWED" ${ARGN})
  foreach(_src IN LISTS _u_SOURCES)
    _strata_unity_names("${_src}" _names)
    file(RELATIVE_PATH _rel "${PROJECT_SOURCE_DIR}" "${_src}")
    foreach(_n IN LISTS _names)
      if(_n IN_LIST _u_ALLOWED)
        continue()
      endif()
      if(DEFINED _seen_${_n})
        message(FATAL_ERROR "${_rel} and ${_seen_${_n}} both define '${_n}' at namespace scope; they share a "
                            "unity-build translation unit: rename one, or share it through a header")
      endif()
      set(_seen_${_n} "${_rel}")
    endforeach()
  endforeach()
endfunction()
