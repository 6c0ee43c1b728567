/* The CUDA backend's host launchers, for C callers (the prover's backend table in
 * cuda/backend_cuda.c, the tests): NTTs and the prover's h step over Fr, and G1 MSMs, of
 * BLS12-381 and BN254. Internal to the CUDA plug-in (libzkpipe_cuda; its static library for
 * the tests and benchmarks that call them directly), built when nvcc is found.
 *
 * Common rules. Arrays are on the host in the layouts of src/ff and src/ec (scalars: 4 limbs
 * per element). Each call runs on its own CUDA stream on the current device and returns when
 * its results are on the host: ZKPIPE_OK, ZKPIPE_EINVAL (a NULL pointer where data is
 * needed), ZKPIPE_ETOOBIG (a size the kernels' 32-bit indices or the field cannot take),
 * ZKPIPE_EDEVICE (a CUDA call failed: zkpipe__cuda_last_error() says which and why), or an
 * error of the ledger. Device memory is one allocation per call, carved into sub-buffers and
 * charged to `ledger` (NULL: none) as ZKPIPE_KIND_DEVICE while it exists; the pinned host
 * buffer that stages a/b/c-sized transfers is charged as ZKPIPE_KIND_ABC. Everything is freed
 * and released before returning, whatever the status. Calls from several threads may run at
 * once (each has its own stream and memory). Results equal the CPU code's bit for bit. */
#ifndef ZKPIPE_CUDA_CUDA_BACKEND_H
#define ZKPIPE_CUDA_CUDA_BACKEND_H

#include "ec/bls12_381_g1.h"
#include "ec/bn254_g1.h"
#include "zkpipe/acct.h"
#include "zkpipe/status.h"

ZKPIPE_EXTERN_C_BEGIN

typedef enum zkpipe__cuda_ntt_kind {
    ZKPIPE__CUDA_NTT = 0,        /* coefficients -> evaluations on <w_n> */
    ZKPIPE__CUDA_INTT = 1,       /* its inverse */
    ZKPIPE__CUDA_COSET_NTT = 2,  /* coefficients -> evaluations on shift <w_n> */
    ZKPIPE__CUDA_COSET_INTT = 3, /* its inverse */
} zkpipe__cuda_ntt_kind;

/* The prover's probe (zkpipe__g16_backend's): 1 when a CUDA device is usable, else 0; *why a
 * static line naming what is missing (the driver, a device). */
int zkpipe__cuda_probe(const char **why);

/* zkpipe_ledger_charge and zkpipe_ledger_release of the core that loaded the plug-in, through
 * the table it lent (cuda/plugin.c): the plug-in links nothing of zkpipe. */
zkpipe_status zkpipe__cuda_charge(zkpipe_ledger *ledger, uint32_t kind, uint64_t bytes);
zkpipe_status zkpipe__cuda_release(zkpipe_ledger *ledger, uint32_t kind, uint64_t bytes);

/* The message of the last CUDA failure on this thread ("" when none): the call that failed
 * and CUDA's name and text for the error. A static per-thread buffer, valid until the thread's
 * next failing call. */
const char *zkpipe__cuda_last_error(void);

/* The device milliseconds of this thread's last launcher call that reached the device: the
 * NTT's and the MSM's kernels, transfers excluded; the h step's kernels with the uploads of
 * a, b and c among them. -1 before any such call or when timing failed. */
double zkpipe__cuda_last_device_ms(void);

/* For F = bls12_381_fr, bn254_fr:
 *
 * zkpipe__cuda_ntt_F(a, log_n, kind, shift, ledger) : the transform `kind` of the 2^log_n
 *   Montgomery elements at `a`, in place, as poly/ntt.h's zkpipe__F_ntt, _intt, _coset_ntt
 *   and _coset_intt. shift (coset kinds only, else ignored) must be non-zero (EINVAL).
 *   log_n up to F_TWO_ADICITY and 31 (ETOOBIG).
 * zkpipe__cuda_h_F(h, a, b, c, log_n, shift, coefficients, ledger) : the prover's h step as
 *   its CPU backend computes it (groth16/backend.c): from the evaluations a, b, c over the
 *   domain (read only; h may be a, since all three are on the device before h comes back),
 *   a b - c on the coset shift <w> (g^n != 1, else EINVAL), divided by Z there and brought
 *   back to its 2^log_n coefficients when `coefficients` (bellman's form), left as those
 *   values otherwise (snarkjs's). Device memory: 4.5 n elements. */
#define ZKPIPE__CUDA_NTT_DECLARE(F)                                                                \
    zkpipe_status zkpipe__cuda_ntt_##F(uint64_t *a, unsigned log_n, zkpipe__cuda_ntt_kind kind,    \
                                       const uint64_t *shift, zkpipe_ledger *ledger);              \
    zkpipe_status zkpipe__cuda_h_##F(uint64_t *h, const uint64_t *a, const uint64_t *b,            \
                                     const uint64_t *c, unsigned log_n, const uint64_t *shift,     \
                                     int coefficients, zkpipe_ledger *ledger);

ZKPIPE__CUDA_NTT_DECLARE(bls12_381_fr)
ZKPIPE__CUDA_NTT_DECLARE(bn254_fr)

/* For G = bls12_381_g1, bn254_g1:
 *
 * zkpipe__cuda_msm_G(out, bases, scalars, density, nvars, mont, ledger) : *out = the sum
 *   msm/msm.h's zkpipe__msm_G_ex computes with the same arguments (density NULL: every
 *   variable; mont: scalars are Montgomery-form Fr elements, else any 256-bit integers), by
 *   Pippenger's method on the GPU (cuda/msm_kernel.h). No dense base gives the point at
 *   infinity without touching the device. windows * dense count must stay below 2^31
 *   (ETOOBIG), which allows 2^27 points. Device memory: about 100 bytes per point and
 *   window-bucket pair. */
#define ZKPIPE__CUDA_MSM_DECLARE(G)                                                                \
    zkpipe_status zkpipe__cuda_msm_##G(G *out, const G##_affine *bases, const uint64_t *scalars,   \
                                       const uint64_t *density, size_t nvars, int mont,            \
                                       zkpipe_ledger *ledger);

ZKPIPE__CUDA_MSM_DECLARE(bls12_381_g1)
ZKPIPE__CUDA_MSM_DECLARE(bn254_g1)

ZKPIPE_EXTERN_C_END

#endif
