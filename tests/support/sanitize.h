/* ZKPIPE_TEST_SANITIZED is 1 when the test runs slowed down, so stress loops and large cases can
 * scale their counts down: built with ASan or TSan (gcc defines __SANITIZE_*__, clang answers
 * __has_feature), or run under a wrapper such as valgrind (ZKPIPE_TEST_WRAPPER in
 * tests/CMakeLists.txt defines ZKPIPE_TEST_WRAPPED). */
#ifndef ZKPIPE_TESTS_SANITIZE_H
#define ZKPIPE_TESTS_SANITIZE_H

#if defined(ZKPIPE_TEST_WRAPPED) || defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
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
