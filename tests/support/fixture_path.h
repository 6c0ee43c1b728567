/* Where the interop fixtures are: tests/interop/fixtures/<curve>/<circuit>/<file> under the
 * source tree that ctest names in $ZKPIPE_SOURCE_DIR (else the current folder). */
#ifndef ZKPIPE_TESTS_FIXTURE_PATH_H
#define ZKPIPE_TESTS_FIXTURE_PATH_H

#include <stddef.h>

/* Writes the path of `file` of fixture `circuit` on `curve` ("bn128", "bls12381") into `out`
 * (cut to `cap`) and returns `out`. */
char *fixture_path(char *out, size_t cap, const char *curve, const char *circuit, const char *file);

#endif
