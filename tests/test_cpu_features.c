/* ZKPIPE_CPU_MASK (zkpipe/cpu.h): the reading of the mask, the names of feature sets, and what
 * the library fixed at load time. ctest runs this once plain and once under each mask, with the
 * expected masked set as the argument ("ifma", "avx512+ifma", "adx", "adx+avx512+ifma"), so that
 * a mask the library ignored fails here; the same masks run the field, NTT and MSM tests on the
 * paths that remain (tests/CMakeLists.txt). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "zkpipe/cpu.h"

#include "ff/cpu_features.h"
#include "ff/fp_x8.h"
#include "ff/fp_x8f.h"
#include "ff/mont_x86.h"

#if ZKPIPE__FF_X86
#include <cpuid.h>
#endif

static const char *expected_masked; /* argv[1], or NULL: whatever the environment asks */

static void parse_words(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        unsigned bits;
        int valid;
    } cases[] = {
        {"", 0, 1},
        {"ifma", ZKPIPE_CPU_IFMA, 1},
        {"IFMA", ZKPIPE_CPU_IFMA, 1},
        {"avx512", ZKPIPE_CPU_AVX512 | ZKPIPE_CPU_IFMA, 1},
        {"AVX512+adx", ZKPIPE_CPU_ADX | ZKPIPE_CPU_AVX512 | ZKPIPE_CPU_IFMA, 1},
        {"adx", ZKPIPE_CPU_ADX, 1},
        {"Bmi2", ZKPIPE_CPU_ADX, 1},
        {"all", ZKPIPE_CPU_ADX | ZKPIPE_CPU_AVX512 | ZKPIPE_CPU_IFMA, 1},
        {"ifma,adx", ZKPIPE_CPU_ADX | ZKPIPE_CPU_IFMA, 1},
        {" adx + ifma ,", ZKPIPE_CPU_ADX | ZKPIPE_CPU_IFMA, 1},
        {",,,", 0, 1},
        {"ifmax", 0, 0},
        {"ifm", 0, 0},
        {"a", 0, 0},
        {"0x2", 0, 0},
        {"ifma,sse", ZKPIPE_CPU_IFMA, 0},
        {"avx2 adx", ZKPIPE_CPU_ADX, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned bits = 99;
        int valid = zkpipe__cpu_mask_parse(cases[i].text, &bits);
        if (bits != cases[i].bits || valid != cases[i].valid)
            fail_msg("\"%s\": bits %u valid %d, expected %u %d", cases[i].text, bits, valid,
                     cases[i].bits, cases[i].valid);
    }
    unsigned bits = 99;
    assert_int_equal(zkpipe__cpu_mask_parse(NULL, &bits), 1);
    assert_int_equal(bits, 0);
}

static void names(void **state)
{
    (void)state;
    assert_string_equal(zkpipe_cpu_features_name(0), "none");
    assert_string_equal(zkpipe_cpu_features_name(ZKPIPE_CPU_ADX), "adx");
    assert_string_equal(zkpipe_cpu_features_name(ZKPIPE_CPU_IFMA), "ifma");
    assert_string_equal(zkpipe_cpu_features_name(ZKPIPE_CPU_ADX | ZKPIPE_CPU_IFMA), "adx+ifma");
    assert_string_equal(zkpipe_cpu_features_name(ZKPIPE_CPU_AVX512), "avx512");
    assert_string_equal(zkpipe_cpu_features_name(ZKPIPE_CPU_ADX | ZKPIPE_CPU_AVX512), "adx+avx512");
    assert_string_equal(zkpipe_cpu_features_name(ZKPIPE_CPU_AVX512 | ZKPIPE_CPU_IFMA),
                        "avx512+ifma");
    assert_string_equal(
        zkpipe_cpu_features_name(ZKPIPE_CPU_ADX | ZKPIPE_CPU_AVX512 | ZKPIPE_CPU_IFMA),
        "adx+avx512+ifma");
    assert_string_equal(zkpipe_cpu_features_name(0x100u | ZKPIPE_CPU_IFMA), "ifma");
}

/* The detection agrees with the compiler's own cpuid reading (which also asks the OS whether it
 * saves the AVX-512 registers) and with cpuid's ADX and BMI2 bits. */
static void detected_matches_cpu(void **state)
{
    (void)state;
    zkpipe_cpu_info info;
    zkpipe_cpu_info_get(&info);
#if ZKPIPE__FF_X86
    __builtin_cpu_init();
    unsigned want = 0, eax, ebx, ecx, edx;
    /* clang's builtin does not know "adx": leaf 7's BMI2 (bit 8) and ADX (bit 19) directly */
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & (1u << 8)) && (ebx & (1u << 19)))
        want |= ZKPIPE_CPU_ADX;
    if (__builtin_cpu_supports("avx512f"))
        want |= ZKPIPE_CPU_AVX512;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma"))
        want |= ZKPIPE_CPU_IFMA;
    assert_int_equal(info.detected, want);
#else
    assert_int_equal(info.detected, 0);
#endif
    zkpipe_cpu_info_get(NULL); /* nothing to write: no crash */
}

/* What the load-time code did with the mask: the masked set (the argument, when given), the
 * paths left, the flags the kernels branch on, and the JSON that tools and /status print. */
static void mask_applied(void **state)
{
    (void)state;
    zkpipe_cpu_info info;
    zkpipe_cpu_info_get(&info);
    unsigned asked = 0;
    int valid = zkpipe__cpu_mask_parse(getenv("ZKPIPE_CPU_MASK"), &asked);
    if (expected_masked != NULL)
        assert_string_equal(zkpipe_cpu_features_name(info.masked), expected_masked);
    assert_int_equal(info.masked, asked);
    assert_int_equal(info.mask_valid, valid);
    assert_int_equal(info.in_use, info.detected & ~info.masked);
#if ZKPIPE__FF_X86
    assert_int_equal(zkpipe__ff_x86_adx != 0, (info.in_use & ZKPIPE_CPU_ADX) != 0);
    assert_int_equal(zkpipe__ff_x86_ifma != 0, (info.in_use & ZKPIPE_CPU_IFMA) != 0);
    assert_int_equal(zkpipe__ff_x86_avx512 != 0, (info.in_use & ZKPIPE_CPU_AVX512) != 0);
    /* IFMA's lanes are AVX-512F's too: no mask leaves the one without the other */
    assert_true(!zkpipe__ff_x86_ifma || zkpipe__ff_x86_avx512);
#endif
    json_error_t err;
    json_t *j = json_loads(zkpipe_cpu_json(), 0, &err);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "in_use")),
                        zkpipe_cpu_features_name(info.in_use));
    assert_string_equal(json_string_value(json_object_get(j, "detected")),
                        zkpipe_cpu_features_name(info.detected));
    assert_string_equal(json_string_value(json_object_get(j, "masked")),
                        zkpipe_cpu_features_name(info.masked));
    assert_true(json_is_boolean(json_object_get(j, "mask_valid")));
    assert_int_equal(json_is_true(json_object_get(j, "mask_valid")), info.mask_valid);
    assert_int_equal(json_object_size(j), 4);
    json_decref(j);
}

int main(int argc, char **argv)
{
    expected_masked = argc > 1 ? argv[1] : NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_words),
        cmocka_unit_test(names),
        cmocka_unit_test(detected_matches_cpu),
        cmocka_unit_test(mask_applied),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
