/* The Prometheus writer: family names behind a caller's prefix, constant labels on every
 * sample, and the escapes of the text format (HELP text: \\ and \n; label values: \\, \" and
 * \n). */
#include <string.h>

#include "acct/export_internal.h"

static int is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

int zkpipe__prom_name_valid(const char *name)
{
    if (name == NULL || name[0] == '\0' || is_digit(name[0]))
        return 0;
    size_t n = 0;
    for (; name[n] != '\0'; n++)
        if (n == 128 || !(is_alpha(name[n]) || is_digit(name[n]) || name[n] == ':'))
            return 0;
    return 1;
}

static int prefix_valid(const char *p)
{
    size_t n = strlen(p);
    return n == 0 || (n <= ZKPIPE_PROM_PREFIX_MAX && zkpipe__prom_name_valid(p));
}

static int label_name_valid(const char *name)
{
    static const char *const reserved[] = {"stage", "kind", "le"};
    if (name == NULL || !is_alpha(name[0]) || strncmp(name, "__", 2) == 0)
        return 0;
    for (size_t i = 1; name[i] != '\0'; i++)
        if (i == 128 || !(is_alpha(name[i]) || is_digit(name[i])))
            return 0;
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strcmp(name, reserved[i]) == 0)
            return 0;
    return 1;
}

zkpipe_status zkpipe_prom_options_check(const zkpipe_prom_options *o)
{
    if (o == NULL)
        return ZKPIPE_OK;
    if ((o->prefix != NULL && !prefix_valid(o->prefix)) ||
        o->label_count > ZKPIPE_PROM_LABELS_MAX || (o->label_count > 0 && o->labels == NULL) ||
        (o->flags & ~ZKPIPE_PROM_OMIT_ZERO) != 0)
        return ZKPIPE_EINVAL;
    for (size_t i = 0; i < sizeof o->reserved / sizeof o->reserved[0]; i++)
        if (o->reserved[i] != 0)
            return ZKPIPE_EINVAL;
    for (size_t i = 0; i < o->label_count; i++) {
        if (!label_name_valid(o->labels[i].name) || o->labels[i].value == NULL)
            return ZKPIPE_EINVAL;
        for (size_t j = 0; j < i; j++)
            if (strcmp(o->labels[i].name, o->labels[j].name) == 0)
                return ZKPIPE_EINVAL;
    }
    return ZKPIPE_OK;
}

zkpipe_status zkpipe__prom_begin(zkpipe__prom *p, zkpipe__text *t, const zkpipe_prom_options *o)
{
    if (zkpipe_prom_options_check(o) != ZKPIPE_OK)
        return ZKPIPE_EINVAL;
    p->t = t;
    p->prefix = o != NULL && o->prefix != NULL ? o->prefix : "zkpipe";
    p->labels = o != NULL ? o->labels : NULL;
    p->label_count = o != NULL ? o->label_count : 0;
    p->flags = o != NULL ? o->flags : 0;
    return ZKPIPE_OK;
}

/* Plain appends and a hand-made decimal: a full registry's exposition is about a thousand
 * samples, and printf for each piece of each was most of its cost. */
static void put_str(zkpipe__text *t, const char *s)
{
    zkpipe__text_put(t, s, strlen(s));
}

static void put_name(const zkpipe__prom *p, const char *name)
{
    if (p->prefix[0] != '\0') {
        put_str(p->t, p->prefix);
        zkpipe__text_put(p->t, "_", 1);
    }
    put_str(p->t, name);
}

/* `s` with the escapes of `specials` (each backslash-escaped; a newline as \n). */
static void put_escaped(zkpipe__text *t, const char *s, const char *specials)
{
    for (const char *run = s;; s++) {
        if (*s != '\0' && strchr(specials, *s) == NULL)
            continue;
        zkpipe__text_put(t, run, (size_t)(s - run));
        if (*s == '\0')
            return;
        zkpipe__text_put(t, *s == '\n' ? "\\n" : *s == '\\' ? "\\\\" : "\\\"", 2);
        run = s + 1;
    }
}

void zkpipe__prom_family(const zkpipe__prom *p, const char *name, const char *type,
                         const char *help)
{
    put_str(p->t, "# HELP ");
    put_name(p, name);
    zkpipe__text_put(p->t, " ", 1);
    put_escaped(p->t, help, "\\\n");
    put_str(p->t, "\n# TYPE ");
    put_name(p, name);
    zkpipe__text_put(p->t, " ", 1);
    put_str(p->t, type);
    zkpipe__text_put(p->t, "\n", 1);
}

void zkpipe__prom_series(const zkpipe__prom *p, const char *name, const char *suffix,
                         const char *extra)
{
    put_name(p, name);
    put_str(p->t, suffix);
    int has_extra = extra != NULL && extra[0] != '\0';
    if (p->label_count == 0 && !has_extra)
        return;
    zkpipe__text_put(p->t, "{", 1);
    for (size_t i = 0; i < p->label_count; i++) {
        if (i > 0)
            zkpipe__text_put(p->t, ",", 1);
        put_str(p->t, p->labels[i].name);
        zkpipe__text_put(p->t, "=\"", 2);
        put_escaped(p->t, p->labels[i].value, "\\\"\n");
        zkpipe__text_put(p->t, "\"", 1);
    }
    if (has_extra) {
        if (p->label_count > 0)
            zkpipe__text_put(p->t, ",", 1);
        put_str(p->t, extra);
    }
    zkpipe__text_put(p->t, "}", 1);
}

void zkpipe__prom_u64(const zkpipe__prom *p, uint64_t v)
{
    zkpipe__text_put(p->t, " ", 1);
    zkpipe__text_u64(p->t, v);
    zkpipe__text_put(p->t, "\n", 1);
}

void zkpipe__prom_f64(const zkpipe__prom *p, double v)
{
    zkpipe__text_put(p->t, " ", 1);
    zkpipe__text_double(p->t, v);
    zkpipe__text_put(p->t, "\n", 1);
}
