list(APPEND ZKPIPE_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/status.c
    ${CMAKE_CURRENT_LIST_DIR}/version.c
    ${CMAKE_CURRENT_LIST_DIR}/alloc.c
    ${CMAKE_CURRENT_LIST_DIR}/clock.c
    ${CMAKE_CURRENT_LIST_DIR}/pool.c
    ${CMAKE_CURRENT_LIST_DIR}/backend.c)
# The CUDA backend (cuda/) provides zkpipe__cuda_device_usable itself once it is linked in.
list(APPEND ZKPIPE_SOURCES ${CMAKE_CURRENT_LIST_DIR}/no_cuda.c)
