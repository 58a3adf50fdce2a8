/* gd_check: the pipeline. Probes gather facts, rules judge them, findings are ordered. */
#include "api/options.h"
#include "api/pipeline.h"
#include "core/alloc.h"
#include "core/env.h"
#include "core/report.h"
#include "kb/kb.h"
#include "loader/elfcache.h"
#include "os/os.h"
#include "probe/probe.h"
#include "rules/rules.h"
#include "sysroot/sysroot.h"

#include <gpudoctor/gpudoctor.h>
#include <stdio.h>

/* The environment the inspected programs see: this process's for the live machine (unless
 * cleared), nothing for a foreign root, then the caller's own variables on top. */
static enum gd_status build_env(const struct gd_options *opts, bool live, struct gd_env **out)
{
    struct gd_env *env = gd_env_new();
    if (!env)
        return GD_ENOMEM;
    enum gd_status st = GD_OK;
    if (live && !(opts && opts->clear_env))
        st = gd_os_environ(env);
    for (size_t i = 0; st == GD_OK && opts && i < gd_env_count(opts->extra); i++)
        st = gd_env_set(env, gd_env_name_at(opts->extra, i), gd_env_value_at(opts->extra, i));
    if (st != GD_OK) {
        gd_env_free(env);
        return st;
    }
    *out = env;
    return GD_OK;
}

/* Problems with KB tables become facts, so the kb rule can report them. */
static void record_kb(struct gd_report *report, const struct gd_kb *kb)
{
    size_t n = gd_kb_problem_count(kb);
    if (!n)
        return;
    struct gd_entity *e = gd_report_add_entity(report, "kb", "kb");
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "problem[%zu]", i);
        gd_fact_str(e, name, gd_kb_problem_at(kb, i),
                    gd_src(GD_SOURCE_DERIVED, "loading the knowledge base"));
    }
}

enum gd_status gd_pipeline(const struct gd_options *opts, gd_pipeline_fn extra, gd_rule_fn rules,
                           struct gd_report **out)
{
    *out = NULL;
    struct gd_root *root = NULL;
    struct gd_env *env = NULL;
    struct gd_kb *kb = NULL;
    struct gd_report *report = NULL;
    struct gd_elf_cache *elves = NULL;
    enum gd_status st = gd_root_new(opts && opts->root ? opts->root : "/", &root);
    if (st == GD_OK)
        st = build_env(opts, gd_root_is_live(root), &env);
    if (st == GD_OK)
        st = gd_kb_open(opts ? opts->kb_dir : NULL, &kb);
    if (st == GD_OK && !(report = gd_report_new()))
        st = GD_ENOMEM;
    if (st == GD_OK)
        st = gd_elf_cache_new(root, &elves);
    if (st != GD_OK)
        goto out;

    struct gd_probe_ctx ctx = {
        .root = root,
        .env = env,
        .report = report,
        .kb = kb,
        .host_os = opts ? opts->host_os : NULL,
        .calls = opts && opts->calls,
        .no_devices = opts && opts->no_devices,
        .timeout_ms = opts ? opts->timeout_ms : 0,
        .pythons = opts ? &opts->pythons : NULL,
        .sites = opts ? &opts->sites : NULL,
        .import_mode = opts ? opts->import_mode : GD_IMPORT_OFF,
        .import_timeout_ms = (opts ? opts->import_timeout_s : GD_IMPORT_TIMEOUT_DEFAULT) * 1000u,
        .elves = elves
    };
    gd_probe_host(&ctx);
    if (ctx.windows) {
        /* A Windows machine has no kernel module in /proc, device nodes, ld.so.cache or glibc:
         * its driver and CUDA are DLLs, read by the Windows probes. */
        gd_probe_win_driver(&ctx);
    } else {
        gd_probe_kernel_module(&ctx);
        gd_probe_gpus(&ctx);
        gd_probe_device_nodes(&ctx);
        gd_probe_driver_libs(&ctx);
        gd_probe_container(&ctx);
        gd_probe_wsl(&ctx);
    }
    gd_probe_env(&ctx);
    /* Before the inventory, which looks for CUDA wheels in the environments' site directories. */
    gd_probe_python(&ctx);
    if (ctx.windows)
        gd_probe_win_cuda(&ctx);
    else
        gd_probe_inventory(&ctx);
    gd_probe_frameworks(&ctx);
    /* After the frameworks are found (gd_probe_frameworks), whose entities say what to import. */
    gd_probe_imports(&ctx);
    gd_probe_live(&ctx);
    gd_probe_root(&ctx);
    record_kb(report, kb);
    if (extra)
        extra(&ctx, opts);

    gd_pyenvs_free(&ctx.pyenvs);
    gd_elf_cache_free(elves);
    elves = NULL;

    rules(report, kb);
    gd_report_sort_findings(report);
    /* A probe may have taken a read that ran out of memory for a missing file: only a root
     * read without such a failure gives findings worth returning. */
    if (gd_report_failed(report) || gd_root_out_of_memory(root)) {
        st = GD_ENOMEM;
        goto out;
    }
    *out = report;
    report = NULL;
out:
    gd_elf_cache_free(elves);
    gd_report_free(report);
    gd_kb_free(kb);
    gd_env_free(env);
    gd_root_free(root);
    return st;
}

enum gd_status gd_check(const struct gd_options *opts, struct gd_report **out)
{
    return gd_pipeline(opts, NULL, gd_rules_run, out);
}
