/* The checklist for a terminal: one line per finding, and for problems why, evidence and fix. */
#include "render/render.h"

#include <stdio.h>
#include <string.h>

#define WIDTH  100
#define INDENT "           "

struct style {
    const char *label, *color;
};

static const struct style styles[] = {
    [GD_SEV_OK] = { "ok     ", "\033[32m" },
    [GD_SEV_INFO] = { "info   ", "\033[36m" },
    [GD_SEV_WARNING] = { "warning", "\033[33m" },
    [GD_SEV_ERROR] = { "error  ", "\033[1;31m" },
};

static void color(struct gd_buf *out, bool on, const char *code)
{
    if (on)
        gd_buf_puts(out, code);
}

/* Word-wrap `text` at WIDTH, every line after the first starting with `indent`. */
static void wrapped(struct gd_buf *out, const char *text, size_t col, const char *indent)
{
    size_t ind = strlen(indent);
    const char *p = text;
    while (*p) {
        size_t word = strcspn(p, " ");
        if (col > ind && col + 1 + word > WIDTH) {
            gd_buf_putc(out, '\n');
            gd_buf_puts(out, indent);
            col = ind;
        } else if (col > ind) {
            gd_buf_putc(out, ' ');
            col++;
        }
        gd_buf_add(out, p, word);
        col += word;
        p += word;
        while (*p == ' ')
            p++;
    }
    gd_buf_putc(out, '\n');
}

static void evidence(struct gd_buf *out, const struct gd_fact *f, bool use_color)
{
    gd_render_fact_label(f, out);
    gd_buf_puts(out, " = ");
    gd_render_fact_value(f, out);
    color(out, use_color, "\033[2m");
    gd_buf_printf(out, "  [%s %s]", gd_source_kind_name(gd_fact_source_kind(f)),
                  gd_fact_source_ref(f));
    color(out, use_color, "\033[0m");
    gd_buf_putc(out, '\n');
}

static void finding(struct gd_buf *out, const struct gd_finding *f,
                    const struct gd_render_options *o)
{
    enum gd_severity sev = gd_finding_severity(f);
    color(out, o->color, styles[sev].color);
    gd_buf_puts(out, styles[sev].label);
    color(out, o->color, "\033[0m");
    gd_buf_puts(out, "    ");
    gd_buf_puts(out, gd_finding_title(f));
    color(out, o->color, "\033[2m");
    gd_buf_printf(out, "  [%s]", gd_finding_id(f));
    color(out, o->color, "\033[0m");
    gd_buf_putc(out, '\n');
    bool detail = sev >= GD_SEV_WARNING || o->verbose;
    if (!detail)
        return;
    if (gd_finding_why(f)) {
        gd_buf_puts(out, INDENT);
        wrapped(out, gd_finding_why(f), strlen(INDENT), INDENT);
    }
    size_t ne = gd_finding_evidence_count(f);
    for (size_t i = 0; i < ne; i++) {
        gd_buf_puts(out, i == 0 ? INDENT "evidence: " : INDENT "          ");
        evidence(out, gd_finding_evidence_at(f, i), o->color);
    }
    size_t nf = gd_finding_fix_count(f);
    for (size_t i = 0; i < nf; i++) {
        gd_buf_puts(out, i == 0 ? INDENT "fix:      " : INDENT "          ");
        char num[32];
        snprintf(num, sizeof num, "%zu. ", i + 1);
        gd_buf_puts(out, num);
        wrapped(out, gd_finding_fix_at(f, i), strlen(INDENT) + 10 + strlen(num),
                INDENT "             ");
    }
}

static const char *value_of(const struct gd_report *r, const char *entity, const char *name)
{
    const struct gd_entity *e = gd_report_entity(r, entity);
    const struct gd_fact *f = e ? gd_entity_fact(e, name) : NULL;
    return f ? gd_fact_value(f) : NULL;
}

static void header(const struct gd_report *r, struct gd_buf *out)
{
    const char *live = value_of(r, "host", "live");
    const char *root = value_of(r, "host", "root");
    /* A report of gd_test holds the "test" entity. */
    if (live && strcmp(live, "true") == 0)
        gd_buf_printf(out, "gpudoctor %s of this machine",
                      gd_report_entity(r, "test") ? "test" : "check");
    else
        gd_buf_printf(out, "gpudoctor check of the tree at %s", root ? root : "?");
    const char *parts[] = { value_of(r, "host", "os.pretty_name"),
                            value_of(r, "host", "kernel.release"), value_of(r, "host", "arch"),
                            value_of(r, "host", "glibc.version") };
    /* The kernel's release is Windows' version on Windows (RtlGetVersion). */
    const char *os = value_of(r, "host", "os.id");
    const char *kernel = os && strcmp(os, "windows") == 0 ? "Windows " : "Linux ";
    const char *prefix[] = { "", kernel, "", "glibc " };
    bool open = false;
    for (int i = 0; i < 4; i++) {
        if (!parts[i])
            continue;
        gd_buf_puts(out, open ? ", " : " (");
        gd_buf_printf(out, "%s%s", prefix[i], parts[i]);
        open = true;
    }
    gd_buf_puts(out, open ? ")\n\n" : "\n\n");
}

static void facts(const struct gd_report *r, struct gd_buf *out, bool use_color)
{
    gd_buf_puts(out, "\nFacts\n");
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        for (size_t k = 0; k < gd_entity_fact_count(e); k++) {
            gd_buf_puts(out, "  ");
            evidence(out, gd_entity_fact_at(e, k), use_color);
        }
    }
}

void gd_render_text(const struct gd_report *r, const struct gd_render_options *o,
                    struct gd_buf *out)
{
    header(r, out);
    size_t n = gd_report_finding_count(r);
    for (size_t i = 0; i < n; i++)
        finding(out, gd_report_finding_at(r, i), o);
    size_t c[4];
    gd_render_counts(r, c);
    gd_buf_printf(out, "\n%zu error%s, %zu warning%s, %zu info, %zu ok\n", c[GD_SEV_ERROR],
                  c[GD_SEV_ERROR] == 1 ? "" : "s", c[GD_SEV_WARNING],
                  c[GD_SEV_WARNING] == 1 ? "" : "s", c[GD_SEV_INFO], c[GD_SEV_OK]);
    if (o->verbose)
        facts(r, out, o->color);
}
