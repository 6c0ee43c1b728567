/* Which engine the calling thread works for (reentry.h): one thread-local record, set by the
 * engine's workers as they start and around each stage operation. */
#include "engine/reentry.h"

#include "core/detail.h"

static _Thread_local const zkpipe_engine *thread_engine;
static _Thread_local char *thread_detail;
static _Thread_local size_t thread_detail_cap;

void zkpipe__reentry_enter(const zkpipe_engine *e)
{
    thread_engine = e;
    thread_detail = NULL;
    thread_detail_cap = 0;
}

void zkpipe__reentry_call(char *detail, size_t cap)
{
    thread_detail = detail;
    thread_detail_cap = detail != NULL ? cap : 0;
}

int zkpipe__reentry_on(const zkpipe_engine *e)
{
    return e != NULL && thread_engine == e;
}

zkpipe_status zkpipe__reentry_refuse(const char *what)
{
#define WHY "%s from one of the engine's own threads would wait for itself"
    zkpipe__fail(thread_detail, thread_detail_cap, ZKPIPE_ESTATE, WHY, what);
    return zkpipe__refuse(ZKPIPE_ESTATE, WHY, what);
#undef WHY
}
