list(APPEND ZKPIPE_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/registry.c
    ${CMAKE_CURRENT_LIST_DIR}/ledger.c
    ${CMAKE_CURRENT_LIST_DIR}/charged_alloc.c
    ${CMAKE_CURRENT_LIST_DIR}/snapshot.c
    ${CMAKE_CURRENT_LIST_DIR}/export_common.c
    ${CMAKE_CURRENT_LIST_DIR}/summary.c
    ${CMAKE_CURRENT_LIST_DIR}/json.c
    ${CMAKE_CURRENT_LIST_DIR}/prom_writer.c
    ${CMAKE_CURRENT_LIST_DIR}/prometheus.c
    ${CMAKE_CURRENT_LIST_DIR}/histogram.c
    ${CMAKE_CURRENT_LIST_DIR}/histogram_export.c
    ${CMAKE_CURRENT_LIST_DIR}/reporter.c
    ${CMAKE_CURRENT_LIST_DIR}/trace.c)
