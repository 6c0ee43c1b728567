# The CUDA backend's sources, compiled into the library when it is built with CUDA; device.cu
# takes the place of src/core/no_cuda.c.
list(APPEND ZKPIPE_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/device.cu
    ${CMAKE_CURRENT_LIST_DIR}/sort.cu
    ${CMAKE_CURRENT_LIST_DIR}/ntt.cu
    ${CMAKE_CURRENT_LIST_DIR}/msm_bls12_381_g1.cu
    ${CMAKE_CURRENT_LIST_DIR}/msm_bn254_g1.cu
    ${CMAKE_CURRENT_LIST_DIR}/backend_cuda.c)
