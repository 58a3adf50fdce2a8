/*
 * The CUDA family inventory: every copy of libcudart, libcublas, libcudnn, libnccl, ... that
 * this machine holds, where it came from, its version from every source that states one, and
 * which copy the loader picks for each SONAME.
 *
 * Places searched: the loader's (ld.so.cache entries, LD_LIBRARY_PATH, ld.so.conf and default
 * directories), CUDA_HOME / CUDA_PATH / CUDNN_PATH, /usr/local/cuda*, /opt, conda environments,
 * and the nvidia-* wheels (and torch/lib) of every site-packages found.
 *
 * Facts recorded: entity "library" per copy (id "<family>:<real path>"), entity "soname" per
 * SONAME the loader was asked for, entity "library_link" per broken link.
 */
#include "probe/probe.h"

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "core/strmap.h"
#include "core/version.h"
#include "elf/elf.h"
#include "kb/kb.h"
#include "loader/elfcache.h"
#include "loader/loader.h"
#include "parse/cuda_version.h"
#include "parse/record.h"
#include "probe/families.h"
#include "probe/libcalls.h"
#include "sysroot/glob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIRS_MAX     2048
#define COPIES_MAX   4096
#define OPT_DEPTH    4
#define OPT_DIRS_MAX 2000
#define HEADER_HEAD  (256 * 1024)
#define RECORD_MAX   (4 * 1024 * 1024)
/* Name and Version lead a METADATA file; its long description may follow. */
#define METADATA_HEAD (16 * 1024)
/* cuBLAS pulls in the 500 MiB cuBLASLt; a cold page cache makes its dlopen take a second. */
#define CALL_TIMEOUT_MS 20000

struct dir {
    char *path;   /* canonical, inside the root */
    char *origin; /* why it is searched: "ld.so.cache", "CUDA_HOME", "site-packages ..." */
    bool loader;  /* the loader searches it (cache, LD_LIBRARY_PATH, ld.so.conf, default) */
};

struct copy {
    const struct gd_kb_row *row;
    const char *family;
    const char *prefix; /* the file-name prefix it matched, "libcudart.so" */
    char *real;
    unsigned long long dev, ino, size;
    struct gd_strlist names; /* every path that leads to it */
    char *key;               /* "dev:ino": its key in copy_index */
    char *origin;
    bool loader_dir, stub;
    char soname[256];
    enum gd_status elf_status; /* reading its ELF headers */
    char name_version[64];
    char *name_version_path;
    char header_version[64], *header_path;
    char json_version[64], *json_path;
    char meta_version[64], *meta_dist, *meta_record;
    /* Its version call (in inventory.calls), on the live machine with --calls only: the
     * half-kilobyte of a result kept in every copy of a foreign root was a fifth of its memory. */
    struct gd_version_call *call;
    char *selected_for; /* the SONAME the loader resolves to this copy, or NULL */
    enum gd_rule selected_rule;
};

struct dist {
    char *name, *version, *record; /* the wheel and its RECORD path */
    char *file;                    /* a file of it: basename */
    char *path; /* where that file is: the directory the dist-info sits in joined with the
                 * RECORD's relative path (NULL for a path with ".." or an absolute one) */
    long long size;
};

struct inventory {
    struct gd_probe_ctx *ctx;
    struct dir *dirs;
    size_t ndirs, cap_dirs;
    struct copy *copies;
    size_t ncopies, cap_copies;
    struct dist *dists;
    size_t ndists, cap_dists;
    struct gd_strlist scanned_dist_dirs;
    struct gd_strlist site_packages;
    struct gd_strmap dir_index;    /* canonical path -> index + 1 in dirs */
    struct gd_strmap copy_index;   /* "dev:ino" -> index + 1 in copies */
    struct gd_strmap site_index;   /* the site directories, for scan_wheels */
    struct gd_strmap scanned;      /* the dist-info directories scan_dist_infos has read */
    struct gd_version_call *calls; /* run_calls' */
    enum gd_status status;
    size_t links;
};

static void fail(struct inventory *inv, enum gd_status st)
{
    if (inv->status == GD_OK && st == GD_ENOMEM)
        inv->status = st;
}

/* Note an allocation's failure; returns `p` so calls stay inline: own(inv, gd_strdup(x)). */
static void *own(struct inventory *inv, void *p)
{
    if (!p)
        fail(inv, GD_ENOMEM);
    return p;
}

/* ---- candidate directories ------------------------------------------------------------------ */

static void add_dir(struct inventory *inv, const char *path, const char *origin, bool loader)
{
    if (inv->ndirs >= DIRS_MAX || !path || path[0] != '/')
        return;
    char *canon = NULL;
    enum gd_status rs = gd_root_resolve(inv->ctx->root, path, true, &canon);
    if (rs != GD_OK) {
        fail(inv, rs);
        return;
    }
    if (!gd_root_is_dir(inv->ctx->root, canon)) {
        gd_free(canon);
        return;
    }
    uintptr_t seen = (uintptr_t)gd_strmap_get(&inv->dir_index, canon);
    if (seen) {
        inv->dirs[seen - 1].loader |= loader;
        gd_free(canon);
        return;
    }
    char *o = gd_strdup(origin);
    if (!o || gd_grow((void **)&inv->dirs, &inv->cap_dirs, inv->ndirs + 1, sizeof *inv->dirs) ||
        gd_strmap_put(&inv->dir_index, canon, (void *)(uintptr_t)(inv->ndirs + 1)) != GD_OK) {
        gd_free(o);
        gd_free(canon);
        fail(inv, GD_ENOMEM);
        return;
    }
    inv->dirs[inv->ndirs++] = (struct dir){ canon, o, loader };
}

/* A toolkit-like prefix: its lib64, lib, targets/<triple>/lib and the stubs beside them. */
static void add_toolkit(struct inventory *inv, const char *prefix, const char *origin)
{
    /* CUPTI ships under extras/CUPTI in a toolkit, outside lib64. */
    static const char *const subs[] = { "lib64",
                                        "lib",
                                        "targets/*/lib",
                                        "lib64/stubs",
                                        "lib/stubs",
                                        "targets/*/lib/stubs",
                                        "extras/CUPTI/lib64" };
    for (size_t i = 0; i < sizeof subs / sizeof *subs; i++) {
        char *pattern = gd_path_join(prefix, subs[i]);
        struct gd_strlist found = { 0 };
        if (!pattern || gd_root_glob(inv->ctx->root, pattern, 64, &found) == GD_ENOMEM)
            fail(inv, GD_ENOMEM);
        for (size_t k = 0; k < found.count; k++)
            add_dir(inv, found.items[k], origin, false);
        gd_strlist_free(&found);
        gd_free(pattern);
    }
}

/* /opt holds vendor trees (HPC SDK, TensorRT tarballs, conda): its lib and lib64 directories,
 * a few levels down, within a budget of directories visited. */
static void walk_opt(struct inventory *inv, const char *dir, int depth, size_t *visited)
{
    if (depth > OPT_DEPTH || *visited >= OPT_DIRS_MAX)
        return;
    struct gd_names names;
    if (gd_root_list(inv->ctx->root, dir, &names) != GD_OK)
        return;
    for (size_t i = 0; i < names.count && *visited < OPT_DIRS_MAX; i++) {
        const char *n = names.names[i];
        char *path = gd_path_join(dir, n);
        struct gd_os_stat st;
        if (!path) {
            fail(inv, GD_ENOMEM);
            break;
        }
        /* lstat: a symlinked directory is not followed, so the walk cannot loop. */
        if (gd_root_lstat(inv->ctx->root, path, &st) == GD_OK && st.type == GD_FT_DIR) {
            (*visited)++;
            if (strcmp(n, "lib") == 0 || strcmp(n, "lib64") == 0)
                add_dir(inv, path, "/opt", false);
            else if (strcmp(n, "include") != 0 && strcmp(n, "share") != 0 &&
                     strcmp(n, "doc") != 0 && strcmp(n, "pkgs") != 0)
                walk_opt(inv, path, depth + 1, visited);
        }
        gd_free(path);
    }
    gd_names_free(&names);
}

static void collect_dirs(struct inventory *inv, struct gd_loader *loader)
{
    struct gd_probe_ctx *ctx = inv->ctx;
    /* The loader's own places first: they decide what programs get. */
    const char *llp = gd_env_get(ctx->env, "LD_LIBRARY_PATH");
    for (const char *p = llp; p && *p;) {
        size_t n = strcspn(p, ":;");
        char *d = own(inv, gd_strndup(p, n));
        if (d)
            add_dir(inv, d, "LD_LIBRARY_PATH", true);
        gd_free(d);
        p += n;
        if (*p)
            p++;
    }
    /* A thousand cache entries in a few dozen directories: each directory resolved once. */
    const struct gd_ldcache *cache = gd_loader_cache(loader);
    struct gd_strlist cache_dirs = { 0 };
    for (size_t i = 0; cache && i < cache->count; i++) {
        const char *path = cache->entries[i].path;
        const char *slash = strrchr(path, '/');
        if (!slash || !gd_str_starts_with(cache->entries[i].name, "lib"))
            continue;
        char *d = own(inv, gd_strndup(path, (size_t)(slash - path)));
        if (d && gd_strlist_push_unique(&cache_dirs, d) != GD_OK)
            fail(inv, GD_ENOMEM);
        gd_free(d);
    }
    for (size_t i = 0; i < cache_dirs.count; i++)
        add_dir(inv, cache_dirs.items[i], "ld.so.cache", true);
    gd_strlist_free(&cache_dirs);
    const struct gd_ldconf *conf;
    if (gd_loader_conf(loader, &conf) == GD_ENOMEM)
        fail(inv, GD_ENOMEM);
    for (size_t i = 0; i < conf->dirs.count; i++)
        add_dir(inv, conf->dirs.items[i], "ld.so.conf", true);
    for (size_t i = 0; gd_driver_lib_dirs[i]; i++)
        add_dir(inv, gd_driver_lib_dirs[i], "default library directory", true);
    static const char *const vars[] = { "CUDA_HOME", "CUDA_PATH", "CUDNN_PATH" };
    for (size_t i = 0; i < 3; i++) {
        const char *v = gd_env_get(ctx->env, vars[i]);
        if (v && v[0] == '/')
            add_toolkit(inv, v, vars[i]);
    }
    struct gd_strlist toolkits = { 0 };
    if (gd_root_glob(ctx->root, "/usr/local/cuda*", 64, &toolkits) == GD_ENOMEM)
        fail(inv, GD_ENOMEM);
    for (size_t i = 0; i < toolkits.count; i++)
        add_toolkit(inv, toolkits.items[i], toolkits.items[i]);
    gd_strlist_free(&toolkits);
    size_t visited = 0;
    walk_opt(inv, "/opt", 1, &visited);
    /* Conda environments install the CUDA libraries (cudatoolkit, cuda-cudart, cudnn) into
     * their own <prefix>/lib; a prefix is a conda environment when it has conda-meta. */
    for (size_t s = 0; s < inv->site_packages.count; s++) {
        const char *sp = inv->site_packages.items[s];
        const char *lib = strstr(sp, "/lib/python");
        if (!lib)
            continue;
        char *prefix = own(inv, gd_strndup(sp, (size_t)(lib - sp)));
        char *meta = prefix ? own(inv, gd_path_join(prefix, "conda-meta")) : NULL;
        char *libdir = prefix ? own(inv, gd_path_join(prefix, "lib")) : NULL;
        if (meta && libdir && gd_root_is_dir(ctx->root, meta)) {
            char origin[600];
            snprintf(origin, sizeof origin, "conda environment %s", prefix);
            add_dir(inv, libdir, origin, false);
        }
        gd_free(libdir);
        gd_free(meta);
        gd_free(prefix);
    }
    /* pip wheels: nvidia/<component>/lib, TensorRT's tensorrt_libs, torch's bundled libs. */
    for (size_t s = 0; s < inv->site_packages.count; s++) {
        static const char *const subs[] = { "nvidia/*/lib", "tensorrt_libs", "torch/lib" };
        for (size_t i = 0; i < 3; i++) {
            char *pattern = gd_path_join(inv->site_packages.items[s], subs[i]);
            struct gd_strlist found = { 0 };
            if (!pattern || gd_root_glob(ctx->root, pattern, 256, &found) == GD_ENOMEM)
                fail(inv, GD_ENOMEM);
            char origin[600];
            snprintf(origin, sizeof origin, "site-packages %s", inv->site_packages.items[s]);
            for (size_t k = 0; k < found.count; k++)
                add_dir(inv, found.items[k], origin, false);
            gd_strlist_free(&found);
            gd_free(pattern);
        }
    }
}

/* ---- copies ------------------------------------------------------------------------------------
 */

/* "libcudnn.so.8.9.7" -> "8.9.7" after the prefix; "" for the unversioned name. */
static void version_suffix(const char *name, const char *prefix, char *buf, size_t size)
{
    size_t n = strlen(prefix);
    buf[0] = '\0';
    if (strncmp(name, prefix, n) != 0 || name[n] != '.')
        return;
    struct gd_version v;
    if (gd_version_parse(name + n + 1, &v) == GD_OK && v.pre == GD_PRE_NONE && !v.local[0])
        snprintf(buf, size, "%s", name + n + 1);
}

static void copy_key(char *buf, size_t size, unsigned long long dev, unsigned long long ino)
{
    snprintf(buf, size, "%llx:%llx", dev, ino);
}

static struct copy *find_copy(struct inventory *inv, unsigned long long dev, unsigned long long ino)
{
    char key[40];
    copy_key(key, sizeof key, dev, ino);
    uintptr_t i = (uintptr_t)gd_strmap_get(&inv->copy_index, key);
    return i ? &inv->copies[i - 1] : NULL;
}

static void broken_link(struct inventory *inv, const char *path, enum gd_status st)
{
    char id[64], *target = NULL;
    snprintf(id, sizeof id, "library_link[%zu]", inv->links++);
    struct gd_entity *e = gd_report_add_entity(inv->ctx->report, "library_link", id);
    gd_root_readlink(inv->ctx->root, path, &target);
    gd_fact_str(e, "path", path, gd_src(GD_SOURCE_PATH, path));
    if (target)
        gd_fact_str(e, "target", target, gd_src(GD_SOURCE_PATH, path));
    gd_fact_str(e, "problem", st == GD_ELOOP ? "symlink loop" : "dangling symlink",
                gd_src(GD_SOURCE_PATH, path));
    gd_free(target);
}

static void scan_dir(struct inventory *inv, const struct gd_families *f, const struct dir *d)
{
    struct gd_names names;
    if (gd_root_list(inv->ctx->root, d->path, &names) != GD_OK)
        return;
    bool stubs = strcmp(gd_path_base(d->path), "stubs") == 0;
    for (size_t i = 0; i < names.count && inv->status == GD_OK; i++) {
        const char *prefix;
        const struct gd_kb_row *row = gd_family_match(f, names.names[i], &prefix);
        if (!row || gd_str_ends_with(names.names[i], ".a"))
            continue;
        char *path = gd_path_join(d->path, names.names[i]);
        struct gd_os_stat st;
        if (!path) {
            fail(inv, GD_ENOMEM);
            break;
        }
        enum gd_status s = gd_root_stat(inv->ctx->root, path, &st);
        if (s == GD_ENOENT || s == GD_ELOOP) {
            broken_link(inv, path, s);
            gd_free(path);
            continue;
        }
        if (s != GD_OK || st.type != GD_FT_REG) {
            gd_free(path);
            continue;
        }
        struct copy *c = find_copy(inv, st.dev, st.ino);
        if (!c && inv->ncopies < COPIES_MAX) {
            if (gd_grow((void **)&inv->copies, &inv->cap_copies, inv->ncopies + 1,
                        sizeof *inv->copies)) {
                fail(inv, GD_ENOMEM);
                gd_free(path);
                break;
            }
            c = &inv->copies[inv->ncopies++];
            memset(c, 0, sizeof *c);
            c->row = row;
            c->family = gd_kb_str(row, "family");
            c->prefix = prefix;
            c->dev = st.dev;
            c->ino = st.ino;
            c->size = st.size;
            c->stub = stubs;
            c->origin = gd_strdup(d->origin);
            char key[40];
            copy_key(key, sizeof key, st.dev, st.ino);
            c->key = gd_strdup(key);
            if (!c->key ||
                gd_strmap_put(&inv->copy_index, c->key, (void *)(uintptr_t)inv->ncopies) != GD_OK)
                fail(inv, GD_ENOMEM);
            enum gd_status rs = gd_root_resolve(inv->ctx->root, path, true, &c->real);
            fail(inv, rs);
            if (rs != GD_OK)
                c->real = gd_strdup(path);
            if (!c->origin || !c->real)
                fail(inv, GD_ENOMEM);
        }
        if (c) {
            c->loader_dir |= d->loader;
            if (gd_strlist_push_unique(&c->names, path) != GD_OK)
                fail(inv, GD_ENOMEM);
            char v[64];
            version_suffix(names.names[i], c->prefix, v, sizeof v);
            if (strlen(v) > strlen(c->name_version)) {
                snprintf(c->name_version, sizeof c->name_version, "%s", v);
                gd_free(c->name_version_path);
                c->name_version_path = own(inv, gd_strdup(path));
            }
        }
        gd_free(path);
    }
    gd_names_free(&names);
}

/* ---- versions from files ------------------------------------------------------------------- */

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash != path ? gd_strndup(path, (size_t)(slash - path)) : gd_strdup("/");
}

/* The install prefix of a library directory: lib, lib64, lib/stubs, targets/<t>/lib... */
static char *prefix_of(const char *dir)
{
    char *p = gd_strdup(dir);
    if (!p)
        return NULL;
    /* <toolkit>/extras/CUPTI/lib64: the toolkit is the prefix. */
    char *extras = strstr(p, "/extras/CUPTI/");
    if (extras && extras != p) {
        *extras = '\0';
        return p;
    }
    for (int i = 0; i < 4; i++) {
        char *slash = strrchr(p, '/');
        const char *base = slash ? slash + 1 : p;
        if (strcmp(base, "lib") && strcmp(base, "lib64") && strcmp(base, "stubs") &&
            strcmp(base, "targets") && !strstr(base, "-linux"))
            break;
        if (!slash || slash == p) {
            p[1] = '\0';
            p[0] = '/';
            break;
        }
        *slash = '\0';
    }
    return p;
}

static bool header_version(struct inventory *inv, const struct gd_kb_row *row, const char *path,
                           char *buf, size_t size)
{
    char *data = NULL;
    size_t len = 0;
    if (gd_root_read_head(inv->ctx->root, path, HEADER_HEAD, &data, &len) != GD_OK)
        return false;
    bool ok = false;
    const char *imacro = gd_kb_str(row, "header_int");
    long major, minor, patch, n;
    if (imacro) {
        struct gd_version v;
        const char *enc = gd_kb_str(row, "encoding");
        if (gd_parse_header_define(data, len, imacro, &n) == GD_OK &&
            (enc && strcmp(enc, "cudnn_int") == 0 ? gd_version_from_cudnn_int(n, &v)
                                                  : gd_version_from_cuda_int(n, &v)) == GD_OK) {
            gd_version_format(&v, buf, size);
            ok = true;
        }
    } else if (gd_kb_str(row, "header_major") &&
               gd_parse_header_define(data, len, gd_kb_str(row, "header_major"), &major) == GD_OK &&
               gd_parse_header_define(data, len, gd_kb_str(row, "header_minor"), &minor) == GD_OK) {
        if (gd_parse_header_define(data, len, gd_kb_str(row, "header_patch"), &patch) != GD_OK)
            patch = 0;
        snprintf(buf, size, "%ld.%ld.%ld", major, minor, patch);
        ok = true;
    }
    gd_free(data);
    return ok;
}

/* Headers next to the library (<prefix>/include, the wheel's own include), else the system's. */
static void find_header(struct inventory *inv, struct copy *c)
{
    const char *names[2] = { gd_kb_str(c->row, "header"), gd_kb_str(c->row, "header_alt") };
    if (!names[0])
        return;
    char *dir = own(inv, dir_of(c->real));
    char *prefix = dir ? own(inv, prefix_of(dir)) : NULL;
    char *inc = prefix ? own(inv, gd_path_join(prefix, "include")) : NULL;
    const char *candidates[] = { inc, "/usr/include", "/usr/include/x86_64-linux-gnu",
                                 "/usr/include/aarch64-linux-gnu" };
    /* System headers only count for libraries in system directories. */
    size_t ncand = c->loader_dir && prefix && strcmp(prefix, "/usr") == 0 ? 4 : 1;
    for (size_t i = 0; i < ncand && !c->header_path; i++) {
        for (size_t k = 0; k < 2 && candidates[i] && names[k] && !c->header_path; k++) {
            char *path = gd_path_join(candidates[i], names[k]);
            if (path &&
                header_version(inv, c->row, path, c->header_version, sizeof c->header_version))
                c->header_path = path;
            else
                gd_free(path);
        }
    }
    gd_free(inc);
    gd_free(prefix);
    gd_free(dir);
}

static void find_version_json(struct inventory *inv, struct copy *c)
{
    const char *component = gd_kb_str(c->row, "version_json");
    if (!component)
        return;
    char *dir = own(inv, dir_of(c->real));
    char *prefix = dir ? own(inv, prefix_of(dir)) : NULL;
    char *path = prefix ? own(inv, gd_path_join(prefix, "version.json")) : NULL;
    char *data = NULL;
    size_t len;
    if (path && gd_root_read_file(inv->ctx->root, path, 1024 * 1024, &data, &len) == GD_OK) {
        struct gd_version v;
        enum gd_status ps = gd_parse_component_version_json(data, len, component, &v);
        fail(inv, ps);
        if (ps == GD_OK) {
            gd_version_format(&v, c->json_version, sizeof c->json_version);
            c->json_path = path;
            path = NULL;
        }
    }
    gd_free(data);
    gd_free(path);
    gd_free(prefix);
    gd_free(dir);
}

/* ---- wheel provenance: RECORD files of nvidia-* and tensorrt dist-info directories ---------- */

struct record_scan {
    struct inventory *inv;
    const char *name, *version, *record; /* record: the file that states name and version */
    const char *dir;                     /* the directory holding the dist-info */
};

static bool on_record(void *user, const char *path, long long size)
{
    struct record_scan *s = user;
    const char *base = gd_path_base(path);
    if (!gd_str_starts_with(base, "lib") || !strstr(base, ".so"))
        return true;
    struct inventory *inv = s->inv;
    if (gd_grow((void **)&inv->dists, &inv->cap_dists, inv->ndists + 1, sizeof *inv->dists)) {
        fail(inv, GD_ENOMEM);
        return false;
    }
    struct dist *d = &inv->dists[inv->ndists];
    d->name = gd_strdup(s->name);
    d->version = gd_strdup(s->version);
    d->record = gd_strdup(s->record);
    d->file = gd_strdup(base);
    bool plain = path[0] != '/' && !strstr(path, "..") && !strstr(path, "./");
    d->path = plain ? gd_path_join(s->dir, path) : NULL;
    d->size = size;
    inv->ndists++;
    if (!d->name || !d->version || !d->record || !d->file || (plain && !d->path)) {
        fail(inv, GD_ENOMEM);
        return false;
    }
    return true;
}

static void scan_dist_infos(struct inventory *inv, const char *dir)
{
    /* The copies of one site directory come one after another: the last one answers most. */
    size_t n = inv->scanned_dist_dirs.count;
    if (n && strcmp(inv->scanned_dist_dirs.items[n - 1], dir) == 0)
        return;
    if (gd_strmap_get(&inv->scanned, dir))
        return;
    if (gd_strlist_push(&inv->scanned_dist_dirs, dir) != GD_OK ||
        gd_strmap_put(&inv->scanned, inv->scanned_dist_dirs.items[n], (void *)1) != GD_OK) {
        fail(inv, GD_ENOMEM);
        return;
    }
    struct gd_names names;
    if (gd_root_list(inv->ctx->root, dir, &names) != GD_OK)
        return;
    for (size_t i = 0; i < names.count && inv->status == GD_OK; i++) {
        char name[256], version[128];
        if (!gd_dist_info_name(names.names[i], name, sizeof name, version, sizeof version))
            continue;
        if (!gd_str_starts_with(name, "nvidia") && !gd_str_starts_with(name, "tensorrt"))
            continue;
        char *info = own(inv, gd_path_join(dir, names.names[i]));
        char *record = info ? own(inv, gd_path_join(info, "RECORD")) : NULL;
        char *meta = info ? own(inv, gd_path_join(info, "METADATA")) : NULL;
        char *data = NULL;
        size_t len;
        /* The distribution's own Name and Version (core metadata); the directory name is the
         * installer's normalised copy of them. */
        if (meta && gd_root_read_head(inv->ctx->root, meta, METADATA_HEAD, &data, &len) == GD_OK) {
            gd_metadata_field(data, len, "Name", name, sizeof name);
            gd_metadata_field(data, len, "Version", version, sizeof version);
        }
        gd_free(data);
        data = NULL;
        if (record && gd_root_read_file(inv->ctx->root, record, RECORD_MAX, &data, &len) == GD_OK) {
            struct record_scan s = { inv, name, version, meta, dir };
            gd_parse_record(data, len, on_record, &s);
        }
        gd_free(data);
        gd_free(meta);
        gd_free(record);
        gd_free(info);
    }
    gd_names_free(&names);
}

/* The dist-info directories of the copy's site-packages (a wheel installs next to its
 * dist-info), and of a prefix's own dist-info directory (toolkits assembled from wheels keep
 * them there). */
static void scan_wheels(struct inventory *inv, const struct copy *c)
{
    /* Each directory above the copy that is a site directory: a hundred environments make a
     * long list of them, and a dozen lookups of the copy's ancestors beat a scan of it. */
    char up[GD_ROOT_PATH_MAX + 1];
    size_t len = strlen(c->real);
    if (len < sizeof up) {
        memcpy(up, c->real, len + 1);
        for (char *slash = strrchr(up, '/'); slash && slash != up; slash = strrchr(up, '/')) {
            *slash = '\0';
            if (gd_strmap_get(&inv->site_index, up))
                scan_dist_infos(inv, up);
        }
    }
    char *dir = own(inv, dir_of(c->real));
    char *prefix = dir ? own(inv, prefix_of(dir)) : NULL;
    char *di = prefix ? own(inv, gd_path_join(prefix, "dist-info")) : NULL;
    /* Rare (toolkits assembled from wheels): asked of the stat cache before the list of
     * directories already scanned, which a hundred environments make long. */
    if (di && gd_root_is_dir(inv->ctx->root, di))
        scan_dist_infos(inv, di);
    gd_free(di);
    gd_free(prefix);
    gd_free(dir);
}

static int cmp_dist_path(const void *a, const void *b)
{
    const struct dist *x = a, *y = b;
    if (!x->path || !y->path)
        return !x->path - !y->path;
    return strcmp(x->path, y->path);
}

static void set_wheel(struct inventory *inv, struct copy *c, const struct dist *d)
{
    snprintf(c->meta_version, sizeof c->meta_version, "%s", d->version);
    c->meta_dist = own(inv, gd_strdup(d->name));
    c->meta_record = own(inv, gd_strdup(d->record));
}

/* The wheel whose RECORD lists the copy: by path (one of the names that lead to it), so that
 * a hundred environments with the same wheel each get their own; else (a toolkit assembled
 * from wheels keeps its dist-info elsewhere, a path reached through a link) by file name and
 * size, the first of them. `inv->dists` is sorted by path. */
static void find_wheel(struct inventory *inv, struct copy *c)
{
    for (size_t k = 0; inv->ndists && k < c->names.count; k++) {
        struct dist key = { .path = c->names.items[k] };
        const struct dist *d =
            bsearch(&key, inv->dists, inv->ndists, sizeof *inv->dists, cmp_dist_path);
        if (d && (d->size < 0 || (unsigned long long)d->size == c->size)) {
            set_wheel(inv, c, d);
            return;
        }
    }
    const char *base = gd_path_base(c->real);
    for (size_t i = 0; i < inv->ndists; i++) {
        const struct dist *d = &inv->dists[i];
        if (strcmp(d->file, base) == 0 && (d->size < 0 || (unsigned long long)d->size == c->size)) {
            set_wheel(inv, c, d);
            return;
        }
    }
}

/* The SONAME as the loader reads it (its headers only, as the loader emulator reads the same
 * file after: through the check's cache, once). */
static void read_soname(struct inventory *inv, struct copy *c)
{
    struct gd_elf *elf = NULL;
    enum gd_status st;
    if (inv->ctx->elves) {
        struct gd_os_stat fs;
        enum gd_status rs = GD_OK;
        st = gd_elf_cache_read(inv->ctx->elves, c->real, &elf, &fs, &rs);
        if (st == GD_OK)
            st = rs;
    } else {
        struct gd_os_file *f;
        st = gd_root_open(inv->ctx->root, c->real, &f);
        if (st == GD_OK) {
            st = gd_elf_read_file_ex(f, 0, GD_ELF_LOADER_ONLY, NULL, &elf);
            gd_os_close(f);
        }
    }
    if (st == GD_OK && elf->soname)
        snprintf(c->soname, sizeof c->soname, "%s", elf->soname);
    gd_elf_free(elf);
    c->elf_status = st;
    fail(inv, st);
}

/* ---- version calls (the live machine only) -------------------------------------------------- */

/* The version call the KB names for the copy, when it has one to ask. */
static bool call_of(const struct copy *c, const char **symbol, enum gd_call_kind *kind)
{
    *symbol = gd_kb_str(c->row, "call");
    return *symbol && !c->stub && gd_call_kind_parse(gd_kb_str(c->row, "call_kind"), kind);
}

static void run_calls(struct inventory *inv)
{
    if (!gd_root_is_live(inv->ctx->root) || !inv->ctx->calls)
        return;
    const char *symbol;
    enum gd_call_kind kind;
    size_t n = 0;
    for (size_t i = 0; i < inv->ncopies; i++)
        n += call_of(&inv->copies[i], &symbol, &kind);
    if (!n)
        return;
    inv->calls = gd_calloc(n, sizeof *inv->calls);
    if (!inv->calls) {
        fail(inv, GD_ENOMEM);
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < inv->ncopies; i++) {
        struct copy *c = &inv->copies[i];
        if (!call_of(c, &symbol, &kind))
            continue;
        c->call = &inv->calls[k++];
        c->call->path = c->real;
        c->call->symbol = symbol;
        c->call->kind = kind;
        c->call->encoding = gd_kb_str(c->row, "encoding");
    }
    if (gd_version_calls_run(inv->calls, n, CALL_TIMEOUT_MS) == GD_ENOMEM)
        fail(inv, GD_ENOMEM);
}

/* ---- what the loader picks ------------------------------------------------------------------- */

static void resolve_sonames(struct inventory *inv, struct gd_loader *loader)
{
    struct gd_load *load = NULL;
    int cls = 64;
    uint16_t machine = 62;
    /* The ELF class and machine searched for: those of the system's own programs. */
    struct gd_os_file *f;
    if (gd_root_open(inv->ctx->root, "/bin/sh", &f) == GD_OK) {
        struct gd_elf *elf = NULL;
        enum gd_status es = gd_elf_read_file(f, &elf);
        fail(inv, es);
        if (es == GD_OK) {
            cls = elf->elf_class;
            machine = elf->machine;
        }
        gd_elf_free(elf);
        gd_os_close(f);
    }
    enum gd_status ls = gd_load_start_virtual(loader, cls, machine, &load);
    if (ls != GD_OK) {
        fail(inv, ls);
        return;
    }
    struct gd_strlist asked = { 0 };
    for (size_t i = 0; i < inv->ncopies && inv->status == GD_OK; i++) {
        const char *soname = inv->copies[i].soname;
        /* A stub's SONAME (libcuda.so.1) is asked too: finding the stub there is the failure. */
        if (!soname[0] || gd_strlist_contains(&asked, soname))
            continue;
        if (gd_strlist_push(&asked, soname) != GD_OK) {
            fail(inv, GD_ENOMEM);
            break;
        }
        struct gd_edge *edge = NULL;
        enum gd_status rs = gd_load_resolve(load, gd_load_main(load), soname, false, &edge);
        if (rs != GD_OK) {
            fail(inv, rs);
            break;
        }
        char id[300];
        snprintf(id, sizeof id, "soname:%s", soname);
        struct gd_entity *e = gd_report_add_entity(inv->ctx->report, "soname", id);
        struct gd_source src = gd_src(GD_SOURCE_DERIVED, "glibc's search order (gpudoctor which)");
        gd_fact_str(e, "soname", soname, src);
        gd_fact_str(e, "family", inv->copies[i].family, src);
        if (edge->to) {
            gd_fact_str(e, "path", edge->to->path, src);
            gd_fact_str(e, "rule", gd_rule_name(edge->rule), src);
            for (size_t k = 0; k < inv->ncopies; k++) {
                struct copy *c = &inv->copies[k];
                if (c->dev == edge->to->dev && c->ino == edge->to->ino && !c->selected_for) {
                    c->selected_for = own(inv, gd_strdup(soname));
                    c->selected_rule = edge->rule;
                }
            }
        } else {
            gd_fact_absent(e, "path", edge->error ? edge->error : "not found", src);
        }
    }
    gd_strlist_free(&asked);
    gd_load_free(load);
}

/* ---- facts ------------------------------------------------------------------------------------
 */

static void record_copy(struct inventory *inv, const struct copy *c)
{
    char id[4200];
    snprintf(id, sizeof id, "%s:%s", c->family, c->real);
    struct gd_entity *e = gd_report_add_entity(inv->ctx->report, "library", id);
    struct gd_source at = gd_src(GD_SOURCE_PATH, c->real);
    gd_fact_str(e, "family", c->family, at);
    gd_fact_str(e, "path", c->real, at);
    struct gd_buf names;
    gd_buf_init(&names, 64 * 1024);
    for (size_t i = 0; i < c->names.count; i++)
        gd_buf_printf(&names, "%s%s", i ? ", " : "", c->names.items[i]);
    fail(inv, gd_buf_status(&names));
    gd_fact_str(e, "names", gd_buf_str(&names), at);
    gd_buf_free(&names);
    gd_fact_str(e, "found_in", c->origin, at);
    gd_fact_bool(e, "loader_directory", c->loader_dir, at);
    gd_fact_bool(e, "stub", c->stub, at);
    gd_fact_int(e, "size", (long long)c->size, at);
    char elf_ref[4200];
    snprintf(elf_ref, sizeof elf_ref, "%s:DT_SONAME", c->real);
    if (c->soname[0])
        gd_fact_str(e, "soname", c->soname, gd_src(GD_SOURCE_ELF, elf_ref));
    else if (c->elf_status == GD_OK)
        gd_fact_absent(e, "soname", "no DT_SONAME", gd_src(GD_SOURCE_ELF, elf_ref));
    else
        gd_fact_unknown(e, "soname",
                        c->elf_status == GD_EFORMAT || c->elf_status == GD_ETRUNCATED
                            ? "not an ELF file"
                            : gd_status_str(c->elf_status),
                        gd_src(GD_SOURCE_ELF, elf_ref));
    if (c->name_version[0])
        gd_fact_str(e, "version.name", c->name_version,
                    gd_src(GD_SOURCE_PATH, c->name_version_path));
    if (c->header_path)
        gd_fact_str(e, "version.header", c->header_version, gd_src(GD_SOURCE_FILE, c->header_path));
    if (c->json_path)
        gd_fact_str(e, "version.json", c->json_version, gd_src(GD_SOURCE_FILE, c->json_path));
    if (c->meta_record) {
        gd_fact_str(e, "version.wheel", c->meta_version, gd_src(GD_SOURCE_FILE, c->meta_record));
        gd_fact_str(e, "wheel", c->meta_dist, gd_src(GD_SOURCE_FILE, c->meta_record));
    }
    if (c->call) {
        char ref[300];
        snprintf(ref, sizeof ref, "%s() in a child process", c->call->symbol);
        if (c->call->ok) {
            char v[GD_VERSION_TEXT_MAX];
            gd_version_format(&c->call->version, v, sizeof v);
            gd_fact_str(e, "version.call", v, gd_src(GD_SOURCE_CALL, ref));
        } else {
            gd_fact_unknown(e, "version.call", c->call->detail, gd_src(GD_SOURCE_CALL, ref));
        }
    } else if (gd_kb_str(c->row, "call") && !c->stub) {
        gd_fact_unknown(e, "version.call",
                        gd_root_is_live(inv->ctx->root)
                            ? "not asked: gpudoctor check --calls loads the library to ask it"
                            : "not the live machine: nothing under --root is loaded",
                        gd_src(GD_SOURCE_CALL, gd_kb_str(c->row, "call")));
    }
    /* The single version to show: the most authoritative source (the library's own answer,
     * then its wheel, a file name stating major.minor.patch, the header, the toolkit's
     * version.json, a file name with the major alone), stated as precisely as any source
     * that agrees with it ("13.0" from the call, "13.0.96" from the wheel). A header counts
     * below an exact file name: headers may come from another install in a shared include
     * directory, a file's own name does not. */
    char callv[GD_VERSION_FORMAT_MAX] = "";
    if (c->call && c->call->ok)
        gd_version_format(&c->call->version, callv, sizeof callv);
    struct gd_version nv;
    bool exact_name =
        c->name_version[0] && gd_version_parse(c->name_version, &nv) == GD_OK && nv.nparts >= 3;
    const char *values[] = { callv,
                             c->meta_record ? c->meta_version : "",
                             exact_name ? c->name_version : "",
                             c->header_path ? c->header_version : "",
                             c->json_path ? c->json_version : "",
                             c->name_version };
    static const char *const sources[] = { "version.call",   "version.wheel", "version.name",
                                           "version.header", "version.json",  "version.name" };
    int primary = -1, best = -1;
    struct gd_version pv, bv, v;
    for (int i = 0; i < 6; i++) {
        if (!values[i][0] || gd_version_parse(values[i], &v) != GD_OK)
            continue;
        if (primary < 0) {
            primary = best = i;
            pv = bv = v;
        } else if (gd_version_has_prefix(&v, &pv) && v.nparts > bv.nparts) {
            best = i;
            bv = v;
        }
    }
    if (best >= 0)
        gd_fact_str(e, "version", values[best], gd_src(GD_SOURCE_DERIVED, sources[best]));
    else
        gd_fact_unknown(e, "version", "no file name, header, version.json or wheel states it", at);
    if (c->selected_for) {
        gd_fact_str(e, "loader.selected_for", c->selected_for,
                    gd_src(GD_SOURCE_DERIVED, "glibc's search order"));
        gd_fact_str(e, "loader.rule", gd_rule_name(c->selected_rule),
                    gd_src(GD_SOURCE_DERIVED, "glibc's search order"));
    }
    /* The SONAME link ldconfig makes: the loader looks for that name in the directory. */
    if (c->soname[0] && c->loader_dir && !c->stub) {
        char *dir = own(inv, dir_of(c->real));
        char *link = dir ? own(inv, gd_path_join(dir, c->soname)) : NULL;
        if (link)
            gd_fact_bool(e, "soname_link.present", gd_root_exists(inv->ctx->root, link),
                         gd_src(GD_SOURCE_PATH, link));
        gd_free(link);
        gd_free(dir);
    }
}

static void free_inventory(struct inventory *inv)
{
    for (size_t i = 0; i < inv->ndirs; i++) {
        gd_free(inv->dirs[i].path);
        gd_free(inv->dirs[i].origin);
    }
    gd_free(inv->dirs);
    for (size_t i = 0; i < inv->ncopies; i++) {
        struct copy *c = &inv->copies[i];
        gd_free(c->real);
        gd_strlist_free(&c->names);
        gd_free(c->origin);
        gd_free(c->name_version_path);
        gd_free(c->header_path);
        gd_free(c->json_path);
        gd_free(c->meta_dist);
        gd_free(c->meta_record);
        gd_free(c->selected_for);
        gd_free(c->key);
    }
    gd_free(inv->copies);
    for (size_t i = 0; i < inv->ndists; i++) {
        gd_free(inv->dists[i].name);
        gd_free(inv->dists[i].version);
        gd_free(inv->dists[i].record);
        gd_free(inv->dists[i].file);
        gd_free(inv->dists[i].path);
    }
    gd_free(inv->dists);
    gd_strlist_free(&inv->scanned_dist_dirs);
    gd_strlist_free(&inv->site_packages);
    gd_strmap_clear(&inv->dir_index);
    gd_strmap_clear(&inv->copy_index);
    gd_strmap_clear(&inv->site_index);
    gd_strmap_clear(&inv->scanned);
    gd_free(inv->calls);
}

void gd_probe_inventory(struct gd_probe_ctx *ctx)
{
    const struct gd_kb_table *t = gd_kb_table(ctx->kb, "cuda_libraries");
    if (!t)
        return;
    struct inventory inv;
    memset(&inv, 0, sizeof inv);
    inv.ctx = ctx;
    char glibc[32] = "", ref[256];
    enum gd_source_kind kind;
    if (gd_glibc_version(ctx->root, glibc, sizeof glibc, &kind, ref, sizeof ref) == GD_ENOMEM) {
        gd_report_out_of_memory(ctx->report);
        return;
    }
    char *cwd = NULL;
    if (gd_root_is_live(ctx->root) && gd_os_getcwd(&cwd) == GD_ENOMEM) {
        gd_report_out_of_memory(ctx->report);
        return;
    }
    struct gd_loader_options lo = { gd_env_get(ctx->env, "LD_LIBRARY_PATH"), cwd,
                                    glibc[0] ? glibc : NULL, false, ctx->elves };
    struct gd_loader *loader = NULL;
    enum gd_status ls = gd_loader_new(ctx->root, &lo, &loader);
    if (ls != GD_OK) {
        if (ls == GD_ENOMEM)
            gd_report_out_of_memory(ctx->report);
        gd_free(cwd);
        return;
    }
    fail(&inv, gd_find_site_packages(ctx, &inv.site_packages));
    for (size_t i = 0; i < inv.site_packages.count; i++)
        fail(&inv, gd_strmap_put(&inv.site_index, inv.site_packages.items[i], (void *)1));
    collect_dirs(&inv, loader);
    struct gd_families families;
    fail(&inv, gd_families_load(t, &families));
    for (size_t i = 0; i < inv.ndirs && inv.status == GD_OK; i++)
        scan_dir(&inv, &families, &inv.dirs[i]);
    gd_families_free(&families);
    for (size_t i = 0; i < inv.ncopies && inv.status == GD_OK; i++) {
        read_soname(&inv, &inv.copies[i]);
        find_header(&inv, &inv.copies[i]);
        find_version_json(&inv, &inv.copies[i]);
        scan_wheels(&inv, &inv.copies[i]);
    }
    /* Paths first, the RECORD entries without one (sorted as NULL) last. */
    if (inv.ndists)
        qsort(inv.dists, inv.ndists, sizeof *inv.dists, cmp_dist_path);
    for (size_t i = 0; i < inv.ncopies && inv.status == GD_OK; i++)
        find_wheel(&inv, &inv.copies[i]);
    run_calls(&inv);
    resolve_sonames(&inv, loader);
    for (size_t i = 0; i < inv.ncopies; i++)
        record_copy(&inv, &inv.copies[i]);
    struct gd_entity *summary = gd_report_add_entity(ctx->report, "inventory", "inventory");
    gd_fact_int(summary, "directories", (long long)inv.ndirs,
                gd_src(GD_SOURCE_DERIVED, "directories searched"));
    gd_fact_int(summary, "copies", (long long)inv.ncopies,
                gd_src(GD_SOURCE_DERIVED, "CUDA family libraries found"));
    gd_fact_int(summary, "site_packages", (long long)inv.site_packages.count,
                gd_src(GD_SOURCE_DERIVED, "site-packages directories found"));
    if (inv.status == GD_ENOMEM)
        gd_report_out_of_memory(ctx->report);
    free_inventory(&inv);
    gd_loader_free(loader);
    gd_free(cwd);
}
