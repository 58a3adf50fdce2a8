/* The public gd_explain_* API: signatures loaded from the KB, streams, results. */
#include "api/options.h"
#include "core/alloc.h"
#include "core/report.h"
#include "explain/explain.h"
#include "kb/kb.h"

#include <gpudoctor/gpudoctor.h>
#include <stdio.h>
#include <string.h>

static bool add_problem(struct gd_explain *ex, size_t *cap, const char *text)
{
    char *copy = gd_strdup(text);
    if (!copy || gd_grow((void **)&ex->problems, cap, ex->nproblems + 1, sizeof *ex->problems)) {
        gd_free(copy);
        return false;
    }
    ex->problems[ex->nproblems++] = copy;
    return true;
}

enum gd_status gd_explain_new(const struct gd_options *opts, struct gd_explain **out)
{
    *out = NULL;
    struct gd_explain *ex = gd_calloc(1, sizeof *ex);
    if (!ex)
        return GD_ENOMEM;
    enum gd_status st = gd_kb_open(opts ? opts->kb_dir : NULL, &ex->kb);
    if (st == GD_OK)
        st = gd_sigset_build(gd_kb_table(ex->kb, "explain_signatures"),
                             gd_kb_table(ex->kb, "explain_causes"), &ex->set);
    size_t cap = 0;
    for (size_t i = 0; st == GD_OK && i < gd_kb_problem_count(ex->kb); i++)
        if (!add_problem(ex, &cap, gd_kb_problem_at(ex->kb, i)))
            st = GD_ENOMEM;
    for (size_t i = 0; st == GD_OK && i < ex->set.nproblems; i++)
        if (!add_problem(ex, &cap, ex->set.problems[i]))
            st = GD_ENOMEM;
    if (st == GD_OK && ex->set.problems_dropped) {
        char text[96];
        snprintf(text, sizeof text, "%zu more problems", ex->set.problems_dropped);
        if (!add_problem(ex, &cap, text))
            st = GD_ENOMEM;
    }
    if (st != GD_OK) {
        gd_explain_free(ex);
        return st;
    }
    *out = ex;
    return GD_OK;
}

void gd_explain_free(struct gd_explain *ex)
{
    if (!ex)
        return;
    gd_sigset_free(&ex->set);
    for (size_t i = 0; i < ex->nproblems; i++)
        gd_free(ex->problems[i]);
    gd_free(ex->problems);
    gd_kb_free(ex->kb);
    gd_free(ex);
}

size_t gd_explain_signature_count(const struct gd_explain *ex)
{
    return ex ? ex->set.nsigs : 0;
}

size_t gd_explain_problem_count(const struct gd_explain *ex)
{
    return ex ? ex->nproblems : 0;
}

const char *gd_explain_problem_at(const struct gd_explain *ex, size_t i)
{
    return ex && i < ex->nproblems ? ex->problems[i] : NULL;
}

enum gd_status gd_explain_stream_new(const struct gd_explain *ex, struct gd_explain_stream **out)
{
    *out = NULL;
    if (!ex)
        return GD_EINVAL;
    struct gd_explain_stream *s = gd_calloc(1, sizeof *s);
    if (!s)
        return GD_ENOMEM;
    s->ex = ex;
    enum gd_status st = gd_scanner_new(&ex->set, &s->scanner);
    if (st != GD_OK) {
        gd_free(s);
        return st;
    }
    *out = s;
    return GD_OK;
}

enum gd_status gd_explain_stream_feed(struct gd_explain_stream *s, unsigned channel,
                                      const void *data, size_t len)
{
    if (!s || (!data && len))
        return GD_EINVAL;
    return gd_scanner_feed(s->scanner, channel, data, len);
}

/* How the result names the machine its causes were checked against. */
static const char *machine_label(struct gd_report *rep, const struct gd_report *m)
{
    const char *os = gd_report_value(m, "host", "os.pretty_name");
    const char *root = gd_report_value(m, "host", "root");
    if (!os)
        os = gd_report_value(m, "host", "os.id");
    if (root && strcmp(root, "/") != 0)
        return gd_report_printf(rep, "%s (root %s)", os ? os : "a machine", root);
    return gd_report_printf(rep, "%s", os ? os : "a machine of unknown system");
}

enum gd_status gd_explain_stream_finish(struct gd_explain_stream *s, const char *name,
                                        const struct gd_report *machine,
                                        struct gd_explain_result **out)
{
    *out = NULL;
    if (!s)
        return GD_EINVAL;
    enum gd_status st = gd_scanner_finish(s->scanner);
    if (st != GD_OK)
        return st;
    struct gd_explain_result *r = NULL;
    st = gd_explain_result_build(s->ex, s->scanner, name, &r);
    if (st != GD_OK)
        return st;
    if (machine)
        r->machine = machine_label(r->rep, machine);
    gd_explain_join(r, s->ex, machine);
    if (gd_report_failed(r->rep)) {
        gd_explain_result_free(r);
        return GD_ENOMEM;
    }
    *out = r;
    return GD_OK;
}

void gd_explain_stream_free(struct gd_explain_stream *s)
{
    if (!s)
        return;
    gd_scanner_free(s->scanner);
    gd_free(s);
}

enum gd_status gd_explain_message(const struct gd_explain *ex, const char *msg, size_t len,
                                  const struct gd_report *machine, struct gd_explain_result **out)
{
    *out = NULL;
    struct gd_explain_stream *s = NULL;
    enum gd_status st = gd_explain_stream_new(ex, &s);
    if (st == GD_OK)
        st = gd_explain_stream_feed(s, 0, msg, len);
    if (st == GD_OK)
        st = gd_explain_stream_finish(s, NULL, machine, out);
    gd_explain_stream_free(s);
    return st;
}
