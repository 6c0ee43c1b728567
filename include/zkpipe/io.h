/*! zkpipe/io.h : circom/snarkjs interoperability: readers for the iden3 binary formats (.r1cs,
 * .wtns, Groth16 .zkey) on BLS12-381 ("bls12381") and BN254 ("bn128"), and snarkjs's JSON files
 * (proof.json, public.json, verification_key.json; rapidsnark's proof.json too).
 *
 * Readers. Each is opened from a path (mapped read-only with mmap, never read whole) or from a
 * caller's buffer, which is borrowed: it must stay valid and unchanged until the reader is
 * destroyed. Opening validates everything once: magic, version, section ids and sizes
 * (sections may come in any order; a duplicate id, a section running past the end or bytes
 * after the last section are refused), the field primes, the counts, every wire and row index,
 * that every value is below its prime, and (zkey) that every point is canonical, on the curve
 * and in the prime-order subgroup. A reader is immutable afterwards: any number of threads may
 * use it at once.
 * The zkey's point sections are used in place by the prover when their offset in the file is a
 * multiple of 8 (the limbs' alignment); a section that is not gets one aligned copy, made at
 * open. The witness values likewise.
 * Mapped files: the contract SQLite and LMDB state for theirs. A file opened by path must stay
 * as it is until its reader is destroyed: it is validated once, at open, and later calls read
 * the mapping without validating it again, so a change made in place is seen unchecked, and a
 * file truncated in place (or whose storage fails) makes the next read of the lost pages raise
 * SIGBUS in the thread making it. The library does not catch that signal: its disposition
 * belongs to the whole program, which may have a handler of its own. Replacing a file by
 * writing a new one and renaming it onto the name is safe (the reader keeps the old one). A
 * program that cannot rule out changes in place opens copies it holds (the _open_mem
 * functions), handles SIGBUS itself (the one-shot tools end with an I/O error naming the file),
 * or, living on past such failures (a server, a queue consumer), lets the library survive them
 * with zkpipe_mapped_recover (below) and asks zkpipe_mapped_damaged after each piece of work
 * whether its results can be trusted. Mapping is kept because zkeys run to many
 * gigabytes: reading them would double the memory and the start-up time of a proof, and the
 * page cache shares one mapping among concurrent provers.
 *
 * Errors. Every open, parse and prove call takes `detail` and `detail_cap`: on failure it
 * writes one human-readable line there (NUL-terminated, truncated to fit; no newline), e.g.
 * "section 5: point 17 is not on the curve", that names the problem without the file name.
 * detail may be NULL (then detail_cap is ignored). ZKPIPE_IO_DETAIL_MAX bytes always suffice.
 *
 * Accounting. With opts->acct set, a reader opens its own ledger in the stage "loaded" of that
 * registry (registered by name) and charges, under a kind named after the format ("r1cs",
 * "wtns", "zkey", registered by name), one buffer with the mapped or borrowed bytes and one
 * per aligned copy; destroying the reader closes the ledger, so the counters return to zero.
 * With opts->ledger set, the same charges go to that ledger instead (in its registry), and
 * destroying the reader releases them.
 *
 * The formats only parse, validate and write: the keys a zkey holds are proved with
 * zkpipe/groth16.h (zkpipe_zkey_pk, zkpipe_zkey_vk), an .r1cs is checked as a zkpipe_cs
 * (zkpipe_r1cs_load, zkpipe_cs_check). */
#ifndef ZKPIPE_IO_H
#define ZKPIPE_IO_H

#include "zkpipe/acct.h"
#include "zkpipe/alloc.h"
#include "zkpipe/circuit.h"
#include "zkpipe/common.h"
#include "zkpipe/curve.h"
#include "zkpipe/groth16.h"
#include "zkpipe/pool.h"
#include "zkpipe/status.h"

ZKPIPE_EXTERN_C_BEGIN

/* Bytes that hold any detail line. */
#define ZKPIPE_IO_DETAIL_MAX ZKPIPE_DETAIL_MAX

/* zkpipe_io_options flags. ZKPIPE_IO_DEFER_SUBGROUP: check the zkey's query sections (A, B1,
 * B2, C, H: sections 5 to 9) for being canonical and on the curve only, skipping their subgroup
 * checks (most of the cost of opening; see zkpipe_zkey_open). Safe for proving: the prover
 * always checks that the proof's own points are in the subgroup, and then that the proof
 * verifies, so a point outside the subgroup can make a proof fail
 * (ZKPIPE_ENOTINSUBGROUP) but never makes it return an invalid proof. */
#define ZKPIPE_IO_DEFER_SUBGROUP 1u

/* How a reader is opened; start from zkpipe_io_options_init, which sets struct_size to the
 * size the caller was compiled with (a later library gives the fields an older struct lacks
 * their defaults; see README.md, ABI). NULL options mean the defaults: no pool, no
 * accounting, the C library's allocator, every check. */
typedef struct zkpipe_io_options {
    size_t struct_size;                /* sizeof(zkpipe_io_options), set by _init */
    zkpipe_pool *pool;                 /* runs the point checks; NULL: the caller alone */
    zkpipe_acct *acct;                 /* accounts the reader's bytes; NULL: not accounted */
    const zkpipe_allocator *allocator; /* NULL: the C library; copied */
    unsigned flags;                    /* 0 or ZKPIPE_IO_DEFER_SUBGROUP */
    /* NULL, or an open ledger to charge the reader's bytes to instead of a ledger of its own
     * (then acct is ignored): what a partition does with the witness it reads. The ledger
     * must stay open until the reader is destroyed, and only the thread using the reader
     * may charge it meanwhile (ledgers are single-owner). */
    zkpipe_ledger *ledger;
} zkpipe_io_options;

/*! zkpipe_io_options_init() : fills `opts` with the defaults (struct_size, everything else
 * zero). NULL is a no-op. Thread safety: any thread. */
ZKPIPE_API void zkpipe_io_options_init(zkpipe_io_options *opts);

typedef struct zkpipe_r1cs zkpipe_r1cs;
typedef struct zkpipe_wtns zkpipe_wtns;
typedef struct zkpipe_zkey zkpipe_zkey;
typedef struct zkpipe_ptau zkpipe_ptau;

/* Common to the open functions below.
 * @param out receives the reader (the caller owns it; free it with the matching destroy).
 * @param path a regular file to map (anything else, a FIFO with no writer too, is ZKPIPE_EIO
 *        at once: the open never blocks); `data`, `len`: a borrowed buffer instead (data may
 *        be NULL only when len is 0).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (out or path NULL, allocator incomplete, an options
 *         struct_size this library does not know: not set by zkpipe_io_options_init or from
 *         newer headers), ZKPIPE_EIO (the
 *         file cannot be opened, read or mapped), ZKPIPE_EFORMAT (magic, version, sections,
 *         sizes, counts, indices, an unknown prime), ZKPIPE_ENONCANONICAL (a value or
 *         coordinate not below its prime), ZKPIPE_ENOTONCURVE, ZKPIPE_ENOTINSUBGROUP (zkey),
 *         ZKPIPE_EUNSUPPORTED (a valid file this build cannot prove with, e.g. a domain too
 *         large for the field or another protocol than Groth16), ZKPIPE_ETOOBIG (a file larger
 *         than the address space), ZKPIPE_ENOMEM, or an error of
 *         the accounting calls (ZKPIPE_ELIMIT when the registry's tables are full). On error
 *         *out is untouched and nothing leaks.
 * Thread safety: any thread. The arguments are only read. */

/* What an .r1cs header says. Wires: the constant one, outputs, public inputs, private
 * inputs, internal wires, in that order. */
typedef struct zkpipe_r1cs_info {
    zkpipe_curve curve;
    uint32_t num_wires, num_outputs, num_pub_inputs, num_prv_inputs, num_constraints;
    /* Labels (the circuit's signals, those the compiler removed included): at least
     * num_wires, at most 2^53, and above every label of the wire-to-label map when the file
     * has one. Removed signals leave no bytes in the file, so nothing tighter is checked: a
     * program that allocates per label should bound it by what it reads them from (.sym). */
    uint64_t num_labels;
    uint64_t reserved[4]; /* zero; room for fields added later */
} zkpipe_r1cs_info;

/*! zkpipe_r1cs_open() / zkpipe_r1cs_open_mem() : an .r1cs reader (header and constraints
 * sections required; the wire-to-label map is checked for size when present; other sections
 * are skipped).
 * Allocates one reader of about 1 KB; nothing per constraint. */
ZKPIPE_API zkpipe_status zkpipe_r1cs_open(zkpipe_r1cs **out, char *detail, size_t detail_cap,
                                          const char *path, const zkpipe_io_options *opts);
ZKPIPE_API zkpipe_status zkpipe_r1cs_open_mem(zkpipe_r1cs **out, char *detail, size_t detail_cap,
                                              const void *data, size_t len,
                                              const zkpipe_io_options *opts);
/*! zkpipe_r1cs_destroy() : unmaps and frees; NULL is a no-op. No call may be using it. */
ZKPIPE_API void zkpipe_r1cs_destroy(zkpipe_r1cs *r1cs);
/*! zkpipe_r1cs_info_get() : the header's counts. @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL). */
ZKPIPE_API zkpipe_status zkpipe_r1cs_info_get(zkpipe_r1cs_info *out, const zkpipe_r1cs *r1cs);

/*! zkpipe_r1cs_load() : a constraint system (zkpipe/circuit.h) with the r1cs's constraints in
 * order, over its curve: wire 0 is the one, wires 1 .. num_outputs + num_pub_inputs the public
 * inputs, the rest aux variables, in wire order. That is snarkjs's variable order, so the
 * zkey made from this r1cs proves the system (zkpipe_groth16_prove with zkpipe_zkey_pk), and
 * zkpipe_cs_check names the first constraint a witness fails.
 * @param out receives the system; the caller owns it (zkpipe_cs_destroy).
 * @param wtns the witness (witness mode, its values assigned) or NULL (shape mode).
 * @param allocator NULL for the C library; the system's, copied.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (out or r1cs NULL, allocator incomplete), ZKPIPE_EMISMATCH
 *         (a witness for another curve, or without num_wires values), ZKPIPE_ETOOBIG (more
 *         than 2^31 - 1 inputs or aux wires), ZKPIPE_ENOMEM; with the detail line. *out is
 *         untouched on error.
 * Allocates the system (about 8 bytes per term, 24 per constraint, 40 per distinct
 * coefficient, 32 per wire with values) and one scratch array of the longest linear
 * combination's terms, freed before returning. Thread safety: r1cs and wtns are only read. */
ZKPIPE_API zkpipe_status zkpipe_r1cs_load(zkpipe_cs **out, char *detail, size_t detail_cap,
                                          const zkpipe_r1cs *r1cs, const zkpipe_wtns *wtns,
                                          const zkpipe_allocator *allocator);

/*! zkpipe_wtns_open() / zkpipe_wtns_open_mem() : a .wtns reader (version 2: header and values
 * sections). Also refuses a witness whose value 0 (the constant wire) is not 1 (EFORMAT).
 * Allocates one reader of about 1 KB, plus an aligned copy of the values (32 bytes each) when
 * their offset in the file is not a multiple of 8 (as in the files snarkjs and circom write). */
ZKPIPE_API zkpipe_status zkpipe_wtns_open(zkpipe_wtns **out, char *detail, size_t detail_cap,
                                          const char *path, const zkpipe_io_options *opts);
ZKPIPE_API zkpipe_status zkpipe_wtns_open_mem(zkpipe_wtns **out, char *detail, size_t detail_cap,
                                              const void *data, size_t len,
                                              const zkpipe_io_options *opts);
/*! zkpipe_wtns_destroy() : unmaps and frees; NULL is a no-op. No call may be using it. */
ZKPIPE_API void zkpipe_wtns_destroy(zkpipe_wtns *wtns);
/*! zkpipe_wtns_curve() : the witness's curve; ZKPIPE_CURVE_COUNT for NULL. */
ZKPIPE_API zkpipe_curve zkpipe_wtns_curve(const zkpipe_wtns *wtns);
/*! zkpipe_wtns_count() : the number of values (w[0] = 1 included); 0 for NULL. */
ZKPIPE_API size_t zkpipe_wtns_count(const zkpipe_wtns *wtns);
/*! zkpipe_wtns_get() : value i as a canonical scalar.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, i >= count). Any thread; no allocation. */
ZKPIPE_API zkpipe_status zkpipe_wtns_get(zkpipe_scalar *out, const zkpipe_wtns *wtns, size_t i);
/*! zkpipe_wtns_values() : all zkpipe_wtns_count values as canonical scalars, in place in the
 * mapping (or its aligned copy): what zkpipe_groth16_prove_witness takes. Owned by the reader,
 * valid until it is destroyed; NULL for NULL. Any thread; no allocation. */
ZKPIPE_API const zkpipe_scalar *zkpipe_wtns_values(const zkpipe_wtns *wtns);

/* What a Groth16 .zkey header says. */
typedef struct zkpipe_zkey_info {
    zkpipe_curve curve;
    uint32_t num_vars;     /* wires, the constant one included */
    uint32_t num_public;   /* outputs and public inputs: w[1 .. num_public] */
    uint32_t domain_size;  /* a power of two */
    uint32_t num_coeffs;   /* entries of the A and B coefficient section */
    uint64_t copied_bytes; /* aligned copies made at open (0 when every section was aligned) */
    uint64_t reserved[4];  /* zero; room for fields added later */
} zkpipe_zkey_info;

/*! zkpipe_zkey_open() / zkpipe_zkey_open_mem() : a Groth16 .zkey reader (sections 1 to 9
 * required; section 10, the contributions, and unknown ones are skipped).
 * Cost: every point of sections 2, 3 and 5 to 9 is checked (canonical, on the curve, in the
 * subgroup) on opts->pool: first every section's points for canonical and on the curve, then
 * the query sections' subgroup. The subgroup checks are most of it; those of the query sections
 * are batched, 128 random subset sums each checked on its own, over the four G1 sections (A, B1,
 * C, H) at once and over B2 (sound whatever the cofactor: a point outside passes with
 * probability at most 2^-128 over the operating system's randomness), about 10 to 12 batched
 * point additions per point instead of a 64- or 128-bit scalar multiplication each; a batch
 * that fails is rechecked point by point to name the first bad point in file order. Measured
 * (tests/bench/bench_zkey_open, 2^16 constraints, 2 threads): BN254 about 0.35 s of CPU time
 * for the checks, BLS12-381 about 1.5 s. ZKPIPE_IO_DEFER_SUBGROUP skips the query sections'
 * subgroup checks (then a few microseconds per point). Fails with ZKPIPE_EIO when no randomness
 * can be had. Allocates one reader of about 2 KB, plus aligned copies of the point sections
 * whose offset is not a multiple of 8 (zkpipe_zkey_info's copied_bytes), and while checking
 * the subgroups 16 bytes per query point of the group checked and one window of buckets per
 * thread through opts->allocator. */
ZKPIPE_API zkpipe_status zkpipe_zkey_open(zkpipe_zkey **out, char *detail, size_t detail_cap,
                                          const char *path, const zkpipe_io_options *opts);
ZKPIPE_API zkpipe_status zkpipe_zkey_open_mem(zkpipe_zkey **out, char *detail, size_t detail_cap,
                                              const void *data, size_t len,
                                              const zkpipe_io_options *opts);
/*! zkpipe_zkey_destroy() : unmaps and frees; NULL is a no-op. No call may be using it. */
ZKPIPE_API void zkpipe_zkey_destroy(zkpipe_zkey *zkey);
/*! zkpipe_zkey_info_get() : the header's counts. @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL). */
ZKPIPE_API zkpipe_status zkpipe_zkey_info_get(zkpipe_zkey_info *out, const zkpipe_zkey *zkey);

/* What a zkey reader holds in memory (zkpipe_zkey_memory). */
typedef struct zkpipe_zkey_memory_info {
    uint64_t mapped_bytes;   /* the file's bytes mapped (0 for a borrowed buffer) */
    uint64_t copied_bytes;   /* aligned copies made at open, on the heap: always resident */
    uint64_t resident_bytes; /* of mapped_bytes, those in memory now (mincore), page-rounded
                              * and at most mapped_bytes; the buffer's length when borrowed */
    uint64_t reserved[2];    /* zero */
} zkpipe_zkey_memory_info;

/*! zkpipe_zkey_memory() : how much of a zkey is in memory now. A file opened by path is a
 * read-only private mapping that is never written, so its pages are the file's page-cache
 * pages themselves: resident_bytes counts the mapped pages present in the page cache
 * (mincore(2)), whether this process touched them or another one read the file; it is what a
 * proof with this key finds without reading the disk, and what the process keeps in memory by
 * keeping the mapping. The process's resident set (RSS, RssFile) is different: it counts only
 * the pages this process has faulted into its page tables (so it starts at zero and grows as
 * proofs read the key), it counts them again in every other process mapping the same file,
 * and it drops them at munmap although the page cache may keep them (then reclaimable, and no
 * longer this process's). A borrowed buffer (zkpipe_zkey_open_mem) is the caller's memory:
 * reported whole as resident.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL), ZKPIPE_EIO (mincore failed).
 * Thread safety: any thread. Allocates one byte per 16 pages mapped on the stack's behalf
 * (a 4 KiB vector, reused, per 64 MiB of mapping): nothing through the allocator. */
ZKPIPE_API zkpipe_status zkpipe_zkey_memory(zkpipe_zkey_memory_info *out, const zkpipe_zkey *zkey);

/*! zkpipe_zkey_pk() : the zkey's proving key, used in place in the mapping (nothing is
 * copied): prove with it through zkpipe_groth16_prove_witness, or through the engine's zkey
 * partitions (zkpipe/stages.h). Owned by the reader, valid until it is destroyed; never pass it
 * to zkpipe_groth16_pk_destroy (a no-op on it). NULL for NULL. Any thread; no allocation. */
ZKPIPE_API const zkpipe_groth16_pk *zkpipe_zkey_pk(const zkpipe_zkey *zkey);

/*! zkpipe_zkey_vk() : the verifying key a zkey's header holds (what snarkjs exports as
 * verification_key.json). @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, allocator incomplete),
 * ZKPIPE_ENOMEM. Allocates the key through `allocator` (zkpipe_groth16_vk_destroy). Any
 * thread. */
ZKPIPE_API zkpipe_status zkpipe_zkey_vk(zkpipe_groth16_vk **out, const zkpipe_zkey *zkey,
                                        const zkpipe_allocator *allocator);

/* What a powers of tau header says. */
typedef struct zkpipe_ptau_info {
    zkpipe_curve curve;
    uint32_t power;          /* 2^power points of each kind (tau G1: twice as many, less one) */
    uint32_t ceremony_power; /* the ceremony's, before any truncation */
    int prepared;            /* 1: prepared for phase 2 (the Lagrange sections 12 to 15) */
} zkpipe_ptau_info;

/*! zkpipe_ptau_open() : a snarkjs powers of tau reader (.ptau version 1): the header (q names
 * the curve, power 1 to 28) and the sizes of sections 2 to 6 (tau G1, tau G2, alpha tau G1,
 * beta tau G1, beta G2) and, when present, of the Lagrange sections 12 to 15, all checked
 * against the power before anything is read; points are checked by zkpipe_ptau_points, for
 * the level used. A file of 2^28 claimed points that does not hold them is refused at open.
 * Parameters, errors and thread safety as the other readers (above). Maps the file; allocates
 * the reader (under 1 KB). */
ZKPIPE_API zkpipe_status zkpipe_ptau_open(zkpipe_ptau **out, char *detail, size_t detail_cap,
                                          const char *path, const zkpipe_io_options *opts);
/*! zkpipe_ptau_destroy() : unmaps and frees; NULL is a no-op. No call may be using it. */
ZKPIPE_API void zkpipe_ptau_destroy(zkpipe_ptau *ptau);
/*! zkpipe_ptau_info_get() : the header. @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL). */
ZKPIPE_API zkpipe_status zkpipe_ptau_info_get(zkpipe_ptau_info *out, const zkpipe_ptau *ptau);
/*! zkpipe_ptau_points() : the points a zkey setup of a circuit with a domain of 2^log_n takes
 * (zkpipe_groth16_ptau, for zkpipe_groth16_setup_zkey_ptau), borrowed from the mapping (valid
 * while `ptau` lives), each checked canonical and on its curve (on `pool`; NULL: the caller).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL), ZKPIPE_EFORMAT (not prepared for phase 2),
 *         ZKPIPE_ETOOBIG (log_n above the power: too small a ceremony), ZKPIPE_ENONCANONICAL,
 *         ZKPIPE_ENOTONCURVE, each with a detail line. Allocates nothing. Thread safety: ptau is
 *         only read. */
ZKPIPE_API zkpipe_status zkpipe_ptau_points(zkpipe_groth16_ptau *out, char *detail,
                                            size_t detail_cap, const zkpipe_ptau *ptau,
                                            unsigned log_n, zkpipe_pool *pool);

/* The binary writers below write a file as the reader of its format takes it, the way every
 * tool here writes: to `PATH.zkpipe-new-PID` beside it (created exclusively, never through a
 * symbolic link), synced, then renamed onto `path` (a symbolic link at `path` is replaced, not
 * followed). On any error the temporary file is removed and `path` is as it was: nothing is
 * ever left half written under its name. They allocate 1 MiB of stdio buffer and nothing that
 * grows with the data. Thread safety: the system or keys are only read. Errors: ZKPIPE_EINVAL
 * (NULL), ZKPIPE_EIO (the file: create, write, sync, rename, with a detail line naming it and
 * the system's reason), ZKPIPE_ENOMEM; as each says. */

/*! zkpipe_r1cs_write() : `cs` (either mode) as an .r1cs: n8 32 and r, its variables as wires
 * (the inputs first, the one wire 0), no outputs, the inputs but the one as public inputs, no
 * private inputs, one label per wire (section 3 maps wire i to label i), its constraints in
 * order with their terms as built. zkpipe_r1cs_load of the file gives the system back.
 * @return as above, or ZKPIPE_ETOOBIG (more than 2^32 - 1 wires or constraints). */
ZKPIPE_API zkpipe_status zkpipe_r1cs_write(char *detail, size_t detail_cap, const char *path,
                                           const zkpipe_cs *cs);

/*! zkpipe_wtns_write() : a witness-mode system's values as a version 2 .wtns, in the wire
 * order of zkpipe_r1cs_write (so the pair proves with a zkey made from that r1cs).
 * @return as above, or ZKPIPE_ESTATE (a shape-mode system: no values), ZKPIPE_ETOOBIG. */
ZKPIPE_API zkpipe_status zkpipe_wtns_write(char *detail, size_t detail_cap, const char *path,
                                           const zkpipe_cs *cs);

/*! zkpipe_zkey_write() : a Groth16 .zkey from keys in a zkey's layout (from
 * zkpipe_groth16_setup_zkey_insecure or zkpipe_groth16_setup_zkey_ptau), sections as
 * snarkjs's `groth16 setup` writes them and in its order (1, 2, 4, 3, 9, 8, 5, 6, 7, 10).
 * Section 10 holds the circuit hash the setup computed (zeros when it computed none) and, for
 * a seeded key, one contribution named "INSECURE ..." (no valid proof of knowledge: `snarkjs
 * zkey verify` rejects such a key, as it must).
 * @return as above, or ZKPIPE_EUNSUPPORTED (a key in bellman's layout, e.g. from
 *         zkpipe_groth16_setup_insecure), ZKPIPE_ETOOBIG (counts beyond 32 bits). */
ZKPIPE_API zkpipe_status zkpipe_zkey_write(char *detail, size_t detail_cap, const char *path,
                                           const zkpipe_groth16_pk *pk,
                                           const zkpipe_groth16_vk *vk);

/* The JSON readers below (verification_key.json, proof.json, public.json).
 * Agreement with snarkjs, which reads these files with JavaScript's JSON.parse: the text is
 * parsed as strictly as JSON.parse parses it (RFC 8259: no comments, no trailing commas,
 * only space, tab, CR and LF as whitespace), and refused with ZKPIPE_EFORMAT where JSON.parse
 * refuses it or would read it differently: bytes other than whitespace after the value, and
 * an object with a duplicate key (JSON.parse keeps the last). What zkpipe refuses and snarkjs
 * takes is deliberate (README.md, "What zkpipe-verify takes"): values that are not canonical
 * decimal strings (hex, leading zeros, JSON numbers, values not below the field's prime),
 * z coordinates other than "0" and "1", infinity (z = 0) with x, y other than 0, 1, a key
 * whose IC is not nPublic + 1 points, a "protocol" other than "groth16", invalid UTF-8 or
 * lone surrogates in a string, numbers beyond a double, and (ZKPIPE_ETOOBIG, below) nesting
 * deeper than ZKPIPE_SNARKJS_MAX_DEPTH. Points may leave z out ([x, y], as arkworks-based
 * exporters write them; z = 1), and x = y = 0 with z = 1 or none is the point at infinity
 * (as ffjavascript holds it).
 * Limits. Each reader refuses a text larger than its kind's byte limit, before parsing it,
 * with ZKPIPE_ETOOBIG and a detail line naming the limit; zkpipe-verify reads at most that
 * many bytes of a file plus one. A scan that does not parse also bounds the number of JSON
 * values, weighing arrays and objects by what they cost, so that the parse tree, which
 * jansson builds through its allocator (the C library's malloc unless the program has set
 * another with json_set_alloc_funcs) and the call frees before returning, takes at most
 * about 27 MB for public.json and 132 MB for a key however the text is crafted (100 bytes a
 * value; the key of the most IC points, as snarkjs writes it, takes 122 MB). The limits come
 * from the largest files snarkjs writes, with room for other layouts of the same content.
 * The same scan bounds the nesting of arrays and objects by ZKPIPE_SNARKJS_MAX_DEPTH: jansson
 * parses nested values by recursion, about 80 bytes of stack a level, so a crafted text of a
 * few thousand brackets would otherwise overflow a thread's stack of 128 KiB (musl's
 * default); with the limit the readers run on a thread with a 64 KiB stack, whatever the
 * text (tests/test_snarkjs_json.c). */
/* Nesting of arrays and objects a file may have, the outermost counting 1: snarkjs's deepest
 * is 4 (vk_alphabeta_12 in a key). */
#define ZKPIPE_SNARKJS_MAX_DEPTH 64
/* Public signals a key (nPublic, IC points less one) and a public.json may have. */
#define ZKPIPE_SNARKJS_MAX_PUBLIC 262144
/* proof.json: about 1.2 KB for BLS12-381 as snarkjs indents it. */
#define ZKPIPE_SNARKJS_PROOF_MAX_BYTES (64u << 10)
/* public.json: 2^18 signals of 77 digits take 21.5 MB as snarkjs writes them (82 bytes each). */
#define ZKPIPE_SNARKJS_PUBLIC_MAX_BYTES (64u << 20)
/* verification_key.json: 2^18 + 1 BLS12-381 IC points take 68 MB as snarkjs writes them (260
 * bytes each). */
#define ZKPIPE_SNARKJS_VK_MAX_BYTES (128u << 20)

/*! zkpipe_snarkjs_vk_parse() : a verifying key from the text of a snarkjs
 * verification_key.json ("protocol" "groth16" when present, "curve", "nPublic", vk_alpha_1,
 * vk_beta_2, vk_gamma_2, vk_delta_2, IC with nPublic + 1 points; other members are ignored).
 * "curve" is read as snarkjs reads it: case and characters other than letters and digits
 * ignored, "bn128", "bn254" and "alt_bn128" for BN254, "bls12381" for BLS12-381. Points are
 * validated (z coordinate 1 or none, or 0 for infinity as above; canonical, on the curve, in
 * the subgroup).
 * Verify with it through zkpipe_groth16_pvk_create and zkpipe_groth16_verify (nPublic inputs).
 * @param json, len: the text (need not be NUL-terminated).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, allocator incomplete), ZKPIPE_ETOOBIG (over the
 *         limits above), ZKPIPE_EFORMAT (not JSON as snarkjs reads it, a member missing or of
 *         the wrong type, an unknown curve or protocol, nPublic over
 *         ZKPIPE_SNARKJS_MAX_PUBLIC), ZKPIPE_ENONCANONICAL, ZKPIPE_ENOTONCURVE,
 *         ZKPIPE_ENOTINSUBGROUP, ZKPIPE_ENOMEM; with the detail line.
 * Allocates the key (about 100 + 96 (nPublic + 4) bytes) through `allocator`
 * (zkpipe_groth16_vk_destroy), and the parse tree (see above), freed before returning. Any
 * thread. */
ZKPIPE_API zkpipe_status zkpipe_snarkjs_vk_parse(zkpipe_groth16_vk **out, char *detail,
                                                 size_t detail_cap, const char *json, size_t len,
                                                 const zkpipe_allocator *allocator);

/*! zkpipe_snarkjs_proof_parse() : a proof from the text of a proof.json: pi_a, pi_b, pi_c,
 * "protocol" ("groth16" when present) and "curve" as snarkjs writes it, or without "curve" as
 * rapidsnark writes it; points validated as zkpipe_snarkjs_vk_parse validates them.
 * @param curve the curve of the verifying key the proof is for (snarkjs takes the curve from
 *        the key alone): a proof without "curve" is read on it, and one whose "curve" names
 *        another is refused. ZKPIPE_CURVE_COUNT when no key is at hand: then "curve" must be
 *        there.
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (NULL, curve not a zkpipe_curve nor
 *         ZKPIPE_CURVE_COUNT), ZKPIPE_ETOOBIG (over ZKPIPE_SNARKJS_PROOF_MAX_BYTES or
 *         ZKPIPE_SNARKJS_MAX_DEPTH),
 *         ZKPIPE_EFORMAT, ZKPIPE_EMISMATCH ("curve" names another curve than `curve`),
 *         ZKPIPE_ENONCANONICAL, ZKPIPE_ENOTONCURVE, ZKPIPE_ENOTINSUBGROUP, ZKPIPE_ENOMEM (the
 *         parse tree); with the detail line. *out untouched on error.
 * Allocates only the parse tree, freed before returning. Any thread. */
ZKPIPE_API zkpipe_status zkpipe_snarkjs_proof_parse(zkpipe_groth16_proof *out, char *detail,
                                                    size_t detail_cap, zkpipe_curve curve,
                                                    const char *json, size_t len);

/*! zkpipe_snarkjs_public_parse() : the scalars of a snarkjs public.json (an array of decimal
 * strings), each checked below `curve`'s r.
 * @param out receives up to `cap` scalars; may be NULL when cap is 0.
 * @param out_n receives the number of entries in the file (call with cap 0 to size `out`).
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (out_n or json NULL, out NULL with cap > 0, unknown
 *         curve), ZKPIPE_ETOOBIG (over ZKPIPE_SNARKJS_PUBLIC_MAX_BYTES or
 *         ZKPIPE_SNARKJS_MAX_DEPTH, or more than ZKPIPE_SNARKJS_MAX_PUBLIC entries), ZKPIPE_ELIMIT
 * (more entries than cap; *out_n says how many), ZKPIPE_EFORMAT, ZKPIPE_ENONCANONICAL,
 * ZKPIPE_ENOMEM (the parse tree); with the detail line. Allocates only the parse tree, freed before
 * returning. Any thread. */
ZKPIPE_API zkpipe_status zkpipe_snarkjs_public_parse(zkpipe_scalar *out, size_t cap, size_t *out_n,
                                                     char *detail, size_t detail_cap,
                                                     zkpipe_curve curve, const char *json,
                                                     size_t len);

/* The writers put their text in `buf` as snprintf does: at most `cap` bytes, NUL-terminated
 * when cap > 0, the full length (NUL excluded) in *out_len, so cap 0 (buf may then be NULL)
 * sizes the buffer for a second call; the text was truncated when *out_len >= cap.
 * Numbers are canonical decimal strings, as snarkjs writes them. Any thread; no allocation. */

/*! zkpipe_snarkjs_proof_write() : proof.json for `proof`: pi_a [x, y, "1"], pi_b [[x.c0,
 * x.c1], [y.c0, y.c1], ["1", "0"]], pi_c [x, y, "1"] (infinity as z = 0), "protocol"
 * "groth16", "curve" "bls12381" or "bn128".
 * @return ZKPIPE_OK, ZKPIPE_EINVAL (proof or out_len NULL, buf NULL with cap > 0, a proof
 *         whose curve or size is wrong), or a decoding error of the proof's points. */
ZKPIPE_API zkpipe_status zkpipe_snarkjs_proof_write(char *buf, size_t cap, size_t *out_len,
                                                    const zkpipe_groth16_proof *proof);

/*! zkpipe_snarkjs_public_write() : public.json, a JSON array of the n scalars as decimal
 * strings. @return ZKPIPE_OK, ZKPIPE_EINVAL (out_len NULL, buf NULL with cap > 0, inputs NULL
 * with n > 0). */
ZKPIPE_API zkpipe_status zkpipe_snarkjs_public_write(char *buf, size_t cap, size_t *out_len,
                                                     const zkpipe_scalar *inputs, size_t n);

/* ---- Mapped files that fail under their readers ---- */

/*! zkpipe_mapped_recover() : for a program that outlives its inputs' failures (a server or
 * queue consumer whose work names files other processes may truncate): installs a process-wide
 * SIGBUS handler that lets the thread whose read of a mapped file faulted go on. The pages of
 * that mapping from the faulting one to its end (past the file's new end, when it was
 * truncated) are replaced by zero pages, the file (its device and inode) is recorded as
 * damaged, and the read is made again: it reads zeros. The readers survive that (every count
 * and index of a mapped file was validated at open, and zero stays in bounds); no result made
 * from the file can be trusted, so the program takes zkpipe_mapped_damage_mark() before a
 * piece of work and asks zkpipe_mapped_damaged() after it whether one of its inputs was
 * damaged meanwhile, and then reports that work as an I/O error (ZKPIPE_EIO) instead of its
 * result, and opens the file anew for later work (the damaged mapping reads zeros for good).
 * A SIGBUS at an address that is not in a mapped file, or a misaligned access, is left to the
 * default action: the process dies as it would have.
 * The handler replaces whatever SIGBUS handler the program had: call this only in a program
 * that leaves SIGBUS to the library, once, before any thread reads a mapped file; a second call
 * is a no-op. It uses open, read, close, mmap and sigaction (async-signal-safe on Linux, where
 * mmap is one system call) and lock-free atomics, and allocates nothing.
 * @return ZKPIPE_OK; ZKPIPE_EUNSUPPORTED (sigaction refused, or not Linux: nothing installed).
 * Thread safety: any thread. */
ZKPIPE_API zkpipe_status zkpipe_mapped_recover(void);

/*! zkpipe_mapped_damage_mark() : a mark for zkpipe_mapped_damaged, taken before a piece of work
 * starts reading its inputs (the count of damages so far). Thread safety: any thread. */
ZKPIPE_API uint64_t zkpipe_mapped_damage_mark(void);

/*! zkpipe_mapped_damaged() : 1 when a mapping of the file (dev, ino: its stat's st_dev and
 * st_ino) was damaged (zkpipe_mapped_recover) since `mark`, and also when more files were
 * damaged since then than the library remembers (64: then any file may have been); else 0.
 * Thread safety: any thread, the signal handler included. */
ZKPIPE_API int zkpipe_mapped_damaged(uint64_t mark, uint64_t dev, uint64_t ino);

ZKPIPE_EXTERN_C_END

#endif
