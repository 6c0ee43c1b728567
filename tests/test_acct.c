/* Accounting: registry, names, ledgers, snapshots and peaks. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "acct/charged_alloc.h"
#include "fail_alloc.h"
#include "zkpipe/zkpipe.h"

#define GIB ((uint64_t)1 << 30)

static zkpipe_snapshot snap_of(zkpipe_acct *acct)
{
    zkpipe_snapshot s;
    assert_int_equal(zkpipe_acct_snapshot(acct, &s), ZKPIPE_OK);
    return s;
}

static zkpipe_acct *new_acct(void)
{
    zkpipe_acct *acct = NULL;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    assert_non_null(acct);
    return acct;
}

static int create_attempt(void *arg, const zkpipe_allocator *a)
{
    return zkpipe_acct_create(a, (zkpipe_acct **)arg);
}

static void create_cleanup(void *arg)
{
    zkpipe_acct_destroy(*(zkpipe_acct **)arg);
}

static void create_and_destroy(void **state)
{
    (void)state;
    zkpipe_acct *acct = (zkpipe_acct *)&acct;
    assert_int_equal(zkpipe_acct_create(NULL, NULL), ZKPIPE_EINVAL);
    zkpipe_allocator half = {NULL, NULL, NULL};
    assert_int_equal(zkpipe_acct_create(&half, &acct), ZKPIPE_EINVAL);
    assert_null(acct);
    assert_int_equal(fail_alloc_walk(create_attempt, create_cleanup, &acct), 1);

    acct = new_acct();
    zkpipe_snapshot s = snap_of(acct);
    assert_int_equal(s.kind_count, ZKPIPE_KIND_BUILTIN_COUNT);
    assert_int_equal(s.stage_count, ZKPIPE_STAGE_BUILTIN_COUNT);
    assert_int_equal(s.live_items, 0);
    assert_int_equal(s.live_bytes, 0);
    zkpipe_acct_destroy(acct);
    zkpipe_acct_destroy(NULL);
}

static void default_registry_is_permanent(void **state)
{
    (void)state;
    zkpipe_acct *d = zkpipe_acct_default();
    assert_non_null(d);
    assert_ptr_equal(d, zkpipe_acct_default());
    zkpipe_acct_destroy(d); /* a no-op: it must still work afterwards */
    zkpipe_ledger l;
    assert_int_equal(zkpipe_ledger_open(&l, d, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_AUX, 100), ZKPIPE_OK);
    zkpipe_snapshot s = snap_of(d);
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].kind[ZKPIPE_KIND_AUX].live_bytes, 100);
    assert_string_equal(zkpipe_acct_stage_name(d, ZKPIPE_STAGE_SYNTH), "synth");
    zkpipe_ledger_close(&l);
    assert_int_equal(snap_of(d).live_bytes, 0);
}

static void builtin_names(void **state)
{
    (void)state;
    zkpipe_acct *acct = new_acct();
    static const char *const kinds[] = {"abc", "aux",    "input",   "density",
                                        "h",   "device", "circuit", "workspace"};
    static const char *const stages[] = {"synth", "pending", "queued", "proving", "finalize"};
    for (uint32_t k = 0; k < ZKPIPE_KIND_BUILTIN_COUNT; k++)
        assert_string_equal(zkpipe_acct_kind_name(acct, k), kinds[k]);
    for (uint32_t s = 0; s < ZKPIPE_STAGE_BUILTIN_COUNT; s++)
        assert_string_equal(zkpipe_acct_stage_name(acct, s), stages[s]);
    assert_null(zkpipe_acct_kind_name(acct, ZKPIPE_KIND_BUILTIN_COUNT));
    assert_null(zkpipe_acct_stage_name(acct, ZKPIPE_STAGE_BUILTIN_COUNT));
    assert_null(zkpipe_acct_kind_name(acct, UINT32_MAX));
    assert_null(zkpipe_acct_kind_name(NULL, 0));
    assert_null(zkpipe_acct_stage_name(NULL, 0));
    zkpipe_snapshot s = snap_of(acct);
    assert_string_equal(s.kind_names[ZKPIPE_KIND_DEVICE], "device");
    assert_string_equal(s.stage_names[ZKPIPE_STAGE_FINALIZE], "finalize");
    assert_string_equal(s.kind_names[ZKPIPE_KIND_BUILTIN_COUNT], "");
    zkpipe_acct_destroy(acct);
}

static void register_names(void **state)
{
    (void)state;
    zkpipe_acct *acct = new_acct();
    uint32_t id = 99;
    assert_int_equal(zkpipe_acct_register_kind(acct, "h", &id), ZKPIPE_OK);
    assert_int_equal(id, ZKPIPE_KIND_H);
    assert_int_equal(zkpipe_acct_register_stage(acct, "queued", &id), ZKPIPE_OK);
    assert_int_equal(id, ZKPIPE_STAGE_QUEUED);
    assert_int_equal(zkpipe_acct_register_kind(acct, "msm_scratch", &id), ZKPIPE_OK);
    assert_int_equal(id, ZKPIPE_KIND_BUILTIN_COUNT);
    assert_string_equal(zkpipe_acct_kind_name(acct, id), "msm_scratch");
    assert_int_equal(zkpipe_acct_register_kind(acct, "msm_scratch", &id), ZKPIPE_OK);
    assert_int_equal(id, ZKPIPE_KIND_BUILTIN_COUNT);
    assert_int_equal(zkpipe_acct_register_stage(acct, "upload_2", &id), ZKPIPE_OK);
    assert_int_equal(id, ZKPIPE_STAGE_BUILTIN_COUNT);
    assert_string_equal(zkpipe_acct_stage_name(acct, id), "upload_2");

    char longest[ZKPIPE_ACCT_NAME_MAX + 2];
    memset(longest, 'z', sizeof longest);
    longest[ZKPIPE_ACCT_NAME_MAX + 1] = '\0';
    static const char *const bad[] = {"", "Abc", "a-b", "a b", "caf\xc3\xa9", "x\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        id = 77;
        assert_int_equal(zkpipe_acct_register_kind(acct, bad[i], &id), ZKPIPE_EINVAL);
        assert_int_equal(zkpipe_acct_register_stage(acct, bad[i], &id), ZKPIPE_EINVAL);
        assert_int_equal(id, 77);
    }
    assert_int_equal(zkpipe_acct_register_kind(acct, longest, &id), ZKPIPE_EINVAL);
    longest[ZKPIPE_ACCT_NAME_MAX] = '\0';
    assert_int_equal(zkpipe_acct_register_kind(acct, longest, &id), ZKPIPE_OK);
    assert_string_equal(zkpipe_acct_kind_name(acct, id), longest);

    assert_int_equal(zkpipe_acct_register_kind(NULL, "x", &id), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_acct_register_kind(acct, NULL, &id), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_acct_register_kind(acct, "x", NULL), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_acct_register_stage(NULL, "x", &id), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_acct_register_stage(acct, NULL, &id), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_acct_register_stage(acct, "x", NULL), ZKPIPE_EINVAL);
    zkpipe_acct_destroy(acct);
}

static void register_until_full(void **state)
{
    (void)state;
    zkpipe_acct *acct = new_acct();
    char name[16];
    uint32_t id;
    for (uint32_t k = ZKPIPE_KIND_BUILTIN_COUNT; k < ZKPIPE_KIND_MAX; k++) {
        snprintf(name, sizeof name, "kind_%u", (unsigned)k);
        assert_int_equal(zkpipe_acct_register_kind(acct, name, &id), ZKPIPE_OK);
        assert_int_equal(id, k);
    }
    id = 42;
    assert_int_equal(zkpipe_acct_register_kind(acct, "one_more", &id), ZKPIPE_ELIMIT);
    assert_int_equal(id, 42);
    snprintf(name, sizeof name, "kind_%u", (unsigned)ZKPIPE_KIND_BUILTIN_COUNT);
    assert_int_equal(zkpipe_acct_register_kind(acct, name, &id), ZKPIPE_OK);
    assert_int_equal(id, ZKPIPE_KIND_BUILTIN_COUNT);
    assert_int_equal(zkpipe_acct_register_kind(acct, "abc", &id), ZKPIPE_OK);
    assert_int_equal(id, ZKPIPE_KIND_ABC);
    for (uint32_t s = ZKPIPE_STAGE_BUILTIN_COUNT; s < ZKPIPE_STAGE_MAX; s++) {
        snprintf(name, sizeof name, "stage_%u", (unsigned)s);
        assert_int_equal(zkpipe_acct_register_stage(acct, name, &id), ZKPIPE_OK);
        assert_int_equal(id, s);
    }
    assert_int_equal(zkpipe_acct_register_stage(acct, "one_more", &id), ZKPIPE_ELIMIT);

    zkpipe_snapshot s = snap_of(acct);
    assert_int_equal(s.kind_count, ZKPIPE_KIND_MAX);
    assert_int_equal(s.stage_count, ZKPIPE_STAGE_MAX);
    assert_string_equal(s.kind_names[ZKPIPE_KIND_MAX - 1], "kind_15");
    assert_string_equal(s.stage_names[ZKPIPE_STAGE_MAX - 1], "stage_11");

    /* Registered ids work in ledgers like built-in ones. */
    zkpipe_ledger l;
    assert_int_equal(zkpipe_ledger_open(&l, acct, ZKPIPE_STAGE_MAX - 1), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_MAX - 1, 5), ZKPIPE_OK);
    s = snap_of(acct);
    assert_int_equal(s.stage[ZKPIPE_STAGE_MAX - 1].kind[ZKPIPE_KIND_MAX - 1].live_bytes, 5);
    assert_int_equal(s.stage[ZKPIPE_STAGE_MAX - 1].live_items, 1);
    zkpipe_ledger_close(&l);
    zkpipe_acct_destroy(acct);
}

/* What a hook saw: the registry's live bytes at each call, and the ledger's totals. */
typedef struct hook_log {
    zkpipe_acct *acct;
    int calls;
    uint64_t before[4], after[4], registry[4];
} hook_log;

static void log_hook(void *ctx, uint64_t before, uint64_t after)
{
    hook_log *h = ctx;
    if (h->calls < 4) {
        h->before[h->calls] = before;
        h->after[h->calls] = after;
        h->registry[h->calls] = snap_of(h->acct).live_bytes;
    }
    h->calls++;
}

/* The hook runs before the counters change for a charge (a reservation grows first, so no
 * counter shows bytes it does not cover) and after them for a release; a refused charge or
 * release, a move and the close call it not at all. */
static void hook_runs_before_a_charge_and_after_a_release(void **state)
{
    (void)state;
    zkpipe_acct *acct = new_acct();
    zkpipe_ledger l;
    assert_int_equal(zkpipe_ledger_open(&l, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    hook_log h = {.acct = acct};
    assert_int_equal(zkpipe_ledger_set_hook(&l, log_hook, &h), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_ABC, 100), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_AUX, 50), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_AUX, UINT64_MAX), ZKPIPE_EOVERFLOW);
    assert_int_equal(zkpipe_ledger_release(&l, ZKPIPE_KIND_H, 1), ZKPIPE_EUNDERFLOW);
    assert_int_equal(zkpipe_ledger_move(&l, ZKPIPE_STAGE_PENDING), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_release(&l, ZKPIPE_KIND_ABC, 100), ZKPIPE_OK);
    assert_int_equal(h.calls, 3);
    assert_int_equal(h.before[0], 0);
    assert_int_equal(h.after[0], 100);
    assert_int_equal(h.registry[0], 0); /* not counted yet */
    assert_int_equal(h.before[1], 100);
    assert_int_equal(h.after[1], 150);
    assert_int_equal(h.registry[1], 100);
    assert_int_equal(h.before[2], 150);
    assert_int_equal(h.after[2], 50);
    assert_int_equal(h.registry[2], 50); /* no longer counted */
    zkpipe_ledger_close(&l);
    assert_int_equal(h.calls, 3);
    zkpipe_acct_destroy(acct);
}

static void ledger_open_and_close(void **state)
{
    (void)state;
    zkpipe_acct *acct = new_acct();
    zkpipe_ledger l;
    memset(&l, 0xff, sizeof l); /* open must not depend on the old contents */
    assert_int_equal(zkpipe_ledger_open(NULL, acct, 0), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_ledger_open(&l, NULL, 0), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_ledger_open(&l, acct, ZKPIPE_STAGE_BUILTIN_COUNT), ZKPIPE_EINVAL);
    assert_int_equal(snap_of(acct).live_items, 0);

    assert_int_equal(zkpipe_ledger_open(&l, acct, ZKPIPE_STAGE_PENDING), ZKPIPE_OK);
    assert_true(zkpipe_ledger_is_open(&l));
    assert_int_equal(zkpipe_ledger_stage(&l), ZKPIPE_STAGE_PENDING);
    zkpipe_snapshot s = snap_of(acct);
    assert_int_equal(s.live_items, 1);
    assert_int_equal(s.stage[ZKPIPE_STAGE_PENDING].live_items, 1);
    assert_int_equal(s.stage[ZKPIPE_STAGE_PENDING].entered, 1);
    assert_int_equal(s.stage[ZKPIPE_STAGE_PENDING].left, 0);
    assert_int_equal(s.stage[ZKPIPE_STAGE_PENDING].peak_items, 1);
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].entered, 0);

    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_ABC, 3 * GIB), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_ABC, 0), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_DENSITY, 10), ZKPIPE_OK);
    zkpipe_ledger_close(&l);
    assert_false(zkpipe_ledger_is_open(&l));
    s = snap_of(acct);
    assert_int_equal(s.live_items, 0);
    assert_int_equal(s.live_bytes, 0);
    assert_int_equal(s.peak_bytes, 3 * GIB + 10);
    assert_int_equal(s.stage[ZKPIPE_STAGE_PENDING].live_items, 0);
    assert_int_equal(s.stage[ZKPIPE_STAGE_PENDING].left, 1);
    assert_int_equal(s.stage[ZKPIPE_STAGE_PENDING].kind[ZKPIPE_KIND_ABC].live_buffers, 0);
    assert_int_equal(s.stage[ZKPIPE_STAGE_PENDING].kind[ZKPIPE_KIND_ABC].peak_buffers, 2);
    assert_int_equal(s.stage[ZKPIPE_STAGE_PENDING].kind[ZKPIPE_KIND_DENSITY].live_bytes, 0);

    /* Closing again, a zero-filled ledger, or NULL changes nothing. */
    zkpipe_ledger_close(&l);
    zkpipe_ledger zero;
    memset(&zero, 0, sizeof zero);
    zkpipe_ledger_close(&zero);
    zkpipe_ledger_close(NULL);
    zkpipe_snapshot after = snap_of(acct);
    assert_memory_equal(&s, &after, sizeof s);
    assert_false(zkpipe_ledger_is_open(&zero));
    assert_false(zkpipe_ledger_is_open(NULL));
    assert_int_equal(zkpipe_ledger_stage(NULL), UINT32_MAX);

    /* A closed ledger refuses everything but close and can be opened again. */
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_ABC, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_ledger_release(&l, ZKPIPE_KIND_ABC, 0), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_ledger_move(&l, ZKPIPE_STAGE_SYNTH), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_ledger_open(&l, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    assert_int_equal(snap_of(acct).stage[ZKPIPE_STAGE_SYNTH].live_items, 1);
    zkpipe_ledger_close(&l);
    zkpipe_acct_destroy(acct);
}

static void charge_and_release(void **state)
{
    (void)state;
    zkpipe_acct *acct = new_acct();
    zkpipe_ledger l;
    assert_int_equal(zkpipe_ledger_open(&l, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(NULL, ZKPIPE_KIND_ABC, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_BUILTIN_COUNT, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_ledger_release(NULL, ZKPIPE_KIND_ABC, 1), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_ledger_release(&l, ZKPIPE_KIND_BUILTIN_COUNT, 0), ZKPIPE_EINVAL);

    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_ABC, 4 * GIB), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_ABC, 4 * GIB), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_AUX, 1 * GIB), ZKPIPE_OK);
    zkpipe_snapshot s = snap_of(acct);
    const zkpipe_snapshot_stage *st = &s.stage[ZKPIPE_STAGE_SYNTH];
    assert_int_equal(st->kind[ZKPIPE_KIND_ABC].live_buffers, 2);
    assert_int_equal(st->kind[ZKPIPE_KIND_ABC].live_bytes, 8 * GIB);
    assert_int_equal(st->kind[ZKPIPE_KIND_AUX].live_buffers, 1);
    assert_int_equal(st->live_buffers, 3);
    assert_int_equal(st->live_bytes, 9 * GIB);
    assert_int_equal(s.live_bytes, 9 * GIB);
    assert_int_equal(s.peak_bytes, 9 * GIB);

    /* Underflow: more bytes than charged, or no live buffer; nothing may change. */
    assert_int_equal(zkpipe_ledger_release(&l, ZKPIPE_KIND_ABC, 8 * GIB + 1), ZKPIPE_EUNDERFLOW);
    assert_int_equal(zkpipe_ledger_release(&l, ZKPIPE_KIND_H, 0), ZKPIPE_EUNDERFLOW);
    assert_int_equal(zkpipe_ledger_release(&l, ZKPIPE_KIND_AUX, 1 * GIB + 1), ZKPIPE_EUNDERFLOW);
    zkpipe_snapshot after = snap_of(acct);
    assert_memory_equal(&s, &after, sizeof s);
    assert_int_equal(l.buffers[ZKPIPE_KIND_ABC], 2);
    assert_int_equal(l.bytes[ZKPIPE_KIND_ABC], 8 * GIB);

    assert_int_equal(zkpipe_ledger_release(&l, ZKPIPE_KIND_ABC, 4 * GIB), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_release(&l, ZKPIPE_KIND_AUX, 1 * GIB), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_release(&l, ZKPIPE_KIND_AUX, 0), ZKPIPE_EUNDERFLOW);
    assert_int_equal(l.kinds_used, 1u << ZKPIPE_KIND_ABC);
    s = snap_of(acct);
    assert_int_equal(s.live_bytes, 4 * GIB);
    assert_int_equal(s.peak_bytes, 9 * GIB);
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].kind[ZKPIPE_KIND_ABC].live_buffers, 1);
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].kind[ZKPIPE_KIND_ABC].peak_buffers, 2);
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].kind[ZKPIPE_KIND_AUX].live_bytes, 0);

    /* Releasing fewer bytes than the buffer held leaves the rest charged to the kind. */
    assert_int_equal(zkpipe_ledger_release(&l, ZKPIPE_KIND_ABC, 3 * GIB), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_release(&l, ZKPIPE_KIND_ABC, 0), ZKPIPE_EUNDERFLOW);
    assert_int_equal(snap_of(acct).live_bytes, 1 * GIB);
    zkpipe_ledger_close(&l);
    assert_int_equal(snap_of(acct).live_bytes, 0);
    zkpipe_acct_destroy(acct);
}

static void charge_overflow(void **state)
{
    (void)state;
    zkpipe_acct *acct = new_acct();
    zkpipe_ledger l;
    assert_int_equal(zkpipe_ledger_open(&l, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_ABC, UINT64_MAX - 10), ZKPIPE_OK);
    zkpipe_snapshot s = snap_of(acct);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_AUX, 11), ZKPIPE_EOVERFLOW);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_ABC, UINT64_MAX), ZKPIPE_EOVERFLOW);
    zkpipe_snapshot after = snap_of(acct);
    assert_memory_equal(&s, &after, sizeof s);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_AUX, 10), ZKPIPE_OK);
    assert_int_equal(snap_of(acct).live_bytes, UINT64_MAX);
    zkpipe_ledger_close(&l);
    assert_int_equal(snap_of(acct).live_bytes, 0);
    zkpipe_acct_destroy(acct);
}

/* The charging allocator: each block is charged with its header while it lives; a failed
 * allocation or charge leaves nothing charged or held. */
static void charged_allocator(void **state)
{
    (void)state;
    zkpipe_acct *acct = new_acct();
    zkpipe_ledger l;
    fail_alloc fa;
    fail_alloc_init(&fa, -1);
    assert_int_equal(zkpipe_ledger_open(&l, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    zkpipe__charged c = {fa.allocator, &l, ZKPIPE_KIND_CIRCUIT};
    zkpipe_allocator a = zkpipe__charged_allocator(&c);
    void *small = a.alloc(a.ctx, 10, 8);
    void *wide = a.alloc(a.ctx, 100, 256);
    assert_non_null(small);
    assert_non_null(wide);
    assert_int_equal((uintptr_t)small % 8, 0);
    assert_int_equal((uintptr_t)wide % 256, 0);
    memset(small, 1, 10);
    memset(wide, 2, 100);
    zkpipe_snapshot s = snap_of(acct);
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].kind[ZKPIPE_KIND_CIRCUIT].live_buffers, 2);
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].kind[ZKPIPE_KIND_CIRCUIT].live_bytes,
                     (10 + 16) + (100 + 256));
    a.free(a.ctx, wide);
    s = snap_of(acct);
    assert_int_equal(s.live_bytes, 10 + 16);
    assert_null(a.alloc(a.ctx, SIZE_MAX - 8, 16)); /* size and header overflow */
    fail_alloc_init(&fa, 0);
    assert_null(a.alloc(a.ctx, 10, 8)); /* the block itself fails */
    a.free(a.ctx, small);
    s = snap_of(acct);
    assert_int_equal(s.live_bytes, 0);
    assert_int_equal(s.peak_bytes, (10 + 16) + (100 + 256));
    zkpipe_ledger_close(&l);
    fail_alloc_init(&fa, -1);
    assert_null(a.alloc(a.ctx, 10, 8)); /* a closed ledger refuses the charge */
    assert_int_equal(atomic_load(&fa.live), 0);
    assert_int_equal(atomic_load(&fa.calls), 1);
    /* with no ledger it is the base allocator itself */
    zkpipe__charged none = {fa.allocator, NULL, ZKPIPE_KIND_CIRCUIT};
    zkpipe_allocator plain = zkpipe__charged_allocator(&none);
    assert_ptr_equal(plain.alloc, fa.allocator.alloc);
    assert_ptr_equal(plain.free, fa.allocator.free);
    assert_ptr_equal(plain.ctx, fa.allocator.ctx);
    zkpipe_acct_destroy(acct);
}

static void move_carries_every_kind(void **state)
{
    (void)state;
    zkpipe_acct *acct = new_acct();
    zkpipe_ledger l;
    assert_int_equal(zkpipe_ledger_open(&l, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_ABC, 300), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_ABC, 200), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_INPUT, 7), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l, ZKPIPE_KIND_DEVICE, 0), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_move(NULL, ZKPIPE_STAGE_QUEUED), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_ledger_move(&l, ZKPIPE_STAGE_BUILTIN_COUNT), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_ledger_stage(&l), ZKPIPE_STAGE_SYNTH);

    assert_int_equal(zkpipe_ledger_move(&l, ZKPIPE_STAGE_QUEUED), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_stage(&l), ZKPIPE_STAGE_QUEUED);
    zkpipe_snapshot s = snap_of(acct);
    const zkpipe_snapshot_stage *from = &s.stage[ZKPIPE_STAGE_SYNTH];
    const zkpipe_snapshot_stage *to = &s.stage[ZKPIPE_STAGE_QUEUED];
    assert_int_equal(from->live_items, 0);
    assert_int_equal(from->left, 1);
    assert_int_equal(from->live_buffers, 0);
    assert_int_equal(from->live_bytes, 0);
    assert_int_equal(from->kind[ZKPIPE_KIND_ABC].peak_bytes, 500);
    assert_int_equal(to->live_items, 1);
    assert_int_equal(to->entered, 1);
    assert_int_equal(to->kind[ZKPIPE_KIND_ABC].live_buffers, 2);
    assert_int_equal(to->kind[ZKPIPE_KIND_ABC].live_bytes, 500);
    assert_int_equal(to->kind[ZKPIPE_KIND_INPUT].live_bytes, 7);
    assert_int_equal(to->kind[ZKPIPE_KIND_DEVICE].live_buffers, 1);
    assert_int_equal(to->kind[ZKPIPE_KIND_DEVICE].peak_buffers, 1);
    assert_int_equal(to->live_bytes, 507);
    assert_int_equal(s.live_bytes, 507);
    assert_int_equal(s.live_items, 1);

    /* A move to the current stage counts as leaving and entering it, nothing else. */
    assert_int_equal(zkpipe_ledger_move(&l, ZKPIPE_STAGE_QUEUED), ZKPIPE_OK);
    zkpipe_snapshot again = snap_of(acct);
    assert_int_equal(again.stage[ZKPIPE_STAGE_QUEUED].entered, 2);
    assert_int_equal(again.stage[ZKPIPE_STAGE_QUEUED].left, 1);
    assert_int_equal(again.stage[ZKPIPE_STAGE_QUEUED].live_items, 1);
    assert_int_equal(again.stage[ZKPIPE_STAGE_QUEUED].peak_items, 1);
    assert_int_equal(again.stage[ZKPIPE_STAGE_QUEUED].live_bytes, 507);
    assert_int_equal(again.stage[ZKPIPE_STAGE_QUEUED].kind[ZKPIPE_KIND_ABC].peak_buffers, 2);

    zkpipe_ledger_close(&l);
    s = snap_of(acct);
    assert_int_equal(s.stage[ZKPIPE_STAGE_QUEUED].live_bytes, 0);
    assert_int_equal(s.stage[ZKPIPE_STAGE_QUEUED].live_buffers, 0);
    assert_int_equal(s.stage[ZKPIPE_STAGE_QUEUED].left, 2);
    zkpipe_acct_destroy(acct);
}

/* acct.h: an open ledger may be moved by memcpy between calls; the old copy is forgotten. */
static void open_ledger_moves_by_memcpy(void **state)
{
    (void)state;
    zkpipe_acct *acct = new_acct();
    zkpipe_ledger *first = test_malloc(sizeof *first);
    assert_int_equal(zkpipe_ledger_open(first, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(first, ZKPIPE_KIND_ABC, 4096), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(first, ZKPIPE_KIND_AUX, 64), ZKPIPE_OK);
    zkpipe_ledger moved[3];
    memcpy(&moved[1], first, sizeof *first);
    memset(first, 0xa5, sizeof *first);
    test_free(first);

    assert_int_equal(zkpipe_ledger_move(&moved[1], ZKPIPE_STAGE_QUEUED), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_release(&moved[1], ZKPIPE_KIND_AUX, 64), ZKPIPE_OK);
    memcpy(&moved[2], &moved[1], sizeof moved[1]);
    assert_int_equal(zkpipe_ledger_charge(&moved[2], ZKPIPE_KIND_H, 100), ZKPIPE_OK);
    zkpipe_snapshot s = snap_of(acct);
    assert_int_equal(s.live_items, 1);
    assert_int_equal(s.stage[ZKPIPE_STAGE_QUEUED].live_bytes, 4196);
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].live_items, 0);
    zkpipe_ledger_close(&moved[2]);
    s = snap_of(acct);
    assert_int_equal(s.live_items, 0);
    assert_int_equal(s.live_bytes, 0);
    assert_int_equal(s.stage[ZKPIPE_STAGE_QUEUED].live_buffers, 0);
    zkpipe_acct_destroy(acct);
}

static void peaks_hold_until_reset(void **state)
{
    (void)state;
    zkpipe_acct *acct = new_acct();
    assert_int_equal(zkpipe_acct_reset_peaks(NULL), ZKPIPE_EINVAL);
    zkpipe_ledger a, b;
    assert_int_equal(zkpipe_ledger_open(&a, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_open(&b, acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&a, ZKPIPE_KIND_ABC, 10), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&b, ZKPIPE_KIND_ABC, 20), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_move(&a, ZKPIPE_STAGE_PROVING), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_release(&a, ZKPIPE_KIND_ABC, 10), ZKPIPE_OK);
    zkpipe_snapshot s = snap_of(acct);
    assert_int_equal(s.peak_bytes, 30);
    assert_int_equal(s.live_bytes, 20);
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].peak_items, 2);
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].live_items, 1);
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].kind[ZKPIPE_KIND_ABC].peak_bytes, 30);
    assert_int_equal(s.stage[ZKPIPE_STAGE_PROVING].kind[ZKPIPE_KIND_ABC].peak_bytes, 10);

    assert_int_equal(zkpipe_acct_reset_peaks(acct), ZKPIPE_OK);
    s = snap_of(acct);
    assert_int_equal(s.peak_bytes, 20);
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].peak_items, 1);
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].kind[ZKPIPE_KIND_ABC].peak_bytes, 20);
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].kind[ZKPIPE_KIND_ABC].peak_buffers, 1);
    assert_int_equal(s.stage[ZKPIPE_STAGE_PROVING].kind[ZKPIPE_KIND_ABC].peak_bytes, 0);
    assert_int_equal(s.stage[ZKPIPE_STAGE_PROVING].peak_items, 1);
    /* Totals survive a reset. */
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].entered, 2);
    assert_int_equal(s.stage[ZKPIPE_STAGE_SYNTH].left, 1);

    assert_int_equal(zkpipe_ledger_charge(&b, ZKPIPE_KIND_H, 5), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_release(&b, ZKPIPE_KIND_H, 5), ZKPIPE_OK);
    assert_int_equal(snap_of(acct).peak_bytes, 25);
    zkpipe_ledger_close(&a);
    zkpipe_ledger_close(&b);
    zkpipe_acct_destroy(acct);
}

static void snapshot_rejects_null(void **state)
{
    (void)state;
    zkpipe_snapshot s;
    assert_int_equal(zkpipe_acct_snapshot(NULL, &s), ZKPIPE_EINVAL);
    assert_int_equal(zkpipe_acct_snapshot(zkpipe_acct_default(), NULL), ZKPIPE_EINVAL);
}

typedef zkpipe_status (*exporter)(char *, size_t, size_t *, const zkpipe_snapshot *);

/* The exporter's whole text, sized by a first call with cap 0; the caller frees it. */
static char *render(exporter fn, const zkpipe_snapshot *snap)
{
    size_t len = 0;
    assert_int_equal(fn(NULL, 0, &len, snap), ZKPIPE_OK);
    char *text = malloc(len + 1);
    assert_non_null(text);
    size_t again = 0;
    assert_int_equal(fn(text, len + 1, &again, snap), ZKPIPE_OK);
    assert_int_equal(again, len);
    assert_int_equal(strlen(text), len);
    return text;
}

/* The state of the example in the header: 4 GiB of a/b/c per item, one item's extra 4 GiB
 * released again so that the peak stays above the live total. */
static void example_state(zkpipe_acct *acct, zkpipe_ledger l[7])
{
    static const uint32_t where[7] = {0, 0, 0, 1, 2, 2, 3};
    for (int i = 0; i < 7; i++) {
        assert_int_equal(zkpipe_ledger_open(&l[i], acct, where[i]), ZKPIPE_OK);
        assert_int_equal(zkpipe_ledger_charge(&l[i], ZKPIPE_KIND_ABC, 4 * GIB), ZKPIPE_OK);
    }
    assert_int_equal(zkpipe_ledger_charge(&l[0], ZKPIPE_KIND_H, 4 * GIB), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_release(&l[0], ZKPIPE_KIND_H, 4 * GIB), ZKPIPE_OK);
}

static void close_all(zkpipe_ledger *l, int n)
{
    for (int i = 0; i < n; i++)
        zkpipe_ledger_close(&l[i]);
}

static void exporters_reject_bad_arguments(void **state)
{
    (void)state;
    static const exporter fns[] = {zkpipe_snapshot_summary, zkpipe_snapshot_json,
                                   zkpipe_snapshot_prometheus};
    zkpipe_snapshot s = snap_of(zkpipe_acct_default());
    char buf[8];
    size_t len = 0;
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        assert_int_equal(fns[i](buf, sizeof buf, &len, NULL), ZKPIPE_EINVAL);
        assert_int_equal(fns[i](buf, sizeof buf, NULL, &s), ZKPIPE_EINVAL);
        assert_int_equal(fns[i](NULL, 1, &len, &s), ZKPIPE_EINVAL);
        zkpipe_snapshot bad = s;
        bad.kind_count = ZKPIPE_KIND_MAX + 1;
        assert_int_equal(fns[i](buf, sizeof buf, &len, &bad), ZKPIPE_EINVAL);
        bad = s;
        bad.stage_count = ZKPIPE_STAGE_MAX + 1;
        assert_int_equal(fns[i](buf, sizeof buf, &len, &bad), ZKPIPE_EINVAL);
        bad = s;
        strcpy(bad.stage_names[1], "Pending");
        assert_int_equal(fns[i](buf, sizeof buf, &len, &bad), ZKPIPE_EINVAL);
        bad = s;
        memset(bad.kind_names[2], 'x', sizeof bad.kind_names[2]); /* unterminated */
        assert_int_equal(fns[i](buf, sizeof buf, &len, &bad), ZKPIPE_EINVAL);
        bad = s;
        bad.kind_names[0][0] = '\0';
        assert_int_equal(fns[i](buf, sizeof buf, &len, &bad), ZKPIPE_EINVAL);
    }
}

static void summary_line(void **state)
{
    (void)state;
    zkpipe_acct *acct = new_acct();
    zkpipe_ledger l[7];
    example_state(acct, l);
    zkpipe_snapshot s = snap_of(acct);
    char *text = render(zkpipe_snapshot_summary, &s);
    assert_string_equal(text, "synth=3 (12.0 GiB) pending=1 (4.0 GiB) queued=2 (8.0 GiB) "
                              "proving=1 (4.0 GiB) finalize=0 (0 B) live=28.0 GiB peak=32.0 GiB");

    /* Truncation: a prefix, NUL-terminated, and the full length still reported. */
    char small[10];
    size_t len = 0;
    memset(small, '#', sizeof small);
    assert_int_equal(zkpipe_snapshot_summary(small, sizeof small, &len, &s), ZKPIPE_OK);
    assert_int_equal(len, strlen(text));
    assert_string_equal(small, "synth=3 (");
    len = 0;
    assert_int_equal(zkpipe_snapshot_summary(small, 1, &len, &s), ZKPIPE_OK);
    assert_string_equal(small, "");
    assert_int_equal(len, strlen(text));
    free(text);
    close_all(l, 7);

    /* Units below a KiB are exact; above, one decimal of the largest binary unit. */
    assert_int_equal(zkpipe_ledger_open(&l[0], acct, ZKPIPE_STAGE_SYNTH), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l[0], ZKPIPE_KIND_ABC, 1023), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_open(&l[1], acct, ZKPIPE_STAGE_QUEUED), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l[1], ZKPIPE_KIND_ABC, 1536), ZKPIPE_OK);
    uint32_t upload;
    assert_int_equal(zkpipe_acct_register_stage(acct, "upload", &upload), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_open(&l[2], acct, upload), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l[2], ZKPIPE_KIND_DEVICE, 3ull << 40), ZKPIPE_OK);
    assert_int_equal(zkpipe_acct_reset_peaks(acct), ZKPIPE_OK);
    s = snap_of(acct);
    text = render(zkpipe_snapshot_summary, &s);
    assert_string_equal(text, "synth=1 (1023 B) pending=0 (0 B) queued=1 (1.5 KiB) proving=0 (0 B) "
                              "finalize=0 (0 B) upload=1 (3.0 TiB) live=3.0 TiB peak=3.0 TiB");
    free(text);
    close_all(l, 3);
    zkpipe_acct_destroy(acct);
}

/* Feeds `text` to a shell command's standard input; returns its exit status, or -1. */
static int pipe_to(const char *command, const char *text)
{
    signal(SIGPIPE, SIG_IGN); /* a checker that stops reading must fail the check, not us */
    FILE *p = popen(command, "w");
    if (p == NULL)
        return -1;
    fputs(text, p);
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int have_command(const char *name)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
    return system(cmd) == 0;
}

static void json_export(void **state)
{
    (void)state;
    zkpipe_acct *acct = new_acct();
    zkpipe_ledger l[7];
    example_state(acct, l);
    uint32_t scratch;
    assert_int_equal(zkpipe_acct_register_kind(acct, "scratch", &scratch), ZKPIPE_OK);
    assert_int_equal(zkpipe_ledger_charge(&l[6], scratch, 5), ZKPIPE_OK);
    zkpipe_snapshot s = snap_of(acct);
    char *text = render(zkpipe_snapshot_json, &s);
    assert_true(strncmp(text,
                        "{\"live_items\":7,\"live_bytes\":30064771077,"
                        "\"peak_bytes\":34359738368,\"stages\":{\"synth\":{",
                        strlen("{\"live_items\":7,\"live_bytes\":30064771077,"
                               "\"peak_bytes\":34359738368,\"stages\":{\"synth\":{")) == 0);
    assert_non_null(strstr(text, "\"synth\":{\"live_items\":3,\"peak_items\":3,\"entered\":3,"
                                 "\"left\":0,\"live_buffers\":3,\"live_bytes\":12884901888,"
                                 "\"kinds\":{\"abc\":{\"live_buffers\":3,\"live_bytes\":"
                                 "12884901888,\"peak_buffers\":3,\"peak_bytes\":12884901888},"));
    assert_non_null(strstr(text, "\"scratch\":{\"live_buffers\":1,\"live_bytes\":5,"
                                 "\"peak_buffers\":1,\"peak_bytes\":5}}},\"finalize\":{"));
    const char *end = "\"scratch\":{\"live_buffers\":0,\"live_bytes\":0,\"peak_buffers\":0,"
                      "\"peak_bytes\":0}}}}}\n";
    assert_string_equal(text + strlen(text) - strlen(end), end);
    assert_non_null(strstr(text, "\"finalize\":{\"live_items\":0,"));
    if (have_command("python3")) {
        assert_int_equal(pipe_to("python3 -m json.tool >/dev/null", text), 0);
        /* The checker itself must reject broken JSON, or the check above proves nothing. */
        text[strlen(text) - 2] = '\0';
        assert_int_not_equal(pipe_to("python3 -m json.tool >/dev/null 2>&1", text), 0);
    } else {
        printf("json_export: python3 not on PATH, JSON parse check skipped\n");
    }
    free(text);
    close_all(l, 7);
    zkpipe_acct_destroy(acct);
}

static void prometheus_export(void **state)
{
    (void)state;
    zkpipe_acct *acct = new_acct();
    zkpipe_ledger l[7];
    example_state(acct, l);
    assert_int_equal(zkpipe_ledger_move(&l[6], ZKPIPE_STAGE_FINALIZE), ZKPIPE_OK);
    zkpipe_snapshot s = snap_of(acct);
    char *text = render(zkpipe_snapshot_prometheus, &s);
    static const char *const expected[] = {
        "# HELP zkpipe_inflight_bytes ",
        "# TYPE zkpipe_inflight_bytes gauge\nzkpipe_inflight_bytes 30064771072\n",
        "# TYPE zkpipe_inflight_peak_bytes gauge\nzkpipe_inflight_peak_bytes 34359738368\n",
        "# TYPE zkpipe_inflight_items gauge\nzkpipe_inflight_items 7\n",
        "# TYPE zkpipe_stage_items gauge\nzkpipe_stage_items{stage=\"synth\"} 3\n",
        "# TYPE zkpipe_stage_entered_total counter\n",
        "zkpipe_stage_entered_total{stage=\"proving\"} 1\n",
        "zkpipe_stage_left_total{stage=\"proving\"} 1\n",
        "zkpipe_stage_items{stage=\"finalize\"} 1\n",
        "zkpipe_buffer_bytes{stage=\"queued\",kind=\"abc\"} 8589934592\n",
        "zkpipe_peak_buffer_bytes{stage=\"synth\",kind=\"h\"} 4294967296\n",
        "zkpipe_buffers{stage=\"finalize\",kind=\"device\"} 0\n",
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        if (strstr(text, expected[i]) == NULL)
            fail_msg("missing from the exposition: %s", expected[i]);
    }
    if (have_command("promtool")) {
        assert_int_equal(pipe_to("promtool check metrics", text), 0);
        /* promtool must catch a broken family, or the check above proves nothing. */
        assert_int_not_equal(
            pipe_to("promtool check metrics 2>/dev/null", "# TYPE zkpipe_x counter\nzkpipe_x 1\n"),
            0);
    } else {
        printf("prometheus_export: promtool not on PATH (Debian: apt-get install prometheus), "
               "promtool check skipped\n");
    }
    free(text);
    close_all(l, 7);
    zkpipe_acct_destroy(acct);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_and_destroy),
        cmocka_unit_test(default_registry_is_permanent),
        cmocka_unit_test(builtin_names),
        cmocka_unit_test(hook_runs_before_a_charge_and_after_a_release),
        cmocka_unit_test(register_names),
        cmocka_unit_test(register_until_full),
        cmocka_unit_test(ledger_open_and_close),
        cmocka_unit_test(charge_and_release),
        cmocka_unit_test(charge_overflow),
        cmocka_unit_test(charged_allocator),
        cmocka_unit_test(move_carries_every_kind),
        cmocka_unit_test(open_ledger_moves_by_memcpy),
        cmocka_unit_test(peaks_hold_until_reset),
        cmocka_unit_test(snapshot_rejects_null),
        cmocka_unit_test(exporters_reject_bad_arguments),
        cmocka_unit_test(summary_line),
        cmocka_unit_test(json_export),
        cmocka_unit_test(prometheus_export),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
