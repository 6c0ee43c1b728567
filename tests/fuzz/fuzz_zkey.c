/* libFuzzer target: the Groth16 .zkey reader on arbitrary bytes (every check on); the
 * verifying key of what opens is extracted. */
#include <stdint.h>
#include <stdlib.h>

#include "zkpipe/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char detail[ZKPIPE_IO_DETAIL_MAX];
    zkpipe_zkey *z;
    if (zkpipe_zkey_open_mem(&z, detail, sizeof detail, data, size, NULL) != ZKPIPE_OK)
        return 0;
    zkpipe_groth16_vk *vk;
    if (zkpipe_zkey_vk(&vk, z, NULL) != ZKPIPE_OK)
        abort();
    zkpipe_groth16_vk_destroy(vk);
    zkpipe_zkey_destroy(z);
    return 0;
}
