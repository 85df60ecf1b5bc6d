# A dimension error names the units, not the exponents of dim<...> (issue 28): each snippet below
# mixes quantities of different dimensions, must fail to compile, and the compiler's output must
# name both units as strata writes them ("s", "B/s", "J", "W", ...). Run as
#   cmake -DCXX=<compiler> -DINCLUDE_DIR=<repository>/include -DWORK_DIR=<scratch> -P dimension_error.cmake
# The operators are deleted, their template arguments carrying the units: GCC prints them as text
# (`unit_text Left = unit_text{"s"}; unit_text Right = unit_text{"B/s"}`), Clang 14 as character
# codes (`Left = {{115, 0, ...}}`), which the check reads for Clang.
cmake_minimum_required(VERSION 3.25)
foreach(_var CXX INCLUDE_DIR WORK_DIR)
  if(NOT ${_var})
    message(FATAL_ERROR "dimension_error.cmake: ${_var} is not set")
  endif()
endforeach()
file(MAKE_DIRECTORY "${WORK_DIR}")

# _case(<name> <statement> <left unit> <right unit>): the statement, after `t` (a duration), `bw` (a
# bandwidth), `e` (an energy) and `p` (a power) are declared, must fail naming both units.
set(_failures "")
function(_case name statement left right)
  set(_src "${WORK_DIR}/${name}.cpp")
  file(WRITE "${_src}" "#include \"strata/core/units.hpp\"
int main() {
  using namespace strata;
  const duration<> t = units::s(1.0);
  const bandwidth<> bw = units::GBps(1.0);
  const energy<> e = units::J(1.0);
  const power<> p = units::W(1.0);
  (void)t; (void)bw; (void)e; (void)p;
  ${statement};
}
")
  execute_process(COMMAND "${CXX}" -std=c++20 -fsyntax-only "-I${INCLUDE_DIR}" "${_src}"
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  set(_text "${_out}${_err}")
  if(_rc EQUAL 0)
    list(APPEND _failures "${name}: '${statement}' compiled")
  elseif(NOT _text MATCHES "deleted")
    list(APPEND _failures "${name}: not the deleted operator of a dimension error:\n${_text}")
  else()
    # The units as text (GCC) or as the characters' codes (Clang).
    set(_codes "")
    foreach(_unit IN ITEMS "${left}" "${right}")
      string(LENGTH "${_unit}" _n)
      math(EXPR _last "${_n} - 1")
      set(_c "")
      foreach(_i RANGE ${_last})
        string(SUBSTRING "${_unit}" ${_i} 1 _ch)
        string(HEX "${_ch}" _hex)
        math(EXPR _dec "0x${_hex}")
        list(APPEND _c "${_dec}")
      endforeach()
      list(JOIN _c ", " _c)
      list(APPEND _codes "{{${_c}, 0")
    endforeach()
    list(GET _codes 0 _lc)
    list(GET _codes 1 _rc_codes)
    string(FIND "${_text}" "unit_text{\"${left}\"}" _gcc_left)
    string(FIND "${_text}" "unit_text{\"${right}\"}" _gcc_right)
    string(FIND "${_text}" "= ${_lc}" _clang_left)
    string(FIND "${_text}" "= ${_rc_codes}" _clang_right)
    if((_gcc_left EQUAL -1 OR _gcc_right EQUAL -1) AND (_clang_left EQUAL -1 OR _clang_right EQUAL -1))
      list(APPEND _failures "${name}: the message does not name ${left} and ${right}:\n${_text}")
    endif()
  endif()
  set(_failures "${_failures}" PARENT_SCOPE)
endfunction()

_case(add_time_bandwidth "auto x = t + bw; (void)x" "s" "B/s")
_case(subtract_energy_power "auto x = e - p; (void)x" "J" "W")
_case(compare_energy_power "bool x = e < p; (void)x" "J" "W")
_case(read_time_in_joules "double x = t.in(units::J); (void)x" "s" "J")

if(_failures)
  list(JOIN _failures "\n" _text)
  message(FATAL_ERROR "${_text}")
endif()
message(STATUS "dimension errors name their units (4 cases)")
