/* The environment variables that decide what a CUDA program or framework loads and sees. */
#include "probe/probe.h"

#include "core/alloc.h"
#include "core/str.h"
#include "kb/kb.h"

#include <stdio.h>
#include <string.h>

/* Entries of a search-path variable beyond this are not inspected one by one. */
#define PATH_ENTRIES_MAX 256

static const char *const recorded[] = {
    "CUDA_HOME",
    "CUDA_PATH",
    "CUDNN_PATH",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "PATH",
    "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",
    "CUDA_MODULE_LOADING",
    "CUDA_LAUNCH_BLOCKING",
    "TF_FORCE_GPU_ALLOW_GROWTH",
    "TF_GPU_ALLOCATOR",
    "TF_CPP_MIN_LOG_LEVEL",
    "XLA_PYTHON_CLIENT_PREALLOCATE",
    "XLA_PYTHON_CLIENT_MEM_FRACTION",
    "XLA_PYTHON_CLIENT_ALLOCATOR",
    "PYTORCH_CUDA_ALLOC_CONF",
    "KERAS_BACKEND",
    "KERAS_HOME",
    "TF_USE_LEGACY_KERAS",
};

static void toolkit_facts(struct gd_probe_ctx *ctx, struct gd_entity *e, const char *prefix,
                          const char *dir)
{
    struct gd_version v;
    enum gd_source_kind kind;
    char *ref = NULL;
    char fact[96];
    snprintf(fact, sizeof fact, "%s.cuda_version", prefix);
    if (gd_toolkit_version(ctx, dir, &v, &kind, &ref)) {
        char text[GD_VERSION_FORMAT_MAX];
        gd_version_format(&v, text, sizeof text);
        gd_fact_str(e, fact, text, gd_src(kind, ref));
    } else {
        gd_fact_unknown(e, fact, "no version.json, version.txt, cuda.h or cuda-X.Y name",
                        gd_src(GD_SOURCE_PATH, dir));
    }
    gd_free(ref);
}

/* CUDA_HOME, CUDA_PATH, CUDNN_PATH: must name an existing directory. */
static void dir_var(struct gd_probe_ctx *ctx, struct gd_entity *e, const char *var, bool toolkit)
{
    const char *value = gd_env_get(ctx->env, var);
    if (!value || !*value)
        return;
    char fact[96];
    snprintf(fact, sizeof fact, "%s.exists", var);
    struct gd_os_stat st;
    enum gd_status s = gd_root_stat(ctx->root, value, &st);
    if (s == GD_OK || s == GD_ENOENT || s == GD_ENOTDIR)
        gd_fact_bool(e, fact, s == GD_OK && st.type == GD_FT_DIR, gd_src(GD_SOURCE_PATH, value));
    else
        gd_probe_fact_failed(e, fact, s, gd_src(GD_SOURCE_PATH, value));
    if (toolkit && s == GD_OK && st.type == GD_FT_DIR)
        toolkit_facts(ctx, e, var, value);
}

static void ld_library_path(struct gd_probe_ctx *ctx)
{
    const char *value = gd_env_get(ctx->env, "LD_LIBRARY_PATH");
    if (!value)
        return;
    struct gd_span rest = gd_span_of(value), item;
    size_t index = 0;
    while (index < PATH_ENTRIES_MAX && gd_span_next_field(&rest, ':', &item)) {
        char id[64];
        snprintf(id, sizeof id, "LD_LIBRARY_PATH[%zu]", index);
        struct gd_entity *e = gd_report_add_entity(ctx->report, "path_entry", id);
        struct gd_source src = gd_src(GD_SOURCE_ENV, "LD_LIBRARY_PATH");
        char *path = gd_strndup(item.p, item.n);
        if (!path) {
            gd_report_out_of_memory(ctx->report);
            return;
        }
        gd_fact_str(e, "variable", "LD_LIBRARY_PATH", src);
        gd_fact_int(e, "index", (long long)index, src);
        gd_fact_str(e, "path", path, src);
        if (!*path) {
            /* glibc reads an empty entry as the current directory (ld.so(8)). */
            gd_fact_bool(e, "empty", true, src);
        } else {
            struct gd_os_stat st;
            enum gd_status s = gd_root_stat(ctx->root, path, &st);
            if (s == GD_OK || s == GD_ENOENT || s == GD_ENOTDIR)
                gd_fact_bool(e, "exists", s == GD_OK && st.type == GD_FT_DIR,
                             gd_src(GD_SOURCE_PATH, path));
            else
                gd_probe_fact_failed(e, "exists", s, gd_src(GD_SOURCE_PATH, path));
            if (s == GD_OK && st.type == GD_FT_DIR) {
                struct gd_version v;
                enum gd_source_kind kind;
                char *ref = NULL;
                if (gd_toolkit_version(ctx, path, &v, &kind, &ref)) {
                    char text[GD_VERSION_FORMAT_MAX];
                    gd_version_format(&v, text, sizeof text);
                    gd_fact_str(e, "cuda_version", text, gd_src(kind, ref));
                }
                gd_free(ref);
            }
        }
        gd_free(path);
        index++;
    }
}

/* The first nvcc on PATH, and which toolkit it belongs to. */
static void nvcc_on_path(struct gd_probe_ctx *ctx, struct gd_entity *e)
{
    const char *value = gd_env_get(ctx->env, "PATH");
    if (!value)
        return;
    struct gd_span rest = gd_span_of(value), item;
    size_t index = 0;
    while (index++ < PATH_ENTRIES_MAX && gd_span_next_field(&rest, ':', &item)) {
        if (item.n == 0)
            continue;
        char *dir = gd_strndup(item.p, item.n);
        char *nvcc = dir ? gd_path_join(dir, "nvcc") : NULL;
        if (!nvcc) {
            gd_free(dir);
            gd_report_out_of_memory(ctx->report);
            return;
        }
        struct gd_os_stat st;
        bool hit = nvcc && gd_root_stat(ctx->root, nvcc, &st) == GD_OK && st.type == GD_FT_REG;
        if (hit) {
            gd_fact_str(e, "nvcc.path", nvcc, gd_src(GD_SOURCE_ENV, "PATH"));
            toolkit_facts(ctx, e, "nvcc", dir);
        }
        gd_free(nvcc);
        gd_free(dir);
        if (hit)
            return;
    }
    gd_fact_absent(e, "nvcc.path", "no nvcc in any PATH directory", gd_src(GD_SOURCE_ENV, "PATH"));
}

static void record(struct gd_entity *e, const struct gd_env *env, const char *var)
{
    if (gd_entity_fact(e, var))
        return;
    const char *v = gd_env_get(env, var);
    if (v)
        gd_fact_str(e, var, v, gd_src(GD_SOURCE_ENV, var));
    else
        gd_fact_absent(e, var, "not set", gd_src(GD_SOURCE_ENV, var));
}

void gd_probe_env(struct gd_probe_ctx *ctx)
{
    struct gd_entity *e = gd_report_add_entity(ctx->report, "env", "env");
    for (size_t i = 0; i < sizeof recorded / sizeof *recorded; i++)
        record(e, ctx->env, recorded[i]);
    /* Every variable the knowledge base knows accepted values for, so its rule can judge it. */
    const struct gd_kb_table *t = gd_kb_table(ctx->kb, "env_values");
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const char *var = gd_kb_str(gd_kb_row_at(t, i), "variable");
        if (var)
            record(e, ctx->env, var);
    }
    dir_var(ctx, e, "CUDA_HOME", true);
    dir_var(ctx, e, "CUDA_PATH", true);
    dir_var(ctx, e, "CUDNN_PATH", false);
    nvcc_on_path(ctx, e);
    ld_library_path(ctx);
}
