/* The connections a server holds, as its thread sees them: when each became idle, whether it
 * is being answered, which to close for a deadline or to make room. Closing is a
 * shutdown(SHUT_RDWR) of the socket, which libmicrohttpd then finds at its next read or write
 * and closes itself, with its own bookkeeping. This is race-free because everything here runs
 * on the server's one thread, between libmicrohttpd's passes: a socket is in a slot from
 * libmicrohttpd's "started" notification to its "closed" one, which it sends before it closes
 * the descriptor, so a descriptor shut down here is always the connection's own, never a
 * number the system has since handed to another file. */
#include <sys/socket.h>

#include "core/alloc_internal.h"
#include "http/http_internal.h"

zkpipe_status zkpipe__http_slots_init(zkpipe__http_slots *slots, size_t cap,
                                      uint64_t request_timeout_ns, const zkpipe_allocator *a)
{
    *slots = (zkpipe__http_slots){0};
    slots->slot = zkpipe__calloc(a, cap, sizeof *slots->slot, _Alignof(zkpipe__http_slot));
    if (slots->slot == NULL)
        return ZKPIPE_ENOMEM;
    for (size_t i = 0; i < cap; i++)
        slots->slot[i].fd = -1;
    slots->cap = cap;
    slots->request_timeout_ns = request_timeout_ns;
    return ZKPIPE_OK;
}

void zkpipe__http_slots_free(zkpipe__http_slots *slots, const zkpipe_allocator *a)
{
    if (slots->slot != NULL)
        zkpipe__free(a, slots->slot);
    slots->slot = NULL;
}

zkpipe__http_slot *zkpipe__http_slots_take(zkpipe__http_slots *slots, int fd, uint64_t now_ns)
{
    for (size_t i = 0; i < slots->cap; i++) {
        zkpipe__http_slot *x = &slots->slot[i];
        if (x->fd < 0) {
            *x = (zkpipe__http_slot){fd, 0, 0, now_ns, slots->pass};
            slots->used++;
            return x;
        }
    }
    return NULL;
}

void zkpipe__http_slots_release(zkpipe__http_slots *slots, zkpipe__http_slot *x)
{
    slots->used--;
    slots->shut -= x->shut;
    x->fd = -1;
}

static void shut(zkpipe__http_slots *slots, zkpipe__http_slot *x)
{
    shutdown(x->fd, SHUT_RDWR);
    x->shut = 1;
    slots->shut++;
}

uint64_t zkpipe__http_slots_expire(zkpipe__http_slots *slots, uint64_t now_ns, uint64_t *expired)
{
    uint64_t next = UINT64_MAX;
    *expired = 0;
    for (size_t i = 0; i < slots->cap; i++) {
        zkpipe__http_slot *x = &slots->slot[i];
        if (x->fd < 0 || x->busy || x->shut)
            continue;
        uint64_t due = x->since_ns + slots->request_timeout_ns;
        if (due <= now_ns && slots->pass - x->pass >= 2) {
            shut(slots, x);
            (*expired)++;
        } else if (due <= now_ns) {
            next = 0;
        } else if (due - now_ns < next) {
            next = due - now_ns;
        }
    }
    return next;
}

int zkpipe__http_slots_full(const zkpipe__http_slots *slots)
{
    return slots->used == slots->cap && slots->shut == 0;
}

int zkpipe__http_slots_evict(zkpipe__http_slots *slots)
{
    zkpipe__http_slot *oldest = NULL;
    for (size_t i = 0; i < slots->cap; i++) {
        zkpipe__http_slot *x = &slots->slot[i];
        if (x->fd >= 0 && !x->busy && !x->shut && slots->pass - x->pass >= 2 &&
            (oldest == NULL || x->since_ns < oldest->since_ns))
            oldest = x;
    }
    if (oldest == NULL)
        return 0;
    shut(slots, oldest);
    return 1;
}
