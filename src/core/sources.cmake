list(APPEND ZKPIPE_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/status.c
    ${CMAKE_CURRENT_LIST_DIR}/version.c
    ${CMAKE_CURRENT_LIST_DIR}/alloc.c
    ${CMAKE_CURRENT_LIST_DIR}/kept_alloc.c
    ${CMAKE_CURRENT_LIST_DIR}/clock.c
    ${CMAKE_CURRENT_LIST_DIR}/pool.c
    ${CMAKE_CURRENT_LIST_DIR}/backend.c
    ${CMAKE_CURRENT_LIST_DIR}/curve.c
    ${CMAKE_CURRENT_LIST_DIR}/random.c
    ${CMAKE_CURRENT_LIST_DIR}/blake2b.c
    ${CMAKE_CURRENT_LIST_DIR}/memory.c
    ${CMAKE_CURRENT_LIST_DIR}/pages.c
    ${CMAKE_CURRENT_LIST_DIR}/text.c
    ${CMAKE_CURRENT_LIST_DIR}/detail.c
    ${CMAKE_CURRENT_LIST_DIR}/struct_size.c)
