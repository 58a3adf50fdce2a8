/*
 * CUDA on a Windows machine, from its files and its environment: the toolkits (CUDA_PATH, every
 * CUDA_PATH_V<major>_<minor>, and the versions in the installer's directory), the version of each
 * (version.json, version.txt or cuda.h as on Linux, else its "vX.Y" directory name), the CUDA and
 * cuDNN DLLs in its bin directory with what the windows_cuda table says of their names, the cuDNN
 * of NVIDIA's own cuDNN installer, and the DLLs cuDNN needs beside it (zlibwapi.dll for cuDNN
 * 8.3 to 8.x), looked for where Windows' loader finds them for cuDNN (src/loader/winload.c).
 *
 * Entities: cuda_toolkit:<path> (path, found_by, version, bin, dlls), cuda_dll:<path> (family,
 * cuda: the CUDA versions whose toolkits ship that name), cudnn_dir:<dir> (dll, major, version,
 * sub, <dependency>.path) and the summary cuda_toolkits (count, versions). Nothing is loaded.
 */
#include "probe/probe.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "core/winpath.h"
#include "kb/kb.h"
#include "kb/windows.h"
#include "loader/winload.h"
#include "parse/cuda_version.h"
#include "sysroot/nocase.h"

#include <stdio.h>
#include <string.h>

#define TOOLKITS_MAX    32   /* toolkits recorded; more are counted */
#define DIR_ENTRIES_MAX 4096 /* entries of one bin or installer directory looked at */
#define CUDNN_MAX       32

struct toolkit {
    char *path;             /* canonical, in the root */
    struct gd_buf found_by; /* "CUDA_PATH, CUDA_PATH_V11_2, the installer's directory" */
    struct gd_source first; /* the first way it was found, for the path fact */
};

struct scan {
    struct gd_probe_ctx *ctx;
    const struct gd_kb_table *t;
    struct toolkit items[TOOLKITS_MAX];
    size_t n, dropped;
    struct gd_strlist cudnn_dirs; /* directories already recorded as a cuDNN */
};

static bool kind_is(const struct gd_kb_row *row, const char *kind)
{
    const char *k = gd_kb_str(row, "kind");
    return k && strcmp(k, kind) == 0;
}

static const struct gd_kb_row *first_row(const struct gd_kb_table *t, const char *kind)
{
    for (size_t i = 0; i < gd_kb_row_count(t); i++)
        if (kind_is(gd_kb_row_at(t, i), kind))
            return gd_kb_row_at(t, i);
    return NULL;
}

static void oom(struct scan *s, enum gd_status st)
{
    if (st == GD_ENOMEM)
        gd_report_out_of_memory(s->ctx->report);
}

/* "vX.Y" (the installer's directory names), its version into `out`. */
static bool v_name(const char *name, struct gd_version *out)
{
    if ((name[0] != 'v' && name[0] != 'V') || !strchr(name, '.'))
        return false;
    return gd_version_parse(name + 1, out) == GD_OK && out->nparts == 2 &&
           out->pre == GD_PRE_NONE && !out->local[0];
}

static bool is_dir(struct scan *s, const char *path)
{
    struct gd_os_stat st;
    enum gd_status r = gd_root_stat(s->ctx->root, path, &st);
    oom(s, r);
    return r == GD_OK && st.type == GD_FT_DIR;
}

static void add_toolkit(struct scan *s, const char *path, const char *found_by,
                        struct gd_source src)
{
    char *canon = NULL;
    enum gd_status st = gd_root_resolve(s->ctx->root, path, true, &canon);
    oom(s, st);
    if (st != GD_OK || !is_dir(s, canon)) {
        gd_free(canon);
        return;
    }
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->items[i].path, canon) == 0) {
            gd_buf_printf(&s->items[i].found_by, ", %s", found_by);
            gd_free(canon);
            return;
        }
    }
    if (s->n >= TOOLKITS_MAX) {
        s->dropped++;
        gd_free(canon);
        return;
    }
    struct toolkit *t = &s->items[s->n++];
    t->path = canon;
    gd_buf_init(&t->found_by, 1024);
    gd_buf_printf(&t->found_by, "%s", found_by);
    t->first = src;
}

/* A variable naming a toolkit (CUDA_PATH, CUDA_PATH_V11_2): the env probe recorded whether it
 * exists; the toolkit is the directory it names. */
static void from_variable(struct scan *s, const char *name, const char *value)
{
    char *path = NULL, why[128];
    enum gd_status st = gd_probe_win_path(s->ctx, value, &path, why, sizeof why);
    oom(s, st);
    if (st == GD_OK)
        add_toolkit(s, path, name, gd_src(GD_SOURCE_ENV, name));
    gd_free(path);
}

static void from_environment(struct scan *s)
{
    const char *cuda_path = gd_probe_getenv(s->ctx, "CUDA_PATH");
    if (cuda_path && *cuda_path)
        from_variable(s, "CUDA_PATH", cuda_path);
    for (size_t i = 0; i < gd_env_count(s->ctx->env); i++) {
        const char *name = gd_env_name_at(s->ctx->env, i);
        char upper[64];
        size_t n = strlen(name);
        if (n >= sizeof upper || n < 12)
            continue;
        for (size_t k = 0; k <= n; k++)
            upper[k] = (name[k] >= 'a' && name[k] <= 'z') ? (char)(name[k] - 'a' + 'A') : name[k];
        /* The env probe recorded the well-formed ones under this name. */
        if (strncmp(upper, "CUDA_PATH_V", 11) != 0 || !gd_report_fact(s->ctx->report, "env", upper))
            continue;
        from_variable(s, upper, gd_env_value_at(s->ctx->env, i));
    }
}

/* The directory the windows_cuda table's first row of `kind` names ("toolkit_dir": Program
 * Files/NVIDIA GPU Computing Toolkit/CUDA), as the tree spells it: new memory on GD_OK;
 * GD_ENOENT when there is no such row or directory. */
static enum gd_status kb_dir(struct scan *s, const char *kind, char **dir)
{
    *dir = NULL;
    const struct gd_kb_row *row = first_row(s->t, kind);
    const char *rel = row ? gd_kb_str(row, "path") : NULL;
    if (!rel)
        return GD_ENOENT;
    char want[GD_ROOT_PATH_MAX];
    snprintf(want, sizeof want, "/%s", rel);
    enum gd_status st = gd_root_find_nocase(s->ctx->root, want, dir);
    oom(s, st);
    return st;
}

/* Every vX.Y in the installer's directory. */
static void from_installer_dir(struct scan *s)
{
    char *dir = NULL;
    enum gd_status st = kb_dir(s, "toolkit_dir", &dir);
    struct gd_names names;
    if (st == GD_OK && (st = gd_root_list(s->ctx->root, dir, &names)) == GD_OK) {
        /* The source outlives `dir`: the report keeps its own copy. */
        const char *where = gd_report_strdup(s->ctx->report, dir);
        for (size_t i = 0; i < names.count && i < DIR_ENTRIES_MAX; i++) {
            struct gd_version v;
            if (!v_name(names.names[i], &v))
                continue;
            char *path = gd_path_join(dir, names.names[i]);
            if (path && where)
                add_toolkit(s, path, "the installer's directory", gd_src(GD_SOURCE_PATH, where));
            oom(s, path && where ? GD_OK : GD_ENOMEM);
            gd_free(path);
        }
        gd_names_free(&names);
    }
    oom(s, st);
    gd_free(dir);
}

/* ---- DLLs --------------------------------------------------------------------------------- */

/* Where Windows finds `dll` when cuDNN's sub-libraries import it: LoadLibrary's standard order
 * (src/loader/winload.c), with the inspected PATH. The application's and the current directory
 * are the program's, unknown here, and not searched: a DLL beside python.exe is not counted.
 * Directories searched go to `looked`. New memory, or NULL. */
static char *find_dependency(struct scan *s, const char *dll, struct gd_buf *looked)
{
    struct gd_winload_options o = { 0 };
    o.mode = GD_WIN_STANDARD;
    o.path_env = gd_probe_getenv(s->ctx, "PATH");
    struct gd_winload *L = NULL;
    enum gd_status st = gd_winload_new(s->ctx->root, &o, GD_PE_MACHINE_AMD64, &L);
    struct gd_win_edge *edge = NULL;
    if (st == GD_OK)
        st = gd_winload_resolve(L, NULL, dll, false, &edge);
    oom(s, st);
    char *found = NULL;
    if (st == GD_OK && edge->to && !(found = gd_strdup(edge->to->path)))
        oom(s, GD_ENOMEM);
    if (st == GD_OK && !edge->to) {
        const struct gd_win_dir *dirs = NULL;
        size_t n = gd_winload_dirs(L, 0, &dirs), shown = 0;
        for (size_t i = 0; i < n; i++) {
            bool again = !dirs[i].dir; /* PATH often repeats System32 and Windows */
            for (size_t k = 0; k < i && !again; k++)
                again = dirs[k].dir && gd_str_ieq(dirs[k].dir, dirs[i].dir);
            if (!again)
                gd_buf_printf(looked, "%s%s", shown++ ? ", " : "", dirs[i].dir);
        }
    }
    gd_winload_free(L);
    return found;
}

/* The cuDNN version of a toolkit that it was copied into: include/cudnn_version.h (cuDNN 8 and
 * 9), else include/cudnn.h (7), next to bin. */
static bool cudnn_header(struct scan *s, const char *top, struct gd_version *v, char **ref)
{
    static const char *const headers[] = { "include/cudnn_version.h", "include/cudnn.h" };
    for (size_t i = 0; i < 2; i++) {
        char *want = gd_path_join(top, headers[i]), *path = NULL, *data = NULL;
        size_t len = 0;
        enum gd_status st = want ? gd_root_find_nocase(s->ctx->root, want, &path) : GD_ENOMEM;
        gd_free(want);
        if (st == GD_OK)
            st = gd_root_read_head(s->ctx->root, path, 4 * GD_PROBE_TEXT_MAX, &data, &len);
        oom(s, st);
        long major = -1, minor = -1, patch = 0;
        if (st == GD_OK && gd_parse_header_define(data, len, "CUDNN_MAJOR", &major) == GD_OK &&
            gd_parse_header_define(data, len, "CUDNN_MINOR", &minor) == GD_OK) {
            gd_parse_header_define(data, len, "CUDNN_PATCHLEVEL", &patch);
            char text[48];
            snprintf(text, sizeof text, "%ld.%ld.%ld", major, minor, patch);
            gd_free(data);
            if (gd_version_parse(text, v) == GD_OK) {
                *ref = path;
                return true;
            }
        } else {
            gd_free(data);
        }
        gd_free(path);
    }
    return false;
}

/* A directory holding cuDNN's main DLL `dll` (cuDNN `major`), with its version from a header
 * next to `top`, else `dir_version` (an installer directory's name), else its major alone. */
static void record_cudnn(struct scan *s, const char *dir, const char *dll, long major,
                         const char *top, const char *dir_version, const char *toolkit_id,
                         const struct gd_names *names)
{
    if (gd_strlist_contains(&s->cudnn_dirs, dir) || s->cudnn_dirs.count >= CUDNN_MAX)
        return;
    oom(s, gd_strlist_push(&s->cudnn_dirs, dir));
    char id[GD_ROOT_PATH_MAX + 8];
    snprintf(id, sizeof id, "cudnn_dir:%s", dir);
    struct gd_entity *e = gd_report_add_entity(s->ctx->report, "cudnn_dir", id);
    char *path = gd_path_join(dir, dll);
    oom(s, path ? GD_OK : GD_ENOMEM);
    struct gd_source at = gd_src(GD_SOURCE_PATH, path ? path : dir);
    gd_fact_str(e, "dll", path ? path : dll, at);
    gd_fact_int(e, "major", major, gd_src(GD_SOURCE_KB, "windows_cuda: cudnn_dll"));
    if (toolkit_id)
        gd_fact_str(e, "toolkit", toolkit_id, at);
    struct gd_version v;
    char *ref = NULL;
    if (top && cudnn_header(s, top, &v, &ref)) {
        gd_fact_str(e, "version", v.text, gd_src(GD_SOURCE_FILE, ref));
    } else if (dir_version) {
        gd_fact_str(
            e, "version", dir_version,
            gd_src(GD_SOURCE_PATH,
                   gd_report_printf(s->ctx->report, "%s (the installer's directory name)", dir)));
    } else {
        gd_fact_unknown(e, "version",
                        gd_report_printf(s->ctx->report,
                                         "no cudnn_version.h beside it: only the major %ld, "
                                         "from the DLL's name",
                                         major),
                        at);
    }
    gd_free(ref);
    /* Its sub-libraries present (cuDNN 8's cudnn_*64_8.dll, 9's cudnn_*64_9.dll). */
    struct gd_buf sub;
    gd_buf_init(&sub, 4096);
    size_t nsub = 0;
    for (size_t i = 0; names && i < names->count && i < DIR_ENTRIES_MAX; i++) {
        struct gd_kb_win_dll d;
        if (gd_kb_win_dll(s->ctx->kb, names->names[i], &d) == GD_OK &&
            strcmp(d.family, "cudnn-sub") == 0 && d.cudnn_major == major)
            gd_buf_printf(&sub, "%s%s", nsub++ ? "," : "", names->names[i]);
    }
    if (nsub)
        gd_fact_str(e, "sub", gd_buf_str(&sub), gd_src(GD_SOURCE_PATH, dir));
    oom(s, gd_buf_status(&sub));
    gd_buf_free(&sub);
    /* What the windows_cuda table says this major needs beside it (zlibwapi.dll for 8.3+). */
    for (size_t i = 0; i < gd_kb_row_count(s->t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(s->t, i);
        const char *need = gd_kb_str(row, "dll"), *min = gd_kb_str(row, "cudnn_min");
        struct gd_version m;
        if (!kind_is(row, "dependency") || !need || !min || gd_version_parse(min, &m) != GD_OK ||
            (long)m.parts[0] != major)
            continue;
        char fact[96];
        snprintf(fact, sizeof fact, "%.*s.path", (int)strcspn(need, "."), need);
        struct gd_buf looked;
        gd_buf_init(&looked, 4096);
        char *found = find_dependency(s, need, &looked);
        if (found)
            gd_fact_str(e, fact, found, gd_src(GD_SOURCE_PATH, found));
        else
            gd_fact_absent(
                e, fact, gd_report_printf(s->ctx->report, "no %s in %s", need, gd_buf_str(&looked)),
                gd_src(GD_SOURCE_PATH, gd_buf_str(&looked)));
        oom(s, gd_buf_status(&looked));
        gd_buf_free(&looked);
        gd_free(found);
    }
    gd_free(path);
}

/* The DLLs of a toolkit's bin directory that the windows_cuda table names. */
static void toolkit_dlls(struct scan *s, struct gd_entity *tk, const char *top, const char *bin)
{
    struct gd_names names;
    enum gd_status st = gd_root_list(s->ctx->root, bin, &names);
    oom(s, st);
    if (st != GD_OK)
        return;
    struct gd_buf dlls;
    gd_buf_init(&dlls, 64 * 1024);
    size_t ndlls = 0;
    for (size_t i = 0; i < names.count && i < DIR_ENTRIES_MAX; i++) {
        const char *name = names.names[i];
        struct gd_kb_win_dll d;
        if (gd_kb_win_dll(s->ctx->kb, name, &d) != GD_OK || d.driver)
            continue;
        char *path = gd_path_join(bin, name);
        if (!path) {
            oom(s, GD_ENOMEM);
            break;
        }
        gd_buf_printf(&dlls, "%s%s", ndlls++ ? "," : "", name);
        if (strcmp(d.family, "cudnn") == 0) {
            record_cudnn(s, bin, name, d.cudnn_major, top, NULL, tk ? tk->id : NULL, &names);
        } else if (strcmp(d.family, "cudnn-sub") != 0) {
            char id[GD_ROOT_PATH_MAX + 16];
            snprintf(id, sizeof id, "cuda_dll:%s", path);
            struct gd_entity *e = gd_report_add_entity(s->ctx->report, "cuda_dll", id);
            struct gd_source kb =
                gd_src(GD_SOURCE_KB, gd_report_printf(s->ctx->report, "windows_cuda: %s (%s)", name,
                                                      gd_kb_row_source(d.rows[0])));
            gd_fact_str(e, "family", d.family, kb);
            struct gd_buf cuda;
            gd_buf_init(&cuda, 256);
            for (size_t k = 0; k < d.n; k++)
                gd_buf_printf(&cuda, "%s%s", k ? "," : "", d.cuda[k] ? d.cuda[k] : "?");
            gd_fact_str(e, "cuda", gd_buf_str(&cuda), kb);
            oom(s, gd_buf_status(&cuda));
            gd_buf_free(&cuda);
        }
        gd_free(path);
    }
    if (tk) {
        if (ndlls)
            gd_fact_str(tk, "dlls", gd_buf_str(&dlls), gd_src(GD_SOURCE_PATH, bin));
        else
            gd_fact_absent(tk, "dlls", "no CUDA or cuDNN DLL the knowledge base names",
                           gd_src(GD_SOURCE_PATH, bin));
    }
    oom(s, gd_buf_status(&dlls));
    gd_buf_free(&dlls);
    gd_names_free(&names);
}

static void record_toolkit(struct scan *s, struct toolkit *t, struct gd_buf *versions,
                           size_t *nversions)
{
    char id[GD_ROOT_PATH_MAX + 16];
    snprintf(id, sizeof id, "cuda_toolkit:%s", t->path);
    struct gd_entity *e = gd_report_add_entity(s->ctx->report, "cuda_toolkit", id);
    gd_fact_str(e, "path", t->path, t->first);
    gd_fact_str(e, "found_by", gd_buf_str(&t->found_by), t->first);
    struct gd_version v;
    enum gd_source_kind kind;
    char *ref = NULL;
    const char *version = NULL;
    if (gd_toolkit_version(s->ctx, t->path, &v, &kind, &ref)) {
        version = gd_fact_str(e, "version", v.text, gd_src(kind, ref)) ? v.text : NULL;
    } else if (v_name(gd_path_base(t->path), &v)) {
        /* The installer names the directory after the version (v11.2). */
        version =
            gd_fact_str(e, "version", v.text,
                        gd_src(GD_SOURCE_PATH,
                               gd_report_printf(s->ctx->report,
                                                "%s (the installer's directory name)", t->path)))
                ? v.text
                : NULL;
    } else {
        gd_fact_unknown(e, "version", "no version.json, version.txt, cuda.h or vX.Y name",
                        gd_src(GD_SOURCE_PATH, t->path));
    }
    gd_free(ref);
    if (version)
        gd_buf_printf(versions, "%s%s", (*nversions)++ ? "," : "", version);
    char *want = gd_path_join(t->path, "bin"), *bin = NULL;
    enum gd_status st = want ? gd_root_find_nocase(s->ctx->root, want, &bin) : GD_ENOMEM;
    oom(s, st);
    if (st == GD_OK && is_dir(s, bin)) {
        gd_fact_str(e, "bin", bin, gd_src(GD_SOURCE_PATH, bin));
        toolkit_dlls(s, e, t->path, bin);
    } else {
        gd_fact_absent(e, "bin", "no bin directory", gd_src(GD_SOURCE_PATH, want ? want : id));
    }
    gd_free(want);
    gd_free(bin);
}

/* NVIDIA's cuDNN installer: <path>/vX.Y/bin/<cuda X.Y>/ (windows_cuda: cudnn_dir), and bin
 * itself for older layouts. */
static void cudnn_installer(struct scan *s)
{
    char *dir = NULL;
    enum gd_status st = kb_dir(s, "cudnn_dir", &dir);
    struct gd_names versions;
    if (st != GD_OK || gd_root_list(s->ctx->root, dir, &versions) != GD_OK) {
        gd_free(dir);
        return;
    }
    for (size_t i = 0; i < versions.count && i < DIR_ENTRIES_MAX; i++) {
        struct gd_version v;
        if (!v_name(versions.names[i], &v))
            continue;
        char *top = gd_path_join(dir, versions.names[i]);
        char *bin_want = top ? gd_path_join(top, "bin") : NULL, *bin = NULL;
        st = bin_want ? gd_root_find_nocase(s->ctx->root, bin_want, &bin) : GD_ENOMEM;
        oom(s, st);
        struct gd_names sub;
        for (int pass = 0; st == GD_OK && pass < 2; pass++) {
            /* Pass 0: bin itself; pass 1: its per-CUDA subdirectories. */
            struct gd_names names;
            if (pass == 1 && gd_root_list(s->ctx->root, bin, &sub) != GD_OK)
                break;
            for (size_t k = 0; k < (pass ? sub.count : 1) && k < DIR_ENTRIES_MAX; k++) {
                char *d = pass ? gd_path_join(bin, sub.names[k]) : gd_strdup(bin);
                if (d && is_dir(s, d) && gd_root_list(s->ctx->root, d, &names) == GD_OK) {
                    for (size_t j = 0; j < names.count && j < DIR_ENTRIES_MAX; j++) {
                        struct gd_kb_win_dll info;
                        if (gd_kb_win_dll(s->ctx->kb, names.names[j], &info) == GD_OK &&
                            strcmp(info.family, "cudnn") == 0)
                            record_cudnn(s, d, names.names[j], info.cudnn_major, NULL, v.text, NULL,
                                         &names);
                    }
                    gd_names_free(&names);
                }
                oom(s, d ? GD_OK : GD_ENOMEM);
                gd_free(d);
            }
            if (pass == 1)
                gd_names_free(&sub);
        }
        gd_free(bin);
        gd_free(bin_want);
        gd_free(top);
    }
    gd_names_free(&versions);
    gd_free(dir);
}

void gd_probe_win_cuda(struct gd_probe_ctx *ctx)
{
    struct scan s;
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    s.t = gd_kb_table(ctx->kb, "windows_cuda");
    struct gd_entity *summary = gd_report_add_entity(ctx->report, "cuda_toolkits", "cuda_toolkits");
    if (!s.t) {
        gd_fact_unknown(summary, "count", "the knowledge base has no windows_cuda table",
                        gd_src(GD_SOURCE_KB, "windows_cuda"));
        return;
    }
    from_environment(&s);
    from_installer_dir(&s);
    struct gd_buf versions;
    gd_buf_init(&versions, 4096);
    size_t nversions = 0;
    for (size_t i = 0; i < s.n; i++)
        record_toolkit(&s, &s.items[i], &versions, &nversions);
    cudnn_installer(&s);
    struct gd_source where = gd_src(GD_SOURCE_DERIVED, "CUDA_PATH, CUDA_PATH_V*, the installer's "
                                                       "directory");
    gd_fact_int(summary, "count", (long long)s.n, where);
    if (nversions)
        gd_fact_str(summary, "versions", gd_buf_str(&versions), where);
    else
        gd_fact_absent(summary, "versions", "no CUDA toolkit found", where);
    if (s.dropped)
        gd_fact_int(summary, "dropped", (long long)s.dropped, where);
    oom(&s, gd_buf_status(&versions));
    gd_buf_free(&versions);
    for (size_t i = 0; i < s.n; i++) {
        gd_free(s.items[i].path);
        oom(&s, gd_buf_status(&s.items[i].found_by));
        gd_buf_free(&s.items[i].found_by);
    }
    gd_strlist_free(&s.cudnn_dirs);
}
