/* Jobs of identical partitions (engine_jobs.h). */
#include "engine_jobs.h"

#include <stdlib.h>

zkpipe_engine_config engine_jobs_config(zkpipe_acct *acct)
{
    zkpipe_engine_config cfg;
    zkpipe_engine_config_init(&cfg);
    cfg.acct = acct;
    cfg.backend = ZKPIPE_BACKEND_CPU;
    return cfg;
}

zkpipe_status engine_jobs_submit(zkpipe_engine *e, zkpipe_job **job, const zkpipe_stage_ops *ops,
                                 void *ctx, size_t n)
{
    zkpipe_partition *parts = calloc(n > 0 ? n : 1, sizeof *parts);
    if (parts == NULL)
        return ZKPIPE_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        parts[i].ops = ops;
        parts[i].ctx = ctx;
    }
    zkpipe_status st = zkpipe_engine_submit(e, job, parts, n, NULL, NULL);
    free(parts);
    return st;
}

zkpipe_status engine_jobs_run(zkpipe_engine *e, const zkpipe_stage_ops *ops, void *ctx, size_t n,
                              long timeout_ms)
{
    zkpipe_job *job;
    zkpipe_status st = engine_jobs_submit(e, &job, ops, ctx, n);
    if (st != ZKPIPE_OK)
        return st;
    st = zkpipe_job_wait_timed(job, (uint64_t)timeout_ms * 1000000u);
    for (size_t i = 0; st == ZKPIPE_OK && i < n; i++) {
        zkpipe_partition_result r;
        st = zkpipe_job_result(job, i, &r);
        if (st == ZKPIPE_OK)
            st = r.status;
    }
    zkpipe_job_destroy(job);
    return st;
}
