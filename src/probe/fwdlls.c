/*
 * Windows: the DLLs a framework distribution's native modules import, looked for as Python 3.8
 * and later look for them (frameworks.h, src/loader/winload.h).
 *
 * Python imports an extension module with LoadLibraryExW(LOAD_LIBRARY_SEARCH_DEFAULT_DIRS |
 * LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR): the module's own directory, the application's (python.exe's,
 * a venv's base), the directories added with os.add_dll_directory, System32 — not PATH. So each
 * native module of the distribution (the *.pyd and *.dll its RECORD lists, else those of its
 * package directory) is loaded by path in one emulated process, with its whole import tree, the
 * process's added directories being those the KB `dll_directories` row says the framework adds
 * itself before importing its modules (torch: torch/lib and conda's Library/bin; CuPy: the CUDA
 * path's bin), and the DLLs the row says it loads first (every DLL of torch/lib) loaded first.
 *
 * An imported DLL that search misses is recorded as a `framework_dll` entity, with where the
 * standard order (LoadLibrary: PATH included, which Python 3.7 and earlier searched) finds it:
 * that is the case of "a DLL present only in a directory Python no longer searches". Misses under
 * a DLL the framework preloads with a fallback to the standard order (torch) are its to handle
 * and are not recorded. Fat binaries are not read: CUDA's fatbin in a PE image is another story.
 */
#include "probe/frameworks.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "kb/kb.h"
#include "loader/winload.h"
#include "parse/record.h"

#include <stdio.h>
#include <string.h>

#define REF_MAX (GD_ROOT_PATH_MAX + 128)
/* Directories one KB row may add (torch adds three). */
#define DIRS_MAX 16

static bool ends_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && gd_str_ieq(s + n - m, suffix);
}

static bool is_module_name(const char *path)
{
    return ends_ci(path, ".pyd") || ends_ci(path, ".dll");
}

/* ---- what the framework adds itself (the KB) ------------------------------------------------- */

static const struct gd_kb_row *dll_row(const struct gd_fwscan *s, const char *framework)
{
    for (size_t i = 0; i < gd_kb_row_count(s->kb); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(s->kb, i);
        const char *kind = gd_kb_str(row, "kind"), *fw = gd_kb_str(row, "framework");
        if (kind && fw && strcmp(kind, "dll_directories") == 0 && strcmp(fw, framework) == 0)
            return row;
    }
    return NULL;
}

struct vars {
    const char *site, *prefix, *base_prefix;
};

/* The directory of PATH that holds `file`, inside the root; NULL when none. New memory. */
static char *which(struct gd_fwscan *s, const char *file)
{
    const char *path = gd_env_get(s->ctx->env, "PATH");
    for (const char *p = path; p && *p;) {
        size_t n = strcspn(p, ";");
        char *entry = gd_strndup(p, n), *dir = NULL, *hit = NULL;
        enum gd_status st = entry ? gd_win_path_in_root(entry, NULL, &dir) : GD_ENOMEM;
        char *cand = st == GD_OK ? gd_path_join(dir, file) : NULL;
        if (st == GD_OK && !cand)
            st = GD_ENOMEM;
        if (st == GD_OK)
            st = gd_win_find(s->ctx->root, cand, &hit);
        gd_fwscan_fail(s, st);
        gd_free(entry);
        gd_free(cand);
        gd_free(hit);
        if (st == GD_OK)
            return dir;
        gd_free(dir);
        p += n;
        if (*p == ';')
            p++;
    }
    return NULL;
}

/* One template ("{site}/torch/lib", "{env:CUDA_PATH}/bin", "{which:nvcc.exe}/..") as an
 * existing directory inside the root (the tree's spelling), or NULL. New memory. */
static char *expand(struct gd_fwscan *s, const struct vars *v, const char *tpl)
{
    const char *close = tpl[0] == '{' ? strchr(tpl, '}') : NULL;
    if (!close)
        return NULL;
    char key[128];
    snprintf(key, sizeof key, "%.*s", (int)(close - tpl - 1), tpl + 1);
    char *base = NULL;
    if (strcmp(key, "site") == 0 && v->site)
        base = gd_strdup(v->site);
    else if (strcmp(key, "prefix") == 0 && v->prefix)
        base = gd_strdup(v->prefix);
    else if (strcmp(key, "base_prefix") == 0 && v->base_prefix)
        base = gd_strdup(v->base_prefix);
    else if (gd_str_starts_with(key, "env:")) {
        const char *value = gd_env_get(s->ctx->env, key + 4);
        if (value && gd_win_path_in_root(value, NULL, &base) == GD_ENOMEM)
            gd_fwscan_fail(s, GD_ENOMEM);
    } else if (gd_str_starts_with(key, "which:")) {
        base = which(s, key + 6);
    } else {
        return NULL;
    }
    if (!base)
        return NULL;
    size_t n = strlen(base) + strlen(close + 1) + 1;
    char *joined = gd_malloc(n), *norm = NULL, *found = NULL;
    if (joined)
        snprintf(joined, n, "%s%s", base, close + 1);
    enum gd_status st = joined ? gd_win_path_in_root(joined, NULL, &norm) : GD_ENOMEM;
    if (st == GD_OK)
        st = gd_win_find(s->ctx->root, norm, &found);
    gd_fwscan_fail(s, st);
    gd_free(base);
    gd_free(joined);
    gd_free(norm);
    if (found && !gd_root_is_dir(s->ctx->root, found)) {
        gd_free(found);
        found = NULL;
    }
    return found;
}

/* The row's list `field`, each entry the first of its '|' alternatives that exists. */
static void expand_list(struct gd_fwscan *s, const struct vars *v, const struct gd_kb_row *row,
                        const char *field, struct gd_strlist *out)
{
    for (size_t i = 0; row && i < gd_kb_list_len(row, field) && out->count < DIRS_MAX; i++) {
        const char *alts = gd_kb_list_at(row, field, i);
        for (const char *p = alts; p && *p && s->status == GD_OK;) {
            size_t n = strcspn(p, "|");
            char *tpl = gd_strndup(p, n);
            char *dir = tpl ? expand(s, v, tpl) : NULL;
            if (!tpl)
                gd_fwscan_fail(s, GD_ENOMEM);
            gd_free(tpl);
            if (dir) {
                gd_fwscan_fail(s, gd_strlist_push_unique(out, dir));
                gd_free(dir);
                break;
            }
            p += n;
            if (*p == '|')
                p++;
        }
    }
}

/* ---- recording ------------------------------------------------------------------------------- */

/* The first module that imports `name` and misses it, and whether every module that misses it
 * belongs to a preloaded DLL's load request. */
static const struct gd_win_object *needer(struct gd_winload *L, const char *name,
                                          const bool *preload_req, size_t nreq,
                                          bool *only_preloaded)
{
    const struct gd_win_object *first = NULL;
    *only_preloaded = true;
    for (size_t i = 0; i < gd_winload_count(L); i++) {
        const struct gd_win_object *o = gd_winload_at(L, i);
        for (size_t k = 0; k < o->ndeps; k++) {
            if (o->deps[k].to || o->deps[k].rule == GD_WIN_RULE_API_SET ||
                !gd_str_ieq(o->deps[k].name, name))
                continue;
            if (!first)
                first = o;
            if (!(o->request < nreq && preload_req[o->request]))
                *only_preloaded = false;
        }
    }
    return first;
}

static void record_dll(struct gd_fwscan *s, struct gd_fw *fw, const struct gd_win_edge *miss,
                       const struct gd_win_object *by, struct gd_winload *std, const char *app,
                       const struct gd_strlist *added)
{
    struct gd_report *r = s->ctx->report;
    char id[2 * REF_MAX], lower[256];
    snprintf(lower, sizeof lower, "%s", miss->name);
    for (char *p = lower; *p; p++)
        *p = gd_to_lower(*p);
    snprintf(id, sizeof id, "framework_dll:%s:%s", fw->meta, lower);
    struct gd_entity *e = gd_report_add_entity(r, "framework_dll", id);
    char ref[REF_MAX];
    snprintf(ref, sizeof ref, "%s", by ? by->path : "?"); /* its import table */
    struct gd_source pe = gd_src(GD_SOURCE_FILE, ref);
    gd_fact_str(e, "framework", gd_entity_id(fw->entity), gd_src(GD_SOURCE_DERIVED, fw->meta));
    gd_fact_str(e, "dll", miss->name, pe);
    if (by)
        gd_fact_str(e, "needed_by", by->path, pe);
    struct gd_buf where;
    gd_buf_init(&where, 16 * 1024);
    for (size_t i = 0; i < added->count; i++)
        gd_buf_printf(&where, "%s%s", i ? ", " : "", added->items[i]);
    struct gd_source search = gd_src(GD_SOURCE_DERIVED, "Windows DLL search (Python 3.8+ order)");
    if (miss->error)
        gd_fact_unknown(e, "path", gd_report_printf(r, "%s", miss->error), search);
    else
        gd_fact_absent(e, "path",
                       gd_report_printf(r,
                                        "not in %s's directory, the application's (%s), "
                                        "os.add_dll_directory's (%s) or System32",
                                        by ? gd_path_base(by->path) : "the module's",
                                        app ? app : "not known",
                                        where.len ? gd_buf_str(&where) : "none"),
                       search);
    gd_fwscan_fail(s, gd_buf_status(&where));
    gd_buf_free(&where);
    struct gd_win_edge *e2 = NULL;
    enum gd_status st = std ? gd_winload_resolve(std, NULL, miss->name, false, &e2) : GD_EINVAL;
    gd_fwscan_fail(s, st);
    if (st != GD_OK || !e2->to)
        return;
    struct gd_source by_std =
        gd_src(GD_SOURCE_DERIVED, gd_report_printf(r, "Windows DLL search (LoadLibrary order, %s)",
                                                   gd_win_rule_name(e2->rule)));
    gd_fact_str(e, "standard.path", e2->to->path, by_std);
    gd_fact_str(e, "standard.rule", gd_win_rule_name(e2->rule), by_std);
    const struct gd_win_dir *dirs = NULL;
    size_t n = gd_winload_dirs(std, e2->to->request, &dirs);
    for (size_t i = 0; i < n; i++) {
        if (dirs[i].dir && e2->dir && strcmp(dirs[i].dir, e2->dir) == 0 && dirs[i].as_given) {
            gd_fact_str(e, "standard.dir", dirs[i].as_given, by_std);
            break;
        }
    }
}

/* ---- one distribution ------------------------------------------------------------------------ */

static struct gd_winload *new_load(struct gd_fwscan *s, enum gd_win_mode mode, const char *app,
                                   const struct gd_strlist *added, uint16_t machine)
{
    struct gd_winload_options o = { 0 };
    o.mode = mode;
    o.app_dir = app;
    o.path_env = gd_env_get(s->ctx->env, "PATH");
    o.windows_dir = gd_env_get(s->ctx->env, "SystemRoot");
    o.dll_dirs = (const char *const *)added->items;
    o.ndll_dirs = added->count;
    struct gd_winload *L = NULL;
    gd_fwscan_fail(s, gd_winload_new(s->ctx->root, &o, machine, &L));
    return L;
}

void gd_fw_probe_dlls(struct gd_fwscan *s, struct gd_fw *fw)
{
    struct gd_strlist modules = { 0 }, added = { 0 }, preload_dirs = { 0 };
    gd_fw_list_modules(s, fw, is_module_name, &modules);
    gd_fact_int(fw->entity, "native_modules", (long long)modules.count,
                gd_src(GD_SOURCE_FILE, fw->meta));
    char *prefix = NULL, *app = NULL, *base = NULL;
    struct gd_winload *L = NULL, *std = NULL;
    bool *preload_req = NULL;
    size_t nreq = 0;
    if (!modules.count || s->status != GD_OK)
        goto out;
    enum gd_status st = gd_win_python_dirs(s->ctx->root, fw->site, &prefix, &app);
    gd_fwscan_fail(s, st);
    struct gd_source py = gd_src(GD_SOURCE_DERIVED, "python.exe (or pyvenv.cfg) above the site");
    if (app)
        gd_fact_str(fw->entity, "windows.app_dir", app, py);
    else
        gd_fact_unknown(fw->entity, "windows.app_dir", "no python.exe or pyvenv.cfg above it",
                        gd_src(GD_SOURCE_PATH, fw->site));
    /* A venv's prefix is not its base's: torch adds both Library\bin directories. */
    if (prefix && app && strcmp(prefix, app) != 0)
        base = gd_strdup(app);
    const struct gd_kb_row *row = dll_row(s, fw->framework);
    struct vars v = { fw->site, prefix, base };
    expand_list(s, &v, row, "dirs", &added);
    expand_list(s, &v, row, "preload", &preload_dirs);
    if (row) {
        struct gd_buf b;
        gd_buf_init(&b, 16 * 1024);
        for (size_t i = 0; i < added.count; i++)
            gd_buf_printf(&b, "%s%s", i ? ", " : "", added.items[i]);
        struct gd_source kb = gd_src(
            GD_SOURCE_KB, gd_report_printf(s->ctx->report, "frameworks: dll_directories of %s (%s)",
                                           fw->framework, gd_kb_row_source(row)));
        if (added.count)
            gd_fact_str(fw->entity, "windows.dll_directories", gd_buf_str(&b), kb);
        else
            gd_fact_absent(fw->entity, "windows.dll_directories",
                           "none of the directories it adds exists", kb);
        gd_fwscan_fail(s, gd_buf_status(&b));
        gd_buf_free(&b);
    }
    if (s->status != GD_OK || !(L = new_load(s, GD_WIN_EXTENSION, app, &added, 0)))
        goto out;
    /* The DLLs the framework loads itself first, then its DLLs, then its extension modules:
     * an import of one of them finds it loaded. */
    struct gd_strlist order = { 0 };
    for (size_t i = 0; i < preload_dirs.count; i++)
        gd_fw_list_dir_modules(s, preload_dirs.items[i], is_module_name, &order);
    size_t npreload = order.count;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < modules.count; i++)
            if (ends_ci(modules.items[i], pass == 0 ? ".dll" : ".pyd"))
                gd_fwscan_fail(s, gd_strlist_push_unique(&order, modules.items[i]));
    bool fallback = row && gd_kb_str(row, "preload_fallback") &&
                    strcmp(gd_kb_str(row, "preload_fallback"), "standard") == 0;
    for (size_t i = 0; i < order.count && s->status == GD_OK; i++) {
        struct gd_win_object *m = NULL;
        st = gd_winload_module(L, order.items[i], true, &m);
        gd_fwscan_fail(s, st);
        if (st != GD_OK || !m || i >= npreload || !fallback)
            continue;
        if (m->request >= nreq) {
            bool *grown = gd_realloc(preload_req, (m->request + 1) * sizeof *grown);
            if (!grown) {
                gd_fwscan_fail(s, GD_ENOMEM);
                break;
            }
            memset(grown + nreq, 0, (m->request + 1 - nreq) * sizeof *grown);
            preload_req = grown;
            nreq = m->request + 1;
        }
        preload_req[m->request] = true;
    }
    gd_strlist_free(&order);
    size_t nmissing = gd_winload_missing_count(L);
    if (s->status != GD_OK || nmissing == 0)
        goto out;
    std = new_load(s, GD_WIN_STANDARD, app, &added, gd_winload_machine(L));
    size_t recorded = 0;
    for (size_t i = 0; i < nmissing && s->status == GD_OK && recorded < GD_FW_LIBS_MAX; i++) {
        const struct gd_win_edge *miss = gd_winload_missing_at(L, i);
        bool only_preloaded = false;
        const struct gd_win_object *by = needer(L, miss->name, preload_req, nreq, &only_preloaded);
        if (by && only_preloaded)
            continue; /* the framework loads it again in the standard order itself */
        record_dll(s, fw, miss, by, std, app, &added);
        recorded++;
    }
out:
    gd_winload_free(L);
    gd_winload_free(std);
    gd_free(preload_req);
    gd_free(prefix);
    gd_free(app);
    gd_free(base);
    gd_strlist_free(&added);
    gd_strlist_free(&preload_dirs);
    gd_strlist_free(&modules);
}
