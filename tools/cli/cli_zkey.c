/* A zkey for many witnesses, and each proof's outputs (cli_zkey.h). */
#include "cli_zkey.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_files.h"

zkpipe_status cli_zkey_open(cli_zkey *k, const char *path, int full_check, unsigned threads,
                            zkpipe_key_cache *keys, char *detail, size_t cap)
{
    zkpipe_zkey_files_config fc;
    zkpipe_zkey_info info;
    memset(k, 0, sizeof *k);
    zkpipe_zkey_files_config_init(&fc);
    fc.keys = keys;
    fc.io_flags = full_check ? 0 : ZKPIPE_IO_DEFER_SUBGROUP;
    fc.open_threads = threads;
    zkpipe_status st = zkpipe_zkey_files_create(&k->files, &fc);
    if (st != ZKPIPE_OK) {
        snprintf(detail, cap, "%s: %s", path, zkpipe_status_str(st));
        return st;
    }
    /* Its line starts with the path: the caller may open many. */
    st = zkpipe_zkey_files_get(k->files, path, &k->source, detail, cap);
    if (st == ZKPIPE_OK && (st = zkpipe_zkey_source_info(&info, k->source)) == ZKPIPE_OK)
        k->num_public = info.num_public;
    if (st != ZKPIPE_OK)
        cli_zkey_close(k);
    return st;
}

void cli_zkey_close(cli_zkey *k)
{
    zkpipe_zkey_files_put(k->files, k->source);
    zkpipe_zkey_files_destroy(k->files);
    memset(k, 0, sizeof *k);
}

int cli_output_path(char *out, size_t cap, const char *dir, const char *name, const char *suffix)
{
    const char *base = strrchr(name, '/');
    base = base != NULL ? base + 1 : name;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".wtns") == 0)
        len -= 5;
    int n = snprintf(out, cap, "%s/%.*s.%s", dir, (int)len, base, suffix);
    return n > 0 && (size_t)n < cap;
}

zkpipe_status cli_proof_render(char **proof_json, size_t *plen, char **public_json, size_t *qlen,
                               const zkpipe_groth16_proof *proof, const zkpipe_scalar *pub,
                               size_t num_public)
{
    *public_json = NULL;
    /* One call into a buffer that fits either curve's proof (1.1 KB for BLS12-381):
     * the writer decodes the proof's points, a G2 subgroup check among them, on each call. */
    enum { PROOF_JSON_CAP = 4096 };
    zkpipe_status st = (*proof_json = malloc(PROOF_JSON_CAP)) != NULL ? ZKPIPE_OK : ZKPIPE_ENOMEM;
    if (st == ZKPIPE_OK)
        st = zkpipe_snarkjs_proof_write(*proof_json, PROOF_JSON_CAP, plen, proof);
    if (st == ZKPIPE_OK && *plen >= PROOF_JSON_CAP)
        st = ZKPIPE_ETOOBIG;
    if (st == ZKPIPE_OK)
        st = zkpipe_snarkjs_public_write(NULL, 0, qlen, pub, num_public);
    if (st == ZKPIPE_OK && (*public_json = malloc(*qlen + 1)) == NULL)
        st = ZKPIPE_ENOMEM;
    if (st == ZKPIPE_OK)
        st = zkpipe_snarkjs_public_write(*public_json, *qlen + 1, qlen, pub, num_public);
    if (st != ZKPIPE_OK) {
        free(*proof_json);
        free(*public_json);
        *proof_json = *public_json = NULL;
    }
    return st;
}

zkpipe_status cli_proof_write(const char *proof_path, const char *public_path,
                              const zkpipe_groth16_proof *proof, const zkpipe_scalar *pub,
                              size_t num_public, char *why, size_t cap)
{
    char *proof_json, *public_json;
    size_t plen, qlen;
    zkpipe_status st =
        cli_proof_render(&proof_json, &plen, &public_json, &qlen, proof, pub, num_public);
    if (st != ZKPIPE_OK) {
        snprintf(why, cap, "cannot render the outputs: %s", zkpipe_status_str(st));
    } else {
        cli_output outs[2] = {{public_path, public_json, qlen}, {proof_path, proof_json, plen}};
        cli_error e;
        if (cli_outputs_write(outs, 2, CLI_OUTPUTS_DURABLE, &e) != 0) {
            cli_error_text(why, cap, outs, &e);
            st = ZKPIPE_EIO;
        }
    }
    free(proof_json);
    free(public_json);
    return st;
}
