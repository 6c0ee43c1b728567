/* The internal view of a constraint system (zkpipe_cs) for the builder, synthesis, setup and
 * the prover.
 *
 * Field elements are stored as 4 little-endian limbs in Montgomery form of the curve's Fr,
 * the layout of ff's bls12_381_fr and bn254_fr (an array of ZKPIPE__FE_LIMBS * count
 * uint64_t). Code that knows the curve may read such an array as an array of that type.
 *
 * Matrices are row-major (CSR): row i of matrix M holds the terms
 * M.terms[M.row_start[i] .. M.row_start[i + 1]). A term's `var` is a zkpipe_var (inputs, or
 * aux with ZKPIPE_VAR_AUX set); zkpipe__var_index maps it to the position in the full
 * assignment (inputs then aux). Its `coeff` indexes cs->coeffs; ids 0 and 1 are always 1 and
 * -1, so hot loops add or subtract without multiplying. */
#ifndef ZKPIPE_GROTH16_R1CS_H
#define ZKPIPE_GROTH16_R1CS_H

#include "zkpipe/circuit.h"

#define ZKPIPE__FE_LIMBS 4
#define ZKPIPE__FE_BYTES 32
#define ZKPIPE__COEFF_ONE 0u
#define ZKPIPE__COEFF_MINUS_ONE 1u

typedef struct zkpipe__term {
    uint32_t var;   /* zkpipe_var */
    uint32_t coeff; /* index into cs->coeffs */
} zkpipe__term;

typedef struct zkpipe__matrix {
    uint64_t *row_start; /* num_constraints + 1 entries; row_start[0] = 0 */
    zkpipe__term *terms; /* row_start[num_constraints] terms */
    uint64_t terms_cap;  /* allocated terms */
} zkpipe__matrix;

enum { ZKPIPE__MAT_A = 0, ZKPIPE__MAT_B = 1, ZKPIPE__MAT_C = 2 };

/* Field operations on 4-limb Montgomery elements, one table per curve. The hot loops
 * (eval_rows, first_unsat) are compiled per field from cs_field_impl.h. */
typedef struct zkpipe__fr_ops {
    unsigned two_adicity;
    /* 1 and r = canonical in Montgomery form, or 0 when canonical >= p (r untouched). */
    int (*from_canonical)(uint64_t *r, const uint64_t *canonical);
    void (*to_canonical)(uint64_t *r, const uint64_t *a);
    void (*from_u64)(uint64_t *r, uint64_t v);
    void (*add)(uint64_t *r, const uint64_t *a, const uint64_t *b);
    void (*sub)(uint64_t *r, const uint64_t *a, const uint64_t *b);
    void (*mul)(uint64_t *r, const uint64_t *a, const uint64_t *b);
    /* Writes <A_i,z>, <B_i,z>, <C_i,z> for rows [begin, end) to a, b, c at index i - begin. */
    void (*eval_rows)(uint64_t *a, uint64_t *b, uint64_t *c, const zkpipe_cs *cs, size_t begin,
                      size_t end);
    /* The first row in [begin, end) with <A,z><B,z> != <C,z>, or end. */
    size_t (*first_unsat)(const zkpipe_cs *cs, size_t begin, size_t end);
} zkpipe__fr_ops;

extern const zkpipe__fr_ops zkpipe__bls12_381_fr_ops;
extern const zkpipe__fr_ops zkpipe__bn254_fr_ops;

struct zkpipe_cs {
    zkpipe_allocator allocator;
    zkpipe_curve curve;
    zkpipe_cs_mode mode;
    const zkpipe__fr_ops *ops;

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
