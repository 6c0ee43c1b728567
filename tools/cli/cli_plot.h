/* A picture of a run (--plot FILE.svg), drawn from the trace's counter samples: live bytes per
 * stage stacked over time, and below it the items in synth + pending + queued against the
 * bound (permits + capacity), where items over the bound show in red. */
#ifndef ZKPIPE_EXAMPLES_CLI_PLOT_H
#define ZKPIPE_EXAMPLES_CLI_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "zkpipe/acct.h"

#define CLI_PLOT_STAGES ZKPIPE_STAGE_MAX

typedef struct cli_plot_point {
    uint64_t t_ns;
    uint64_t bytes[CLI_PLOT_STAGES];
    uint64_t waist; /* items in synth + pending + queued */
} cli_plot_point;

/* Zero-filled is empty. At most CLI_PLOT_POINTS samples are kept: past that, neighbours are
 * merged two by two into their maxima (an envelope that keeps every peak). */
typedef struct cli_plot {
    cli_plot_point *pts;
    size_t n;
    uint32_t stage_count;
    char stage_names[CLI_PLOT_STAGES][ZKPIPE_ACCT_NAME_MAX + 1];
    int failed; /* out of memory */
} cli_plot;

/* A zkpipe_trace_sample_fn: adds the sample (ctx: the cli_plot). */
void cli_plot_sample(uint64_t time_ns, const zkpipe_snapshot *snap, void *ctx);

/* The SVG, in a malloc'd buffer the caller frees, *len its bytes (a NUL follows them);
 * `bound` 0 draws no bound line. The file is written by whoever calls this, so that it can go
 * with the run's other outputs as one set (cli_files.h). NULL with errno ENOMEM: out of
 * memory, now or while the samples were taken. */
char *cli_plot_render(const cli_plot *p, const char *title, uint64_t bound, size_t *len);

void cli_plot_free(cli_plot *p);

#endif
