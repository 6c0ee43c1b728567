/* The interop fixtures' paths (fixture_path.h). */
#include "fixture_path.h"

#include <stdio.h>
#include <stdlib.h>

char *fixture_path(char *out, size_t cap, const char *curve, const char *circuit, const char *file)
{
    const char *src = getenv("ZKPIPE_SOURCE_DIR");
    snprintf(out, cap, "%s/tests/interop/fixtures/%s/%s/%s", src != NULL ? src : ".", curve,
             circuit, file);
    return out;
}
