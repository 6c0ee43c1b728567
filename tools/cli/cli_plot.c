/* The run's picture as SVG (cli_plot.h), written by hand: two panels sharing the time axis,
 * nice round ticks, binary byte units, a legend of the stages that held bytes. */
#include "cli_plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLI_PLOT_POINTS 4096
#define W 960
#define LEFT 90
#define RIGHT 180 /* room for the legend */
#define TOP1 60
#define H1 300
#define TOP2 430
#define H2 170
#define H (TOP2 + H2 + 60)

static const char *const colors[CLI_PLOT_STAGES] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#86bcb6", "#d37295",
};

void cli_plot_sample(uint64_t time_ns, const zkpipe_snapshot *snap, void *ctx)
{
    cli_plot *p = ctx;
    if (p->failed)
        return;
    if (p->pts == NULL) {
        p->pts = malloc(CLI_PLOT_POINTS * sizeof *p->pts);
        if (p->pts == NULL) {
            p->failed = 1;
            return;
        }
    }
    if (p->n == CLI_PLOT_POINTS) {
        for (size_t i = 0; i < p->n / 2; i++) {
            cli_plot_point m = p->pts[2 * i];
            const cli_plot_point *b = &p->pts[2 * i + 1];
            for (uint32_t s = 0; s < CLI_PLOT_STAGES; s++)
                m.bytes[s] = m.bytes[s] > b->bytes[s] ? m.bytes[s] : b->bytes[s];
            m.waist = m.waist > b->waist ? m.waist : b->waist;
            p->pts[i] = m;
        }
        p->n /= 2;
    }
    uint32_t stages = snap->stage_count < CLI_PLOT_STAGES ? snap->stage_count : CLI_PLOT_STAGES;
    if (stages > p->stage_count) {
        for (uint32_t s = p->stage_count; s < stages; s++)
            memcpy(p->stage_names[s], snap->stage_names[s], sizeof p->stage_names[s]);
        p->stage_count = stages;
    }
    cli_plot_point *pt = &p->pts[p->n++];
    memset(pt, 0, sizeof *pt);
    pt->t_ns = time_ns;
    for (uint32_t s = 0; s < stages; s++)
        pt->bytes[s] = snap->stage[s].live_bytes;
    pt->waist = zkpipe_snapshot_in_waist(snap);
}

void cli_plot_free(cli_plot *p)
{
    free(p->pts);
    memset(p, 0, sizeof *p);
}

/* A round tick step (1, 2 or 5 times a power of ten) giving about `want` ticks over `range`. */
static double nice_step(double range, int want)
{
    double raw = range / want;
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* Bytes per unit and the unit's name for an axis whose top is `max` bytes. */
static double byte_unit(double max, const char **name)
{
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double div = 1;
    while (u < 4 && max / div >= 1024 * 2) {
        div *= 1024;
        u++;
    }
    *name = names[u];
    return div;
}

typedef struct frame {
    double t0, t1; /* seconds shown */
    double top, height, vmax;
} frame;

static double fx(const frame *f, double t)
{
    return LEFT + (t - f->t0) / (f->t1 - f->t0) * (W - LEFT - RIGHT);
}

static double fy(const frame *f, double v)
{
    return f->top + f->height - v / f->vmax * f->height;
}

/* Axes, grid and tick labels of one panel; values shown divided by `div`. */
static void axes(FILE *out, const frame *f, double div, const char *ylabel, int xlabels)
{
    double ystep = nice_step(f->vmax / div, 5);
    for (double v = 0; v <= f->vmax / div * 1.0001; v += ystep) {
        double y = fy(f, v * div);
        fprintf(out,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" class=\"tick\">%g</text>\n",
                LEFT, y, W - RIGHT, y, LEFT - 6, y + 4, v);
    }
    double xstep = nice_step(f->t1 - f->t0, 8);
    for (double t = 0; t <= f->t1 * 1.0001; t += xstep) {
        double x = fx(f, t);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", x,
                f->top, x, f->top + f->height);
        if (xlabels)
            fprintf(out,
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"tick\">%g</text>\n",
                    x, f->top + f->height + 18, t);
    }
    fprintf(
        out,
        "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"none\" stroke=\"#444\"/>\n"
        "<text transform=\"translate(%d,%.1f) rotate(-90)\" text-anchor=\"middle\" "
        "class=\"label\">%s</text>\n",
        LEFT, f->top, W - LEFT - RIGHT, f->height, 24, f->top + f->height / 2, ylabel);
}

/* The step curve of `v(i)` (held until the next sample) as SVG points, left to right. */
static void step_points(FILE *out, const cli_plot *p, const frame *f, const double *v)
{
    for (size_t i = 0; i < p->n; i++) {
        double t = (double)(p->pts[i].t_ns - p->pts[0].t_ns) * 1e-9;
        double next = i + 1 < p->n ? (double)(p->pts[i + 1].t_ns - p->pts[0].t_ns) * 1e-9 : f->t1;
        fprintf(out, "%.1f,%.1f %.1f,%.1f ", fx(f, t), fy(f, v[i]), fx(f, next), fy(f, v[i]));
    }
}

static void step_points_back(FILE *out, const cli_plot *p, const frame *f, const double *v)
{
    for (size_t i = p->n; i-- > 0;) {
        double t = (double)(p->pts[i].t_ns - p->pts[0].t_ns) * 1e-9;
        double next = i + 1 < p->n ? (double)(p->pts[i + 1].t_ns - p->pts[0].t_ns) * 1e-9 : f->t1;
        fprintf(out, "%.1f,%.1f %.1f,%.1f ", fx(f, next), fy(f, v[i]), fx(f, t), fy(f, v[i]));
    }
}

static void draw_bytes(FILE *out, const cli_plot *p, double t1, double *lower, double *upper)
{
    double vmax = 1;
    uint64_t stage_max[CLI_PLOT_STAGES] = {0};
    for (size_t i = 0; i < p->n; i++) {
        double sum = 0;
        for (uint32_t s = 0; s < p->stage_count; s++) {
            sum += (double)p->pts[i].bytes[s];
            if (p->pts[i].bytes[s] > stage_max[s])
                stage_max[s] = p->pts[i].bytes[s];
        }
        vmax = sum > vmax ? sum : vmax;
    }
    const char *unit;
    double div = byte_unit(vmax, &unit);
    frame f = {0, t1, TOP1, H1, 0};
    f.vmax = nice_step(vmax / div, 5) * div * ceil(vmax / div / nice_step(vmax / div, 5));
    char ylabel[64];
    snprintf(ylabel, sizeof ylabel, "live bytes (%s)", unit);
    axes(out, &f, div, ylabel, 1);
    for (size_t i = 0; i < p->n; i++)
        lower[i] = 0;
    int legend = 0;
    for (uint32_t s = 0; s < p->stage_count; s++) {
        if (stage_max[s] == 0)
            continue;
        for (size_t i = 0; i < p->n; i++)
            upper[i] = lower[i] + (double)p->pts[i].bytes[s];
        fprintf(out, "<polygon fill=\"%s\" fill-opacity=\"0.85\" points=\"", colors[s]);
        step_points(out, p, &f, upper);
        step_points_back(out, p, &f, lower);
        fprintf(out, "\"/>\n");
        memcpy(lower, upper, p->n * sizeof *lower);
        fprintf(out,
                "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>\n"
                "<text x=\"%d\" y=\"%d\" class=\"legend\">%s</text>\n",
                W - RIGHT + 16, TOP1 + 10 + 22 * legend, colors[s], W - RIGHT + 36,
                TOP1 + 22 + 22 * legend, p->stage_names[s]);
        legend++;
    }
}

static void draw_waist(FILE *out, const cli_plot *p, double t1, uint64_t bound, double *v)
{
    double vmax = (double)bound;
    for (size_t i = 0; i < p->n; i++) {
        v[i] = (double)p->pts[i].waist;
        vmax = v[i] > vmax ? v[i] : vmax;
    }
    frame f = {0, t1, TOP2, H2, 0};
    double step = nice_step(vmax > 1 ? vmax : 1, 4);
    step = step < 1 ? 1 : step;
    f.vmax = step * ceil((vmax > 0 ? vmax : 1) / step);
    if (f.vmax <= vmax)
        f.vmax += step;
    axes(out, &f, 1, "items", 1);
    double by = fy(&f, (double)bound);
    if (bound > 0)
        fprintf(out,
                "<clipPath id=\"over\"><rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"/>"
                "</clipPath>\n",
                LEFT, f.top, W - LEFT - RIGHT, by - f.top);
    double zero[1] = {0};
    for (int pass = 0; pass < (bound > 0 ? 2 : 1); pass++) {
        fprintf(out, "<polygon %s fill=\"%s\" fill-opacity=\"%s\" points=\"",
                pass ? "clip-path=\"url(#over)\"" : "", pass ? "#d62728" : "#4e79a7",
                pass ? "0.8" : "0.35");
        step_points(out, p, &f, v);
        fprintf(out, "%.1f,%.1f %.1f,%.1f\"/>\n", fx(&f, t1), fy(&f, zero[0]), fx(&f, 0),
                fy(&f, zero[0]));
    }
    fprintf(out, "<polyline fill=\"none\" stroke=\"#1f4e79\" stroke-width=\"1.5\" points=\"");
    step_points(out, p, &f, v);
    fprintf(out, "\"/>\n");
    int y = TOP2 + 10;
    fprintf(out,
            "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"#4e79a7\" "
            "fill-opacity=\"0.5\"/>\n<text x=\"%d\" y=\"%d\" class=\"legend\">synth + pending"
            "</text>\n<text x=\"%d\" y=\"%d\" class=\"legend\">+ queued</text>\n",
            W - RIGHT + 16, y, W - RIGHT + 36, y + 12, W - RIGHT + 36, y + 28);
    if (bound > 0) {
        fprintf(out,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#d62728\" "
                "stroke-width=\"2\" stroke-dasharray=\"8,4\"/>\n"
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#d62728\" "
                "stroke-width=\"2\" stroke-dasharray=\"8,4\"/>\n"
                "<text x=\"%d\" y=\"%d\" class=\"legend\">bound = %llu</text>\n"
                "<text x=\"%d\" y=\"%d\" class=\"legend\">(permits +</text>\n"
                "<text x=\"%d\" y=\"%d\" class=\"legend\">capacity)</text>\n"
                "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"#d62728\"/>\n"
                "<text x=\"%d\" y=\"%d\" class=\"legend\">over the bound</text>\n",
                LEFT, by, W - RIGHT, by, W - RIGHT + 14, y + 50, W - RIGHT + 32, y + 50,
                W - RIGHT + 36, y + 54, (unsigned long long)bound, W - RIGHT + 36, y + 70,
                W - RIGHT + 36, y + 86, W - RIGHT + 16, y + 100, W - RIGHT + 36, y + 112);
    }
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"label\">time (s)</text>\n",
            LEFT + (W - LEFT - RIGHT) / 2, TOP2 + H2 + 45);
}

/* `s` with the XML specials escaped. */
static void put_xml(FILE *out, const char *s)
{
    for (; *s != '\0'; s++) {
        if (*s == '<')
            fputs("&lt;", out);
        else if (*s == '>')
            fputs("&gt;", out);
        else if (*s == '&')
            fputs("&amp;", out);
        else
            fputc(*s, out);
    }
}

char *cli_plot_render(const cli_plot *p, const char *title, uint64_t bound, size_t *len)
{
    if (p->failed) {
        errno = ENOMEM;
        return NULL;
    }
    size_t n = p->n > 0 ? p->n : 1, size = 0;
    char *text = NULL;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    FILE *out = a != NULL && b != NULL ? open_memstream(&text, &size) : NULL;
    if (out == NULL) {
        free(a);
        free(b);
        errno = ENOMEM;
        return NULL;
    }
    double t1 = p->n > 1 ? (double)(p->pts[p->n - 1].t_ns - p->pts[0].t_ns) * 1e-9 : 1;
    if (t1 <= 0)
        t1 = 1;
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, sans-serif\">\n"
            "<style>.tick{font-size:12px;fill:#333}.label{font-size:14px;fill:#222}"
            ".legend{font-size:13px;fill:#222}.title{font-size:18px;fill:#111}</style>\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"%d\" y=\"32\" class=\"title\">",
            W, H, W, H, LEFT);
    put_xml(out, title);
    fprintf(out,
            "</text>\n<text x=\"%d\" y=\"%d\" class=\"label\">live bytes per stage "
            "(stacked)</text>\n<text x=\"%d\" y=\"%d\" class=\"label\">items between "
            "synthesis and the prover, against the bound</text>\n",
            LEFT, TOP1 - 8, LEFT, TOP2 - 8);
    if (p->n > 0) {
        draw_bytes(out, p, t1, a, b);
        draw_waist(out, p, t1, bound, a);
    }
    fprintf(out, "</svg>\n");
    free(a);
    free(b);
    int bad = ferror(out);
    if (fclose(out) != 0 || bad) { /* a memory stream fails only for want of memory */
        free(text);
        errno = ENOMEM;
        return NULL;
    }
    *len = size;
    return text;
}
