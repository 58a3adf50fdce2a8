/* The Python environments of the inspected machine, from files alone (pyenvs.h says where each
 * is looked for, and why there). Every path goes through the root; every variable comes from the
 * context's environment snapshot. */
#include "probe/pyenvs.h"

#include "core/alloc.h"
#include "core/attr.h"
#include "core/str.h"
#include "core/winpath.h"
#include "os/os.h"
#include "parse/pyvenv.h"
#include "probe/probe.h"
#include "sysroot/nocase.h"
#include "sysroot/sysroot.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define NONE ((size_t)-1)
/* Paths are built on the stack: a root's paths are capped at GD_ROOT_PATH_MAX, and a few more
 * components fit. One that does not is taken as absent (the root would refuse it anyway). */
#define PATH_BUF    (GD_ROOT_PATH_MAX + 256)
#define VERSION_MAX GD_PY_VERSION_MAX
/* Python versions of one system prefix (python3.6 to 3.14 and python2.7 fit many times). */
#define SYS_VERSIONS_MAX 16
/* Versions named by one PYENV_VERSION or pyenv version file. */
#define PYENV_SELECTED_MAX 8

struct sysver {
    char v[VERSION_MAX];
    char where[64]; /* "/usr/local/lib/python3.11": fixed prefixes and a checked name */
};

struct sysvers {
    struct sysver items[SYS_VERSIONS_MAX];
    size_t n;
};

struct finder {
    struct gd_probe_ctx *ctx;
    struct gd_root *root;
    struct gd_pyenvs *out;
    enum gd_status st; /* GD_OK until an allocation fails */
    char *cwd;         /* live machine only: relative --python, pyenv's .python-version */
    char *user_base;   /* the inspecting user's site base; NULL when user sites are off */
    struct gd_strlist homes;
    struct gd_strlist pyenv_roots; /* canonical */
    bool debian;                   /* /usr's python3 is Debian's (dist-packages) */
    bool windows;                  /* a Windows machine: its layout and its paths */
    /* Python versions of /usr and /usr/local, from one listing of each lib directory. */
    struct sysvers usr, local, local_dist;
};

/* What one place knows of an environment before it is added (add_env completes it). */
struct cand {
    const char *prefix; /* as found; resolved by add_env */
    enum gd_pyenv_kind kind;
    const char *python;
    const char *version;
    enum gd_source_kind version_kind;
    const char *version_ref;
    const char *cfg; /* an interpreter's pyvenv.cfg, found beside it; NULL: look in the prefix */
    const char *found_by;
    enum gd_source_kind found_kind;
    const char *found_ref;
    const char *active_var;
    bool canonical; /* the prefix is canonical and a directory already */
};

/* ---- small helpers ----------------------------------------------------------------------------
 */

static bool alive(const struct finder *f)
{
    return f->st == GD_OK;
}

static void *own(struct finder *f, void *p)
{
    if (!p)
        f->st = GD_ENOMEM;
    return p;
}

static char *dup(struct finder *f, const char *s)
{
    return s ? own(f, gd_strdup(s)) : NULL;
}

/* Every status from the root passes here: out of memory must end the search, never read as
 * "not there". */
static enum gd_status seen(struct finder *f, enum gd_status s)
{
    if (s == GD_ENOMEM)
        f->st = GD_ENOMEM;
    return s;
}

static bool pathf(char *buf, size_t size, const char *fmt, ...) GD_PRINTF(3, 4);
static bool pathf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n >= 0 && (size_t)n < size;
}

/* The type of what `path` leads to, symlinks followed; -1 when nothing is there. */
static int type_of(struct finder *f, const char *path)
{
    struct gd_os_stat s;
    return seen(f, gd_root_stat(f->root, path, &s)) == GD_OK ? (int)s.type : -1;
}

static bool is_dir(struct finder *f, const char *path)
{
    return type_of(f, path) == GD_FT_DIR;
}

static bool is_file(struct finder *f, const char *path)
{
    return type_of(f, path) == GD_FT_REG;
}

/* The canonical path inside the root, or NULL with `*why` saying why not. */
static char *canon(struct finder *f, const char *path, enum gd_status *why)
{
    char *out = NULL;
    enum gd_status s = seen(f, gd_root_resolve(f->root, path, true, &out));
    if (why)
        *why = s;
    return s == GD_OK ? out : NULL;
}

static bool list(struct finder *f, const char *dir, struct gd_names *names)
{
    return seen(f, gd_root_list(f->root, dir, names)) == GD_OK;
}

/* The directory part of `path` ("/usr/bin" of "/usr/bin/python3", "/" of "/x") into `buf`. */
static bool parent_of(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    size_t n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    if (!slash || n >= size)
        return false;
    memcpy(buf, path, n);
    buf[n] = '\0';
    return true;
}

/* The version in a "pythonX.Y" name (an interpreter, a lib directory). */
static bool name_version(const char *name, char out[VERSION_MAX])
{
    return strncmp(name, "python", 6) == 0 &&
           gd_parse_py_version(name + 6, strlen(name + 6), true, out);
}

/* The version of a "/.../pythonX.Y/..." component of a path (a site directory given alone). */
static bool version_in_path(const char *path, char out[VERSION_MAX])
{
    for (const char *p = strstr(path, "/python"); p; p = strstr(p + 1, "/python")) {
        const char *end = strchr(p + 1, '/');
        size_t n = end ? (size_t)(end - p - 7) : strlen(p + 7);
        if (gd_parse_py_version(p + 7, n, true, out))
            return true;
    }
    return false;
}

static int version_cmp(const char *a, const char *b)
{
    unsigned long amaj = 0, amin = 0, bmaj = 0, bmin = 0;
    sscanf(a, "%lu.%lu", &amaj, &amin);
    sscanf(b, "%lu.%lu", &bmaj, &bmin);
    if (amaj != bmaj)
        return amaj < bmaj ? -1 : 1;
    return amin < bmin ? -1 : amin > bmin;
}

/* ---- the list -------------------------------------------------------------------------------- */

static void env_free(struct gd_pyenv *e)
{
    gd_free(e->prefix);
    gd_free(e->python);
    gd_free(e->version);
    gd_free(e->found_by);
    gd_free(e->base_prefix);
    gd_strlist_free(&e->site_dirs);
    gd_free(e->found_ref);
    gd_free(e->version_ref);
    gd_free(e->venv_cfg);
    gd_free(e->venv_home);
    gd_free(e->base_python);
}

void gd_pyenvs_free(struct gd_pyenvs *envs)
{
    if (!envs)
        return;
    for (size_t i = 0; i < envs->count; i++)
        env_free(&envs->items[i]);
    gd_free(envs->items);
    for (size_t i = 0; i < envs->nproblems; i++) {
        gd_free(envs->problems[i].path);
        gd_free(envs->problems[i].reason);
        gd_free(envs->problems[i].ref);
    }
    gd_free(envs->problems);
    memset(envs, 0, sizeof *envs);
}

const char *gd_pyenv_kind_name(enum gd_pyenv_kind kind)
{
    switch (kind) {
    case GD_PYENV_SYSTEM:
        return "system";
    case GD_PYENV_VENV:
        return "venv";
    case GD_PYENV_CONDA:
        return "conda";
    case GD_PYENV_PYENV:
        return "pyenv";
    case GD_PYENV_USER:
        return "user";
    case GD_PYENV_GIVEN:
        return "given";
    }
    return "?";
}

static void problem(struct finder *f, const char *path, const char *reason,
                    enum gd_source_kind kind, const char *ref)
{
    struct gd_pyenvs *o = f->out;
    if (!alive(f) || o->nproblems >= GD_PYENV_PROBLEMS_MAX)
        return;
    for (size_t i = 0; i < o->nproblems; i++)
        if (strcmp(o->problems[i].path, path) == 0)
            return; /* one interpreter, named by two PATH entries */
    if (gd_grow((void **)&o->problems, &o->cap_problems, o->nproblems + 1, sizeof *o->problems)) {
        f->st = GD_ENOMEM;
        return;
    }
    struct gd_pyenv_problem p = { dup(f, path), dup(f, reason), kind, dup(f, ref) };
    if (!alive(f)) {
        gd_free(p.path);
        gd_free(p.reason);
        gd_free(p.ref);
        return;
    }
    o->problems[o->nproblems++] = p;
}

/* Why a path named as an interpreter or environment cannot be used. */
static void unusable(struct finder *f, const char *path, enum gd_status why,
                     enum gd_source_kind kind, const char *ref)
{
    if (why == GD_ENOMEM || !alive(f))
        return;
    char reason[PATH_BUF];
    char *target = NULL;
    struct gd_os_stat s;
    if (why == GD_ENOENT && seen(f, gd_root_lstat(f->root, path, &s)) == GD_OK &&
        s.type == GD_FT_LNK && seen(f, gd_root_readlink(f->root, path, &target)) == GD_OK)
        pathf(reason, sizeof reason, "dangling symbolic link to %s", target);
    else if (why == GD_ELOOP)
        pathf(reason, sizeof reason, "symbolic link loop");
    else if (why == GD_ENOTDIR)
        pathf(reason, sizeof reason, "not a directory");
    else
        pathf(reason, sizeof reason, "%s", gd_status_str(why));
    gd_free(target);
    problem(f, path, reason, kind, ref);
}

static void set_version(struct finder *f, struct gd_pyenv *e, const char *v,
                        enum gd_source_kind kind, const char *ref)
{
    if (e->version || !v)
        return;
    char *version = dup(f, v), *copy = dup(f, ref);
    if (!version || (ref && !copy)) {
        gd_free(version);
        gd_free(copy);
        return;
    }
    e->version = version;
    e->version_kind = kind;
    e->version_ref = copy;
}

/* ---- what an environment holds ----------------------------------------------------------------
 */

/* pyvenv.cfg (parse/pyvenv.h); `*home` gets the base interpreter's directory. */
static void read_cfg(struct finder *f, struct gd_pyenv *e, char **home)
{
    e->system_site = true; /* site.py's default, also when the file cannot be read */
    char *data = NULL;
    size_t len = 0;
    if (seen(f, gd_root_read_file(f->root, e->venv_cfg, GD_PYENV_FILE_MAX, &data, &len)) != GD_OK)
        return;
    struct gd_pyvenv_cfg cfg;
    gd_parse_pyvenv_cfg(data, len, &cfg);
    gd_free(data);
    e->system_site = cfg.system_site;
    e->system_site_stated = cfg.system_site_stated;
    if (cfg.home[0])
        *home = dup(f, cfg.home);
    if (cfg.version[0])
        set_version(f, e, cfg.version, GD_SOURCE_FILE, e->venv_cfg);
}

/* The interpreter a real binary belongs to: getpath.py finds the prefix above the directory of
 * the resolved executable (its bin). */
static bool binary_prefix(const char *real, char *buf, size_t size)
{
    if (!parent_of(real, buf, size))
        return false;
    if (strcmp(gd_path_base(buf), "bin") == 0) {
        char dir[PATH_BUF];
        snprintf(dir, sizeof dir, "%s", buf);
        return parent_of(dir, buf, size);
    }
    return true;
}

/* The venv's base: the interpreter in pyvenv.cfg's home, as getpath.py looks for it there. */
static void find_base(struct finder *f, struct gd_pyenv *e, const char *home)
{
    if (!home || home[0] != '/')
        return;
    char versioned[32], path[PATH_BUF], prefix[PATH_BUF];
    const char *names[3] = { NULL, "python3", "python" };
    if (e->version && pathf(versioned, sizeof versioned, "python%s", e->version))
        names[0] = versioned;
    for (size_t i = 0; i < 3 && alive(f) && !e->base_python; i++) {
        if (!names[i] || !pathf(path, sizeof path, "%s/%s", home, names[i]) || !is_file(f, path))
            continue;
        char *real = canon(f, path, NULL);
        if (real && binary_prefix(real, prefix, sizeof prefix)) {
            e->base_python = dup(f, path);
            e->base_prefix = dup(f, prefix);
        }
        gd_free(real);
    }
    if (!e->base_python) {
        /* A venv outlives its base: a pyenv version uninstalled, python3.10 replaced by 3.11 in
         * a distribution upgrade. Its python then fails to start. */
        char reason[PATH_BUF];
        pathf(reason, sizeof reason, "its base interpreter is gone: no python in home = %s", home);
        problem(f, e->prefix, reason, GD_SOURCE_FILE, e->venv_cfg);
    }
}

/* conda records every package in conda-meta/<name>-<version>-<build>.json: the python record's
 * file name states the version without opening it. */
static void conda_version(struct finder *f, struct gd_pyenv *e)
{
    char dir[PATH_BUF], ref[PATH_BUF], v[VERSION_MAX];
    struct gd_names names;
    if (!pathf(dir, sizeof dir, "%s/conda-meta", e->prefix) || !list(f, dir, &names))
        return;
    for (size_t i = 0; i < names.count && !e->version; i++) {
        const char *n = names.names[i];
        /* "python-3.11.5-h955ad1f_0.json", not "python-dateutil-2.8.2-pyhd8ed1ab_0.json" */
        if (strncmp(n, "python-", 7) == 0 && gd_str_ends_with(n, ".json") &&
            gd_parse_py_version(n + 7, strlen(n + 7), false, v) &&
            pathf(ref, sizeof ref, "%s/%s", dir, n))
            set_version(f, e, v, GD_SOURCE_PATH, ref);
    }
    gd_names_free(&names);
}

/* The newest lib/pythonX.Y directory of the prefix. */
static void lib_version(struct finder *f, struct gd_pyenv *e)
{
    char dir[PATH_BUF], ref[PATH_BUF], v[VERSION_MAX], best[VERSION_MAX] = "";
    struct gd_names names;
    if (!pathf(dir, sizeof dir, "%s/lib", e->prefix) || !list(f, dir, &names))
        return;
    for (size_t i = 0; i < names.count; i++)
        if (name_version(names.names[i], v) && (!best[0] || version_cmp(v, best) > 0))
            memcpy(best, v, sizeof best);
    gd_names_free(&names);
    if (best[0] && pathf(ref, sizeof ref, "%s/python%s", dir, best))
        set_version(f, e, best, GD_SOURCE_PATH, ref);
}

/* The version of the binary bin/python3 (else bin/python) leads to: every kind of install
 * links python3 to pythonX.Y, and one readlink is cheaper than listing lib (a conda lib holds
 * hundreds of files). */
static void interpreter_version(struct finder *f, struct gd_pyenv *e)
{
    static const char *const names[] = { "python3", "python" };
    char path[PATH_BUF], v[VERSION_MAX];
    for (size_t i = 0; i < 2 && alive(f) && !e->version; i++) {
        if (!pathf(path, sizeof path, "%s/bin/%s", e->prefix, names[i]))
            continue;
        char *real = canon(f, path, NULL);
        if (real && name_version(gd_path_base(real), v)) {
            set_version(f, e, v, GD_SOURCE_PATH, real);
            /* bin/pythonX.Y exists then: the interpreter find_python would look up. */
            char versioned[PATH_BUF];
            if (!e->python && strncmp(real, e->prefix, strlen(e->prefix)) == 0 &&
                pathf(versioned, sizeof versioned, "%s/bin/%s", e->prefix, gd_path_base(real)) &&
                strcmp(versioned, real) == 0)
                e->python = dup(f, versioned);
        }
        gd_free(real);
    }
}

/* pyenv names a version's directory after it ("3.11.7"): one stat confirms lib/python3.11. */
static void dir_name_version(struct finder *f, struct gd_pyenv *e)
{
    char v[VERSION_MAX], path[PATH_BUF];
    const char *base = gd_path_base(e->prefix);
    if (gd_parse_py_version(base, strlen(base), false, v) &&
        pathf(path, sizeof path, "%s/lib/python%s", e->prefix, v) && is_dir(f, path))
        set_version(f, e, v, GD_SOURCE_PATH, path);
}

/* The prefix's own interpreter: bin/pythonX.Y first, the name every kind of install has. */
static void find_python(struct finder *f, struct gd_pyenv *e)
{
    char versioned[32], path[PATH_BUF];
    const char *names[3] = { NULL, "python3", "python" };
    if (e->version && pathf(versioned, sizeof versioned, "python%s", e->version))
        names[0] = versioned;
    for (size_t i = 0; i < 3 && alive(f) && !e->python; i++)
        if (names[i] && pathf(path, sizeof path, "%s/bin/%s", e->prefix, names[i]) &&
            is_file(f, path))
            e->python = dup(f, path);
}

/* ---- site directories -------------------------------------------------------------------------
 */

static void add_site(struct finder *f, struct gd_pyenv *e, const char *path)
{
    struct gd_os_stat s;
    if (!alive(f) || e->site_dirs.count >= GD_PYENV_SITE_DIRS_MAX ||
        seen(f, gd_root_lstat(f->root, path, &s)) != GD_OK)
        return;
    /* Site directories are kept canonical, so that a library's real path falls under the one
     * that holds it. Built from a canonical prefix and fixed components (lib, pythonX.Y), a
     * directory that is no link is canonical already: one lstat, not a walk of every component.
     * A link is resolved. */
    if (s.type == GD_FT_DIR) {
        seen(f, gd_strlist_push_unique(&e->site_dirs, path));
    } else if (s.type == GD_FT_LNK && is_dir(f, path)) {
        char *real = canon(f, path, NULL);
        if (real)
            seen(f, gd_strlist_push_unique(&e->site_dirs, real));
        gd_free(real);
    }
}

static void add_sitef(struct finder *f, struct gd_pyenv *e, const char *fmt, ...) GD_PRINTF(3, 4);
static void add_sitef(struct finder *f, struct gd_pyenv *e, const char *fmt, ...)
{
    char path[PATH_BUF];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof path)
        add_site(f, e, path);
}

/* site.py's user site, which it puts before the prefix's own site-packages. */
static void user_site(struct finder *f, struct gd_pyenv *e, const char *v)
{
    if (f->user_base && v)
        add_sitef(f, e, "%s/lib/python%s/site-packages", f->user_base, v);
}

/* site.py's getsitepackages() for one prefix and Python `v`; `in_venv` when the prefix is the
 * base of a venv (sys.prefix != sys.base_prefix). */
static void prefix_sites(struct finder *f, struct gd_pyenv *e, const char *prefix, const char *v,
                         bool in_venv)
{
    if (strcmp(prefix, "/usr") == 0 && f->debian) {
        /* Debian's site.py: /usr/local for what pip installs as root, /usr/lib/python3 for
         * Debian's packages (shared by every python3.X), then the deprecated versioned one; for a
         * venv's base, lib/pythonX.Y/site-packages first. */
        if (v && in_venv)
            add_sitef(f, e, "/usr/lib/python%s/site-packages", v);
        if (v)
            add_sitef(f, e, "/usr/local/lib/python%s/dist-packages", v);
        add_site(f, e, "/usr/lib/python3/dist-packages");
        if (v)
            add_sitef(f, e, "/usr/lib/python%s/dist-packages", v);
        return;
    }
    if (!v)
        return;
    if (strcmp(prefix, "/usr") == 0 && !in_venv) {
        /* Fedora's and RHEL 9's site.py put /usr/local first, where pip installs outside RPM
         * (rarely present elsewhere, and only existing directories are kept). */
        add_sitef(f, e, "/usr/local/lib64/python%s/site-packages", v);
        add_sitef(f, e, "/usr/local/lib/python%s/site-packages", v);
    }
    /* sys.platlibdir first where it is lib64, then lib. Only distributions build with lib64
     * (Fedora, SUSE), into /usr; conda, pyenv, python.org builds and venvs use lib (a venv's lib64
     * is a link to it), and a look there would cost a walk of the prefix per environment. */
    char lib64[PATH_BUF];
    struct gd_os_stat s;
    if ((strcmp(prefix, "/usr") == 0 || strcmp(prefix, "/usr/local") == 0) &&
        pathf(lib64, sizeof lib64, "%s/lib64", prefix) &&
        seen(f, gd_root_lstat(f->root, lib64, &s)) == GD_OK && s.type == GD_FT_DIR)
        add_sitef(f, e, "%s/python%s/site-packages", lib64, v);
    add_sitef(f, e, "%s/lib/python%s/site-packages", prefix, v);
}

static void compute_sites(struct finder *f, struct gd_pyenv *e)
{
    const char *v = e->version;
    switch (e->kind) {
    case GD_PYENV_GIVEN:
        add_site(f, e, e->prefix);
        break;
    case GD_PYENV_USER:
        if (v)
            add_sitef(f, e, "%s/lib/python%s/site-packages", e->prefix, v);
        break;
    case GD_PYENV_VENV:
        /* site.py's venv(): the venv's own site-packages first ("ensures venv takes precedence
         * over user-site"), then, only with include-system-site-packages, the user site and the
         * base's. */
        prefix_sites(f, e, e->prefix, v, false);
        if (e->system_site) {
            user_site(f, e, v);
            if (e->base_prefix)
                prefix_sites(f, e, e->base_prefix, v, true);
        }
        break;
    default:
        user_site(f, e, v);
        prefix_sites(f, e, e->prefix, v, false);
        break;
    }
}

/* ---- adding an environment --------------------------------------------------------------------
 */

static bool in_pyenv(struct finder *f, const char *prefix)
{
    char parent[PATH_BUF];
    if (!parent_of(prefix, parent, sizeof parent) || strcmp(gd_path_base(parent), "versions") != 0)
        return false;
    for (size_t i = 0; i < f->pyenv_roots.count; i++) {
        const char *r = f->pyenv_roots.items[i];
        size_t n = strlen(r);
        if (strncmp(parent, r, n) == 0 && strcmp(parent + n, "/versions") == 0)
            return true;
    }
    return false;
}

/* ---- Windows: what an environment holds -------------------------------------------------------
 * CPython on Windows keeps python.exe in the prefix itself (a venv: in Scripts), its packages in
 * Lib\site-packages, and the user site in %APPDATA%\Python\PythonXY\site-packages (site.py:
 * getsitepackages, _getuserbase, _get_path for os.name "nt"). Names are matched ignoring case,
 * as Windows does. */

/* "3.10" from "Python310", "python310.dll", "Python27" (a major of one digit: every CPython). */
static bool win_name_version(const char *name, char out[VERSION_MAX])
{
    static const char python[] = "python";
    if (strlen(name) < 8)
        return false;
    for (size_t i = 0; i < 6; i++)
        if (gd_to_lower(name[i]) != python[i])
            return false;
    const char *d = name + 6;
    size_t n = strspn(d, "0123456789");
    if (n < 2 || n > 4 || (d[n] && !gd_winpath_name_eq(d + n, ".dll")))
        return false;
    snprintf(out, VERSION_MAX, "%c.%.*s", d[0], (int)(n - 1), d + 1);
    return true;
}

/* `dir`/`name` with the tree's spelling when it exists (new memory), else NULL. */
static char *win_child(struct finder *f, const char *dir, const char *name)
{
    char path[PATH_BUF];
    char *out = NULL;
    if (!pathf(path, sizeof path, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name))
        return NULL;
    enum gd_status st = seen(f, gd_root_find_nocase(f->root, path, &out));
    return st == GD_OK ? out : NULL;
}

/* A Windows path of the machine (a variable, pyvenv.cfg's home) as a path of the root, into
 * `buf`, when it exists. */
static bool win_path(struct finder *f, const char *text, char *buf, size_t size)
{
    char *p = NULL, why[128];
    enum gd_status st = seen(f, gd_probe_win_path(f->ctx, text, &p, why, sizeof why));
    bool ok = st == GD_OK && pathf(buf, size, "%s", p);
    gd_free(p);
    return ok;
}

/* The version of a python.org or conda prefix: its pythonXY.dll (beside python.exe), else the
 * PythonXY name of its directory (the installer's default). */
static void win_prefix_version(struct finder *f, struct gd_pyenv *e)
{
    char v[VERSION_MAX], ref[PATH_BUF];
    struct gd_names names;
    if (list(f, e->prefix, &names)) {
        for (size_t i = 0; i < names.count && !e->version; i++)
            if (gd_str_ends_with(names.names[i], ".dll") ||
                gd_str_ends_with(names.names[i], ".DLL"))
                if (win_name_version(names.names[i], v) && strcmp(v, "3.0") != 0 &&
                    pathf(ref, sizeof ref, "%s/%s", e->prefix, names.names[i]))
                    set_version(f, e, v, GD_SOURCE_PATH, ref);
        gd_names_free(&names);
    }
    if (!e->version && win_name_version(gd_path_base(e->prefix), v))
        set_version(f, e, v, GD_SOURCE_PATH, e->prefix);
}

/* pyvenv.cfg's home is the base's directory, which holds its python.exe (venv's launcher). */
static void win_find_base(struct finder *f, struct gd_pyenv *e, const char *home)
{
    char dir[PATH_BUF];
    if (!home || !win_path(f, home, dir, sizeof dir)) {
        if (home) {
            char reason[PATH_BUF];
            pathf(reason, sizeof reason, "its base interpreter is gone: no python in home = %s",
                  home);
            problem(f, e->prefix, reason, GD_SOURCE_FILE, e->venv_cfg);
        }
        return;
    }
    char *python = win_child(f, dir, "python.exe");
    if (python && is_file(f, python)) {
        e->base_python = python;
        e->base_prefix = dup(f, dir);
        return;
    }
    gd_free(python);
    char reason[PATH_BUF];
    pathf(reason, sizeof reason, "its base interpreter is gone: no python.exe in home = %s", home);
    problem(f, e->prefix, reason, GD_SOURCE_FILE, e->venv_cfg);
}

static void win_add_site(struct finder *f, struct gd_pyenv *e, const char *prefix, const char *rel)
{
    char *site = win_child(f, prefix, rel);
    if (site && is_dir(f, site))
        add_site(f, e, site);
    gd_free(site);
}

/* site.py's user site: <user base>\PythonXY\site-packages. */
static void win_user_site(struct finder *f, struct gd_pyenv *e, const char *base, const char *v)
{
    char rel[64];
    if (base && v &&
        pathf(rel, sizeof rel, "Python%.*s%s/site-packages", (int)strcspn(v, "."), v,
              strchr(v, '.') ? strchr(v, '.') + 1 : ""))
        win_add_site(f, e, base, rel);
}

static void win_compute_sites(struct finder *f, struct gd_pyenv *e)
{
    const char *v = e->version;
    switch (e->kind) {
    case GD_PYENV_GIVEN:
        add_site(f, e, e->prefix);
        break;
    case GD_PYENV_USER:
        win_user_site(f, e, e->prefix, v);
        break;
    case GD_PYENV_VENV:
        /* The venv's own packages first; then, with the system site, the user site and the
         * base's (site.py's venv()). */
        win_add_site(f, e, e->prefix, "Lib/site-packages");
        if (e->system_site) {
            win_user_site(f, e, f->user_base, v);
            if (e->base_prefix)
                win_add_site(f, e, e->base_prefix, "Lib/site-packages");
        }
        break;
    default:
        win_user_site(f, e, f->user_base, v);
        win_add_site(f, e, e->prefix, "Lib/site-packages");
        break;
    }
}

static void win_fill(struct finder *f, struct gd_pyenv *e, const struct cand *c)
{
    char v[VERSION_MAX];
    if (e->kind == GD_PYENV_GIVEN) {
        for (const char *p = e->prefix; p && !e->version; p = strchr(p + 1, '/'))
            if (win_name_version(p + 1, v))
                set_version(f, e, v, GD_SOURCE_PATH, e->prefix);
        win_compute_sites(f, e);
        return;
    }
    if (e->kind != GD_PYENV_USER) {
        char *cfg = c->cfg ? dup(f, c->cfg) : win_child(f, e->prefix, "pyvenv.cfg");
        char *meta = cfg ? NULL : win_child(f, e->prefix, "conda-meta");
        if (cfg && is_file(f, cfg)) {
            e->venv_cfg = cfg;
            cfg = NULL;
            e->kind = GD_PYENV_VENV;
        } else if (meta && is_dir(f, meta)) {
            e->kind = GD_PYENV_CONDA;
        }
        gd_free(cfg);
        gd_free(meta);
    }
    if (e->venv_cfg)
        read_cfg(f, e, &e->venv_home);
    set_version(f, e, c->version, c->version_kind, c->version_ref);
    if (!e->version && e->kind == GD_PYENV_CONDA)
        conda_version(f, e);
    if (!e->version && e->kind != GD_PYENV_USER && e->kind != GD_PYENV_VENV)
        win_prefix_version(f, e);
    if (c->python) {
        gd_free(e->python);
        e->python = dup(f, c->python);
    } else if (!e->python && e->kind != GD_PYENV_USER) {
        char *python =
            win_child(f, e->prefix, e->kind == GD_PYENV_VENV ? "Scripts/python.exe" : "python.exe");
        if (python && is_file(f, python))
            e->python = python;
        else
            gd_free(python);
    }
    if (e->venv_cfg)
        win_find_base(f, e, e->venv_home);
    win_compute_sites(f, e);
}

static void fill(struct finder *f, struct gd_pyenv *e, const struct cand *c)
{
    char path[PATH_BUF], v[VERSION_MAX];
    if (f->windows) {
        win_fill(f, e, c);
        return;
    }
    if (e->kind == GD_PYENV_GIVEN) {
        if (version_in_path(e->prefix, v))
            set_version(f, e, v, GD_SOURCE_PATH, e->prefix);
        compute_sites(f, e);
        return;
    }
    if (e->kind != GD_PYENV_USER) {
        if (c->cfg)
            e->venv_cfg = dup(f, c->cfg);
        else if (pathf(path, sizeof path, "%s/pyvenv.cfg", e->prefix) && is_file(f, path))
            e->venv_cfg = dup(f, path);
        if (e->venv_cfg)
            e->kind = GD_PYENV_VENV;
        else if (pathf(path, sizeof path, "%s/conda-meta", e->prefix) && is_dir(f, path))
            e->kind = GD_PYENV_CONDA;
        else if (e->kind == GD_PYENV_SYSTEM && in_pyenv(f, e->prefix))
            e->kind = GD_PYENV_PYENV;
    }
    if (e->venv_cfg)
        read_cfg(f, e, &e->venv_home);
    set_version(f, e, c->version, c->version_kind, c->version_ref);
    if (!e->version && e->kind == GD_PYENV_PYENV)
        dir_name_version(f, e);
    if (!e->version && e->kind != GD_PYENV_USER)
        interpreter_version(f, e);
    if (!e->version && e->kind == GD_PYENV_CONDA)
        conda_version(f, e);
    if (!e->version && e->kind != GD_PYENV_USER)
        lib_version(f, e);
    if (c->python) {
        gd_free(e->python);
        e->python = dup(f, c->python);
    } else if (!e->python && e->kind != GD_PYENV_USER) {
        find_python(f, e);
    }
    if (e->venv_cfg)
        find_base(f, e, e->venv_home);
    compute_sites(f, e);
}

/* Add the environment at c->prefix, or merge what `c` knows into the one found there before.
 * Returns its index, or NONE with `*why` (may be NULL) saying why the prefix is not usable
 * (GD_OK when it is one but the list is full or memory ran out). */
static size_t add_env(struct finder *f, const struct cand *c, enum gd_status *why)
{
    enum gd_status ignored;
    if (!why)
        why = &ignored;
    *why = GD_OK;
    if (!alive(f))
        return NONE;
    char *prefix = c->canonical ? dup(f, c->prefix) : canon(f, c->prefix, why);
    if (!prefix)
        return NONE;
    if (!c->canonical && !is_dir(f, prefix)) {
        *why = GD_ENOTDIR;
        gd_free(prefix);
        return NONE;
    }
    struct gd_pyenvs *o = f->out;
    bool given = c->kind == GD_PYENV_GIVEN;
    for (size_t i = 0; i < o->count; i++) {
        struct gd_pyenv *e = &o->items[i];
        if (strcmp(e->prefix, prefix) != 0 || (e->kind == GD_PYENV_GIVEN) != given ||
            (c->version && e->version && strcmp(c->version, e->version) != 0))
            continue;
        gd_free(prefix);
        if (c->active_var && !e->active) {
            e->active = true;
            e->active_var = c->active_var;
        }
        if (!e->python && c->python)
            e->python = dup(f, c->python);
        set_version(f, e, c->version, c->version_kind, c->version_ref);
        return i;
    }
    if (o->count >= GD_PYENVS_MAX) {
        o->dropped++;
        gd_free(prefix);
        return NONE;
    }
    if (gd_grow((void **)&o->items, &o->cap, o->count + 1, sizeof *o->items) != 0) {
        f->st = GD_ENOMEM;
        gd_free(prefix);
        return NONE;
    }
    struct gd_pyenv *e = &o->items[o->count++];
    memset(e, 0, sizeof *e);
    e->prefix = prefix;
    e->kind = c->kind;
    e->active = c->active_var != NULL;
    e->active_var = c->active_var;
    e->found_by = dup(f, c->found_by);
    e->found_kind = c->found_kind;
    e->found_ref = dup(f, c->found_ref);
    fill(f, e, c);
    return o->count - 1;
}

/* An interpreter named by PATH or --python. site.py takes the directory of the executable as
 * named (not resolved) and looks for pyvenv.cfg there and one level up: that is a venv whose
 * prefix is the level up. Otherwise the prefix is above the resolved binary (getpath.py). */
static size_t interpreter(struct finder *f, const char *path, const char *found_by,
                          enum gd_source_kind kind, const char *ref)
{
    enum gd_status why;
    char *real = canon(f, path, &why);
    if (!real) {
        unusable(f, path, why, kind, ref);
        return NONE;
    }
    size_t idx = NONE;
    char exe_dir[PATH_BUF], up[PATH_BUF], cfg[PATH_BUF], prefix[PATH_BUF], v[VERSION_MAX];
    if (!is_file(f, real)) {
        if (alive(f))
            problem(f, path, "not a regular file", kind, ref);
        goto out;
    }
    if (!parent_of(path, exe_dir, sizeof exe_dir) || !parent_of(exe_dir, up, sizeof up) ||
        !binary_prefix(real, prefix, sizeof prefix))
        goto out;
    bool venv = (pathf(cfg, sizeof cfg, "%s/pyvenv.cfg", exe_dir) && is_file(f, cfg)) ||
                (pathf(cfg, sizeof cfg, "%s/pyvenv.cfg", up) && is_file(f, cfg));
    const char *vref = name_version(gd_path_base(real), v)   ? real
                       : name_version(gd_path_base(path), v) ? path
                                                             : NULL;
    struct cand c = {
        .prefix = venv ? up : prefix,
        .kind = venv ? GD_PYENV_VENV : GD_PYENV_SYSTEM,
        .python = path,
        .version = vref ? v : NULL,
        .version_kind = GD_SOURCE_PATH,
        .version_ref = vref,
        .cfg = venv ? cfg : NULL,
        .found_by = found_by,
        .found_kind = kind,
        .found_ref = ref,
    };
    idx = add_env(f, &c, NULL);
out:
    gd_free(real);
    return idx;
}

/* ---- where environments are looked for --------------------------------------------------------
 */

/* `path` made absolute: relative to the current directory on the live machine, to the root's
 * top under a foreign root (there is no current directory inside an image). */
static bool absolute(struct finder *f, const char *path, char *buf, size_t size)
{
    if (path[0] == '/')
        return pathf(buf, size, "%s", path);
    if (f->cwd)
        return pathf(buf, size, "%s/%s", f->cwd, path);
    return pathf(buf, size, "/%s", path);
}

static void given(struct finder *f)
{
    char abs[PATH_BUF];
    const struct gd_strlist *py = f->ctx->pythons, *sites = f->ctx->sites;
    for (size_t i = 0; py && i < py->count && alive(f); i++) {
        if (!absolute(f, py->items[i], abs, sizeof abs))
            continue;
        if (!is_dir(f, abs)) {
            interpreter(f, abs, "--python", GD_SOURCE_OPTION, "--python");
            continue;
        }
        /* A prefix given for an interpreter: the environment it heads. */
        struct cand c = { .prefix = abs,
                          .kind = GD_PYENV_SYSTEM,
                          .found_by = "--python",
                          .found_kind = GD_SOURCE_OPTION,
                          .found_ref = "--python" };
        add_env(f, &c, NULL);
    }
    for (size_t i = 0; sites && i < sites->count && alive(f); i++) {
        if (!absolute(f, sites->items[i], abs, sizeof abs))
            continue;
        struct cand c = { .prefix = abs,
                          .kind = GD_PYENV_GIVEN,
                          .found_by = "--site",
                          .found_kind = GD_SOURCE_OPTION,
                          .found_ref = "--site" };
        enum gd_status why;
        if (add_env(f, &c, &why) == NONE)
            unusable(f, abs, why, GD_SOURCE_OPTION, "--site");
    }
}

static void active(struct finder *f)
{
    static const struct {
        const char *var;
        enum gd_pyenv_kind kind;
    } vars[] = { { "VIRTUAL_ENV", GD_PYENV_VENV }, { "CONDA_PREFIX", GD_PYENV_CONDA } };
    for (size_t i = 0; i < 2 && alive(f); i++) {
        const char *v = gd_env_get(f->ctx->env, vars[i].var);
        if (!v || !*v)
            continue;
        if (v[0] != '/') {
            problem(f, v, "not an absolute path", GD_SOURCE_ENV, vars[i].var);
            continue;
        }
        struct cand c = { .prefix = v,
                          .kind = vars[i].kind,
                          .found_by = vars[i].var,
                          .found_kind = GD_SOURCE_ENV,
                          .found_ref = vars[i].var,
                          .active_var = vars[i].var };
        enum gd_status why;
        if (add_env(f, &c, &why) == NONE)
            unusable(f, v, why, GD_SOURCE_ENV, vars[i].var);
    }
}

/* pyenv-version-file: the first .python-version from the current directory up (the live machine
 * only: an image has no current directory), else $PYENV_ROOT/version. */
static bool pyenv_version_file(struct finder *f, const char *root, char **data, char *ref,
                               size_t size)
{
    size_t len;
    char dir[PATH_BUF];
    if (f->cwd && pathf(dir, sizeof dir, "%s", f->cwd)) {
        for (;;) {
            if (pathf(ref, size, "%s%s.python-version", dir, strcmp(dir, "/") ? "/" : "") &&
                is_file(f, ref))
                return seen(f, gd_root_read_file(f->root, ref, GD_PYENV_FILE_MAX, data, &len)) ==
                       GD_OK;
            char up[PATH_BUF];
            if (strcmp(dir, "/") == 0 || !parent_of(dir, up, sizeof up))
                break;
            memcpy(dir, up, strlen(up) + 1);
        }
    }
    return pathf(ref, size, "%s/version", root) && is_file(f, ref) &&
           seen(f, gd_root_read_file(f->root, ref, GD_PYENV_FILE_MAX, data, &len)) == GD_OK;
}

/* pyenv's shims are scripts that run `pyenv exec`: they stand for the versions pyenv selects
 * (pyenv-version-name), the first of which runs for python3. "system" selects the next python3
 * on PATH, which the PATH walk then meets. */
static void pyenv_shims(struct finder *f, const char *entry, const char *root, size_t *first3,
                        size_t *first)
{
    char shim3[PATH_BUF], shim[PATH_BUF], ref[PATH_BUF];
    bool has3 = pathf(shim3, sizeof shim3, "%s/python3", entry) && is_file(f, shim3);
    bool has = pathf(shim, sizeof shim, "%s/python", entry) && is_file(f, shim);
    if (!has3 && !has)
        return;
    const char *var = gd_env_get(f->ctx->env, "PYENV_VERSION");
    char *data = NULL;
    const char *text;
    enum gd_source_kind kind = GD_SOURCE_ENV;
    bool env = var && *var;
    if (env) {
        text = var;
        snprintf(ref, sizeof ref, "PYENV_VERSION");
    } else if (pyenv_version_file(f, root, &data, ref, sizeof ref)) {
        text = data;
        kind = GD_SOURCE_FILE;
    } else {
        return;
    }
    /* PYENV_VERSION separates versions with ':'; a version file has one per line (the first
     * word of each; '#' lines are comments). */
    struct gd_span rest = gd_span_of(text), line;
    const char *cur = text, *end = text + strlen(text);
    size_t k = 0;
    while (alive(f) && k < PYENV_SELECTED_MAX) {
        struct gd_span word;
        if (env) {
            if (!gd_span_next_field(&rest, ':', &word))
                break;
        } else {
            if (!gd_next_line(&cur, end, &line))
                break;
            line = gd_span_trim(line);
            size_t n = 0;
            while (n < line.n && !gd_is_space(line.p[n]))
                n++;
            word = (struct gd_span){ line.p, n };
        }
        word = gd_span_trim(word);
        if (!word.n || word.p[0] == '#')
            continue;
        bool first_word = k++ == 0;
        if (gd_span_eq(word, "system"))
            continue;
        char prefix[PATH_BUF];
        if (!pathf(prefix, sizeof prefix, "%s/versions/%.*s", root, (int)word.n, word.p))
            continue;
        struct cand c = { .prefix = prefix,
                          .kind = GD_PYENV_PYENV,
                          .found_by = "pyenv shim",
                          .found_kind = GD_SOURCE_PATH,
                          .found_ref = has3 ? shim3 : shim };
        enum gd_status why;
        size_t i = add_env(f, &c, &why);
        if (i == NONE && why != GD_OK && why != GD_ENOMEM) {
            char reason[PATH_BUF];
            pathf(reason, sizeof reason, "pyenv version %.*s is not installed", (int)word.n,
                  word.p);
            problem(f, prefix, reason, kind, ref);
        }
        if (first_word && i != NONE && has3 && *first3 == NONE)
            *first3 = i;
        if (first_word && i != NONE && has && *first == NONE)
            *first = i;
    }
    gd_free(data);
}

static void sysvers_add(struct sysvers *s, const char *v, const char *where)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->items[i].v, v) == 0)
            return;
    if (s->n < SYS_VERSIONS_MAX &&
        pathf(s->items[s->n].where, sizeof s->items[s->n].where, "%s", where)) {
        snprintf(s->items[s->n].v, VERSION_MAX, "%s", v);
        s->n++;
    }
}

/* The Python versions a PATH directory may hold a pythonX.Y of: those its prefix's lib has a
 * pythonX.Y directory for (make altinstall installs only bin/python3.12 beside
 * lib/python3.12). /usr and /usr/local were listed already. */
static void path_versions(struct finder *f, const char *real, struct sysvers *out)
{
    char prefix[PATH_BUF], lib[PATH_BUF], v[VERSION_MAX];
    out->n = 0;
    if (strcmp(gd_path_base(real), "bin") != 0 || !parent_of(real, prefix, sizeof prefix))
        return;
    if (strcmp(prefix, "/usr") == 0) {
        *out = f->usr;
        return;
    }
    if (strcmp(prefix, "/usr/local") == 0) {
        *out = f->local;
        for (size_t i = 0; i < f->local_dist.n; i++)
            sysvers_add(out, f->local_dist.items[i].v, "");
        return;
    }
    struct gd_names names;
    if (!pathf(lib, sizeof lib, "%s/lib", prefix) || !list(f, lib, &names))
        return;
    for (size_t i = 0; i < names.count; i++)
        if (name_version(names.names[i], v))
            sysvers_add(out, v, "");
    gd_names_free(&names);
}

static void path_dir(struct finder *f, const char *entry, const char *real, size_t *first3,
                     size_t *first)
{
    char parent[PATH_BUF], versions[PATH_BUF], path[PATH_BUF], name[32];
    if (strcmp(gd_path_base(real), "shims") == 0 && parent_of(real, parent, sizeof parent) &&
        pathf(versions, sizeof versions, "%s/versions", parent) && is_dir(f, versions)) {
        pyenv_shims(f, entry, parent, first3, first);
        return;
    }
    /* Names are looked up, not found by listing the directory: /usr/bin holds a thousand files,
     * and listing it cost 50 times as much as two dozen lookups. */
    static const char *const fixed[] = { "python3", "python", "python2", "python2.7" };
    struct sysvers vers;
    path_versions(f, real, &vers);
    for (size_t i = 0; i < 4 + vers.n && alive(f); i++) {
        if (i < 4)
            snprintf(name, sizeof name, "%s", fixed[i]);
        else if (strcmp(vers.items[i - 4].v, "2.7") != 0)
            snprintf(name, sizeof name, "python%s", vers.items[i - 4].v);
        else
            continue;
        struct gd_os_stat s;
        if (!pathf(path, sizeof path, "%s/%s", entry, name) ||
            seen(f, gd_root_lstat(f->root, path, &s)) != GD_OK)
            continue;
        size_t idx = interpreter(f, path, "PATH", GD_SOURCE_PATH, path);
        if (idx != NONE && i == 0 && *first3 == NONE)
            *first3 = idx;
        if (idx != NONE && i == 1 && *first == NONE)
            *first = idx;
    }
}

/* Every python, python3 and pythonX.Y on PATH. The default is what a
 * shell runs for `python3` (`python` when there is no python3): the first that resolves, as a
 * shell skips a dangling link and goes on. */
static void on_path(struct finder *f)
{
    const char *path = gd_env_get(f->ctx->env, "PATH");
    if (!path)
        return;
    struct gd_strlist dirs = { 0 };
    size_t first3 = NONE, first = NONE, n = 0;
    struct gd_span rest = gd_span_of(path), field;
    char entry[PATH_BUF];
    while (alive(f) && gd_span_next_field(&rest, ':', &field)) {
        /* Empty and relative entries name the current directory: not where Pythons live. */
        if (!field.n || field.p[0] != '/' || field.n >= sizeof entry)
            continue;
        if (++n > GD_PYENV_PATH_DIRS_MAX)
            break;
        memcpy(entry, field.p, field.n);
        entry[field.n] = '\0';
        while (field.n > 1 && entry[field.n - 1] == '/')
            entry[--field.n] = '\0';
        char *real = canon(f, entry, NULL);
        if (real && !gd_strlist_contains(&dirs, real) &&
            seen(f, gd_strlist_push(&dirs, real)) == GD_OK)
            path_dir(f, entry, real, &first3, &first);
        gd_free(real);
    }
    gd_strlist_free(&dirs);
    size_t d = first3 != NONE ? first3 : first;
    if (alive(f) && d != NONE)
        f->out->items[d].is_default = true;
}

/* Every entry of a directory of environments (conda's envs/, pyenv's versions/, .virtualenvs/),
 * one listing. Entries that are no directory, dangle or loop are skipped: the root probe reports
 * loops and escapes. Dot entries are not environments (conda's .conda_envs_dir_test). The
 * directory is resolved once: an entry that is no link is then canonical after one lstat. */
static void envs_dir(struct finder *f, const char *dir, enum gd_pyenv_kind kind,
                     const char *found_by)
{
    struct gd_names names;
    char path[PATH_BUF];
    struct gd_os_stat s;
    char *real = canon(f, dir, NULL);
    if (!real || !list(f, real, &names)) {
        gd_free(real);
        return;
    }
    for (size_t i = 0; i < names.count && i < GD_PYENV_DIR_ENTRIES_MAX && alive(f); i++) {
        if (names.names[i][0] == '.' ||
            !pathf(path, sizeof path, "%s%s%s", real, strcmp(real, "/") ? "/" : "",
                   names.names[i]) ||
            seen(f, gd_root_lstat(f->root, path, &s)) != GD_OK ||
            (s.type != GD_FT_DIR && s.type != GD_FT_LNK))
            continue;
        struct cand c = { .prefix = path,
                          .kind = kind,
                          .found_by = found_by,
                          .found_kind = GD_SOURCE_PATH,
                          .found_ref = dir,
                          .canonical = s.type == GD_FT_DIR };
        add_env(f, &c, NULL);
    }
    gd_names_free(&names);
    gd_free(real);
}

/* A conda root: its base environment (when it has conda-meta; micromamba's root has none) and
 * its envs/. */
static void conda_root(struct finder *f, const char *root)
{
    char path[PATH_BUF];
    if (!is_dir(f, root))
        return;
    if (pathf(path, sizeof path, "%s/conda-meta", root) && is_dir(f, path)) {
        struct cand c = { .prefix = root,
                          .kind = GD_PYENV_CONDA,
                          .found_by = "conda",
                          .found_kind = GD_SOURCE_PATH,
                          .found_ref = root };
        add_env(f, &c, NULL);
    }
    if (pathf(path, sizeof path, "%s/envs", root))
        envs_dir(f, path, GD_PYENV_CONDA, "conda");
}

/* conda registers every environment it creates, wherever it is, in ~/.conda/environments.txt,
 * one prefix per line; removed ones may stay listed. */
static void environments_txt(struct finder *f, const char *file)
{
    char *data = NULL, prefix[PATH_BUF];
    size_t len = 0;
    if (seen(f, gd_root_read_file(f->root, file, GD_PYENV_FILE_MAX, &data, &len)) != GD_OK)
        return;
    const char *cur = data, *end = data + len;
    struct gd_span line;
    while (alive(f) && gd_next_line(&cur, end, &line)) {
        line = gd_span_trim(line);
        if (!line.n || line.p[0] != '/' || line.n >= sizeof prefix)
            continue;
        memcpy(prefix, line.p, line.n);
        prefix[line.n] = '\0';
        struct cand c = { .prefix = prefix,
                          .kind = GD_PYENV_CONDA,
                          .found_by = "environments.txt",
                          .found_kind = GD_SOURCE_FILE,
                          .found_ref = file };
        add_env(f, &c, NULL);
    }
    gd_free(data);
}

static void conda(struct finder *f)
{
    static const char *const in_home[] = { "miniconda3", "anaconda3", "miniforge3", "mambaforge",
                                           "micromamba" };
    static const char *const in_opt[] = { "/opt/conda",      "/opt/miniconda3", "/opt/anaconda3",
                                          "/opt/miniforge3", "/opt/mambaforge", "/opt/micromamba" };
    struct gd_strlist roots = { 0 };
    char path[PATH_BUF], dir[PATH_BUF];
    /* CONDA_EXE is <root>/bin/conda or <root>/condabin/conda; micromamba's root is
     * MAMBA_ROOT_PREFIX. */
    const char *exe = gd_env_get(f->ctx->env, "CONDA_EXE");
    if (exe && exe[0] == '/' && parent_of(exe, dir, sizeof dir) &&
        (strcmp(gd_path_base(dir), "bin") == 0 || strcmp(gd_path_base(dir), "condabin") == 0) &&
        parent_of(dir, path, sizeof path))
        seen(f, gd_strlist_push_unique(&roots, path));
    const char *mamba = gd_env_get(f->ctx->env, "MAMBA_ROOT_PREFIX");
    if (mamba && mamba[0] == '/')
        seen(f, gd_strlist_push_unique(&roots, mamba));
    for (size_t h = 0; h < f->homes.count && alive(f); h++)
        for (size_t i = 0; i < sizeof in_home / sizeof *in_home; i++)
            if (pathf(path, sizeof path, "%s/%s", f->homes.items[h], in_home[i]))
                seen(f, gd_strlist_push_unique(&roots, path));
    for (size_t i = 0; i < sizeof in_opt / sizeof *in_opt && alive(f); i++)
        seen(f, gd_strlist_push_unique(&roots, in_opt[i]));
    for (size_t i = 0; i < roots.count && alive(f); i++)
        conda_root(f, roots.items[i]);
    gd_strlist_free(&roots);
    for (size_t h = 0; h < f->homes.count && alive(f); h++) {
        if (pathf(path, sizeof path, "%s/.conda/envs", f->homes.items[h]))
            envs_dir(f, path, GD_PYENV_CONDA, "conda");
        if (pathf(path, sizeof path, "%s/.conda/environments.txt", f->homes.items[h]))
            environments_txt(f, path);
    }
}

static void pyenv_versions(struct finder *f)
{
    char path[PATH_BUF];
    for (size_t i = 0; i < f->pyenv_roots.count && alive(f); i++)
        if (pathf(path, sizeof path, "%s/versions", f->pyenv_roots.items[i]))
            envs_dir(f, path, GD_PYENV_PYENV, "pyenv");
}

static void virtualenvwrapper(struct finder *f)
{
    struct gd_strlist dirs = { 0 };
    char path[PATH_BUF];
    const char *workon = gd_env_get(f->ctx->env, "WORKON_HOME");
    if (workon && workon[0] == '/')
        seen(f, gd_strlist_push_unique(&dirs, workon));
    for (size_t h = 0; h < f->homes.count && alive(f); h++)
        if (pathf(path, sizeof path, "%s/.virtualenvs", f->homes.items[h]))
            seen(f, gd_strlist_push_unique(&dirs, path));
    for (size_t i = 0; i < dirs.count && alive(f); i++)
        envs_dir(f, dirs.items[i], GD_PYENV_VENV, "virtualenvwrapper");
    gd_strlist_free(&dirs);
}

/* The pythonX.Y directories of a system lib directory that hold a standard library (os.py or
 * os.pyc, the landmarks getpath.py looks for) into `std`, and with `dist` those that hold
 * Debian's dist-packages only into `dist`. One listing. */
static void scan_lib(struct finder *f, const char *lib, struct sysvers *std, struct sysvers *dist)
{
    struct gd_names names;
    char where[64], path[128], v[VERSION_MAX];
    if (!list(f, lib, &names))
        return;
    for (size_t i = 0; i < names.count && alive(f); i++) {
        if (!name_version(names.names[i], v) ||
            !pathf(where, sizeof where, "%s/%s", lib, names.names[i]))
            continue;
        if ((pathf(path, sizeof path, "%s/os.py", where) && is_file(f, path)) ||
            (pathf(path, sizeof path, "%s/os.pyc", where) && is_file(f, path)))
            sysvers_add(std, v, where);
        else if (dist && pathf(path, sizeof path, "%s/dist-packages", where) && is_dir(f, path))
            sysvers_add(dist, v, path);
    }
    gd_names_free(&names);
}

/* The system's versions, read before anything else: whether /usr is Debian's decides the site
 * directories of every environment based on it. */
static void scan_system(struct finder *f)
{
    scan_lib(f, "/usr/lib", &f->usr, NULL);
    scan_lib(f, "/usr/lib64", &f->usr, NULL);
    scan_lib(f, "/usr/local/lib", &f->local, &f->local_dist);
    /* Only Debian's python3 has dist-packages; its /usr/local/lib/pythonX.Y/dist-packages is
     * there for /usr's python3.X, even in an image stripped of the standard library. */
    f->debian = f->local_dist.n > 0 || is_dir(f, "/usr/lib/python3/dist-packages");
    if (f->debian)
        for (size_t i = 0; i < f->local_dist.n; i++)
            sysvers_add(&f->usr, f->local_dist.items[i].v, f->local_dist.items[i].where);
}

static void system_prefix(struct finder *f, const char *prefix, const struct sysvers *vers)
{
    /* The version bin/python3 runs comes first, so that it gets the plain id. */
    char path[PATH_BUF], v[VERSION_MAX] = "";
    if (vers->n > 1 && pathf(path, sizeof path, "%s/bin/python3", prefix)) {
        char *real = canon(f, path, NULL);
        if (real && !name_version(gd_path_base(real), v))
            v[0] = '\0';
        gd_free(real);
    }
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < vers->n && alive(f); i++) {
            if ((strcmp(vers->items[i].v, v) == 0) != (pass == 0))
                continue;
            struct cand c = { .prefix = prefix,
                              .kind = GD_PYENV_SYSTEM,
                              .version = vers->items[i].v,
                              .version_kind = GD_SOURCE_PATH,
                              .version_ref = vers->items[i].where,
                              .found_by = "system",
                              .found_kind = GD_SOURCE_PATH,
                              .found_ref = prefix };
            add_env(f, &c, NULL);
        }
    }
}

static void system_envs(struct finder *f)
{
    system_prefix(f, "/usr", &f->usr);
    if (f->usr.n == 0 && f->debian) {
        /* Debian's packages without a python3.X to run them (a stripped image). */
        struct cand c = { .prefix = "/usr",
                          .kind = GD_PYENV_SYSTEM,
                          .found_by = "system",
                          .found_kind = GD_SOURCE_PATH,
                          .found_ref = "/usr/lib/python3/dist-packages" };
        add_env(f, &c, NULL);
    }
    system_prefix(f, "/usr/local", &f->local);
}

/* pip install --user: <base>/lib/pythonX.Y/site-packages of each home, and PYTHONUSERBASE. */
static void user_sites(struct finder *f)
{
    struct gd_strlist bases = { 0 };
    char path[PATH_BUF], site[PATH_BUF], v[VERSION_MAX];
    for (size_t h = 0; h < f->homes.count && alive(f); h++)
        if (pathf(path, sizeof path, "%s/.local", f->homes.items[h]))
            seen(f, gd_strlist_push_unique(&bases, path));
    if (f->user_base && alive(f))
        seen(f, gd_strlist_push_unique(&bases, f->user_base));
    for (size_t b = 0; b < bases.count && alive(f); b++) {
        struct gd_names names;
        if (!pathf(path, sizeof path, "%s/lib", bases.items[b]) || !list(f, path, &names))
            continue;
        for (size_t i = 0; i < names.count && alive(f); i++) {
            if (!name_version(names.names[i], v) ||
                !pathf(site, sizeof site, "%s/%s/site-packages", path, names.names[i]) ||
                !is_dir(f, site))
                continue;
            struct cand c = { .prefix = bases.items[b],
                              .kind = GD_PYENV_USER,
                              .version = v,
                              .version_kind = GD_SOURCE_PATH,
                              .version_ref = site,
                              .found_by = "user site",
                              .found_kind = GD_SOURCE_PATH,
                              .found_ref = site };
            add_env(f, &c, NULL);
        }
        gd_names_free(&names);
    }
    gd_strlist_free(&bases);
}

/* The base interpreter of every venv is an environment too (its packages serve the venv when it
 * includes the system site); most were found above already. */
static void venv_bases(struct finder *f)
{
    size_t n = f->out->count;
    for (size_t i = 0; i < n && alive(f); i++) {
        /* add_env may move the array: copy the pointers first (the strings stay put). */
        const struct gd_pyenv *e = &f->out->items[i];
        if (e->kind != GD_PYENV_VENV || !e->base_python)
            continue;
        struct cand c = { .prefix = e->base_prefix,
                          .kind = GD_PYENV_SYSTEM,
                          .python = e->base_python,
                          .version = e->version,
                          .version_kind = e->version_kind,
                          .version_ref = e->version_ref,
                          .found_by = "venv base",
                          .found_kind = GD_SOURCE_FILE,
                          .found_ref = e->venv_cfg };
        add_env(f, &c, NULL);
    }
}

/* ---- Windows: where environments are looked for ----------------------------------------------
 * --python and --site; VIRTUAL_ENV and CONDA_PREFIX; python.exe in each PATH directory (the
 * first is what `python` runs; Microsoft's WindowsApps aliases are not interpreters); conda's
 * roots (CONDA_EXE, each home's miniconda3, anaconda3, miniforge3, mambaforge, and the all-users
 * ProgramData\miniconda3 and ProgramData\Anaconda3) with their envs and environments.txt;
 * python.org's installers' directories (each home's AppData\Local\Programs\Python\PythonXY,
 * Program Files\PythonXY, and the older C:\PythonXY); the Microsoft Store's Pythons, whose
 * packages are in the user site under AppData\Local\Packages\PythonSoftwareFoundation.Python.X.Y_*
 * \LocalCache\local-packages; every home's user site (AppData\Roaming\Python\PythonXY); and the
 * base of each venv. Homes: USERPROFILE, and under a foreign root every C:\Users\<name>. */

/* An interpreter python.exe named by PATH or --python: a venv when its directory (Scripts) or
 * the one above holds pyvenv.cfg (site.py's venv()), else the prefix it sits in. */
static size_t win_interpreter(struct finder *f, const char *path, const char *found_by,
                              enum gd_source_kind kind, const char *ref)
{
    char dir[PATH_BUF], up[PATH_BUF];
    if (!is_file(f, path) || !parent_of(path, dir, sizeof dir))
        return NONE;
    char *cfg = win_child(f, dir, "pyvenv.cfg");
    bool venv = cfg && is_file(f, cfg);
    if (!venv && parent_of(dir, up, sizeof up)) {
        gd_free(cfg);
        cfg = win_child(f, up, "pyvenv.cfg");
        venv = cfg && is_file(f, cfg);
    } else {
        up[0] = '\0';
    }
    struct cand c = { .prefix = venv && up[0] ? up : dir,
                      .kind = venv ? GD_PYENV_VENV : GD_PYENV_SYSTEM,
                      .python = path,
                      .cfg = venv ? cfg : NULL,
                      .found_by = found_by,
                      .found_kind = kind,
                      .found_ref = ref };
    size_t idx = add_env(f, &c, NULL);
    gd_free(cfg);
    return idx;
}

static void win_given(struct finder *f)
{
    const struct gd_strlist *py = f->ctx->pythons, *sites = f->ctx->sites;
    char path[PATH_BUF];
    for (size_t i = 0; py && i < py->count && alive(f); i++) {
        if (!win_path(f, py->items[i], path, sizeof path)) {
            problem(f, py->items[i], "no such file or directory", GD_SOURCE_OPTION, "--python");
            continue;
        }
        if (!is_dir(f, path)) {
            win_interpreter(f, path, "--python", GD_SOURCE_OPTION, "--python");
            continue;
        }
        struct cand c = { .prefix = path,
                          .kind = GD_PYENV_SYSTEM,
                          .found_by = "--python",
                          .found_kind = GD_SOURCE_OPTION,
                          .found_ref = "--python" };
        add_env(f, &c, NULL);
    }
    for (size_t i = 0; sites && i < sites->count && alive(f); i++) {
        enum gd_status why = GD_ENOENT;
        struct cand c = { .prefix = path,
                          .kind = GD_PYENV_GIVEN,
                          .found_by = "--site",
                          .found_kind = GD_SOURCE_OPTION,
                          .found_ref = "--site" };
        if (!win_path(f, sites->items[i], path, sizeof path) || add_env(f, &c, &why) == NONE)
            unusable(f, sites->items[i], why, GD_SOURCE_OPTION, "--site");
    }
}

static void win_active(struct finder *f)
{
    static const struct {
        const char *var;
        enum gd_pyenv_kind kind;
    } vars[] = { { "VIRTUAL_ENV", GD_PYENV_VENV }, { "CONDA_PREFIX", GD_PYENV_CONDA } };
    char path[PATH_BUF];
    for (size_t i = 0; i < 2 && alive(f); i++) {
        const char *v = gd_probe_getenv(f->ctx, vars[i].var);
        if (!v || !*v)
            continue;
        if (!win_path(f, v, path, sizeof path)) {
            problem(f, v, "no such directory on the inspected drive", GD_SOURCE_ENV, vars[i].var);
            continue;
        }
        struct cand c = { .prefix = path,
                          .kind = vars[i].kind,
                          .found_by = vars[i].var,
                          .found_kind = GD_SOURCE_ENV,
                          .found_ref = vars[i].var,
                          .active_var = vars[i].var };
        enum gd_status why;
        if (add_env(f, &c, &why) == NONE)
            unusable(f, v, why, GD_SOURCE_ENV, vars[i].var);
    }
}

static void win_on_path(struct finder *f)
{
    const char *value = gd_probe_getenv(f->ctx, "PATH");
    if (!value)
        return;
    struct gd_span rest = gd_span_of(value), item;
    size_t n = 0, first = NONE;
    char dir[PATH_BUF];
    while (alive(f) && gd_span_next_field(&rest, ';', &item) && n++ < GD_PYENV_PATH_DIRS_MAX) {
        char *text = own(f, gd_strndup(item.p, item.n));
        if (!text)
            break;
        bool ok = win_path(f, text, dir, sizeof dir);
        gd_free(text);
        /* WindowsApps holds the Store's app execution aliases: reparse points that start the
         * Store (or the installed Store Python), not an interpreter of that directory. */
        if (!ok || gd_winpath_name_eq(gd_path_base(dir), "WindowsApps"))
            continue;
        char *python = win_child(f, dir, "python.exe");
        if (python) {
            size_t idx = win_interpreter(f, python, "PATH", GD_SOURCE_PATH, python);
            if (idx != NONE && first == NONE)
                first = idx;
        }
        gd_free(python);
    }
    if (alive(f) && first != NONE)
        f->out->items[first].is_default = true;
}

/* Every entry of a directory whose name a predicate accepts, as environments of `kind`. */
static void win_each(struct finder *f, const char *dir, bool (*want)(const char *),
                     enum gd_pyenv_kind kind, const char *found_by)
{
    struct gd_names names;
    char path[PATH_BUF];
    if (!dir || !list(f, dir, &names))
        return;
    for (size_t i = 0; i < names.count && i < GD_PYENV_DIR_ENTRIES_MAX && alive(f); i++) {
        if ((want && !want(names.names[i])) ||
            !pathf(path, sizeof path, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", names.names[i]) ||
            !is_dir(f, path))
            continue;
        struct cand c = { .prefix = path,
                          .kind = kind,
                          .found_by = found_by,
                          .found_kind = GD_SOURCE_PATH,
                          .found_ref = dir };
        add_env(f, &c, NULL);
    }
    gd_names_free(&names);
}

static bool python_dir(const char *name)
{
    char v[VERSION_MAX];
    return win_name_version(name, v);
}

static void win_conda_root(struct finder *f, const char *root)
{
    char *meta = win_child(f, root, "conda-meta");
    if (meta && is_dir(f, meta)) {
        struct cand c = { .prefix = root,
                          .kind = GD_PYENV_CONDA,
                          .found_by = "conda",
                          .found_kind = GD_SOURCE_PATH,
                          .found_ref = root };
        add_env(f, &c, NULL);
    }
    gd_free(meta);
    char *envs = win_child(f, root, "envs");
    win_each(f, envs, NULL, GD_PYENV_CONDA, "conda");
    gd_free(envs);
}

static void win_conda(struct finder *f)
{
    static const char *const in_home[] = { "miniconda3", "anaconda3", "miniforge3", "mambaforge" };
    static const char *const all_users[] = { "/ProgramData/miniconda3", "/ProgramData/Anaconda3" };
    char path[PATH_BUF];
    struct gd_strlist roots = { 0 };
    /* CONDA_EXE is <root>\Scripts\conda.exe or <root>\condabin\conda.bat. */
    const char *exe = gd_probe_getenv(f->ctx, "CONDA_EXE");
    char dir[PATH_BUF], root[PATH_BUF];
    if (exe && win_path(f, exe, path, sizeof path) && parent_of(path, dir, sizeof dir) &&
        parent_of(dir, root, sizeof root))
        seen(f, gd_strlist_push_unique(&roots, root));
    for (size_t h = 0; h < f->homes.count && alive(f); h++)
        for (size_t i = 0; i < sizeof in_home / sizeof *in_home; i++) {
            char *r = win_child(f, f->homes.items[h], in_home[i]);
            if (r)
                seen(f, gd_strlist_push_unique(&roots, r));
            gd_free(r);
        }
    for (size_t i = 0; i < sizeof all_users / sizeof *all_users && alive(f); i++) {
        char *r = NULL;
        if (seen(f, gd_root_find_nocase(f->root, all_users[i], &r)) == GD_OK)
            seen(f, gd_strlist_push_unique(&roots, r));
        gd_free(r);
    }
    for (size_t i = 0; i < roots.count && alive(f); i++)
        win_conda_root(f, roots.items[i]);
    gd_strlist_free(&roots);
    /* conda lists every environment it made in .conda\environments.txt, as Windows paths. */
    for (size_t h = 0; h < f->homes.count && alive(f); h++) {
        char *file = win_child(f, f->homes.items[h], ".conda/environments.txt");
        char *data = NULL;
        size_t len = 0;
        if (file &&
            seen(f, gd_root_read_file(f->root, file, GD_PYENV_FILE_MAX, &data, &len)) == GD_OK) {
            const char *cur = data, *end = data + len;
            struct gd_span line;
            while (alive(f) && gd_next_line(&cur, end, &line)) {
                line = gd_span_trim(line);
                char text[PATH_BUF];
                if (!line.n || line.n >= sizeof text)
                    continue;
                memcpy(text, line.p, line.n);
                text[line.n] = '\0';
                if (!win_path(f, text, path, sizeof path))
                    continue;
                struct cand c = { .prefix = path,
                                  .kind = GD_PYENV_CONDA,
                                  .found_by = "environments.txt",
                                  .found_kind = GD_SOURCE_FILE,
                                  .found_ref = file };
                add_env(f, &c, NULL);
            }
        }
        gd_free(data);
        gd_free(file);
    }
}

/* python.org's installers: per user under AppData\Local\Programs\Python, for all users under
 * Program Files (from 3.5) or the drive's root (before). */
static void win_python_org(struct finder *f)
{
    for (size_t h = 0; h < f->homes.count && alive(f); h++) {
        char *dir = win_child(f, f->homes.items[h], "AppData/Local/Programs/Python");
        win_each(f, dir, python_dir, GD_PYENV_SYSTEM, "python.org installer");
        gd_free(dir);
    }
    char *pf = NULL;
    if (seen(f, gd_root_find_nocase(f->root, "/Program Files", &pf)) == GD_OK)
        win_each(f, pf, python_dir, GD_PYENV_SYSTEM, "python.org installer");
    gd_free(pf);
    win_each(f, "/", python_dir, GD_PYENV_SYSTEM, "python.org installer");
}

/* User sites: each home's AppData\Roaming\Python (site.py's %APPDATA%\Python) and the Store
 * Pythons' LocalCache\local-packages, one environment per PythonXY holding site-packages. */
static void win_user_base(struct finder *f, const char *base, const char *found_by)
{
    struct gd_names names;
    if (!base || !list(f, base, &names))
        return;
    for (size_t i = 0; i < names.count && alive(f); i++) {
        char v[VERSION_MAX], rel[64];
        if (!win_name_version(names.names[i], v) ||
            !pathf(rel, sizeof rel, "%s/site-packages", names.names[i]))
            continue;
        char *site = win_child(f, base, rel);
        if (site && is_dir(f, site)) {
            struct cand c = { .prefix = base,
                              .kind = GD_PYENV_USER,
                              .version = v,
                              .version_kind = GD_SOURCE_PATH,
                              .version_ref = site,
                              .found_by = found_by,
                              .found_kind = GD_SOURCE_PATH,
                              .found_ref = site };
            add_env(f, &c, NULL);
        }
        gd_free(site);
    }
    gd_names_free(&names);
}

static void win_user_sites(struct finder *f)
{
    for (size_t h = 0; h < f->homes.count && alive(f); h++) {
        char *base = win_child(f, f->homes.items[h], "AppData/Roaming/Python");
        win_user_base(f, base, "user site");
        gd_free(base);
        char *pkgs = win_child(f, f->homes.items[h], "AppData/Local/Packages");
        struct gd_names names;
        if (pkgs && list(f, pkgs, &names)) {
            for (size_t i = 0; i < names.count && alive(f); i++) {
                if (!gd_str_starts_with(names.names[i], "PythonSoftwareFoundation.Python."))
                    continue;
                char rel[PATH_BUF];
                if (!pathf(rel, sizeof rel, "%s/LocalCache/local-packages", names.names[i]))
                    continue;
                char *local = win_child(f, pkgs, rel);
                win_user_base(f, local, "Microsoft Store Python");
                gd_free(local);
            }
            gd_names_free(&names);
        }
        gd_free(pkgs);
    }
}

/* Homes: USERPROFILE, and under a foreign root every C:\Users\<name> but Windows' own profiles.
 * The user base: PYTHONUSERBASE, else %APPDATA%\Python (site.py), else the profile's
 * AppData\Roaming\Python. */
static void win_setup(struct finder *f)
{
    static const char *const not_users[] = { "Public", "Default", "Default User", "All Users" };
    char path[PATH_BUF];
    const char *profile = gd_probe_getenv(f->ctx, "USERPROFILE");
    if (profile && win_path(f, profile, path, sizeof path))
        seen(f, gd_strlist_push_unique(&f->homes, path));
    if (!gd_root_is_live(f->root)) {
        char *users = NULL;
        struct gd_names names;
        if (seen(f, gd_root_find_nocase(f->root, "/Users", &users)) == GD_OK &&
            list(f, users, &names)) {
            for (size_t i = 0; i < names.count && alive(f); i++) {
                bool skip = false;
                for (size_t k = 0; k < sizeof not_users / sizeof *not_users; k++)
                    skip = skip || gd_winpath_name_eq(names.names[i], not_users[k]);
                if (!skip && f->homes.count < GD_PYENV_HOMES_MAX &&
                    pathf(path, sizeof path, "%s/%s", users, names.names[i]) && is_dir(f, path))
                    seen(f, gd_strlist_push_unique(&f->homes, path));
            }
            gd_names_free(&names);
        }
        gd_free(users);
    }
    const char *no_user = gd_probe_getenv(f->ctx, "PYTHONNOUSERSITE");
    const char *base = gd_probe_getenv(f->ctx, "PYTHONUSERBASE");
    const char *appdata = gd_probe_getenv(f->ctx, "APPDATA");
    if (no_user && *no_user)
        return;
    if (base && win_path(f, base, path, sizeof path)) {
        f->user_base = dup(f, path);
    } else if (appdata && win_path(f, appdata, path, sizeof path)) {
        f->user_base = win_child(f, path, "Python");
    } else if (profile && win_path(f, profile, path, sizeof path)) {
        f->user_base = win_child(f, path, "AppData/Roaming/Python");
    }
}

static void win_find(struct finder *f)
{
    win_setup(f);
    win_given(f);
    win_active(f);
    win_on_path(f);
    win_conda(f);
    win_python_org(f);
    win_user_sites(f);
    venv_bases(f);
}

/* Homes: $HOME, and for an image every /root and /home/<user> (whose user will run it is not
 * known). Pyenv roots: PYENV_ROOT and each home's .pyenv, canonical. The user site's base. */
static void setup(struct finder *f)
{
    const struct gd_env *env = f->ctx->env;
    char path[PATH_BUF];
    if (gd_root_is_live(f->root) && seen(f, gd_os_getcwd(&f->cwd)) != GD_OK)
        f->cwd = NULL;
    const char *home = gd_env_get(env, "HOME");
    if (home && home[0] == '/' && pathf(path, sizeof path, "%s", home)) {
        for (size_t n = strlen(path); n > 1 && path[n - 1] == '/'; n--)
            path[n - 1] = '\0';
        seen(f, gd_strlist_push_unique(&f->homes, path));
    }
    if (!gd_root_is_live(f->root)) {
        if (is_dir(f, "/root"))
            seen(f, gd_strlist_push_unique(&f->homes, "/root"));
        struct gd_names names;
        if (list(f, "/home", &names)) {
            for (size_t i = 0; i < names.count && alive(f); i++)
                if (f->homes.count < GD_PYENV_HOMES_MAX &&
                    pathf(path, sizeof path, "/home/%s", names.names[i]) && is_dir(f, path))
                    seen(f, gd_strlist_push_unique(&f->homes, path));
            gd_names_free(&names);
        }
    }
    const char *pyenv_root = gd_env_get(env, "PYENV_ROOT");
    for (size_t h = 0; h <= f->homes.count && alive(f); h++) {
        bool var = h == f->homes.count;
        if (var ? !(pyenv_root && pyenv_root[0] == '/' &&
                    pathf(path, sizeof path, "%s", pyenv_root))
                : !pathf(path, sizeof path, "%s/.pyenv", f->homes.items[h]))
            continue;
        char *real = is_dir(f, path) ? canon(f, path, NULL) : NULL;
        if (real)
            seen(f, gd_strlist_push_unique(&f->pyenv_roots, real));
        gd_free(real);
    }
    /* site.py: no user site with PYTHONNOUSERSITE set (-s); its base is PYTHONUSERBASE, else
     * ~/.local of the user who runs Python: $HOME. */
    const char *no_user = gd_env_get(env, "PYTHONNOUSERSITE");
    const char *base = gd_env_get(env, "PYTHONUSERBASE");
    /* Canonical (a home may be reached through a link, /home -> /var/home); when it does not
     * exist there is no user site either. */
    if (no_user && *no_user)
        f->user_base = NULL;
    else if (base && base[0] == '/')
        f->user_base = canon(f, base, NULL);
    else if (home && home[0] == '/' && pathf(path, sizeof path, "%s/.local", home))
        f->user_base = canon(f, path, NULL);
    scan_system(f);
}

enum gd_status gd_find_python_envs(struct gd_probe_ctx *ctx, struct gd_pyenvs *out)
{
    memset(out, 0, sizeof *out);
    struct finder f;
    memset(&f, 0, sizeof f);
    f.ctx = ctx;
    f.root = ctx->root;
    f.out = out;
    f.st = GD_OK;
    /* The root's sticky flag catches an allocation lost inside it (an anomaly's note) that no
     * status reported. */
    bool oom_before = gd_root_out_of_memory(ctx->root);
    f.windows = ctx->windows;
    if (f.windows) {
        win_find(&f);
    } else {
        setup(&f);
        given(&f);
        active(&f);
        on_path(&f);
        conda(&f);
        pyenv_versions(&f);
        virtualenvwrapper(&f);
        system_envs(&f);
        user_sites(&f);
        venv_bases(&f);
    }
    gd_free(f.cwd);
    gd_free(f.user_base);
    gd_strlist_free(&f.homes);
    gd_strlist_free(&f.pyenv_roots);
    if (f.st != GD_OK || (!oom_before && gd_root_out_of_memory(ctx->root))) {
        gd_pyenvs_free(out);
        return GD_ENOMEM;
    }
    return GD_OK;
}
