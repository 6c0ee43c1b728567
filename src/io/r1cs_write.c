/* The .r1cs writer: a constraint system as circom writes one (header, constraints, the wire to
 * label map), so that snarkjs and rapidsnark take zkpipe's circuits. */
#include "circuit/cs_internal.h"
#include "io/file_out.h"
#include "io/io_internal.h"

/* One linear combination: its count, then (wire, canonical value) per term. */
static void write_lc(zkpipe__io_out *o, const zkpipe_cs *cs, int mat, size_t row)
{
    size_t count;
    const zkpipe__term *t = zkpipe__cs_row(cs, mat, row, &count);
    zkpipe__io_out_u32(o, (uint32_t)count);
    for (size_t i = 0; i < count; i++) {
        uint64_t v[ZKPIPE__FE_LIMBS];
        cs->ops->fr_to_canonical(v, zkpipe__cs_coeff(cs, t[i].coeff));
        zkpipe__io_out_u32(o, (uint32_t)zkpipe__var_index(cs, t[i].var));
        zkpipe__io_out_limbs(o, v, 1, ZKPIPE__FE_LIMBS);
    }
}

zkpipe_status zkpipe_r1cs_write(char *detail, size_t detail_cap, const char *path,
                                const zkpipe_cs *cs)
{
    if (path == NULL || cs == NULL || cs->num_inputs == 0)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    size_t wires = cs->num_inputs + cs->num_aux;
    if (wires > UINT32_MAX || cs->num_constraints > UINT32_MAX)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_ETOOBIG,
                            "%zu wires and %zu constraints do not fit an r1cs's 32-bit counts",
                            wires, cs->num_constraints);
    zkpipe__io_out o;
    zkpipe_status st = zkpipe__io_out_open(&o, detail, detail_cap, path, "r1cs", 1, 3);
    if (st != ZKPIPE_OK)
        return st;
    /* Header: n8, r, wires, outputs (none: every public value is an input), public inputs
     * (the inputs but the one), private inputs (none), labels (one per wire), constraints. */
    zkpipe__io_out_section(&o, 1);
    zkpipe__io_out_u32(&o, 32);
    zkpipe__io_out_limbs(&o, cs->ops->r, 1, ZKPIPE__FE_LIMBS);
    zkpipe__io_out_u32(&o, (uint32_t)wires);
    zkpipe__io_out_u32(&o, 0);
    zkpipe__io_out_u32(&o, (uint32_t)(cs->num_inputs - 1));
    zkpipe__io_out_u32(&o, 0);
    zkpipe__io_out_u64(&o, wires);
    zkpipe__io_out_u32(&o, (uint32_t)cs->num_constraints);
    zkpipe__io_out_section_end(&o);
    zkpipe__io_out_section(&o, 2);
    for (size_t row = 0; row < cs->num_constraints && o.err == 0; row++)
        for (int m = 0; m < 3; m++)
            write_lc(&o, cs, m, row);
    zkpipe__io_out_section_end(&o);
    zkpipe__io_out_section(&o, 3);
    for (size_t w = 0; w < wires && o.err == 0; w++)
        zkpipe__io_out_u64(&o, w);
    zkpipe__io_out_section_end(&o);
    return zkpipe__io_out_commit(&o, detail, detail_cap);
}
