/* What tests that prove the built-in test circuit set up alike (test_plugin, test_cuda): a
 * registry of the test's own for the whole cmocka group, and a circuit with its keys. */
#ifndef ZKPIPE_TESTS_FIXTURES_H
#define ZKPIPE_TESTS_FIXTURES_H

#include <stdint.h>

#include "zkpipe/zkpipe.h"

/* The group's registry: made by fixture_acct_setup, gone after fixture_acct_teardown. */
extern zkpipe_acct *fixture_acct;

/* cmocka group setup and teardown for fixture_acct: 0, or -1 when it cannot be made. */
int fixture_acct_setup(void **state);
int fixture_acct_teardown(void **state);

typedef struct fixture_keys {
    zkpipe_cs *cs; /* with its witness */
    zkpipe_groth16_pk *pk;
    zkpipe_groth16_vk *vk;
    zkpipe_groth16_pvk *pvk;
} fixture_keys;

/* The built-in test circuit on `curve` at 2^log_rows rows (circuit seed 42, one public input)
 * with its witness, and keys from the insecure setup with `seed` on `pool` (may be NULL).
 * Fails the test when any step fails. */
void fixture_keys_make(fixture_keys *k, zkpipe_curve curve, unsigned log_rows,
                       const uint8_t seed[ZKPIPE_GROTH16_SEED_BYTES], zkpipe_pool *pool);

/* Frees what fixture_keys_make made. */
void fixture_keys_free(fixture_keys *k);

#endif
