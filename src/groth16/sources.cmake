list(APPEND ZKPIPE_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/curve.c
    ${CMAKE_CURRENT_LIST_DIR}/cs.c
    ${CMAKE_CURRENT_LIST_DIR}/cs_bls12_381_fr.c
    ${CMAKE_CURRENT_LIST_DIR}/cs_bn254_fr.c
    ${CMAKE_CURRENT_LIST_DIR}/synth.c
    ${CMAKE_CURRENT_LIST_DIR}/testcircuit.c
    ${CMAKE_CURRENT_LIST_DIR}/groth16.c
    ${CMAKE_CURRENT_LIST_DIR}/groth16_bls12_381.c
    ${CMAKE_CURRENT_LIST_DIR}/groth16_bn254.c
    ${CMAKE_CURRENT_LIST_DIR}/keyfile.c
    ${CMAKE_CURRENT_LIST_DIR}/random.c
    # TEMPORARY until branch msm has G2 (see msm_g2.h)
    ${CMAKE_CURRENT_LIST_DIR}/msm_g2_bls12_381.c
    ${CMAKE_CURRENT_LIST_DIR}/msm_g2_bn254.c)
