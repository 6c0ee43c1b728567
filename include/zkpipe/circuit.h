/*! zkpipe/circuit.h : rank-1 constraint systems for Groth16, built in C.
 *
 * A zkpipe_cs holds a circuit in the form bellman's ConstraintSystem produces: variables, and
 * constraints <A_i, z> * <B_i, z> = <C_i, z> over the curve's scalar field Fr, where z is the
 * full assignment and A_i, B_i, C_i are linear combinations (sums of coefficient * variable).
 *
 * Variable layout (as bellman and snarkjs): the inputs come first, input 0 being the constant
 * one, then the aux (private) variables. num_inputs counts the one; num_aux the aux
 * variables; num_constraints the constraints enforced (not the input-consistency rows
 * synthesis appends, see zkpipe_synth_estimate).
 *
 * Two modes: ZKPIPE_CS_WITNESS stores a value with every variable, so the system can be
 * checked and synthesized for the prover; ZKPIPE_CS_SHAPE stores only the matrices (what a
 * trusted setup needs) and ignores values.
 *
 * Storage is compact and grows geometrically: each matrix keeps its terms in one array of
 * 8-byte (variable, coefficient id) pairs indexed by constraint, and coefficients are
 * interned once per distinct value. Nothing is allocated per term or per constraint. */
#ifndef ZKPIPE_CIRCUIT_H
#define ZKPIPE_CIRCUIT_H

#include "zkpipe/alloc.h"
#include "zkpipe/common.h"
#include "zkpipe/curve.h"
#include "zkpipe/status.h"

ZKPIPE_EXTERN_C_BEGIN

/* A scalar (an element of the curve's Fr) as a plain value: the canonical integer, below the
 * field order r, in four little-endian 64-bit limbs (l[0] least significant). Functions that
 * take one reject an integer >= r with ZKPIPE_ENONCANONICAL. */
typedef struct zkpipe_scalar {
    uint64_t l[4];
} zkpipe_scalar;

/* A variable handle: an input's index j, or an aux variable's index i with ZKPIPE_VAR_AUX set.
 * Handles are stable for the life of the system. At most 2^31 - 1 of each kind. */
typedef uint32_t zkpipe_var;
#define ZKPIPE_VAR_ONE ((zkpipe_var)0) /* input 0, the constant one */
#define ZKPIPE_VAR_AUX ((zkpipe_var)1 << 31)

/* One term of a linear combination: coeff * var. */
typedef struct zkpipe_term {
    zkpipe_var var;
    zkpipe_scalar coeff;
} zkpipe_term;

typedef enum zkpipe_cs_mode {
    ZKPIPE_CS_WITNESS = 0, /* variables carry values: check and synthesis work */
    ZKPIPE_CS_SHAPE = 1    /* matrices only (setup): values are ignored */
} zkpipe_cs_mode;

/* A constraint system. Opaque. Not thread-safe: calls on one system must not race, except
 * that the const functions may run concurrently with each other. */
typedef struct zkpipe_cs zkpipe_cs;

/*! zkpipe_scalar_from_i64() : the scalar v mod r of `curve` (so -1 becomes r - 1).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (out NULL, unknown curve). Thread safety: any thread. */
ZKPIPE_API zkpipe_status zkpipe_scalar_from_i64(zkpipe_scalar *out, zkpipe_curve curve, int64_t v);

/*! zkpipe_cs_create() : an empty system over `curve`'s Fr holding only the one variable.
 * @param out receives the system; the caller owns it and frees it with zkpipe_cs_destroy.
 * @param allocator NULL for the C library; copied, and used for every byte the system holds.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (out NULL, unknown curve or mode, allocator incomplete),
 *         ZKPIPE_ENOMEM.
 * Thread safety: any thread. Allocates about 2 KiB in 10 blocks. */
ZKPIPE_API zkpipe_status zkpipe_cs_create(zkpipe_cs **out, zkpipe_curve curve, zkpipe_cs_mode mode,
                                          const zkpipe_allocator *allocator);

/*! zkpipe_cs_destroy() : frees the system and everything it holds. NULL is a no-op.
 * Thread safety: no other call on `cs` may run concurrently. */
ZKPIPE_API void zkpipe_cs_destroy(zkpipe_cs *cs);

/*! zkpipe_cs_alloc_input() / zkpipe_cs_alloc_aux() : a new public input or aux variable.
 * @param out receives the handle (may be NULL when the caller does not need it).
 * @param value the variable's value; read only in ZKPIPE_CS_WITNESS mode (where NULL is
 *        ZKPIPE_EINVAL); may be NULL in ZKPIPE_CS_SHAPE mode.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (cs NULL, value NULL in witness mode),
 *         ZKPIPE_ENONCANONICAL (value >= r), ZKPIPE_ETOOBIG (2^31 - 1 variables of that kind
 *         already), ZKPIPE_ENOMEM. On error nothing changes.
 * Allocates when a table grows (doubling): 32 bytes per variable with values.
 * Thread safety: mutates `cs` (see zkpipe_cs). */
ZKPIPE_API zkpipe_status zkpipe_cs_alloc_input(zkpipe_cs *cs, zkpipe_var *out,
                                               const zkpipe_scalar *value);
ZKPIPE_API zkpipe_status zkpipe_cs_alloc_aux(zkpipe_cs *cs, zkpipe_var *out,
                                             const zkpipe_scalar *value);

/*! zkpipe_cs_enforce() : adds the constraint (sum a) * (sum b) = (sum c).
 * Each linear combination is an array of terms (NULL allowed when its count is 0: the empty
 * combination is zero). A variable may appear more than once (its coefficients add up);
 * terms with a zero coefficient are dropped.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (cs NULL, an array NULL with a non-zero count, a variable
 *         not allocated in this system), ZKPIPE_ENONCANONICAL (a coefficient >= r),
 *         ZKPIPE_ETOOBIG (2^32 - 1 constraints or distinct coefficients), ZKPIPE_ENOMEM. On
 *         error no constraint is added (distinct coefficients already interned may stay).
 * Allocates when a table grows (doubling): 8 bytes per term, 24 per constraint, 40 per
 * distinct coefficient. Thread safety: mutates `cs` (see zkpipe_cs). */
ZKPIPE_API zkpipe_status zkpipe_cs_enforce(zkpipe_cs *cs, const zkpipe_term *a, size_t na,
                                           const zkpipe_term *b, size_t nb, const zkpipe_term *c,
                                           size_t nc);

/*! zkpipe_cs_value() : the value of `var` as a canonical scalar.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, var not allocated), ZKPIPE_ESTATE (shape mode).
 * Thread safety: const. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_cs_value(const zkpipe_cs *cs, zkpipe_scalar *out, zkpipe_var var);

/*! Counts and properties; NULL gives 0 (and ZKPIPE_CURVE_COUNT for the curve).
 * zkpipe_cs_num_inputs() : public inputs including the one (so at least 1).
 * zkpipe_cs_num_aux() : aux variables.  zkpipe_cs_num_constraints() : constraints enforced.
 * zkpipe_cs_sizeof() : bytes the system holds, capacity included.
 * Thread safety: const. They do not allocate. */
ZKPIPE_API zkpipe_curve zkpipe_cs_curve(const zkpipe_cs *cs);
ZKPIPE_API zkpipe_cs_mode zkpipe_cs_get_mode(const zkpipe_cs *cs);
ZKPIPE_API size_t zkpipe_cs_num_inputs(const zkpipe_cs *cs);
ZKPIPE_API size_t zkpipe_cs_num_aux(const zkpipe_cs *cs);
ZKPIPE_API size_t zkpipe_cs_num_constraints(const zkpipe_cs *cs);
ZKPIPE_API size_t zkpipe_cs_sizeof(const zkpipe_cs *cs);

/*! zkpipe_cs_check() : whether the values satisfy every constraint.
 * @param first_failing receives the index of the first unsatisfied constraint when the
 *        result is ZKPIPE_EUNSATISFIED; may be NULL.
 * @return ZKPIPE_OK, ZKPIPE_EUNSATISFIED, ZKPIPE_EINVAL (cs NULL), ZKPIPE_ESTATE (shape mode).
 * Thread safety: const. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_cs_check(const zkpipe_cs *cs, size_t *first_failing);

/*! zkpipe_synth_estimate() : the bytes synthesis allocates for a system of these counts, so
 * an engine can acquire a byte budget before synthesizing. Synthesis evaluates over a domain
 * of n = 2^k >= num_constraints + num_inputs rows (bellman's convention: row m + j is the
 * input-consistency row input_j * 0 = 0, so a_{m+j} = input_j) and allocates, each as its own
 * buffer: a, b and c (32 n bytes each, kind ZKPIPE_KIND_ABC), the input assignment
 * (32 num_inputs, ZKPIPE_KIND_INPUT), the aux assignment (32 num_aux, ZKPIPE_KIND_AUX) and
 * the density bitmaps (A and B over all variables: 2 * 8 * ceil((num_inputs + num_aux) / 64),
 * ZKPIPE_KIND_DENSITY).
 * @param out_bytes receives the total; out_log_n (may be NULL) receives k.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (out_bytes NULL, unknown curve, num_inputs 0),
 *         ZKPIPE_ETOOBIG (n above the curve's largest power-of-two domain: 2^32 for
 *         BLS12-381, 2^28 for BN254), ZKPIPE_EOVERFLOW. Thread safety: any thread. */
ZKPIPE_API zkpipe_status zkpipe_synth_estimate(uint64_t *out_bytes, unsigned *out_log_n,
                                               zkpipe_curve curve, size_t num_constraints,
                                               size_t num_inputs, size_t num_aux);

/*! zkpipe_cs_synth_bytes() : zkpipe_synth_estimate for the system's current counts.
 * @return as zkpipe_synth_estimate; ZKPIPE_EINVAL also when cs is NULL.
 * Thread safety: const. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_cs_synth_bytes(const zkpipe_cs *cs, uint64_t *out_bytes,
                                               unsigned *out_log_n);

ZKPIPE_EXTERN_C_END

#endif
