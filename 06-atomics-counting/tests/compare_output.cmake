# Runs PROGRAM and fails unless its output is exactly the committed file EXPECTED.
# cmake -DPROGRAM=... -DEXPECTED=... -P compare_output.cmake
execute_process(COMMAND "${PROGRAM}" OUTPUT_VARIABLE got RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${rc}")
endif()
file(READ "${EXPECTED}" expected)
if(NOT got STREQUAL expected)
  message(FATAL_ERROR "${PROGRAM} prints:\n${got}\nbut ${EXPECTED} holds:\n${expected}\n"
                      "regenerate it: ${PROGRAM} > ${EXPECTED}")
endif()
