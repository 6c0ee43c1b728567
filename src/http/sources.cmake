# The HTTP endpoint (zkpipe/http.h): served by libmicrohttpd when the build has it
# (ZKPIPE_HAVE_HTTP, set by the top-level CMakeLists.txt), else calls that say it is missing.
list(APPEND ZKPIPE_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/config.c
    ${CMAKE_CURRENT_LIST_DIR}/out.c
    ${CMAKE_CURRENT_LIST_DIR}/render.c)
if(ZKPIPE_HAVE_HTTP)
    list(APPEND ZKPIPE_SOURCES
        ${CMAKE_CURRENT_LIST_DIR}/auth.c
        ${CMAKE_CURRENT_LIST_DIR}/request.c
        ${CMAKE_CURRENT_LIST_DIR}/server.c
        ${CMAKE_CURRENT_LIST_DIR}/slots.c)
else()
    list(APPEND ZKPIPE_SOURCES ${CMAKE_CURRENT_LIST_DIR}/no_http.c)
endif()
