/* How the sync layer's calls wait; the clock behind timed waits is in core/clock_internal.h. */
#ifndef ZKPIPE_SYNC_WAIT_INTERNAL_H
#define ZKPIPE_SYNC_WAIT_INTERNAL_H

/* How a sync call waits: blocking, trying once, or until a deadline. */
typedef enum zkpipe__wait_mode {
    ZKPIPE__WAIT_BLOCK,
    ZKPIPE__WAIT_TRY,
    ZKPIPE__WAIT_TIMED,
    ZKPIPE__WAIT_LOOKING /* blocking, calling back while queued (sem_internal.h) */
} zkpipe__wait_mode;

#endif
