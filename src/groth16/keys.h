/* The Groth16 keys behind zkpipe/groth16.h's opaque handles, for the keys, the setup, the
 * prover, the verifier and the formats (io builds keys from a zkey and from snarkjs JSON).
 *
 * One proving-key type holds both layouts zkpipe proves with:
 *   bellman's (zkpipe's setup and key files): the A and B queries hold points for the
 *     variables dense in A or B only (the density bitmaps say which), the H query n - 1 points
 *     for h's coefficients, h computed on the coset 5<w>;
 *   snarkjs's (a circom zkey, borrowed from its mapping): every query holds a point per
 *     variable, the H query n points for h's values on the odd coset w_2n <w>, and the key
 *     carries the A and B coefficient entries that a, b (and c = a b) are computed from.
 * Points are packed affine points in arith/curve_ops.h's layout. */
#ifndef ZKPIPE_GROTH16_KEYS_H
#define ZKPIPE_GROTH16_KEYS_H

#include "arith/curve_ops.h"
#include "zkpipe/groth16.h"

/* Where h lives, which fixes the H query's length and its coset. */
typedef enum zkpipe__g16_form {
    ZKPIPE__G16_BELLMAN = 0, /* coefficients, from the coset 5<w>: n - 1 H points */
    ZKPIPE__G16_SNARKJS = 1  /* values on the odd coset w_2n <w>: n H points */
} zkpipe__g16_form;

/* Bytes of one snarkjs coefficient entry: u32 matrix, u32 row, u32 wire, 32-byte value. */
#define ZKPIPE__G16_COEFF_BYTES 44

struct zkpipe_groth16_pk {
    zkpipe_allocator allocator;
    const zkpipe__curve_ops *c;
    void *block;  /* the one block holding the key, freed by pk_destroy; NULL when borrowed */
    size_t bytes; /* the block's size; for a borrowed key, the bytes its points take */
    zkpipe__g16_form form;
    /* The query points were not checked for the prime-order subgroup: the prover checks its
     * proof's points instead (zkpipe/io.h's ZKPIPE_IO_DEFER_SUBGROUP). */
    int subgroup_unchecked;
    size_t num_inputs, num_aux; /* the assignment: the inputs (the one first), then aux */
    unsigned log_n;
    size_t num_a, num_b; /* points in the A query and in each B query */
    size_t num_h;        /* n - 1 or n */
    const uint64_t *alpha1, *beta1, *delta1, *beta2, *delta2;
    const uint64_t *a, *b1, *b2, *l, *h; /* L: one point per aux variable */
    /* Density bitmaps (circuit/synth.h's layout), A then B over all variables, and the same
     * over the aux variables alone (bit j: variable num_inputs + j), because the MSMs take
     * inputs and aux from separate buffers; NULL (both) when every variable is dense. */
    const uint64_t *density, *aux_density;
    size_t words;           /* per bitmap */
    size_t inputs_dense[2]; /* A- and B-dense inputs: where the aux part of each query starts */
    const uint8_t *coeffs;  /* snarkjs: num_coeffs entries; NULL otherwise */
    size_t num_coeffs;
    /* The read-only file mapping the borrowed arrays lie in (NULL for a key in memory): the
     * prover gives each array's pages back once it is done with them (core/pages.h), so a
     * proof never holds the whole key resident. Arrays outside it (aligned heap copies) are
     * never dropped. */
    const void *map;
    size_t map_len;
    /* What a zkey written from this key (zkpipe_zkey_write) puts in its section 10: snarkjs's
     * circuit hash (zeros when not computed) and, when not NULL, one contribution named so
     * (the seeded setup's INSECURE mark). */
    uint8_t cs_hash[64];
    const char *contribution;
};

struct zkpipe_groth16_vk {
    zkpipe_allocator allocator;
    const zkpipe__curve_ops *c;
    size_t num_inputs; /* IC points: the public inputs and the one */
    size_t bytes;
    uint64_t *alpha1, *beta2, *gamma2, *delta2, *ic; /* in the key's own block */
};

struct zkpipe_groth16_pvk {
    zkpipe_allocator allocator;
    const zkpipe__curve_ops *c;
    size_t num_inputs;
    uint64_t *neg_alpha;                /* -alpha (G1, packed affine) */
    void *beta, *neg_gamma, *neg_delta; /* beta, -gamma and -delta prepared for the Miller loop */
    uint64_t *ic;                       /* num_inputs packed points */
};

/* A proving key borrowed from a zkey's mapping (snarkjs form): every pointer in `view` stays
 * owned by the caller and must outlive the key; the key is a struct the caller owns too
 * (zkpipe_zkey embeds it), never destroyed with zkpipe_groth16_pk_destroy. Sets the derived
 * fields (num_a, num_b, inputs_dense, num_h, bytes). */
void zkpipe__g16_pk_borrow(zkpipe_groth16_pk *view);

/* A verifying key for `c` with room for num_inputs IC points (pointers set, points zero).
 * ZKPIPE_OK, EOVERFLOW, ENOMEM. */
zkpipe_status zkpipe__g16_vk_alloc(zkpipe_groth16_vk **out, const zkpipe__curve_ops *c,
                                   size_t num_inputs, const zkpipe_allocator *allocator);

/* A bellman-form proving key's block for these counts, every pointer set, points and bitmaps
 * zero; the caller writes the bitmaps (the `density` words) and then calls
 * zkpipe__g16_pk_derive. ZKPIPE_OK, EOVERFLOW, ENOMEM. */
zkpipe_status zkpipe__g16_pk_alloc(zkpipe_groth16_pk **out, const zkpipe__curve_ops *c,
                                   size_t num_inputs, size_t num_aux, unsigned log_n, size_t num_a,
                                   size_t num_b, const zkpipe_allocator *allocator);
/* A snarkjs-form proving key's own block (what zkpipe_zkey_write writes): every query a point
 * per variable (L per aux), n H points, num_coeffs coefficient entries, all zero, pointers and
 * derived fields set; freed by pk_destroy. ZKPIPE_OK, EOVERFLOW, ENOMEM. */
zkpipe_status zkpipe__g16_pk_alloc_zkey(zkpipe_groth16_pk **out, const zkpipe__curve_ops *c,
                                        size_t num_inputs, size_t num_aux, unsigned log_n,
                                        size_t num_coeffs, const zkpipe_allocator *allocator);
/* aux_density and inputs_dense from density. */
void zkpipe__g16_pk_derive(zkpipe_groth16_pk *pk);

/* The point arrays of a Groth16 key, for naming the one a validation refused. */
typedef enum zkpipe__g16_query {
    ZKPIPE__G16_Q_IC = 0, /* the verifying key's IC */
    ZKPIPE__G16_Q_A = 1,
    ZKPIPE__G16_Q_B1 = 2,
    ZKPIPE__G16_Q_B2 = 3,
    ZKPIPE__G16_Q_L = 4, /* snarkjs's C section */
    ZKPIPE__G16_Q_H = 5,
    ZKPIPE__G16_Q_NONE = 6 /* no point: the check itself could not run */
} zkpipe__g16_query;

/* Where a key validation failed: the array and the point's index in it. */
typedef struct zkpipe__g16_bad_point {
    zkpipe__g16_query query;
    size_t index;
} zkpipe__g16_bad_point;

/* Validates a key read from a file, its points already decoded and on the curve (what the
 * formats check): the num_ic packed G1 points at `ic` (the verifying key's IC, which the
 * verifier uses as it stands) in the prime-order subgroup, and, unless pk->subgroup_unchecked
 * (the prover checks its proof's points instead), every point of pk's A, B1, B2, L and H
 * queries, by one batched check for the G1 queries together and one for B2 (through the curve
 * table's subgroup_batch: an MSM with the operating system's coins, scratch through
 * `allocator`); when a batch fails its queries are rechecked point by point to name the first
 * bad one in the order A, B1, B2, L, H. ZKPIPE_OK; ZKPIPE_ENOTINSUBGROUP with *bad naming the
 * point; ZKPIPE_ENOMEM or ZKPIPE_EIO with bad->query ZKPIPE__G16_Q_NONE. */
zkpipe_status zkpipe__g16_key_validate(zkpipe__g16_bad_point *bad, const zkpipe_groth16_pk *pk,
                                       const uint64_t *ic, size_t num_ic, zkpipe_pool *pool,
                                       const zkpipe_allocator *allocator);

/* The writable view of an owned key's arrays (they are const in the struct, since a borrowed
 * key's point into a read-only mapping). */
static inline uint64_t *zkpipe__g16_w(const uint64_t *p)
{
    return (uint64_t *)(uintptr_t)p;
}
static inline uint8_t *zkpipe__g16_w_bytes(const uint8_t *p)
{
    return (uint8_t *)(uintptr_t)p;
}

#endif
