/* The Windows DLL search (winload.h): sources and the order are at the top of the header. */
#include "loader/winload.h"

#include "core/alloc.h"
#include "core/arena.h"
#include "core/buf.h"
#include "core/hash.h"
#include "core/str.h"
#include "parse/pyvenv.h"
#include "sysroot/nocase.h"
#include "sysroot/sysroot.h"

#include <stdio.h>
#include <string.h>

/* More modules than any process loads: a hostile tree stops here. */
#define MAX_OBJECTS 4096
/* Ancestors looked at for a Python's python.exe. */
#define MAX_UP 32

const char *gd_win_mode_name(enum gd_win_mode mode)
{
    return mode == GD_WIN_EXTENSION ? "extension" : "standard";
}

const char *gd_win_rule_name(enum gd_win_rule rule)
{
    switch (rule) {
    case GD_WIN_RULE_MAIN:
        return "loaded by path";
    case GD_WIN_RULE_LOADED:
        return "already loaded";
    case GD_WIN_RULE_API_SET:
        return "API set";
    case GD_WIN_RULE_PATH:
        return "path";
    case GD_WIN_RULE_DLL_DIR:
        return "DLL's directory";
    case GD_WIN_RULE_APP_DIR:
        return "application directory";
    case GD_WIN_RULE_USER_DIR:
        return "AddDllDirectory";
    case GD_WIN_RULE_SYSTEM32:
        return "System32";
    case GD_WIN_RULE_SYSTEM16:
        return "16-bit system directory";
    case GD_WIN_RULE_WINDOWS:
        return "Windows directory";
    case GD_WIN_RULE_CWD:
        return "current directory";
    case GD_WIN_RULE_PATH_ENV:
        return "PATH";
    case GD_WIN_RULE_NOT_FOUND:
        return "not found";
    }
    return "?";
}

const char *gd_win_verdict_name(enum gd_win_verdict v)
{
    switch (v) {
    case GD_WIN_TRY_ACCEPTED:
        return "found";
    case GD_WIN_TRY_NO_FILE:
        return "not there";
    case GD_WIN_TRY_WRONG_MACHINE:
        return "wrong machine";
    case GD_WIN_TRY_NOT_PE:
        return "not a PE image";
    case GD_WIN_TRY_UNREADABLE:
        return "unreadable";
    }
    return "?";
}

/* ---- Windows paths --------------------------------------------------------------------------- */

static bool is_sep(char c)
{
    return c == '/' || c == '\\';
}

enum gd_status gd_win_path_in_root(const char *win, const char *cwd, char **out)
{
    *out = NULL;
    if (!win || !*win)
        return GD_EINVAL;
    /* "\\?\C:\x" is a Win32 path with the parsing switched off; "\\.\" and "\\server\share"
     * are devices and network shares, outside any tree. */
    if (is_sep(win[0]) && is_sep(win[1])) {
        if (win[2] == '?' && is_sep(win[3]))
            win += 4;
        else
            return GD_EINVAL;
    }
    bool absolute = false;
    if (gd_is_alpha(win[0]) && win[1] == ':') {
        win += 2;
        absolute = is_sep(win[0]); /* "C:x" counts from the drive's current directory */
    } else if (is_sep(win[0])) {
        absolute = true;
    }
    if (!absolute && !cwd)
        return GD_EINVAL;
    struct gd_buf b;
    gd_buf_init(&b, GD_ROOT_PATH_MAX * 2);
    if (!absolute) {
        gd_buf_puts(&b, cwd);
        while (b.len && b.data && b.data[b.len - 1] == '/')
            b.data[--b.len] = '\0';
    }
    /* Components one by one: "." dropped, ".." climbs (never above the root), empty ones
     * (doubled separators) dropped, as Windows' path normalisation does. */
    const char *p = win;
    while (*p) {
        while (is_sep(*p))
            p++;
        size_t n = 0;
        while (p[n] && !is_sep(p[n]))
            n++;
        if (n == 0)
            break;
        if (n == 1 && p[0] == '.') {
            /* nothing */
        } else if (n == 2 && p[0] == '.' && p[1] == '.') {
            const char *s = gd_buf_str(&b);
            const char *slash = strrchr(s, '/');
            b.len = slash ? (size_t)(slash - s) : 0;
            if (b.data)
                b.data[b.len] = '\0';
        } else {
            gd_buf_putc(&b, '/');
            gd_buf_add(&b, p, n);
        }
        p += n;
    }
    if (b.len == 0)
        gd_buf_putc(&b, '/');
    /* Past the buffer's cap (a path longer than any tree holds) is not a path of it. */
    enum gd_status st = gd_buf_take(&b, out, NULL);
    return st == GD_ENOMEM ? GD_ENOMEM : st != GD_OK ? GD_EINVAL : GD_OK;
}

/* ---- names without regard to case ------------------------------------------------------------ */

static int ci_cmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned char x = (unsigned char)gd_to_lower(*a), y = (unsigned char)gd_to_lower(*b);
        if (x != y || !x)
            return x - y;
    }
}

static char *lower_dup(const char *s)
{
    char *out = gd_strdup(s);
    for (char *p = out; p && *p; p++)
        *p = gd_to_lower(*p);
    return out;
}

/* Directories met by one load or one lookup: the requested spelling (lower case) to the tree's
 * spelling. Names are found as Windows finds them by sysroot/nocase.h (which keeps the listings
 * it needs in the root): on a case-sensitive tree by listing the directory, on Windows by asking
 * the file system for the stored name. */
struct dircache {
    struct gd_root *root;
    struct {
        char *key;    /* requested path, lower case */
        char *actual; /* the tree's spelling, NULL when there is no such directory */
        uint64_t hash;
    } * resolved;
    size_t nresolved, cap_resolved;
    bool oom;
};

static void dircache_free(struct dircache *c)
{
    for (size_t i = 0; i < c->nresolved; i++) {
        gd_free(c->resolved[i].key);
        gd_free(c->resolved[i].actual);
    }
    gd_free(c->resolved);
    memset(c, 0, sizeof *c);
}

/* `path` as the tree spells it (new memory), or NULL: not there, or out of memory (`c->oom`). */
static char *find_nocase(struct dircache *c, const char *path)
{
    char *actual = NULL;
    enum gd_status st = gd_root_find_nocase(c->root, path, &actual);
    if (st == GD_ENOMEM)
        c->oom = true;
    return st == GD_OK ? actual : NULL;
}

/* The tree's spelling of directory `path` (inside the root, '/' separated), or NULL. Borrowed
 * from the cache. */
static const char *resolve_dir(struct dircache *c, const char *path)
{
    char *key = lower_dup(path);
    if (!key) {
        c->oom = true;
        return NULL;
    }
    uint64_t h = gd_hash_str(key);
    for (size_t i = 0; i < c->nresolved; i++)
        if (c->resolved[i].hash == h && strcmp(c->resolved[i].key, key) == 0) {
            gd_free(key);
            return c->resolved[i].actual;
        }
    char *actual = find_nocase(c, path);
    if (actual && !gd_root_is_dir(c->root, actual)) {
        gd_free(actual);
        actual = NULL;
    }
    if (c->oom ||
        gd_grow((void **)&c->resolved, &c->cap_resolved, c->nresolved + 1, sizeof *c->resolved)) {
        c->oom = true;
        gd_free(key);
        gd_free(actual);
        return NULL;
    }
    c->resolved[c->nresolved].key = key;
    c->resolved[c->nresolved].actual = actual;
    c->resolved[c->nresolved].hash = h;
    return c->resolved[c->nresolved++].actual;
}

/* The tree's spelling of `name` in directory `dir` (already the tree's spelling): new memory,
 * or NULL (`c->oom` says whether for want of memory). */
static char *file_in(struct dircache *c, const char *dir, const char *name)
{
    char *path = gd_path_join(dir, name);
    if (!path) {
        c->oom = true;
        return NULL;
    }
    char *actual = find_nocase(c, path);
    gd_free(path);
    return actual;
}

/* gd_win_find with the directories `c` remembers. */
static enum gd_status find_in(struct dircache *c, const char *path, char **out)
{
    *out = NULL;
    const char *slash = strrchr(path, '/');
    enum gd_status st = GD_ENOENT;
    if (!slash || !slash[1]) {
        const char *d = resolve_dir(c, slash ? path : "/");
        if (d)
            st = (*out = gd_strdup(d)) ? GD_OK : GD_ENOMEM;
    } else {
        char *dir = slash == path ? gd_strdup("/") : gd_strndup(path, (size_t)(slash - path));
        const char *d = dir ? resolve_dir(c, dir) : NULL;
        if (!dir)
            c->oom = true;
        if (d && (*out = file_in(c, d, slash + 1)) != NULL)
            st = GD_OK;
        gd_free(dir);
    }
    /* A lookup of the tree that failed for want of memory reads as "no such file". */
    if (c->oom || gd_root_out_of_memory(c->root)) {
        gd_free(*out);
        *out = NULL;
        st = GD_ENOMEM;
    }
    return st;
}

enum gd_status gd_win_find(struct gd_root *root, const char *path, char **out)
{
    struct dircache c;
    memset(&c, 0, sizeof c);
    c.root = root;
    enum gd_status st = find_in(&c, path, out);
    dircache_free(&c);
    return st;
}

/* ---- the Python that loads a module ---------------------------------------------------------- */

enum gd_status gd_win_python_app_dir(struct gd_root *root, const char *path, char **out)
{
    return gd_win_python_dirs(root, path, NULL, out);
}

enum gd_status gd_win_python_dirs(struct gd_root *root, const char *path, char **prefix, char **out)
{
    *out = NULL;
    if (prefix)
        *prefix = NULL;
    char *dir = gd_strdup(path);
    if (!dir)
        return GD_ENOMEM;
    enum gd_status st = GD_ENOENT;
    for (int up = 0; up < MAX_UP && st == GD_ENOENT; up++) {
        char *slash = strrchr(dir, '/');
        if (!slash)
            break;
        if (up > 0 || !gd_root_is_dir(root, dir)) {
            if (slash == dir) { /* the root itself, last */
                if (dir[1] == '\0')
                    break;
                dir[1] = '\0';
            } else {
                *slash = '\0';
            }
        }
        char *exe = gd_path_join(dir, "python.exe"), *found = NULL;
        st = exe ? gd_win_find(root, exe, &found) : GD_ENOMEM;
        gd_free(exe);
        if (st == GD_OK) {
            gd_free(found);
            st = (*out = gd_strdup(dir)) ? GD_OK : GD_ENOMEM;
            if (st == GD_OK && prefix && !(*prefix = gd_strdup(dir)))
                st = GD_ENOMEM;
            break;
        }
        if (st != GD_ENOENT)
            break;
        char *cfg = gd_path_join(dir, "pyvenv.cfg");
        st = cfg ? gd_win_find(root, cfg, &found) : GD_ENOMEM;
        gd_free(cfg);
        if (st == GD_OK) {
            char *data = NULL;
            size_t len = 0;
            enum gd_status r = gd_root_read_file(root, found, 64 * 1024, &data, &len);
            gd_free(found);
            st = r == GD_ENOMEM ? GD_ENOMEM : GD_ENOENT;
            if (r == GD_OK) {
                struct gd_pyvenv_cfg *pc = gd_calloc(1, sizeof *pc);
                if (!pc) {
                    st = GD_ENOMEM;
                } else {
                    gd_parse_pyvenv_cfg(data, len, pc);
                    /* `home` is a Windows path of the base interpreter's directory. */
                    if (pc->home[0]) {
                        st = gd_win_path_in_root(pc->home, NULL, out);
                        if (st == GD_EINVAL)
                            st = GD_ENOENT;
                    }
                    gd_free(pc);
                }
            }
            gd_free(data);
            if (st == GD_OK && prefix && !(*prefix = gd_strdup(dir)))
                st = GD_ENOMEM;
            /* A venv whose home is unusable: the venv's directory says no more. */
            break;
        }
        if (st != GD_ENOENT)
            break;
        if (strcmp(dir, "/") == 0)
            break;
    }
    gd_free(dir);
    if (st != GD_OK) {
        gd_free(*out);
        *out = NULL;
        if (prefix) {
            gd_free(*prefix);
            *prefix = NULL;
        }
    }
    return st;
}

/* ---- the load -------------------------------------------------------------------------------- */

struct request {
    struct gd_win_dir *dirs;
    size_t ndirs;
    const char *dll_dir; /* extension order: the loaded DLL's directory */
};

struct gd_winload {
    struct gd_root *root;
    struct gd_winload_options opts;
    struct gd_arena *arena; /* every string of the load */
    uint16_t machine;
    struct dircache cache;
    const char *windows;  /* the Windows directory as given, inside the root */
    const char *cwd;      /* the current directory inside the root, or NULL */
    const char *system32; /* System32 or SysWOW64, NULL until the machine is known */
    struct request *reqs;
    size_t nreqs, cap_reqs;
    struct gd_win_object **objects; /* load order */
    size_t nobjects, cap_objects;
    struct gd_win_edge **missing;
    size_t nmissing, cap_missing;
    struct gd_win_edge **roots; /* edges made by gd_winload_resolve */
    size_t nroots, cap_roots;
    bool oom;
};

static const char *keep(struct gd_winload *L, const char *s)
{
    const char *copy = s ? gd_arena_strdup(L->arena, s) : NULL;
    if (s && !copy)
        L->oom = true;
    return copy;
}

enum gd_status gd_winload_new(struct gd_root *root, const struct gd_winload_options *options,
                              uint16_t machine, struct gd_winload **out)
{
    *out = NULL;
    struct gd_winload *L = gd_calloc(1, sizeof *L);
    if (!L)
        return GD_ENOMEM;
    L->root = root;
    L->cache.root = root;
    L->machine = machine;
    if (options)
        L->opts = *options;
    L->opts.dll_dirs = NULL;
    L->opts.ndll_dirs = 0;
    if (!(L->arena = gd_arena_new())) {
        gd_free(L);
        return GD_ENOMEM;
    }
    /* Copies of every string, so the caller's may go. */
    L->opts.path_env = keep(L, options ? options->path_env : NULL);
    L->opts.cwd = keep(L, options ? options->cwd : NULL);
    L->opts.app_dir = keep(L, options ? options->app_dir : NULL);
    L->opts.windows_dir = keep(L, options ? options->windows_dir : NULL);
    if (options && options->ndll_dirs) {
        const char **dirs = gd_arena_alloc(L->arena, options->ndll_dirs * sizeof *dirs);
        if (!dirs)
            L->oom = true;
        for (size_t i = 0; dirs && i < options->ndll_dirs; i++)
            dirs[i] = keep(L, options->dll_dirs[i]);
        L->opts.dll_dirs = dirs;
        L->opts.ndll_dirs = dirs ? options->ndll_dirs : 0;
    }
    char *windows = NULL, *cwd = NULL;
    enum gd_status st =
        gd_win_path_in_root(L->opts.windows_dir ? L->opts.windows_dir : "/Windows", NULL, &windows);
    if (st == GD_ENOMEM)
        L->oom = true;
    L->windows = windows ? keep(L, windows) : NULL;
    gd_free(windows);
    /* A relative current directory means nothing: only an absolute one is used. */
    st = L->opts.cwd ? gd_win_path_in_root(L->opts.cwd, NULL, &cwd) : GD_OK;
    if (st == GD_ENOMEM)
        L->oom = true;
    L->cwd = cwd ? keep(L, cwd) : NULL;
    gd_free(cwd);
    if (L->oom) {
        gd_winload_free(L);
        return GD_ENOMEM;
    }
    *out = L;
    return GD_OK;
}

static void free_edge(struct gd_win_edge *e)
{
    gd_free(e->error);
    for (size_t i = 0; i < e->ntries; i++)
        gd_free(e->tries[i].path);
    gd_free(e->tries);
}

void gd_winload_free(struct gd_winload *L)
{
    if (!L)
        return;
    for (size_t i = 0; i < L->nobjects; i++) {
        struct gd_win_object *o = L->objects[i];
        gd_pe_free(o->pe);
        for (size_t k = 0; k < o->ndeps; k++)
            free_edge(&o->deps[k]);
        gd_free(o->deps);
        gd_free(o);
    }
    gd_free(L->objects);
    for (size_t i = 0; i < L->nmissing; i++) {
        free_edge(L->missing[i]);
        gd_free(L->missing[i]);
    }
    gd_free(L->missing);
    for (size_t i = 0; i < L->nroots; i++) {
        free_edge(L->roots[i]);
        gd_free(L->roots[i]);
    }
    gd_free(L->roots);
    for (size_t i = 0; i < L->nreqs; i++)
        gd_free(L->reqs[i].dirs);
    gd_free(L->reqs);
    dircache_free(&L->cache);
    gd_arena_free(L->arena);
    gd_free(L);
}

enum gd_win_mode gd_winload_mode(const struct gd_winload *L)
{
    return L->opts.mode;
}

uint16_t gd_winload_machine(const struct gd_winload *L)
{
    return L->machine;
}

size_t gd_winload_count(const struct gd_winload *L)
{
    return L->nobjects;
}

struct gd_win_object *gd_winload_at(const struct gd_winload *L, size_t i)
{
    return i < L->nobjects ? L->objects[i] : NULL;
}

size_t gd_winload_missing_count(const struct gd_winload *L)
{
    return L->nmissing;
}

const struct gd_win_edge *gd_winload_missing_at(const struct gd_winload *L, size_t i)
{
    return i < L->nmissing ? L->missing[i] : NULL;
}

/* ---- the search directories of a request ----------------------------------------------------- */

/* System32, or SysWOW64 for a 32-bit x86 process when the tree has one ("File System
 * Redirector": WOW64 redirects a 32-bit process's System32 there). */
static const char *system32(struct gd_winload *L)
{
    if (L->system32 || !L->windows)
        return L->system32;
    const char *name = "System32";
    if (L->machine == GD_PE_MACHINE_I386) {
        char *wow = gd_path_join(L->windows, "SysWOW64");
        if (!wow)
            L->oom = true;
        else if (resolve_dir(&L->cache, wow))
            name = "SysWOW64";
        gd_free(wow);
    }
    char *p = gd_path_join(L->windows, name);
    L->system32 = p ? keep(L, p) : NULL;
    if (!p)
        L->oom = true;
    gd_free(p);
    return L->system32;
}

static void add_dir(struct gd_winload *L, struct request *r, const char *dir, const char *as_given,
                    enum gd_win_rule rule, const char *why)
{
    size_t cap = r->ndirs; /* grown one at a time: a request has a few dozen */
    struct gd_win_dir *dirs = gd_realloc(r->dirs, (cap + 1) * sizeof *dirs);
    if (!dirs) {
        L->oom = true;
        return;
    }
    r->dirs = dirs;
    /* Shown and searched as the tree spells it, when it is there. */
    const char *actual = dir ? resolve_dir(&L->cache, dir) : NULL;
    if (L->cache.oom)
        L->oom = true;
    r->dirs[r->ndirs++] =
        (struct gd_win_dir){ keep(L, actual ? actual : dir), keep(L, as_given), rule, why };
}

/* A directory given in Windows spelling, placed in the root. */
static void add_given(struct gd_winload *L, struct request *r, const char *given,
                      enum gd_win_rule rule)
{
    char *dir = NULL;
    enum gd_status st = gd_win_path_in_root(given, L->cwd, &dir);
    if (st == GD_ENOMEM) {
        L->oom = true;
        return;
    }
    const char *why = NULL;
    if (!dir)
        why = is_sep(given[0]) && is_sep(given[1]) ? "a network or device path: not in this tree"
                                                   : "relative, and the current directory is "
                                                     "not known";
    add_dir(L, r, dir, given, rule, why);
    gd_free(dir);
}

static void add_path_env(struct gd_winload *L, struct request *r)
{
    const char *p = L->opts.path_env;
    while (p && *p && !L->oom) {
        size_t n = strcspn(p, ";");
        if (n > 0 && n <= GD_ROOT_PATH_MAX) {
            char *entry = gd_strndup(p, n);
            if (!entry)
                L->oom = true;
            /* A PATH entry may be quoted ("C:\Program Files\x"): the quotes are not part of it. */
            else if (n >= 2 && entry[0] == '"' && entry[n - 1] == '"') {
                memmove(entry, entry + 1, n - 2);
                entry[n - 2] = '\0';
            }
            if (entry && entry[0])
                add_given(L, r, entry, GD_WIN_RULE_PATH_ENV);
            gd_free(entry);
        }
        p += n;
        if (*p == ';')
            p++;
    }
}

static size_t new_request(struct gd_winload *L, const char *dll_dir)
{
    if (gd_grow((void **)&L->reqs, &L->cap_reqs, L->nreqs + 1, sizeof *L->reqs) != 0) {
        L->oom = true;
        return 0;
    }
    struct request *r = &L->reqs[L->nreqs];
    memset(r, 0, sizeof *r);
    size_t index = L->nreqs++; /* freed with the load, even when it is not complete */
    r->dll_dir = dll_dir;
    const char *app = L->opts.app_dir;
    const char *unknown = "not known (give --app)";
    if (L->opts.mode == GD_WIN_EXTENSION) {
        if (dll_dir)
            add_dir(L, r, dll_dir, NULL, GD_WIN_RULE_DLL_DIR, NULL);
        if (app)
            add_given(L, r, app, GD_WIN_RULE_APP_DIR);
        else
            add_dir(L, r, NULL, NULL, GD_WIN_RULE_APP_DIR, unknown);
        for (size_t i = 0; i < L->opts.ndll_dirs; i++)
            add_given(L, r, L->opts.dll_dirs[i], GD_WIN_RULE_USER_DIR);
        add_dir(L, r, system32(L), NULL, GD_WIN_RULE_SYSTEM32, NULL);
    } else {
        if (app)
            add_given(L, r, app, GD_WIN_RULE_APP_DIR);
        else
            add_dir(L, r, NULL, NULL, GD_WIN_RULE_APP_DIR, unknown);
        add_dir(L, r, system32(L), NULL, GD_WIN_RULE_SYSTEM32, NULL);
        char *sys16 = L->windows ? gd_path_join(L->windows, "System") : NULL;
        if (L->windows && !sys16)
            L->oom = true;
        add_dir(L, r, sys16, NULL, GD_WIN_RULE_SYSTEM16, NULL);
        gd_free(sys16);
        add_dir(L, r, L->windows, NULL, GD_WIN_RULE_WINDOWS, NULL);
        if (L->cwd)
            add_given(L, r, L->cwd, GD_WIN_RULE_CWD);
        else
            add_dir(L, r, NULL, NULL, GD_WIN_RULE_CWD, "not known (give --cwd)");
        if (L->opts.path_env)
            add_path_env(L, r);
    }
    return index;
}

size_t gd_winload_dirs(struct gd_winload *L, size_t request, const struct gd_win_dir **out)
{
    if (request >= L->nreqs) {
        *out = NULL;
        return 0;
    }
    *out = L->reqs[request].dirs;
    return L->reqs[request].ndirs;
}

/* ---- modules --------------------------------------------------------------------------------- */

static enum gd_status read_source(void *ctx, void *buf, size_t n, uint64_t offset, size_t *got)
{
    return gd_os_pread(ctx, buf, n, offset, got);
}

/* Open `path` (the tree's spelling) and judge it as the loader does. On GD_WIN_TRY_ACCEPTED
 * `*pe` is new. `*error` (new) says why the loader stops, for GD_WIN_TRY_NOT_PE. */
static enum gd_win_verdict verify(struct gd_winload *L, const char *path, struct gd_pe **pe,
                                  char **error)
{
    *pe = NULL;
    *error = NULL;
    struct gd_os_file *f = NULL;
    enum gd_status st = gd_root_open(L->root, path, &f);
    if (st == GD_ENOENT || st == GD_ENOTDIR)
        return GD_WIN_TRY_NO_FILE;
    if (st == GD_ENOMEM) {
        L->oom = true;
        return GD_WIN_TRY_UNREADABLE;
    }
    if (st == GD_ENOTREG) {
        if (!(*error = gd_strdup("not a regular file")))
            L->oom = true;
        return GD_WIN_TRY_NOT_PE;
    }
    if (st != GD_OK)
        return GD_WIN_TRY_UNREADABLE;
    struct gd_os_stat fs = { 0 };
    st = gd_os_file_stat(f, &fs);
    if (st == GD_OK) {
        struct gd_pe_source src = { read_source, f, fs.size };
        st = gd_pe_read(&src, pe);
    }
    gd_os_close(f);
    if (st == GD_ENOMEM) {
        L->oom = true;
        return GD_WIN_TRY_UNREADABLE;
    }
    if (st == GD_EIO)
        return GD_WIN_TRY_UNREADABLE;
    if (st != GD_OK) {
        /* ERROR_BAD_EXE_FORMAT's text, as LoadLibrary reports it. */
        if (!(*error = gd_strdup("not a valid Win32 application (not a PE image)")))
            L->oom = true;
        return GD_WIN_TRY_NOT_PE;
    }
    if (!L->machine)
        L->machine = (*pe)->machine;
    if ((*pe)->machine != L->machine) {
        gd_pe_free(*pe);
        *pe = NULL;
        return GD_WIN_TRY_WRONG_MACHINE;
    }
    return GD_WIN_TRY_ACCEPTED;
}

static const char *dir_of(struct gd_winload *L, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *d = slash == path ? gd_arena_strdup(L->arena, "/")
                    : slash       ? gd_arena_strndup(L->arena, path, (size_t)(slash - path))
                                  : gd_arena_strdup(L->arena, ".");
    if (!d)
        L->oom = true;
    return d;
}

static struct gd_win_object *add_object(struct gd_winload *L, const char *name, const char *path,
                                        struct gd_pe *pe, const struct gd_win_object *loader,
                                        size_t request)
{
    if (L->nobjects >= MAX_OBJECTS ||
        gd_grow((void **)&L->objects, &L->cap_objects, L->nobjects + 1, sizeof *L->objects)) {
        if (L->nobjects < MAX_OBJECTS)
            L->oom = true;
        return NULL;
    }
    struct gd_win_object *o = gd_calloc(1, sizeof *o);
    if (!o) {
        L->oom = true;
        return NULL;
    }
    o->name = keep(L, name);
    o->path = keep(L, path);
    o->dir = dir_of(L, path);
    if (L->oom) {
        gd_free(o);
        return NULL;
    }
    o->pe = pe;
    o->loader = loader;
    o->request = request;
    o->index = L->nobjects;
    L->objects[L->nobjects++] = o;
    return o;
}

/* The loaded module of that base name ("KERNEL32.dll" is "kernel32.dll"). */
static struct gd_win_object *loaded(const struct gd_winload *L, const char *name)
{
    const char *base = name;
    for (const char *p = name; *p; p++)
        if (is_sep(*p))
            base = p + 1;
    for (size_t i = 0; i < L->nobjects; i++)
        if (ci_cmp(gd_path_base(L->objects[i]->path), base) == 0)
            return L->objects[i];
    return NULL;
}

static bool ci_prefix(const char *s, const char *prefix)
{
    for (; *prefix; s++, prefix++)
        if (gd_to_lower(*s) != *prefix)
            return false;
    return true;
}

/* "API set contract names" begin with "api-" or "ext-" (wine's loader tests the same). */
static bool is_api_set(const char *name)
{
    return ci_prefix(name, "api-") || ci_prefix(name, "ext-");
}

static bool has_path(const char *name)
{
    return strchr(name, '/') || strchr(name, '\\') || (gd_is_alpha(name[0]) && name[1] == ':');
}

/* ---- the search ------------------------------------------------------------------------------ */

struct search {
    struct gd_winload *L;
    struct gd_win_edge *edge;
    const struct gd_win_object *from;
    size_t request;
    struct gd_win_object *found;
    bool stop;
    bool wrong_machine; /* a candidate of another machine was skipped */
};

static void note_try(struct search *s, const char *path, enum gd_win_rule rule,
                     enum gd_win_verdict v)
{
    struct gd_win_edge *e = s->edge;
    if (!s->L->opts.record_tries)
        return;
    char *copy = gd_strdup(path);
    if (!copy || gd_grow((void **)&e->tries, &e->cap_tries, e->ntries + 1, sizeof *e->tries)) {
        gd_free(copy);
        s->L->oom = true;
        return;
    }
    e->tries[e->ntries++] = (struct gd_win_try){ copy, rule, v };
}

/* Try the file at `path` (the tree's spelling, or the asked one when nothing is there). */
static void candidate(struct search *s, const char *dir, const char *path, enum gd_win_rule rule)
{
    struct gd_winload *L = s->L;
    struct gd_pe *pe = NULL;
    char *error = NULL;
    enum gd_win_verdict v = verify(L, path, &pe, &error);
    note_try(s, path, rule, v);
    if (v == GD_WIN_TRY_WRONG_MACHINE)
        s->wrong_machine = true;
    if (v == GD_WIN_TRY_NOT_PE) {
        char text[GD_ROOT_PATH_MAX + 128];
        snprintf(text, sizeof text, "%s: %s", path, error ? error : "");
        gd_free(s->edge->error);
        if (!(s->edge->error = gd_strdup(text)))
            L->oom = true;
        s->edge->dir = keep(L, dir);
        s->edge->rule = rule;
        s->stop = true;
    }
    gd_free(error);
    if (v != GD_WIN_TRY_ACCEPTED || L->oom) {
        gd_pe_free(pe);
        return;
    }
    struct gd_win_object *o = add_object(L, s->edge->name, path, pe, s->from, s->request);
    if (!o) {
        gd_pe_free(pe);
        s->stop = true;
        return;
    }
    o->found_by = rule;
    o->found_dir = keep(L, dir);
    s->edge->dir = o->found_dir;
    s->edge->rule = rule;
    s->found = o;
    s->stop = true;
}

static void search_dir(struct search *s, const struct gd_win_dir *d)
{
    struct gd_winload *L = s->L;
    const char *actual = resolve_dir(&L->cache, d->dir);
    char *file = actual ? file_in(&L->cache, actual, s->edge->name) : NULL;
    if (L->cache.oom) {
        L->oom = true;
        gd_free(file);
        return;
    }
    if (!file) {
        /* Nothing of that name, in any case: recorded as asked. */
        char *asked = gd_path_join(actual ? actual : d->dir, s->edge->name);
        if (!asked)
            L->oom = true;
        else
            note_try(s, asked, d->rule, GD_WIN_TRY_NO_FILE);
        gd_free(asked);
        return;
    }
    candidate(s, actual, file, d->rule);
    gd_free(file);
}

static void run_search(struct search *s)
{
    struct gd_winload *L = s->L;
    const char *name = s->edge->name;
    if (has_path(name)) {
        char *p = NULL, *actual = NULL;
        enum gd_status st = gd_win_path_in_root(name, L->cwd, &p);
        if (st == GD_OK)
            st = find_in(&L->cache, p, &actual);
        if (st == GD_ENOMEM) {
            L->oom = true;
        } else if (actual) {
            for (size_t i = 0; i < L->nobjects; i++) {
                if (ci_cmp(L->objects[i]->path, actual) == 0) {
                    /* The module loaded from that file already. */
                    s->found = L->objects[i];
                    s->edge->rule = GD_WIN_RULE_LOADED;
                    s->stop = true;
                    gd_free(p);
                    gd_free(actual);
                    return;
                }
            }
            const char *slash = strrchr(actual, '/');
            char *dir = slash && slash != actual ? gd_strndup(actual, (size_t)(slash - actual))
                                                 : gd_strdup("/");
            if (!dir)
                L->oom = true;
            else
                candidate(s, dir, actual, GD_WIN_RULE_PATH);
            gd_free(dir);
        } else if (p) {
            note_try(s, p, GD_WIN_RULE_PATH, GD_WIN_TRY_NO_FILE);
        }
        gd_free(p);
        gd_free(actual);
        return;
    }
    const struct request *r = &L->reqs[s->request];
    for (size_t i = 0; i < r->ndirs && !s->stop && !L->oom; i++)
        if (r->dirs[i].dir)
            search_dir(s, &r->dirs[i]);
}

/* Resolve `name` for `from` (NULL: a LoadLibrary of the request) into `edge`. */
static void resolve_into(struct gd_winload *L, const struct gd_win_object *from, size_t request,
                         const char *name, struct gd_win_edge *edge)
{
    memset(edge, 0, sizeof *edge);
    edge->rule = GD_WIN_RULE_NOT_FOUND;
    if (!(edge->name = keep(L, name)))
        return;
    if (is_api_set(name)) {
        edge->rule = GD_WIN_RULE_API_SET;
        return;
    }
    struct gd_win_object *o = has_path(name) ? NULL : loaded(L, name);
    if (o) {
        edge->to = o;
        edge->rule = GD_WIN_RULE_LOADED;
        return;
    }
    /* A name that failed before fails again without a search: the loader does not remember
     * failures, but the answer cannot change within one tree. */
    for (size_t i = 0; i < L->nmissing; i++) {
        if (ci_cmp(L->missing[i]->name, name) == 0) {
            if (L->missing[i]->error && !(edge->error = gd_strdup(L->missing[i]->error)))
                L->oom = true;
            return;
        }
    }
    struct search s = { L, edge, from, request, NULL, false, false };
    run_search(&s);
    if (L->oom)
        return;
    if (s.found) {
        edge->to = s.found;
        return;
    }
    if (!edge->error && s.wrong_machine) {
        /* STATUS_INVALID_IMAGE_FORMAT: only images of another machine were found. */
        char text[256];
        snprintf(text, sizeof text,
                 "not a valid Win32 application for this %s process: only %s "
                 "was found for another machine",
                 gd_pe_machine_name(L->machine) ? gd_pe_machine_name(L->machine) : "", name);
        if (!(edge->error = gd_strdup(text)))
            L->oom = true;
    }
    edge->rule = GD_WIN_RULE_NOT_FOUND;
    struct gd_win_edge *copy = gd_calloc(1, sizeof *copy);
    if (!copy ||
        gd_grow((void **)&L->missing, &L->cap_missing, L->nmissing + 1, sizeof *L->missing)) {
        gd_free(copy);
        L->oom = true;
        return;
    }
    copy->name = edge->name;
    copy->rule = GD_WIN_RULE_NOT_FOUND;
    copy->position = L->nobjects;
    if (edge->error && !(copy->error = gd_strdup(edge->error))) {
        gd_free(copy);
        L->oom = true;
        return;
    }
    L->missing[L->nmissing++] = copy;
}

/* Breadth first from object `start` in load order: each module's import descriptors in order. */
static void load_deps(struct gd_winload *L, size_t start)
{
    for (size_t i = start; i < L->nobjects && !L->oom; i++) {
        struct gd_win_object *o = L->objects[i];
        if (o->deps || !o->pe || o->pe->n_imports == 0)
            continue;
        if (!(o->deps = gd_calloc(o->pe->n_imports, sizeof *o->deps))) {
            L->oom = true;
            return;
        }
        for (size_t k = 0; k < o->pe->n_imports && !L->oom; k++) {
            resolve_into(L, o, o->request, o->pe->imports[k], &o->deps[k]);
            o->ndeps = k + 1;
        }
    }
}

static enum gd_status finish(struct gd_winload *L, enum gd_status st)
{
    if (st == GD_OK && (L->oom || L->cache.oom || gd_root_out_of_memory(L->root)))
        st = GD_ENOMEM;
    if (st == GD_ENOMEM)
        L->oom = true;
    return st;
}

enum gd_status gd_winload_module(struct gd_winload *L, const char *path, bool deps,
                                 struct gd_win_object **out)
{
    *out = NULL;
    if (L->oom)
        return GD_ENOMEM;
    char *p = NULL, *actual = NULL;
    enum gd_status st = gd_win_path_in_root(path, L->cwd, &p);
    if (st == GD_EINVAL)
        st = GD_ENOENT; /* a UNC path, or relative without a current directory */
    if (st == GD_OK)
        st = find_in(&L->cache, p, &actual);
    gd_free(p);
    if (st != GD_OK)
        return finish(L, st);
    /* The same file loaded by path again is the module already there. */
    for (size_t i = 0; i < L->nobjects; i++) {
        if (ci_cmp(L->objects[i]->path, actual) == 0) {
            *out = L->objects[i];
            gd_free(actual);
            return finish(L, GD_OK);
        }
    }
    struct gd_os_file *f = NULL;
    struct gd_pe *pe = NULL;
    struct gd_os_stat fs = { 0 };
    st = gd_root_open(L->root, actual, &f);
    if (st == GD_OK)
        st = gd_os_file_stat(f, &fs);
    if (st == GD_OK) {
        struct gd_pe_source src = { read_source, f, fs.size };
        st = gd_pe_read(&src, &pe);
    }
    if (f)
        gd_os_close(f);
    if (st == GD_OK && !L->machine)
        L->machine = pe->machine;
    struct gd_win_object *o = NULL;
    if (st == GD_OK) {
        const char *dir = dir_of(L, actual);
        size_t req = new_request(L, dir);
        o = L->oom ? NULL : add_object(L, gd_path_base(actual), actual, pe, NULL, req);
        if (o) {
            pe = NULL;
            o->found_by = GD_WIN_RULE_MAIN;
            o->found_dir = o->dir;
        } else if (!L->oom) {
            st = GD_ELIMIT;
        }
    }
    gd_pe_free(pe);
    gd_free(actual);
    if (o && deps)
        load_deps(L, o->index);
    st = finish(L, st);
    if (st == GD_OK)
        *out = o;
    return st;
}

/* LoadLibrary's default extension: ".dll" unless the name has one; a trailing '.' means the
 * name has none and is dropped (the LoadLibrary documentation). New memory. */
static char *with_extension(const char *name)
{
    const char *base = name;
    for (const char *p = name; *p; p++)
        if (is_sep(*p))
            base = p + 1;
    size_t n = strlen(name);
    if (n && name[n - 1] == '.')
        return gd_strndup(name, n - 1);
    if (strchr(base, '.'))
        return gd_strdup(name);
    char *out = gd_malloc(n + 5);
    if (out) {
        memcpy(out, name, n);
        memcpy(out + n, ".dll", 5);
    }
    return out;
}

enum gd_status gd_winload_resolve(struct gd_winload *L, const struct gd_win_object *from,
                                  const char *name, bool deps, struct gd_win_edge **out)
{
    *out = NULL;
    if (L->oom)
        return GD_ENOMEM;
    if (!name || !*name)
        return GD_EINVAL;
    char *full = with_extension(name);
    struct gd_win_edge *edge = gd_calloc(1, sizeof *edge);
    if (!full || !edge ||
        gd_grow((void **)&L->roots, &L->cap_roots, L->nroots + 1, sizeof *L->roots)) {
        gd_free(full);
        gd_free(edge);
        L->oom = true;
        return GD_ENOMEM;
    }
    if (!L->machine)
        L->machine = GD_PE_MACHINE_AMD64;
    size_t before = L->nobjects;
    size_t req = from ? from->request : new_request(L, NULL);
    if (!L->oom)
        resolve_into(L, from, req, full, edge);
    gd_free(full);
    L->roots[L->nroots++] = edge; /* freed with the load, whatever happened */
    if (!L->oom && deps)
        load_deps(L, before);
    enum gd_status st = finish(L, GD_OK);
    if (st == GD_OK)
        *out = edge;
    return st;
}
