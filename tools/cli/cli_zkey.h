/* A circom zkey opened once to prove many witnesses with (zkpipe-pipeline --zkey; the queue
 * node opens its zkeys through the library's zkpipe_zkey_files), and the snarkjs outputs of
 * each proof (both). */
#ifndef ZKPIPE_EXAMPLES_CLI_ZKEY_H
#define ZKPIPE_EXAMPLES_CLI_ZKEY_H

#include <stddef.h>

#include "zkpipe/zkpipe.h"

typedef struct cli_zkey {
    zkpipe_zkey_files *files;         /* of this zkey alone, so each --zkey is a key of its own */
    const zkpipe_zkey_source *source; /* for zkpipe_zkey_partition; holds the zkey and its vk */
    size_t num_public;
} cli_zkey;

/*! cli_zkey_open() : through the library's zkpipe_zkey_files, maps and checks `path` (every query
 * point's subgroup check too when full_check, on `threads` threads; else those are left to the
 * proofs, which check their own points and then verify), as a source (whose stage operations check
 * each proof against the zkey's verifying key) that owns it and, with `keys`, is a key of that
 * cache: under the engine's budget it may be unmapped while no partition uses it and is opened
 * again (reading the file anew) by the next one that needs it.
 * @return ZKPIPE_OK (`detail` empty), or the error with one line in `detail` that starts with
 * "PATH: " (then *k is empty). */
zkpipe_status cli_zkey_open(cli_zkey *k, const char *path, int full_check, unsigned threads,
                            zkpipe_key_cache *keys, char *detail, size_t cap);
/* Frees what cli_zkey_open made; an empty one is a no-op. No job may be using it. */
void cli_zkey_close(cli_zkey *k);

/*! cli_output_path() : "DIR/NAME.SUFFIX" into out, NAME being the file name of `name` without
 * its directory and without a ".wtns" ending. @return 1, or 0 when it does not fit. */
int cli_output_path(char *out, size_t cap, const char *dir, const char *name, const char *suffix);

/*! cli_proof_render() : the proof and its public signals as snarkjs's JSON, each in a buffer of
 * its own (malloc: the caller frees both) of *plen and *qlen bytes. @return ZKPIPE_OK, or
 * ZKPIPE_ENOMEM, ZKPIPE_ETOOBIG (a proof's JSON over 4 KB, which no curve's reaches) or the
 * writers' error, with both set to NULL. */
zkpipe_status cli_proof_render(char **proof_json, size_t *plen, char **public_json, size_t *qlen,
                               const zkpipe_groth16_proof *proof, const zkpipe_scalar *pub,
                               size_t num_public);

/*! cli_proof_write() : the proof and its public signals in snarkjs's JSON, written as one set
 * with cli_outputs_write (public_path first, proof_path last: a proof.json that is new means its
 * public.json is). @return ZKPIPE_OK, or ZKPIPE_EIO / ZKPIPE_ENOMEM / a rendering error, with
 * one line in `why`. Thread safety: that of cli_outputs_write (one set at a time). */
zkpipe_status cli_proof_write(const char *proof_path, const char *public_path,
                              const zkpipe_groth16_proof *proof, const zkpipe_scalar *pub,
                              size_t num_public, char *why, size_t cap);

#endif
