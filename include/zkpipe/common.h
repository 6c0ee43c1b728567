/*! zkpipe/common.h : export and linkage macros shared by every public header. */
#ifndef ZKPIPE_COMMON_H
#define ZKPIPE_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Only symbols marked ZKPIPE_API leave the shared library; everything else is hidden. */
#if defined(ZKPIPE_BUILDING) && defined(__GNUC__)
#define ZKPIPE_API __attribute__((visibility("default")))
#else
#define ZKPIPE_API
#endif

/* On a function whose status must be checked (a charge that may fail, an acquire, a send):
 * ignoring its result is a compiler warning where the compiler has the attribute (GCC and
 * Clang; GCC warns even through a cast to void). */
#if defined(__GNUC__)
#define ZKPIPE_MUST_CHECK __attribute__((warn_unused_result))
#else
#define ZKPIPE_MUST_CHECK
#endif

#ifdef __cplusplus
#define ZKPIPE_EXTERN_C_BEGIN extern "C" {
#define ZKPIPE_EXTERN_C_END }
#else
#define ZKPIPE_EXTERN_C_BEGIN
#define ZKPIPE_EXTERN_C_END
#endif

#endif
