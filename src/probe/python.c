/* The Python environments as facts: one python_env entity each, and a python summary. */
#include "probe/probe.h"

#include "core/alloc.h"
#include "probe/pyenvs.h"

#include <stdio.h>
#include <string.h>

#define REF_MAX (GD_ROOT_PATH_MAX + 64)

static void record_env(struct gd_report *report, const struct gd_pyenvs *envs, size_t i,
                       bool windows)
{
    const struct gd_pyenv *e = &envs->items[i];
    /* A prefix holding a second Python version (deadsnakes' python3.12 beside Debian's 3.11,
     * a second user site) gets the version in its id; the first keeps the plain one. */
    bool again = false;
    for (size_t k = 0; k < i && !again; k++)
        again = strcmp(envs->items[k].prefix, e->prefix) == 0;
    char id[REF_MAX], ref[REF_MAX];
    if (again)
        snprintf(id, sizeof id, "python_env:%s@%s", e->prefix, e->version ? e->version : "?");
    else
        snprintf(id, sizeof id, "python_env:%s", e->prefix);
    struct gd_entity *en = gd_report_add_entity(report, "python_env", id);
    struct gd_source found = gd_src(e->found_kind, e->found_ref);

    struct gd_source kind_src = found;
    if (e->kind == GD_PYENV_VENV && e->venv_cfg) {
        kind_src = gd_src(GD_SOURCE_FILE, e->venv_cfg);
    } else if (e->kind == GD_PYENV_CONDA) {
        snprintf(ref, sizeof ref, "%s/conda-meta", e->prefix);
        kind_src = gd_src(GD_SOURCE_PATH, ref);
    }
    gd_fact_str(en, "kind", gd_pyenv_kind_name(e->kind), kind_src);
    gd_fact_str(en, "prefix", e->prefix, found);
    gd_fact_str(en, "found_by", e->found_by, found);
    /* A user site or a bare site directory has no interpreter of its own. */
    if (e->kind != GD_PYENV_USER && e->kind != GD_PYENV_GIVEN) {
        snprintf(ref, sizeof ref, "%s/bin", e->prefix);
        if (e->python)
            gd_fact_str(en, "python", e->python, gd_src(GD_SOURCE_PATH, e->python));
        else if (windows)
            gd_fact_absent(en, "python", "no python.exe (a venv's: in Scripts)",
                           gd_src(GD_SOURCE_PATH, e->prefix));
        else
            gd_fact_absent(en, "python", "no pythonX.Y, python3 or python in its bin",
                           gd_src(GD_SOURCE_PATH, ref));
    }
    if (e->version)
        gd_fact_str(en, "version", e->version, gd_src(e->version_kind, e->version_ref));
    else
        gd_fact_unknown(en, "version",
                        windows ? "no pyvenv.cfg version, conda-meta python record, pythonXY.dll "
                                  "or PythonXY directory name states it"
                                : "no pyvenv.cfg version, conda-meta python record, pythonX.Y "
                                  "interpreter or lib/pythonX.Y directory states it",
                        gd_src(GD_SOURCE_PATH, e->prefix));
    if (e->active)
        gd_fact_bool(en, "active", true, gd_src(GD_SOURCE_ENV, e->active_var));
    else
        gd_fact_bool(en, "active", false,
                     gd_src(GD_SOURCE_DERIVED, "not named by VIRTUAL_ENV or CONDA_PREFIX"));
    if (e->is_default)
        gd_fact_bool(en, "default", true, gd_src(GD_SOURCE_ENV, "PATH"));
    else
        gd_fact_bool(
            en, "default", false,
            gd_src(GD_SOURCE_DERIVED, windows ? "not the first python.exe on PATH"
                                              : "not what python3 (else python) on PATH runs"));
    if (e->kind == GD_PYENV_VENV) {
        struct gd_source cfg =
            e->venv_cfg ? gd_src(GD_SOURCE_FILE, e->venv_cfg) : gd_src(GD_SOURCE_PATH, e->prefix);
        if (e->base_prefix) {
            gd_fact_str(en, "base_prefix", e->base_prefix, cfg);
            gd_fact_str(en, "base_python", e->base_python, cfg);
        } else {
            gd_fact_unknown(en, "base_prefix",
                            e->venv_home  ? "no python in the directory pyvenv.cfg's home names"
                            : e->venv_cfg ? "pyvenv.cfg names no home"
                                          : "no pyvenv.cfg (a virtualenv older than 20)",
                            cfg);
        }
        if (e->system_site_stated || !e->venv_cfg)
            gd_fact_bool(en, "include_system_site_packages", e->system_site, cfg);
        else
            gd_fact_bool(en, "include_system_site_packages", e->system_site,
                         gd_src(GD_SOURCE_DERIVED, "site.py's default: pyvenv.cfg does not say"));
    }
    gd_fact_int(en, "site_dirs", (long long)e->site_dirs.count,
                gd_src(GD_SOURCE_DERIVED, "site.py's order, existing directories"));
    for (size_t k = 0; k < e->site_dirs.count; k++) {
        char name[32];
        snprintf(name, sizeof name, "site_dirs[%zu]", k);
        gd_fact_str(en, name, e->site_dirs.items[k], gd_src(GD_SOURCE_PATH, e->site_dirs.items[k]));
    }
}

void gd_probe_python(struct gd_probe_ctx *ctx)
{
    if (!ctx->pyenvs_found) {
        if (gd_find_python_envs(ctx, &ctx->pyenvs) != GD_OK) {
            gd_report_out_of_memory(ctx->report);
            return;
        }
        ctx->pyenvs_found = true;
    }
    const struct gd_pyenvs *envs = &ctx->pyenvs;
    for (size_t i = 0; i < envs->count; i++)
        record_env(ctx->report, envs, i, ctx->windows);
    struct gd_entity *s = gd_report_add_entity(ctx->report, "python", "python");
    gd_fact_int(s, "envs", (long long)envs->count,
                gd_src(GD_SOURCE_DERIVED, "Python environments found"));
    const struct gd_pyenv *def = NULL;
    for (size_t i = 0; i < envs->count && !def; i++)
        if (envs->items[i].is_default)
            def = &envs->items[i];
    if (def)
        gd_fact_str(s, "default", def->prefix, gd_src(GD_SOURCE_ENV, "PATH"));
    else
        gd_fact_absent(s, "default",
                       ctx->windows ? "no python.exe on PATH (the WindowsApps aliases aside)"
                                    : "no python3 or python on PATH",
                       gd_src(GD_SOURCE_ENV, "PATH"));
    if (envs->dropped)
        gd_fact_int(s, "envs.dropped", (long long)envs->dropped,
                    gd_src(GD_SOURCE_DERIVED, "environments past the cap, not inspected"));
    for (size_t i = 0; i < envs->nproblems; i++) {
        const struct gd_pyenv_problem *p = &envs->problems[i];
        char name[32];
        snprintf(name, sizeof name, "unusable[%zu]", i);
        gd_fact_strf(s, name, gd_src(p->kind, p->ref), "%s: %s", p->path, p->reason);
    }
}
