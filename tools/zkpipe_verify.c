/* zkpipe-verify: checks a snarkjs Groth16 proof, with snarkjs's argument order:
 *
 *   zkpipe-verify <verification_key.json> <public.json> <proof.json>
 *
 * Prints "OK" and exits 0 when the proof verifies; otherwise prints one line on stderr naming
 * the file and the problem and exits 1 (2 for a usage error). The proof may be rapidsnark's
 * (no "curve": the key's is taken). Each file is read up to its kind's limit in zkpipe/io.h;
 * a larger one is refused (ZKPIPE_ETOOBIG), and so is, before any read and without waiting on
 * it, one that is not a regular file: a FIFO, a device, a socket, or standard input when it is
 * a pipe (/dev/stdin; "-" is not standard input but a file of that name). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_files.h"
#include "zkpipe/io.h"
#include "zkpipe/zkpipe.h"

static const char *prog = "zkpipe-verify";

static int fail(const char *file, zkpipe_status st, const char *detail)
{
    fprintf(stderr, "%s: %s: %s (%s)\n", prog, file, detail, zkpipe_status_name(st));
    return 1;
}

int main(int argc, char **argv)
{
    const char *pos[3];
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: %s <verification_key.json> <public.json> <proof.json>\n", prog);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("%s (zkpipe) %s\n", prog, zkpipe_version_string());
            return 0;
        }
        if (strncmp(argv[i], "--", 2) == 0 || npos == 3) {
            fprintf(stderr, "%s: unexpected argument %s (see --help)\n", prog, argv[i]);
            return 2;
        }
        pos[npos++] = argv[i];
    }
    if (npos != 3) {
        fprintf(stderr, "%s: expected 3 files, got %d (see --help)\n", prog, npos);
        return 2;
    }
    /* Each file is read up to its kind's limit, so that no input that grows is read without
     * end; the parsers refuse the same sizes. */
    static const struct {
        size_t max;
        const char *name, *kind;
    } limits[3] = {
        {ZKPIPE_SNARKJS_VK_MAX_BYTES, "ZKPIPE_SNARKJS_VK_MAX_BYTES", "verification_key.json"},
        {ZKPIPE_SNARKJS_PUBLIC_MAX_BYTES, "ZKPIPE_SNARKJS_PUBLIC_MAX_BYTES", "public.json"},
        {ZKPIPE_SNARKJS_PROOF_MAX_BYTES, "ZKPIPE_SNARKJS_PROOF_MAX_BYTES", "proof.json"},
    };
    char *text[3] = {NULL, NULL, NULL};
    size_t len[3];
    for (int i = 0; i < 3; i++) {
        text[i] = cli_read_file(pos[i], limits[i].max, &len[i]);
        if (text[i] == NULL) {
            if (errno == EFBIG) {
                char detail[ZKPIPE_IO_DETAIL_MAX];
                snprintf(detail, sizeof detail,
                         "larger than %s = %zu bytes, the most a %s may have", limits[i].name,
                         limits[i].max, limits[i].kind);
                fail(pos[i], ZKPIPE_ETOOBIG, detail);
            } else {
                fprintf(stderr, "%s: %s: cannot read: %s\n", prog, pos[i],
                        errno == ENODEV ? "not a regular file (a FIFO, a device or a socket)"
                                        : strerror(errno));
            }
            for (int k = 0; k < i; k++)
                free(text[k]);
            return 1;
        }
    }
    char detail[ZKPIPE_IO_DETAIL_MAX];
    zkpipe_groth16_vk *vk = NULL;
    zkpipe_groth16_pvk *pvk = NULL;
    zkpipe_scalar *inputs = NULL;
    zkpipe_groth16_proof proof;
    size_t n = 0;
    int rc = 1;
    zkpipe_status st = zkpipe_snarkjs_vk_parse(&vk, detail, sizeof detail, text[0], len[0], NULL);
    if (st != ZKPIPE_OK) {
        fail(pos[0], st, detail);
        goto out;
    }
    /* On the key's curve: rapidsnark's proofs do not name theirs. */
    if ((st = zkpipe_snarkjs_proof_parse(&proof, detail, sizeof detail, zkpipe_groth16_vk_curve(vk),
                                         text[2], len[2])) != ZKPIPE_OK) {
        fail(pos[2], st, detail);
        goto out;
    }
    size_t want = zkpipe_groth16_vk_num_inputs(vk) - 1;
    inputs = calloc(want + 1, sizeof *inputs);
    if (inputs == NULL) {
        fail(pos[1], ZKPIPE_ENOMEM, "out of memory");
        goto out;
    }
    st = zkpipe_snarkjs_public_parse(inputs, want, &n, detail, sizeof detail, proof.curve, text[1],
                                     len[1]);
    if (st == ZKPIPE_OK && n != want) {
        snprintf(detail, sizeof detail, "%zu public signals, the key expects %zu", n, want);
        st = ZKPIPE_EMISMATCH;
    } else if (st == ZKPIPE_ELIMIT) {
        snprintf(detail, sizeof detail, "%zu public signals, the key expects %zu", n, want);
        st = ZKPIPE_EMISMATCH;
    }
    if (st != ZKPIPE_OK) {
        fail(pos[1], st, detail);
        goto out;
    }
    if ((st = zkpipe_groth16_pvk_create(&pvk, vk, NULL)) != ZKPIPE_OK) {
        fail(pos[0], st, zkpipe_status_str(st));
        goto out;
    }
    st = zkpipe_groth16_verify(pvk, inputs, n, &proof);
    if (st != ZKPIPE_OK) {
        fail(pos[2], st,
             st == ZKPIPE_EVERIFY ? "the proof does not verify for these public signals"
                                  : zkpipe_status_str(st));
        goto out;
    }
    printf("OK\n");
    rc = 0;
out:
    zkpipe_groth16_pvk_destroy(pvk);
    zkpipe_groth16_vk_destroy(vk);
    free(inputs);
    for (int i = 0; i < 3; i++)
        free(text[i]);
    return rc;
}
