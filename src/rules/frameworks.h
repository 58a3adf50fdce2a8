/* What the framework rules (frameworks.c, keras.c) share: looking frameworks up in a report. */
#ifndef GD_RULES_FRAMEWORKS_H
#define GD_RULES_FRAMEWORKS_H

#include "rules/rules.h"

#include <stdbool.h>
#include <stddef.h>

/* A known fact's value, NULL for an absent or unknown fact or a NULL entity. */
const char *gd_fw_val(const struct gd_entity *e, const char *name);
/* The framework_lib of `fw` of `family` ("cudart", "cudnn") that the loader finds, with a
 * version of at least major.minor parsed into `*v`; NULL when there is none. */
const struct gd_entity *gd_fw_lib_loaded(const struct gd_entity *fw, const char *family,
                                         struct gd_version *v);
/* A GPU is there: the kernel module lists one, or is loaded. */
bool gd_fw_gpu_present(const struct gd_report *r);
/* The environment (python_env entity) imports from the framework's site directory. */
bool gd_fw_in_env(const struct gd_report *r, const struct gd_entity *env,
                  const struct gd_entity *fw);
/* The first framework entity of that framework and/or distribution name (NULL: any) that the
 * environment imports (NULL env: any environment). */
const struct gd_entity *gd_fw_find(const struct gd_report *r, const struct gd_entity *env,
                                   const char *framework, const char *dist);

/* The pip wheel that ships a library family for a CUDA major ("nvidia-cudnn-cu12"), from the
 * cuda_libraries table, or NULL. */
const char *gd_fw_wheel_for(const struct gd_kb *kb, const char *family, unsigned long cuda_major);

/* The roles of a framework entity whose build decides what runs (not a plugin, a pjrt, a
 * libraries or bindings wheel, a metapackage). */
bool gd_fw_judged_role(const struct gd_entity *fw);

/* A fix step naming the build of `framework` ("torch", "tensorflow", "jax") to install on the
 * machine `env`, from the compatibility tables (src/kb/pick.h): of release `release` (NULL: the
 * newest release that runs; JAX: its newest CUDA plugin, whatever `release`), "<lead>
 * <framework> <release> (<variant>): `<command>`", followed by the steps citing the rows. When
 * no release was asked for and the tables know no build that surely runs, a step says so and
 * names the driver the newest build needs; for one release nothing is added. Returns true when a
 * build was named. */
bool gd_fw_fix_best(struct gd_finding *f, const struct gd_kb *kb, const struct gd_kb_env *env,
                    const char *framework, const struct gd_version *release, const char *lead);

/* The step of gd_fw_fix_best for a given PyTorch or TensorFlow choice. */
void gd_fw_fix_choice(struct gd_finding *f, const struct gd_kb *kb, const struct gd_kb_env *env,
                      const char *framework, const struct gd_kb_choice *c, const char *lead);

/* "550.54.14 or newer (CUDA 12.4's own driver; 525 or newer runs it through minor version
 * compatibility)" for the minimums of a CUDA version, into `buf`. */
void gd_fw_driver_need(const struct gd_kb_cuda_driver *need, const struct gd_version *cuda,
                       char *buf, size_t size);

#endif
