/* gd_which_windows: set up the Windows DLL search (src/loader/winload.h) for a root and run one
 * search, or a whole import tree; gd_which_is_windows decides which loader a which asks. */
#include "api/options.h"
#include "api/which_impl.h"
#include "core/alloc.h"
#include "core/env.h"
#include "core/str.h"
#include "probe/probe.h"
#include "sysroot/sysroot.h"

#include <gpudoctor/which.h>
#include <string.h>

static bool ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && gd_str_ieq(s + n - m, suffix);
}

/* Whether the machine asked about is this one and it runs Windows (gpudoctor.exe without
 * --root): only then are this process's environment and current directory a Windows process's.
 * (Not gd_root_is_live, which is true of "/" on Linux too.) */
static bool live_windows(const struct gd_options *opts)
{
    struct gd_os_uname u;
    return !(opts && opts->root) && gd_os_uname(&u) == GD_OK && strcmp(u.sysname, "Windows") == 0;
}

/* `from` as a path inside the root, found without regard to case. */
static enum gd_status find_from(struct gd_root *root, const char *from, char **out)
{
    char *p = NULL;
    enum gd_status st = gd_win_path_in_root(from, NULL, &p);
    if (st == GD_EINVAL) /* relative: as the ELF side takes it, from the root */
        st = gd_win_path_in_root(from, "/", &p);
    if (st == GD_OK)
        st = gd_win_find(root, p, out);
    gd_free(p);
    return st == GD_EINVAL ? GD_ENOENT : st;
}

static enum gd_status read_source(void *ctx, void *buf, size_t n, uint64_t offset, size_t *got)
{
    return gd_os_pread(ctx, buf, n, offset, got);
}

/* GD_OK when the file at `path` (inside the root) is a PE image. */
static enum gd_status is_pe(struct gd_root *root, const char *path)
{
    struct gd_os_file *f = NULL;
    enum gd_status st = gd_root_open(root, path, &f);
    struct gd_os_stat fs = { 0 };
    if (st == GD_OK)
        st = gd_os_file_stat(f, &fs);
    char mz[2] = { 0, 0 };
    size_t got = 0;
    if (st == GD_OK &&
        (gd_os_pread(f, mz, 2, 0, &got) != GD_OK || got != 2 || mz[0] != 'M' || mz[1] != 'Z'))
        st = GD_EFORMAT; /* an ELF, a script: not read further */
    struct gd_pe *pe = NULL;
    if (st == GD_OK) {
        struct gd_pe_source src = { read_source, f, fs.size };
        st = gd_pe_read(&src, &pe);
    }
    if (f)
        gd_os_close(f);
    gd_pe_free(pe);
    return st;
}

bool gd_which_is_windows(const struct gd_options *opts, const char *from)
{
    if (opts && opts->host_os)
        return strcmp(opts->host_os, "windows") == 0;
    struct gd_root *root = NULL;
    if (gd_root_new(opts && opts->root ? opts->root : "/", &root) != GD_OK)
        return false;
    bool yes = live_windows(opts) || gd_root_windows_marker(root) != NULL;
    if (!yes && from) {
        /* The path as given first: an ELF of a Linux tree is told without listing its
         * directories, which the search without regard to case does. */
        yes = is_pe(root, from) == GD_OK;
        char *path = NULL;
        if (!yes && !gd_root_exists(root, from) && find_from(root, from, &path) == GD_OK)
            yes = is_pe(root, path) == GD_OK;
        gd_free(path);
    }
    gd_root_free(root);
    return yes;
}

/* A variable of the inspected environment: --env, else this process's on live Windows. */
static enum gd_status env_value(const struct gd_options *opts, const char *name, char **out)
{
    *out = NULL;
    const char *v = opts && opts->extra ? gd_env_get(opts->extra, name) : NULL;
    struct gd_env *env = NULL;
    if (!v && live_windows(opts) && !(opts && opts->clear_env)) {
        env = gd_env_new();
        if (!env || gd_os_environ(env) != GD_OK) {
            gd_env_free(env);
            return GD_ENOMEM;
        }
        v = gd_env_get(env, name);
    }
    enum gd_status st = v && !(*out = gd_strdup(v)) ? GD_ENOMEM : GD_OK;
    gd_env_free(env);
    return st;
}

/* The application directory: --app, the python.exe that loads a module of a Python
 * environment, an .exe's own directory, else the directory of `from` (said to be a guess). */
static enum gd_status app_dir(struct gd_which *w, const struct gd_which_win *win,
                              const char *from_path)
{
    struct gd_which_winres *r = &w->win;
    if (win && win->app_dir) {
        r->app_source = "given with --app";
        return (r->app_dir = gd_strdup(win->app_dir)) ? GD_OK : GD_ENOMEM;
    }
    if (!from_path) {
        r->app_source = "not known (give --app)";
        return GD_OK;
    }
    const char *slash = strrchr(from_path, '/');
    char *dir = slash && slash != from_path ? gd_strndup(from_path, (size_t)(slash - from_path))
                                            : gd_strdup("/");
    if (!dir)
        return GD_ENOMEM;
    if (ends_with_ci(from_path, ".exe")) {
        r->app_source = "the directory of the program";
        r->app_dir = dir;
        return GD_OK;
    }
    enum gd_status st = gd_win_python_app_dir(w->root, from_path, &r->app_dir);
    if (st == GD_OK) {
        r->app_source = "the Python that loads it: python.exe's directory, or a venv's home";
        gd_free(dir);
        return GD_OK;
    }
    if (st == GD_ENOMEM) {
        gd_free(dir);
        return st;
    }
    r->app_source = "assumed: the directory of the file (give --app)";
    r->app_dir = dir;
    return GD_OK;
}

static enum gd_status new_load(struct gd_which *w, enum gd_win_mode mode, bool tries,
                               struct gd_winload **out)
{
    struct gd_which_winres *r = &w->win;
    struct gd_winload_options o = { 0 };
    o.mode = mode;
    o.path_env = r->path_env;
    o.cwd = r->cwd;
    o.app_dir = r->app_dir;
    o.windows_dir = r->windows_dir;
    o.dll_dirs = (const char *const *)r->dll_dirs.items;
    o.ndll_dirs = r->dll_dirs.count;
    o.record_tries = tries;
    return gd_winload_new(w->root, &o, 0, out);
}

/* Where the standard order (what LoadLibrary, and Python before 3.8, searched) finds `name`,
 * for a name the extension order misses. */
static enum gd_status elsewhere(struct gd_which *w, const char *from_path, const char *name)
{
    struct gd_which_winres *r = &w->win;
    struct gd_winload *L = NULL;
    enum gd_status st = new_load(w, GD_WIN_STANDARD, false, &L);
    struct gd_win_object *from = NULL;
    struct gd_win_edge *e = NULL;
    if (st == GD_OK && from_path)
        st = gd_winload_module(L, from_path, false, &from);
    if (st == GD_OK)
        st = gd_winload_resolve(L, from, name, false, &e);
    if (st == GD_OK && e->to && e->rule != GD_WIN_RULE_LOADED) {
        r->elsewhere_rule = e->rule;
        const struct gd_win_dir *dirs = NULL;
        size_t n = gd_winload_dirs(L, e->to->request, &dirs);
        for (size_t i = 0; i < n && !r->elsewhere_given; i++)
            if (dirs[i].dir && e->dir && strcmp(dirs[i].dir, e->dir) == 0 && dirs[i].as_given &&
                !(r->elsewhere_given = gd_strdup(dirs[i].as_given)))
                st = GD_ENOMEM;
        if (!(r->elsewhere_path = gd_strdup(e->to->path)) ||
            !(r->elsewhere_dir = gd_strdup(e->dir ? e->dir : e->to->dir)))
            st = GD_ENOMEM;
    }
    gd_winload_free(L);
    return st;
}

/* Tree mode: where the standard order finds each name the extension order misses. */
static enum gd_status elsewhere_all(struct gd_which *w, const char *from_path)
{
    struct gd_which_winres *r = &w->win;
    size_t n = gd_winload_missing_count(r->load);
    if (n == 0)
        return GD_OK;
    if (!(r->missing_elsewhere = gd_calloc(n, sizeof *r->missing_elsewhere)))
        return GD_ENOMEM;
    r->nmissing_elsewhere = n;
    struct gd_winload *L = NULL;
    enum gd_status st = new_load(w, GD_WIN_STANDARD, false, &L);
    struct gd_win_object *from = NULL;
    if (st == GD_OK)
        st = gd_winload_module(L, from_path, false, &from);
    for (size_t i = 0; i < n && st == GD_OK; i++) {
        struct gd_win_edge *e = NULL;
        st = gd_winload_resolve(L, from, gd_winload_missing_at(r->load, i)->name, false, &e);
        if (st == GD_OK && e->to && e->rule != GD_WIN_RULE_LOADED &&
            !(r->missing_elsewhere[i] = gd_strdup(e->to->path)))
            st = GD_ENOMEM;
    }
    gd_winload_free(L);
    return st;
}

enum gd_status gd_which_windows(const struct gd_options *opts, const char *name, const char *from,
                                const struct gd_which_win *win, struct gd_which **out)
{
    *out = NULL;
    if ((!name || !*name) && (!from || !*from))
        return GD_EINVAL;
    struct gd_which *w = gd_calloc(1, sizeof *w);
    if (!w)
        return GD_ENOMEM;
    w->windows = true;
    w->tree = !name || !*name;
    struct gd_which_winres *r = &w->win;
    char *from_path = NULL;
    enum gd_status st = gd_root_new(opts && opts->root ? opts->root : "/", &w->root);
    if (st == GD_OK && !(w->root_dir = gd_strdup(gd_root_dir(w->root))))
        st = GD_ENOMEM;
    if (st == GD_OK &&
        ((name && !(w->name = gd_strdup(name))) || (from && !(w->from = gd_strdup(from)))))
        st = GD_ENOMEM;
    if (st == GD_OK)
        st = env_value(opts, "PATH", &r->path_env);
    if (st == GD_OK)
        st = env_value(opts, "SystemRoot", &r->windows_dir);
    if (st == GD_OK && win && win->cwd && !(r->cwd = gd_strdup(win->cwd)))
        st = GD_ENOMEM;
    if (st == GD_OK && !r->cwd && live_windows(opts) && gd_os_getcwd(&r->cwd) == GD_ENOMEM)
        st = GD_ENOMEM;
    for (size_t i = 0; st == GD_OK && win && i < win->ndll_dirs; i++)
        st = gd_strlist_push(&r->dll_dirs, win->dll_dirs[i]);
    if (st == GD_OK && from)
        st = find_from(w->root, from, &from_path);
    if (st == GD_OK)
        st = app_dir(w, win, from_path);
    enum gd_win_mode mode = GD_WIN_STANDARD;
    if (win && win->mode == GD_WHICH_WIN_EXTENSION)
        mode = GD_WIN_EXTENSION;
    else if ((!win || win->mode == GD_WHICH_WIN_AUTO) && from_path &&
             ends_with_ci(from_path, ".pyd"))
        mode = GD_WIN_EXTENSION;
    if (st == GD_OK)
        st = new_load(w, mode, !w->tree, &r->load);
    if (st == GD_OK && from_path)
        st = gd_winload_module(r->load, from_path, w->tree, &r->from);
    struct gd_win_edge *edge = NULL;
    if (st == GD_OK && !w->tree)
        st = gd_winload_resolve(r->load, r->from, name, false, &edge);
    r->edge = edge;
    if (st == GD_OK && edge && !edge->to && edge->rule != GD_WIN_RULE_API_SET &&
        mode == GD_WIN_EXTENSION)
        st = elsewhere(w, from_path, edge->name);
    if (st == GD_OK && w->tree && mode == GD_WIN_EXTENSION)
        st = elsewhere_all(w, from_path);
    if (st == GD_OK && gd_root_out_of_memory(w->root))
        st = GD_ENOMEM; /* a lookup of the tree failed for want of memory: not an answer */
    gd_free(from_path);
    if (st != GD_OK) {
        gd_which_free(w);
        return st;
    }
    *out = w;
    return GD_OK;
}
