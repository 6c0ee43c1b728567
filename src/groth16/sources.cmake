list(APPEND ZKPIPE_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/keys.c
    ${CMAKE_CURRENT_LIST_DIR}/key_validate.c
    ${CMAKE_CURRENT_LIST_DIR}/setup.c
    ${CMAKE_CURRENT_LIST_DIR}/setup_zkey.c
    ${CMAKE_CURRENT_LIST_DIR}/setup_ptau.c
    ${CMAKE_CURRENT_LIST_DIR}/prove.c
    ${CMAKE_CURRENT_LIST_DIR}/verify.c
    ${CMAKE_CURRENT_LIST_DIR}/backend.c
    ${CMAKE_CURRENT_LIST_DIR}/backend_plugin.c
    ${CMAKE_CURRENT_LIST_DIR}/groth16.c)
