/*
 * Fix steps that name a framework build for this machine, chosen from the compatibility tables
 * (src/kb/pick.h) for the driver and GPUs the report shows: the fixes of
 * framework.cpu-only-build, framework.driver-too-old and framework.tf-windows-no-gpu.
 */
#include "rules/frameworks.h"

#include "kb/kb.h"

#include <stdio.h>
#include <string.h>

#define CHOICES_MAX 192

bool gd_fw_judged_role(const struct gd_entity *fw)
{
    static const char *const helpers[] = { "plugin",   "pjrt",        "libs",
                                           "bindings", "metapackage", "legacy-keras" };
    const char *role = gd_fw_val(fw, "role");
    for (size_t i = 0; role && i < sizeof helpers / sizeof *helpers; i++)
        if (strcmp(role, helpers[i]) == 0)
            return false;
    return true;
}

void gd_fw_driver_need(const struct gd_kb_cuda_driver *need, const struct gd_version *cuda,
                       char *buf, size_t size)
{
    if (need->has_toolkit && need->has_compat)
        snprintf(buf, size,
                 "%s or newer (CUDA %s's own driver; %s or newer runs it through minor version "
                 "compatibility)",
                 need->toolkit_min.text, cuda->text, need->compat_min.text);
    else if (need->has_toolkit)
        snprintf(buf, size, "%s or newer (CUDA %s's own driver)", need->toolkit_min.text,
                 cuda->text);
    else if (need->has_compat)
        snprintf(buf, size, "%s or newer (the CUDA %lu family's minimum)", need->compat_min.text,
                 gd_version_major(cuda));
    else
        snprintf(buf, size, "(not in the knowledge base for CUDA %s)", cuda->text);
}

static const char *fit_words(enum gd_kb_driver_fit fit)
{
    return fit == GD_KB_FIT_MINOR_COMPAT ? ", through minor version compatibility" : "";
}

/* The newest release row of torch_builds: where its pip commands end. */
static const struct gd_kb_row *newest_release_row(const struct gd_kb *kb)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "torch_builds");
    const struct gd_kb_row *best = NULL;
    struct gd_version best_v, v;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *kind = gd_kb_str(row, "kind"), *torch = gd_kb_str(row, "torch");
        if (!kind || strcmp(kind, "release") != 0 || !torch || gd_version_parse(torch, &v) != GD_OK)
            continue;
        if (!best || gd_version_cmp(&v, &best_v) > 0) {
            best = row;
            best_v = v;
        }
    }
    return best;
}

/* The step for a PyTorch choice. */
static void torch_step(struct gd_finding *f, const struct gd_kb *kb, const struct gd_kb_choice *c,
                       const char *lead)
{
    char cmd[512];
    bool exact = false;
    const struct gd_kb_row *row = NULL;
    if (gd_kb_torch_pip(kb, c, cmd, sizeof cmd, &exact, &row) != GD_OK) {
        gd_finding_add_fix(f,
                           "%s torch %s, its %s wheel (CUDA %s%s); the knowledge base has no pip "
                           "command for it.",
                           lead, c->release.text, c->tag, c->cuda.text, fit_words(c->fit));
        gd_fix_reference(f, kb, c->row);
        return;
    }
    if (exact) {
        gd_finding_add_fix(f, "%s torch %s, its %s wheel (CUDA %s%s): `%s`.", lead, c->release.text,
                           c->tag, c->cuda.text, fit_words(c->fit), cmd);
    } else {
        const struct gd_kb_row *last = newest_release_row(kb);
        gd_finding_add_fix(f,
                           "%s torch %s, its %s wheel (CUDA %s%s): `%s` (the form of PyTorch's "
                           "pip commands up to %s, the last release whose commands the knowledge "
                           "base holds).",
                           lead, c->release.text, c->tag, c->cuda.text, fit_words(c->fit), cmd,
                           last ? gd_kb_str(last, "torch") : "?");
    }
    gd_fix_reference(f, kb, c->row);
    if (row != c->row)
        gd_fix_reference(f, kb, row);
}

/* The step for a TensorFlow choice. */
static void tf_step(struct gd_finding *f, const struct gd_kb *kb, const struct gd_kb_env *env,
                    const struct gd_kb_choice *c, const char *lead)
{
    char cmd[512];
    enum gd_kb_tf_how how = GD_KB_TF_PLAIN;
    const struct gd_kb_row *row = NULL;
    char cudnn[GD_VERSION_TEXT_MAX + 16] = "";
    if (c->has_cudnn)
        snprintf(cudnn, sizeof cudnn, ", cuDNN %s", c->cudnn.text);
    if (gd_kb_tf_install(kb, c, env->os, cmd, sizeof cmd, &how, &row) != GD_OK)
        return;
    gd_finding_add_fix(f, "%s TensorFlow %s (tested with CUDA %s%s%s): `%s`%s", lead,
                       c->release.text, c->cuda.text, cudnn, fit_words(c->fit), cmd,
                       how == GD_KB_TF_PLAIN
                           ? ", with that CUDA and cuDNN installed where the loader finds them."
                       : how == GD_KB_TF_AND_CUDA ? " (the and-cuda extra brings CUDA and cuDNN)."
                                                  : ".");
    gd_fix_reference(f, kb, c->row);
    if (row != c->row)
        gd_fix_reference(f, kb, row);
}

/* The JAX CUDA plugin (the current ones of jax_builds) with the highest CUDA major that the
 * driver and GPUs meet. */
static bool jax_step(struct gd_finding *f, const struct gd_kb *kb, const struct gd_kb_env *env,
                     const char *lead)
{
    for (unsigned long major = 20; major >= 11; major--) {
        struct gd_kb_jax_plugin p;
        if (gd_kb_jax_plugin(kb, major, &p) != GD_OK)
            continue;
        bool ok = env->has_driver && gd_kb_driver_meets(&env->driver, &p.driver_min) == GD_KB_YES;
        for (size_t i = 0; ok && i < env->ncc; i++)
            ok = gd_version_cmp_parts(&env->cc[i], &p.cc_min, 2) >= 0;
        const char *extra = gd_kb_str(p.row, "extra");
        if (!ok || !extra)
            continue;
        gd_finding_add_fix(f,
                           "%s JAX with its CUDA %lu plugin (%s; driver %s or newer, compute "
                           "capability %s or newer): `pip install -U 'jax[%s]'`.",
                           lead, major, p.plugin, p.driver_min.text, p.cc_min.text, extra);
        gd_fix_reference(f, kb, p.row);
        return true;
    }
    return false;
}

/* Why no build was named: what the newest one needs. */
static void none_step(struct gd_finding *f, const struct gd_kb *kb, const struct gd_kb_env *env,
                      const char *framework, const struct gd_kb_choice *list, size_t n)
{
    if (!env->has_driver) {
        gd_finding_add_fix(f,
                           "The driver's version is not known, so no %s build can be chosen for "
                           "it from the knowledge base.",
                           framework);
        return;
    }
    if (n == 0) {
        gd_finding_add_fix(f, "The knowledge base holds no CUDA build of %s to choose from.",
                           framework);
        return;
    }
    char need[256];
    gd_fw_driver_need(&list[0].need, &list[0].cuda, need, sizeof need);
    gd_finding_add_fix(f,
                       "No CUDA build of %s in the knowledge base surely runs with driver %s%s; "
                       "the newest (%s%s%s, CUDA %s) needs driver %s.",
                       framework, env->driver.text,
                       env->ncc ? " and these GPUs" : " (the GPUs' compute capability is unknown)",
                       list[0].release.text, list[0].tag[0] ? " " : "", list[0].tag,
                       list[0].cuda.text, need);
    gd_fix_reference(f, kb, list[0].need.toolkit_row);
}

void gd_fw_fix_choice(struct gd_finding *f, const struct gd_kb *kb, const struct gd_kb_env *env,
                      const char *framework, const struct gd_kb_choice *c, const char *lead)
{
    if (strcmp(framework, "torch") == 0)
        torch_step(f, kb, c, lead);
    else if (strcmp(framework, "tensorflow") == 0)
        tf_step(f, kb, env, c, lead);
}

bool gd_fw_fix_best(struct gd_finding *f, const struct gd_kb *kb, const struct gd_kb_env *env,
                    const char *framework, const struct gd_version *release, const char *lead)
{
    static struct gd_kb_choice list[CHOICES_MAX];
    size_t n = 0;
    bool torch = strcmp(framework, "torch") == 0, tf = strcmp(framework, "tensorflow") == 0;
    if (strcmp(framework, "jax") == 0)
        return jax_step(f, kb, env, lead);
    if (torch)
        n = release ? gd_kb_torch_release_choices(kb, env, release, list, CHOICES_MAX)
                    : gd_kb_torch_choices(kb, env, list, CHOICES_MAX);
    else if (tf)
        n = gd_kb_tf_choices(kb, env, list, CHOICES_MAX);
    else
        return false;
    if (n > CHOICES_MAX)
        n = CHOICES_MAX;
    /* One TensorFlow release: its tested build, pinned to the release itself. */
    if (tf && release) {
        size_t k = 0;
        while (k < n && gd_version_cmp_parts(&list[k].release, release, 2) != 0)
            k++;
        if (k == n)
            return false;
        list[0] = list[k];
        list[0].release = *release;
        list[0].release.local[0] = '\0';
        list[0].minor_only = false;
        n = 1;
    }
    const struct gd_kb_choice *best = gd_kb_best_choice(list, n);
    if (!best) {
        if (!release)
            none_step(f, kb, env, framework, list, n);
        return false;
    }
    gd_fw_fix_choice(f, kb, env, framework, best, lead);
    return true;
}
