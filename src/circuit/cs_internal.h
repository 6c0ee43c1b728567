/* The internal view of a constraint system (zkpipe_cs) for the builder, synthesis, setup and
 * the formats' loader.
 *
 * Field elements are stored as 4 little-endian limbs in Montgomery form of the curve's Fr,
 * the layout of ff's bls12_381_fr and bn254_fr (an array of ZKPIPE__FE_LIMBS * count
 * uint64_t). Code that knows the curve may read such an array as an array of that type.
 *
 * Matrices are row-major (CSR): row i of matrix M holds the terms
 * M.terms[M.row_start[i] .. M.row_start[i + 1]). A term's `var` is a zkpipe_var (inputs, or
 * aux with ZKPIPE_VAR_AUX set); zkpipe__var_index maps it to the position in the full
 * assignment (inputs then aux). Its `coeff` indexes cs->coeffs; ids 0 and 1 are always 1 and
 * -1 (arith/curve_ops.h's zkpipe__term). */
#ifndef ZKPIPE_CIRCUIT_CS_INTERNAL_H
#define ZKPIPE_CIRCUIT_CS_INTERNAL_H

#include "arith/curve_ops.h"
#include "zkpipe/circuit.h"

#define ZKPIPE__FE_LIMBS ZKPIPE__FR_LIMBS
#define ZKPIPE__FE_BYTES ZKPIPE__FR_BYTES

typedef struct zkpipe__matrix {
    uint64_t *row_start; /* num_constraints + 1 entries; row_start[0] = 0 */
    zkpipe__term *terms; /* row_start[num_constraints] terms */
    uint64_t terms_cap;  /* allocated terms */
} zkpipe__matrix;

enum { ZKPIPE__MAT_A = 0, ZKPIPE__MAT_B = 1, ZKPIPE__MAT_C = 2 };

struct zkpipe_cs {
    zkpipe_allocator allocator;
    zkpipe_curve curve;
    zkpipe_cs_mode mode;
    const zkpipe__curve_ops *ops;

    size_t num_inputs, inputs_cap; /* values: input_values[ZKPIPE__FE_LIMBS * j] */
    size_t num_aux, aux_cap;
    uint64_t *input_values; /* NULL in shape mode */
    uint64_t *aux_values;

    size_t num_constraints, rows_cap;
    zkpipe__matrix m[3];

    uint64_t *coeffs; /* ZKPIPE__FE_LIMBS per distinct coefficient, Montgomery form */
    uint32_t num_coeffs, coeffs_cap;
    uint32_t *coeff_slots; /* open addressing: 0 empty, else coefficient id + 1 */
    uint32_t slots_mask;   /* slot count - 1 (a power of two, at least 2 * coeffs_cap) */
};

static inline size_t zkpipe__var_index(const zkpipe_cs *cs, uint32_t var)
{
    return (var & ZKPIPE_VAR_AUX) ? cs->num_inputs + (var & ~ZKPIPE_VAR_AUX) : var;
}

/* The value of a variable (witness mode only); var must be valid. */
static inline const uint64_t *zkpipe__var_value(const zkpipe_cs *cs, uint32_t var)
{
    if (var & ZKPIPE_VAR_AUX)
        return cs->aux_values + (size_t)ZKPIPE__FE_LIMBS * (var & ~ZKPIPE_VAR_AUX);
    return cs->input_values + (size_t)ZKPIPE__FE_LIMBS * var;
}

/* Row `row` of matrix `mat` (ZKPIPE__MAT_A, _B or _C): returns its first term and sets
 * *count to the number of terms. */
static inline const zkpipe__term *zkpipe__cs_row(const zkpipe_cs *cs, int mat, size_t row,
                                                 size_t *count)
{
    const zkpipe__matrix *m = &cs->m[mat];
    *count = (size_t)(m->row_start[row + 1] - m->row_start[row]);
    return m->terms + m->row_start[row];
}

/* The value (Montgomery form) of coefficient id `id`. */
static inline const uint64_t *zkpipe__cs_coeff(const zkpipe_cs *cs, uint32_t id)
{
    return cs->coeffs + (size_t)ZKPIPE__FE_LIMBS * id;
}

/* The system's matrices and values as the arithmetic table evaluates them. */
static inline zkpipe__lc_rows zkpipe__cs_lc_rows(const zkpipe_cs *cs)
{
    zkpipe__lc_rows m;
    for (int k = 0; k < 3; k++) {
        m.row_start[k] = cs->m[k].row_start;
        m.terms[k] = cs->m[k].terms;
    }
    m.coeffs = cs->coeffs;
    m.input_values = cs->input_values;
    m.aux_values = cs->aux_values;
    return m;
}

/* 1 when `var` is allocated in cs. */
int zkpipe__cs_var_valid(const zkpipe_cs *cs, uint32_t var);

/* Allocates an input (aux = 0) or aux variable whose value is already in Montgomery form
 * (ignored, may be NULL, in shape mode). Same errors as zkpipe_cs_alloc_input, without the
 * canonical check. */
zkpipe_status zkpipe__cs_alloc_mont(zkpipe_cs *cs, int aux, const uint64_t *value, zkpipe_var *out);

/* The id of coefficient `value` (Montgomery form), interning it when new.
 * Returns ZKPIPE_OK, ZKPIPE_ETOOBIG, ZKPIPE_ENOMEM. */
zkpipe_status zkpipe__cs_intern(zkpipe_cs *cs, const uint64_t *value, uint32_t *out_id);

/* Adds a constraint from terms already interned; variables are checked (ZKPIPE_EINVAL), ids
 * are trusted. Errors as zkpipe_cs_enforce. */
zkpipe_status zkpipe__cs_enforce_terms(zkpipe_cs *cs, const zkpipe__term *a, size_t na,
                                       const zkpipe__term *b, size_t nb, const zkpipe__term *c,
                                       size_t nc);

#endif
