/* Accounting under concurrency: movers shuffle a fixed set of open ledgers between stages with
 * charges and releases while checkers take snapshots and test, on every one, that it is
 * consistent (no item in two stages or none, bytes conserved, live <= peak). */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sanitize.h"
#include "zkpipe/zkpipe.h"

#define OPS_PER_MOVER (ZKPIPE_TEST_SANITIZED ? 200000 : 2000000)

#define MOVERS 4
#define PER_MOVER 4
#define K (MOVERS * PER_MOVER)
#define AUX_BYTES 4096u
#define STAGES (ZKPIPE_STAGE_BUILTIN_COUNT + 1)

static uint64_t abc_bytes(int i)
{
    return 1000000u + 7u * (uint64_t)i;
}

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

typedef struct shared {
    zkpipe_acct *acct;
    zkpipe_ledger ledger[K];
    uint32_t scratch_kind;
    atomic_int movers_left;
    atomic_int failed;
    char why[256]; /* written once, by the thread that set failed */
    atomic_long snapshots;
} shared;

typedef struct mover_arg {
    shared *sh;
    int id;
} mover_arg;

static void record_failure(shared *sh, const char *fmt, ...)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&sh->failed, &expected, 1))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sh->why, sizeof sh->why, fmt, ap);
    va_end(ap);
}

static void expect(shared *sh, zkpipe_status got, zkpipe_status want, const char *what)
{
    if (got != want)
        record_failure(sh, "%s: got %s, want %s", what, zkpipe_status_name(got),
                       zkpipe_status_name(want));
}

/* Each mover owns PER_MOVER ledgers: moves them to random stages and charges and releases
 * transient buffers of kinds h and scratch (at most one of each live per ledger). */
static void *mover_main(void *p)
{
    mover_arg *arg = p;
    shared *sh = arg->sh;
    uint64_t rng = 0x9e3779b97f4a7c15u * (uint64_t)(arg->id + 1);
    uint64_t h_live[PER_MOVER] = {0}, scratch_live[PER_MOVER] = {0};
    /* Start once the checkers run, so that even a short run overlaps with snapshots. */
    while (atomic_load(&sh->snapshots) == 0)
        sched_yield();
    for (long op = 0; op < OPS_PER_MOVER && !atomic_load(&sh->failed); op++) {
        uint64_t r = next_random(&rng);
        int j = (int)(r % PER_MOVER);
        zkpipe_ledger *l = &sh->ledger[arg->id * PER_MOVER + j];
        switch ((r >> 8) % 5) {
        case 0:
        case 1:
            expect(sh, zkpipe_ledger_move(l, (uint32_t)((r >> 16) % STAGES)), ZKPIPE_OK, "move");
            break;
        case 2:
            if (h_live[j] == 0) {
                h_live[j] = 1 + (r >> 20) % 100000;
                expect(sh, zkpipe_ledger_charge(l, ZKPIPE_KIND_H, h_live[j]), ZKPIPE_OK,
                       "charge h");
            } else {
                expect(sh, zkpipe_ledger_release(l, ZKPIPE_KIND_H, h_live[j] + 1),
                       ZKPIPE_EUNDERFLOW, "over-release h");
                expect(sh, zkpipe_ledger_release(l, ZKPIPE_KIND_H, h_live[j]), ZKPIPE_OK,
                       "release h");
                h_live[j] = 0;
            }
            break;
        default:
            if (scratch_live[j] == 0) {
                scratch_live[j] = 1 + (r >> 20) % 1000;
                expect(sh, zkpipe_ledger_charge(l, sh->scratch_kind, scratch_live[j]), ZKPIPE_OK,
                       "charge scratch");
            } else {
                expect(sh, zkpipe_ledger_release(l, sh->scratch_kind, scratch_live[j]), ZKPIPE_OK,
                       "release scratch");
                scratch_live[j] = 0;
            }
            break;
        }
    }
    atomic_fetch_sub(&sh->movers_left, 1);
    return NULL;
}

/* Every invariant one snapshot must satisfy on its own. */
static void check_snapshot(shared *sh, const zkpipe_snapshot *s)
{
    uint64_t items = 0, abc = 0, bytes = 0;
    uint64_t abc_total = 0;
    for (int i = 0; i < K; i++)
        abc_total += abc_bytes(i);
    if (s->stage_count != STAGES || s->kind_count != ZKPIPE_KIND_BUILTIN_COUNT + 1)
        record_failure(sh, "registered counts changed: %u stages, %u kinds", s->stage_count,
                       s->kind_count);
    for (uint32_t st = 0; st < STAGES; st++) {
        const zkpipe_snapshot_stage *g = &s->stage[st];
        items += g->live_items;
        bytes += g->live_bytes;
        abc += g->kind[ZKPIPE_KIND_ABC].live_bytes;
        /* Every item carries exactly one abc and one aux buffer: a move seen half done
         * would show them in different stages. */
        if (g->kind[ZKPIPE_KIND_ABC].live_buffers != g->live_items ||
            g->kind[ZKPIPE_KIND_AUX].live_buffers != g->live_items ||
            g->kind[ZKPIPE_KIND_AUX].live_bytes != g->live_items * AUX_BYTES)
            record_failure(sh, "stage %u: %llu items but %llu abc, %llu aux buffers", st,
                           (unsigned long long)g->live_items,
                           (unsigned long long)g->kind[ZKPIPE_KIND_ABC].live_buffers,
                           (unsigned long long)g->kind[ZKPIPE_KIND_AUX].live_buffers);
        if (g->kind[ZKPIPE_KIND_H].live_buffers > g->live_items ||
            g->kind[sh->scratch_kind].live_buffers > g->live_items)
            record_failure(sh, "stage %u: more transient buffers than items", st);
        if (g->live_items > g->peak_items || g->entered - g->left != g->live_items)
            record_failure(sh, "stage %u: item counters inconsistent", st);
        for (uint32_t k = 0; k < s->kind_count; k++) {
            const zkpipe_snapshot_kind *c = &g->kind[k];
            if (c->live_buffers > c->peak_buffers || c->live_bytes > c->peak_bytes)
                record_failure(sh, "stage %u kind %u: live above peak", st, k);
        }
    }
    if (items != K || s->live_items != K)
        record_failure(sh, "%llu items over stages, %llu live, want %d", (unsigned long long)items,
                       (unsigned long long)s->live_items, K);
    if (abc != abc_total)
        record_failure(sh, "abc bytes not conserved: %llu, want %llu", (unsigned long long)abc,
                       (unsigned long long)abc_total);
    if (bytes != s->live_bytes || s->live_bytes > s->peak_bytes)
        record_failure(sh, "overall bytes %llu, stages sum to %llu, peak %llu",
                       (unsigned long long)s->live_bytes, (unsigned long long)bytes,
                       (unsigned long long)s->peak_bytes);
}

/* Invariants between two snapshots of one checker: totals and (without a reset between them)
 * peaks never go down. */
static void check_progress(shared *sh, const zkpipe_snapshot *a, const zkpipe_snapshot *b,
                           int reset_between)
{
    for (uint32_t st = 0; st < STAGES; st++) {
        if (b->stage[st].entered < a->stage[st].entered || b->stage[st].left < a->stage[st].left)
            record_failure(sh, "stage %u: totals went down", st);
        if (!reset_between && b->stage[st].peak_items < a->stage[st].peak_items)
            record_failure(sh, "stage %u: peak items went down", st);
    }
    if (!reset_between && b->peak_bytes < a->peak_bytes)
        record_failure(sh, "peak bytes went down without a reset");
}

/* Snapshots until the movers are done. The checker with `resets` also resets peaks now and
 * then; the other one cannot know when that happens, so it does not compare peaks. */
static void check_until_done(shared *sh, int resets)
{
    static _Thread_local zkpipe_snapshot prev, cur;
    int have_prev = 0, reset_between = 0;
    for (long n = 0; atomic_load(&sh->movers_left) > 0 && !atomic_load(&sh->failed); n++) {
        if (zkpipe_acct_snapshot(sh->acct, &cur) != ZKPIPE_OK) {
            record_failure(sh, "snapshot failed");
            break;
        }
        check_snapshot(sh, &cur);
        if (have_prev)
            check_progress(sh, &prev, &cur, reset_between);
        prev = cur;
        have_prev = 1;
        reset_between = !resets || n % 64 == 63;
        if (resets && reset_between && zkpipe_acct_reset_peaks(sh->acct) != ZKPIPE_OK)
            record_failure(sh, "reset failed");
        atomic_fetch_add(&sh->snapshots, 1);
    }
}

static void *checker_main(void *p)
{
    check_until_done(p, 0);
    return NULL;
}

static void movers_and_snapshots_agree(void **state)
{
    (void)state;
    static shared sh;
    memset(&sh, 0, sizeof sh);
    assert_int_equal(zkpipe_acct_create(NULL, &sh.acct), ZKPIPE_OK);
    uint32_t extra_stage;
    assert_int_equal(zkpipe_acct_register_stage(sh.acct, "upload", &extra_stage), ZKPIPE_OK);
    assert_int_equal(extra_stage, STAGES - 1);
    assert_int_equal(zkpipe_acct_register_kind(sh.acct, "scratch", &sh.scratch_kind), ZKPIPE_OK);
    for (int i = 0; i < K; i++) {
        zkpipe_ledger *l = &sh.ledger[i];
        assert_int_equal(zkpipe_ledger_open(l, sh.acct, (uint32_t)(i % STAGES)), ZKPIPE_OK);
        assert_int_equal(zkpipe_ledger_charge(l, ZKPIPE_KIND_ABC, abc_bytes(i)), ZKPIPE_OK);
        assert_int_equal(zkpipe_ledger_charge(l, ZKPIPE_KIND_AUX, AUX_BYTES), ZKPIPE_OK);
    }
    atomic_store(&sh.movers_left, MOVERS);

    pthread_t movers[MOVERS], checker;
    mover_arg args[MOVERS];
    for (int m = 0; m < MOVERS; m++) {
        args[m] = (mover_arg){&sh, m};
        assert_int_equal(pthread_create(&movers[m], NULL, mover_main, &args[m]), 0);
    }
    assert_int_equal(pthread_create(&checker, NULL, checker_main, &sh), 0);
    check_until_done(&sh, 1);
    for (int m = 0; m < MOVERS; m++)
        pthread_join(movers[m], NULL);
    pthread_join(checker, NULL);
    if (atomic_load(&sh.failed))
        fail_msg("%s", sh.why);
    assert_true(atomic_load(&sh.snapshots) > 0);

    zkpipe_snapshot s;
    assert_int_equal(zkpipe_acct_snapshot(sh.acct, &s), ZKPIPE_OK);
    check_snapshot(&sh, &s);
    if (atomic_load(&sh.failed))
        fail_msg("%s", sh.why);
    for (int i = 0; i < K; i++)
        zkpipe_ledger_close(&sh.ledger[i]);
    assert_int_equal(zkpipe_acct_snapshot(sh.acct, &s), ZKPIPE_OK);
    assert_int_equal(s.live_items, 0);
    assert_int_equal(s.live_bytes, 0);
    for (uint32_t st = 0; st < STAGES; st++) {
        assert_int_equal(s.stage[st].live_items, 0);
        assert_int_equal(s.stage[st].live_buffers, 0);
        assert_int_equal(s.stage[st].live_bytes, 0);
        assert_int_equal(s.stage[st].entered, s.stage[st].left);
        for (uint32_t k = 0; k < s.kind_count; k++)
            assert_int_equal(s.stage[st].kind[k].live_bytes, 0);
    }
    printf("stress: %d movers x %d ops, %ld snapshots checked\n", MOVERS, OPS_PER_MOVER,
           atomic_load(&sh.snapshots));
    zkpipe_acct_destroy(sh.acct);
}

#define REGISTRARS 4
#define FREE_KINDS (ZKPIPE_KIND_MAX - ZKPIPE_KIND_BUILTIN_COUNT)

typedef struct registrar {
    zkpipe_acct *acct;
    int id;
    uint32_t got[FREE_KINDS + 1];
    zkpipe_status rc[FREE_KINDS + 1];
} registrar;

/* Registers names n0..n{FREE_KINDS} (one more than fits) starting at a different name. */
static void *registrar_main(void *p)
{
    registrar *r = p;
    for (int i = 0; i <= FREE_KINDS; i++) {
        int n = (i + r->id * 3) % (FREE_KINDS + 1);
        char name[8];
        snprintf(name, sizeof name, "n%d", n);
        r->rc[n] = zkpipe_acct_register_kind(r->acct, name, &r->got[n]);
    }
    return NULL;
}

static void registrations_race(void **state)
{
    (void)state;
    zkpipe_acct *acct;
    assert_int_equal(zkpipe_acct_create(NULL, &acct), ZKPIPE_OK);
    registrar r[REGISTRARS];
    pthread_t t[REGISTRARS];
    for (int i = 0; i < REGISTRARS; i++) {
        memset(&r[i], 0, sizeof r[i]);
        r[i].acct = acct;
        r[i].id = i;
        assert_int_equal(pthread_create(&t[i], NULL, registrar_main, &r[i]), 0);
    }
    for (int i = 0; i < REGISTRARS; i++)
        pthread_join(t[i], NULL);
    /* Exactly one name found the table full, the same one for everybody; the others got one
     * id each, the same in every thread, and all ids are distinct. */
    int refused = -1;
    uint32_t seen = 0;
    for (int n = 0; n <= FREE_KINDS; n++) {
        if (r[0].rc[n] == ZKPIPE_ELIMIT) {
            assert_int_equal(refused, -1);
            refused = n;
        } else {
            assert_int_equal(r[0].rc[n], ZKPIPE_OK);
            assert_in_range(r[0].got[n], ZKPIPE_KIND_BUILTIN_COUNT, ZKPIPE_KIND_MAX - 1);
            assert_false(seen & (1u << r[0].got[n]));
            seen |= 1u << r[0].got[n];
        }
        for (int i = 1; i < REGISTRARS; i++) {
            assert_int_equal(r[i].rc[n], r[0].rc[n]);
            if (r[0].rc[n] == ZKPIPE_OK)
                assert_int_equal(r[i].got[n], r[0].got[n]);
        }
    }
    assert_int_not_equal(refused, -1);
    zkpipe_acct_destroy(acct);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registrations_race),
        cmocka_unit_test(movers_and_snapshots_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
