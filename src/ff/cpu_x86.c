/* The CPU check behind zkpipe__ff_x86_adx (mont_x86.h). It runs once as the library loads,
 * before any thread can multiply, so the flag is never written while it is read. */
#include "ff/limbs.h"
#include "ff/mont_x86.h"

#if ZKPIPE__FF_X86
#include <cpuid.h>

int zkpipe__ff_x86_adx;

__attribute__((constructor)) static void detect_adx(void)
{
    unsigned eax, ebx, ecx, edx;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
        zkpipe__ff_x86_adx = (ebx >> 8 & 1) && (ebx >> 19 & 1); /* BMI2, ADX */
}
#else
typedef int zkpipe__ff_no_x86; /* an empty translation unit is not ISO C */
#endif
