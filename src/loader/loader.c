#include "loader/loader.h"

#include "core/alloc.h"
#include "core/arena.h"
#include "core/strmap.h"
#include "core/buf.h"
#include "core/str.h"
#include "core/version.h"
#include "loader/elfcache.h"
#include "sysroot/sysroot.h"

#include <stdio.h>
#include <string.h>

/* More objects than any real process loads: a hostile tree stops here. */
#define MAX_OBJECTS   20000
#define CPUINFO_MAX   (4 * 1024 * 1024)
#define EM_386        3
#define EM_ARM        40
#define EM_X86_64     62
#define EM_PPC64      21
#define EM_S390       22
#define EM_AARCH64    183
#define EM_RISCV      243
#define ET_EXEC       2
#define ET_DYN        3
#define DF_1_NODEFLIB 0x800u

const char *gd_rule_name(enum gd_rule rule)
{
    switch (rule) {
    case GD_RULE_MAIN:
        return "main object";
    case GD_RULE_LOADED:
        return "already loaded";
    case GD_RULE_PATH:
        return "path";
    case GD_RULE_INTERPRETER:
        return "program interpreter";
    case GD_RULE_RPATH:
        return "rpath";
    case GD_RULE_LD_LIBRARY_PATH:
        return "LD_LIBRARY_PATH";
    case GD_RULE_RUNPATH:
        return "runpath";
    case GD_RULE_CACHE:
        return "ld.so.cache";
    case GD_RULE_DEFAULT:
        return "default path";
    case GD_RULE_NOT_FOUND:
        return "not found";
    }
    return "?";
}

const char *gd_verdict_name(enum gd_verdict v)
{
    switch (v) {
    case GD_TRY_ACCEPTED:
        return "found";
    case GD_TRY_NO_FILE:
        return "not there";
    case GD_TRY_WRONG_CLASS:
        return "wrong ELF class";
    case GD_TRY_WRONG_MACHINE:
        return "wrong machine";
    case GD_TRY_NOT_ELF:
        return "not an ELF file";
    case GD_TRY_WRONG_ORDER:
        return "wrong byte order";
    case GD_TRY_NOT_LOADABLE:
        return "not a shared object";
    case GD_TRY_UNREADABLE:
        return "unreadable";
    case GD_TRY_NODEFLIB:
        return "ignored (DF_1_NODEFLIB)";
    }
    return "?";
}

/* CPU features from /proc/cpuinfo that decide which hwcaps subdirectories are searched. */
struct cpu {
    bool known;
    bool v2, v3, v4;          /* x86-64 micro-architecture levels (x86-64 psABI) */
    bool avx512_1;            /* glibc's legacy "avx512_1" hwcap */
    const char *platform_x86; /* "haswell", "xeon_phi" or "x86_64" */
};

struct gd_loader {
    struct gd_root *root;
    struct gd_loader_options opts;
    char *ld_library_path, *cwd, *glibc_version;
    struct gd_ldcache *cache;
    char *cache_problem;
    struct gd_ldconf conf;
    bool conf_read; /* /etc/ld.so.conf is read on first use: glibc's loader never reads it */
    struct cpu cpu;
};

struct dirinfo {
    char *dir;
    unsigned mask; /* which first-level subdirectories exist, by index into arch.firsts */
};

struct arch {
    int elf_class;
    uint16_t machine;
    bool big_endian;
    char lib[64];      /* $LIB */
    char platform[32]; /* $PLATFORM */
    struct gd_strlist defaults;
    struct gd_strlist subdirs; /* hwcaps then legacy subdirectories, in search order */
    const char *hwcaps[4];     /* the glibc-hwcaps names of subdirs ("x86-64-v3"), in order */
    size_t nhwcaps;
    struct gd_strlist firsts; /* their distinct first components */
};

struct pool {
    struct gd_strmap strings; /* string -> its copy in the arena */
    struct gd_arena *arena;
};

struct gd_load {
    struct gd_loader *loader;
    struct pool pool;
    struct gd_elf_pages *pages; /* the ELF reader's page cache, one for every file read */
    struct arch arch;
    struct gd_object **objects; /* load order: placed objects only */
    size_t nobjects, cap;
    struct gd_object **all; /* every object, placed or not (the interpreter) */
    size_t nall, cap_all;
    struct gd_edge **missing;
    size_t nmissing, cap_missing;
    struct gd_strmap known;         /* name, path, SONAME -> object */
    struct gd_strmap missing_names; /* name -> missing edge */
    struct gd_strlist llp;          /* LD_LIBRARY_PATH, expanded */
    bool oom;                       /* sticky: an allocation failed while judging a candidate */
    bool llp_done;
    struct dirinfo *dirs;
    size_t ndirs, cap_dirs;
    bool virtual_main;
};

/* The pool's copy of `str`, made on first use; NULL when out of memory. */
static const char *intern(struct pool *pool, const char *str)
{
    const char *have = gd_strmap_get(&pool->strings, str);
    if (have)
        return have;
    if (!pool->arena && !(pool->arena = gd_arena_new()))
        return NULL;
    char *copy = gd_arena_strdup(pool->arena, str);
    if (!copy || gd_strmap_put(&pool->strings, copy, copy) != GD_OK)
        return NULL;
    return copy;
}

static void pool_free(struct pool *pool)
{
    gd_arena_free(pool->arena);
    gd_strmap_clear(&pool->strings);
}

/* ---- loader configuration ------------------------------------------------------------------ */

static bool has_flag(const char *flags, const char *flag)
{
    size_t n = strlen(flag);
    for (const char *p = flags; (p = strstr(p, flag)) != NULL; p += n) {
        bool start = p == flags || *(p - 1) == ' ' || *(p - 1) == '\t';
        bool end = p[n] == '\0' || p[n] == ' ' || p[n] == '\n';
        if (start && end)
            return true;
    }
    return false;
}

static bool all_flags(const char *flags, const char *const *list)
{
    for (; *list; list++)
        if (!has_flag(flags, *list))
            return false;
    return true;
}

/* The first "flags" line of /proc/cpuinfo (x86). Levels per the x86-64 psABI, as glibc's
 * sysdeps/x86/get-isa-level.h checks them; the legacy platform per sysdeps/x86/cpu-features.c. */
static void read_cpu(struct gd_loader *l)
{
    char *data = NULL;
    size_t len = 0;
    if (gd_root_read_head(l->root, "/proc/cpuinfo", CPUINFO_MAX, &data, &len) != GD_OK)
        return;
    const char *cur = data, *end = data + len;
    struct gd_span line;
    char flags[8192] = "";
    while (gd_next_line(&cur, end, &line)) {
        if (gd_span_starts_with(line, "flags")) {
            struct gd_span k, v;
            if (gd_span_split(line, ':', &k, &v)) {
                gd_span_copy(gd_span_trim(v), flags, sizeof flags);
                break;
            }
        }
    }
    gd_free(data);
    if (!flags[0])
        return;
    static const char *const v2[] = {
        "cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3", NULL
    };
    static const char *const v3[] = { "avx", "avx2", "bmi1",  "bmi2",  "f16c",
                                      "fma", "abm",  "movbe", "xsave", NULL };
    static const char *const v4[] = { "avx512f",  "avx512bw", "avx512cd",
                                      "avx512dq", "avx512vl", NULL };
    static const char *const haswell[] = { "avx2", "bmi1", "bmi2", "abm", "movbe", "popcnt", NULL };
    static const char *const phi[] = { "avx512f", "avx512cd", "avx512er", "avx512pf", NULL };
    l->cpu.known = true;
    l->cpu.v2 = all_flags(flags, v2);
    l->cpu.v3 = l->cpu.v2 && all_flags(flags, v3);
    l->cpu.v4 = l->cpu.v3 && all_flags(flags, v4);
    l->cpu.avx512_1 = all_flags(flags, v4);
    l->cpu.platform_x86 = all_flags(flags, phi)       ? "xeon_phi"
                          : all_flags(flags, haswell) ? "haswell"
                                                      : "x86_64";
}

enum gd_status gd_loader_new(struct gd_root *root, const struct gd_loader_options *options,
                             struct gd_loader **out)
{
    *out = NULL;
    struct gd_loader *l = gd_calloc(1, sizeof *l);
    if (!l)
        return GD_ENOMEM;
    l->root = root;
    if (options)
        l->opts = *options;
    enum gd_status st = GD_OK;
    if (options && options->ld_library_path &&
        !(l->ld_library_path = gd_strdup(options->ld_library_path)))
        st = GD_ENOMEM;
    if (st == GD_OK && options && options->cwd && !(l->cwd = gd_strdup(options->cwd)))
        st = GD_ENOMEM;
    if (st == GD_OK && options && options->glibc_version &&
        !(l->glibc_version = gd_strdup(options->glibc_version)))
        st = GD_ENOMEM;
    l->opts.ld_library_path = l->ld_library_path;
    l->opts.cwd = l->cwd;
    l->opts.glibc_version = l->glibc_version;

    char *data = NULL;
    size_t len = 0;
    enum gd_status cs =
        st == GD_OK ? gd_root_read_file(root, "/etc/ld.so.cache", GD_LDCACHE_MAX, &data, &len) : st;
    if (cs == GD_OK)
        cs = gd_ldcache_parse_owned(data, len, &l->cache); /* takes data */
    if (cs == GD_ENOMEM)
        st = cs;
    else if (cs != GD_OK && cs != GD_ENOENT) { /* no cache at all is normal in an image */
        char text[160];
        snprintf(text, sizeof text, "/etc/ld.so.cache: %s", gd_status_str(cs));
        if (!(l->cache_problem = gd_strdup(text)))
            st = GD_ENOMEM;
    }
    if (st == GD_OK)
        read_cpu(l);
    if (st != GD_OK) {
        gd_loader_free(l);
        return st;
    }
    *out = l;
    return GD_OK;
}

void gd_loader_free(struct gd_loader *l)
{
    if (!l)
        return;
    gd_ldcache_free(l->cache);
    gd_ldconf_free(&l->conf);
    gd_free(l->cache_problem);
    gd_free(l->ld_library_path);
    gd_free(l->cwd);
    gd_free(l->glibc_version);
    gd_free(l);
}

const struct gd_ldcache *gd_loader_cache(const struct gd_loader *l)
{
    return l->cache;
}

enum gd_status gd_loader_conf(struct gd_loader *l, const struct gd_ldconf **out)
{
    *out = &l->conf;
    if (l->conf_read)
        return GD_OK;
    enum gd_status st = gd_ldconf_read(l->root, "/etc/ld.so.conf", &l->conf);
    l->conf_read = st == GD_OK; /* gd_ldconf_read leaves it empty on failure: try again */
    return st;
}

const char *gd_loader_cache_problem(const struct gd_loader *l)
{
    return l->cache_problem;
}

/* ---- per-architecture search configuration -------------------------------------------------- */

static const char *triplet(int cls, uint16_t machine, bool be)
{
    if (cls == 64 && machine == EM_X86_64)
        return "x86_64-linux-gnu";
    if (cls == 64 && machine == EM_AARCH64)
        return "aarch64-linux-gnu";
    if (cls == 64 && machine == EM_PPC64 && !be)
        return "powerpc64le-linux-gnu";
    if (cls == 64 && machine == EM_S390)
        return "s390x-linux-gnu";
    if (cls == 64 && machine == EM_RISCV)
        return "riscv64-linux-gnu";
    if (cls == 32 && machine == EM_386)
        return "i386-linux-gnu";
    if (cls == 32 && machine == EM_ARM)
        return "arm-linux-gnueabihf";
    return NULL;
}

static bool glibc_before(const char *version, unsigned major, unsigned minor)
{
    struct gd_version v, w;
    char text[32];
    snprintf(text, sizeof text, "%u.%u", major, minor);
    return version && gd_version_parse(version, &v) == GD_OK &&
           gd_version_parse(text, &w) == GD_OK && gd_version_cmp(&v, &w) < 0;
}

static enum gd_status setup_arch(struct gd_load *L, int cls, uint16_t machine, bool be)
{
    struct gd_loader *l = L->loader;
    struct arch *a = &L->arch;
    a->elf_class = cls;
    a->machine = machine;
    a->big_endian = be;
    const char *t = triplet(cls, machine, be);
    char dir[128];
    bool multiarch = false;
    if (t) {
        snprintf(dir, sizeof dir, "/usr/lib/%s", t);
        multiarch = gd_root_is_dir(l->root, dir);
    }
    enum gd_status st = GD_OK;
    /* Debian and Ubuntu build glibc with multiarch system directories and $LIB; others use
     * lib64 for 64-bit and lib for 32-bit objects (ld.so --help lists them). */
    if (multiarch) {
        snprintf(a->lib, sizeof a->lib, "lib/%s", t);
        const char *defs[] = { "/lib/", "/usr/lib/" };
        for (int i = 0; i < 2 && st == GD_OK; i++) {
            snprintf(dir, sizeof dir, "%s%s", defs[i], t);
            st = gd_strlist_push(&a->defaults, dir);
        }
        if (st == GD_OK)
            st = gd_strlist_push(&a->defaults, "/lib");
        if (st == GD_OK)
            st = gd_strlist_push(&a->defaults, "/usr/lib");
    } else {
        snprintf(a->lib, sizeof a->lib, "%s", cls == 64 ? "lib64" : "lib");
        if (st == GD_OK)
            st = gd_strlist_push(&a->defaults, cls == 64 ? "/lib64" : "/lib");
        if (st == GD_OK)
            st = gd_strlist_push(&a->defaults, cls == 64 ? "/usr/lib64" : "/usr/lib");
    }
    bool x86_64 = cls == 64 && machine == EM_X86_64;
    const char *platform = machine == EM_AARCH64 ? "aarch64"
                           : x86_64              ? (l->cpu.known ? l->cpu.platform_x86 : "x86_64")
                           : machine == EM_386   ? "i686"
                                                 : "";
    snprintf(a->platform, sizeof a->platform, "%s", platform);
    /* glibc-hwcaps (glibc 2.33+): the levels this CPU supports, most capable first. */
    if (x86_64 && l->cpu.known && !glibc_before(l->opts.glibc_version, 2, 33)) {
        if (st == GD_OK && l->cpu.v4)
            st = gd_strlist_push(&a->subdirs, "glibc-hwcaps/x86-64-v4");
        if (st == GD_OK && l->cpu.v3)
            st = gd_strlist_push(&a->subdirs, "glibc-hwcaps/x86-64-v3");
        if (st == GD_OK && l->cpu.v2)
            st = gd_strlist_push(&a->subdirs, "glibc-hwcaps/x86-64-v2");
    }
    /* Legacy hwcap subdirectories, removed in glibc 2.37: every subset of (tls, platform,
     * avx512_1, x86_64), largest first, in the order ld.so's LD_DEBUG=libs shows. */
    if (x86_64 && l->cpu.known && glibc_before(l->opts.glibc_version, 2, 37)) {
        const char *names[4];
        int n = 0;
        names[n++] = "tls";
        if (strcmp(a->platform, "x86_64") != 0)
            names[n++] = a->platform;
        if (l->cpu.avx512_1)
            names[n++] = "avx512_1";
        names[n++] = "x86_64";
        for (int mask = (1 << n) - 1; mask > 0 && st == GD_OK; mask--) {
            char sub[96] = "";
            for (int i = 0; i < n; i++) {
                if (!(mask & (1 << (n - 1 - i))))
                    continue;
                if (sub[0])
                    strcat(sub, "/");
                strcat(sub, names[i]);
            }
            st = gd_strlist_push(&a->subdirs, sub);
        }
    }
    for (size_t i = 0; i < a->subdirs.count && st == GD_OK; i++) {
        const char *sub = a->subdirs.items[i];
        if (gd_str_starts_with(sub, "glibc-hwcaps/") && a->nhwcaps < 4)
            a->hwcaps[a->nhwcaps++] = sub + strlen("glibc-hwcaps/");
    }
    for (size_t i = 0; i < a->subdirs.count && st == GD_OK; i++) {
        char first[64];
        snprintf(first, sizeof first, "%.*s", (int)strcspn(a->subdirs.items[i], "/"),
                 a->subdirs.items[i]);
        st = gd_strlist_push_unique(&a->firsts, first);
    }
    return st;
}

/* ---- paths and dynamic string tokens -------------------------------------------------------- */

/* The directory part of `path`: `*text` and the length to copy ("." without a slash). */
static size_t dir_part(const char *path, const char **text)
{
    const char *slash = strrchr(path, '/');
    *text = !slash ? "." : slash == path ? "/" : path;
    return !slash || slash == path ? 1 : (size_t)(slash - path);
}

static char *dirname_of(const char *path)
{
    const char *text;
    size_t n = dir_part(path, &text);
    return gd_strndup(text, n);
}

/* An absolute path for `path`: relative ones count from the loader's cwd (or "/"). */
static char *absolute(const struct gd_loader *l, const char *path)
{
    if (path[0] == '/')
        return gd_strdup(path);
    return gd_path_join(l->cwd ? l->cwd : "/", path);
}

/* Is `token` (ORIGIN, LIB, PLATFORM) at `p` (just after '$'), braced or not? Sets *len. */
static bool dst_at(const char *p, const char *token, size_t *len)
{
    size_t n = strlen(token);
    if (p[0] == '{' && strncmp(p + 1, token, n) == 0 && p[n + 1] == '}') {
        *len = n + 2;
        return true;
    }
    if (strncmp(p, token, n) == 0 && !(gd_is_alpha(p[n]) || gd_is_digit(p[n]) || p[n] == '_')) {
        *len = n;
        return true;
    }
    return false;
}

/* Expand $ORIGIN, $LIB, $PLATFORM in one path element (elf/dl-load.c _dl_dst_substitute).
 * NULL (dropped element) when $ORIGIN is used and the origin is unknown. `*oom` on failure. */
static char *expand(const struct gd_load *L, const char *origin, const char *element, bool *oom)
{
    struct gd_buf b;
    gd_buf_init(&b, 16384);
    for (const char *p = element; *p; p++) {
        size_t len;
        if (*p == '$' && dst_at(p + 1, "ORIGIN", &len)) {
            if (!origin) {
                gd_buf_free(&b);
                return NULL;
            }
            gd_buf_puts(&b, origin);
            p += len;
        } else if (*p == '$' && dst_at(p + 1, "LIB", &len)) {
            gd_buf_puts(&b, L->arch.lib);
            p += len;
        } else if (*p == '$' && dst_at(p + 1, "PLATFORM", &len)) {
            gd_buf_puts(&b, L->arch.platform);
            p += len;
        } else {
            gd_buf_putc(&b, *p);
        }
    }
    char *out = NULL;
    if (gd_buf_take(&b, &out, NULL) != GD_OK)
        *oom = true;
    return out;
}

/* Split a search path into directories the way fillin_rpath does: DSTs expanded, empty
 * results dropped, trailing '/' removed, duplicates kept once. An empty element is the current
 * directory. */
static enum gd_status split_path(const struct gd_load *L, const char *origin, const char *value,
                                 const char *seps, struct gd_strlist *out)
{
    const char *p = value;
    enum gd_status st = GD_OK;
    while (st == GD_OK) {
        size_t n = strcspn(p, seps);
        char *element = gd_strndup(p, n);
        if (!element)
            return GD_ENOMEM;
        if (n == 0) {
            if (L->loader->cwd)
                st = gd_strlist_push_unique(out, L->loader->cwd);
        } else {
            bool oom = false;
            char *dir = expand(L, origin, element, &oom);
            if (oom)
                st = GD_ENOMEM;
            size_t len = dir ? strlen(dir) : 0;
            while (len > 1 && dir[len - 1] == '/')
                dir[--len] = '\0';
            if (st == GD_OK && dir && len) {
                char *abs = absolute(L->loader, dir);
                st = abs ? gd_strlist_push_unique(out, abs) : GD_ENOMEM;
                gd_free(abs);
            }
            gd_free(dir);
        }
        gd_free(element);
        if (!p[n])
            break;
        p += n + 1;
    }
    return st;
}

/* ---- objects -------------------------------------------------------------------------------- */

/* The name and directory belong to the load's pool. */
static void free_edge(struct gd_edge *e)
{
    gd_free(e->error);
    for (size_t i = 0; i < e->ntries; i++)
        gd_free(e->tries[i].path);
    gd_free(e->tries);
}

static void free_object(struct gd_object *o)
{
    if (!o)
        return;
    gd_elf_free(o->elf); /* the name, path and origin belong to the load's pool */
    for (size_t i = 0; i < o->ndeps; i++)
        free_edge(&o->deps[i]);
    gd_free(o->deps);
    for (size_t i = 0; i < o->ndlopens; i++) {
        free_edge(o->dlopens[i]);
        gd_free(o->dlopens[i]);
    }
    gd_free(o->dlopens);
    gd_strlist_free(&o->rpath);
    gd_strlist_free(&o->runpath);
    gd_free(o);
}

void gd_load_free(struct gd_load *L)
{
    if (!L)
        return;
    for (size_t i = 0; i < L->nall; i++)
        free_object(L->all[i]);
    for (size_t i = 0; i < L->nmissing; i++) {
        free_edge(L->missing[i]);
        gd_free(L->missing[i]);
    }
    for (size_t i = 0; i < L->ndirs; i++)
        gd_free(L->dirs[i].dir);
    gd_free(L->dirs);
    gd_strmap_clear(&L->known);
    gd_strmap_clear(&L->missing_names);
    gd_free(L->missing);
    gd_free(L->objects);
    gd_free(L->all);
    gd_strlist_free(&L->llp);
    gd_strlist_free(&L->arch.defaults);
    gd_strlist_free(&L->arch.subdirs);
    gd_strlist_free(&L->arch.firsts);
    pool_free(&L->pool);
    gd_elf_pages_free(L->pages);
    gd_free(L);
}

static enum gd_status place(struct gd_load *L, struct gd_object *o)
{
    if (o->placed)
        return GD_OK;
    if (gd_grow((void **)&L->objects, &L->cap, L->nobjects + 1, sizeof *L->objects) != 0)
        return GD_ENOMEM;
    o->index = L->nobjects;
    L->objects[L->nobjects++] = o;
    o->placed = true;
    return GD_OK;
}

static enum gd_status remember(struct gd_load *L, struct gd_object *o)
{
    if (L->nall >= MAX_OBJECTS)
        return GD_ELIMIT;
    if (gd_grow((void **)&L->all, &L->cap_all, L->nall + 1, sizeof *L->all) != 0)
        return GD_ENOMEM;
    /* The names glibc's _dl_name_match_p compares a request with: the name it was loaded
     * under, its path, its SONAME. */
    enum gd_status st = gd_strmap_put(&L->known, o->name, o);
    if (st == GD_OK)
        st = gd_strmap_put(&L->known, o->path, o);
    if (st == GD_OK && o->elf)
        st = gd_strmap_put(&L->known, o->elf->soname, o);
    if (st != GD_OK)
        return st;
    L->all[L->nall++] = o;
    return GD_OK;
}

/* Open `path` and read what the loader reads of it, through the check's cache when there is
 * one. Returns the status of the opening; when it opened, `*fs` is the file's status and
 * `*read` that of reading the headers (on GD_OK `*elf` is new). */
static enum gd_status read_object(struct gd_load *L, const char *path, struct gd_elf **elf,
                                  struct gd_os_stat *fs, enum gd_status *read)
{
    if (L->loader->opts.elves)
        return gd_elf_cache_read(L->loader->opts.elves, path, elf, fs, read);
    *elf = NULL;
    memset(fs, 0, sizeof *fs);
    struct gd_os_file *f;
    enum gd_status st = gd_root_open(L->loader->root, path, &f);
    if (st != GD_OK)
        return st;
    *read = gd_os_file_stat(f, fs);
    if (*read == GD_OK)
        *read = gd_elf_read_file_ex(f, fs->size, GD_ELF_LOADER_ONLY, L->pages, elf);
    gd_os_close(f);
    return GD_OK;
}

/* Open `path` and judge it as the loader's open_verify would. On GD_TRY_ACCEPTED `*elf` is new
 * and `*dev`, `*ino` identify the file. */
static enum gd_verdict verify(struct gd_load *L, const char *path, struct gd_elf **elf,
                              unsigned long long *dev, unsigned long long *ino, char **error)
{
    *elf = NULL;
    *error = NULL;
    struct gd_os_stat fs;
    enum gd_status rs = GD_OK;
    enum gd_status st = read_object(L, path, elf, &fs, &rs);
    if (st == GD_ENOENT || st == GD_ENOTDIR)
        return GD_TRY_NO_FILE;
    if (st == GD_EACCES)
        return GD_TRY_UNREADABLE;
    if (st == GD_ENOTREG) {
        *error = gd_strdup("cannot read file data: not a regular file");
        if (!*error)
            L->oom = true;
        return GD_TRY_NOT_ELF;
    }
    if (st != GD_OK)
        return GD_TRY_UNREADABLE;
    st = rs;
    if (st == GD_ENOMEM) {
        L->oom = true; /* not a property of the file: the search fails with GD_ENOMEM */
        return GD_TRY_UNREADABLE;
    }
    if (st != GD_OK) {
        *error = gd_strdup(fs.size < 64 ? "file too short" : "invalid ELF header");
        if (!*error)
            L->oom = true;
        return GD_TRY_NOT_ELF;
    }
    *dev = fs.dev;
    *ino = fs.ino;
    const struct gd_elf *e = *elf;
    enum gd_verdict v = GD_TRY_ACCEPTED;
    if (e->elf_class != L->arch.elf_class)
        v = GD_TRY_WRONG_CLASS;
    else if (e->big_endian != L->arch.big_endian) {
        v = GD_TRY_WRONG_ORDER;
        *error = gd_strdup(L->arch.big_endian ? "ELF file data encoding not big-endian"
                                              : "ELF file data encoding not little-endian");
    } else if (e->machine != L->arch.machine)
        v = GD_TRY_WRONG_MACHINE;
    else if (e->type != ET_DYN && e->type != ET_EXEC) {
        v = GD_TRY_NOT_LOADABLE;
        *error = gd_strdup("only ET_DYN and ET_EXEC can be loaded");
    }
    if ((v == GD_TRY_WRONG_ORDER || v == GD_TRY_NOT_LOADABLE) && !*error)
        L->oom = true;
    if (v != GD_TRY_ACCEPTED) {
        gd_elf_free(*elf);
        *elf = NULL;
    }
    return v;
}

static struct gd_object *same_file(const struct gd_load *L, unsigned long long dev,
                                   unsigned long long ino)
{
    for (size_t i = 0; i < L->nall; i++)
        if (L->all[i]->dev == dev && L->all[i]->ino == ino)
            return L->all[i];
    return NULL;
}

static struct gd_object *new_object(struct gd_load *L, const char *name, const char *path,
                                    struct gd_elf *elf, const struct gd_object *loader,
                                    unsigned long long dev, unsigned long long ino)
{
    struct gd_object *o = gd_calloc(1, sizeof *o);
    if (!o)
        return NULL;
    /* The strings live in the load's arena, freed with it; no index: each path is new. */
    if (!L->pool.arena && !(L->pool.arena = gd_arena_new())) {
        free_object(o);
        return NULL;
    }
    const char *dir;
    size_t ndir = dir_part(path, &dir);
    o->name = gd_arena_strdup(L->pool.arena, name);
    o->path = gd_arena_strdup(L->pool.arena, path);
    o->origin = gd_arena_strndup(L->pool.arena, dir, ndir);
    if (!o->name || !o->path || !o->origin) {
        free_object(o);
        return NULL;
    }
    o->elf = elf;
    o->loader = loader;
    o->dev = dev;
    o->ino = ino;
    return o;
}

/* ---- the search ------------------------------------------------------------------------------ */

struct search {
    struct gd_load *L;
    struct gd_edge *edge;
    const struct gd_object *from;
    struct gd_object *found;
    bool stop; /* found, or the loader gave up with an error */
    enum gd_status status;
};

static enum gd_status note_try(struct search *s, const char *path, enum gd_rule rule,
                               const struct gd_object *owner, enum gd_verdict v)
{
    struct gd_edge *e = s->edge;
    if (!s->L->loader->opts.record_tries)
        return GD_OK;
    char *copy = gd_strdup(path);
    if (!copy || gd_grow((void **)&e->tries, &e->cap_tries, e->ntries + 1, sizeof *e->tries)) {
        gd_free(copy);
        return GD_ENOMEM;
    }
    e->tries[e->ntries++] = (struct gd_try){ copy, rule, owner, v };
    return GD_OK;
}

/* Try one candidate file. */
static void candidate(struct search *s, const char *dir, const char *path, enum gd_rule rule,
                      const struct gd_object *owner)
{
    struct gd_elf *elf = NULL;
    unsigned long long dev = 0, ino = 0;
    char *error = NULL;
    enum gd_verdict v = verify(s->L, path, &elf, &dev, &ino, &error);
    s->status = note_try(s, path, rule, owner, v);
    if (s->status != GD_OK) {
        gd_elf_free(elf);
        gd_free(error);
        return;
    }
    if (v == GD_TRY_NOT_ELF || v == GD_TRY_WRONG_ORDER || v == GD_TRY_NOT_LOADABLE) {
        /* open_verify's fatal cases: the loader reports "<path>: <error>" and stops looking. */
        struct gd_buf msg;
        gd_buf_init(&msg, 8192);
        gd_buf_printf(&msg, "%s: %s", path, error ? error : "cannot load");
        gd_free(error);
        if (gd_buf_take(&msg, &s->edge->error, NULL) != GD_OK)
            s->status = GD_ENOMEM;
        s->edge->rule = rule;
        s->stop = true;
        return;
    }
    gd_free(error);
    if (v != GD_TRY_ACCEPTED)
        return;
    struct gd_object *o = same_file(s->L, dev, ino);
    if (o) {
        gd_elf_free(elf);
    } else {
        o = new_object(s->L, s->edge->name, path, elf, s->from, dev, ino);
        if (!o) {
            gd_elf_free(elf);
            s->status = GD_ENOMEM;
            return;
        }
        o->found_by = rule;
        o->found_owner = owner;
        s->status = remember(s->L, o);
        if (s->status != GD_OK) {
            free_object(o);
            return;
        }
    }
    s->found = o;
    s->stop = true;
    s->edge->rule = rule;
    s->edge->owner = owner;
    s->edge->dir = dir ? intern(&s->L->pool, dir) : NULL;
    if (dir && !s->edge->dir)
        s->status = GD_ENOMEM;
}

/* Which first-level hwcaps subdirectories exist in `dir` (one stat each, remembered). */
static unsigned existing_firsts(struct gd_load *L, const char *dir, enum gd_status *st)
{
    for (size_t i = 0; i < L->ndirs; i++)
        if (strcmp(L->dirs[i].dir, dir) == 0)
            return L->dirs[i].mask;
    unsigned mask = 0;
    for (size_t i = 0; i < L->arch.firsts.count && i < 32; i++) {
        char *p = gd_path_join(dir, L->arch.firsts.items[i]);
        if (!p) {
            *st = GD_ENOMEM;
            return 0;
        }
        if (gd_root_is_dir(L->loader->root, p))
            mask |= 1u << i;
        gd_free(p);
    }
    char *copy = gd_strdup(dir);
    if (!copy || gd_grow((void **)&L->dirs, &L->cap_dirs, L->ndirs + 1, sizeof *L->dirs) != 0) {
        gd_free(copy);
        *st = GD_ENOMEM;
        return mask;
    }
    L->dirs[L->ndirs++] = (struct dirinfo){ copy, mask };
    return mask;
}

static void search_dir(struct search *s, const char *dir, enum gd_rule rule,
                       const struct gd_object *owner)
{
    struct gd_load *L = s->L;
    unsigned mask = L->arch.subdirs.count ? existing_firsts(L, dir, &s->status) : 0;
    for (size_t i = 0; i < L->arch.subdirs.count && mask && !s->stop && s->status == GD_OK; i++) {
        const char *sub = L->arch.subdirs.items[i];
        size_t first = strcspn(sub, "/");
        size_t k = 0;
        for (; k < L->arch.firsts.count; k++)
            if (strlen(L->arch.firsts.items[k]) == first &&
                strncmp(L->arch.firsts.items[k], sub, first) == 0)
                break;
        if (k >= 32 || !(mask & (1u << k)))
            continue;
        char *subdir = gd_path_join(dir, sub);
        char *path = subdir ? gd_path_join(subdir, s->edge->name) : NULL;
        if (path)
            candidate(s, subdir, path, rule, owner);
        else
            s->status = GD_ENOMEM;
        gd_free(path);
        gd_free(subdir);
    }
    if (s->stop || s->status != GD_OK)
        return;
    char *path = gd_path_join(dir, s->edge->name);
    if (!path) {
        s->status = GD_ENOMEM;
        return;
    }
    candidate(s, dir, path, rule, owner);
    gd_free(path);
}

static void search_list(struct search *s, const struct gd_strlist *dirs, enum gd_rule rule,
                        const struct gd_object *owner)
{
    for (size_t i = 0; i < dirs->count && !s->stop && s->status == GD_OK; i++)
        search_dir(s, dirs->items[i], rule, owner);
}

static enum gd_status object_rpath(struct gd_load *L, struct gd_object *o)
{
    if (o->rpath_done || !o->elf)
        return GD_OK;
    o->rpath_done = true;
    /* "If both RUNPATH and RPATH are given, the latter is ignored" (elf/get-dynamic-info.h):
     * glibc drops an object's DT_RPATH when it has DT_RUNPATH, so it takes no part in the
     * chain of loaders' RPATHs either. */
    if (!o->elf->rpath || o->elf->runpath)
        return GD_OK;
    return split_path(L, o->origin, o->elf->rpath, ":", &o->rpath);
}

static enum gd_status object_runpath(struct gd_load *L, struct gd_object *o)
{
    if (o->runpath_done || !o->elf)
        return GD_OK;
    o->runpath_done = true;
    return o->elf->runpath ? split_path(L, o->origin, o->elf->runpath, ":", &o->runpath) : GD_OK;
}

static bool in_default_dir(const struct gd_load *L, const char *path)
{
    for (size_t i = 0; i < L->arch.defaults.count; i++) {
        const char *d = L->arch.defaults.items[i];
        size_t n = strlen(d);
        if (strncmp(path, d, n) == 0 && path[n] == '/')
            return true;
    }
    return false;
}

/* Already loaded under this name, as this SONAME, or (for a path) at this path? */
static struct gd_object *loaded(const struct gd_load *L, const char *name)
{
    return gd_strmap_get(&L->known, name);
}

static void run_search(struct search *s)
{
    struct gd_load *L = s->L;
    struct gd_object *from = (struct gd_object *)s->from;
    const char *name = s->edge->name;
    if (strchr(name, '/')) {
        char *path = absolute(L->loader, name);
        if (!path) {
            s->status = GD_ENOMEM;
            return;
        }
        candidate(s, NULL, path, GD_RULE_PATH, NULL);
        gd_free(path);
        return;
    }
    /* DT_RPATH of the loading object and its loaders, then of the main program, unless the
     * loading object has DT_RUNPATH. */
    if (!from || !from->elf || !from->elf->runpath) {
        bool did_main = false;
        for (struct gd_object *o = from; o && !s->stop && s->status == GD_OK;
             o = (struct gd_object *)o->loader) {
            s->status = object_rpath(L, o);
            search_list(s, &o->rpath, GD_RULE_RPATH, o);
            did_main |= o == gd_load_main(L);
        }
        struct gd_object *main = gd_load_main(L);
        if (!s->stop && s->status == GD_OK && !did_main && main) {
            s->status = object_rpath(L, main);
            search_list(s, &main->rpath, GD_RULE_RPATH, main);
        }
    }
    if (!s->stop && s->status == GD_OK) {
        if (!L->llp_done && L->loader->ld_library_path) {
            L->llp_done = true;
            struct gd_object *main = gd_load_main(L);
            /* glibc splits LD_LIBRARY_PATH at ':' and ';'; its $ORIGIN is the program's. */
            s->status = split_path(L, main && !L->virtual_main ? main->origin : NULL,
                                   L->loader->ld_library_path, ":;", &L->llp);
        }
        search_list(s, &L->llp, GD_RULE_LD_LIBRARY_PATH, NULL);
    }
    if (!s->stop && s->status == GD_OK && from) {
        s->status = object_runpath(L, from);
        search_list(s, &from->runpath, GD_RULE_RUNPATH, from);
    }
    bool nodeflib = from && from->elf && (from->elf->flags_1 & DF_1_NODEFLIB);
    if (!s->stop && s->status == GD_OK && L->loader->cache) {
        uint32_t wanted = gd_ldcache_flags_for(L->arch.elf_class, L->arch.machine);
        /* glibc 2.33+ prefers an entry of a glibc-hwcaps subdirectory the CPU supports, most
         * capable first, over the plain one (elf/dl-cache.c search_cache). */
        const struct gd_ldcache_entry *e =
            gd_ldcache_lookup_best(L->loader->cache, name, wanted, L->arch.hwcaps, L->arch.nhwcaps);
        if (e && nodeflib && in_default_dir(L, e->path)) {
            s->status = note_try(s, e->path, GD_RULE_CACHE, NULL, GD_TRY_NODEFLIB);
        } else if (e) {
            char *dir = dirname_of(e->path);
            if (dir)
                candidate(s, dir, e->path, GD_RULE_CACHE, NULL);
            else
                s->status = GD_ENOMEM;
            gd_free(dir);
        }
    }
    if (!s->stop && s->status == GD_OK && !nodeflib)
        search_list(s, &L->arch.defaults, GD_RULE_DEFAULT, NULL);
}

/* Resolve `name` for `from` into `edge`. `borrow`: the name lives as long as the load (a
 * NEEDED string of an object's ELF), so the edge points at it instead of a pool copy. */
static enum gd_status resolve_into(struct gd_load *L, struct gd_object *from, const char *name,
                                   bool borrow, struct gd_edge *edge)
{
    memset(edge, 0, sizeof *edge);
    edge->name = borrow ? name : intern(&L->pool, name);
    if (!edge->name)
        return GD_ENOMEM;
    edge->rule = GD_RULE_NOT_FOUND;
    struct gd_object *o = loaded(L, name);
    if (o) {
        edge->to = o;
        edge->rule = GD_RULE_LOADED;
        return place(L, o);
    }
    const struct gd_edge *gone = gd_strmap_get(&L->missing_names, name);
    if (gone) {
        /* Not looked for twice: the loader remembers the failure under this name. */
        if (gone->error && !(edge->error = gd_strdup(gone->error)))
            return GD_ENOMEM;
        return GD_OK;
    }
    struct search s = { L, edge, from, NULL, false, GD_OK };
    run_search(&s);
    if (s.status == GD_OK && L->oom)
        s.status = GD_ENOMEM;
    if (s.status != GD_OK)
        return s.status;
    if (s.found) {
        edge->to = s.found;
        return place(L, s.found);
    }
    if (!edge->error)
        edge->rule = GD_RULE_NOT_FOUND;
    struct gd_edge *copy = gd_calloc(1, sizeof *copy);
    if (!copy ||
        gd_grow((void **)&L->missing, &L->cap_missing, L->nmissing + 1, sizeof *L->missing) != 0) {
        gd_free(copy);
        return GD_ENOMEM;
    }
    copy->name = edge->name;
    copy->rule = GD_RULE_NOT_FOUND;
    copy->position = L->nobjects;
    copy->error = edge->error ? gd_strdup(edge->error) : NULL;
    if (edge->error && !copy->error) {
        free_edge(copy);
        gd_free(copy);
        return GD_ENOMEM;
    }
    if (gd_strmap_put(&L->missing_names, copy->name, copy) != GD_OK) {
        free_edge(copy);
        gd_free(copy);
        return GD_ENOMEM;
    }
    L->missing[L->nmissing++] = copy;
    return GD_OK;
}

/* Breadth first from object `start` in the load order, as _dl_map_object_deps does. */
static enum gd_status load_deps(struct gd_load *L, size_t start)
{
    for (size_t i = start; i < L->nobjects; i++) {
        struct gd_object *o = L->objects[i];
        if (o->deps || !o->elf || o->elf->nneeded == 0)
            continue;
        o->deps = gd_calloc(o->elf->nneeded, sizeof *o->deps);
        if (!o->deps)
            return GD_ENOMEM;
        for (size_t k = 0; k < o->elf->nneeded; k++) {
            enum gd_status st = resolve_into(L, o, o->elf->needed[k], true, &o->deps[k]);
            o->ndeps = k + 1;
            if (st != GD_OK)
                return st;
        }
    }
    return GD_OK;
}

static enum gd_status new_load(struct gd_loader *loader, struct gd_load **out)
{
    struct gd_load *L = gd_calloc(1, sizeof *L);
    struct gd_elf_pages *pages = gd_elf_pages_new();
    if (!L || !pages) {
        gd_free(L);
        gd_elf_pages_free(pages);
        *out = NULL;
        return GD_ENOMEM;
    }
    L->loader = loader;
    L->pages = pages;
    *out = L;
    return GD_OK;
}

/* The dynamic loader is in every process before the program's libraries: NEEDED entries for
 * its SONAME reuse it at the interpreter's path (ldd shows /lib64/ld-linux-x86-64.so.2). */
static enum gd_status add_interpreter(struct gd_load *L, const char *interp)
{
    if (!interp) {
        if (L->arch.elf_class == 64 && L->arch.machine == EM_X86_64)
            interp = "/lib64/ld-linux-x86-64.so.2";
        else if (L->arch.machine == EM_AARCH64)
            interp = "/lib/ld-linux-aarch64.so.1";
        else if (L->arch.machine == EM_386)
            interp = "/lib/ld-linux.so.2";
        else
            return GD_OK;
    }
    struct gd_elf *elf;
    unsigned long long dev, ino;
    char *error;
    enum gd_verdict v = verify(L, interp, &elf, &dev, &ino, &error);
    gd_free(error);
    if (v != GD_TRY_ACCEPTED || same_file(L, dev, ino)) {
        gd_elf_free(elf);
        return GD_OK;
    }
    struct gd_object *o = new_object(L, interp, interp, elf, NULL, dev, ino);
    if (!o) {
        gd_elf_free(elf);
        return GD_ENOMEM;
    }
    o->found_by = GD_RULE_INTERPRETER; /* the kernel maps PT_INTERP by its path */
    enum gd_status st = remember(L, o);
    if (st != GD_OK)
        free_object(o);
    return st;
}

enum gd_status gd_load_start(struct gd_loader *loader, const char *path, bool deps,
                             struct gd_load **out)
{
    *out = NULL;
    struct gd_load *L;
    enum gd_status st = new_load(loader, &L);
    if (st != GD_OK)
        return st;
    char *abs = absolute(loader, path);
    struct gd_elf *elf = NULL;
    struct gd_os_stat fs;
    enum gd_status rs = GD_OK;
    st = abs ? read_object(L, abs, &elf, &fs, &rs) : GD_ENOMEM;
    if (st == GD_OK)
        st = rs;
    if (st == GD_OK)
        st = setup_arch(L, elf->elf_class, elf->machine, elf->big_endian);
    struct gd_object *main = NULL;
    if (st == GD_OK) {
        main = new_object(L, abs, abs, elf, NULL, fs.dev, fs.ino);
        if (!main)
            st = GD_ENOMEM;
        else
            elf = NULL;
        if (main)
            main->found_by = GD_RULE_MAIN;
    }
    if (st == GD_OK && (st = remember(L, main)) != GD_OK)
        free_object(main);
    if (st == GD_OK)
        st = place(L, main);
    if (st == GD_OK)
        st = add_interpreter(L, main->elf->interp);
    if (st == GD_OK && deps)
        st = load_deps(L, 0);
    gd_elf_free(elf);
    gd_free(abs);
    if (st != GD_OK) {
        gd_load_free(L);
        return st;
    }
    *out = L;
    return GD_OK;
}

enum gd_status gd_load_start_virtual(struct gd_loader *loader, int elf_class, uint16_t machine,
                                     struct gd_load **out)
{
    *out = NULL;
    struct gd_load *L;
    enum gd_status st = new_load(loader, &L);
    if (st != GD_OK)
        return st;
    L->virtual_main = true;
    st = setup_arch(L, elf_class, machine, false);
    struct gd_object *main = NULL;
    if (st == GD_OK) {
        main = new_object(L, "(program)", "(program)", NULL, NULL, 0, 0);
        if (!main)
            st = GD_ENOMEM;
    }
    if (st == GD_OK) {
        main->origin = NULL; /* a program that is not on disk has no $ORIGIN */
        main->dev = main->ino = ~0ULL;
        if ((st = remember(L, main)) != GD_OK)
            free_object(main);
    }
    if (st == GD_OK)
        st = place(L, main);
    if (st == GD_OK)
        st = add_interpreter(L, NULL);
    if (st != GD_OK) {
        gd_load_free(L);
        return st;
    }
    *out = L;
    return GD_OK;
}

enum gd_status gd_load_resolve(struct gd_load *L, struct gd_object *from, const char *name,
                               bool deps, struct gd_edge **out)
{
    *out = NULL;
    struct gd_edge *edge = gd_calloc(1, sizeof *edge);
    if (!edge)
        return GD_ENOMEM;
    size_t before = L->nobjects;
    enum gd_status st = resolve_into(L, from, name, false, edge);
    if (st == GD_OK && deps)
        st = load_deps(L, before);
    if (st != GD_OK) {
        free_edge(edge);
        gd_free(edge);
        return st;
    }
    /* The edge joins the caller's dlopen edges; pointers to it stay valid. */
    struct gd_object *owner = from ? from : gd_load_main(L);
    if (gd_grow((void **)&owner->dlopens, &owner->cap_dlopens, owner->ndlopens + 1,
                sizeof *owner->dlopens) != 0) {
        free_edge(edge);
        gd_free(edge);
        return GD_ENOMEM;
    }
    owner->dlopens[owner->ndlopens++] = edge;
    *out = edge;
    return GD_OK;
}

size_t gd_load_count(const struct gd_load *L)
{
    return L->nobjects;
}

struct gd_object *gd_load_at(const struct gd_load *L, size_t i)
{
    return i < L->nobjects ? L->objects[i] : NULL;
}

struct gd_object *gd_load_main(const struct gd_load *L)
{
    return L->nobjects ? L->objects[0] : NULL;
}

size_t gd_load_missing_count(const struct gd_load *L)
{
    return L->nmissing;
}

const struct gd_edge *gd_load_missing_at(const struct gd_load *L, size_t i)
{
    return i < L->nmissing ? L->missing[i] : NULL;
}
