/* The zkey prover's steps on the CUDA backend (built with ZKPIPE_HAVE_CUDA): the six NTTs of h
 * and the four G1 MSMs run on the GPU (cuda/cuda_backend.h), B (G2) on a CPU thread with the
 * pool meanwhile (cuda/msm_impl.cuh says why G2 stays on the CPU). The GPU computes the same
 * field and group elements as the CPU, so the proof's bytes are the CPU's for the same r and s.
 * Part of curve_impl.h's template, after prove_impl.h. */
#include <pthread.h>

#include "cuda/cuda_backend.h"

#define CUDA_NTT G16_CAT(zkpipe__cuda_ntt_, FR)
#define CUDA_MSM1 G16_CAT(zkpipe__cuda_msm_, G1)

/* h_build with the transforms on the GPU; a b - c stays on the CPU (one pass over n). */
static zkpipe_status h_build_cuda(FR *a, FR *b, FR *c, const zkpipe__io_zkey_view *z,
                                  zkpipe_pool *pool, zkpipe_ledger *ledger,
                                  const zkpipe_allocator *al)
{
    FR shift;
    unsigned log_n = (unsigned)z->log_n;
    (void)pool;
    (void)al;
    zkpipe_status st = NTT(root_of_unity)(&shift, log_n + 1);
    FR *v[3] = {a, b, c};
    for (int k = 0; k < 3 && st == ZKPIPE_OK; k++) {
        st = CUDA_NTT(v[k]->l, log_n, ZKPIPE__CUDA_INTT, NULL, ledger);
        if (st == ZKPIPE_OK)
            st = CUDA_NTT(v[k]->l, log_n, ZKPIPE__CUDA_COSET_NTT, shift.l, ledger);
    }
    if (st == ZKPIPE_OK)
        h_combine(a, b, c, (size_t)1 << log_n);
    return st;
}

/* B (G2) on the CPU while the GPU sums the G1 MSMs. */
typedef struct b2_job {
    G2 out;
    const zkpipe__io_zkey_view *z;
    const uint64_t *w;
    zkpipe_pool *pool;
    const zkpipe_allocator *al;
    zkpipe_status st;
    double secs;
} b2_job;

static void *b2_run(void *arg)
{
    b2_job *job = (b2_job *)arg;
    double t0 = zkpipe__g16_now();
    job->st = MSM2(&job->out, (const G2A *)job->z->b2, job->w, NULL, job->z->num_vars, NULL,
                   job->pool, job->al);
    job->secs = zkpipe__g16_now() - t0;
    return NULL;
}

static zkpipe_status sums_cuda(sums *o, zkpipe_zkey_timings *t, const zkpipe__io_zkey_view *z,
                               const uint64_t *w, const FR *h, zkpipe_pool *pool,
                               zkpipe_ledger *ledger, const zkpipe_allocator *al,
                               const zkpipe_allocator *plain)
{
    size_t n = (size_t)1 << z->log_n, first_private = z->num_public + 1;
    /* The G2 thread must not charge the ledger the device launchers charge meanwhile. */
    b2_job job = {.z = z, .w = w, .pool = pool, .al = plain};
    (void)al;
    pthread_t thread;
    int threaded = pthread_create(&thread, NULL, b2_run, &job) == 0;
    double t0 = zkpipe__g16_now();
    zkpipe_status st = CUDA_MSM1(&o->A, (const G1A *)z->a, w, NULL, z->num_vars, 0, ledger);
    double t1 = zkpipe__g16_now();
    if (st == ZKPIPE_OK)
        st = CUDA_MSM1(&o->B1, (const G1A *)z->b1, w, NULL, z->num_vars, 0, ledger);
    double t2 = zkpipe__g16_now();
    if (st == ZKPIPE_OK)
        st = CUDA_MSM1(&o->C, (const G1A *)z->c, w + 4 * first_private, NULL,
                       z->num_vars - first_private, 0, ledger);
    if (st == ZKPIPE_OK)
        st = CUDA_MSM1(&o->H, (const G1A *)z->h, (const uint64_t *)h, NULL, n, 0, ledger);
    t->msm_a = t1 - t0;
    t->msm_b1 = t2 - t1;
    t->msm_c = zkpipe__g16_now() - t2;
    if (threaded)
        pthread_join(thread, NULL);
    else if (st == ZKPIPE_OK)
        b2_run(&job);
    t->msm_b2 = job.secs;
    if (st == ZKPIPE_OK)
        st = job.st;
    o->B = job.out;
    return st;
}

static const zkey_backend cuda_backend = {h_build_cuda, sums_cuda, "cuda", 1};

static zkpipe_status prove_cuda(uint8_t *proof, zkpipe_zkey_timings *t, char *detail, size_t cap,
                                const zkpipe__io_zkey_view *z, const uint64_t *w, const uint64_t *r,
                                const uint64_t *s, zkpipe_pool *pool, zkpipe_ledger *ledger,
                                const zkpipe_allocator *al)
{
    return prove_on(&cuda_backend, proof, t, detail, cap, z, w, r, s, pool, ledger, al);
}
