/* Metrics for node_exporter's textfile collector (text exposition format 0.0.4). */
#include "render/render.h"

/* Label values escape backslash, double quote and newline (Prometheus exposition format). */
static void label_value(struct gd_buf *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            gd_buf_puts(out, "\\\\");
        else if (*s == '"')
            gd_buf_puts(out, "\\\"");
        else if (*s == '\n')
            gd_buf_puts(out, "\\n");
        else
            gd_buf_putc(out, *s);
    }
}

void gd_render_prometheus(const struct gd_report *r, struct gd_buf *out)
{
    gd_buf_puts(out, "# HELP gpudoctor_finding A finding of the last gpudoctor check (always "
                     "1; the labels say which).\n# TYPE gpudoctor_finding gauge\n");
    for (size_t i = 0; i < gd_report_finding_count(r); i++) {
        const struct gd_finding *f = gd_report_finding_at(r, i);
        gd_buf_puts(out, "gpudoctor_finding{id=\"");
        label_value(out, gd_finding_id(f));
        gd_buf_printf(out, "\",severity=\"%s\"} 1\n", gd_severity_name(gd_finding_severity(f)));
    }
    size_t c[4];
    gd_render_counts(r, c);
    gd_buf_puts(out, "# HELP gpudoctor_findings Findings of the last check by severity.\n"
                     "# TYPE gpudoctor_findings gauge\n");
    for (int s = GD_SEV_ERROR; s >= GD_SEV_OK; s--)
        gd_buf_printf(out, "gpudoctor_findings{severity=\"%s\"} %zu\n",
                      gd_severity_name((enum gd_severity)s), c[s]);
    gd_buf_printf(out,
                  "# HELP gpudoctor_worst_severity The most severe finding: 0 ok, 1 info, 2 "
                  "warning, 3 error.\n# TYPE gpudoctor_worst_severity gauge\n"
                  "gpudoctor_worst_severity %d\n",
                  (int)gd_report_worst(r));
}
