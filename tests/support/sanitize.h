/* ZKPIPE_TEST_SANITIZED is nonzero when the test runs slowed down, so stress loops and large
 * cases can scale their counts down: built with ASan or TSan (gcc defines __SANITIZE_*__, clang
 * answers __has_feature), or run under a wrapper such as valgrind. The wrapper is known at run
 * time only: tests/CMakeLists.txt puts ZKPIPE_TEST_WRAPPED=1 in the environment of the tests it
 * runs under ZKPIPE_TEST_WRAPPER, so that setting one on a build (CI's valgrind step) compiles
 * nothing again. It is an expression, not a preprocessor constant. */
#ifndef ZKPIPE_TESTS_SANITIZE_H
#define ZKPIPE_TESTS_SANITIZE_H

#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define ZKPIPE_TEST_SANITIZED_BUILD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define ZKPIPE_TEST_SANITIZED_BUILD 1
#endif
#endif
#ifndef ZKPIPE_TEST_SANITIZED_BUILD
#define ZKPIPE_TEST_SANITIZED_BUILD 0
#endif

/* 1 when ZKPIPE_TEST_WRAPPED is set to anything but "" or "0". */
static inline int test_wrapped(void)
{
    const char *w = getenv("ZKPIPE_TEST_WRAPPED");
    return w != NULL && *w != '\0' && strcmp(w, "0") != 0;
}

#define ZKPIPE_TEST_SANITIZED (ZKPIPE_TEST_SANITIZED_BUILD || test_wrapped())

#endif
