/* The ABI that can grow (README.md, ABI): a caller compiled against the structs as they were
 * first published (frozen copies below, never to be edited) still works with this library;
 * sizes the library cannot know are refused; result structs keep their size. Calls go through
 * the public prototypes with the frozen types, as an old binary's would. Each caller struct
 * sits at the very end of its own heap block, so a library that read past the caller's
 * struct_size would be caught by ASan and valgrind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/struct_size_internal.h"
#include "zkpipe/zkpipe.h"

/* zkpipe_chan_config as first published (0.1). */
typedef struct chan_config_v1 {
    size_t struct_size;
    size_t capacity;
    uint32_t recv_stage;
    zkpipe_ledger *(*ledger_of)(void *item, void *ctx);
    void (*on_send)(void *item, void *ctx);
    void (*on_recv)(void *item, void *ctx);
    void (*destroy_item)(void *item, void *ctx);
    void *ctx;
    const zkpipe_allocator *allocator;
} chan_config_v1;

/* zkpipe_io_options as first published (0.1). */
typedef struct io_options_v1 {
    size_t struct_size;
    zkpipe_pool *pool;
    zkpipe_acct *acct;
    const zkpipe_allocator *allocator;
    unsigned flags;
} io_options_v1;

/* zkpipe_http_config as first published (0.1). */
typedef struct http_config_v1 {
    size_t struct_size;
    const char *address;
    uint16_t port;
    zkpipe_acct *acct;
    zkpipe_prom_options prom;
    unsigned max_connections;
    unsigned timeout_s;
    size_t max_response;
    const zkpipe_allocator *allocator;
} http_config_v1;

/* A caller's struct from newer headers: one more field than this library knows. */
typedef struct io_options_next {
    zkpipe_io_options now;
    uint64_t added_later;
} io_options_next;

/* The current structs start with the frozen layouts, field for field. */
#define SAME_FIELD(cur, old, f)                                                                    \
    _Static_assert(offsetof(cur, f) == offsetof(old, f) &&                                         \
                       sizeof(((cur *)0)->f) == sizeof(((old *)0)->f),                             \
                   #cur "." #f " moved")
SAME_FIELD(zkpipe_chan_config, chan_config_v1, struct_size);
SAME_FIELD(zkpipe_chan_config, chan_config_v1, capacity);
SAME_FIELD(zkpipe_chan_config, chan_config_v1, recv_stage);
SAME_FIELD(zkpipe_chan_config, chan_config_v1, ledger_of);
SAME_FIELD(zkpipe_chan_config, chan_config_v1, on_send);
SAME_FIELD(zkpipe_chan_config, chan_config_v1, on_recv);
SAME_FIELD(zkpipe_chan_config, chan_config_v1, destroy_item);
SAME_FIELD(zkpipe_chan_config, chan_config_v1, ctx);
SAME_FIELD(zkpipe_chan_config, chan_config_v1, allocator);
_Static_assert(sizeof(zkpipe_chan_config) >= sizeof(chan_config_v1), "chan config shrank");
SAME_FIELD(zkpipe_io_options, io_options_v1, struct_size);
SAME_FIELD(zkpipe_io_options, io_options_v1, pool);
SAME_FIELD(zkpipe_io_options, io_options_v1, acct);
SAME_FIELD(zkpipe_io_options, io_options_v1, allocator);
SAME_FIELD(zkpipe_io_options, io_options_v1, flags);
_Static_assert(sizeof(zkpipe_io_options) >= sizeof(io_options_v1), "io options shrank");
SAME_FIELD(zkpipe_http_config, http_config_v1, struct_size);
SAME_FIELD(zkpipe_http_config, http_config_v1, address);
SAME_FIELD(zkpipe_http_config, http_config_v1, port);
SAME_FIELD(zkpipe_http_config, http_config_v1, acct);
SAME_FIELD(zkpipe_http_config, http_config_v1, prom);
SAME_FIELD(zkpipe_http_config, http_config_v1, max_connections);
SAME_FIELD(zkpipe_http_config, http_config_v1, timeout_s);
SAME_FIELD(zkpipe_http_config, http_config_v1, max_response);
SAME_FIELD(zkpipe_http_config, http_config_v1, allocator);
_Static_assert(sizeof(zkpipe_http_config) >= sizeof(http_config_v1), "http config shrank");
/* Results the library writes into a caller's struct never change size: new fields take
 * reserved space (64-bit sizes as first published). */
#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(zkpipe_chan_counters) == 128, "zkpipe_chan_counters changed size");
_Static_assert(sizeof(zkpipe_r1cs_info) == 64, "zkpipe_r1cs_info changed size");
_Static_assert(sizeof(zkpipe_zkey_info) == 64, "zkpipe_zkey_info changed size");
_Static_assert(sizeof(zkpipe_snapshot) == 7776, "zkpipe_snapshot changed size");
_Static_assert(sizeof(zkpipe_histogram_snapshot) == 584, "zkpipe_histogram_snapshot changed size");
_Static_assert(sizeof(zkpipe_http_counters) == 128, "zkpipe_http_counters changed size");
_Static_assert(sizeof(zkpipe_engine_counters) == 288, "zkpipe_engine_counters changed size");
/* Embedded in zkpipe_http_config, so fixed too: new fields take its reserved space. */
_Static_assert(sizeof(zkpipe_prom_options) == 64, "zkpipe_prom_options changed size");
#endif

/* A block of exactly `size` bytes holding a copy of `src`: nothing readable past its end. */
static void *caller_copy(const void *src, size_t size)
{
    void *p = test_malloc(size);
    memcpy(p, src, size);
    return p;
}

static zkpipe_ledger *item_ledger(void *item, void *ctx)
{
    (void)ctx;
    return item;
}

static void chan_config_from_the_first_layout(void **state)
{
    (void)state;
    zkpipe_acct *acct = NULL;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    chan_config_v1 v1;
    memset(&v1, 0, sizeof v1);
    v1.struct_size = sizeof v1;
    v1.capacity = 1;
    v1.recv_stage = ZKPIPE_STAGE_FINALIZE;
    v1.ledger_of = item_ledger;
    chan_config_v1 *cfg = caller_copy(&v1, sizeof v1);
    zkpipe_chan *ch = NULL;
    assert_int_equal(zkpipe_chan_create(&ch, (const zkpipe_chan_config *)cfg), ZKPIPE_OK);
    test_free(cfg);

    /* The fields it gave are honoured: capacity 1, the receive stage, the ledger hook. */
    zkpipe_ledger ledger;
    void *out = NULL;
    assert_int_equal(zkpipe_ledger_open(&ledger, acct, ZKPIPE_STAGE_PENDING), ZKPIPE_OK);
    assert_int_equal(zkpipe_chan_try_send(ch, &ledger, NULL), ZKPIPE_OK);
    assert_int_equal(zkpipe_chan_try_send(ch, &ledger, NULL), ZKPIPE_EAGAIN);
    assert_int_equal(zkpipe_ledger_stage(&ledger), ZKPIPE_STAGE_QUEUED);
    assert_int_equal(zkpipe_chan_recv(ch, &out), ZKPIPE_OK);
    assert_ptr_equal(out, &ledger);
    assert_int_equal(zkpipe_ledger_stage(&ledger), ZKPIPE_STAGE_FINALIZE);
    zkpipe_chan_counters c;
    memset(&c, 0xff, sizeof c);
    assert_int_equal(zkpipe_chan_stats(ch, &c), ZKPIPE_OK);
    for (size_t i = 0; i < sizeof c.reserved / sizeof c.reserved[0]; i++)
        assert_int_equal(c.reserved[i], 0);
    zkpipe_ledger_close(&ledger);
    zkpipe_chan_destroy(ch);
    zkpipe_acct_destroy(acct);
}

static void chan_config_sizes_it_cannot_know(void **state)
{
    (void)state;
    zkpipe_chan_config cfg;
    zkpipe_chan_config_init(&cfg, 4);
    assert_int_equal(cfg.struct_size, sizeof cfg);
    zkpipe_chan *ch = NULL;
    const size_t bad[] = {0,
                          sizeof(size_t),
                          offsetof(zkpipe_chan_config, allocator),
                          sizeof cfg + 1,
                          sizeof cfg + 64,
                          SIZE_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cfg.struct_size = bad[i];
        assert_int_equal(zkpipe_chan_create(&ch, &cfg), ZKPIPE_EINVAL);
        assert_null(ch);
    }
    /* A zero-filled struct, never initialised: refused, not read as capacity 0 defaults. */
    zkpipe_chan_config zero;
    memset(&zero, 0, sizeof zero);
    zero.capacity = 4;
    assert_int_equal(zkpipe_chan_create(&ch, &zero), ZKPIPE_EINVAL);
}

static void io_options_from_the_first_layout(void **state)
{
    (void)state;
    zkpipe_acct *acct = NULL;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    io_options_v1 v1;
    memset(&v1, 0, sizeof v1);
    v1.struct_size = sizeof v1;
    v1.acct = acct;
    io_options_v1 *opts = caller_copy(&v1, sizeof v1);
    char detail[ZKPIPE_IO_DETAIL_MAX];
    static const uint8_t not_r1cs[16] = "not an r1cs file";
    zkpipe_r1cs *r = NULL;
    /* The options are taken (the reader reaches the format check) and their acct is used:
     * opening registered the "loaded" stage there before refusing the bytes. */
    assert_int_equal(zkpipe_r1cs_open_mem(&r, detail, sizeof detail, not_r1cs, sizeof not_r1cs,
                                          (const zkpipe_io_options *)opts),
                     ZKPIPE_EFORMAT);
    assert_null(r);
    uint32_t loaded;
    zkpipe_snapshot before, after;
    assert_int_equal(zkpipe_acct_snapshot(acct, &before), ZKPIPE_OK);
    assert_int_equal(zkpipe_acct_register_stage(acct, "loaded", &loaded), ZKPIPE_OK);
    assert_int_equal(zkpipe_acct_snapshot(acct, &after), ZKPIPE_OK);
    assert_int_equal(before.stage_count, after.stage_count);
    assert_int_equal(after.live_items, 0);
    test_free(opts);

    /* NULL options are the defaults. */
    assert_int_equal(
        zkpipe_r1cs_open_mem(&r, detail, sizeof detail, not_r1cs, sizeof not_r1cs, NULL),
        ZKPIPE_EFORMAT);
    zkpipe_acct_destroy(acct);
}

static void io_options_sizes_it_cannot_know(void **state)
{
    (void)state;
    char detail[ZKPIPE_IO_DETAIL_MAX];
    static const uint8_t bytes[16] = {0};
    zkpipe_zkey *z = NULL;
    io_options_next next;
    memset(&next, 0, sizeof next);
    next.now.struct_size = sizeof next;
    io_options_next *opts = caller_copy(&next, sizeof next);
    assert_int_equal(zkpipe_zkey_open_mem(&z, detail, sizeof detail, bytes, sizeof bytes,
                                          (const zkpipe_io_options *)opts),
                     ZKPIPE_EINVAL);
    assert_non_null(strstr(detail, "options: struct_size"));
    assert_null(z);
    test_free(opts);

    zkpipe_io_options zero;
    memset(&zero, 0, sizeof zero);
    assert_int_equal(zkpipe_zkey_open_mem(&z, detail, sizeof detail, bytes, sizeof bytes, &zero),
                     ZKPIPE_EINVAL);
    zkpipe_io_options init;
    zkpipe_io_options_init(&init);
    zkpipe_io_options_init(NULL);
    assert_int_equal(init.struct_size, sizeof init);
    assert_null(init.pool);
    assert_int_equal(init.flags, 0);
    assert_int_equal(zkpipe_zkey_open_mem(&z, detail, sizeof detail, bytes, sizeof bytes, &init),
                     ZKPIPE_EFORMAT);
}

static void http_config_sizes(void **state)
{
    (void)state;
    zkpipe_http *srv = NULL;
    zkpipe_http_config cfg;
    zkpipe_http_config_init(&cfg);
    assert_int_equal(cfg.struct_size, sizeof cfg);
    const size_t bad[] = {0, sizeof(size_t), sizeof cfg + 8};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cfg.struct_size = bad[i];
        assert_int_equal(zkpipe_http_start(&srv, &cfg), ZKPIPE_EINVAL);
        assert_null(srv);
    }
    /* The first layout is taken: a bad setting inside it is seen (with or without the HTTP
     * endpoint built, a bad size is refused before anything else). */
    http_config_v1 v1;
    memcpy(&v1, &cfg, sizeof v1);
    v1.struct_size = sizeof v1;
    v1.max_connections = 0;
    http_config_v1 *c = caller_copy(&v1, sizeof v1);
    zkpipe_status st = zkpipe_http_start(&srv, (const zkpipe_http_config *)c);
    assert_true(st == ZKPIPE_EINVAL || st == ZKPIPE_EUNSUPPORTED);
    assert_null(srv);
    test_free(c);
}

static void prom_options_reserved_must_be_zero(void **state)
{
    (void)state;
    zkpipe_prom_options o;
    memset(&o, 0, sizeof o);
    assert_int_equal(zkpipe_prom_options_check(&o), ZKPIPE_OK);
    o.reserved[3] = 1;
    assert_int_equal(zkpipe_prom_options_check(&o), ZKPIPE_EINVAL);
}

/* The copy rule itself, on a struct that has grown twice: a caller's older, shorter struct
 * gives what it covers, and the library's defaults stand for the rest. */
typedef struct grown_v1 {
    size_t struct_size;
    uint32_t a;
} grown_v1;
typedef struct grown_v2 {
    size_t struct_size;
    uint32_t a;
    uint64_t b;
} grown_v2;
typedef struct grown_v3 {
    size_t struct_size;
    uint32_t a;
    uint64_t b;
    uint64_t c;
} grown_v3;

static void shorter_structs_keep_the_defaults(void **state)
{
    (void)state;
    const size_t min = ZKPIPE__SIZE_THROUGH(grown_v3, a);
    const grown_v3 defaults = {sizeof(grown_v3), 1, 2, 3};
    grown_v3 lib;

    grown_v1 old1 = {sizeof old1, 10};
    grown_v1 *c1 = caller_copy(&old1, sizeof old1);
    lib = defaults;
    assert_int_equal(zkpipe__struct_in(&lib, sizeof lib, c1, min, "abi_struct"), ZKPIPE_OK);
    assert_int_equal(lib.struct_size, sizeof lib);
    assert_int_equal(lib.a, 10);
    assert_int_equal(lib.b, 2);
    assert_int_equal(lib.c, 3);
    test_free(c1);

    grown_v2 old2 = {sizeof old2, 20, 21};
    grown_v2 *c2 = caller_copy(&old2, sizeof old2);
    lib = defaults;
    assert_int_equal(zkpipe__struct_in(&lib, sizeof lib, c2, min, "abi_struct"), ZKPIPE_OK);
    assert_int_equal(lib.a, 20);
    assert_int_equal(lib.b, 21);
    assert_int_equal(lib.c, 3);
    test_free(c2);

    grown_v3 now = {sizeof now, 30, 31, 32};
    lib = defaults;
    assert_int_equal(zkpipe__struct_in(&lib, sizeof lib, &now, min, "abi_struct"), ZKPIPE_OK);
    assert_int_equal(lib.c, 32);

    /* An unknown size leaves the library's struct as it was. */
    now.struct_size = sizeof now + 8;
    lib = defaults;
    assert_int_equal(zkpipe__struct_in(&lib, sizeof lib, &now, min, "abi_struct"), ZKPIPE_EINVAL);
    now.struct_size = min - 1;
    assert_int_equal(zkpipe__struct_in(&lib, sizeof lib, &now, min, "abi_struct"), ZKPIPE_EINVAL);
    /* Field by field: the struct's padding is never written. */
    assert_int_equal(lib.struct_size, defaults.struct_size);
    assert_int_equal(lib.a, defaults.a);
    assert_int_equal(lib.b, defaults.b);
    assert_int_equal(lib.c, defaults.c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chan_config_from_the_first_layout),
        cmocka_unit_test(chan_config_sizes_it_cannot_know),
        cmocka_unit_test(io_options_from_the_first_layout),
        cmocka_unit_test(io_options_sizes_it_cannot_know),
        cmocka_unit_test(http_config_sizes),
        cmocka_unit_test(prom_options_reserved_must_be_zero),
        cmocka_unit_test(shorter_structs_keep_the_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
