#include "fail_alloc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "zkpipe/status.h"

static void *fa_alloc(void *ctx, size_t size, size_t align)
{
    fail_alloc *fa = ctx;
    long idx = atomic_fetch_add(&fa->calls, 1);
    if (idx == fa->fail_at)
        return NULL;
    void *p = NULL;
    if (align < sizeof(void *))
        align = sizeof(void *);
    if (posix_memalign(&p, align, size) != 0)
        return NULL;
    atomic_fetch_add(&fa->live, 1);
    return p;
}

static void fa_free(void *ctx, void *ptr)
{
    fail_alloc *fa = ctx;
    atomic_fetch_sub(&fa->live, 1);
    free(ptr);
}

void fail_alloc_init(fail_alloc *fa, long fail_at)
{
    fa->allocator.alloc = fa_alloc;
    fa->allocator.free = fa_free;
    fa->allocator.ctx = fa;
    atomic_store(&fa->calls, 0);
    atomic_store(&fa->live, 0);
    fa->fail_at = fail_at;
}

long fail_alloc_walk(int (*attempt)(void *arg, const zkpipe_allocator *a),
                     void (*cleanup)(void *arg), void *arg)
{
    for (long site = 0;; site++) {
        fail_alloc fa;
        fail_alloc_init(&fa, site);
        int rc = attempt(arg, &fa.allocator);
        if (atomic_load(&fa.calls) <= site) {
            /* No allocation failed: the walk is complete. */
            assert_int_equal(rc, ZKPIPE_OK);
            if (cleanup != NULL)
                cleanup(arg);
            assert_int_equal(atomic_load(&fa.live), 0);
            return site;
        }
        assert_int_equal(rc, ZKPIPE_ENOMEM);
        assert_int_equal(atomic_load(&fa.live), 0);
    }
}
