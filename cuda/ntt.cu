/* NTT and h kernels over Fr of BLS12-381 and BN254, and their launchers. The steps are
 * cuda/ntt_kernel.h's (host-tested); here each becomes one launch, one thread per index.
 *
 * One radix-2 stage per launch re-reads the whole array log_n times: simple and exact, but
 * memory-bound; fusing the first stages in shared memory is the next step for speed. */
#include <string.h>

#include "cuda/cuda_backend.h"
#include "cuda/device.cuh"
#include "cuda/ntt_kernel.h"
#include "ff/bls12_381_fr.h"
#include "ff/bn254_fr.h"

ZKPIPE__CUDA_NTT_DEFINE(bls12_381_fr)
ZKPIPE__CUDA_NTT_DEFINE(bn254_fr)

/* A field's steps under one name, so the kernels and launchers below are written once. */
#define FIELD_OPS(F)                                                                               \
    struct F##_ops {                                                                               \
        typedef F fe;                                                                              \
        static const unsigned two_adicity = F##_TWO_ADICITY;                                       \
        static __device__ void scale(fe *a, uint32_t c, uint32_t n, const fe *f, const fe *r)      \
        {                                                                                          \
            zkpipe__cuda_##F##_scale(a, c, n, f, r);                                               \
        }                                                                                          \
        static __device__ void powers(fe *t, uint32_t c, uint32_t n, const fe *w)                  \
        {                                                                                          \
            zkpipe__cuda_##F##_powers(t, c, n, w);                                                 \
        }                                                                                          \
        static __device__ void permute(fe *out, const fe *in, uint32_t i, unsigned log_n)          \
        {                                                                                          \
            zkpipe__cuda_##F##_permute(out, in, i, log_n);                                         \
        }                                                                                          \
        static __device__ void butterfly(fe *a, const fe *t, uint32_t i, unsigned s, unsigned l)   \
        {                                                                                          \
            zkpipe__cuda_##F##_butterfly(a, t, i, s, l);                                           \
        }                                                                                          \
        static __device__ void negate(fe *out, const fe *in, uint32_t j, uint32_t n, const fe *f)  \
        {                                                                                          \
            zkpipe__cuda_##F##_negate(out, in, j, n, f);                                           \
        }                                                                                          \
        static __device__ void quotient(fe *h, const fe *a, const fe *b, const fe *c, uint32_t i,  \
                                        const fe *z)                                               \
        {                                                                                          \
            zkpipe__cuda_##F##_quotient(h, a, b, c, i, z);                                         \
        }                                                                                          \
        static void one(fe *r)                                                                     \
        {                                                                                          \
            F##_set_one(r);                                                                        \
        }                                                                                          \
        static void from_u64(fe *r, uint64_t v)                                                    \
        {                                                                                          \
            F##_from_u64(r, v);                                                                    \
        }                                                                                          \
        static int inv(fe *r, const fe *a)                                                         \
        {                                                                                          \
            return F##_inv(r, a);                                                                  \
        }                                                                                          \
        static void sqr(fe *r, const fe *a)                                                        \
        {                                                                                          \
            F##_sqr(r, a);                                                                         \
        }                                                                                          \
        static void sub(fe *r, const fe *a, const fe *b)                                           \
        {                                                                                          \
            F##_sub(r, a, b);                                                                      \
        }                                                                                          \
        static const fe *root()                                                                    \
        {                                                                                          \
            return &F##_ROOT_OF_UNITY;                                                             \
        }                                                                                          \
    };

FIELD_OPS(bls12_381_fr)
FIELD_OPS(bn254_fr)

template <class T>
__global__ void __launch_bounds__(ZKPIPE__CUDA_BLOCK)
    scale_kernel(typename T::fe *a, uint32_t n, typename T::fe factor, typename T::fe ratio)
{
    uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c * ZKPIPE__CUDA_NTT_CHUNK < n)
        T::scale(a, c, n, &factor, &ratio);
}

template <class T>
__global__ void __launch_bounds__(ZKPIPE__CUDA_BLOCK)
    powers_kernel(typename T::fe *table, uint32_t n, typename T::fe w)
{
    uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c * ZKPIPE__CUDA_NTT_CHUNK < n)
        T::powers(table, c, n, &w);
}

template <class T>
__global__ void __launch_bounds__(ZKPIPE__CUDA_BLOCK)
    permute_kernel(typename T::fe *out, const typename T::fe *in, unsigned log_n)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (uint32_t)1 << log_n)
        T::permute(out, in, i, log_n);
}

template <class T>
__global__ void __launch_bounds__(ZKPIPE__CUDA_BLOCK)
    stage_kernel(typename T::fe *a, const typename T::fe *table, unsigned s, unsigned log_n)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < (uint32_t)1 << (log_n - 1))
        T::butterfly(a, table, t, s, log_n);
}

template <class T>
__global__ void __launch_bounds__(ZKPIPE__CUDA_BLOCK)
    negate_kernel(typename T::fe *out, const typename T::fe *in, uint32_t n, typename T::fe f)
{
    uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n)
        T::negate(out, in, j, n, &f);
}

template <class T>
__global__ void __launch_bounds__(ZKPIPE__CUDA_BLOCK)
    quotient_kernel(typename T::fe *h, const typename T::fe *a, const typename T::fe *b,
                    const typename T::fe *c, uint32_t n, typename T::fe z_inv)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        T::quotient(h, a, b, c, i, &z_inv);
}

/* The state of one call: its stream, the size, the domain's constants and the twiddles. */
template <class T> struct ntt_run {
    typedef typename T::fe fe;
    cudaStream_t stream;
    unsigned log_n;
    uint32_t n;
    fe n_inv, one;
    fe *table;

    zkpipe_status launched(const char *what)
    {
        cudaError_t err = cudaGetLastError();
        return err == cudaSuccess ? ZKPIPE_OK : zkpipe__cuda_fail(err, what);
    }

    /* The twiddle table w_n^k, k < n/2. */
    zkpipe_status twiddles()
    {
        fe w = *T::root();
        for (unsigned i = log_n; i < T::two_adicity; i++)
            T::sqr(&w, &w);
        uint32_t half = n / 2,
                 chunks = (half + ZKPIPE__CUDA_NTT_CHUNK - 1) / ZKPIPE__CUDA_NTT_CHUNK;
        if (chunks > 0)
            powers_kernel<T>
                <<<zkpipe__cuda_blocks(chunks), ZKPIPE__CUDA_BLOCK, 0, stream>>>(table, half, w);
        return launched("NTT twiddles");
    }

    zkpipe_status scale(fe *a, const fe *factor, const fe *ratio)
    {
        uint32_t chunks = (n + ZKPIPE__CUDA_NTT_CHUNK - 1) / ZKPIPE__CUDA_NTT_CHUNK;
        scale_kernel<T>
            <<<zkpipe__cuda_blocks(chunks), ZKPIPE__CUDA_BLOCK, 0, stream>>>(a, n, *factor, *ratio);
        return launched("NTT scaling");
    }

    /* The forward transform of *x; the result is left in *x, whose old buffer is now *y. */
    zkpipe_status forward(fe **x, fe **y)
    {
        permute_kernel<T><<<zkpipe__cuda_blocks(n), ZKPIPE__CUDA_BLOCK, 0, stream>>>(*y, *x, log_n);
        for (unsigned s = 0; s < log_n; s++)
            stage_kernel<T><<<zkpipe__cuda_blocks(n / 2), ZKPIPE__CUDA_BLOCK, 0, stream>>>(
                *y, table, s, log_n);
        fe *t = *x;
        *x = *y;
        *y = t;
        return launched("NTT stages");
    }

    /* The inverse transform times `factor` (1/n for the plain inverse), as forward. */
    zkpipe_status inverse(fe **x, fe **y, const fe *factor)
    {
        zkpipe_status st = forward(x, y);
        if (st != ZKPIPE_OK)
            return st;
        negate_kernel<T>
            <<<zkpipe__cuda_blocks(n), ZKPIPE__CUDA_BLOCK, 0, stream>>>(*y, *x, n, *factor);
        fe *t = *x;
        *x = *y;
        *y = t;
        return launched("NTT index negation");
    }

    zkpipe_status transform(fe **x, fe **y, zkpipe__cuda_ntt_kind kind, const fe *g,
                            const fe *g_inv)
    {
        zkpipe_status st = ZKPIPE_OK;
        switch (kind) {
        case ZKPIPE__CUDA_NTT:
            return forward(x, y);
        case ZKPIPE__CUDA_INTT:
            return inverse(x, y, &n_inv);
        case ZKPIPE__CUDA_COSET_NTT:
            if ((st = scale(*x, &one, g)) == ZKPIPE_OK)
                st = forward(x, y);
            return st;
        default:
            if ((st = inverse(x, y, &one)) == ZKPIPE_OK)
                st = scale(*x, &n_inv, g_inv);
            return st;
        }
    }
};

/* A call's resources: the device arena (`buffers` arrays of n, then the twiddles), the stream
 * and the pinned staging buffer of n elements. */
template <class T> struct ntt_call {
    ntt_run<T> run;
    zkpipe__cuda_arena arena;
    size_t offsets[4];
    void *pinned;
    size_t bytes;
    zkpipe_ledger *ledger;

    typename T::fe *buffer(int k)
    {
        return (typename T::fe *)zkpipe__cuda_arena_at(&arena, offsets[k]);
    }

    /* Sets everything up, twiddles included; on error nothing is left. */
    zkpipe_status begin(int buffers, unsigned log_n, zkpipe_ledger *l)
    {
        typedef typename T::fe fe;
        if (log_n > T::two_adicity || log_n > 31)
            return ZKPIPE_ETOOBIG;
        ledger = l;
        pinned = NULL;
        run.log_n = log_n;
        run.n = (uint32_t)1 << log_n;
        bytes = (size_t)run.n * sizeof(fe);
        T::one(&run.one);
        T::from_u64(&run.n_inv, run.n);
        T::inv(&run.n_inv, &run.n_inv);
        arena.bytes = 0;
        for (int k = 0; k < buffers; k++)
            offsets[k] = zkpipe__cuda_arena_plan(&arena, bytes);
        size_t table = zkpipe__cuda_arena_plan(&arena, (size_t)(run.n / 2 + 1) * sizeof(fe));
        zkpipe_status st = zkpipe__cuda_arena_alloc(&arena, ledger);
        if (st != ZKPIPE_OK)
            return st;
        run.table = (fe *)zkpipe__cuda_arena_at(&arena, table);
        cudaError_t err = cudaStreamCreateWithFlags(&run.stream, cudaStreamNonBlocking);
        if (err != cudaSuccess) {
            zkpipe__cuda_arena_free(&arena);
            return zkpipe__cuda_fail(err, "cudaStreamCreate");
        }
        if ((st = zkpipe__cuda_pinned_alloc(&pinned, bytes, ledger)) != ZKPIPE_OK ||
            (st = run.twiddles()) != ZKPIPE_OK)
            end();
        return st;
    }

    void end()
    {
        cudaStreamSynchronize(run.stream);
        zkpipe__cuda_pinned_free(pinned, bytes, ledger);
        cudaStreamDestroy(run.stream);
        zkpipe__cuda_arena_free(&arena);
    }

    /* Host to device through the pinned buffer, in the stream's order (the previous upload
     * from it has finished first). */
    zkpipe_status upload(void *dev, const void *host)
    {
        cudaError_t err = cudaStreamSynchronize(run.stream);
        if (err == cudaSuccess) {
            memcpy(pinned, host, bytes);
            err = cudaMemcpyAsync(dev, pinned, bytes, cudaMemcpyHostToDevice, run.stream);
        }
        return err == cudaSuccess ? ZKPIPE_OK : zkpipe__cuda_fail(err, "NTT upload");
    }

    /* Device to host, after everything before it in the stream. */
    zkpipe_status download(void *host, const void *dev)
    {
        cudaError_t err = cudaMemcpyAsync(pinned, dev, bytes, cudaMemcpyDeviceToHost, run.stream);
        if (err == cudaSuccess)
            err = cudaStreamSynchronize(run.stream);
        if (err != cudaSuccess)
            return zkpipe__cuda_fail(err, "NTT download");
        memcpy(host, pinned, bytes);
        return ZKPIPE_OK;
    }
};

template <class T>
static zkpipe_status ntt(uint64_t *a, unsigned log_n, zkpipe__cuda_ntt_kind kind,
                         const uint64_t *shift, zkpipe_ledger *ledger)
{
    typedef typename T::fe fe;
    fe g, g_inv;
    int coset = kind == ZKPIPE__CUDA_COSET_NTT || kind == ZKPIPE__CUDA_COSET_INTT;
    if (a == NULL || (unsigned)kind > ZKPIPE__CUDA_COSET_INTT || (coset && shift == NULL))
        return ZKPIPE_EINVAL;
    if (coset) {
        memcpy(g.l, shift, sizeof g.l);
        if (!T::inv(&g_inv, &g))
            return ZKPIPE_EINVAL;
    }
    ntt_call<T> call;
    zkpipe_status st = call.begin(2, log_n, ledger);
    if (st != ZKPIPE_OK)
        return st;
    fe *x = call.buffer(0), *y = call.buffer(1);
    zkpipe__cuda_timer timer;
    if ((st = call.upload(x, a)) == ZKPIPE_OK) {
        zkpipe__cuda_timer_start(&timer, call.run.stream);
        st = call.run.transform(&x, &y, kind, &g, &g_inv);
        zkpipe__cuda_timer_stop(&timer, call.run.stream);
    }
    if (st == ZKPIPE_OK)
        st = call.download(a, x);
    call.end();
    return st;
}

/* The prover's h step (groth16/prove.h) with the buffers rotating: each of a, b, c is
 * interpolated and evaluated on the coset, a b - c lands in the spare buffer, and with
 * `coefficients` it is divided by Z there and a coset inverse gives h's coefficients (bellman's
 * form); without, h stays as those values (snarkjs's). */
template <class T>
static zkpipe_status h_step(uint64_t *h, const uint64_t *a, const uint64_t *b, const uint64_t *c,
                            unsigned log_n, const uint64_t *shift, int coefficients,
                            zkpipe_ledger *ledger)
{
    typedef typename T::fe fe;
    fe g, g_inv, z, z_inv, one;
    if (h == NULL || a == NULL || b == NULL || c == NULL || shift == NULL)
        return ZKPIPE_EINVAL;
    if (log_n > T::two_adicity || log_n > 31)
        return ZKPIPE_ETOOBIG;
    memcpy(g.l, shift, sizeof g.l);
    z = g; /* Z on the coset: g^n - 1 */
    for (unsigned i = 0; i < log_n; i++)
        T::sqr(&z, &z);
    T::one(&one);
    T::sub(&z, &z, &one);
    if (!T::inv(&g_inv, &g) || !T::inv(&z_inv, &z))
        return ZKPIPE_EINVAL;
    if (!coefficients)
        z_inv = one;
    ntt_call<T> call;
    zkpipe_status st = call.begin(4, log_n, ledger);
    if (st != ZKPIPE_OK)
        return st;
    ntt_run<T> *run = &call.run;
    const uint64_t *in[3] = {a, b, c};
    fe *buf[4];
    zkpipe__cuda_timer timer;
    for (int k = 0; k < 4; k++)
        buf[k] = call.buffer(k);
    zkpipe__cuda_timer_start(&timer, run->stream);
    for (int k = 0; k < 3 && st == ZKPIPE_OK; k++) {
        if ((st = call.upload(buf[k], in[k])) == ZKPIPE_OK &&
            (st = run->transform(&buf[k], &buf[3], ZKPIPE__CUDA_INTT, &g, &g_inv)) == ZKPIPE_OK)
            st = run->transform(&buf[k], &buf[3], ZKPIPE__CUDA_COSET_NTT, &g, &g_inv);
    }
    if (st == ZKPIPE_OK) {
        quotient_kernel<T><<<zkpipe__cuda_blocks(run->n), ZKPIPE__CUDA_BLOCK, 0, run->stream>>>(
            buf[3], buf[0], buf[1], buf[2], run->n, z_inv);
        st = run->launched("quotient");
    }
    if (st == ZKPIPE_OK && coefficients)
        st = run->transform(&buf[3], &buf[0], ZKPIPE__CUDA_COSET_INTT, &g, &g_inv);
    zkpipe__cuda_timer_stop(&timer, run->stream);
    if (st == ZKPIPE_OK)
        st = call.download(h, buf[3]);
    call.end();
    return st;
}

#define NTT_LAUNCHERS(F)                                                                           \
    extern "C" zkpipe_status zkpipe__cuda_ntt_##F(uint64_t *a, unsigned log_n,                     \
                                                  zkpipe__cuda_ntt_kind kind,                      \
                                                  const uint64_t *shift, zkpipe_ledger *ledger)    \
    {                                                                                              \
        return ntt<F##_ops>(a, log_n, kind, shift, ledger);                                        \
    }                                                                                              \
    extern "C" zkpipe_status zkpipe__cuda_h_##F(                                                   \
        uint64_t *h, const uint64_t *a, const uint64_t *b, const uint64_t *c, unsigned log_n,      \
        const uint64_t *shift, int coefficients, zkpipe_ledger *ledger)                            \
    {                                                                                              \
        return h_step<F##_ops>(h, a, b, c, log_n, shift, coefficients, ledger);                    \
    }

NTT_LAUNCHERS(bls12_381_fr)
NTT_LAUNCHERS(bn254_fr)
