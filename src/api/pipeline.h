/* The pipeline behind gd_check and gd_test (src/api/check.c). */
#ifndef GD_API_PIPELINE_H
#define GD_API_PIPELINE_H

#include "probe/probe.h"
#include "rules/rules.h"

#include <gpudoctor/gpudoctor.h>

/* Runs after every probe, with their context (gd_test's smoke tests). */
typedef void (*gd_pipeline_fn)(struct gd_probe_ctx *ctx, const struct gd_options *opts);

/* Open the root, the environment and the KB, run every probe, then `extra` (may be NULL), then
 * `rules` over the facts, and order the findings. As gd_check: GD_OK with a new report, or a
 * status of gpudoctor's own (GD_ENOMEM sticky from any step). */
enum gd_status gd_pipeline(const struct gd_options *opts, gd_pipeline_fn extra, gd_rule_fn rules,
                           struct gd_report **out);

#endif
