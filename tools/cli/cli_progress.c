/* The progress line and its ticker (cli_progress.h). */
#include "cli_progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TICK_MS 250
#define PLAIN_EVERY_MS 2000

static void draw(cli_progress *p, int last)
{
    char buf[256];
    int phase = p->line(buf, sizeof buf, p->ctx);
    if (phase < 0)
        return;
    pthread_mutex_lock(&p->out);
    if (p->tty) {
        fprintf(stderr, "\r\033[K%s%s", buf, last ? "\n" : "");
        p->drawn = !last;
    } else if (last || phase != p->phase || p->since_ms >= PLAIN_EVERY_MS) {
        fprintf(stderr, "%s\n", buf);
        p->since_ms = 0;
    }
    p->phase = phase;
    fflush(stderr);
    pthread_mutex_unlock(&p->out);
}

void cli_progress_print(cli_progress *p, FILE *f, const char *line)
{
    pthread_mutex_lock(&p->out);
    if (p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->drawn = 0;
    }
    fprintf(f, "%s\n", line);
    fflush(f);
    pthread_mutex_unlock(&p->out);
}

static void *run(void *arg)
{
    cli_progress *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stopping) {
        struct timespec due;
        clock_gettime(CLOCK_REALTIME, &due);
        due.tv_nsec += TICK_MS * 1000000L;
        if (due.tv_nsec >= 1000000000L) {
            due.tv_sec++;
            due.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->wake, &p->lock, &due);
        if (p->stopping)
            break;
        pthread_mutex_unlock(&p->lock);
        if (p->tick != NULL)
            p->tick(p->ctx);
        p->since_ms += TICK_MS;
        if (p->on)
            draw(p, 0);
        pthread_mutex_lock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int cli_progress_start(cli_progress *p, cli_progress_fn line, cli_tick_fn tick, void *ctx,
                       int forced)
{
    memset(p, 0, sizeof *p);
    p->line = line;
    p->tick = tick;
    p->ctx = ctx;
    p->tty = isatty(STDERR_FILENO);
    p->on = line != NULL && (forced || p->tty);
    p->phase = -1;
    if (pthread_mutex_init(&p->out, NULL) != 0)
        return -1;
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        pthread_mutex_destroy(&p->out);
        return -1;
    }
    int cond = pthread_cond_init(&p->wake, NULL) == 0;
    /* Nothing to draw and no periodic work: no thread, whose start and join (twice waiting for
     * the scheduler on a loaded machine) cost a small proof a tenth of its wall time. */
    p->threaded = p->on || tick != NULL;
    if (!cond || (p->threaded && pthread_create(&p->thread, NULL, run, p) != 0)) {
        if (cond)
            pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        pthread_mutex_destroy(&p->out);
        return -1;
    }
    p->started = 1;
    return 0;
}

void cli_progress_stop(cli_progress *p)
{
    if (!p->started)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = 1;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    if (p->threaded)
        pthread_join(p->thread, NULL);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    p->started = 0;
    if (p->on)
        draw(p, 1);
    pthread_mutex_destroy(&p->out);
}
