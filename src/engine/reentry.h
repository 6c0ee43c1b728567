/* Calls into the engine from its own threads: which engine, if any, the calling thread works
 * for, and the stage call it is in, so that a call that would wait for itself (drain, a job's
 * wait) is refused with a detail line, and one that would free what the thread still uses
 * (destroy, a job's destroy) is deferred to the end of that use. */
#ifndef ZKPIPE_ENGINE_REENTRY_H
#define ZKPIPE_ENGINE_REENTRY_H

#include <stddef.h>

#include "zkpipe/engine.h"

/* The calling thread works for `e` from now on (NULL: for no engine). */
void zkpipe__reentry_enter(const zkpipe_engine *e);

/* The calling thread runs a stage operation whose call's detail buffer is `detail` (`cap`
 * bytes); NULL when it leaves it. */
void zkpipe__reentry_call(char *detail, size_t cap);

/* 1 when the calling thread works for `e`. Compares addresses only: `e` may be freed. */
int zkpipe__reentry_on(const zkpipe_engine *e);

/* Refuses `what` on an engine thread: writes the line to the stage call's detail buffer (when
 * the thread is in one) and to the thread's last detail (zkpipe_last_detail), and returns
 * ZKPIPE_ESTATE. */
zkpipe_status zkpipe__reentry_refuse(const char *what);

#endif
