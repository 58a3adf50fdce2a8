/*
 * An environment snapshot: the variables the inspected programs would see. Probes read this,
 * never getenv(), so that --root, --env and the fixtures work.
 */
#ifndef GD_CORE_ENV_H
#define GD_CORE_ENV_H

#include <gpudoctor/gpudoctor.h>
#include <stddef.h>

struct gd_env;

/* New empty snapshot, or NULL when out of memory. */
struct gd_env *gd_env_new(void);
void gd_env_free(struct gd_env *env);
/* A new copy of `env`, or NULL when out of memory. */
struct gd_env *gd_env_clone(const struct gd_env *env);
void gd_env_clear(struct gd_env *env);

/* Add or replace one variable (copies both). GD_EINVAL for an empty name or one with '='. */
enum gd_status gd_env_set(struct gd_env *env, const char *name, const char *value);
/* Add or replace from "NAME=VALUE". GD_EINVAL without '=' or with an empty name. */
enum gd_status gd_env_put(struct gd_env *env, const char *name_equals_value);

/* The value (borrowed), or NULL when unset. A variable set to "" returns "". */
const char *gd_env_get(const struct gd_env *env, const char *name);
size_t gd_env_count(const struct gd_env *env);
const char *gd_env_name_at(const struct gd_env *env, size_t i);
const char *gd_env_value_at(const struct gd_env *env, size_t i);

#endif
