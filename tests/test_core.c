/* Status codes, version, the allocator hook and the monotonic clock helpers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc_internal.h"
#include "core/clock_internal.h"
#include "core/kept_alloc.h"
#include "fail_alloc.h"
#include "zkpipe/zkpipe.h"

static void status_strings_are_distinct_and_stable(void **state)
{
    (void)state;
    /* The numeric values are part of the ABI. */
    assert_int_equal(ZKPIPE_OK, 0);
    assert_int_equal(ZKPIPE_EINVAL, -1);
    assert_int_equal(ZKPIPE_ENOMEM, -2);
    assert_int_equal(ZKPIPE_ECLOSED, -3);
    assert_int_equal(ZKPIPE_EDEVICE, -17);
    assert_int_equal(ZKPIPE_EOVERFLOW, -24);
    for (int a = ZKPIPE_EOVERFLOW; a <= ZKPIPE_OK; a++) {
        assert_string_not_equal(zkpipe_status_str(a), "unknown status");
        assert_string_not_equal(zkpipe_status_name(a), "ZKPIPE_UNKNOWN");
        for (int b = a + 1; b <= ZKPIPE_OK; b++) {
            assert_string_not_equal(zkpipe_status_str(a), zkpipe_status_str(b));
            assert_string_not_equal(zkpipe_status_name(a), zkpipe_status_name(b));
        }
    }
    assert_string_equal(zkpipe_status_name(ZKPIPE_EINVAL), "ZKPIPE_EINVAL");
    assert_string_equal(zkpipe_status_str(12345), "unknown status");
    assert_string_equal(zkpipe_status_name(-999), "ZKPIPE_UNKNOWN");
}

static void version_matches_header(void **state)
{
    (void)state;
    assert_string_equal(zkpipe_version_string(), ZKPIPE_VERSION_STRING);
    assert_int_equal(zkpipe_version_number(), ZKPIPE_VERSION_NUMBER);
}

static void default_allocator_aligns(void **state)
{
    (void)state;
    const zkpipe_allocator *a = zkpipe__allocator_or_default(NULL);
    assert_ptr_equal(a, zkpipe_allocator_default());
    for (size_t align = 1; align <= 4096; align *= 2) {
        unsigned char *p = zkpipe__alloc(a, 100, align);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % align, 0);
        memset(p, 0xab, 100);
        zkpipe__free(a, p);
    }
    unsigned char *z = zkpipe__calloc(a, 10, 10, 64);
    assert_non_null(z);
    for (int i = 0; i < 100; i++)
        assert_int_equal(z[i], 0);
    zkpipe__free(a, z);
    zkpipe__free(a, NULL);
    assert_null(zkpipe__calloc(a, SIZE_MAX / 2, 4, 8));
}

static void incomplete_allocator_is_rejected(void **state)
{
    (void)state;
    zkpipe_allocator half = {NULL, NULL, NULL};
    assert_null(zkpipe__allocator_or_default(&half));
}

static void fail_alloc_fails_exactly_once(void **state)
{
    (void)state;
    fail_alloc fa;
    fail_alloc_init(&fa, 1);
    void *p0 = zkpipe__alloc(&fa.allocator, 8, 8);
    void *p1 = zkpipe__alloc(&fa.allocator, 8, 8);
    void *p2 = zkpipe__alloc(&fa.allocator, 8, 8);
    assert_non_null(p0);
    assert_null(p1);
    assert_non_null(p2);
    assert_int_equal(atomic_load(&fa.live), 2);
    zkpipe__free(&fa.allocator, p0);
    zkpipe__free(&fa.allocator, p2);
    assert_int_equal(atomic_load(&fa.live), 0);
}

/* The kept-block allocator: a block freed is kept and handed out again while it fits; a larger
 * request replaces it, one made while it is out goes to the base; a failed replacement leaves
 * nothing held; release gives it back. */
static void kept_allocator_reuses_one_block(void **state)
{
    (void)state;
    fail_alloc fa;
    fail_alloc_init(&fa, -1);
    zkpipe__kept k = {.base = fa.allocator, .min_size = 1000};
    zkpipe_allocator a = zkpipe__kept_allocator(&k);
    unsigned char *p = zkpipe__alloc(&a, 10, 64);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 64, 0);
    memset(p, 1, 1000);                            /* min_size bytes, whatever the request */
    unsigned char *q = zkpipe__alloc(&a, 500, 64); /* the block is out: from the base */
    assert_non_null(q);
    assert_ptr_not_equal(p, q);
    assert_int_equal(atomic_load(&fa.live), 2);
    zkpipe__free(&a, q);
    zkpipe__free(&a, p);
    assert_int_equal(atomic_load(&fa.live), 1); /* kept */
    assert_ptr_equal(zkpipe__alloc(&a, 1000, 32), p);
    zkpipe__free(&a, p);
    unsigned char *wide = zkpipe__alloc(&a, 100, 256); /* a wider alignment: a new block */
    assert_non_null(wide);
    assert_int_equal((uintptr_t)wide % 256, 0);
    assert_int_equal(atomic_load(&fa.live), 1);
    zkpipe__free(&a, wide);
    unsigned char *big = zkpipe__alloc(&a, 5000, 64); /* larger: replaced */
    assert_non_null(big);
    memset(big, 2, 5000);
    assert_int_equal(atomic_load(&fa.live), 1);
    zkpipe__free(&a, big);
    fail_alloc_init(&fa, 0);
    atomic_store(&fa.live, 1);
    assert_null(zkpipe__alloc(&a, 6000, 64)); /* the replacement fails */
    assert_int_equal(atomic_load(&fa.live), 0);
    assert_null(k.block);
    zkpipe__kept_release(&k); /* nothing held: a no-op */
    fail_alloc_init(&fa, -1);
    assert_non_null(p = zkpipe__alloc(&a, 10, 64));
    zkpipe__free(&a, p);
    zkpipe__kept_release(&k);
    assert_int_equal(atomic_load(&fa.live), 0);
}

static void timespec_add_carries_and_holds_any_timeout(void **state)
{
    (void)state;
    struct timespec t = {5, 999999999};
    struct timespec u = zkpipe__timespec_add(t, 1);
    assert_int_equal(u.tv_sec, 6);
    assert_int_equal(u.tv_nsec, 0);
    u = zkpipe__timespec_add(t, 2500000001u);
    assert_int_equal(u.tv_sec, 8);
    assert_int_equal(u.tv_nsec, 500000000);
    /* UINT64_MAX ns = 18446744073 s + 709551615 ns. */
    u = zkpipe__timespec_add(t, UINT64_MAX);
    assert_int_equal(u.tv_sec, 18446744073 + 6);
    assert_int_equal(u.tv_nsec, 709551614);

    struct timespec before = zkpipe__clock_now();
    struct timespec d = zkpipe__deadline_after(UINT64_MAX);
    assert_true(d.tv_sec > before.tv_sec + 18446744072);
    assert_true(d.tv_nsec >= 0 && d.tv_nsec < 1000000000);
}

static void backend_names_parse_and_resolve(void **state)
{
    (void)state;
    zkpipe_backend b = ZKPIPE_BACKEND_CUDA;
    assert_int_equal(zkpipe_backend_parse(&b, "CPU"), ZKPIPE_OK);
    assert_int_equal(b, ZKPIPE_BACKEND_CPU);
    assert_int_equal(zkpipe_backend_parse(&b, "auto"), ZKPIPE_OK);
    assert_int_equal(b, ZKPIPE_BACKEND_AUTO);
    assert_int_equal(zkpipe_backend_parse(&b, "gpu"), ZKPIPE_EINVAL);
    assert_int_equal(b, ZKPIPE_BACKEND_AUTO);
    assert_int_equal(zkpipe_backend_parse(NULL, "cpu"), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_backend_parse(&b, NULL), ZKPIPE_EINVAL);
    assert_string_equal(zkpipe_backend_name(ZKPIPE_BACKEND_CUDA), "cuda");
    assert_null(zkpipe_backend_name((zkpipe_backend)3));

    const char *why = NULL;
    assert_int_equal(zkpipe_backend_resolve(&b, ZKPIPE_BACKEND_CPU, &why), ZKPIPE_OK);
    assert_int_equal(b, ZKPIPE_BACKEND_CPU);
    assert_non_null(why);
    /* AUTO always resolves; CUDA resolves exactly when AUTO picks it. */
    assert_int_equal(zkpipe_backend_resolve(&b, ZKPIPE_BACKEND_AUTO, &why), ZKPIPE_OK);
    zkpipe_backend cuda = ZKPIPE_BACKEND_AUTO;
    zkpipe_status st = zkpipe_backend_resolve(&cuda, ZKPIPE_BACKEND_CUDA, NULL);
    if (b == ZKPIPE_BACKEND_CPU) {
        assert_int_equal(st, ZKPIPE_ENODEVICE);
        assert_int_equal(cuda, ZKPIPE_BACKEND_AUTO);
    } else {
        assert_int_equal(st, ZKPIPE_OK);
        assert_int_equal(cuda, ZKPIPE_BACKEND_CUDA);
    }
    assert_int_equal(zkpipe_backend_resolve(NULL, ZKPIPE_BACKEND_CPU, NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_backend_resolve(&b, (zkpipe_backend)7, NULL), ZKPIPE_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(status_strings_are_distinct_and_stable),
        cmocka_unit_test(version_matches_header),
        cmocka_unit_test(default_allocator_aligns),
        cmocka_unit_test(incomplete_allocator_is_rejected),
        cmocka_unit_test(fail_alloc_fails_exactly_once),
        cmocka_unit_test(kept_allocator_reuses_one_block),
        cmocka_unit_test(timespec_add_carries_and_holds_any_timeout),
        cmocka_unit_test(backend_names_parse_and_resolve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
