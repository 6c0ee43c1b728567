/* Evaluation domains and the NTT on both scalar fields: against the O(n^2) definition, round
 * trips, cosets, the vanishing polynomial, thread-count independence and error paths.
 * `test_ntt --large` (ctest's slow test_ntt_large) runs the large cases up to 2^19. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fail_alloc.h"
#include "ff/fp_x8.h"
#include "sanitize.h"
#include "poly/ntt.h"
#include "zkpipe/zkpipe.h"

/* The largest transform the size-dependent cases run (main sets it). */
static unsigned max_log_n = 16;

static uint64_t next_u64(uint64_t *state) /* splitmix64 */
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9u;
    z = (z ^ z >> 27) * 0x94d049bb133111ebu;
    return z ^ z >> 31;
}

#define NTT_F bls12_381_fr
#include "test_ntt_cases.h"
#undef NTT_F
#define NTT_F bn254_fr
#include "test_ntt_cases.h"
#undef NTT_F

static int pool_setup(void **state)
{
    zkpipe_pool *pool = NULL;
    if (zkpipe_pool_create(&pool, 3, NULL) != ZKPIPE_OK)
        return -1;
    *state = pool;
    return 0;
}

static int pool_teardown(void **state)
{
    zkpipe_pool_destroy(*state);
    return 0;
}

#define FIELD_TESTS(F)                                                                             \
    cmocka_unit_test(F##_roots_have_their_order), cmocka_unit_test(F##_matches_naive_dft),         \
        cmocka_unit_test(F##_round_trips), cmocka_unit_test(F##_threads_give_identical_results),   \
        cmocka_unit_test(F##_transforms_inside_pool_bodies),                                       \
        cmocka_unit_test(F##_vanishing_on_cosets), cmocka_unit_test(F##_invalid_arguments),        \
        cmocka_unit_test(F##_allocation_failures), cmocka_unit_test(F##_lanes_match_scalar)

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {FIELD_TESTS(bls12_381_fr), FIELD_TESTS(bn254_fr)};
    const struct CMUnitTest large[] = {
        cmocka_unit_test(bls12_381_fr_round_trips),
        cmocka_unit_test(bls12_381_fr_threads_give_identical_results),
        cmocka_unit_test(bn254_fr_round_trips),
        cmocka_unit_test(bn254_fr_threads_give_identical_results),
    };
    if (ZKPIPE_TEST_SANITIZED)
        max_log_n = 12;
    if (argc > 1 && strcmp(argv[1], "--large") == 0) {
        max_log_n = 19;
        return cmocka_run_group_tests(large, pool_setup, pool_teardown);
    }
    int failed = cmocka_run_group_tests(tests, pool_setup, pool_teardown);
#if ZKPIPE__FF_X86
    if (zkpipe__ff_x86_ifma) { /* the scalar butterflies too, which the first round skipped */
        zkpipe__ff_x86_ifma = 0;
        const struct CMUnitTest scalar[] = {
            cmocka_unit_test(bls12_381_fr_matches_naive_dft),
            cmocka_unit_test(bls12_381_fr_round_trips),
            cmocka_unit_test(bn254_fr_matches_naive_dft),
            cmocka_unit_test(bn254_fr_round_trips),
        };
        failed += cmocka_run_group_tests_name("IFMA lanes off", scalar, pool_setup, pool_teardown);
        zkpipe__ff_x86_ifma = 1;
    }
#endif
    return failed;
}
