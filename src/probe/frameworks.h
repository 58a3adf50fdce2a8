/*
 * The ML frameworks installed in the Python environments, read from their files without running
 * Python: which distribution and version (core metadata), how it was built (TensorFlow's
 * build_info.py, torch/version.py, local version labels, the KB's distribution roles), the CUDA
 * libraries its native modules need and where the loader would find them, and the GPU
 * architectures compiled into them. The facts are listed in docs/json-schema.md ("framework",
 * "framework_lib", "kernels", "keras").
 *
 * Split in two: frameworks.c finds the distributions and their build facts; fwlibs.c resolves
 * their CUDA libraries and reads their fat binaries. This header is what the two share.
 */
#ifndef GD_PROBE_FRAMEWORKS_H
#define GD_PROBE_FRAMEWORKS_H

#include "core/strlist.h"
#include "probe/families.h"
#include "probe/probe.h"

#include <stdbool.h>

struct gd_kb_row;
struct gd_kb_table;
struct gd_loader;
struct gd_fw_dist;

enum { GD_FW_ROWS_LOCAL_VERSION, GD_FW_ROWS_EXTRA, GD_FW_ROWS_DLOPEN, GD_FW_ROWS_PRELOAD };

/* Caps: a hostile tree costs bounded time. */
#define GD_FW_MAX            1024               /* framework distributions recorded */
#define GD_FW_SITE_ENTRIES   20000              /* entries of one site directory looked at */
#define GD_FW_META_HEAD      (256 * 1024)       /* METADATA/PKG-INFO: headers come first */
#define GD_FW_RECORD_MAX     (16 * 1024 * 1024) /* TensorFlow's RECORD is about 2 MiB */
#define GD_FW_MODULES_MAX    2048               /* native modules of one distribution */
#define GD_FW_LIBS_MAX       256                /* CUDA libraries of one distribution */
#define GD_FW_BUILD_FILE_MAX (1024 * 1024)

/* One framework distribution found in a site directory. */
struct gd_fw {
    char *meta;       /* the .dist-info or .egg-info path (its entity id follows it) */
    const char *site; /* borrowed: the site directory */
    const char *env;  /* borrowed: the prefix of the first environment that imports from it */
    const struct gd_kb_row *row; /* the KB `dist` row */
    const char *framework, *role;
    char dist[128];    /* PEP 503 normalised */
    char version[128]; /* METADATA Version, "" when unknown */
    bool has_record;   /* a .dist-info with a RECORD file */
    struct gd_entity *entity;
    /* The build, as decided by frameworks.c: "cuda", "cpu", "rocm" or "" (unknown or not
     * applicable); the CUDA and cuDNN versions it was built for, "" when not stated. */
    char build[8];
    char cuda[32], cudnn[32];
};

/* What the probe carries from one step to the next. */
struct gd_fwscan {
    struct gd_probe_ctx *ctx;
    const struct gd_kb_table *kb;
    struct gd_families families;
    struct gd_loader *loader; /* made on first use */
    char *cwd;
    bool loader_failed;
    enum gd_status status; /* GD_ENOMEM once an allocation failed */
    struct gd_fw *fws;
    size_t nfws, cap_fws, dropped;
    struct gd_fw_site *sites; /* each site directory listed, with its distributions */
    size_t nsites, cap_sites;
    struct gd_fw_dist *dists; /* the KB's dist rows (frameworks.c) */
    /* The KB's rows of each kind the probe walks per distribution, collected once (a KB field
     * is a JSON lookup): GD_FW_ROWS_LOCAL_VERSION, _EXTRA, _DLOPEN, _PRELOAD. */
    const struct gd_kb_row **rows[4];
    size_t nrows[4], cap_rows[4];
    size_t ndists;
    /* The inventory's library entities sorted by path, made on first use (fwlibs.c). */
    struct gd_fw_copy *copies;
    size_t ncopies;
    bool copies_made;
};

/* A site directory as listed once: the normalised names of all its distributions (for the
 * extras' requirements), whatever they are. */
struct gd_fw_site {
    const char *path; /* borrowed */
    struct gd_strlist dists;
};

struct gd_fw_copy {
    const char *path;
    const struct gd_entity *entity;
};

/* Record status `st` when it is GD_ENOMEM (the only failure that stops the probe). */
void gd_fwscan_fail(struct gd_fwscan *s, enum gd_status st);

/* For one distribution built for CUDA: the CUDA libraries its native modules need (DT_NEEDED)
 * and the names the KB says it dlopens, each resolved as the loader would from the module
 * that asks, recorded as `framework_lib` entities; the fat binaries of its native modules as
 * `kernels` entities. `env_sites` are the site directories of its environment, in import order
 * (where Python-side preloading looks). */
/* The native modules of a distribution, each a path inside the root, into `out`: the files its
 * RECORD lists (inside the site directory) for which `is_module` holds, else those of its
 * package directory and its lib/ (the KB's module name, else the framework's). At most
 * GD_FW_MODULES_MAX; problems are kept in `s`. */
void gd_fw_list_modules(struct gd_fwscan *s, const struct gd_fw *fw,
                        bool (*is_module)(const char *path), struct gd_strlist *out);
/* The same for the files of one directory (sorted by name). */
void gd_fw_list_dir_modules(struct gd_fwscan *s, const char *dir,
                            bool (*is_module)(const char *path), struct gd_strlist *out);
void gd_fw_probe_libraries(struct gd_fwscan *s, struct gd_fw *fw,
                           const struct gd_strlist *env_sites);

/* Windows (fwdlls.c): the DLLs the distribution's native modules (.pyd, .dll) import, looked for
 * as Python 3.8+ looks for them, with the directories the KB says the framework adds itself;
 * each one missed recorded as a `framework_dll` entity with where the standard order (PATH)
 * finds it. */
void gd_fw_probe_dlls(struct gd_fwscan *s, struct gd_fw *fw);

#endif
