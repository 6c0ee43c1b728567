list(APPEND ZKPIPE_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/source.c
    ${CMAKE_CURRENT_LIST_DIR}/mapped_recover.c
    ${CMAKE_CURRENT_LIST_DIR}/decimal.c
    ${CMAKE_CURRENT_LIST_DIR}/r1cs.c
    ${CMAKE_CURRENT_LIST_DIR}/wtns.c
    ${CMAKE_CURRENT_LIST_DIR}/zkey.c
    ${CMAKE_CURRENT_LIST_DIR}/file_out.c
    ${CMAKE_CURRENT_LIST_DIR}/ptau.c
    ${CMAKE_CURRENT_LIST_DIR}/r1cs_write.c
    ${CMAKE_CURRENT_LIST_DIR}/wtns_write.c
    ${CMAKE_CURRENT_LIST_DIR}/zkey_write.c
    ${CMAKE_CURRENT_LIST_DIR}/json_read.c
    ${CMAKE_CURRENT_LIST_DIR}/json_write.c)
