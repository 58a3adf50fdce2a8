/* The environment variables that decide what a CUDA program or framework loads and sees. */
#include "probe/probe.h"

#include "core/alloc.h"
#include "core/str.h"
#include "kb/kb.h"
#include "sysroot/nocase.h"

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

/* On Windows: the variable's path as a path of the root (Windows text, names matched ignoring
 * case, gd_probe_win_path). True with `*path` (new) when it exists as a directory; a fact says
 * what else. */
static bool win_dir_var(struct gd_probe_ctx *ctx, struct gd_entity *e, const char *fact,
                        const char *value, char **path)
{
    char why[128];
    enum gd_status st = gd_probe_win_path(ctx, value, path, why, sizeof why);
    if (st == GD_EINVAL) {
        gd_fact_unknown(e, fact, gd_report_strdup(ctx->report, why), gd_src(GD_SOURCE_PATH, value));
        return false;
    }
    if (st == GD_ENOMEM) {
        gd_report_out_of_memory(ctx->report);
        return false;
    }
    struct gd_os_stat s;
    if (st == GD_OK)
        st = gd_root_stat(ctx->root, *path, &s);
    if (st == GD_OK || st == GD_ENOENT || st == GD_ENOTDIR)
        gd_fact_bool(e, fact, st == GD_OK && s.type == GD_FT_DIR, gd_src(GD_SOURCE_PATH, *path));
    else
        gd_probe_fact_failed(e, fact, st, gd_src(GD_SOURCE_PATH, *path));
    return st == GD_OK && s.type == GD_FT_DIR;
}

/* CUDA_HOME, CUDA_PATH, CUDNN_PATH: must name an existing directory. */
static void dir_var(struct gd_probe_ctx *ctx, struct gd_entity *e, const char *var, bool toolkit)
{
    const char *value = gd_probe_getenv(ctx, var);
    if (!value || !*value)
        return;
    char fact[96];
    snprintf(fact, sizeof fact, "%s.exists", var);
    if (ctx->windows) {
        char *path = NULL;
        if (win_dir_var(ctx, e, fact, value, &path) && toolkit)
            toolkit_facts(ctx, e, var, path);
        gd_free(path);
        return;
    }
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

/* Windows: the first nvcc.exe in a directory of PATH (';'-separated Windows paths). */
static void win_nvcc_on_path(struct gd_probe_ctx *ctx, struct gd_entity *e, const char *value)
{
    struct gd_span rest = gd_span_of(value), item;
    size_t index = 0;
    while (index++ < PATH_ENTRIES_MAX && gd_span_next_field(&rest, ';', &item)) {
        char *text = gd_strndup(item.p, item.n), *dir = NULL, *nvcc = NULL, *found = NULL;
        char why[128];
        if (!text) {
            gd_report_out_of_memory(ctx->report);
            return;
        }
        enum gd_status st = gd_probe_win_path(ctx, text, &dir, why, sizeof why);
        gd_free(text);
        if (st == GD_OK) {
            nvcc = gd_path_join(dir, "nvcc.exe");
            st = nvcc ? gd_root_find_nocase(ctx->root, nvcc, &found) : GD_ENOMEM;
        }
        struct gd_os_stat s;
        bool hit =
            st == GD_OK && gd_root_stat(ctx->root, found, &s) == GD_OK && s.type == GD_FT_REG;
        if (st == GD_ENOMEM)
            gd_report_out_of_memory(ctx->report);
        if (hit) {
            gd_fact_str(e, "nvcc.path", found, gd_src(GD_SOURCE_ENV, "PATH"));
            toolkit_facts(ctx, e, "nvcc", dir);
        }
        gd_free(found);
        gd_free(nvcc);
        gd_free(dir);
        if (hit || st == GD_ENOMEM)
            return;
    }
    gd_fact_absent(e, "nvcc.path", "no nvcc.exe in any PATH directory",
                   gd_src(GD_SOURCE_ENV, "PATH"));
}

/* The first nvcc on PATH, and which toolkit it belongs to. */
static void nvcc_on_path(struct gd_probe_ctx *ctx, struct gd_entity *e)
{
    const char *value = gd_probe_getenv(ctx, "PATH");
    if (!value)
        return;
    if (ctx->windows) {
        win_nvcc_on_path(ctx, e, value);
        return;
    }
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

static void record(struct gd_entity *e, const struct gd_probe_ctx *ctx, const char *var)
{
    if (gd_entity_fact(e, var))
        return;
    const char *v = gd_probe_getenv(ctx, var);
    if (v)
        gd_fact_str(e, var, v, gd_src(GD_SOURCE_ENV, var));
    else
        gd_fact_absent(e, var, "not set", gd_src(GD_SOURCE_ENV, var));
}

/* Whether `name` is CUDA_PATH_V<major>_<minor> (Windows ignores the case of names), and its
 * version as "major.minor" in `version`. */
static bool cuda_path_version_name(const char *name, char *version, size_t size)
{
    static const char prefix[] = "CUDA_PATH_V";
    size_t n = sizeof prefix - 1;
    if (strlen(name) <= n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (gd_to_lower(name[i]) != gd_to_lower(prefix[i]))
            return false;
    const char *p = name + n;
    size_t major = strspn(p, "0123456789");
    if (!major || major > 3 || p[major] != '_')
        return false;
    const char *q = p + major + 1;
    size_t minor = strspn(q, "0123456789");
    if (!minor || minor > 3 || q[minor])
        return false;
    snprintf(version, size, "%.*s.%.*s", (int)major, p, (int)minor, q);
    return true;
}

/* Windows: every CUDA_PATH_V<major>_<minor> the CUDA installer sets (one per toolkit; the
 * windows_cuda table), recorded under its upper-case name with whether it names a directory
 * and the version of the toolkit there. */
static void cuda_path_versions(struct gd_probe_ctx *ctx, struct gd_entity *e)
{
    for (size_t i = 0; i < gd_env_count(ctx->env); i++) {
        const char *name = gd_env_name_at(ctx->env, i);
        char version[16], upper[64];
        if (!cuda_path_version_name(name, version, sizeof version) || strlen(name) >= sizeof upper)
            continue;
        size_t k = 0;
        for (; name[k]; k++)
            upper[k] = (name[k] >= 'a' && name[k] <= 'z') ? (char)(name[k] - 'a' + 'A') : name[k];
        upper[k] = '\0';
        if (gd_entity_fact(e, upper))
            continue; /* one variable twice, in two cases */
        gd_fact_str(e, upper, gd_env_value_at(ctx->env, i), gd_src(GD_SOURCE_ENV, name));
        char fact[96];
        snprintf(fact, sizeof fact, "%s.version", upper);
        gd_fact_str(e, fact, version, gd_src(GD_SOURCE_DERIVED, "the variable's name"));
        dir_var(ctx, e, upper, true);
    }
}

void gd_probe_env(struct gd_probe_ctx *ctx)
{
    struct gd_entity *e = gd_report_add_entity(ctx->report, "env", "env");
    for (size_t i = 0; i < sizeof recorded / sizeof *recorded; i++)
        /* The glibc loader's variables mean nothing to Windows. */
        if (!ctx->windows || strncmp(recorded[i], "LD_", 3) != 0)
            record(e, ctx, recorded[i]);
    /* Every variable the knowledge base knows accepted values for, so its rule can judge it. */
    const struct gd_kb_table *t = gd_kb_table(ctx->kb, "env_values");
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const char *var = gd_kb_str(gd_kb_row_at(t, i), "variable");
        if (var)
            record(e, ctx, var);
    }
    dir_var(ctx, e, "CUDA_HOME", true);
    dir_var(ctx, e, "CUDA_PATH", true);
    dir_var(ctx, e, "CUDNN_PATH", false);
    if (ctx->windows)
        cuda_path_versions(ctx, e);
    nvcc_on_path(ctx, e);
    /* LD_LIBRARY_PATH means nothing to Windows' loader. */
    if (!ctx->windows)
        ld_library_path(ctx);
}
