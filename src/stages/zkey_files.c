/* zkeys by file (zkpipe_zkey_files, zkpipe/stages.h): a list of open sources with the identity
 * of the file each was opened from. One mutex guards the list and the holds; a second one lets
 * one open run at a time without holding the first, so that a get of an open file never waits
 * for a slow open of another. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/detail.h"
#include "core/struct_size_internal.h"
#include "zkpipe/stages.h"
#include "zkpipe/io.h"

typedef struct entry {
    struct entry *next;
    char *path;
    struct stat st; /* the file as it was just before it was opened */
    zkpipe_zkey_source *source;
    uint64_t estimate;
    unsigned holds;
    int stale;     /* replaced or damaged: never handed out again, closed once not held */
    uint64_t used; /* the set's clock at its last get or put */
} entry;

struct zkpipe_zkey_files {
    zkpipe_zkey_files_config config;
    pthread_mutex_t lock;    /* the list, the holds, the clock */
    pthread_mutex_t opening; /* one open at a time */
    entry *head;
    uint64_t clock;
};

#define CONFIG_MIN_SIZE ZKPIPE__SIZE_THROUGH(zkpipe_zkey_files_config, reserved)

void zkpipe_zkey_files_config_init(zkpipe_zkey_files_config *config)
{
    if (config == NULL)
        return;
    memset(config, 0, sizeof *config);
    config->struct_size = sizeof *config;
    config->io_flags = ZKPIPE_IO_DEFER_SUBGROUP;
    config->open_threads = 1;
    config->prover_threads = 1;
    config->idle_max = 4;
}

zkpipe_status zkpipe_zkey_files_create(zkpipe_zkey_files **out,
                                       const zkpipe_zkey_files_config *config)
{
    if (out == NULL)
        return ZKPIPE_EINVAL;
    zkpipe_zkey_files_config c;
    zkpipe_zkey_files_config_init(&c);
    if (config != NULL && zkpipe__struct_in(&c, sizeof c, config, CONFIG_MIN_SIZE,
                                            "zkpipe_zkey_files_config") != ZKPIPE_OK)
        return ZKPIPE_EINVAL;
    if (c.prover_threads == 0 || c.open_threads > ZKPIPE_POOL_MAX_THREADS || c.reserved[0] != 0 ||
        c.reserved[1] != 0)
        return ZKPIPE_EINVAL;
    zkpipe_zkey_files *f = calloc(1, sizeof *f);
    if (f == NULL)
        return ZKPIPE_ENOMEM;
    f->config = c;
    if (pthread_mutex_init(&f->lock, NULL) != 0) {
        free(f);
        return ZKPIPE_ENOMEM;
    }
    if (pthread_mutex_init(&f->opening, NULL) != 0) {
        pthread_mutex_destroy(&f->lock);
        free(f);
        return ZKPIPE_ENOMEM;
    }
    *out = f;
    return ZKPIPE_OK;
}

static void entry_free(entry *e)
{
    zkpipe_zkey_source_destroy(e->source);
    free(e->path);
    free(e);
}

void zkpipe_zkey_files_destroy(zkpipe_zkey_files *files)
{
    if (files == NULL)
        return;
    for (entry *e = files->head, *next; e != NULL; e = next) {
        next = e->next;
        entry_free(e);
    }
    pthread_mutex_destroy(&files->opening);
    pthread_mutex_destroy(&files->lock);
    free(files);
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The usable entry of `path` for a file now as `now`, held once more; NULL when there is none
 * (an entry of an older file is marked stale). Locked. */
static entry *find(zkpipe_zkey_files *f, const char *path, const struct stat *now)
{
    for (entry *e = f->head; e != NULL; e = e->next) {
        if (e->stale || strcmp(e->path, path) != 0)
            continue;
        if (!same_file(&e->st, now)) {
            e->stale = 1;
            continue;
        }
        e->holds++;
        e->used = ++f->clock;
        return e;
    }
    return NULL;
}

/* Opens `path` (as `now` says it is) into a new entry; the caller holds `opening`. */
static zkpipe_status open_entry(zkpipe_zkey_files *f, entry **out, const char *path,
                                const struct stat *now, char *detail, size_t cap)
{
    char why[ZKPIPE_IO_DETAIL_MAX] = "";
    entry *e = calloc(1, sizeof *e);
    size_t len = strlen(path);
    if (e == NULL || (e->path = malloc(len + 1)) == NULL) {
        free(e);
        return zkpipe__fail(detail, cap, ZKPIPE_ENOMEM, "%s: out of memory", path);
    }
    memcpy(e->path, path, len + 1);
    e->st = *now;
    zkpipe_pool *pool = NULL;
    zkpipe_io_options io;
    zkpipe_io_options_init(&io);
    io.flags = f->config.io_flags;
    uint64_t mark = zkpipe_mapped_damage_mark();
    zkpipe_status st = zkpipe_pool_create(&pool, f->config.open_threads, NULL);
    if (st == ZKPIPE_OK) {
        io.pool = pool;
        st = zkpipe_zkey_source_open(&e->source, why, sizeof why, path, &io, f->config.keys);
    }
    zkpipe_pool_destroy(pool);
    /* Damaged while it was read: whatever the open made of the zeros it read is an I/O error. */
    if (zkpipe_mapped_damaged(mark, (uint64_t)now->st_dev, now->st_ino)) {
        zkpipe_zkey_source_destroy(e->source);
        e->source = NULL;
        st = ZKPIPE_EIO;
        snprintf(why, sizeof why,
                 "I/O error: the file shrank or its storage failed while it was read");
    }
    if (st == ZKPIPE_OK && zkpipe_zkey_source_estimate(e->source, f->config.prover_threads,
                                                       &e->estimate) != ZKPIPE_OK) {
        st = ZKPIPE_EOVERFLOW;
        snprintf(why, sizeof why, "cannot estimate its partitions' bytes");
    }
    if (st != ZKPIPE_OK) {
        entry_free(e);
        return zkpipe__fail(detail, cap, st, "%s: %s", path,
                            why[0] != '\0' ? why : zkpipe_status_str(st));
    }
    *out = e;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_zkey_files_get(zkpipe_zkey_files *files, const char *path,
                                    const zkpipe_zkey_source **out, char *detail, size_t cap)
{
    if (files == NULL || path == NULL || out == NULL)
        return zkpipe__fail(detail, cap, ZKPIPE_EINVAL, "invalid argument");
    struct stat now;
    if (stat(path, &now) != 0)
        return zkpipe__fail(detail, cap, ZKPIPE_EIO, "%s: %s", path, strerror(errno));
    pthread_mutex_lock(&files->lock);
    entry *e = find(files, path, &now);
    pthread_mutex_unlock(&files->lock);
    if (e == NULL) {
        pthread_mutex_lock(&files->opening);
        pthread_mutex_lock(&files->lock);
        e = find(files, path, &now); /* opened by another get while this one waited */
        pthread_mutex_unlock(&files->lock);
        zkpipe_status st = ZKPIPE_OK;
        if (e == NULL && (st = open_entry(files, &e, path, &now, detail, cap)) == ZKPIPE_OK) {
            pthread_mutex_lock(&files->lock);
            e->holds = 1;
            e->used = ++files->clock;
            e->next = files->head;
            files->head = e;
            pthread_mutex_unlock(&files->lock);
        }
        pthread_mutex_unlock(&files->opening);
        if (st != ZKPIPE_OK)
            return st;
        zkpipe_zkey_files_put(files, NULL); /* an entry it replaced may go */
    }
    if (detail != NULL && cap > 0)
        detail[0] = '\0';
    *out = e->source;
    return ZKPIPE_OK;
}

/* The entry of a source. Locked. */
static entry *entry_of(zkpipe_zkey_files *f, const zkpipe_zkey_source *source)
{
    for (entry *e = f->head; e != NULL; e = e->next)
        if (e->source == source)
            return e;
    return NULL;
}

int zkpipe_zkey_files_damaged(zkpipe_zkey_files *files, const zkpipe_zkey_source *source,
                              uint64_t mark)
{
    if (files == NULL || source == NULL)
        return 0;
    pthread_mutex_lock(&files->lock);
    entry *e = entry_of(files, source);
    int damaged = e != NULL && zkpipe_mapped_damaged(mark, (uint64_t)e->st.st_dev, e->st.st_ino);
    if (damaged)
        e->stale = 1;
    pthread_mutex_unlock(&files->lock);
    return damaged;
}

void zkpipe_zkey_files_put(zkpipe_zkey_files *files, const zkpipe_zkey_source *source)
{
    if (files == NULL)
        return;
    pthread_mutex_lock(&files->lock);
    entry *held = source != NULL ? entry_of(files, source) : NULL;
    if (held != NULL && held->holds > 0) {
        held->holds--;
        held->used = ++files->clock;
    }
    /* Unlinked under the lock, closed outside it (an unmap of gigabytes takes a while). */
    entry *gone = NULL;
    for (;;) {
        entry **victim = NULL;
        unsigned idle = 0;
        for (entry **e = &files->head; *e != NULL; e = &(*e)->next) {
            if ((*e)->holds != 0)
                continue;
            idle++;
            if ((*e)->stale) {
                victim = e;
                break;
            }
            if (victim == NULL || (*e)->used < (*victim)->used)
                victim = e;
        }
        if (victim == NULL || (!(*victim)->stale && idle <= files->config.idle_max))
            break;
        entry *v = *victim;
        *victim = v->next;
        v->next = gone;
        gone = v;
    }
    pthread_mutex_unlock(&files->lock);
    for (entry *e = gone, *next; e != NULL; e = next) {
        next = e->next;
        entry_free(e);
    }
}

uint64_t zkpipe_zkey_files_estimate_max(zkpipe_zkey_files *files)
{
    uint64_t most = 0;
    if (files == NULL)
        return 0;
    pthread_mutex_lock(&files->lock);
    for (const entry *e = files->head; e != NULL; e = e->next)
        most = e->estimate > most ? e->estimate : most;
    pthread_mutex_unlock(&files->lock);
    return most;
}
