/* The job handle: one block holding the job, its partitions' in-flight items and their
 * results, and a waitable end. */
#include <errno.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "core/clock_internal.h"
#include "engine/engine_internal.h"
#include "engine/reentry.h"

#define BLOCK_ALIGN 64

static size_t round_up(size_t v)
{
    return (v + BLOCK_ALIGN - 1) & ~(size_t)(BLOCK_ALIGN - 1);
}

zkpipe_status zkpipe__job_create(zkpipe_job **out, const zkpipe_allocator *a,
                                 const zkpipe_partition *parts, size_t count,
                                 zkpipe_job_done_fn done, void *ctx)
{
    const size_t per = sizeof(zkpipe__item) + sizeof(zkpipe_partition_result);
    if (count > (SIZE_MAX - 4 * BLOCK_ALIGN - sizeof(zkpipe_job)) / per)
        return ZKPIPE_EOVERFLOW;
    size_t items_at = round_up(sizeof(zkpipe_job));
    size_t results_at = round_up(items_at + count * sizeof(zkpipe__item));
    size_t total = results_at + count * sizeof(zkpipe_partition_result);
    char *block = zkpipe__calloc(a, 1, total, BLOCK_ALIGN);
    if (block == NULL)
        return ZKPIPE_ENOMEM;
    zkpipe_job *job = (zkpipe_job *)block;
    job->allocator = *a;
    zkpipe_status st = zkpipe__cond_init_monotonic(&job->finished);
    if (st == ZKPIPE_OK && pthread_mutex_init(&job->lock, NULL) != 0) {
        pthread_cond_destroy(&job->finished);
        st = ZKPIPE_ENOMEM;
    }
    if (st != ZKPIPE_OK) {
        zkpipe__free(a, block);
        return st;
    }
    job->count = count;
    atomic_init(&job->remaining, count);
    atomic_init(&job->canceled, 0);
    atomic_init(&job->state, JOB_RUNNING);
    job->done = done;
    job->ctx = ctx;
    job->items = (zkpipe__item *)(block + items_at);
    job->results = (zkpipe_partition_result *)(block + results_at);
    for (size_t i = 0; i < count; i++) {
        zkpipe__item *it = &job->items[i];
        it->job = job;
        it->index = i;
        /* The host's table as far as its struct_size reaches; later fields stay NULL. */
        size_t n =
            parts[i].ops->struct_size < sizeof it->ops ? parts[i].ops->struct_size : sizeof it->ops;
        memcpy(&it->ops, parts[i].ops, n);
        it->ops.struct_size = sizeof it->ops;
        it->table = parts[i].ops;
        it->ctx = parts[i].ctx;
    }
    *out = job;
    return ZKPIPE_OK;
}

void zkpipe__job_free(zkpipe_job *job)
{
    pthread_mutex_destroy(&job->lock);
    pthread_cond_destroy(&job->finished);
    zkpipe_allocator a = job->allocator;
    zkpipe__free(&a, job);
}

/* Frees the hosts' results and the job. */
static void job_release(zkpipe_job *job)
{
    for (size_t i = 0; i < job->count; i++) {
        const zkpipe__item *it = &job->items[i];
        void *host = job->results[i].host;
        if (host != NULL && it->ops.result_free != NULL)
            it->ops.result_free(it->ctx, i, host);
    }
    zkpipe__job_free(job);
}

void zkpipe__job_finish(zkpipe_job *job)
{
    atomic_store(&job->state, JOB_RESULTS);
    if (job->done != NULL)
        job->done(job, job->ctx);
    /* The last touch: once a waiter sees JOB_FINISHED it may free the job; an orphan has no
     * owner left, so it is freed here. */
    pthread_mutex_lock(&job->lock);
    atomic_store(&job->state, JOB_FINISHED);
    pthread_cond_broadcast(&job->finished);
    int orphaned = job->orphaned;
    pthread_mutex_unlock(&job->lock);
    if (orphaned)
        job_release(job);
}

/* Waits until the job has finished or `deadline` (NULL: none) has passed. */
static zkpipe_status wait_until(zkpipe_job *job, const struct timespec *deadline)
{
    zkpipe_status st = ZKPIPE_OK;
    pthread_mutex_lock(&job->lock);
    while (atomic_load(&job->state) != JOB_FINISHED && st == ZKPIPE_OK) {
        if (deadline == NULL)
            pthread_cond_wait(&job->finished, &job->lock);
        else if (pthread_cond_timedwait(&job->finished, &job->lock, deadline) == ETIMEDOUT)
            st = atomic_load(&job->state) == JOB_FINISHED ? ZKPIPE_OK : ZKPIPE_ETIMEDOUT;
    }
    pthread_mutex_unlock(&job->lock);
    return st;
}

zkpipe_status zkpipe_job_wait(zkpipe_job *job)
{
    if (job == NULL)
        return ZKPIPE_EINVAL;
    if (zkpipe__reentry_on(job->engine))
        return zkpipe__reentry_refuse("zkpipe_job_wait");
    return wait_until(job, NULL);
}

zkpipe_status zkpipe_job_wait_timed(zkpipe_job *job, uint64_t timeout_ns)
{
    if (job == NULL)
        return ZKPIPE_EINVAL;
    if (zkpipe__reentry_on(job->engine))
        return zkpipe__reentry_refuse("zkpipe_job_wait_timed");
    struct timespec deadline = zkpipe__deadline_after(timeout_ns);
    return wait_until(job, &deadline);
}

void zkpipe_job_cancel(zkpipe_job *job)
{
    if (job != NULL)
        atomic_store(&job->canceled, 1);
}

size_t zkpipe_job_partitions(const zkpipe_job *job)
{
    return job != NULL ? job->count : 0;
}

zkpipe_status zkpipe_job_result(const zkpipe_job *job, size_t index, zkpipe_partition_result *out)
{
    if (job == NULL || out == NULL || index >= job->count)
        return ZKPIPE_EINVAL;
    if (atomic_load(&((zkpipe_job *)job)->state) == JOB_RUNNING)
        return ZKPIPE_ESTATE;
    *out = job->results[index];
    return ZKPIPE_OK;
}

void zkpipe_job_destroy(zkpipe_job *job)
{
    if (job == NULL)
        return;
    zkpipe_job_cancel(job);
    if (zkpipe__reentry_on(job->engine)) {
        /* From its engine's thread (a stage operation, maybe of this very job, or a done
         * callback): waiting could wait for this thread, so the job's end frees it. */
        pthread_mutex_lock(&job->lock);
        int finished = atomic_load(&job->state) == JOB_FINISHED;
        job->orphaned = !finished;
        pthread_mutex_unlock(&job->lock);
        if (!finished)
            return;
    } else {
        wait_until(job, NULL);
    }
    job_release(job);
}
