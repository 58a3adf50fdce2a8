/*
 * Probes gather facts and never judge. Each reads the inspected machine through the context's
 * root and environment snapshot (never getenv() or a host path), and records every fact with its
 * source: what it saw, that a thing is absent, or that it could not tell and why.
 * Probes return nothing: a broken machine is facts, and out-of-memory is sticky in the report.
 */
#ifndef GD_PROBE_PROBE_H
#define GD_PROBE_PROBE_H

#include "core/env.h"
#include "core/strlist.h"
#include "core/version.h"
#include "core/report.h"
#include "probe/pyenvs.h"
#include "sysroot/sysroot.h"

#include <gpudoctor/gpudoctor.h>

struct gd_kb;
struct gd_elf_cache;

struct gd_probe_ctx {
    struct gd_root *root;
    const struct gd_env *env;
    struct gd_report *report;
    const struct gd_kb *kb;
    const char *host_os; /* --os: "linux" or "windows", or NULL to tell from the root */
    /* Set by gd_probe_host: the inspected machine runs Windows (host.os.id "windows"), whose
     * root is the drive `drive` ('C'); the probes of a Linux machine do not run then. */
    bool windows;
    char drive;
    bool calls;          /* load libraries in children to ask their versions (live root only) */
    bool no_devices;     /* do not ask the driver and NVML about the GPUs (--no-devices) */
    unsigned timeout_ms; /* deadline of each vendor call's child; 0: the probe's default */
    const struct gd_strlist *pythons; /* --python: interpreters (or prefixes) given; or NULL */
    const struct gd_strlist *sites;   /* --site: site directories given; or NULL */
    enum gd_import_mode import_mode;  /* --import: ask the frameworks in children */
    unsigned import_timeout_ms;       /* each import child's deadline */
    /* The Python environments, found once by gd_probe_python for every later probe; the
     * pipeline frees them (gd_pyenvs_free). */
    struct gd_pyenvs pyenvs;
    bool pyenvs_found;
    /* What the loader reads of each file, read once for the inventory and every framework's
     * loads (the pipeline makes and frees it); NULL: each reads for itself. */
    struct gd_elf_cache *elves;
};

/* Small text files (os-release, /proc entries, headers) are read whole up to this size. */
#define GD_PROBE_TEXT_MAX (64 * 1024)

/* Record why a fact is not known after `st` failed: GD_ENOENT makes it absent, anything else
 * unknown with the status as the reason. */
const struct gd_fact *gd_probe_fact_failed(struct gd_entity *e, const char *name, enum gd_status st,
                                           struct gd_source src);

/* Directories where the NVIDIA driver's user-space libraries are installed by distribution
 * packages, NVIDIA's .run installer and the NVIDIA container toolkit, in the order the default
 * loader configuration searches them. NULL-terminated. */
extern const char *const gd_driver_lib_dirs[];

/* The version of the CUDA toolkit that `dir` belongs to (a toolkit root, or its bin, lib64, lib
 * or targets/<triple>/lib), from version.json, version.txt, include/cuda.h or, last, a
 * "cuda-X.Y" directory name. On true `*ref` is new memory naming the file or path used. */
bool gd_toolkit_version(struct gd_probe_ctx *ctx, const char *dir, struct gd_version *version,
                        enum gd_source_kind *kind, char **ref);

/* The glibc version of the root ("2.36"): confstr() on the live machine, else a libc-X.Y.so
 * name or libc.so.6's release banner. `ref` names the source. GD_OK, GD_ENOENT when none is
 * found, GD_ENOMEM. */
enum gd_status gd_glibc_version(struct gd_root *root, char *version, size_t size,
                                enum gd_source_kind *kind, char *ref, size_t refsize);

/* The site directories of every Python environment of the root (gd_find_python_envs: system,
 * venvs, conda, pyenv, user sites, --python and --site), appended to `out`, each once, at most
 * GD_SITE_DIRS_MAX. The environments found by gd_probe_python are used when it ran. GD_OK or
 * GD_ENOMEM. */
#define GD_SITE_DIRS_MAX 512
enum gd_status gd_find_site_packages(struct gd_probe_ctx *ctx, struct gd_strlist *out);

/* The value of an environment variable of the inspected machine; on Windows the name is matched
 * ignoring case, as Windows does ("Path" is PATH). Borrowed, or NULL when unset. */
const char *gd_probe_getenv(const struct gd_probe_ctx *ctx, const char *name);

/* A Windows path of the inspected machine (a variable's value, a PATH entry) as a path in the
 * root, with the tree's spelling of each name (Windows matches names ignoring case). GD_OK: it
 * exists, `*out` is new memory. GD_ENOENT or GD_ENOTDIR: nothing is there, `*out` is new memory
 * holding the path as written, converted. GD_EINVAL: it has no place in the root (another drive,
 * a network path, a relative one, an 8.3 short name): `*out` is NULL and `why` (of `why_size`
 * bytes) says which. GD_ENOMEM, or the root's status for a path it could not look at. */
enum gd_status gd_probe_win_path(struct gd_probe_ctx *ctx, const char *win, char **out, char *why,
                                 size_t why_size);

void gd_probe_host(struct gd_probe_ctx *ctx);
/* The Windows system directory ("/Windows/System32", or a wine prefix's "/windows/system32")
 * when a foreign root is a Windows tree: it has one and no os-release (a Linux tree with a wine
 * prefix is still Linux); NULL otherwise. What the host probe records as host.os.id, for the
 * commands that do not run it (gpudoctor which). */
const char *gd_root_windows_marker(struct gd_root *root);
void gd_probe_kernel_module(struct gd_probe_ctx *ctx);
/* The GPUs the kernel module lists in /proc/driver/nvidia/gpus, each model's compute capability
 * from the knowledge base (`gpus` table), and their count. */
void gd_probe_gpus(struct gd_probe_ctx *ctx);
void gd_probe_device_nodes(struct gd_probe_ctx *ctx);
void gd_probe_driver_libs(struct gd_probe_ctx *ctx);
void gd_probe_container(struct gd_probe_ctx *ctx);
void gd_probe_wsl(struct gd_probe_ctx *ctx);
void gd_probe_env(struct gd_probe_ctx *ctx);
/* Every copy of the CUDA family libraries, their versions and what the loader picks. */
void gd_probe_inventory(struct gd_probe_ctx *ctx);
/* The ML frameworks of every Python environment, how they were built, the CUDA libraries they
 * need and the GPU architectures they carry (after the inventory: it reuses its versions). */
void gd_probe_frameworks(struct gd_probe_ctx *ctx);
/* With --import (ctx->import_mode), after the frameworks are known: import each framework of
 * the chosen Python environments in a child of its interpreter (live machine only). */
void gd_probe_imports(struct gd_probe_ctx *ctx);
/* The live GPUs as the CUDA driver API, NVML and each CUDA runtime see them, asked in children
 * with a deadline (live machine only; skipped with a reason under --root), joined with the GPUs
 * of /proc; then which GPU each CUDA device number is (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER).
 * After the inventory, whose SONAME resolutions name the runtimes to ask. */
void gd_probe_live(struct gd_probe_ctx *ctx);
/* Windows (ctx->windows): the driver's nvcuda.dll and nvml.dll, their file versions and the
 * driver version they state (src/probe/win_driver.c). */
void gd_probe_win_driver(struct gd_probe_ctx *ctx);
/* Windows: the CUDA toolkits (CUDA_PATH, CUDA_PATH_Vxx_y, the installer's directory), their
 * versions and DLLs, the cuDNN DLLs beside them and in cuDNN's own directory, and the DLLs
 * cuDNN needs (src/probe/win_cuda.c). After gd_probe_env and gd_probe_python. */
void gd_probe_win_cuda(struct gd_probe_ctx *ctx);
/* Last: turns the root's anomalies (loops, escapes, unreadable files) into facts. */
void gd_probe_root(struct gd_probe_ctx *ctx);

#endif
