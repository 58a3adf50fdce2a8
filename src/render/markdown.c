/* A report to paste into an issue or a pull request. */
#include "render/render.h"

#include <string.h>

static const char *const marks[] = {
    [GD_SEV_OK] = "✅", [GD_SEV_INFO] = "ℹ️", [GD_SEV_WARNING] = "⚠️", [GD_SEV_ERROR] = "❌"
};

/* Inline code that survives any backticks inside it (CommonMark: a longer fence). */
static void code(struct gd_buf *out, const char *text)
{
    const char *fence = strchr(text, '`') ? "`` " : "`";
    const char *close = strchr(text, '`') ? " ``" : "`";
    gd_buf_printf(out, "%s%s%s", fence, text, close);
}

static void evidence(struct gd_buf *out, const struct gd_fact *f)
{
    struct gd_buf label, value;
    gd_buf_init(&label, 4096);
    gd_buf_init(&value, 64 * 1024);
    gd_render_fact_label(f, &label);
    gd_render_fact_value(f, &value);
    /* A part that failed would silently go missing from a complete-looking report. */
    if (gd_buf_status(out) == GD_OK && gd_buf_status(&label) != GD_OK)
        out->status = gd_buf_status(&label);
    if (gd_buf_status(out) == GD_OK && gd_buf_status(&value) != GD_OK)
        out->status = gd_buf_status(&value);
    gd_buf_puts(out, "- ");
    code(out, gd_buf_str(&label));
    gd_buf_puts(out, " = ");
    code(out, gd_buf_str(&value));
    gd_buf_printf(out, " (%s ", gd_source_kind_name(gd_fact_source_kind(f)));
    code(out, gd_fact_source_ref(f));
    gd_buf_puts(out, ")\n");
    gd_buf_free(&label);
    gd_buf_free(&value);
}

void gd_render_markdown(const struct gd_report *r, const struct gd_render_options *o,
                        struct gd_buf *out)
{
    size_t c[4];
    gd_render_counts(r, c);
    gd_buf_printf(out, "## gpudoctor report\n\n%zu error(s), %zu warning(s), %zu info, %zu ok\n\n",
                  c[GD_SEV_ERROR], c[GD_SEV_WARNING], c[GD_SEV_INFO], c[GD_SEV_OK]);
    gd_buf_puts(out, "| | Finding | Id |\n|---|---|---|\n");
    for (size_t i = 0; i < gd_report_finding_count(r); i++) {
        const struct gd_finding *f = gd_report_finding_at(r, i);
        gd_buf_printf(out, "| %s | ", marks[gd_finding_severity(f)]);
        for (const char *p = gd_finding_title(f); *p; p++) {
            if (*p == '|')
                gd_buf_puts(out, "\\|");
            else
                gd_buf_putc(out, *p);
        }
        gd_buf_puts(out, " | ");
        code(out, gd_finding_id(f));
        gd_buf_puts(out, " |\n");
    }
    for (size_t i = 0; i < gd_report_finding_count(r); i++) {
        const struct gd_finding *f = gd_report_finding_at(r, i);
        if (gd_finding_severity(f) < GD_SEV_WARNING && !o->verbose)
            continue;
        gd_buf_printf(out, "\n### %s %s\n\n", marks[gd_finding_severity(f)], gd_finding_title(f));
        if (gd_finding_why(f))
            gd_buf_printf(out, "%s\n\n", gd_finding_why(f));
        if (gd_finding_evidence_count(f)) {
            gd_buf_puts(out, "**Evidence**\n\n");
            for (size_t k = 0; k < gd_finding_evidence_count(f); k++)
                evidence(out, gd_finding_evidence_at(f, k));
            gd_buf_putc(out, '\n');
        }
        if (gd_finding_fix_count(f)) {
            gd_buf_puts(out, "**Fix**\n\n");
            for (size_t k = 0; k < gd_finding_fix_count(f); k++)
                gd_buf_printf(out, "%zu. %s\n", k + 1, gd_finding_fix_at(f, k));
        }
    }
}
