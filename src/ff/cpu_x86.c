/* The CPU checks behind zkpipe__ff_x86_adx (mont_x86.h) and zkpipe__ff_x86_ifma (fp_x8.h). They
 * run once as the library loads, before any thread can multiply, so the flags are never written
 * while they are read (but by tests, which clear zkpipe__ff_x86_ifma between kernels). */
#include "ff/limbs.h"
#include "ff/mont_x86.h"
#include "ff/fp_x8.h"

#if ZKPIPE__FF_X86
#include <cpuid.h>

int zkpipe__ff_x86_adx;
int zkpipe__ff_x86_ifma;

/* XCR0's state components that AVX-512 code needs the OS to save: SSE, AVX, the opmask
 * registers, the upper halves of zmm0-15 and zmm16-31. */
#define XCR0_AVX512 0xe6u

/* AVX-512F and AVX-512 IFMA, and an OS that saves their registers: the cpuid bits alone say only
 * what the CPU has (a hypervisor or an emulator such as valgrind may hide them, and then the
 * scalar path runs). xgetbv through asm, which needs no -mxsave. */
static int has_ifma(void)
{
    unsigned eax, ebx, ecx, edx, lo, hi;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx >> 27 & 1)) /* OSXSAVE */
        return 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    if ((lo & XCR0_AVX512) != XCR0_AVX512)
        return 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
        return 0;
    return (ebx >> 16 & 1) && (ebx >> 21 & 1); /* AVX512F, AVX512IFMA */
}

__attribute__((constructor)) static void detect_x86(void)
{
    unsigned eax, ebx, ecx, edx;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
        zkpipe__ff_x86_adx = (ebx >> 8 & 1) && (ebx >> 19 & 1); /* BMI2, ADX */
    zkpipe__ff_x86_ifma = has_ifma();
}
#else
typedef int zkpipe__ff_no_x86; /* an empty translation unit is not ISO C */
#endif
