/* UNDER_SANITIZER is 1 when the test is built with ASan or TSan (gcc or clang), so stress
 * loops can scale themselves down there. */
#ifndef ZKPIPE_TESTS_SANITIZER_H
#define ZKPIPE_TESTS_SANITIZER_H

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

#endif
