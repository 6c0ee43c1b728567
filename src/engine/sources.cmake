list(APPEND ZKPIPE_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/engine.c
    ${CMAKE_CURRENT_LIST_DIR}/job.c
    ${CMAKE_CURRENT_LIST_DIR}/observe.c
    ${CMAKE_CURRENT_LIST_DIR}/http_provider.c
    ${CMAKE_CURRENT_LIST_DIR}/workers.c
    ${CMAKE_CURRENT_LIST_DIR}/reentry.c
    ${CMAKE_CURRENT_LIST_DIR}/admission.c
    ${CMAKE_CURRENT_LIST_DIR}/admissible.c
    ${CMAKE_CURRENT_LIST_DIR}/reservation.c
    ${CMAKE_CURRENT_LIST_DIR}/autotune.c
    ${CMAKE_CURRENT_LIST_DIR}/unaccounted.c
    ${CMAKE_CURRENT_LIST_DIR}/admission_http.c
    ${CMAKE_CURRENT_LIST_DIR}/key_cache.c
    ${CMAKE_CURRENT_LIST_DIR}/key_cache_http.c)
