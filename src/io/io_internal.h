/* What the readers (r1cs.c, wtns.c, zkey.c) share: the bytes of a file (mapped or borrowed),
 * its section table, its accounting, detail lines, and the per-curve code (curve_impl.h). */
#ifndef ZKPIPE_IO_IO_INTERNAL_H
#define ZKPIPE_IO_IO_INTERNAL_H

#include <stdarg.h>

#include "zkpipe/io.h"

/* Section ids a table tracks; larger ids are skipped without a duplicate check. */
#define ZKPIPE__IO_MAX_SECTION 32
/* Aligned copies one reader may own (the zkey's point sections and its witness). */
#define ZKPIPE__IO_MAX_COPIES 8

/* A reader's bytes and everything it owns besides its struct. */
typedef struct zkpipe__io_src {
    zkpipe_allocator allocator;
    const uint8_t *data;
    size_t len;
    int mapped; /* data is an mmap of len bytes */
    zkpipe_ledger ledger;
    uint32_t kind;
    void *copies[ZKPIPE__IO_MAX_COPIES];
    size_t copy_bytes[ZKPIPE__IO_MAX_COPIES];
    size_t ncopies;
    /* offset and size of each section id; size UINT64_MAX when absent */
    uint64_t off[ZKPIPE__IO_MAX_SECTION], size[ZKPIPE__IO_MAX_SECTION];
} zkpipe__io_src;

/* Writes "fmt ..." to detail (when non-NULL) and returns st. */
zkpipe_status zkpipe__io_fail(char *detail, size_t cap, zkpipe_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Sets up `src` over a file (mapped) or a buffer (path NULL), with the accounting of
 * opts->acct under the kind named `kind`. On error nothing is left to undo. */
zkpipe_status zkpipe__io_src_open(zkpipe__io_src *src, char *detail, size_t cap, const char *path,
                                  const void *data, size_t len, const char *kind,
                                  const zkpipe_io_options *opts);
/* Unmaps, frees the copies, closes the ledger. */
void zkpipe__io_src_close(zkpipe__io_src *src);

/* Opens a reader: a struct of `size` bytes whose first member is its zkpipe__io_src, set up
 * over the file or buffer, then `parse` fills in the rest. On error nothing is left. `opts`
 * may be NULL; src_open and parse get this library's copy of them, never NULL. */
typedef zkpipe_status (*zkpipe__io_parse_fn)(void *reader, char *detail, size_t cap,
                                             const zkpipe_io_options *opts);
zkpipe_status zkpipe__io_reader_open(void **out, size_t size, const char *kind,
                                     zkpipe__io_parse_fn parse, char *detail, size_t cap,
                                     const char *path, const void *data, size_t len,
                                     const zkpipe_io_options *opts);
/* Closes a reader's source and frees it; NULL is a no-op. */
void zkpipe__io_reader_destroy(void *reader);

/* Checks the container: magic, version, then indexes the sections (duplicates, sizes past
 * the end and trailing bytes refused). */
zkpipe_status zkpipe__io_sections(zkpipe__io_src *src, char *detail, size_t cap, const char *magic,
                                  uint32_t version);
/* The payload of section `id` when present and exactly `size` bytes (UINT64_MAX: any size),
 * else EFORMAT with a detail line. */
zkpipe_status zkpipe__io_section(const uint8_t **out, uint64_t *out_size, const zkpipe__io_src *src,
                                 char *detail, size_t cap, uint32_t id, uint64_t size);

/* `p` itself when 8-byte aligned, else an accounted aligned copy of `bytes` bytes. */
zkpipe_status zkpipe__io_aligned(const void **out, zkpipe__io_src *src, const uint8_t *p,
                                 size_t bytes);

uint32_t zkpipe__io_u32(const uint8_t *p);
uint64_t zkpipe__io_u64(const uint8_t *p);

/* Decimal text of an integer of n little-endian limbs (at most 6) into out (at least 117
 * bytes). */
void zkpipe__io_dec_write(char *out, const uint64_t *limbs, size_t n);
/* Parses canonical decimal digits (no sign, no leading zeros except "0") into n limbs.
 * Returns 1, or 0 for anything else or a value that does not fit. */
int zkpipe__io_dec_read(uint64_t *limbs, size_t n, const char *s);

/* The per-curve code, one table per curve (curve_bls12_381.c, curve_bn254.c). Points are held
 * as the ec/ affine structs, i.e. Montgomery limbs: a G1 point is 2 fq_limbs uint64_t, a G2
 * point 4 fq_limbs (x.c0, x.c1, y.c0, y.c1), infinity all zero: the zkey's layout. */
typedef struct zkpipe__io_zkey_view {
    size_t num_vars, num_public, log_n, num_coeffs;
    const uint8_t *coeffs; /* num_coeffs entries of 12 + 32 bytes, validated */
    const uint64_t *alpha1, *beta1, *beta2, *gamma2, *delta1, *delta2;
    const uint64_t *ic; /* num_public + 1 */
    const uint64_t *a, *b1, *b2, *c, *h;
} zkpipe__io_zkey_view;

/* A verifying key's points (num_public + 1 IC points). */
typedef struct zkpipe__io_vk_view {
    const uint64_t *alpha1, *beta2, *gamma2, *delta2, *ic;
    size_t num_public;
} zkpipe__io_vk_view;

/* The snarkjs prover on a validated zkey and witness (canonical, num_vars values) with
 * blinding factors r, s (canonical). */
typedef zkpipe_status (*zkpipe__io_prove_fn)(uint8_t *proof, zkpipe_zkey_timings *t, char *detail,
                                             size_t cap, const zkpipe__io_zkey_view *z,
                                             const uint64_t *witness, const uint64_t *r,
                                             const uint64_t *s, zkpipe_pool *pool,
                                             zkpipe_ledger *ledger, const zkpipe_allocator *a);

typedef struct zkpipe__io_curve {
    zkpipe_curve curve;
    const char *name; /* as snarkjs writes it: "bls12381", "bn128" */
    size_t fq_limbs, fq_bytes;
    const uint64_t *q, *r;
    size_t proof_bytes;
    unsigned two_adicity;
    /* Checks n points of 2 (g2: 4) coordinates in the zkey's layout at p (any alignment):
     * canonical, on the curve, and (when `subgroup`) in the subgroup. On error *bad is the
     * first bad point. */
    zkpipe_status (*check_points)(size_t *bad, const uint8_t *p, size_t n, int g2, int subgroup,
                                  zkpipe_pool *pool);
    /* *all = 1 when the n points at p (8-byte aligned, already checked on the curve) are all
     * in the subgroup, else 0: the batched check of msm.h (zkpipe__msm_*_subgroup_check) with
     * the operating system's coins. ZKPIPE_OK, or ENOMEM, EIO (no randomness). */
    zkpipe_status (*subgroup_batch)(int *all, const uint64_t *p, size_t n, int g2,
                                    zkpipe_pool *pool, const zkpipe_allocator *a);
    /* A point from canonical coordinates (G1: x, y; G2: x.c0, x.c1, y.c0, y.c1, each
     * fq_limbs limbs), validated; `out` in the layout above. */
    zkpipe_status (*point_from_canonical)(uint64_t *out, const uint64_t *coords, int g2);
    /* The canonical coordinates of a point. */
    void (*point_to_canonical)(uint64_t *coords, const uint64_t *point, int g2);
    /* The proof's encoding from its three points, and back (validated). */
    void (*proof_pack)(uint8_t *proof, const uint64_t *a, const uint64_t *b, const uint64_t *c);
    zkpipe_status (*proof_unpack)(uint64_t *a, uint64_t *b, uint64_t *c, const uint8_t *proof);
    /* The pairing check of the proof (a, b, c) with inputs of canonical 4-limb integers
     * (vk->num_public of them). ZKPIPE_OK, EVERIFY, ENONCANONICAL. */
    zkpipe_status (*verify)(const zkpipe__io_vk_view *vk, const uint64_t *inputs, const uint64_t *a,
                            const uint64_t *b, const uint64_t *c);
    /* Checks the r1cs constraints section (validated at open) against a witness of
     * canonical 4-limb values; *bad receives the first failing constraint. */
    zkpipe_status (*r1cs_check)(size_t *bad, const uint8_t *constraints, size_t num_constraints,
                                const uint64_t *witness);
    zkpipe__io_prove_fn prove; /* on the CPU */
    /* The same on the CUDA backend; NULL when the library was built without it. */
    zkpipe__io_prove_fn prove_cuda;
} zkpipe__io_curve;

extern const zkpipe__io_curve zkpipe__io_bls12_381;
extern const zkpipe__io_curve zkpipe__io_bn254;

/* The table for `curve`, or NULL. */
const zkpipe__io_curve *zkpipe__io_curve_for(zkpipe_curve curve);
/* The table whose r (fr: 1) or q (fr: 0) has n8 bytes equal to `prime` (little-endian), or
 * NULL. */
const zkpipe__io_curve *zkpipe__io_curve_by_prime(const uint8_t *prime, uint32_t n8, int fr);

/* Values below the field order: n8 = 32 little-endian bytes, read as 4 limbs. */
void zkpipe__io_limbs_le(uint64_t *out, const uint8_t *p, size_t nlimbs);
int zkpipe__io_lt(const uint64_t *a, const uint64_t *b, size_t nlimbs);

/* A verifying key: the points, one block, in view's order alpha1, beta2, gamma2, delta2, ic. */
struct zkpipe_snarkjs_vk {
    zkpipe_allocator allocator;
    const zkpipe__io_curve *curve;
    zkpipe__io_vk_view view;
    uint64_t *points;
};

/* A key for `curve` with room for num_public + 1 IC points, its view pointing into it.
 * ZKPIPE_OK, EINVAL (allocator incomplete), EOVERFLOW, ENOMEM. */
zkpipe_status zkpipe__io_vk_alloc(zkpipe_snarkjs_vk **out, const zkpipe__io_curve *curve,
                                  size_t num_public, const zkpipe_allocator *allocator);

/* The zkey prover with given blinding factors (canonical), for tests that compare with
 * snarkjs's proof made with the same r and s. As zkpipe_zkey_prove otherwise. */
zkpipe_status zkpipe__zkey_prove_rs(zkpipe_groth16_proof *out, zkpipe_zkey_timings *timings,
                                    char *detail, size_t cap, const zkpipe_zkey *zkey,
                                    const zkpipe_wtns *wtns, const zkpipe_scalar *r,
                                    const zkpipe_scalar *s, zkpipe_pool *pool,
                                    zkpipe_backend backend, zkpipe_ledger *ledger);

/* The witness values as canonical 4-limb integers, 8-byte aligned (wtns.c). */
const uint64_t *zkpipe__wtns_values(const zkpipe_wtns *wtns);

#endif
