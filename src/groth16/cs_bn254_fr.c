/* The constraint system's field operations over the scalar field of BN254. */
#include "ff/bn254_fr.h"

#define CS_F bn254_fr
#include "groth16/cs_field_impl.h"
