/* zkpipe__snarkjs_sub_affine (arith/snarkjs_sub_affine.h) against snarkjs's own wasm: p1 - p2
 * for p1 bytes that are no point (the block snarkjs's circuit hash reads past a ptau's tauG1
 * section), as g1m_subAffine, g1m_batchToAffine and g1m_batchLEMtoU give it; and p1 - p2 for
 * valid points, as zkpipe's own group law gives it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "arith/curve_ops.h"
#include "arith/snarkjs_sub_affine.h"
#include "core/alloc_internal.h"
#include "vectors.h"

/* Random blocks p1 (some with coordinates pushed above 2q, some with x's top byte cleared), a
 * valid p2 = k G, both little-endian Montgomery bytes as a ptau holds them, and the 64 or 96
 * bytes (big-endian x, y) snarkjs's wasm wrote for p1 - p2: ffjavascript 0.3.1 (snarkjs
 * 0.7.6), its curve.tm.queueAction running g1m_subAffine, g1m_batchToAffine and
 * g1m_batchLEMtoU on one point, as hashHPointsThread does (zkey_new.js). */
typedef struct vector {
    zkpipe_curve curve;
    const char *p1, *p2, *want;
} vector;

static const vector vectors[] = {
    {ZKPIPE_CURVE_BN254,
     "2885368a3928bc80a7ece5e24ab35f6269abf015396a21189d8b9d4ff003974b"
     "e18c49b02ba8da4acdcac3e9fc7170c6e5190a8d46ad2b9b3de1223e2c0bb34b",
     "ebfaddf185fe70d8e87e72c9edfe48bd5bbb7fa6a424d4aa393d518674dff214"
     "d1b494ec3f430891adea0173572e64a864d346096a2647d96d6c2bb39c169b1c",
     "07bcdbe7557c606d9e331e7f239c041e48f332dba55a87aed3a5d86be6c53913"
     "08eb678054c3ebe933d1b26134741aca966464d7b9917e96d0a7846ade5e7edc"},
    {ZKPIPE_CURVE_BN254,
     "9bbb089e0941f3ef3980f6afce588ff504b0c19b93132f2934069354c3ea7eff"
     "020e8aa6daa82aaa3de9d8cd5c628cd12c55890ebe6eb2dea42cbbe2729e54ff",
     "33762c7ca2793ebbb0c2680c1220ef6a5e7f6dfb4d04874819d91e3581427e1c"
     "2d66f95b86e5fb796dd7481b4ddc62c98140dd6da466f84050259abf76e3db0b",
     "1dc7755bc5bb39a83a2cf3eb3849d65df306c72f2a473b06748bf8f5dab0a79b"
     "2e591131c7f025065ca00b16822132af432f5b6b5739925093886cde4b18a873"},
    {ZKPIPE_CURVE_BN254,
     "0c25380241016739e0184ab326e5e54c242d5f603768d2eb00c5e6f439998b40"
     "00c9c649e6f89c854fce5802f4a6cd3e88d2a6f824c67dd1f4bd798bc972847f",
     "af5e90964e678f90692a66506c6f8b62ffe6b3949606d94130a5ef614c1ab428"
     "ebbc41766626ace3244f1956ce9ed7673376837fee350d788d985d5eecb1540b",
     "10315ec053c30bf000a05d239bb10be978cafee45b04f8defbd6c1e8100d05df"
     "04707bff41ef8e923015b47002e785dec3302d45408968607089862b3cfcb68a"},
    {ZKPIPE_CURVE_BN254,
     "3d3ba28e8113c1f765ec38ef1f664d7f7a60c53af13c6cf818c862d250763800"
     "a494239c4be29546a55ce12bc458fbea15813d31f1c4f3d24ec660fdd06dde17",
     "551d740a85a252ff94da1b11a8560163f62e2c0541f9824957a3cc2cbff67a2d"
     "97f04d6ba182294885d8a11a3eb2ad959402cc1f81ee3d3906908eebbf54070b",
     "2fd19860a9beedb6045f1642a8718fcd826abdc13c8b4d79ded7a350da42af23"
     "01a115ff40fe12acce629059ad436a0c649c371ee9d2685f0335c20c1c150429"},
    {ZKPIPE_CURVE_BLS12_381,
     "27fa43a2efdeafaedf06593df239e9d092930a1f4c0d0e42939236c6f1c63d25"
     "b91da46f3949be1ebf882ef991d13cec0297e081e1225d3fb0782e083717f30b"
     "b7fd45a0c374bf18c82a3be749f49c3a75c114fa46b1ed3fadc1f633a7d12c00",
     "ad389a0f5472bfdeb7b0b7d61c8c7228d900b12163e2fccc8f5dff1192e2394a"
     "6dcc5664a7a6eb0705a577f7e376740615950f9e30d024328667327cb9130aba"
     "52b595a1c4a4cb19f933c8e2bc2e05d66835195a24cb457f41c93531d897d017",
     "1849a3acf889a70b608b2c5948ba303689364643861184386cf5e6f36ba5a0f2"
     "ea38cd56e97b5672300472f1a17b7c6709f9838821fe3f9a422817f7f9ca4110"
     "4c278d9f5f3b398d82ba66aed9b4a9f1541e030648159c7a44576fb7d8f1dd0e"},
    {ZKPIPE_CURVE_BLS12_381,
     "b7d7437e4a8aa6a38e8636493e39b25f6aa9d04b0b08fbca8ad7e1e23c9bd260"
     "e2cbe7e72f298b39bb4f2ea87b46b6ff0c7c253be08f0bf036f9c93730fa4047"
     "7741e6551868f9accb013c4aada4f69bf41a7ac015e3d06948944e47efdd86ff",
     "7068910afb555fb35a72da3090cd4da051f78d35773933cafc34003bd1a37048"
     "42f379fe9d42ca3354507028892b450a756bcc73c767bcaa9283a9f2afb499a1"
     "1ebc2196754fd53cff0e2cda4cc38d511c5c06dce7a229da021a30f1e0753a19",
     "04c0f12bdf5a0f85d28c16d7240fca5736e5be98ef5d3eab4cd66117ad064acf"
     "c91ce1c220b2658f868822dcc0816ad11690a58844201b7c6c354598fdebd627"
     "7a45bfb843801883e9e5f9208176875cab5c5c5472c75a079c08e3efadde3755"},
    {ZKPIPE_CURVE_BLS12_381,
     "d4237a8c8c644abaa34cf6994c7dee4ac47a161853808e44b0e6e76c83a9a94b"
     "fa2cbb1e3638ae78b720e0815c09fd40f4cc299e670535603ecc74c71f2cda53"
     "6df9a1b6c23800d28cbe9e652f5eecdf10cd77055142492a03b11aa76e94827f",
     "76ad80a7f2dca58ff4d9bfc0608551ef8962201c9a5013e26d855a0a65cda346"
     "3607a413c57e6792d72f3e197ddee405b8ed0805af31c6cfc014732e04140220"
     "6af0fcd2b2059cc752d010033d5d88ae9e241961136cde3abe4d58ba1b88aa15",
     "14e53ab55ac6c7879e3c3e427706e33bfa09246c3e0e9acb9e289ecb57fb845a"
     "4b71eb8587fb3d5845c310021930151313b88fa9e35eebca004d6cf1c0103d75"
     "9e8a69c2a8e50df408b3222f33e006f73b07cc11cf50f2eebc6ad27d43da31a2"},
    {ZKPIPE_CURVE_BLS12_381,
     "a5f004fe0f493d9578c60c49b302a955c25c43b45bc3d8480088d4766a42855b"
     "26d9a1c18a6dd539c72a479dd017f400248b78f1c95502c53857e067ff9606cd"
     "1a2931ebdfd47f78156f4ef40e460108bdd2a499fd21e698921574dfb6af2940",
     "a8fbe440b06a2725797d1c4d7b6589e843e845cbe7c5a00d347fae016f05b3a6"
     "d9e833f3d3dae47b1764e310c23aaf0c7b0c215269ff95e363b7e1c83ea3d8a1"
     "2102ee8364e1fbbc4ae48c0afa4efd769c9d63dae1815aae2e64eb498b442713",
     "0f1b768a09b67da675e271f3867cf5b413ddac0446980e263bd73f1ca458e5bb"
     "b9c2c5c8c4267425aef1ef7638e0e21f05a1e2990a45a044ff2da7ff75f836c1"
     "39862a794d8ef79bacab4dfa450930aa9ee6f89ceab613945a3a1052fc9a4990"},
};

/* snarkjs's bytes for a normalised point: x, y big-endian, or zeros for infinity. */
static void encode(uint8_t *out, const zkpipe__curve_ops *c, const zkpipe__g1 *p)
{
    uint64_t affine[ZKPIPE__G1A_WORDS];
    c->g1_batch_to_affine(affine, p, 1);
    uint64_t any = 0;
    for (size_t k = 0; k < c->g1a_words; k++)
        any |= affine[k];
    if (any == 0)
        memset(out, 0, 8 * c->g1a_words);
    else
        c->key_point_write(out, affine, 0);
}

static void test_snarkjs_wasm_vectors(void **state)
{
    (void)state;
    for (size_t v = 0; v < sizeof vectors / sizeof vectors[0]; v++) {
        const zkpipe__curve_ops *c = zkpipe__curve_ops_for(vectors[v].curve);
        size_t bytes = 8 * c->g1a_words;
        uint64_t p1[ZKPIPE__G1A_WORDS], p2[ZKPIPE__G1A_WORDS];
        uint8_t want[8 * ZKPIPE__G1A_WORDS], got[8 * ZKPIPE__G1A_WORDS];
        const char *tokens[3] = {vectors[v].p1, vectors[v].p2, vectors[v].want};
        vectors_record r = {"sub_affine", tokens, 3, (unsigned)v};
        assert_int_equal(vectors_hex(&r, 0, (unsigned char *)p1, bytes), 0);
        assert_int_equal(vectors_hex(&r, 1, (unsigned char *)p2, bytes), 0);
        assert_int_equal(vectors_hex(&r, 2, want, bytes), 0);
        zkpipe__g1 out;
        zkpipe__snarkjs_sub_affine(&out, c, p1, p2);
        encode(got, c, &out);
        if (memcmp(got, want, bytes) != 0)
            fail_msg("vector %zu: not snarkjs's point", v);
    }
}

/* For valid points the wasm's sequence is the group law: p1 - p2 as zkpipe computes it, for
 * p1 = 3 G, 5 G, ..., p2 = 7 G, and the cases g1m_addAffine branches on: p1 = -p2 (its
 * doubling), p1 = p2 (infinity), p1 or p2 the point at infinity (0, 0). */
static void test_valid_points(void **state)
{
    (void)state;
    for (int curve = 0; curve < 2; curve++) {
        const zkpipe__curve_ops *c =
            zkpipe__curve_ops_for(curve ? ZKPIPE_CURVE_BLS12_381 : ZKPIPE_CURVE_BN254);
        size_t w = c->g1a_words;
        uint64_t k[8 * ZKPIPE__FR_LIMBS], pts[8 * ZKPIPE__G1A_WORDS];
        for (int i = 0; i < 6; i++)
            c->fr_from_u64(k + ZKPIPE__FR_LIMBS * i, (uint64_t)(2 * i + 3));
        assert_int_equal(c->g1_generator_mul(pts, k, 6, NULL, zkpipe__allocator_or_default(NULL)),
                         ZKPIPE_OK);
        uint64_t zero[ZKPIPE__G1A_WORDS] = {0}, neg[ZKPIPE__G1A_WORDS];
        const uint64_t *p2 = pts + 2 * w; /* 7 G */
        c->g1_affine_neg(neg, p2);
        const uint64_t *cases[][2] = {{pts, p2},         {pts + w, p2}, {pts + 3 * w, p2},
                                      {pts + 5 * w, p2}, {neg, p2},     {p2, p2},
                                      {zero, p2},        {pts, zero}};
        for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
            zkpipe__g1 ours, ref;
            uint64_t q[ZKPIPE__G1A_WORDS];
            uint8_t a[8 * ZKPIPE__G1A_WORDS], b[8 * ZKPIPE__G1A_WORDS];
            zkpipe__snarkjs_sub_affine(&ours, c, cases[t][0], cases[t][1]);
            c->g1_affine_neg(q, cases[t][1]);
            c->g1_from_affine(&ref, cases[t][0]);
            c->g1_add_affine(&ref, &ref, q);
            encode(a, c, &ours);
            encode(b, c, &ref);
            if (memcmp(a, b, 8 * w) != 0)
                fail_msg("curve %d, case %zu: not p1 - p2", curve, t);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snarkjs_wasm_vectors),
        cmocka_unit_test(test_valid_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
