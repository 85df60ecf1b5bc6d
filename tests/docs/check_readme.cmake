# README.md against the repository (see tests/docs/CMakeLists.txt). Run as
#   cmake -DSOURCE_DIR=<repository root> -P check_readme.cmake
# Fails, listing every finding, when
#   1. an option(STRATA_...) of a CMake file is not a row "| `STRATA_...` |" of README.md, or a row
#      names an option that no CMake file defines;
#   2. README.md, another Markdown file or a public header cites a document that is not in the
#      repository (the project's design notes and specifications: DESIGN.md and its principles,
#      STYLE.md and its rules, numbers.md, stratum.md, hcrmap.md, spec/..., shared/...); cite the
#      papers or a file that exists;
#   3. README.md names a repository path (`include/...`, `tests/...`, `examples/...`,
#      `benchmarks/...`, `scripts/...`, `cmake/...`, `.ci/...`, or a header `strata/....hpp`) that
#      does not exist.
cmake_minimum_required(VERSION 3.25)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "check_readme.cmake: SOURCE_DIR is not set")
endif()

# Files whose citations are known and owned by another change: each entry is "<path>" and is
# removed when that file is reworded. A finding in any other file fails.
set(_known_citations
  include/strata/baseline/gpu.hpp
  include/strata/core/json.hpp
  include/strata/report/paper.hpp
  include/strata/workload/hf_config.hpp
  include/strata/workload/presets.hpp
  include/strata/workload/roofline.hpp
  include/strata/workload/trace.hpp
  include/strata/workload/trace_gen.hpp
  tests/data/hf/README.md)

# README sections owned by another change whose citations are known (same rule): "## <title>".
set(_known_citation_sections "The paper report")

set(_findings "")
file(READ "${SOURCE_DIR}/README.md" _readme)

# The repository's own files: everything except build trees (a directory holding CMakeCache.txt)
# and .git.
file(GLOB _top RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/*")
set(_roots "")
foreach(_entry IN LISTS _top)
  if(_entry STREQUAL ".git" OR EXISTS "${SOURCE_DIR}/${_entry}/CMakeCache.txt")
    continue()
  endif()
  list(APPEND _roots "${_entry}")
endforeach()
set(_cmake_files "")
set(_doc_files "")
foreach(_root IN LISTS _roots)
  if(IS_DIRECTORY "${SOURCE_DIR}/${_root}")
    file(GLOB_RECURSE _c RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/${_root}/CMakeLists.txt" "${SOURCE_DIR}/${_root}/*.cmake")
    file(GLOB_RECURSE _d RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/${_root}/*.md" "${SOURCE_DIR}/${_root}/*.hpp")
    list(FILTER _d EXCLUDE REGEX "^(tests|benchmarks|examples)/.*[.]hpp$")  # public headers only
    list(APPEND _cmake_files ${_c})
    list(APPEND _doc_files ${_d})
  elseif(_root MATCHES "(^CMakeLists[.]txt|[.]cmake|[.]md)$")
    if(_root MATCHES "[.]md$")
      list(APPEND _doc_files "${_root}")
    else()
      list(APPEND _cmake_files "${_root}")
    endif()
  endif()
endforeach()

# 1. Options.
set(_options "")
foreach(_f IN LISTS _cmake_files)
  file(READ "${SOURCE_DIR}/${_f}" _c)
  string(REGEX MATCHALL "option\\((STRATA_[A-Z0-9_]+)" _m "${_c}")
  foreach(_o IN LISTS _m)
    string(REGEX REPLACE "option\\(" "" _o "${_o}")
    list(APPEND _options "${_o}")
  endforeach()
endforeach()
list(REMOVE_DUPLICATES _options)
if(NOT _options)
  list(APPEND _findings "no option(STRATA_...) found in the CMake files")
endif()
foreach(_o IN LISTS _options)
  string(FIND "${_readme}" "| `${_o}` |" _at)
  if(_at EQUAL -1)
    list(APPEND _findings "option ${_o} is not documented in README.md (a row \"| `${_o}` | default | effect |\")")
  endif()
endforeach()
string(REGEX MATCHALL "\n\\| `STRATA_[A-Z0-9_]+` \\|" _rows "${_readme}")
foreach(_r IN LISTS _rows)
  string(REGEX REPLACE "^\n\\| `(STRATA_[A-Z0-9_]+)` \\|$" "\\1" _r "${_r}")
  if(NOT _r IN_LIST _options)
    list(APPEND _findings "README.md documents option ${_r}, which no CMake file defines")
  endif()
endforeach()

# 2. Citations of documents outside the repository.
set(_external "(DESIGN[.]md|DESIGN principle|STYLE[.]md|STYLE rule|STYLE's|numbers[.]md|stratum[.]md|hcrmap[.]md|spec/[A-Za-z_]+|shared/[A-Za-z_]+)")
foreach(_f IN LISTS _doc_files)
  file(READ "${SOURCE_DIR}/${_f}" _c)
  if(_f STREQUAL "README.md")
    foreach(_section IN LISTS _known_citation_sections)
      string(FIND "${_c}" "\n## ${_section}\n" _from)
      if(_from EQUAL -1)
        list(APPEND _findings "README.md has no section '## ${_section}': drop it from _known_citation_sections")
        continue()
      endif()
      string(SUBSTRING "${_c}" 0 ${_from} _before)
      math(EXPR _from "${_from} + 1")
      string(SUBSTRING "${_c}" ${_from} -1 _rest)
      string(FIND "${_rest}" "\n## " _to)
      set(_after "")
      if(NOT _to EQUAL -1)
        string(SUBSTRING "${_rest}" ${_to} -1 _after)
        string(SUBSTRING "${_rest}" 0 ${_to} _rest)
      endif()
      string(REGEX MATCHALL "${_external}" _m "${_rest}")
      if(_m)
        list(REMOVE_DUPLICATES _m)
        list(JOIN _m ", " _m)
        message(STATUS "known, to reword: README.md section '${_section}' cites ${_m}")
      endif()
      set(_c "${_before}${_after}")
    endforeach()
  endif()
  string(REGEX MATCHALL "${_external}" _m "${_c}")
  if(_m)
    list(REMOVE_DUPLICATES _m)
    list(JOIN _m ", " _m)
    if(_f IN_LIST _known_citations)
      message(STATUS "known, to reword: ${_f} cites ${_m}")
    else()
      list(APPEND _findings "${_f} cites ${_m}, which is not in the repository")
    endif()
  elseif(_f IN_LIST _known_citations)
    list(APPEND _findings "${_f} no longer cites outside documents: drop it from _known_citations")
  endif()
endforeach()

# 3. Repository paths named in README.md.
string(REGEX MATCHALL "`[^`\n]+`" _ticks "${_readme}")
set(_paths "")
foreach(_t IN LISTS _ticks)
  string(REGEX REPLACE "^`|`$" "" _t "${_t}")
  # A path token is the first word of the backticked text ("strata/x.hpp; ..." or "tests/data/ holds").
  string(REGEX MATCH "^[A-Za-z0-9_./-]+" _p "${_t}")
  if(_p MATCHES "^(include|tests|examples|benchmarks|scripts|cmake|[.]ci)/" AND NOT _p MATCHES "[<>*]")
    list(APPEND _paths "${_p}")
  elseif(_p MATCHES "^strata/[a-z0-9_/]+[.]hpp$")
    list(APPEND _paths "include/${_p}")
  endif()
endforeach()
list(REMOVE_DUPLICATES _paths)
foreach(_p IN LISTS _paths)
  if(NOT EXISTS "${SOURCE_DIR}/${_p}")
    list(APPEND _findings "README.md names ${_p}, which does not exist")
  endif()
endforeach()
list(LENGTH _paths _n_paths)
list(LENGTH _options _n_options)

if(_findings)
  list(JOIN _findings "\n  " _text)
  message(FATAL_ERROR "README.md check failed:\n  ${_text}")
endif()
message(STATUS "README.md: ${_n_options} options documented, ${_n_paths} repository paths exist, no outside citations")
