/*
 * Which library would glibc's loader load, from where, and why — answered without loading
 * anything, inside a root.
 *
 * The search for a DT_NEEDED name (or a dlopen() by name) follows elf/dl-load.c:
 *   1. a name with a '/' is a path;
 *   2. an object already loaded under that name or SONAME (or the same file) is reused;
 *   3. DT_RPATH of the loading object, then of its loaders up the chain, then of the main
 *      program — only when the loading object has no DT_RUNPATH (and none of an object that
 *      has DT_RUNPATH: glibc drops DT_RPATH then);
 *   4. LD_LIBRARY_PATH (':' or ';' separated);
 *   5. DT_RUNPATH of the loading object only;
 *   6. /etc/ld.so.cache (skipping entries in the default directories when the loading object
 *      has DF_1_NODEFLIB);
 *   7. the default directories, unless the loading object has DF_1_NODEFLIB.
 * In every directory the glibc-hwcaps subdirectories the CPU supports come first, and on glibc
 * before 2.37 the legacy hwcap subdirectories (tls, the platform, avx512_1, x86_64).
 * $ORIGIN, $LIB and $PLATFORM are expanded. A candidate of another ELF class or machine is
 * skipped as the loader skips it; a file that is not an ELF stops the search with the loader's
 * error. Dependencies load breadth first, in the order `ldd` prints them.
 */
#ifndef GD_LOADER_LOADER_H
#define GD_LOADER_LOADER_H

#include "core/strlist.h"
#include "elf/elf.h"
#include "loader/ldcache.h"
#include "loader/ldconf.h"

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

struct gd_root;
struct gd_elf_cache;

enum gd_rule {
    GD_RULE_MAIN,            /* the object the load started from */
    GD_RULE_LOADED,          /* already loaded under this name, SONAME or file */
    GD_RULE_PATH,            /* the name holds a '/' */
    GD_RULE_INTERPRETER,     /* the program interpreter (PT_INTERP), mapped by the kernel */
    GD_RULE_RPATH,           /* DT_RPATH (of rule_owner) */
    GD_RULE_LD_LIBRARY_PATH, /* LD_LIBRARY_PATH */
    GD_RULE_RUNPATH,         /* DT_RUNPATH of the loading object */
    GD_RULE_CACHE,           /* /etc/ld.so.cache */
    GD_RULE_DEFAULT,         /* the default directories */
    GD_RULE_NOT_FOUND,
};
/* "rpath", "LD_LIBRARY_PATH", "runpath", "ld.so.cache", "default path", ... */
const char *gd_rule_name(enum gd_rule rule);

enum gd_verdict {
    GD_TRY_ACCEPTED,
    GD_TRY_NO_FILE,       /* nothing at that path */
    GD_TRY_WRONG_CLASS,   /* 32-bit vs 64-bit: skipped */
    GD_TRY_WRONG_MACHINE, /* another architecture: skipped */
    GD_TRY_NOT_ELF,       /* not an ELF file: the loader stops with an error */
    GD_TRY_WRONG_ORDER,   /* other byte order: the loader stops with an error */
    GD_TRY_NOT_LOADABLE,  /* not ET_DYN/ET_EXEC: the loader stops with an error */
    GD_TRY_UNREADABLE,    /* cannot be read: skipped */
    GD_TRY_NODEFLIB,      /* a cache entry in a default directory under DF_1_NODEFLIB */
};
const char *gd_verdict_name(enum gd_verdict verdict);

struct gd_object;

struct gd_try {
    char *path;
    enum gd_rule rule;
    const struct gd_object *owner; /* whose RPATH/RUNPATH; NULL otherwise */
    enum gd_verdict verdict;
};

struct gd_edge {
    const char *name;     /* name and dir: copies owned by the load */
    struct gd_object *to; /* NULL when not found or when loading failed */
    enum gd_rule rule;
    const struct gd_object *owner; /* for GD_RULE_RPATH/RUNPATH: whose entry */
    const char *dir;               /* the search directory that held it, or NULL */
    char *error;                   /* the loader's error when it stopped, or NULL */
    size_t position;               /* a missing entry's place: objects loaded before it */
    struct gd_try *tries;          /* only with gd_loader_options.record_tries */
    size_t ntries, cap_tries;
};

struct gd_object {
    size_t index; /* load order; 0 is the main object */
    /* Strings owned by the load. */
    const char *name;   /* the name it was first loaded under */
    const char *path;   /* where it was found, inside the root (glibc's l_name) */
    const char *origin; /* $ORIGIN: the directory of path */
    struct gd_elf *elf;
    const struct gd_object *loader;      /* whose DT_NEEDED (or dlopen) loaded it */
    enum gd_rule found_by;               /* how the search that loaded it found it */
    const struct gd_object *found_owner; /* whose RPATH/RUNPATH, for those rules */
    unsigned long long dev, ino;
    bool placed;          /* in the load order (the interpreter waits until first needed) */
    struct gd_edge *deps; /* one per DT_NEEDED, in order, once the object was processed */
    size_t ndeps;
    struct gd_edge **dlopens; /* names resolved with gd_load_resolve from this object */
    size_t ndlopens, cap_dlopens;
    struct gd_strlist rpath, runpath; /* expanded directories */
    bool rpath_done, runpath_done;
};

struct gd_loader_options {
    const char *ld_library_path; /* NULL: unset */
    const char *cwd;             /* for relative paths and empty path entries; NULL: none */
    const char *glibc_version;   /* "2.36": legacy hwcap subdirectories before 2.37 */
    bool record_tries;           /* keep every path tried (gpudoctor which) */
    /* What the check has read of its files, shared with the other loads and probes
     * (borrowed); NULL: each load reads the files it tries itself. */
    struct gd_elf_cache *elves;
};

struct gd_loader;

/* Read the root's /etc/ld.so.cache and the CPU's capabilities (/proc/cpuinfo inside the root).
 * Problems (no cache, a corrupt one) are kept as notes, not errors: the loader still searches
 * the other places. On GD_OK `*out` is new. */
enum gd_status gd_loader_new(struct gd_root *root, const struct gd_loader_options *options,
                             struct gd_loader **out);
void gd_loader_free(struct gd_loader *loader);

const struct gd_ldcache *gd_loader_cache(const struct gd_loader *loader);
/* /etc/ld.so.conf and its includes, read on the first call (the loader itself never needs
 * them; the inventory does). GD_ENOMEM is the only error: problems are in the result. */
enum gd_status gd_loader_conf(struct gd_loader *loader, const struct gd_ldconf **out);
/* "cannot read /etc/ld.so.cache: ...", or NULL. */
const char *gd_loader_cache_problem(const struct gd_loader *loader);

/* One load: a set of objects, as in one process. */
struct gd_load;

/* Start a load from the ELF at `path` (inside the root), as the main object. With `deps`, its
 * whole dependency tree is loaded breadth first. GD_ENOENT, GD_EFORMAT... when the main object
 * cannot be read (its problem is not a search problem). On GD_OK `*out` is new. */
enum gd_status gd_load_start(struct gd_loader *loader, const char *path, bool deps,
                             struct gd_load **out);
/* Start a load for a program that is not on disk: the ELF class and machine of the libraries it
 * would accept, no RPATH or RUNPATH (gpudoctor which NAME without --from). */
enum gd_status gd_load_start_virtual(struct gd_loader *loader, int elf_class, uint16_t machine,
                                     struct gd_load **out);
void gd_load_free(struct gd_load *load);

/* Resolve `name` as `from`'s dlopen(name) (or DT_NEEDED when !dlopen), loading what it finds
 * and, with `deps`, that object's dependencies. `*out` is borrowed from the load. */
enum gd_status gd_load_resolve(struct gd_load *load, struct gd_object *from, const char *name,
                               bool deps, struct gd_edge **out);

size_t gd_load_count(const struct gd_load *load);
/* Objects in load order (what `ldd` lists, after the main object). */
struct gd_object *gd_load_at(const struct gd_load *load, size_t i);
struct gd_object *gd_load_main(const struct gd_load *load);
/* Names that were needed but not found, each once, in the order first needed. */
size_t gd_load_missing_count(const struct gd_load *load);
const struct gd_edge *gd_load_missing_at(const struct gd_load *load, size_t i);

#endif
