/* libFuzzer target: the .wtns reader on arbitrary bytes; every value of what opens is read. */
#include <stdint.h>
#include <stdlib.h>

#include "zkpipe/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char detail[ZKPIPE_IO_DETAIL_MAX];
    zkpipe_wtns *w;
    if (zkpipe_wtns_open_mem(&w, detail, sizeof detail, data, size, NULL) != ZKPIPE_OK)
        return 0;
    zkpipe_scalar s;
    for (size_t i = 0; i < zkpipe_wtns_count(w); i++)
        if (zkpipe_wtns_get(&s, w, i) != ZKPIPE_OK)
            abort();
    zkpipe_wtns_destroy(w);
    return 0;
}
