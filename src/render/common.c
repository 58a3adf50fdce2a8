#include "render/render.h"

void gd_render_fact_label(const struct gd_fact *f, struct gd_buf *out)
{
    gd_buf_printf(out, "%s.%s", gd_entity_id(gd_fact_entity(f)), gd_fact_name(f));
}

void gd_render_fact_value(const struct gd_fact *f, struct gd_buf *out)
{
    const char *reason = gd_fact_reason(f);
    switch (gd_fact_state(f)) {
    case GD_FACT_KNOWN:
        gd_buf_puts(out, gd_fact_value(f));
        return;
    case GD_FACT_ABSENT:
        gd_buf_puts(out, "absent");
        break;
    case GD_FACT_UNKNOWN:
        gd_buf_puts(out, "unknown");
        break;
    }
    if (reason)
        gd_buf_printf(out, " (%s)", reason);
}

void gd_render_counts(const struct gd_report *r, size_t counts[4])
{
    for (int i = 0; i < 4; i++)
        counts[i] = 0;
    for (size_t i = 0; i < gd_report_finding_count(r); i++)
        counts[gd_finding_severity(gd_report_finding_at(r, i))]++;
}
