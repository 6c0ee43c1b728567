/* The .wtns writer (version 2): a witness-mode system's assignment, the one first, as circom's
 * witness calculators write it. */
#include <stdlib.h>

#include "circuit/cs_internal.h"
#include "io/file_out.h"
#include "io/io_internal.h"

/* n Montgomery values as canonical ones. */
static void write_values(zkpipe__io_out *o, const zkpipe_cs *cs, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n && o->err == 0; i++) {
        uint64_t c[ZKPIPE__FE_LIMBS];
        cs->ops->fr_to_canonical(c, v + (size_t)ZKPIPE__FE_LIMBS * i);
        zkpipe__io_out_limbs(o, c, 1, ZKPIPE__FE_LIMBS);
    }
}

zkpipe_status zkpipe_wtns_write(char *detail, size_t detail_cap, const char *path,
                                const zkpipe_cs *cs)
{
    if (path == NULL || cs == NULL || cs->num_inputs == 0)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_EINVAL, "invalid argument");
    if (cs->mode != ZKPIPE_CS_WITNESS)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_ESTATE,
                            "the system has no values (shape mode)");
    size_t wires = cs->num_inputs + cs->num_aux;
    if (wires > UINT32_MAX)
        return zkpipe__fail(detail, detail_cap, ZKPIPE_ETOOBIG,
                            "%zu values do not fit a wtns's 32-bit count", wires);
    zkpipe__io_out o;
    zkpipe_status st = zkpipe__io_out_open(&o, detail, detail_cap, path, "wtns", 2, 2);
    if (st != ZKPIPE_OK)
        return st;
    zkpipe__io_out_section(&o, 1);
    zkpipe__io_out_u32(&o, 32);
    zkpipe__io_out_limbs(&o, cs->ops->r, 1, ZKPIPE__FE_LIMBS);
    zkpipe__io_out_u32(&o, (uint32_t)wires);
    zkpipe__io_out_section_end(&o);
    zkpipe__io_out_section(&o, 2);
    write_values(&o, cs, cs->input_values, cs->num_inputs);
    write_values(&o, cs, cs->aux_values, cs->num_aux);
    zkpipe__io_out_section_end(&o);
    return zkpipe__io_out_commit(&o, detail, detail_cap);
}
