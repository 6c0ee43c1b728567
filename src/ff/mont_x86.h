/* Montgomery multiplication for x86-64 hosts with BMI2 and ADX: mulx leaves the flags alone and
 * adcx/adox carry through CF and OF separately, so each row adds the low and the high words
 * of its products in two independent carry chains instead of one serial adc chain (the C of
 * limbs.h compiles to one chain per row). A dependent chain of multiplications measured about
 * a sixth shorter on 6 limbs and a fifth shorter on 4 than the C (bench_ff, gcc 12).
 *
 * Runtime dispatch rather than a compile-time -mbmi2 -madx: the instructions come from inline
 * asm, which needs no compiler flag, so one build runs on every x86-64 and a binary built on
 * a new machine cannot die with SIGILL on an old one. fp.h takes this path when
 * zkpipe__ff_x86_adx says the CPU has both (set once at load time by cpu_features.c): one
 * well-predicted branch per multiplication. nvcc never sees the asm (ZKPIPE__FF_X86 is 0 under
 * __CUDACC__).
 *
 * The algorithm is the CIOS of limbs.h with one extra accumulator limb: per limb b_i of b,
 * t += a b_i, then t = (t + m p) / 2^64 with m = t_0 inv mod 2^64. The division is free: the
 * register holding t_0 becomes zero and serves as the next row's top limb, so each row names
 * the registers one place further round (the macros below take them in order). */
#ifndef ZKPIPE_FF_MONT_X86_H
#define ZKPIPE_FF_MONT_X86_H

#include <stdint.h>

#include "limbs.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#define ZKPIPE__FF_X86 1
#else
#define ZKPIPE__FF_X86 0
#endif

#if ZKPIPE__FF_X86

/* Nonzero when the CPU has BMI2 and ADX, unmasked; written once before main (cpu_features.c). */
extern int zkpipe__ff_x86_adx;

/* t0 t1 ... += rdx * a_j at limb j: low word into LO's chain (CF), high word into HI's (OF). */
#define ZKPIPE__X86_MULADD(SRC, OFF, LO, HI)                                                       \
    "mulxq " #OFF "(%[" #SRC "]), %[lo], %[hi]\n\t"                                                \
    "adcxq %[lo], %[" #LO "]\n\t"                                                                  \
    "adoxq %[hi], %[" #HI "]\n\t"

/* First row: t = a b_0 into the registers T0.., from zero; MULADD_FIRST continues the adc
 * chain one limb further. */
#define ZKPIPE__X86_MULADD_FIRST(OFF, LO, HI)                                                      \
    "mulxq " #OFF "(%[a]), %[lo], %[" #HI "]\n\t"                                                  \
    "adcq %[lo], %[" #LO "]\n\t"
#define ZKPIPE__X86_FIRST4(T0, T1, T2, T3, T4)                                                     \
    "movq 0(%[b]), %%rdx\n\t"                                                                      \
    "mulxq 0(%[a]), %[" #T0 "], %[" #T1 "]\n\t"                                                    \
    "mulxq 8(%[a]), %[lo], %[" #T2 "]\n\t"                                                         \
    "addq %[lo], %[" #T1 "]\n\t" ZKPIPE__X86_MULADD_FIRST(16, T2, T3)                              \
        ZKPIPE__X86_MULADD_FIRST(24, T3, T4)
#define ZKPIPE__X86_FIRST_END(TOP) "adcq $0, %[" #TOP "]\n\t"

/* t += a b_i with t's top limb T4 zero on entry. xor clears CF and OF. */
#define ZKPIPE__X86_ROW4(BOFF, T0, T1, T2, T3, T4)                                                 \
    "movq " #BOFF "(%[b]), %%rdx\n\t"                                                              \
    "xorl %k[lo], %k[lo]\n\t" ZKPIPE__X86_MULADD(a, 0, T0, T1) ZKPIPE__X86_MULADD(a, 8, T1, T2)    \
        ZKPIPE__X86_MULADD(a, 16, T2, T3) ZKPIPE__X86_MULADD(a, 24, T3, T4) "adcq $0, %[" #T4      \
                                                                            "]\n\t"

/* t = (t + m p) / 2^64: T0 ends zero and becomes the top limb of the next row. */
#define ZKPIPE__X86_REDUCE4(T0, T1, T2, T3, T4)                                                    \
    "movq %[" #T0 "], %%rdx\n\t"                                                                   \
    "imulq %[inv], %%rdx\n\t"                                                                      \
    "xorl %k[lo], %k[lo]\n\t" ZKPIPE__X86_MULADD(p, 0, T0, T1) ZKPIPE__X86_MULADD(p, 8, T1, T2)    \
        ZKPIPE__X86_MULADD(p, 16, T2, T3) ZKPIPE__X86_MULADD(p, 24, T3, T4) "adcxq %[" #T0         \
                                                                            "], %[" #T4 "]\n\t"

#define ZKPIPE__X86_FIRST6(T0, T1, T2, T3, T4, T5, T6)                                             \
    ZKPIPE__X86_FIRST4(T0, T1, T2, T3, T4)                                                         \
    ZKPIPE__X86_MULADD_FIRST(32, T4, T5) ZKPIPE__X86_MULADD_FIRST(40, T5, T6)

#define ZKPIPE__X86_ROW6(BOFF, T0, T1, T2, T3, T4, T5, T6)                                         \
    "movq " #BOFF "(%[b]), %%rdx\n\t"                                                              \
    "xorl %k[lo], %k[lo]\n\t" ZKPIPE__X86_MULADD(a, 0, T0, T1) ZKPIPE__X86_MULADD(a, 8, T1, T2)    \
        ZKPIPE__X86_MULADD(a, 16, T2, T3) ZKPIPE__X86_MULADD(a, 24, T3, T4)                        \
            ZKPIPE__X86_MULADD(a, 32, T4, T5) ZKPIPE__X86_MULADD(a, 40, T5, T6) "adcq $0, %[" #T6  \
                                                                                "]\n\t"

#define ZKPIPE__X86_REDUCE6(T0, T1, T2, T3, T4, T5, T6)                                            \
    "movq %[" #T0 "], %%rdx\n\t"                                                                   \
    "imulq %[inv], %%rdx\n\t"                                                                      \
    "xorl %k[lo], %k[lo]\n\t" ZKPIPE__X86_MULADD(p, 0, T0, T1) ZKPIPE__X86_MULADD(p, 8, T1, T2)    \
        ZKPIPE__X86_MULADD(p, 16, T2, T3) ZKPIPE__X86_MULADD(p, 24, T3, T4)                        \
            ZKPIPE__X86_MULADD(p, 32, T4, T5)                                                      \
                ZKPIPE__X86_MULADD(p, 40, T5, T6) "adcxq %[" #T0 "], %[" #T6 "]\n\t"

/* Each routine below but the _lazy multipliers (whose callers chain their results below 2 p
 * into further products, fp.h's F_mul_lazy) ends with zkpipe__limbs_reduce_once (t - p when
 * t >= p, for t < 2p): a subtraction and conditional moves, so the result goes from registers
 * to r. Comparing the limbs one by one with branches kept them in a stack array that was
 * copied out with 16-byte loads, which cannot be forwarded from the 8-byte stores before them,
 * and the top limbs' comparison was hard to predict: a dependent chain of multiplications took
 * a third longer that way on 4 limbs and a sixth longer on 6. */

/* The asm reads a, b and p through its pointer operands, which the "memory" clobber declares:
 * naming the arrays as memory operands too took more registers than clang's TSan build has
 * left (13 of 14 are already the operands here). */

/* r = a b / 2^256 mod p, below 2 p, for 4-limb a, b < 2 p and 4 p < 2^256, without the final
 * subtraction: (a b + m p) / 2^256 < (4 p^2 / 2^256 + 1) p < 2 p. r may alias a or b. Needs
 * BMI2 and ADX. */
ZKPIPE__FF_INLINE void zkpipe__mont_mul4_x86_lazy(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                                  const uint64_t *p, uint64_t inv)
{
    uint64_t t0, t1, t2, t3, t4, lo, hi;
    __asm__(ZKPIPE__X86_FIRST4(t0, t1, t2, t3, t4) ZKPIPE__X86_FIRST_END(t4)
                ZKPIPE__X86_REDUCE4(t0, t1, t2, t3, t4) ZKPIPE__X86_ROW4(8, t1, t2, t3, t4, t0)
                    ZKPIPE__X86_REDUCE4(t1, t2, t3, t4, t0) ZKPIPE__X86_ROW4(16, t2, t3, t4, t0, t1)
                        ZKPIPE__X86_REDUCE4(t2, t3, t4, t0, t1)
                            ZKPIPE__X86_ROW4(24, t3, t4, t0, t1, t2)
                                ZKPIPE__X86_REDUCE4(t3, t4, t0, t1, t2)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [a] "r"(a), [b] "r"(b), [p] "r"(p), [inv] "m"(inv)
            : "rdx", "cc", "memory");
    r[0] = t4;
    r[1] = t0;
    r[2] = t1;
    r[3] = t2;
}

/* r = a b / 2^384 mod p, below 2 p, for 6-limb a, b < 2 p and 4 p < 2^384 (as
 * zkpipe__mont_mul4_x86_lazy). r may alias a or b. Needs BMI2 and ADX. */
ZKPIPE__FF_INLINE void zkpipe__mont_mul6_x86_lazy(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                                  const uint64_t *p, uint64_t inv)
{
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi;
    __asm__(ZKPIPE__X86_FIRST6(t0, t1, t2, t3, t4, t5, t6) ZKPIPE__X86_FIRST_END(t6)
                ZKPIPE__X86_REDUCE6(t0, t1, t2, t3, t4, t5, t6) ZKPIPE__X86_ROW6(
                    8, t1, t2, t3, t4, t5, t6, t0) ZKPIPE__X86_REDUCE6(t1, t2, t3, t4, t5, t6, t0)
                    ZKPIPE__X86_ROW6(16, t2, t3, t4, t5, t6, t0, t1)
                        ZKPIPE__X86_REDUCE6(t2, t3, t4, t5, t6, t0, t1)
                            ZKPIPE__X86_ROW6(24, t3, t4, t5, t6, t0, t1, t2)
                                ZKPIPE__X86_REDUCE6(t3, t4, t5, t6, t0, t1, t2)
                                    ZKPIPE__X86_ROW6(32, t4, t5, t6, t0, t1, t2, t3)
                                        ZKPIPE__X86_REDUCE6(t4, t5, t6, t0, t1, t2, t3)
                                            ZKPIPE__X86_ROW6(40, t5, t6, t0, t1, t2, t3, t4)
                                                ZKPIPE__X86_REDUCE6(t5, t6, t0, t1, t2, t3, t4)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [a] "r"(a), [b] "r"(b), [p] "r"(p), [inv] "m"(inv)
            : "rdx", "cc", "memory");
    r[0] = t6;
    r[1] = t0;
    r[2] = t1;
    r[3] = t2;
    r[4] = t3;
    r[5] = t4;
}

/* The lazy multiplier of n limbs, n 4 or 6 (a constant where it is inlined). */
ZKPIPE__FF_INLINE void zkpipe__mont_mul_x86_lazy(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                                 const uint64_t *p, uint64_t inv, int n)
{
    if (n == 4)
        zkpipe__mont_mul4_x86_lazy(r, a, b, p, inv);
    else
        zkpipe__mont_mul6_x86_lazy(r, a, b, p, inv);
}

/* r = a b / 2^(64 n) mod p for n-limb a, b < p (or below 2 p where 4 p < 2^(64 n)), n 4 or 6
 * (a constant where it is inlined); r may alias a or b. Needs BMI2 and ADX. */
ZKPIPE__FF_INLINE void zkpipe__mont_mul_x86(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                            const uint64_t *p, uint64_t inv, int n)
{
    uint64_t t[6];
    zkpipe__mont_mul_x86_lazy(t, a, b, p, inv, n);
    zkpipe__limbs_reduce_once(r, t, p, n);
}

/* The halves of the multiplier for lazy reduction (limbs.h's zkpipe__limbs_mul_wide and
 * zkpipe__mont_reduce). The product's rows rotate through the registers as in the multiplier,
 * but where that reduces the low limb away, these store it as a limb of the product and
 * clear the register to be the next row's top limb. */
#define ZKPIPE__X86_STORE(T, OFF)                                                                  \
    "movq %[" #T "], " #OFF "(%[t])\n\t"                                                           \
    "xorl %k[" #T "], %k[" #T "]\n\t"

/* t[0..8) = a b for any 4-limb a and b. Needs BMI2 and ADX. */
ZKPIPE__FF_INLINE void zkpipe__mul_wide4_x86(uint64_t *t, const uint64_t *a, const uint64_t *b)
{
    uint64_t t0, t1, t2, t3, t4, lo, hi;
    __asm__(ZKPIPE__X86_FIRST4(t0, t1, t2, t3, t4) ZKPIPE__X86_FIRST_END(t4)
                ZKPIPE__X86_STORE(t0, 0) ZKPIPE__X86_ROW4(8, t1, t2, t3, t4, t0)
                    ZKPIPE__X86_STORE(t1, 8) ZKPIPE__X86_ROW4(16, t2, t3, t4, t0, t1)
                        ZKPIPE__X86_STORE(t2, 16) ZKPIPE__X86_ROW4(24, t3, t4, t0, t1, t2)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [a] "r"(a), [b] "r"(b), [t] "r"(t)
            : "rdx", "cc", "memory");
    t[3] = t3;
    t[4] = t4;
    t[5] = t0;
    t[6] = t1;
    t[7] = t2;
}

/* t[0..12) = a b for any 6-limb a and b. Needs BMI2 and ADX. */
ZKPIPE__FF_INLINE void zkpipe__mul_wide6_x86(uint64_t *t, const uint64_t *a, const uint64_t *b)
{
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi;
    __asm__(ZKPIPE__X86_FIRST6(t0, t1, t2, t3, t4, t5, t6) ZKPIPE__X86_FIRST_END(t6)
                ZKPIPE__X86_STORE(t0, 0) ZKPIPE__X86_ROW6(8, t1, t2, t3, t4, t5, t6, t0)
                    ZKPIPE__X86_STORE(t1, 8) ZKPIPE__X86_ROW6(16, t2, t3, t4, t5, t6, t0, t1)
                        ZKPIPE__X86_STORE(t2, 16) ZKPIPE__X86_ROW6(24, t3, t4, t5, t6, t0, t1, t2)
                            ZKPIPE__X86_STORE(t3, 24) ZKPIPE__X86_ROW6(32, t4, t5, t6, t0, t1, t2,
                                                                       t3) ZKPIPE__X86_STORE(t4, 32)
                                ZKPIPE__X86_ROW6(40, t5, t6, t0, t1, t2, t3, t4)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [a] "r"(a), [b] "r"(b), [t] "r"(t)
            : "rdx", "cc", "memory");
    t[5] = t5;
    t[6] = t6;
    t[7] = t0;
    t[8] = t1;
    t[9] = t2;
    t[10] = t3;
    t[11] = t4;
}

/* Loads t's low limbs into the registers the reduction rounds start from. */
#define ZKPIPE__X86_LOAD(T, OFF) "movq " #OFF "(%[t]), %[" #T "]\n\t"

/* r = t / 2^256 mod p for an 8-limb t < p 2^256 (as zkpipe__mont_reduce: four rounds on the
 * low half, then the high half added). Needs BMI2 and ADX. */
ZKPIPE__FF_INLINE void zkpipe__mont_reduce4_x86(uint64_t *r, const uint64_t *t, const uint64_t *p,
                                                uint64_t inv)
{
    uint64_t t0, t1, t2, t3, t4, lo, hi;
    __asm__(ZKPIPE__X86_LOAD(t0, 0) ZKPIPE__X86_LOAD(t1, 8) ZKPIPE__X86_LOAD(t2, 16)
                ZKPIPE__X86_LOAD(t3, 24) "xorl %k[t4], %k[t4]\n\t" ZKPIPE__X86_REDUCE4(
                    t0, t1, t2, t3, t4) ZKPIPE__X86_REDUCE4(t1, t2, t3, t4, t0)
                    ZKPIPE__X86_REDUCE4(t2, t3, t4, t0, t1) ZKPIPE__X86_REDUCE4(t3, t4, t0, t1, t2)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [t] "r"(t), [p] "r"(p), [inv] "m"(inv)
            : "rdx", "cc", "memory");
    uint64_t u[4] = {t4, t0, t1, t2};
    zkpipe__limbs_add(u, u, t + 4, 4);
    zkpipe__limbs_reduce_once(r, u, p, 4);
}

/* r = t / 2^384 mod p for a 12-limb t < p 2^384. Needs BMI2 and ADX. */
ZKPIPE__FF_INLINE void zkpipe__mont_reduce6_x86(uint64_t *r, const uint64_t *t, const uint64_t *p,
                                                uint64_t inv)
{
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi;
    __asm__(ZKPIPE__X86_LOAD(t0, 0) ZKPIPE__X86_LOAD(t1, 8) ZKPIPE__X86_LOAD(t2, 16)
                ZKPIPE__X86_LOAD(t3, 24) ZKPIPE__X86_LOAD(t4, 32)
                    ZKPIPE__X86_LOAD(t5, 40) "xorl %k[t6], %k[t6]\n\t" ZKPIPE__X86_REDUCE6(
                        t0, t1, t2, t3, t4, t5, t6) ZKPIPE__X86_REDUCE6(t1, t2, t3, t4, t5, t6, t0)
                        ZKPIPE__X86_REDUCE6(t2, t3, t4, t5, t6, t0, t1)
                            ZKPIPE__X86_REDUCE6(t3, t4, t5, t6, t0, t1, t2)
                                ZKPIPE__X86_REDUCE6(t4, t5, t6, t0, t1, t2, t3)
                                    ZKPIPE__X86_REDUCE6(t5, t6, t0, t1, t2, t3, t4)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [t] "r"(t), [p] "r"(p), [inv] "m"(inv)
            : "rdx", "cc", "memory");
    uint64_t u[6] = {t6, t0, t1, t2, t3, t4};
    zkpipe__limbs_add(u, u, t + 6, 6);
    zkpipe__limbs_reduce_once(r, u, p, 6);
}

/* Squaring: each product a_i a_j (i < j) appears twice in a^2, so the triangle of them is
 * summed once, doubled, and the squares a_i^2 are added on the diagonal, before the rounds of
 * the reduction above: n(n+1)/2 products instead of n^2 before reducing (10 instead of 16 on
 * 4 limbs, 21 instead of 36 on 6).
 *
 * Row i of the triangle (rdx = a_i) adds a_i a_j for j > i at limbs i + j and i + j + 1, so it
 * starts at limb 2i + 1 and its top limb is new. The doubling runs on CF's chain and the
 * diagonal on OF's, limb by limb from the bottom. */
/* The first product of row 0, which starts its adc chain. */
#define ZKPIPE__X86_SQR_ROW0(LO, HI)                                                               \
    "movq 0(%[a]), %%rdx\n\t"                                                                      \
    "mulxq 8(%[a]), %[" #LO "], %[" #HI "]\n\t"
#define ZKPIPE__X86_SQR_ADD_FIRST(OFF, LO, HI)                                                     \
    "mulxq " #OFF "(%[a]), %[lo], %[" #HI "]\n\t"                                                  \
    "addq %[lo], %[" #LO "]\n\t"
/* Row i > 0: rdx = a_i and its new top limb TOP zeroed; xor also clears CF and OF. */
#define ZKPIPE__X86_SQR_ROW(AOFF, TOP)                                                             \
    "movq " #AOFF "(%[a]), %%rdx\n\t"                                                              \
    "xorl %k[" #TOP "], %k[" #TOP "]\n\t"
/* rdx = a_i, and a_i^2 into lo and hi. */
#define ZKPIPE__X86_SQR_SQUARE(AOFF)                                                               \
    "movq " #AOFF "(%[a]), %%rdx\n\t"                                                              \
    "mulxq %%rdx, %[lo], %[hi]\n\t"
/* Limb T doubled, plus W: one step of both chains; _MEM for a limb in memory at OFF. */
#define ZKPIPE__X86_SQR_DIAG(T, W)                                                                 \
    "adcxq %[" #T "], %[" #T "]\n\t"                                                               \
    "adoxq %[" #W "], %[" #T "]\n\t"
#define ZKPIPE__X86_SQR_REG(T, OFF, W)                                                             \
    "movq " #OFF "(%[t]), %[" #T "]\n\t" ZKPIPE__X86_SQR_DIAG(T, W)
/* The top limb, which holds no product: 0 doubled plus CF, plus hi and OF (mov keeps the
 * flags). */
#define ZKPIPE__X86_SQR_TOP(OFF)                                                                   \
    "movl $0, %k[r6]\n\t" ZKPIPE__X86_SQR_DIAG(r6, hi) ZKPIPE__X86_STORE_T(r6, OFF)
#define ZKPIPE__X86_SQR_MEM(OFF, W)                                                                \
    "movq " #OFF "(%[t]), %[r6]\n\t" ZKPIPE__X86_SQR_DIAG(r6, W) ZKPIPE__X86_STORE_T(r6, OFF)
#define ZKPIPE__X86_STORE_T(T, OFF) "movq %[" #T "], " #OFF "(%[t])\n\t"
/* The high half from memory onto the reduced low half (r6, r0..r4). */
#define ZKPIPE__X86_SQR_HIGH6                                                                      \
    "addq 48(%[t]), %[r6]\n\t"                                                                     \
    "adcq 56(%[t]), %[r0]\n\t"                                                                     \
    "adcq 64(%[t]), %[r1]\n\t"                                                                     \
    "adcq 72(%[t]), %[r2]\n\t"                                                                     \
    "adcq 80(%[t]), %[r3]\n\t"                                                                     \
    "adcq 88(%[t]), %[r4]\n\t"

/* r = a^2 / 2^256 mod p for a 4-limb a < p; r may alias a. Needs BMI2 and ADX. Every limb
 * stays in a register; a's register becomes the reduction's top limb once a is read. */
ZKPIPE__FF_INLINE void zkpipe__mont_sqr4_x86(uint64_t *r, const uint64_t *a, const uint64_t *p,
                                             uint64_t inv)
{
    uint64_t t0, t1, t2, t3, t4, t5, t6, t7, lo, hi, z = (uint64_t)(uintptr_t)a;
    __asm__(/* the triangle: row 0 at limbs 1..4, row 1 at 3..5, row 2 at 5, 6 */
            "movq 0(%[z]), %%rdx\n\t"
            "mulxq 8(%[z]), %[t1], %[t2]\n\t"
            "mulxq 16(%[z]), %[lo], %[t3]\n\t"
            "addq %[lo], %[t2]\n\t"
            "mulxq 24(%[z]), %[lo], %[t4]\n\t"
            "adcq %[lo], %[t3]\n\t" ZKPIPE__X86_FIRST_END(
                t4) "movq 8(%[z]), %%rdx\n\t"
                    "xorl %k[t5], %k[t5]\n\t" ZKPIPE__X86_MULADD(z, 16, t3, t4)
                        ZKPIPE__X86_MULADD(z, 24, t4, t5) ZKPIPE__X86_FIRST_END(
                            t5) "movq 16(%[z]), %%rdx\n\t"
                                "mulxq 24(%[z]), %[lo], %[t6]\n\t"
                                "addq %[lo], %[t5]\n\t" ZKPIPE__X86_FIRST_END(t6)
            /* doubled, plus the diagonal; limb 0 holds no product */
            "xorl %k[t7], %k[t7]\n\t"
            "movq 0(%[z]), %%rdx\n\t"
            "mulxq %%rdx, %[t0], %[hi]\n\t" ZKPIPE__X86_SQR_DIAG(
                t1,
                hi) "movq 8(%[z]), %%rdx\n\t"
                    "mulxq %%rdx, %[lo], %[hi]\n\t" ZKPIPE__X86_SQR_DIAG(t2, lo)
                        ZKPIPE__X86_SQR_DIAG(
                            t3,
                            hi) "movq 16(%[z]), %%rdx\n\t"
                                "mulxq %%rdx, %[lo], %[hi]\n\t" ZKPIPE__X86_SQR_DIAG(t4, lo)
                                    ZKPIPE__X86_SQR_DIAG(
                                        t5,
                                        hi) "movq 24(%[z]), %%rdx\n\t"
                                            "mulxq %%rdx, %[lo], %[hi]\n\t" ZKPIPE__X86_SQR_DIAG(
                                                t6, lo) ZKPIPE__X86_SQR_DIAG(t7, hi)
            /* four rounds on the low half, then the high half added */
            "xorl %k[z], %k[z]\n\t" ZKPIPE__X86_REDUCE4(t0, t1, t2, t3, z)
                ZKPIPE__X86_REDUCE4(t1, t2, t3, z, t0) ZKPIPE__X86_REDUCE4(t2, t3, z, t0, t1)
                    ZKPIPE__X86_REDUCE4(t3, z, t0, t1, t2) "addq %[t4], %[z]\n\t"
                                                           "adcq %[t5], %[t0]\n\t"
                                                           "adcq %[t6], %[t1]\n\t"
                                                           "adcq %[t7], %[t2]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [t6] "=&r"(t6), [t7] "=&r"(t7), [lo] "=&r"(lo), [hi] "=&r"(hi),
              [z] "+&r"(z)
            : [p] "r"(p), [inv] "m"(inv)
            : "rdx", "cc", "memory");
    uint64_t t[4] = {z, t0, t1, t2}; /* below 2p, as in zkpipe__mont_reduce */
    (void)t3;
    zkpipe__limbs_reduce_once(r, t, p, 4);
}

/* r = a^2 / 2^384 mod p for a 6-limb a < p; r may alias a. Needs BMI2 and ADX. The triangle's
 * limbs go to memory as they are finished (limbs below 2i + 3 after row i), the low half
 * returns to registers for the reduction and the high half is added from memory. */
ZKPIPE__FF_INLINE void zkpipe__mont_sqr6_x86(uint64_t *r, const uint64_t *a, const uint64_t *p,
                                             uint64_t inv)
{
    uint64_t t[12], r0, r1, r2, r3, r4, r5, r6, lo, hi;
    __asm__(/* row 0: limbs 1..6 in r0..r5 */
            ZKPIPE__X86_SQR_ROW0(r0, r1) ZKPIPE__X86_SQR_ADD_FIRST(16, r1, r2)
                ZKPIPE__X86_MULADD_FIRST(24, r2, r3) ZKPIPE__X86_MULADD_FIRST(32, r3, r4)
                    ZKPIPE__X86_MULADD_FIRST(40, r4, r5) ZKPIPE__X86_FIRST_END(r5)
                        ZKPIPE__X86_STORE_T(r0, 8) ZKPIPE__X86_STORE_T(r1, 16)
            /* row 1: limbs 3..7, limb 7 in r0 */
            ZKPIPE__X86_SQR_ROW(8, r0) ZKPIPE__X86_MULADD(a, 16, r2, r3)
                ZKPIPE__X86_MULADD(a, 24, r3, r4) ZKPIPE__X86_MULADD(a, 32, r4, r5)
                    ZKPIPE__X86_MULADD(a, 40, r5, r0) ZKPIPE__X86_FIRST_END(r0)
                        ZKPIPE__X86_STORE_T(r2, 24) ZKPIPE__X86_STORE_T(r3, 32)
            /* row 2: limbs 5..8, limb 8 in r1 */
            ZKPIPE__X86_SQR_ROW(16, r1) ZKPIPE__X86_MULADD(a, 24, r4, r5)
                ZKPIPE__X86_MULADD(a, 32, r5, r0) ZKPIPE__X86_MULADD(a, 40, r0, r1)
                    ZKPIPE__X86_FIRST_END(r1) ZKPIPE__X86_STORE_T(r4, 40)
                        ZKPIPE__X86_STORE_T(r5, 48)
            /* row 3: limbs 7..9, limb 9 in r2 */
            ZKPIPE__X86_SQR_ROW(24, r2) ZKPIPE__X86_MULADD(a, 32, r0, r1)
                ZKPIPE__X86_MULADD(a, 40, r1, r2) ZKPIPE__X86_FIRST_END(r2)
                    ZKPIPE__X86_STORE_T(r0, 56) ZKPIPE__X86_STORE_T(r1, 64)
            /* row 4: limbs 9, 10, limb 10 in r3 */
            "movq 32(%[a]), %%rdx\n\t" ZKPIPE__X86_SQR_ADD_FIRST(40, r2, r3)
                ZKPIPE__X86_FIRST_END(r3) ZKPIPE__X86_STORE_T(r2, 72) ZKPIPE__X86_STORE_T(r3, 80)
            /* doubled, plus the diagonal: limbs 0..5 into r0..r5 (limb 0 holds no product),
             * limbs 6..11 back to memory through r6 (limb 11 holds no product either) */
            "xorl %k[r6], %k[r6]\n\t" ZKPIPE__X86_SQR_SQUARE(
                0) "movq %[lo], %[r0]\n\t" ZKPIPE__X86_SQR_REG(r1, 8, hi) ZKPIPE__X86_SQR_SQUARE(8)
                ZKPIPE__X86_SQR_REG(r2, 16, lo) ZKPIPE__X86_SQR_REG(r3, 24, hi)
                    ZKPIPE__X86_SQR_SQUARE(16) ZKPIPE__X86_SQR_REG(r4, 32, lo)
                        ZKPIPE__X86_SQR_REG(r5, 40, hi) ZKPIPE__X86_SQR_SQUARE(24)
                            ZKPIPE__X86_SQR_MEM(48, lo) ZKPIPE__X86_SQR_MEM(56, hi)
                                ZKPIPE__X86_SQR_SQUARE(32) ZKPIPE__X86_SQR_MEM(64, lo)
                                    ZKPIPE__X86_SQR_MEM(72, hi) ZKPIPE__X86_SQR_SQUARE(40)
                                        ZKPIPE__X86_SQR_MEM(80, lo) ZKPIPE__X86_SQR_TOP(88)
            /* six rounds on the low half, then the high half added */
            "xorl %k[r6], %k[r6]\n\t" ZKPIPE__X86_REDUCE6(r0, r1, r2, r3, r4, r5, r6)
                ZKPIPE__X86_REDUCE6(r1, r2, r3, r4, r5, r6, r0) ZKPIPE__X86_REDUCE6(
                    r2, r3, r4, r5, r6, r0, r1) ZKPIPE__X86_REDUCE6(r3, r4, r5, r6, r0, r1, r2)
                    ZKPIPE__X86_REDUCE6(r4, r5, r6, r0, r1, r2, r3)
                        ZKPIPE__X86_REDUCE6(r5, r6, r0, r1, r2, r3, r4) ZKPIPE__X86_SQR_HIGH6
            : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3), [r4] "=&r"(r4),
              [r5] "=&r"(r5), [r6] "=&r"(r6), [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [a] "r"(a), [t] "r"(t), [p] "r"(p), [inv] "m"(inv)
            : "rdx", "cc", "memory");
    uint64_t u[6] = {r6, r0, r1, r2, r3, r4};
    (void)r5;
    zkpipe__limbs_reduce_once(r, u, p, 6);
}

#endif
#endif
