# Runs programs A and B (the consumer linked against strata::compiled and header-only) and fails
# unless both exit 0 and print the same text: the compiled instantiations are the header's.
foreach(_p A B)
  execute_process(COMMAND "${${_p}}" RESULT_VARIABLE _rc_${_p} OUTPUT_VARIABLE _out_${_p} ERROR_VARIABLE _err_${_p})
  if(NOT _rc_${_p} EQUAL 0)
    message(FATAL_ERROR "${${_p}} exited with ${_rc_${_p}}:\n${_out_${_p}}${_err_${_p}}")
  endif()
endforeach()
if(NOT _out_A STREQUAL _out_B)
  message(FATAL_ERROR "the outputs differ:\n--- strata::compiled\n${_out_A}--- header-only\n${_out_B}")
endif()
message(STATUS "same output:\n${_out_A}")
