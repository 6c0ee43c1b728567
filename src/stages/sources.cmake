list(APPEND ZKPIPE_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/stage_output.c
    ${CMAKE_CURRENT_LIST_DIR}/circuit_stage.c
    ${CMAKE_CURRENT_LIST_DIR}/zkey_stage.c
    ${CMAKE_CURRENT_LIST_DIR}/zkey_files.c)
