#include "zkpipe/status.h"

#define STATUS_LIST(X)                                                                             \
    X(ZKPIPE_OK, "success")                                                                        \
    X(ZKPIPE_EINVAL, "invalid argument")                                                           \
    X(ZKPIPE_ENOMEM, "out of memory")                                                              \
    X(ZKPIPE_ECLOSED, "closed")                                                                    \
    X(ZKPIPE_ETIMEDOUT, "timed out")                                                               \
    X(ZKPIPE_EAGAIN, "would block")                                                                \
    X(ZKPIPE_ELIMIT, "table full")                                                                 \
    X(ZKPIPE_ESTATE, "invalid state for this call")                                                \
    X(ZKPIPE_EUNDERFLOW, "release exceeds what was charged")                                       \
    X(ZKPIPE_EIO, "input/output error")                                                            \
    X(ZKPIPE_EFORMAT, "malformed input")                                                           \
    X(ZKPIPE_ENOTONCURVE, "point not on curve")                                                    \
    X(ZKPIPE_ENOTINSUBGROUP, "point not in prime-order subgroup")                                  \
    X(ZKPIPE_ENONCANONICAL, "non-canonical field element")                                         \
    X(ZKPIPE_EFLAGS, "invalid point encoding flags")                                               \
    X(ZKPIPE_EUNSATISFIED, "witness does not satisfy the constraints")                             \
    X(ZKPIPE_EVERIFY, "proof does not verify")                                                     \
    X(ZKPIPE_EDEVICE, "GPU error")                                                                 \
    X(ZKPIPE_ENODEVICE, "no GPU device")                                                           \
    X(ZKPIPE_ECANCELED, "cancelled")                                                               \
    X(ZKPIPE_EUNSUPPORTED, "unsupported")                                                          \
    X(ZKPIPE_ETOOBIG, "request exceeds capacity")                                                  \
    X(ZKPIPE_EMISMATCH, "inputs do not match")                                                     \
    X(ZKPIPE_ETHREAD, "thread creation failed")                                                    \
    X(ZKPIPE_EOVERFLOW, "size overflow")

const char *zkpipe_status_str(int status)
{
#define CASE(name, text)                                                                           \
    case name:                                                                                     \
        return text;
    switch (status) {
        STATUS_LIST(CASE)
    }
#undef CASE
    return "unknown status";
}

const char *zkpipe_status_name(int status)
{
#define CASE(name, text)                                                                           \
    case name:                                                                                     \
        return #name;
    switch (status) {
        STATUS_LIST(CASE)
    }
#undef CASE
    return "ZKPIPE_UNKNOWN";
}
