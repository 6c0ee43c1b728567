/* Multi-scalar multiplication on the CPU (Pippenger's bucket method): out = Σ k_i·P_i over
 * affine bases P_i and 256-bit scalars k_i, for the groups of ec/ (the prover's A, B, C, H
 * and L queries). Declared once per group by ZKPIPE__MSM_DECLARE; the functions are
 * zkpipe__msm_<group>, _dense, _ex and _scratch_bytes, e.g. zkpipe__msm_bls12_381_g1.
 *
 * Scalars: `scalars` holds 4 little-endian 64-bit limbs per scalar (scalar i at
 * scalars[4 i .. 4 i + 4)). By default they are plain integers, any 256-bit value, taken mod r:
 * the sum is Σ (k_i mod r)·P_i, which is Σ k_i·P_i for bases in the prime-order subgroup. With
 * ZKPIPE__MSM_MONTGOMERY they are Montgomery-form Fr elements (as synthesis produces them,
 * reduced below r). Either way they are converted and split into scratch memory first.
 *
 * Bases may be the point at infinity (then skipped). They must be on the curve, and in the
 * prime-order subgroup for the sum to be the one above: the split k_i = k1 + k2 lambda holds
 * only there (a base outside it, in a group with a cofactor, gives some other point, never an
 * error or a crash; ZKPIPE__MSM_NO_ENDO sums Σ k_i·P_i for any bases on the curve). */
#ifndef ZKPIPE_MSM_MSM_H
#define ZKPIPE_MSM_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "ec/bls12_381_g1.h"
#include "ec/bls12_381_g2.h"
#include "ec/bn254_g1.h"
#include "ec/bn254_g2.h"
#include "zkpipe/alloc.h"
#include "zkpipe/pool.h"
#include "zkpipe/status.h"

/* Limbs per scalar. */
#define ZKPIPE__MSM_SCALAR_LIMBS 4
/* Largest window (2^15 buckets per thread); the cost model picks it for about 2^20 points. */
#define ZKPIPE__MSM_MAX_WINDOW 16
/* Scalars are Montgomery-form elements of the group's scalar field. */
#define ZKPIPE__MSM_MONTGOMERY 1u
/* Bucket accumulation: by default the plan picks batch-affine buckets for large tasks and XYZZ
 * buckets for small ones; these force one (for tests and measurements; not both). */
#define ZKPIPE__MSM_XYZZ 2u
#define ZKPIPE__MSM_BATCH_AFFINE 4u
/* The plain sum over the n points, without the endomorphism split (msm_impl.h): for tests and
 * measurements, and the exact Σ k_i·P_i for bases outside the prime-order subgroup. */
#define ZKPIPE__MSM_NO_ENDO 8u
#define ZKPIPE__MSM_FLAGS                                                                          \
    (ZKPIPE__MSM_MONTGOMERY | ZKPIPE__MSM_XYZZ | ZKPIPE__MSM_BATCH_AFFINE | ZKPIPE__MSM_NO_ENDO)

/* A source of uniformly random bytes (the batched subgroup check's coins): fills out[0..n) and
 * returns ZKPIPE_OK, or fails with its own status. zkpipe__os_random (core/random.h) is one. */
typedef zkpipe_status (*zkpipe__msm_coins_fn)(uint8_t *out, size_t n);
/* Rounds of the batched subgroup check: a point outside the subgroup passes all of them with
 * probability at most 2^-128. */
#define ZKPIPE__MSM_SUBGROUP_ROUNDS 128
/* The most arrays one batched subgroup check takes (zkpipe__msm_G_subgroup_check_segments). */
#define ZKPIPE__MSM_SUBGROUP_SEGMENTS 8

typedef struct zkpipe__msm_config {
    unsigned window; /* 0: chosen by the cost model in plan.c from the point and thread
                        counts; else forced, 1..ZKPIPE__MSM_MAX_WINDOW */
    unsigned flags;  /* ZKPIPE__MSM_MONTGOMERY, _XYZZ, _BATCH_AFFINE, _NO_ENDO or 0 */
} zkpipe__msm_config;

/* For a group G with affine type G_affine and Jacobian type G (ec/jacobian.h):
 *
 * zkpipe__msm_G() : *out = Σ_{i<n} scalars_i·bases[i] (Jacobian), with the default config.
 *
 * zkpipe__msm_G_dense() : the density-filtered sum for Groth16's A and B queries: over the
 *   nvars variables v whose bit is set in `density` (bit v % 64 of word v / 64, the layout of
 *   groth16/synth.h), Σ scalars_v·bases[j], where j counts the set bits below v. `scalars`
 *   has nvars entries, `bases` one per set bit.
 *
 * zkpipe__msm_G_ex() : either of the above with a config (NULL: the default); density NULL
 *   means every variable is dense.
 *   @param pool runs the window/range tasks; NULL or a 1-thread pool: the caller alone.
 *   @param allocator for the scratch block; NULL: the C library.
 *   @return ZKPIPE_OK; ZKPIPE_EINVAL (out NULL, bases/scalars/density NULL with nvars > 0,
 *   window above ZKPIPE__MSM_MAX_WINDOW, unknown flags or both _XYZZ and _BATCH_AFFINE,
 *   allocator lacking a callback);
 *   ZKPIPE_EOVERFLOW (scratch size overflows size_t); ZKPIPE_ENOMEM. *out is untouched on
 *   error. No dense base, or all-zero scalars without ZKPIPE__MSM_MONTGOMERY, give the point
 *   at infinity without allocating.
 *   Allocates one block of zkpipe__msm_G_scratch_bytes(nvars, nbases, config, threads)
 *   bytes (nbases: the dense count), freed before returning.
 *   Thread safety: inputs are only read, so concurrent calls may share them; calls on one
 *   pool take turns (zkpipe_pool_parallel_for). Called from a loop body running on `pool`,
 *   it runs on that thread alone.
 *
 * zkpipe__msm_G_scratch_bytes() : the bytes _ex allocates for nvars scalars of which nbases
 *   are dense, with `config` (NULL: default) on `threads` threads (zkpipe_pool_threads):
 *   per thread g 2^(c-1) XYZZ buckets and state bytes and, when batching, g 2^(c-1) affine
 *   buckets (g the windows a task takes: 1, or for a small sum a group of them whose buckets
 *   fit ZKPIPE__MSM_MAX_GROUP_BYTES, msm/plan.h),
 *   the batch (two pointers, two field elements and 8 bytes per entry) and a queue of half a
 *   batch (two pointers and 8 bytes per entry); one partial sum per task; 32 nvars bytes of
 *   converted (split) scalars and the x coordinates of the nbases images phi(P_j) (one field
 *   element each); without the endomorphism (ZKPIPE__MSM_NO_ENDO) the scalars only with
 *   ZKPIPE__MSM_MONTGOMERY. SIZE_MAX when that overflows; 0 when nvars or nbases is 0 or the
 *   window is out of range. Thread-safe; no allocation.
 *
 * zkpipe__msm_G_subgroup_check() : *all = 1 when every one of the n points is in the subgroup
 *   of prime order r, else 0, by 128 random subset sums each checked with G_is_in_subgroup
 *   (msm/subgroup_batch.h says why that is sound whatever the cofactor's factors): a point
 *   outside makes *all 0 except with probability at most 2^-128 over the coins, and *all = 0
 *   is always right (a subset sum is outside). The points must be on the curve (infinity
 *   allowed); `coins` must give uniform bytes the points cannot depend on (drawn after they
 *   are fixed; 16 per point). A group without a cofactor sets *all = 1 at once. About 12n
 *   batched additions and 128 single checks at n = 2^16, instead of n single checks.
 *   @param pool runs the windows; NULL: the caller alone. @param allocator for the scratch
 *   block (16 bytes of coins per point, the buckets of one window per thread); NULL: the C
 *   library. @return ZKPIPE_OK; ZKPIPE_EINVAL (all or coins NULL, points NULL with n > 0,
 *   allocator lacking a callback); ZKPIPE_EOVERFLOW; ZKPIPE_ENOMEM; or what `coins` returned.
 *   *all is set only on ZKPIPE_OK. Thread safety as for _ex.
 *
 * zkpipe__msm_G_subgroup_check_segments() : the same check of the points of nseg arrays at once
 *   (nseg <= ZKPIPE__MSM_SUBGROUP_SEGMENTS; array s holds counts[s] points, any of them may be
 *   empty, and NULL when empty): *all = 1 when every point of every array is in the subgroup.
 *   Cheaper than one check per array, as the windows grow with the number of points in all.
 *   Returns as above, and ZKPIPE_EINVAL for too many arrays, points or counts NULL with
 *   nseg > 0, or an array NULL with points. */
#define ZKPIPE__MSM_DECLARE(G)                                                                     \
    zkpipe_status zkpipe__msm_##G(G *out, const G##_affine *bases, const uint64_t *scalars,        \
                                  size_t n, zkpipe_pool *pool, const zkpipe_allocator *allocator); \
    zkpipe_status zkpipe__msm_##G##_dense(                                                         \
        G *out, const G##_affine *bases, const uint64_t *scalars, const uint64_t *density,         \
        size_t nvars, zkpipe_pool *pool, const zkpipe_allocator *allocator);                       \
    zkpipe_status zkpipe__msm_##G##_ex(G *out, const G##_affine *bases, const uint64_t *scalars,   \
                                       const uint64_t *density, size_t nvars,                      \
                                       const zkpipe__msm_config *config, zkpipe_pool *pool,        \
                                       const zkpipe_allocator *allocator);                         \
    size_t zkpipe__msm_##G##_scratch_bytes(size_t nvars, size_t nbases,                            \
                                           const zkpipe__msm_config *config, unsigned threads);    \
    zkpipe_status zkpipe__msm_##G##_subgroup_check(int *all, const G##_affine *points, size_t n,   \
                                                   zkpipe__msm_coins_fn coins, zkpipe_pool *pool,  \
                                                   const zkpipe_allocator *allocator);             \
    zkpipe_status zkpipe__msm_##G##_subgroup_check_segments(                                       \
        int *all, const G##_affine *const *points, const size_t *counts, size_t nseg,              \
        zkpipe__msm_coins_fn coins, zkpipe_pool *pool, const zkpipe_allocator *allocator);

ZKPIPE__MSM_DECLARE(bls12_381_g1)
ZKPIPE__MSM_DECLARE(bls12_381_g2)
ZKPIPE__MSM_DECLARE(bn254_g1)
ZKPIPE__MSM_DECLARE(bn254_g2)

#endif
