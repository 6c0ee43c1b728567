list(APPEND ZKPIPE_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/curve_ops.c
    ${CMAKE_CURRENT_LIST_DIR}/snarkjs_sub_affine.c
    ${CMAKE_CURRENT_LIST_DIR}/curve_ops_bls12_381.c
    ${CMAKE_CURRENT_LIST_DIR}/curve_ops_bn254.c)
