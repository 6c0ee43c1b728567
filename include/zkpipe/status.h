/*! zkpipe/status.h : status codes returned by every fallible zkpipe function.
 *
 * 0 is success; errors are negative. The numeric values are fixed forever: new codes are
 * only ever appended. */
#ifndef ZKPIPE_STATUS_H
#define ZKPIPE_STATUS_H

#include "zkpipe/common.h"

ZKPIPE_EXTERN_C_BEGIN

typedef enum zkpipe_status {
    ZKPIPE_OK = 0,
    ZKPIPE_EINVAL = -1,          /* an argument is NULL, out of range or inconsistent */
    ZKPIPE_ENOMEM = -2,          /* an allocation failed */
    ZKPIPE_ECLOSED = -3,         /* the channel, semaphore or engine is closed */
    ZKPIPE_ETIMEDOUT = -4,       /* a timed operation reached its deadline */
    ZKPIPE_EAGAIN = -5,          /* a try operation would have blocked */
    ZKPIPE_ELIMIT = -6,          /* a bounded table (kinds, stages, ...) is full */
    ZKPIPE_ESTATE = -7,          /* the object is not in a state that allows this call */
    ZKPIPE_EUNDERFLOW = -8,      /* releasing more than was charged or acquired */
    ZKPIPE_EIO = -9,             /* reading or writing a file failed */
    ZKPIPE_EFORMAT = -10,        /* malformed input (bad magic, version, section, size) */
    ZKPIPE_ENOTONCURVE = -11,    /* a point does not satisfy the curve equation */
    ZKPIPE_ENOTINSUBGROUP = -12, /* a point is outside the prime-order subgroup */
    ZKPIPE_ENONCANONICAL = -13,  /* a field element encoding is not reduced */
    ZKPIPE_EFLAGS = -14,         /* invalid flag bits in a point encoding */
    ZKPIPE_EUNSATISFIED = -15,   /* the witness does not satisfy the constraints */
    ZKPIPE_EVERIFY = -16,        /* a proof did not verify */
    ZKPIPE_EDEVICE = -17,        /* a GPU call failed; see the backend's message */
    ZKPIPE_ENODEVICE = -18,      /* no usable GPU is present */
    ZKPIPE_ECANCELED = -19,      /* the work was cancelled */
    ZKPIPE_EUNSUPPORTED = -20,   /* a valid request this build does not support */
    ZKPIPE_ETOOBIG = -21,        /* a request exceeds a capacity it can never fit in */
    ZKPIPE_EMISMATCH = -22,      /* inputs that must agree do not (curve, sizes) */
    ZKPIPE_ETHREAD = -23,        /* a thread could not be created */
    ZKPIPE_EOVERFLOW = -24,      /* a size or count computation would overflow */
} zkpipe_status;

/* Detail lines: calls that can say more than a status take `detail` and `detail_cap` and, on
 * failure, write one human-readable line there (NUL-terminated, truncated to fit, no newline)
 * that names the problem. ZKPIPE_DETAIL_MAX bytes always suffice. */
#define ZKPIPE_DETAIL_MAX 256

/*! zkpipe_last_detail() : the detail line of the last call on this thread that failed with
 * something to say and no detail buffer of its own to say it in: a config or operations
 * struct refused with ZKPIPE_EINVAL (the line names the field, e.g.
 * "zkpipe_stage_ops.struct_size is 0: set it with zkpipe_stage_ops_init"), a call refused on
 * an engine's own thread with ZKPIPE_ESTATE. Each such failure replaces it; other calls leave
 * it as it is, so read it right after the failing call.
 * @return this thread's line ("" before any); never NULL; valid until the thread's next call
 *         into zkpipe. Thread safety: any thread (each has its own). Does not allocate. */
ZKPIPE_API const char *zkpipe_last_detail(void);

/*! zkpipe_status_str() : a short English description of `status`.
 * @return a static string; never NULL ("unknown status" for values not listed above).
 * Thread safety: safe from any thread. */
ZKPIPE_API const char *zkpipe_status_str(int status);

/*! zkpipe_status_name() : the enumerator's name, e.g. "ZKPIPE_EINVAL".
 * @return a static string; never NULL ("ZKPIPE_UNKNOWN" for unlisted values).
 * Thread safety: safe from any thread. */
ZKPIPE_API const char *zkpipe_status_name(int status);

ZKPIPE_EXTERN_C_END

#endif
