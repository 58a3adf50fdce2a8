/* Renderers only format: each is a pure function of a report, appending to a buffer. */
#ifndef GD_RENDER_RENDER_H
#define GD_RENDER_RENDER_H

#include "core/buf.h"

#include <gpudoctor/gpudoctor.h>

void gd_render_text(const struct gd_report *r, const struct gd_render_options *o,
                    struct gd_buf *out);
void gd_render_json(const struct gd_report *r, struct gd_buf *out);
void gd_render_markdown(const struct gd_report *r, const struct gd_render_options *o,
                        struct gd_buf *out);
void gd_render_prometheus(const struct gd_report *r, struct gd_buf *out);

/* The answers of compat and plan (src/advise). */
struct gd_advice;
void gd_render_advice_text(const struct gd_advice *a, const struct gd_render_options *o,
                           struct gd_buf *out);
void gd_render_advice_json(const struct gd_advice *a, struct gd_buf *out);

/* "driver.kernel_module.version", or "LD_LIBRARY_PATH[1].path": the entity id and the fact. */
void gd_render_fact_label(const struct gd_fact *f, struct gd_buf *out);
/* "535.104.05", "absent (not set)", "unknown (permission denied)". */
void gd_render_fact_value(const struct gd_fact *f, struct gd_buf *out);
/* Counts of findings per severity, indexed by enum gd_severity. */
void gd_render_counts(const struct gd_report *r, size_t counts[4]);

#endif
