#include "core/env.h"

#include "core/alloc.h"

#include <string.h>

struct var {
    char *name, *value;
};

struct gd_env {
    struct var *vars;
    size_t n, cap;
};

struct gd_env *gd_env_new(void)
{
    return gd_calloc(1, sizeof(struct gd_env));
}

void gd_env_clear(struct gd_env *env)
{
    for (size_t i = 0; i < env->n; i++) {
        gd_free(env->vars[i].name);
        gd_free(env->vars[i].value);
    }
    env->n = 0;
}

void gd_env_free(struct gd_env *env)
{
    if (!env)
        return;
    gd_env_clear(env);
    gd_free(env->vars);
    gd_free(env);
}

struct gd_env *gd_env_clone(const struct gd_env *env)
{
    struct gd_env *copy = gd_env_new();
    if (!copy)
        return NULL;
    for (size_t i = 0; i < env->n; i++) {
        if (gd_env_set(copy, env->vars[i].name, env->vars[i].value) != GD_OK) {
            gd_env_free(copy);
            return NULL;
        }
    }
    return copy;
}

static struct var *find(const struct gd_env *env, const char *name)
{
    for (size_t i = 0; i < env->n; i++)
        if (strcmp(env->vars[i].name, name) == 0)
            return &env->vars[i];
    return NULL;
}

enum gd_status gd_env_set(struct gd_env *env, const char *name, const char *value)
{
    if (!name || !*name || strchr(name, '=') || !value)
        return GD_EINVAL;
    char *v = gd_strdup(value);
    if (!v)
        return GD_ENOMEM;
    struct var *old = find(env, name);
    if (old) {
        gd_free(old->value);
        old->value = v;
        return GD_OK;
    }
    char *n = gd_strdup(name);
    if (!n || gd_grow((void **)&env->vars, &env->cap, env->n + 1, sizeof *env->vars) != 0) {
        gd_free(n);
        gd_free(v);
        return GD_ENOMEM;
    }
    env->vars[env->n].name = n;
    env->vars[env->n].value = v;
    env->n++;
    return GD_OK;
}

enum gd_status gd_env_put(struct gd_env *env, const char *name_equals_value)
{
    const char *eq = name_equals_value ? strchr(name_equals_value, '=') : NULL;
    if (!eq || eq == name_equals_value)
        return GD_EINVAL;
    char *name = gd_strndup(name_equals_value, (size_t)(eq - name_equals_value));
    if (!name)
        return GD_ENOMEM;
    enum gd_status st = gd_env_set(env, name, eq + 1);
    gd_free(name);
    return st;
}

const char *gd_env_get(const struct gd_env *env, const char *name)
{
    struct var *v = find(env, name);
    return v ? v->value : NULL;
}

size_t gd_env_count(const struct gd_env *env)
{
    return env->n;
}

const char *gd_env_name_at(const struct gd_env *env, size_t i)
{
    return i < env->n ? env->vars[i].name : NULL;
}

const char *gd_env_value_at(const struct gd_env *env, size_t i)
{
    return i < env->n ? env->vars[i].value : NULL;
}
