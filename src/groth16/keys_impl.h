/* The per-curve key structs, their single-block allocation and their byte encodings (layout in
 * zkpipe/groth16.h). Part of the per-curve template: included by groth16_<curve>.c after
 * groth16_names.h and the curve's point codecs (key_g1_read/_write, KEY_G1_BYTES, and G2). */

/* The proving key: the common header, then the points; the queries and bitmaps live in the
 * same block. The A query holds a point for each A-dense variable only, B1 and B2 for each
 * B-dense one (in variable order), as the density bitmaps say. */
typedef struct PK {
    zkpipe_groth16_pk base;
    G1A alpha1, beta1, delta1;
    G2A beta2, delta2;
    G1A *a, *b1, *l, *h; /* num_a, num_b, num_aux, n - 1 */
    G2A *b2;             /* num_b */
    size_t words;        /* per bitmap */
    uint64_t *density;   /* A then B over all variables, synth.h's layout */
    /* The same bitmaps over the aux variables alone (bit j: variable num_inputs + j), because
     * the prover's MSMs take inputs and aux from separate buffers. */
    uint64_t *aux_density;
    size_t inputs_dense[2]; /* A- and B-dense inputs: where the aux part of each query starts */
} PK;

typedef struct VK {
    zkpipe_groth16_vk base;
    G1A alpha1;
    G2A beta2, gamma2, delta2;
    G1A *ic; /* num_inputs */
} VK;

#define KEY_ALIGN 64

static size_t align_up(size_t v)
{
    return (v + KEY_ALIGN - 1) / KEY_ALIGN * KEY_ALIGN;
}

/* a + b * size, or SIZE_MAX on overflow (then every later step stays SIZE_MAX). */
static size_t add_array(size_t a, size_t count, size_t size)
{
    if (a == SIZE_MAX || (size != 0 && count > (SIZE_MAX - KEY_ALIGN - a) / size))
        return SIZE_MAX;
    return align_up(a + count * size);
}

/* One zeroed-header block of `total` bytes (SIZE_MAX: the size overflowed) for a key whose
 * struct takes the first `header` bytes. */
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

static size_t popcount(const uint64_t *words, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += (size_t)__builtin_popcountll(words[i]);
    return count;
}

/* A key for these counts with num_a A-dense and num_b B-dense variables; the caller writes
 * pk->density and then calls pk_density_derive. */
static zkpipe_status pk_alloc(PK **out, size_t num_inputs, size_t num_aux, unsigned log_n,
                              size_t num_a, size_t num_b, const zkpipe_allocator *a)
{
    size_t nv = num_inputs + num_aux, n = (size_t)1 << log_n;
    if (nv < num_inputs)
        return ZKPIPE_EOVERFLOW;
    size_t words = zkpipe__density_words(nv);
    size_t off_a = align_up(sizeof(PK));
    size_t off_b1 = add_array(off_a, num_a, sizeof(G1A));
    size_t off_l = add_array(off_b1, num_b, sizeof(G1A));
    size_t off_h = add_array(off_l, num_aux, sizeof(G1A));
    size_t off_b2 = add_array(off_h, n - 1, sizeof(G1A));
    size_t off_d = add_array(off_b2, num_b, sizeof(G2A));
    size_t off_ad = add_array(off_d, 2 * words, sizeof(uint64_t));
    size_t total = add_array(off_ad, 2 * words, sizeof(uint64_t));
    unsigned char *block;
    zkpipe_status st = key_block(&block, total, sizeof(PK), a);
    if (st != ZKPIPE_OK)
        return st;
    PK *pk = (PK *)block;
    pk->base.allocator = *a;
    pk->base.ops = &OPS;
    pk->base.num_inputs = num_inputs;
    pk->base.num_aux = num_aux;
    pk->base.log_n = log_n;
    pk->base.num_a = num_a;
    pk->base.num_b = num_b;
    pk->base.bytes = total;
    pk->words = words;
    pk->density = (uint64_t *)(block + off_d);
    pk->aux_density = (uint64_t *)(block + off_ad);
    pk->a = (G1A *)(block + off_a);
    pk->b1 = (G1A *)(block + off_b1);
    pk->l = (G1A *)(block + off_l);
    pk->h = (G1A *)(block + off_h);
    pk->b2 = (G2A *)(block + off_b2);
    *out = pk;
    return ZKPIPE_OK;
}

/* aux_density and inputs_dense from density. */
static void pk_density_derive(PK *pk)
{
    size_t ni = pk->base.num_inputs, nv = ni + pk->base.num_aux;
    memset(pk->aux_density, 0, 2 * pk->words * sizeof(uint64_t));
    for (int k = 0; k < 2; k++) {
        const uint64_t *full = pk->density + (size_t)k * pk->words;
        uint64_t *aux = pk->aux_density + (size_t)k * pk->words;
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

static zkpipe_status vk_alloc(VK **out, size_t num_inputs, const zkpipe_allocator *a)
{
    size_t off_ic = align_up(sizeof(VK));
    size_t total = add_array(off_ic, num_inputs, sizeof(G1A));
    unsigned char *block;
    zkpipe_status st = key_block(&block, total, sizeof(VK), a);
    if (st != ZKPIPE_OK)
        return st;
    VK *vk = (VK *)block;
    vk->base.allocator = *a;
    vk->base.ops = &OPS;
    vk->base.num_inputs = num_inputs;
    vk->base.bytes = total;
    vk->ic = (G1A *)(block + off_ic);
    *out = vk;
    return ZKPIPE_OK;
}

/* Points of a key file, read in order with validation. */
typedef struct reader {
    const uint8_t *p;
    zkpipe_status st; /* the first error */
} reader;

static void read_g1(reader *r, G1A *out)
{
    if (r->st == ZKPIPE_OK)
        r->st = key_g1_read(out, r->p);
    r->p += KEY_G1_BYTES;
}

static void read_g2(reader *r, G2A *out)
{
    if (r->st == ZKPIPE_OK)
        r->st = key_g2_read(out, r->p);
    r->p += KEY_G2_BYTES;
}

static uint8_t *write_g1s(uint8_t *out, const G1A *p, size_t n)
{
    for (size_t i = 0; i < n; i++, out += KEY_G1_BYTES)
        key_g1_write(out, &p[i]);
    return out;
}

static uint8_t *write_g2s(uint8_t *out, const G2A *p, size_t n)
{
    for (size_t i = 0; i < n; i++, out += KEY_G2_BYTES)
        key_g2_write(out, &p[i]);
    return out;
}

#define VK_FIXED_BYTES (ZKPIPE__G16_HEADER_BYTES + 8 + KEY_G1_BYTES + 3 * KEY_G2_BYTES)

static size_t vk_encoded_bytes(const zkpipe_groth16_vk *base)
{
    return VK_FIXED_BYTES + base->num_inputs * KEY_G1_BYTES;
}

static void vk_encode(uint8_t *out, const zkpipe_groth16_vk *base)
{
    const VK *vk = (const VK *)base;
    zkpipe__g16_write_header(out, "ZKG16VK", OPS.curve);
    out += ZKPIPE__G16_HEADER_BYTES;
    zkpipe__g16_put_u64(out, base->num_inputs);
    out = write_g1s(out + 8, &vk->alpha1, 1);
    out = write_g2s(out, &vk->beta2, 1);
    out = write_g2s(out, &vk->gamma2, 1);
    out = write_g2s(out, &vk->delta2, 1);
    write_g1s(out, vk->ic, base->num_inputs);
}

static zkpipe_status vk_decode(zkpipe_groth16_vk **out, const uint8_t *in, size_t len,
                               const zkpipe_allocator *a)
{
    zkpipe_status st = zkpipe__g16_check_header(in, len, "ZKG16VK", OPS.curve);
    if (st != ZKPIPE_OK)
        return st;
    if (len < VK_FIXED_BYTES)
        return ZKPIPE_EFORMAT;
    uint64_t ni = zkpipe__g16_get_u64(in + ZKPIPE__G16_HEADER_BYTES);
    if (ni == 0 || ni > (len - VK_FIXED_BYTES) / KEY_G1_BYTES ||
        len != VK_FIXED_BYTES + ni * KEY_G1_BYTES)
        return ZKPIPE_EFORMAT;
    VK *vk;
    st = vk_alloc(&vk, (size_t)ni, a);
    if (st != ZKPIPE_OK)
        return st;
    reader r = {in + ZKPIPE__G16_HEADER_BYTES + 8, ZKPIPE_OK};
    read_g1(&r, &vk->alpha1);
    read_g2(&r, &vk->beta2);
    read_g2(&r, &vk->gamma2);
    read_g2(&r, &vk->delta2);
    for (size_t i = 0; i < ni && r.st == ZKPIPE_OK; i++)
        read_g1(&r, &vk->ic[i]);
    if (r.st != ZKPIPE_OK) {
        zkpipe__free(a, vk);
        return r.st;
    }
    *out = &vk->base;
    return ZKPIPE_OK;
}

#define PK_FIXED_BYTES (ZKPIPE__G16_HEADER_BYTES + 40 + 3 * KEY_G1_BYTES + 2 * KEY_G2_BYTES)

/* Bytes of a proving key file with these counts, or 0 when that overflows or num_a or num_b
 * exceeds the variables. */
static uint64_t pk_file_bytes(uint64_t ni, uint64_t na, unsigned log_n, uint64_t num_a,
                              uint64_t num_b)
{
    if (ni > UINT32_MAX || na > UINT32_MAX || num_a > ni + na || num_b > ni + na)
        return 0;
    uint64_t nv = ni + na, n = (uint64_t)1 << log_n;
    uint64_t g1 = num_a + num_b + na + n - 1, words = zkpipe__density_words((size_t)nv);
    return PK_FIXED_BYTES + 16 * words + g1 * KEY_G1_BYTES + num_b * KEY_G2_BYTES;
}

static size_t pk_encoded_bytes(const zkpipe_groth16_pk *base)
{
    return (size_t)pk_file_bytes(base->num_inputs, base->num_aux, base->log_n, base->num_a,
                                 base->num_b);
}

static void pk_encode(uint8_t *out, const zkpipe_groth16_pk *base)
{
    const PK *pk = (const PK *)base;
    size_t n = (size_t)1 << base->log_n;
    zkpipe__g16_write_header(out, "ZKG16PK", OPS.curve);
    out += ZKPIPE__G16_HEADER_BYTES;
    zkpipe__g16_put_u64(out, base->num_inputs);
    zkpipe__g16_put_u64(out + 8, base->num_aux);
    zkpipe__g16_put_u64(out + 16, base->log_n);
    zkpipe__g16_put_u64(out + 24, base->num_a);
    zkpipe__g16_put_u64(out + 32, base->num_b);
    out = write_g1s(out + 40, &pk->alpha1, 1);
    out = write_g1s(out, &pk->beta1, 1);
    out = write_g2s(out, &pk->beta2, 1);
    out = write_g1s(out, &pk->delta1, 1);
    out = write_g2s(out, &pk->delta2, 1);
    for (size_t i = 0; i < 2 * pk->words; i++, out += 8)
        zkpipe__g16_put_u64(out, pk->density[i]);
    out = write_g1s(out, pk->a, base->num_a);
    out = write_g1s(out, pk->b1, base->num_b);
    out = write_g2s(out, pk->b2, base->num_b);
    out = write_g1s(out, pk->l, base->num_aux);
    write_g1s(out, pk->h, n - 1);
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
            w = zkpipe__g16_get_u64(in + 8 * ((size_t)k * words + i));
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

static zkpipe_status pk_decode(zkpipe_groth16_pk **out, const uint8_t *in, size_t len,
                               const zkpipe_allocator *a)
{
    zkpipe_status st = zkpipe__g16_check_header(in, len, "ZKG16PK", OPS.curve);
    if (st != ZKPIPE_OK)
        return st;
    if (len < PK_FIXED_BYTES)
        return ZKPIPE_EFORMAT;
    const uint8_t *p = in + ZKPIPE__G16_HEADER_BYTES;
    uint64_t ni = zkpipe__g16_get_u64(p), na = zkpipe__g16_get_u64(p + 8);
    uint64_t log_n = zkpipe__g16_get_u64(p + 16);
    uint64_t counts[2] = {zkpipe__g16_get_u64(p + 24), zkpipe__g16_get_u64(p + 32)};
    if (ni == 0 || log_n > FR_TWO_ADICITY ||
        pk_file_bytes(ni, na, (unsigned)log_n, counts[0], counts[1]) != len)
        return ZKPIPE_EFORMAT;
    size_t nv = (size_t)(ni + na), n = (size_t)1 << log_n, words = zkpipe__density_words(nv);
    const uint8_t *bitmaps = p + PK_FIXED_BYTES - ZKPIPE__G16_HEADER_BYTES;
    if ((st = check_density(bitmaps, words, (size_t)ni, nv, counts)) != ZKPIPE_OK)
        return st;
    PK *pk;
    st = pk_alloc(&pk, (size_t)ni, (size_t)na, (unsigned)log_n, (size_t)counts[0],
                  (size_t)counts[1], a);
    if (st != ZKPIPE_OK)
        return st;
    for (size_t i = 0; i < 2 * words; i++)
        pk->density[i] = zkpipe__g16_get_u64(bitmaps + 8 * i);
    pk_density_derive(pk);
    reader r = {p + 40, ZKPIPE_OK};
    read_g1(&r, &pk->alpha1);
    read_g1(&r, &pk->beta1);
    read_g2(&r, &pk->beta2);
    read_g1(&r, &pk->delta1);
    read_g2(&r, &pk->delta2);
    r.p += 16 * words;
    for (size_t i = 0; i < counts[0]; i++)
        read_g1(&r, &pk->a[i]);
    for (size_t i = 0; i < counts[1]; i++)
        read_g1(&r, &pk->b1[i]);
    for (size_t i = 0; i < counts[1]; i++)
        read_g2(&r, &pk->b2[i]);
    for (size_t i = 0; i < na; i++)
        read_g1(&r, &pk->l[i]);
    for (size_t i = 0; i + 1 < n; i++)
        read_g1(&r, &pk->h[i]);
    if (r.st != ZKPIPE_OK) {
        zkpipe__free(a, pk);
        return r.st;
    }
    *out = &pk->base;
    return ZKPIPE_OK;
}
