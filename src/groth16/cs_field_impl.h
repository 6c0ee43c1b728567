/* The per-field part of the constraint system, written once: a .c file includes a field
 * header, defines CS_F to its type (e.g. bls12_381_fr) and includes this file, which defines
 * the table zkpipe__<CS_F>_ops declared in r1cs.h. Elements are stored as plain limb arrays
 * (see r1cs.h) and copied in and out of CS_F values, which compiles to plain loads and stores
 * while keeping the field functions' types. */
#include <string.h>

#include "groth16/r1cs.h"

#define CS_CAT_(a, b) a##b
#define CS_CAT(a, b) CS_CAT_(a, b)
#define FE CS_F
#define FOP(op) CS_CAT(CS_F, _##op)

_Static_assert(sizeof(FE) == ZKPIPE__FE_BYTES, "r1cs.h stores 32-byte elements");

static void fe_load(FE *r, const uint64_t *limbs)
{
    memcpy(r, limbs, sizeof *r);
}

static void fe_store(uint64_t *limbs, const FE *a)
{
    memcpy(limbs, a, sizeof *a);
}

static int op_from_canonical(uint64_t *r, const uint64_t *canonical)
{
    FE t;
    if (!FOP(from_canonical)(&t, canonical))
        return 0;
    fe_store(r, &t);
    return 1;
}

static void op_to_canonical(uint64_t *r, const uint64_t *a)
{
    FE t;
    fe_load(&t, a);
    FOP(to_canonical)(r, &t);
}

static void op_from_u64(uint64_t *r, uint64_t v)
{
    FE t;
    FOP(from_u64)(&t, v);
    fe_store(r, &t);
}

#define BINARY_OP(name)                                                                            \
    static void op_##name(uint64_t *r, const uint64_t *a, const uint64_t *b)                       \
    {                                                                                              \
        FE x, y;                                                                                   \
        fe_load(&x, a);                                                                            \
        fe_load(&y, b);                                                                            \
        FOP(name)(&x, &x, &y);                                                                     \
        fe_store(r, &x);                                                                           \
    }
BINARY_OP(add)
BINARY_OP(sub)
BINARY_OP(mul)
#undef BINARY_OP

/* <row, z> for one row of a matrix; coefficients 1 and -1 and zero values skip the
 * multiplication. */
static void lc_eval(FE *r, const zkpipe_cs *cs, int mat, size_t row)
{
    FE acc, v, k;
    size_t count;
    const zkpipe__term *terms = zkpipe__cs_row(cs, mat, row, &count);
    FOP(set_zero)(&acc);
    for (size_t t = 0; t < count; t++) {
        zkpipe__term term = terms[t];
        fe_load(&v, zkpipe__var_value(cs, term.var));
        if (term.coeff == ZKPIPE__COEFF_ONE) {
            FOP(add)(&acc, &acc, &v);
        } else if (term.coeff == ZKPIPE__COEFF_MINUS_ONE) {
            FOP(sub)(&acc, &acc, &v);
        } else if (!FOP(is_zero)(&v)) { /* witnesses are full of zero bits */
            fe_load(&k, zkpipe__cs_coeff(cs, term.coeff));
            FOP(mul)(&v, &v, &k);
            FOP(add)(&acc, &acc, &v);
        }
    }
    *r = acc;
}

static void op_eval_rows(uint64_t *a, uint64_t *b, uint64_t *c, const zkpipe_cs *cs, size_t begin,
                         size_t end)
{
    uint64_t *out[3] = {a, b, c};
    for (size_t row = begin; row < end; row++) {
        for (int k = 0; k < 3; k++) {
            FE r;
            lc_eval(&r, cs, k, row);
            fe_store(out[k] + (row - begin) * ZKPIPE__FE_LIMBS, &r);
        }
    }
}

static size_t op_first_unsat(const zkpipe_cs *cs, size_t begin, size_t end)
{
    for (size_t row = begin; row < end; row++) {
        FE a, b, c;
        lc_eval(&a, cs, ZKPIPE__MAT_A, row);
        lc_eval(&b, cs, ZKPIPE__MAT_B, row);
        lc_eval(&c, cs, ZKPIPE__MAT_C, row);
        FOP(mul)(&a, &a, &b);
        if (!FOP(eq)(&a, &c))
            return row;
    }
    return end;
}

const zkpipe__fr_ops CS_CAT(CS_CAT(zkpipe__, CS_F), _ops) = {
    CS_CAT(CS_F, _TWO_ADICITY),
    op_from_canonical,
    op_to_canonical,
    op_from_u64,
    op_add,
    op_sub,
    op_mul,
    op_eval_rows,
    op_first_unsat,
};
