/*! zkpipe/stages.h : the built-in stage operations (zkpipe/engine.h), Groth16 on the library's
 * own prover: zkpipe circuits built in C, and circom zkeys with witness files.
 *
 * Both are implementations of zkpipe_stage_ops like a host's; the engine treats them no
 * differently. A partition is {ops, ctx} with ctx one of the structs below, which the caller
 * owns and keeps valid until the job has finished. Results: the proof is the operations' output
 * (zkpipe_partition_result.host, freed with the job), read with zkpipe_stage_proof; failures
 * come with a detail line in the result's `detail`.
 *
 * The backend: each partition is proved on the engine config's backend, which these
 * operations resolve (zkpipe_backend_resolve) as they prove, not before: with auto or cuda the
 * first proof of the process loads the CUDA plug-in. A request that cannot be met (cuda with no
 * usable device) fails each partition with ZKPIPE_ENODEVICE and the reason in its detail
 * line. */
#ifndef ZKPIPE_STAGES_H
#define ZKPIPE_STAGES_H

#include "zkpipe/circuit.h"
#include "zkpipe/common.h"
#include "zkpipe/engine.h"
#include "zkpipe/groth16.h"
#include "zkpipe/io.h"
#include "zkpipe/key_cache.h"
#include "zkpipe/status.h"

ZKPIPE_EXTERN_C_BEGIN

/* A zkpipe circuit partition: a circuit with its witness, and the proving key for it. */
typedef struct zkpipe_circuit_partition {
    /* Fills `cs` (empty, ZKPIPE_CS_WITNESS mode, over the key's curve, using the engine's
     * allocator through a wrapper that charges each block, plus a header of 16 bytes or the
     * block's alignment, to the partition's ledger as kind ZKPIPE_KIND_CIRCUIT) with the
     * partition's constraints and witness; returns ZKPIPE_OK or an error that becomes the
     * partition's result. Called on a synthesis worker thread, for partitions of a job
     * concurrently. The circuit is freed once synthesized. */
    zkpipe_status (*build)(zkpipe_cs *cs, void *ctx, size_t partition);
    void *ctx; /* passed to build untouched */
    /* Bytes synthesis will charge (zkpipe_synth_estimate); 0: derived from the key's counts. A
     * circuit built larger than announced fails with ZKPIPE_EMISMATCH before synthesis. */
    uint64_t synth_bytes;
    const zkpipe_groth16_pk *pk;
} zkpipe_circuit_partition;

/*! zkpipe_circuit_stage_ops() : the operations of zkpipe_circuit_partition contexts.
 *   estimate: the most the ledger holds, exactly, on the CPU backend with prover_threads
 *     threads: synth_bytes (or zkpipe_synth_estimate of the key's counts) with the NTT domain
 *     beside them while h is computed, or, later, without b and c (h takes a's place) and with
 *     the largest MSM scratch, whichever is more. The
 *     circuit is charged but not budgeted, its size being known only once it is built: the
 *     accounted bytes of all partitions never exceed the budget plus the circuits under
 *     construction (at most min(synth_workers, permits) of them).
 *   synthesize: builds the circuit with `build`, synthesizes it into buffers charged to the
 *     ledger (zkpipe/groth16.h's zkpipe_groth16_prove says which), frees the circuit.
 *   prove: the prover of zkpipe_groth16_prove on the engine config's backend and the worker's pool,
 *     with fresh r and s from the operating system.
 * @return a static table. Thread safety: any thread. */
ZKPIPE_API const zkpipe_stage_ops *zkpipe_circuit_stage_ops(void);

/* A zkey shared by its partitions: the zkey (opened once, mapped and validated), its proving
 * key and its prepared verifying key. Opaque, immutable: any number of threads use it. */
typedef struct zkpipe_zkey_source zkpipe_zkey_source;

/*! zkpipe_zkey_source_create() : a source over `zkey` (borrowed: it must outlive the source,
 * which must outlive every job that uses it).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, allocator incomplete), ZKPIPE_ENOMEM. Allocates the
 * source and the prepared verifying key (about 40 KB plus 96 bytes per public signal).
 * Thread safety: any thread. */
ZKPIPE_API zkpipe_status zkpipe_zkey_source_create(zkpipe_zkey_source **out,
                                                   const zkpipe_zkey *zkey,
                                                   const zkpipe_allocator *allocator);
/*! zkpipe_zkey_source_open() : a source that owns its zkey: `path` mapped and checked as
 * zkpipe_zkey_open does with `io` (its pool and flags; its acct and ledger are ignored: the
 * cache's ledger shows the zkey), and, with `keys`, a key of that cache
 * (zkpipe_zkey_source_key), resident from now on and charged the file's size plus its aligned
 * copies: under an engine's budget the zkey may then be released while no partition uses it
 * (unmapped) and is opened again by the next partition that needs it, with the same flags and
 * no pool, and refused (ZKPIPE_EMISMATCH, that partition's error) unless it is still a zkey of
 * the same shape (curve, variables, public signals, domain, coefficients); every proof is still
 * checked against the verifying key read at the first open. Its resident bytes are the
 * mapping's pages in the page cache plus the copies (zkpipe_zkey_memory). Without `keys` the
 * zkey stays mapped until the source is destroyed.
 * Under a budget with no room for it now (idle keys released first), it is unmapped at once and
 * loaded by its first partition.
 * @return ZKPIPE_OK, what zkpipe_zkey_open returns (with its line in `detail`), ZKPIPE_ENOMEM,
 *         ZKPIPE_EINVAL. Allocates the source, the path's copy, the prepared
 *         verifying key and, through the cache, its key.
 * Thread safety: any thread. The file must stay as it is while mapped (zkpipe/io.h); replacing
 * it by a rename is safe, and is what a reload then sees. */
ZKPIPE_API zkpipe_status zkpipe_zkey_source_open(zkpipe_zkey_source **out, char *detail,
                                                 size_t detail_cap, const char *path,
                                                 const zkpipe_io_options *io,
                                                 zkpipe_key_cache *keys);
/*! zkpipe_zkey_source_key() : the key of a source opened with a cache (its stage operations
 * name it, so the engine pins it for each partition), NULL otherwise (NULL included). */
ZKPIPE_API zkpipe_key *zkpipe_zkey_source_key(const zkpipe_zkey_source *source);
/*! zkpipe_zkey_source_info() : the header's counts of the source's zkey (as at its first open,
 * whether it is resident now or not). @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL). */
ZKPIPE_API zkpipe_status zkpipe_zkey_source_info(zkpipe_zkey_info *out,
                                                 const zkpipe_zkey_source *source);
/*! zkpipe_zkey_source_pvk() : the prepared verifying key of the source's zkey, the one its
 * stage operations check each proof against, for a caller that verifies the proofs it gets
 * (zkpipe_groth16_verify). Owned by the source: valid until zkpipe_zkey_source_destroy, whether
 * the zkey is mapped now or released by its cache. NULL for NULL. Thread safety: any thread
 * (it is only read). */
ZKPIPE_API const zkpipe_groth16_pvk *zkpipe_zkey_source_pvk(const zkpipe_zkey_source *source);
/*! zkpipe_zkey_source_estimate() : what zkpipe_zkey_stage_ops's estimate announces for a
 * partition of the source proved with `prover_threads` threads (whether its zkey is resident
 * now or not), for a caller that decides before submitting whether the engine has room
 * (zkpipe_engine_admissible). @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL), ZKPIPE_EOVERFLOW.
 * Thread safety: any thread. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_zkey_source_estimate(const zkpipe_zkey_source *source,
                                                     unsigned prover_threads, uint64_t *bytes);
/*! zkpipe_zkey_source_destroy() : frees it (and removes its key from its cache: no partition
 * may be using it); NULL is a no-op. No job may be using it. */
ZKPIPE_API void zkpipe_zkey_source_destroy(zkpipe_zkey_source *source);

/* zkeys by file: the sources of the zkey files a program proves with, each opened once and
 * shared for as long as its file stays the same one (the same device and inode, size and
 * modification time). A file changed since it was opened (replaced by a rename, rewritten) is
 * opened anew by the next zkpipe_zkey_files_get; its old source stays with the work that holds
 * it and is closed once that ends. Sources no one holds are kept open (their keys released by
 * the key cache when the budget needs their bytes) up to `idle_max` of them, least recently
 * used closed first. For a server or queue consumer that proves with whatever zkey each request
 * names among the operator's files. Opaque. */
typedef struct zkpipe_zkey_files zkpipe_zkey_files;

/* zkpipe_zkey_files settings; start from zkpipe_zkey_files_config_init. */
typedef struct zkpipe_zkey_files_config {
    size_t struct_size; /* sizeof(zkpipe_zkey_files_config) as the caller compiled it */
    /* NULL, or the cache each source's key joins (zkpipe_zkey_source_open): give the engine's
     * (zkpipe_engine_config.keys). Not owned: it must outlive the zkey files. */
    zkpipe_key_cache *keys;
    /* zkpipe_io_options.flags of each open: ZKPIPE_IO_DEFER_SUBGROUP leaves the points'
     * subgroup checks to the proofs, which verify (the default); 0 checks every point at open. */
    uint32_t io_flags;
    uint32_t open_threads;   /* threads of each open's checks (a pool made per open); 0: one
                              * per online CPU (zkpipe_pool_create) */
    uint32_t prover_threads; /* the engine's, for zkpipe_zkey_files_estimate_max; >= 1 */
    uint32_t idle_max;       /* sources no one holds kept open (default 4) */
    uint64_t reserved[2];    /* zero */
} zkpipe_zkey_files_config;

/*! zkpipe_zkey_files_config_init() : defaults: no key cache, ZKPIPE_IO_DEFER_SUBGROUP, one open
 * thread, one prover thread, idle_max 4; struct_size set. NULL is a no-op. */
ZKPIPE_API void zkpipe_zkey_files_config_init(zkpipe_zkey_files_config *config);

/*! zkpipe_zkey_files_create() : an empty set. @param config copied (NULL: the defaults).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL out, a struct_size this library cannot read,
 * prover_threads 0, open_threads above ZKPIPE_POOL_MAX_THREADS, non-zero reserved fields),
 * ZKPIPE_ENOMEM. Allocates about 200 bytes with the C library's allocator, as every call below
 * does. */
ZKPIPE_API zkpipe_status zkpipe_zkey_files_create(zkpipe_zkey_files **out,
                                                  const zkpipe_zkey_files_config *config);

/*! zkpipe_zkey_files_destroy() : closes every source (their keys leave the cache). NULL is a
 * no-op. No source may be held (every get matched by its put) and no job may use one. */
ZKPIPE_API void zkpipe_zkey_files_destroy(zkpipe_zkey_files *files);

/*! zkpipe_zkey_files_get() : the source of the zkey file `path`, held for the caller until its
 * zkpipe_zkey_files_put: the open one when the file is still the one it was opened from, else
 * the file opened now (zkpipe_zkey_source_open with the config's flags and cache) and then
 * shared. An open that failed is not remembered: the next get tries again.
 * @param out receives the source, valid until its put.
 * @param detail receives, on error, one line starting with "PATH: ".
 * @return ZKPIPE_OK; ZKPIPE_EIO (the file cannot be read or stat'ed, or it was damaged under its
 *         mapping while it was opened: zkpipe_mapped_recover); what zkpipe_zkey_source_open
 *         returns; ZKPIPE_ENOMEM; ZKPIPE_EINVAL (NULL).
 * Thread safety: any thread. Opens run one at a time (a get of an open file never waits for
 * them); an open maps and checks the whole file. */
ZKPIPE_API zkpipe_status zkpipe_zkey_files_get(zkpipe_zkey_files *files, const char *path,
                                               const zkpipe_zkey_source **out, char *detail,
                                               size_t detail_cap);

/*! zkpipe_zkey_files_damaged() : 1 when the file of a held source was damaged under its mapping
 * since `mark` (zkpipe_mapped_damaged, for a program that called zkpipe_mapped_recover): what
 * was proved with it since then cannot be trusted, and the source is closed once no one holds
 * it (the next get opens the file anew). 0 otherwise, NULL included. Thread safety: any
 * thread. */
ZKPIPE_API int zkpipe_zkey_files_damaged(zkpipe_zkey_files *files, const zkpipe_zkey_source *source,
                                         uint64_t mark);

/*! zkpipe_zkey_files_put() : ends one hold of a source from zkpipe_zkey_files_get (no job may
 * still use it through that hold), then closes the sources no one holds that are stale or
 * beyond idle_max. NULL source: only the closing. Thread safety: any thread. */
ZKPIPE_API void zkpipe_zkey_files_put(zkpipe_zkey_files *files, const zkpipe_zkey_source *source);

/*! zkpipe_zkey_files_estimate_max() : the largest zkpipe_zkey_source_estimate among the open
 * sources (0 with none), for zkpipe_engine_admissible. Thread safety: any thread. */
ZKPIPE_API uint64_t zkpipe_zkey_files_estimate_max(zkpipe_zkey_files *files);

/* A circom partition: one witness file proved with a zkey source. */
typedef struct zkpipe_zkey_partition {
    const zkpipe_zkey_source *source;
    const char *wtns_path; /* the .wtns, mapped at synthesis and unmapped once proved */
    /* NULL, or room for the zkey's num_public signals: the public inputs of the proof (what
     * snarkjs writes as public.json), filled when the partition is proved. */
    zkpipe_scalar *public_out;
    /* NULL (the default, and the only safe choice): fresh r and s from the operating system.
     * Else two canonical scalars r, s used as they are, so that a proof can be compared byte for
     * byte with snarkjs's or zkpipe-prove's made with the same ones. INSECURE: a proof whose r
     * and s are known reveals the witness. For tests only. */
    const zkpipe_scalar *insecure_blinding;
} zkpipe_zkey_partition;

/*! zkpipe_zkey_stage_ops() : the operations of zkpipe_zkey_partition contexts.
 *   estimate: as for circuits, with the witness (its mapping as circom writes it, and its
 *     aligned copy: 64 bytes per variable) and a, b, c (96 n bytes) in place of synthesis's.
 *   synthesize: maps the witness (charged to the ledger as kind "wtns"; a witness for another
 *     curve or of another size than the zkey's fails with ZKPIPE_EMISMATCH): a partition
 *     waiting for a prover holds its witness alone.
 *   prove: a, b and c from the zkey's coefficients (kind ABC), h on the odd coset and the MSMs
 *     on the engine config's backend, the proof checked
 * against the zkey's verifying key (ZKPIPE_EUNSATISFIED when it fails: a bad witness or a proving
 * key that does not match), as zkpipe_groth16_prove_witness; byte for byte the same proof for the
 * same r and s. Detail lines name the witness file. @return a static table. Thread safety: any
 * thread. */
ZKPIPE_API const zkpipe_stage_ops *zkpipe_zkey_stage_ops(void);

/*! zkpipe_stage_proof() : the proof a partition of the operations above made, copied out of
 * its result (zkpipe_job_result's copy, read before zkpipe_job_destroy, which frees the output
 * the result points to).
 * @return ZKPIPE_OK; the result's own status when it is not ZKPIPE_OK (there is no proof);
 *         ZKPIPE_EINVAL (NULL, or a result that holds no output of these operations: a host's
 *         result, or a zeroed one). Thread safety: any thread. Does not allocate. */
ZKPIPE_API zkpipe_status zkpipe_stage_proof(zkpipe_groth16_proof *out,
                                            const zkpipe_partition_result *result);

ZKPIPE_EXTERN_C_END

#endif
