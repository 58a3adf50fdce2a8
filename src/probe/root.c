/* What went wrong while reading the root: symlink loops, links climbing above the root,
 * unreadable or oversized files. Runs last, after every other probe has read what it needs. */
#include "probe/probe.h"

#include <stdio.h>

void gd_probe_root(struct gd_probe_ctx *ctx)
{
    size_t n = gd_root_anomaly_count(ctx->root);
    for (size_t i = 0; i < n; i++) {
        const struct gd_anomaly *a = gd_root_anomaly_at(ctx->root, i);
        char id[48];
        snprintf(id, sizeof id, "anomaly[%zu]", i);
        struct gd_entity *e = gd_report_add_entity(ctx->report, "anomaly", id);
        struct gd_source src = gd_src(GD_SOURCE_PATH, a->path);
        gd_fact_str(e, "kind", gd_anomaly_kind_name(a->kind), src);
        gd_fact_str(e, "path", a->path, src);
        if (a->detail && a->detail[0])
            gd_fact_str(e, "detail", a->detail, src);
    }
    size_t dropped = gd_root_anomalies_dropped(ctx->root);
    if (dropped) {
        struct gd_entity *e = gd_report_add_entity(ctx->report, "root", "root");
        gd_fact_int(e, "anomalies.dropped", (long long)dropped,
                    gd_src(GD_SOURCE_DERIVED, "anomalies beyond the first 64"));
    }
}
