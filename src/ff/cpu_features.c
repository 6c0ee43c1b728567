/* The CPU checks behind zkpipe__ff_x86_adx (mont_x86.h), zkpipe__ff_x86_ifma (fp_x8.h) and
 * zkpipe__ff_x86_avx512 (fp_x8f.h), less what ZKPIPE_CPU_MASK masks (zkpipe/cpu.h). They run once
 * as the library loads, before any thread can multiply, so the flags are never written while they
 * are read (but by tests, which clear the lanes' flags between kernels). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "zkpipe/cpu.h"

#include "ff/cpu_features.h"
#include "ff/limbs.h"
#include "ff/mont_x86.h"
#include "ff/fp_x8.h"
#include "ff/fp_x8f.h"

#if ZKPIPE__FF_X86
int zkpipe__ff_x86_adx;
int zkpipe__ff_x86_ifma;
int zkpipe__ff_x86_avx512;

#if defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#define ZKPIPE__CPU_GLIBC 1
#endif
#endif

#ifdef ZKPIPE__CPU_GLIBC
#include <sys/platform/x86.h>

/* glibc (2.33 on) probed the CPU as the process started, and marks a feature active only when
 * the OS also saves its registers (XCR0, for AVX-512). Reading that record runs no cpuid: a
 * virtual machine traps each one to its hypervisor, and the six of the code below cost about
 * 40 us of every process's start on a cloud VM, a percent of a small proof. A hypervisor or an
 * emulator such as valgrind that hides a feature hides it from glibc as well; glibc's tunable
 * glibc.cpu.hwcaps=-AVX512F turns the lanes off too. */
static unsigned detect(void)
{
    unsigned found = 0;
    if (CPU_FEATURE_ACTIVE(BMI2) && CPU_FEATURE_ACTIVE(ADX))
        found |= ZKPIPE_CPU_ADX;
    if (CPU_FEATURE_ACTIVE(AVX512F))
        found |= ZKPIPE_CPU_AVX512 | (CPU_FEATURE_ACTIVE(AVX512_IFMA) ? ZKPIPE_CPU_IFMA : 0);
    return found;
}
#else
#include <cpuid.h>
/* XCR0's state components that AVX-512 code needs the OS to save: SSE, AVX, the opmask
 * registers, the upper halves of zmm0-15 and zmm16-31. */
#define XCR0_AVX512 0xe6u

/* AVX-512F (and IFMA), and an OS that saves their registers: the cpuid bits alone say only what
 * the CPU has (a hypervisor or an emulator such as valgrind may hide them, and then the scalar
 * path runs). xgetbv through asm, which needs no -mxsave. */
static unsigned avx512_bits(void)
{
    unsigned eax, ebx, ecx, edx, lo, hi;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx >> 27 & 1)) /* OSXSAVE */
        return 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    if ((lo & XCR0_AVX512) != XCR0_AVX512)
        return 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) || !(ebx >> 16 & 1)) /* AVX512F */
        return 0;
    return ZKPIPE_CPU_AVX512 | (ebx >> 21 & 1 ? ZKPIPE_CPU_IFMA : 0); /* AVX512IFMA */
}

static unsigned detect(void)
{
    unsigned eax, ebx, ecx, edx, found = 0;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx >> 8 & 1) && (ebx >> 19 & 1))
        found |= ZKPIPE_CPU_ADX; /* BMI2, ADX */
    return found | avx512_bits();
}
#endif
#else
static unsigned detect(void)
{
    return 0; /* the portable C is the only path */
}
#endif

static zkpipe_cpu_info info;
/* {"in_use":"adx+avx512+ifma","detected":"adx+avx512+ifma","masked":"adx+avx512+ifma",
 * "mask_valid":false}, 103 characters, fits. */
static char json[128];

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Whether the `len` characters at `word` spell `name` in any case. */
static int word_is(const char *word, size_t len, const char *name)
{
    size_t i = 0;
    for (; i < len && name[i] != '\0'; i++)
        if (lower((unsigned char)word[i]) != name[i])
            return 0;
    return i == len && name[i] == '\0';
}

int zkpipe__cpu_mask_parse(const char *text, unsigned *bits)
{
    static const struct {
        const char *name;
        unsigned bits;
    } words[] = {{"ifma", ZKPIPE_CPU_IFMA},
                 {"avx512", ZKPIPE_CPU_AVX512 | ZKPIPE_CPU_IFMA},
                 {"adx", ZKPIPE_CPU_ADX},
                 {"bmi2", ZKPIPE_CPU_ADX},
                 {"all", ZKPIPE_CPU_ADX | ZKPIPE_CPU_AVX512 | ZKPIPE_CPU_IFMA}};
    int valid = 1;
    *bits = 0;
    for (const char *p = text; p != NULL && *p != '\0';) {
        if (*p == ',' || *p == ' ' || *p == '+' || *p == '\t') {
            p++;
            continue;
        }
        size_t len = 0;
        while (p[len] != '\0' && p[len] != ',' && p[len] != ' ' && p[len] != '+' && p[len] != '\t')
            len++;
        size_t w = 0;
        while (w < sizeof words / sizeof words[0] && !word_is(p, len, words[w].name))
            w++;
        if (w < sizeof words / sizeof words[0])
            *bits |= words[w].bits;
        else
            valid = 0;
        p += len;
    }
    return valid;
}

static void detect_cpu(void)
{
    info.detected = detect();
    info.mask_valid = zkpipe__cpu_mask_parse(getenv("ZKPIPE_CPU_MASK"), &info.masked);
    info.in_use = info.detected & ~info.masked;
#if ZKPIPE__FF_X86
    zkpipe__ff_x86_adx = (info.in_use & ZKPIPE_CPU_ADX) != 0;
    zkpipe__ff_x86_ifma = (info.in_use & ZKPIPE_CPU_IFMA) != 0;
    zkpipe__ff_x86_avx512 = (info.in_use & ZKPIPE_CPU_AVX512) != 0;
#endif
    snprintf(json, sizeof json,
             "{\"in_use\":\"%s\",\"detected\":\"%s\",\"masked\":\"%s\",\"mask_valid\":%s}",
             zkpipe_cpu_features_name(info.in_use), zkpipe_cpu_features_name(info.detected),
             zkpipe_cpu_features_name(info.masked), info.mask_valid ? "true" : "false");
}

static pthread_once_t detected = PTHREAD_ONCE_INIT;

/* At load; and, should a caller's own constructor ask first, at its call (the order of
 * constructors across objects is not fixed). */
__attribute__((constructor)) static void detect_at_load(void)
{
    pthread_once(&detected, detect_cpu);
}

void zkpipe_cpu_info_get(zkpipe_cpu_info *out)
{
    pthread_once(&detected, detect_cpu);
    if (out != NULL)
        *out = info;
}

const char *zkpipe_cpu_features_name(unsigned features)
{
    static const char *const names[] = {"none",   "adx",        "ifma",        "adx+ifma",
                                        "avx512", "adx+avx512", "avx512+ifma", "adx+avx512+ifma"};
    return names[features & (ZKPIPE_CPU_ADX | ZKPIPE_CPU_IFMA | ZKPIPE_CPU_AVX512)];
}

const char *zkpipe_cpu_json(void)
{
    pthread_once(&detected, detect_cpu);
    return json;
}
