# CTest examples.strata-eval.thermal_grid_steady_file: `strata-eval thermal --model grid
# --grid-steady-file FILE` on HotSpot's EV6 example writes HotSpot's -grid_steady_file format
# (temperature_grid.c dump_steady_temp_grid: per layer "Layer n:", then index<TAB>kelvin per cell),
# every cell of the four 64 x 64 layers (die, interface, spreader, sink), the die's top-row cell 38
# within 0.02 K of HotSpot's own gcc.grid.steady (341.75 K, uvahotspot/HotSpot commit a7a3286e);
# a failed run (a power file that does not exist) leaves an existing FILE as it was, and a
# directory as FILE is refused (exit 1).
#   cmake -DPROG=<strata-eval> -DDATA=<tests/data/thermal/hotspot> -DOUT=<dir> -P check_grid_steady.cmake
cmake_minimum_required(VERSION 3.19)
set(file "${OUT}/thermal_grid_steady_check.txt")
file(REMOVE "${file}")
set(args thermal --config "${DATA}/hotspot.config" --floorplan "${DATA}/ev6.flp" --model grid)
execute_process(COMMAND "${PROG}" ${args} --power "${DATA}/gcc.ptrace" --grid-steady-file "${file}"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "strata-eval thermal --grid-steady-file exited ${rc}: ${err}")
endif()
file(STRINGS "${file}" lines)
set(layers 0)
set(cells 0)
set(bad 0)
set(cell38 "")
foreach(l IN LISTS lines)
  if(l MATCHES "^Layer ([0-9]+):$")
    if(NOT CMAKE_MATCH_1 EQUAL layers)
      message(FATAL_ERROR "layer header '${l}' out of order (expected Layer ${layers})")
    endif()
    math(EXPR layers "${layers} + 1")
  elseif(l MATCHES "^([0-9]+)\t([0-9]+\\.[0-9][0-9])$")
    math(EXPR cells "${cells} + 1")
    if(layers EQUAL 1 AND CMAKE_MATCH_1 EQUAL 38)
      set(cell38 "${CMAKE_MATCH_2}")
    endif()
  else()
    math(EXPR bad "${bad} + 1")
  endif()
endforeach()
if(NOT layers EQUAL 4 OR NOT cells EQUAL 16384 OR NOT bad EQUAL 0)
  message(FATAL_ERROR "expected 4 layers of 4096 cells: ${layers} layers, ${cells} cells, ${bad} other lines")
endif()
if(cell38 STREQUAL "")
  message(FATAL_ERROR "no cell 38 in layer 0")
endif()
string(REPLACE "." "" centi "${cell38}")  # hundredths of a kelvin
math(EXPR diff "${centi} - 34175")
if(diff GREATER 2 OR diff LESS -2)
  message(FATAL_ERROR "die cell 38 is ${cell38} K; HotSpot's gcc.grid.steady has 341.75 K (0.02 K allowed)")
endif()
# A failed run leaves the existing file untouched.
file(WRITE "${file}" "keep me\n")
execute_process(COMMAND "${PROG}" ${args} --power "${DATA}/no_such.ptrace" --grid-steady-file "${file}"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
file(READ "${file}" kept)
if(rc EQUAL 0 OR NOT kept STREQUAL "keep me\n")
  message(FATAL_ERROR "a failed run (exit ${rc}) must leave the existing file as it was; it holds: ${kept}")
endif()
# A directory is refused before anything is solved.
execute_process(COMMAND "${PROG}" ${args} --power "${DATA}/gcc.ptrace" --grid-steady-file "${OUT}"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 1 OR NOT err MATCHES "is a directory")
  message(FATAL_ERROR "a directory as --grid-steady-file: exit ${rc}, '${err}' (expected 1, 'is a directory')")
endif()
file(REMOVE "${file}")
