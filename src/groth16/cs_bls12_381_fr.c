/* The constraint system's field operations over the scalar field of BLS12-381. */
#include "ff/bls12_381_fr.h"

#define CS_F bls12_381_fr
#include "groth16/cs_field_impl.h"
