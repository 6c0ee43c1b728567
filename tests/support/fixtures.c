/* The tests' shared registry and keys (fixtures.h). */
#include "fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "zkpipe/testcircuit.h"

zkpipe_acct *fixture_acct;

int fixture_acct_setup(void **state)
{
    (void)state;
    return zkpipe_acct_create(NULL, &fixture_acct) == ZKPIPE_OK ? 0 : -1;
}

int fixture_acct_teardown(void **state)
{
    (void)state;
    zkpipe_acct_destroy(fixture_acct);
    fixture_acct = NULL;
    return 0;
}

void fixture_keys_make(fixture_keys *k, zkpipe_curve curve, unsigned log_rows,
                       const uint8_t seed[ZKPIPE_GROTH16_SEED_BYTES], zkpipe_pool *pool)
{
    k->cs = NULL;
    assert_int_equal(zkpipe_cs_create(&k->cs, curve, ZKPIPE_CS_WITNESS, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_testcircuit_build(k->cs, log_rows, 42, 1), ZKPIPE_OK);
    assert_int_equal(zkpipe_groth16_setup_insecure(&k->pk, &k->vk, k->cs, seed, pool, NULL),
                     ZKPIPE_OK);
    assert_int_equal(zkpipe_groth16_pvk_create(&k->pvk, k->vk, NULL), ZKPIPE_OK);
}

void fixture_keys_free(fixture_keys *k)
{
    zkpipe_groth16_pk_destroy(k->pk);
    zkpipe_groth16_vk_destroy(k->vk);
    zkpipe_groth16_pvk_destroy(k->pvk);
    zkpipe_cs_destroy(k->cs);
}
