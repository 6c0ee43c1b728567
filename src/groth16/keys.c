/* Key blocks, their properties, zkpipe's key files (layout in zkpipe/groth16.h) and the
 * prepared verifying key. */
#include <string.h>

#include "core/alloc_internal.h"
#include "core/bytes.h"
#include "circuit/synth.h"
#include "groth16/keys.h"

#define KEY_ALIGN 64
#define HEADER_BYTES 16
#define FILE_VERSION 2u

static size_t align_up(size_t v)
{
    return (v + KEY_ALIGN - 1) / KEY_ALIGN * KEY_ALIGN;
}

/* a + count * size rounded up, or SIZE_MAX on overflow (then every later step stays SIZE_MAX). */
static size_t add_array(size_t a, size_t count, size_t size)
{
    if (a == SIZE_MAX || (size != 0 && count > (SIZE_MAX - KEY_ALIGN - a) / size))
        return SIZE_MAX;
    return align_up(a + count * size);
}

/* One block of `total` bytes (SIZE_MAX: the size overflowed) whose first `header` are zero. */
static zkpipe_status key_block(unsigned char **out, size_t total, size_t header,
                               const zkpipe_allocator *a)
{
    if (total == SIZE_MAX)
        return ZKPIPE_EOVERFLOW;
    *out = (unsigned char *)zkpipe__alloc(a, total, KEY_ALIGN);
    if (*out == NULL)
        return ZKPIPE_ENOMEM;
    memset(*out, 0, header);
    return ZKPIPE_OK;
}

/* A proving key's struct at the start of its block, its counts and its five fixed points
 * (alpha1, beta1, delta1 in G1, then beta2, delta2 in G2 from off_pts) set. */
static zkpipe_groth16_pk *pk_head(unsigned char *block, size_t off_pts, const zkpipe__curve_ops *c,
                                  size_t num_inputs, size_t num_aux, unsigned log_n,
                                  const zkpipe_allocator *a)
{
    zkpipe_groth16_pk *pk = (zkpipe_groth16_pk *)block;
    uint64_t *pts = (uint64_t *)(block + off_pts);
    pk->allocator = *a;
    pk->c = c;
    pk->num_inputs = num_inputs;
    pk->num_aux = num_aux;
    pk->log_n = log_n;
    pk->alpha1 = pts;
    pk->beta1 = pts + c->g1a_words;
    pk->delta1 = pts + 2 * c->g1a_words;
    pk->beta2 = pts + 3 * c->g1a_words;
    pk->delta2 = pk->beta2 + c->g2a_words;
    return pk;
}

zkpipe_status zkpipe__g16_pk_alloc(zkpipe_groth16_pk **out, const zkpipe__curve_ops *c,
                                   size_t num_inputs, size_t num_aux, unsigned log_n, size_t num_a,
                                   size_t num_b, const zkpipe_allocator *a)
{
    size_t nv = num_inputs + num_aux, n = (size_t)1 << log_n;
    if (nv < num_inputs)
        return ZKPIPE_EOVERFLOW;
    size_t words = zkpipe__density_words(nv), g1 = 8 * c->g1a_words, g2 = 8 * c->g2a_words;
    size_t off_pts = align_up(sizeof(zkpipe_groth16_pk));
    size_t off_a = add_array(off_pts, 3, g1);
    off_a = add_array(off_a, 2, g2);
    size_t off_b1 = add_array(off_a, num_a, g1);
    size_t off_l = add_array(off_b1, num_b, g1);
    size_t off_h = add_array(off_l, num_aux, g1);
    size_t off_b2 = add_array(off_h, n - 1, g1);
    size_t off_d = add_array(off_b2, num_b, g2);
    size_t off_ad = add_array(off_d, 2 * words, sizeof(uint64_t));
    size_t total = add_array(off_ad, 2 * words, sizeof(uint64_t));
    unsigned char *block;
    zkpipe_status st = key_block(&block, total, off_a, a);
    if (st != ZKPIPE_OK)
        return st;
    zkpipe_groth16_pk *pk = pk_head(block, off_pts, c, num_inputs, num_aux, log_n, a);
    pk->block = block;
    pk->bytes = total;
    pk->form = ZKPIPE__G16_BELLMAN;
    pk->num_a = num_a;
    pk->num_b = num_b;
    pk->num_h = n - 1;
    pk->a = (const uint64_t *)(block + off_a);
    pk->b1 = (const uint64_t *)(block + off_b1);
    pk->l = (const uint64_t *)(block + off_l);
    pk->h = (const uint64_t *)(block + off_h);
    pk->b2 = (const uint64_t *)(block + off_b2);
    pk->words = words;
    pk->density = (const uint64_t *)(block + off_d);
    pk->aux_density = (const uint64_t *)(block + off_ad);
    *out = pk;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe__g16_pk_alloc_zkey(zkpipe_groth16_pk **out, const zkpipe__curve_ops *c,
                                        size_t num_inputs, size_t num_aux, unsigned log_n,
                                        size_t num_coeffs, const zkpipe_allocator *a)
{
    size_t nv = num_inputs + num_aux, n = (size_t)1 << log_n;
    if (nv < num_inputs)
        return ZKPIPE_EOVERFLOW;
    size_t g1 = 8 * c->g1a_words, g2 = 8 * c->g2a_words;
    size_t off_pts = align_up(sizeof(zkpipe_groth16_pk));
    size_t off_a = add_array(off_pts, 3, g1);
    off_a = add_array(off_a, 2, g2);
    size_t off_b1 = add_array(off_a, nv, g1);
    size_t off_b2 = add_array(off_b1, nv, g1);
    size_t off_l = add_array(off_b2, nv, g2);
    size_t off_h = add_array(off_l, num_aux, g1);
    size_t off_co = add_array(off_h, n, g1);
    size_t total = add_array(off_co, num_coeffs, ZKPIPE__G16_COEFF_BYTES);
    unsigned char *block;
    zkpipe_status st = key_block(&block, total, off_a, a);
    if (st != ZKPIPE_OK)
        return st;
    zkpipe_groth16_pk *pk = pk_head(block, off_pts, c, num_inputs, num_aux, log_n, a);
    pk->a = (const uint64_t *)(block + off_a);
    pk->b1 = (const uint64_t *)(block + off_b1);
    pk->b2 = (const uint64_t *)(block + off_b2);
    pk->l = (const uint64_t *)(block + off_l);
    pk->h = (const uint64_t *)(block + off_h);
    pk->coeffs = block + off_co;
    pk->num_coeffs = num_coeffs;
    zkpipe__g16_pk_borrow(pk); /* the snarkjs form's derived fields; it clears block */
    pk->block = block;
    pk->bytes = total;
    *out = pk;
    return ZKPIPE_OK;
}

void zkpipe__g16_pk_derive(zkpipe_groth16_pk *pk)
{
    size_t ni = pk->num_inputs, nv = ni + pk->num_aux;
    uint64_t *aux_density = zkpipe__g16_w(pk->aux_density);
    memset(aux_density, 0, 2 * pk->words * sizeof(uint64_t));
    for (int k = 0; k < 2; k++) {
        const uint64_t *full = pk->density + (size_t)k * pk->words;
        uint64_t *aux = aux_density + (size_t)k * pk->words;
        pk->inputs_dense[k] = 0;
        for (size_t v = 0; v < nv; v++) {
            if (!zkpipe__density_test(full, v))
                continue;
            if (v < ni)
                pk->inputs_dense[k]++;
            else
                aux[(v - ni) / 64] |= (uint64_t)1 << ((v - ni) % 64);
        }
    }
}

void zkpipe__g16_pk_borrow(zkpipe_groth16_pk *pk)
{
    size_t nv = pk->num_inputs + pk->num_aux, g1 = 8 * pk->c->g1a_words;
    pk->block = NULL;
    pk->form = ZKPIPE__G16_SNARKJS;
    pk->num_a = pk->num_b = nv;
    pk->num_h = (size_t)1 << pk->log_n;
    pk->density = pk->aux_density = NULL;
    pk->words = 0;
    pk->inputs_dense[0] = pk->inputs_dense[1] = pk->num_inputs;
    pk->bytes = (3 * nv + pk->num_aux + pk->num_h) * g1 + nv * 8 * pk->c->g2a_words;
}

zkpipe_status zkpipe__g16_vk_alloc(zkpipe_groth16_vk **out, const zkpipe__curve_ops *c,
                                   size_t num_inputs, const zkpipe_allocator *a)
{
    size_t off_pts = align_up(sizeof(zkpipe_groth16_vk));
    size_t total = add_array(off_pts, 1, 8 * c->g1a_words);
    total = add_array(total, 3, 8 * c->g2a_words);
    size_t off_ic = total;
    total = add_array(total, num_inputs, 8 * c->g1a_words);
    unsigned char *block;
    zkpipe_status st = key_block(&block, total, total, a);
    if (st != ZKPIPE_OK)
        return st;
    zkpipe_groth16_vk *vk = (zkpipe_groth16_vk *)block;
    vk->allocator = *a;
    vk->c = c;
    vk->num_inputs = num_inputs;
    vk->bytes = total;
    vk->alpha1 = (uint64_t *)(block + off_pts);
    vk->beta2 = vk->alpha1 + c->g1a_words;
    vk->gamma2 = vk->beta2 + c->g2a_words;
    vk->delta2 = vk->gamma2 + c->g2a_words;
    vk->ic = (uint64_t *)(block + off_ic);
    *out = vk;
    return ZKPIPE_OK;
}

void zkpipe_groth16_pk_destroy(zkpipe_groth16_pk *pk)
{
    if (pk != NULL && pk->block != NULL) {
        zkpipe_allocator a = pk->allocator;
        zkpipe__free(&a, pk->block);
    }
}

void zkpipe_groth16_vk_destroy(zkpipe_groth16_vk *vk)
{
    if (vk != NULL) {
        zkpipe_allocator a = vk->allocator;
        zkpipe__free(&a, vk);
    }
}

void zkpipe_groth16_pvk_destroy(zkpipe_groth16_pvk *pvk)
{
    if (pvk != NULL) {
        zkpipe_allocator a = pvk->allocator;
        zkpipe__free(&a, pvk);
    }
}

zkpipe_curve zkpipe_groth16_pk_curve(const zkpipe_groth16_pk *pk)
{
    return pk != NULL ? pk->c->curve : ZKPIPE_CURVE_COUNT;
}

zkpipe_curve zkpipe_groth16_vk_curve(const zkpipe_groth16_vk *vk)
{
    return vk != NULL ? vk->c->curve : ZKPIPE_CURVE_COUNT;
}

size_t zkpipe_groth16_pk_num_inputs(const zkpipe_groth16_pk *pk)
{
    return pk != NULL ? pk->num_inputs : 0;
}

size_t zkpipe_groth16_pk_num_aux(const zkpipe_groth16_pk *pk)
{
    return pk != NULL ? pk->num_aux : 0;
}

size_t zkpipe_groth16_pk_num_a(const zkpipe_groth16_pk *pk)
{
    return pk != NULL ? pk->num_a : 0;
}

size_t zkpipe_groth16_pk_num_b(const zkpipe_groth16_pk *pk)
{
    return pk != NULL ? pk->num_b : 0;
}

size_t zkpipe_groth16_vk_num_inputs(const zkpipe_groth16_vk *vk)
{
    return vk != NULL ? vk->num_inputs : 0;
}

size_t zkpipe_groth16_pk_sizeof(const zkpipe_groth16_pk *pk)
{
    return pk != NULL ? pk->bytes : 0;
}

/* ---- key files ---- */

/* magic is 7 characters; its terminating NUL is the header's eighth byte. */
static uint8_t *write_header(uint8_t *out, const char *magic, zkpipe_curve curve)
{
    memcpy(out, magic, 8);
    zkpipe__put_le32(out + 8, FILE_VERSION);
    zkpipe__put_le32(out + 12, (uint32_t)curve);
    return out + HEADER_BYTES;
}

/* The table of the curve a key file's header names, or NULL when the header is short or has
 * another magic or version. */
static const zkpipe__curve_ops *read_header(const uint8_t *in, size_t len, const char *magic)
{
    if (len < HEADER_BYTES || memcmp(in, magic, 8) != 0 || zkpipe__get_le32(in + 8) != FILE_VERSION)
        return NULL;
    uint32_t curve = zkpipe__get_le32(in + 12);
    return curve < ZKPIPE_CURVE_COUNT ? zkpipe__curve_ops_for((zkpipe_curve)curve) : NULL;
}

/* Points of a key file, read in order with validation. */
typedef struct reader {
    const zkpipe__curve_ops *c;
    const uint8_t *p;
    zkpipe_status st; /* the first error */
} reader;

static void read_points(reader *r, const uint64_t *dst, size_t n, int g2)
{
    size_t words = g2 ? r->c->g2a_words : r->c->g1a_words;
    size_t bytes = g2 ? r->c->key_g2_bytes : r->c->key_g1_bytes;
    for (size_t i = 0; i < n && r->st == ZKPIPE_OK; i++, r->p += bytes)
        r->st = r->c->key_point_read(zkpipe__g16_w(dst) + i * words, r->p, g2);
}

static uint8_t *write_points(uint8_t *out, const zkpipe__curve_ops *c, const uint64_t *p, size_t n,
                             int g2)
{
    size_t words = g2 ? c->g2a_words : c->g1a_words;
    size_t bytes = g2 ? c->key_g2_bytes : c->key_g1_bytes;
    for (size_t i = 0; i < n; i++, out += bytes)
        c->key_point_write(out, p + i * words, g2);
    return out;
}

static size_t vk_fixed_bytes(const zkpipe__curve_ops *c)
{
    return HEADER_BYTES + 8 + c->key_g1_bytes + 3 * c->key_g2_bytes;
}

/* The two-call encode pattern shared by both key kinds. */
static zkpipe_status encode(uint8_t *out, size_t cap, size_t *out_len, size_t need)
{
    *out_len = need;
    if (out == NULL)
        return ZKPIPE_OK;
    return cap < need ? ZKPIPE_ELIMIT : ZKPIPE_OK;
}

zkpipe_status zkpipe_groth16_vk_encode(uint8_t *out, size_t cap, size_t *out_len,
                                       const zkpipe_groth16_vk *vk)
{
    if (vk == NULL || out_len == NULL)
        return ZKPIPE_EINVAL;
    const zkpipe__curve_ops *c = vk->c;
    zkpipe_status st =
        encode(out, cap, out_len, vk_fixed_bytes(c) + vk->num_inputs * c->key_g1_bytes);
    if (st != ZKPIPE_OK || out == NULL)
        return st;
    out = write_header(out, "ZKG16VK", c->curve);
    zkpipe__put_le64(out, vk->num_inputs);
    out = write_points(out + 8, c, vk->alpha1, 1, 0);
    out = write_points(out, c, vk->beta2, 1, 1);
    out = write_points(out, c, vk->gamma2, 1, 1);
    out = write_points(out, c, vk->delta2, 1, 1);
    write_points(out, c, vk->ic, vk->num_inputs, 0);
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_groth16_vk_decode(zkpipe_groth16_vk **out, const uint8_t *in, size_t len,
                                       const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out == NULL || in == NULL || a == NULL)
        return ZKPIPE_EINVAL;
    const zkpipe__curve_ops *c = read_header(in, len, "ZKG16VK");
    if (c == NULL || len < vk_fixed_bytes(c))
        return ZKPIPE_EFORMAT;
    uint64_t ni = zkpipe__get_le64(in + HEADER_BYTES);
    if (ni == 0 || ni > (len - vk_fixed_bytes(c)) / c->key_g1_bytes ||
        len != vk_fixed_bytes(c) + ni * c->key_g1_bytes)
        return ZKPIPE_EFORMAT;
    zkpipe_groth16_vk *vk;
    zkpipe_status st = zkpipe__g16_vk_alloc(&vk, c, (size_t)ni, a);
    if (st != ZKPIPE_OK)
        return st;
    reader r = {c, in + HEADER_BYTES + 8, ZKPIPE_OK};
    read_points(&r, vk->alpha1, 1, 0);
    read_points(&r, vk->beta2, 1, 1);
    read_points(&r, vk->gamma2, 1, 1);
    read_points(&r, vk->delta2, 1, 1);
    read_points(&r, vk->ic, (size_t)ni, 0);
    if (r.st != ZKPIPE_OK) {
        zkpipe_groth16_vk_destroy(vk);
        return r.st;
    }
    *out = vk;
    return ZKPIPE_OK;
}

static size_t pk_fixed_bytes(const zkpipe__curve_ops *c)
{
    return HEADER_BYTES + 40 + 3 * c->key_g1_bytes + 2 * c->key_g2_bytes;
}

/* Bytes of a proving key file with these counts, or 0 when that overflows or num_a or num_b
 * exceeds the variables. */
static uint64_t pk_file_bytes(const zkpipe__curve_ops *c, uint64_t ni, uint64_t na, unsigned log_n,
                              uint64_t num_a, uint64_t num_b)
{
    if (ni > UINT32_MAX || na > UINT32_MAX || num_a > ni + na || num_b > ni + na)
        return 0;
    uint64_t nv = ni + na, n = (uint64_t)1 << log_n;
    uint64_t g1 = num_a + num_b + na + n - 1, words = zkpipe__density_words((size_t)nv);
    return pk_fixed_bytes(c) + 16 * words + g1 * c->key_g1_bytes + num_b * c->key_g2_bytes;
}

zkpipe_status zkpipe_groth16_pk_encode(uint8_t *out, size_t cap, size_t *out_len,
                                       const zkpipe_groth16_pk *pk)
{
    if (pk == NULL || out_len == NULL)
        return ZKPIPE_EINVAL;
    if (pk->form != ZKPIPE__G16_BELLMAN)
        return ZKPIPE_EUNSUPPORTED; /* a zkey's key: its file is the zkey */
    const zkpipe__curve_ops *c = pk->c;
    size_t need =
        (size_t)pk_file_bytes(c, pk->num_inputs, pk->num_aux, pk->log_n, pk->num_a, pk->num_b);
    zkpipe_status st = encode(out, cap, out_len, need);
    if (st != ZKPIPE_OK || out == NULL)
        return st;
    out = write_header(out, "ZKG16PK", c->curve);
    zkpipe__put_le64(out, pk->num_inputs);
    zkpipe__put_le64(out + 8, pk->num_aux);
    zkpipe__put_le64(out + 16, pk->log_n);
    zkpipe__put_le64(out + 24, pk->num_a);
    zkpipe__put_le64(out + 32, pk->num_b);
    out = write_points(out + 40, c, pk->alpha1, 1, 0);
    out = write_points(out, c, pk->beta1, 1, 0);
    out = write_points(out, c, pk->beta2, 1, 1);
    out = write_points(out, c, pk->delta1, 1, 0);
    out = write_points(out, c, pk->delta2, 1, 1);
    for (size_t i = 0; i < 2 * pk->words; i++, out += 8)
        zkpipe__put_le64(out, pk->density[i]);
    out = write_points(out, c, pk->a, pk->num_a, 0);
    out = write_points(out, c, pk->b1, pk->num_b, 0);
    out = write_points(out, c, pk->b2, pk->num_b, 1);
    out = write_points(out, c, pk->l, pk->num_aux, 0);
    write_points(out, c, pk->h, pk->num_h, 0);
    return ZKPIPE_OK;
}

/* ZKPIPE_OK when each of the two bitmaps at `in` (words each, over nv variables) has no bit
 * set past the variables, every input set in A (the input-consistency rows), and as many bits
 * set as its query has points. */
static zkpipe_status check_density(const uint8_t *in, size_t words, size_t ni, size_t nv,
                                   const uint64_t *counts)
{
    uint64_t tail = nv % 64 != 0 ? ~(uint64_t)0 << (nv % 64) : 0;
    for (int k = 0; k < 2; k++) {
        uint64_t count = 0, w = 0;
        for (size_t i = 0; i < words; i++) {
            w = zkpipe__get_le64(in + 8 * ((size_t)k * words + i));
            if (k == 0 && i < ni / 64 + (ni % 64 != 0)) {
                uint64_t inputs = i < ni / 64 ? ~(uint64_t)0 : ((uint64_t)1 << (ni % 64)) - 1;
                if ((w & inputs) != inputs)
                    return ZKPIPE_EFORMAT;
            }
            count += (uint64_t)__builtin_popcountll(w);
        }
        if ((w & tail) != 0 || count != counts[k])
            return ZKPIPE_EFORMAT;
    }
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_groth16_pk_decode(zkpipe_groth16_pk **out, const uint8_t *in, size_t len,
                                       const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out == NULL || in == NULL || a == NULL)
        return ZKPIPE_EINVAL;
    const zkpipe__curve_ops *c = read_header(in, len, "ZKG16PK");
    if (c == NULL || len < pk_fixed_bytes(c))
        return ZKPIPE_EFORMAT;
    const uint8_t *p = in + HEADER_BYTES;
    uint64_t ni = zkpipe__get_le64(p), na = zkpipe__get_le64(p + 8);
    uint64_t log_n = zkpipe__get_le64(p + 16);
    uint64_t counts[2] = {zkpipe__get_le64(p + 24), zkpipe__get_le64(p + 32)};
    if (ni == 0 || log_n > c->two_adicity ||
        pk_file_bytes(c, ni, na, (unsigned)log_n, counts[0], counts[1]) != len)
        return ZKPIPE_EFORMAT;
    size_t nv = (size_t)(ni + na), words = zkpipe__density_words(nv);
    const uint8_t *bitmaps = in + pk_fixed_bytes(c);
    zkpipe_status st = check_density(bitmaps, words, (size_t)ni, nv, counts);
    if (st != ZKPIPE_OK)
        return st;
    zkpipe_groth16_pk *pk;
    st = zkpipe__g16_pk_alloc(&pk, c, (size_t)ni, (size_t)na, (unsigned)log_n, (size_t)counts[0],
                              (size_t)counts[1], a);
    if (st != ZKPIPE_OK)
        return st;
    uint64_t *density = zkpipe__g16_w(pk->density);
    for (size_t i = 0; i < 2 * words; i++)
        density[i] = zkpipe__get_le64(bitmaps + 8 * i);
    zkpipe__g16_pk_derive(pk);
    reader r = {c, p + 40, ZKPIPE_OK};
    read_points(&r, pk->alpha1, 1, 0);
    read_points(&r, pk->beta1, 1, 0);
    read_points(&r, pk->beta2, 1, 1);
    read_points(&r, pk->delta1, 1, 0);
    read_points(&r, pk->delta2, 1, 1);
    r.p += 16 * words;
    read_points(&r, pk->a, pk->num_a, 0);
    read_points(&r, pk->b1, pk->num_b, 0);
    read_points(&r, pk->b2, pk->num_b, 1);
    read_points(&r, pk->l, pk->num_aux, 0);
    read_points(&r, pk->h, pk->num_h, 0);
    if (r.st != ZKPIPE_OK) {
        zkpipe_groth16_pk_destroy(pk);
        return r.st;
    }
    *out = pk;
    return ZKPIPE_OK;
}

/* ---- the prepared verifying key ---- */

zkpipe_status zkpipe_groth16_pvk_create(zkpipe_groth16_pvk **out, const zkpipe_groth16_vk *vk,
                                        const zkpipe_allocator *allocator)
{
    const zkpipe_allocator *a = zkpipe__allocator_or_default(allocator);
    if (out == NULL || vk == NULL || a == NULL)
        return ZKPIPE_EINVAL;
    const zkpipe__curve_ops *c = vk->c;
    size_t off_alpha = align_up(sizeof(zkpipe_groth16_pvk));
    size_t off_beta = add_array(off_alpha, c->g1a_words, sizeof(uint64_t));
    size_t off_gamma = add_array(off_beta, 1, c->g2_prepared_bytes);
    size_t off_delta = add_array(off_gamma, 1, c->g2_prepared_bytes);
    size_t off_ic = add_array(off_delta, 1, c->g2_prepared_bytes);
    size_t total = add_array(off_ic, vk->num_inputs, 8 * c->g1a_words);
    unsigned char *block;
    zkpipe_status st = key_block(&block, total, sizeof(zkpipe_groth16_pvk), a);
    if (st != ZKPIPE_OK)
        return st;
    zkpipe_groth16_pvk *pvk = (zkpipe_groth16_pvk *)block;
    pvk->allocator = *a;
    pvk->c = c;
    pvk->num_inputs = vk->num_inputs;
    pvk->neg_alpha = (uint64_t *)(block + off_alpha);
    pvk->beta = block + off_beta;
    pvk->neg_gamma = block + off_gamma;
    pvk->neg_delta = block + off_delta;
    pvk->ic = (uint64_t *)(block + off_ic);
    /* e(alpha, beta) is not computed here: as the pair (-alpha, beta) it joins the proof's
     * pairs in the verifier's one Miller loop and final exponentiation (verify.c), which costs
     * a verification less than a pairing of its own costs the key. */
    c->g1_affine_neg(pvk->neg_alpha, vk->alpha1);
    c->g2_prepare(pvk->beta, vk->beta2);
    const uint64_t *q[2] = {vk->gamma2, vk->delta2};
    void *prepared[2] = {pvk->neg_gamma, pvk->neg_delta};
    for (int k = 0; k < 2; k++) {
        uint64_t neg[ZKPIPE__G2A_WORDS];
        c->g2_affine_neg(neg, q[k]);
        c->g2_prepare(prepared[k], neg);
    }
    memcpy(pvk->ic, vk->ic, vk->num_inputs * 8 * c->g1a_words);
    *out = pvk;
    return ZKPIPE_OK;
}
