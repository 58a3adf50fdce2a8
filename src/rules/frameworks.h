/* What the framework rules (frameworks.c, keras.c) share: looking frameworks up in a report. */
#ifndef GD_RULES_FRAMEWORKS_H
#define GD_RULES_FRAMEWORKS_H

#include "rules/rules.h"

#include <stdbool.h>

/* A known fact's value, NULL for an absent or unknown fact or a NULL entity. */
const char *gd_fw_val(const struct gd_entity *e, const char *name);
/* A GPU is there: the kernel module lists one, or is loaded. */
bool gd_fw_gpu_present(const struct gd_report *r);
/* The environment (python_env entity) imports from the framework's site directory. */
bool gd_fw_in_env(const struct gd_report *r, const struct gd_entity *env,
                  const struct gd_entity *fw);
/* The first framework entity of that framework and/or distribution name (NULL: any) that the
 * environment imports (NULL env: any environment). */
const struct gd_entity *gd_fw_find(const struct gd_report *r, const struct gd_entity *env,
                                   const char *framework, const char *dist);

#endif
