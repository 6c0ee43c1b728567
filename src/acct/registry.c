/* Registry lifetime, the default registry, and kind/stage names. */
#include <string.h>

#include "acct/acct_internal.h"
#include "core/alloc_internal.h"

static const char *const builtin_kinds[ZKPIPE_KIND_BUILTIN_COUNT] = {
    "abc", "aux", "input", "density", "h", "device", "circuit", "workspace",
};
static const char *const builtin_stages[ZKPIPE_STAGE_BUILTIN_COUNT] = {
    "synth", "pending", "queued", "proving", "finalize",
};

/* The only global state in zkpipe (see zkpipe_acct_default). Zero is its initial state. */
static zkpipe_acct default_registry;

zkpipe_status zkpipe_acct_create(const zkpipe_allocator *allocator, zkpipe_acct **out)
{
    if (out == NULL)
        return ZKPIPE_EINVAL;
    *out = NULL;
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (a == NULL)
        return ZKPIPE_EINVAL;
    zkpipe_acct *acct = zkpipe__calloc(a, 1, sizeof *acct, alignof(zkpipe_acct));
    if (acct == NULL)
        return ZKPIPE_ENOMEM;
    acct->allocator = *a;
    *out = acct;
    return ZKPIPE_OK;
}

void zkpipe_acct_destroy(zkpipe_acct *acct)
{
    if (acct == NULL || acct == &default_registry)
        return;
    zkpipe_allocator a = acct->allocator;
    zkpipe__free(&a, acct);
}

zkpipe_acct *zkpipe_acct_default(void)
{
    return &default_registry;
}

int zkpipe__acct_name_valid(const char *name)
{
    size_t n = 0;
    for (; n <= ZKPIPE_ACCT_NAME_MAX && name[n] != '\0'; n++) {
        char c = name[n];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return 0;
    }
    return n > 0 && n <= ZKPIPE_ACCT_NAME_MAX;
}

static void names_lock(zkpipe_acct *acct)
{
    unsigned spins = 0;
    int expected = 0;
    while (!atomic_compare_exchange_weak_explicit(&acct->names_lock, &expected, 1,
                                                  memory_order_acquire, memory_order_relaxed)) {
        expected = 0;
        zkpipe__backoff(&spins);
    }
}

static void names_unlock(zkpipe_acct *acct)
{
    atomic_store_explicit(&acct->names_lock, 0, memory_order_release);
}

/* A name table: built-in names followed by `*extra_count` registered ones. */
typedef struct name_table {
    const char *const *builtin;
    uint32_t builtin_count;
    char (*extra)[ZKPIPE_ACCT_NAME_MAX + 1];
    uint32_t extra_max;
    _Atomic uint32_t *extra_count;
} name_table;

/* Registration is rare, so a short spin lock is enough to keep two registrations of the same
 * name from taking two slots; name lookups never take it. */
static zkpipe_status register_name(zkpipe_acct *acct, const name_table *t, const char *name,
                                   uint32_t *out)
{
    if (name == NULL || out == NULL || !zkpipe__acct_name_valid(name))
        return ZKPIPE_EINVAL;
    for (uint32_t i = 0; i < t->builtin_count; i++) {
        if (strcmp(t->builtin[i], name) == 0) {
            *out = i;
            return ZKPIPE_OK;
        }
    }
    zkpipe_status rc = ZKPIPE_OK;
    names_lock(acct);
    uint32_t n = atomic_load_explicit(t->extra_count, memory_order_relaxed);
    uint32_t i = 0;
    while (i < n && strcmp(t->extra[i], name) != 0)
        i++;
    if (i == n) {
        if (n == t->extra_max) {
            rc = ZKPIPE_ELIMIT;
        } else {
            strcpy(t->extra[n], name);
            atomic_store_explicit(t->extra_count, n + 1, memory_order_release);
        }
    }
    names_unlock(acct);
    if (rc == ZKPIPE_OK)
        *out = t->builtin_count + i;
    return rc;
}

zkpipe_status zkpipe_acct_register_kind(zkpipe_acct *acct, const char *name, uint32_t *out_kind)
{
    if (acct == NULL)
        return ZKPIPE_EINVAL;
    const name_table t = {builtin_kinds, ZKPIPE_KIND_BUILTIN_COUNT, acct->kind_names,
                          ZKPIPE_KIND_MAX - ZKPIPE_KIND_BUILTIN_COUNT, &acct->extra_kinds};
    return register_name(acct, &t, name, out_kind);
}

zkpipe_status zkpipe_acct_register_stage(zkpipe_acct *acct, const char *name, uint32_t *out_stage)
{
    if (acct == NULL)
        return ZKPIPE_EINVAL;
    const name_table t = {builtin_stages, ZKPIPE_STAGE_BUILTIN_COUNT, acct->stage_names,
                          ZKPIPE_STAGE_MAX - ZKPIPE_STAGE_BUILTIN_COUNT, &acct->extra_stages};
    return register_name(acct, &t, name, out_stage);
}

const char *zkpipe_acct_kind_name(const zkpipe_acct *acct, uint32_t kind)
{
    if (acct == NULL || kind >= zkpipe__kind_count(acct))
        return NULL;
    if (kind < ZKPIPE_KIND_BUILTIN_COUNT)
        return builtin_kinds[kind];
    return acct->kind_names[kind - ZKPIPE_KIND_BUILTIN_COUNT];
}

const char *zkpipe_acct_stage_name(const zkpipe_acct *acct, uint32_t stage)
{
    if (acct == NULL || stage >= zkpipe__stage_count(acct))
        return NULL;
    if (stage < ZKPIPE_STAGE_BUILTIN_COUNT)
        return builtin_stages[stage];
    return acct->stage_names[stage - ZKPIPE_STAGE_BUILTIN_COUNT];
}
