/* Uses a few public calls through the installed headers; exits 0 when they behave. */
#include <stdio.h>
#include <string.h>

#include <zkpipe/zkpipe.h>

int main(void)
{
    if (strcmp(zkpipe_version_string(), ZKPIPE_VERSION_STRING) != 0) {
        fprintf(stderr, "version mismatch: %s vs %s\n", zkpipe_version_string(),
                ZKPIPE_VERSION_STRING);
        return 1;
    }
    zkpipe_acct *acct = NULL;
    if (zkpipe_acct_create(NULL, &acct) != ZKPIPE_OK)
        return 1;
    zkpipe_ledger ledger;
    int rc = zkpipe_ledger_open(&ledger, acct, ZKPIPE_STAGE_SYNTH);
    if (rc == ZKPIPE_OK)
        rc = zkpipe_ledger_charge(&ledger, ZKPIPE_KIND_ABC, 4096);
    zkpipe_ledger_close(&ledger);
    zkpipe_acct_destroy(acct);
    if (rc != ZKPIPE_OK || zkpipe_ledger_open(NULL, NULL, 0) != ZKPIPE_EINVAL) {
        fprintf(stderr, "unexpected status: %s\n", zkpipe_status_str(rc));
        return 1;
    }
    /* Where a proof would run, and why: test_install.sh checks the line (the CUDA plug-in
     * beside the library, linked in, or absent). */
    zkpipe_backend backend;
    const char *why = NULL;
    if (zkpipe_backend_resolve(&backend, ZKPIPE_BACKEND_AUTO, &why) != ZKPIPE_OK) {
        fprintf(stderr, "backend auto did not resolve\n");
        return 1;
    }
    printf("backend auto: %s: %s\n", zkpipe_backend_name(backend), why);
    printf("zkpipe %s ok\n", zkpipe_version_string());
    return 0;
}
