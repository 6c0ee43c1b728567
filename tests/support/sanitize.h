/* ZKPIPE_TEST_SANITIZED is 1 when the test is built with ASan or TSan, so stress loops can
 * scale their counts down (gcc defines __SANITIZE_*__, clang answers __has_feature). */
#ifndef ZKPIPE_TESTS_SANITIZE_H
#define ZKPIPE_TESTS_SANITIZE_H

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define ZKPIPE_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define ZKPIPE_TEST_SANITIZED 1
#endif
#endif
#ifndef ZKPIPE_TEST_SANITIZED
#define ZKPIPE_TEST_SANITIZED 0
#endif

#endif
