/*! zkpipe/cpu.h : which CPU extensions the field arithmetic uses, and the knob that masks them.
 *
 * One build runs on every x86-64: as the library loads it asks the CPU (and the OS, for the
 * AVX-512 registers) which extensions it has and picks the fastest paths that work there:
 *
 *   ZKPIPE_CPU_ADX     BMI2 and ADX: Montgomery multiplication with mulx/adcx/adox (every
 *                      field);
 *   ZKPIPE_CPU_AVX512  AVX-512F: batched affine point additions in the MSMs on 8 lanes of
 *                      32-bit products, where IFMA is missing (Skylake-SP, Cascade Lake);
 *   ZKPIPE_CPU_IFMA    AVX-512F and AVX-512 IFMA: 8-lane NTT butterflies and batched affine
 *                      point additions on 52-bit products (they replace the AVX512 lanes).
 *
 * Without any, portable C runs (the only path on other architectures). The environment
 * variable ZKPIPE_CPU_MASK turns paths off, like OpenSSL's OPENSSL_ia32cap: a list of words
 * separated by commas, spaces or '+', any case:
 *
 *   ifma           no IFMA lanes (the AVX512 lanes take the MSMs' additions, where present);
 *   avx512         no AVX-512 lanes at all (avx512 and ifma);
 *   adx (or bmi2)  no mulx/adcx/adox multipliers;
 *   all            all three; the portable C everywhere.
 *
 * e.g. ZKPIPE_CPU_MASK=ifma measures the path that AVX-512 CPUs without IFMA take, on one that
 * has it, and ZKPIPE_CPU_MASK=avx512 the path of CPUs without AVX-512 (AVX2 servers, AMD's
 * before Zen 4). It is read once, as the library loads (before main); changing it later has no
 * effect. A word that is none of these masks nothing and is reported (mask_valid false). Masking
 * only ever turns a path off: it cannot turn on one the CPU lacks. Proofs are the same whatever the
 * mask; only the speed changes. */
#ifndef ZKPIPE_CPU_H
#define ZKPIPE_CPU_H

#include "zkpipe/common.h"

ZKPIPE_EXTERN_C_BEGIN

#define ZKPIPE_CPU_ADX 1u    /* BMI2 and ADX multipliers */
#define ZKPIPE_CPU_IFMA 2u   /* AVX-512F and AVX-512 IFMA lanes */
#define ZKPIPE_CPU_AVX512 4u /* AVX-512F lanes (32-bit products) */

typedef struct zkpipe_cpu_info {
    unsigned detected; /* ZKPIPE_CPU_* bits the CPU and the OS offer */
    unsigned masked;   /* bits ZKPIPE_CPU_MASK turned off (whether or not they were detected) */
    unsigned in_use;   /* detected & ~masked: the paths the arithmetic takes */
    int mask_valid;    /* 0 when ZKPIPE_CPU_MASK held a word it does not know, else 1 */
} zkpipe_cpu_info;

/*! zkpipe_cpu_info_get() : the extensions detected, masked and in use, as fixed at load time.
 * @param out receives the figures; nothing is done when it is NULL.
 * Thread safety: any thread. Does not allocate. */
ZKPIPE_API void zkpipe_cpu_info_get(zkpipe_cpu_info *out);

/*! zkpipe_cpu_features_name() : a set of ZKPIPE_CPU_* bits as text, the names joined by '+'
 * in the order adx, avx512, ifma ("adx+avx512+ifma", "adx", "avx512+ifma"...), or "none" (no
 * bit: the portable C). Bits that are not ZKPIPE_CPU_* are ignored.
 * @return a static string, valid for the life of the process.
 * Thread safety: any thread. Does not allocate. */
ZKPIPE_API const char *zkpipe_cpu_features_name(unsigned features);

/*! zkpipe_cpu_json() : zkpipe_cpu_info_get()'s figures as one JSON object, for a tool's --json
 * line or a status page: {"in_use":"adx+avx512","detected":"adx+avx512+ifma",
 * "masked":"ifma","mask_valid":true} (names as zkpipe_cpu_features_name writes them).
 * @return a static, NUL-terminated string without a newline, valid for the life of the process.
 * Thread safety: any thread. Does not allocate. */
ZKPIPE_API const char *zkpipe_cpu_json(void);

ZKPIPE_EXTERN_C_END

#endif
