/*
 * Typed lookups over the compatibility tables of the knowledge base (docs/kb.md): cuda_toolkit,
 * cuda_arch, cudnn_builds, tf_builds, torch_builds, jax_builds, cupy_builds and
 * onnxruntime_builds. They answer the questions the rules and the compat / plan commands ask
 * ("which driver does CUDA 12.4 need", "can CUDA 13.0 build for 6.1", "what was TensorFlow 2.15
 * built with", "the newest PyTorch this driver runs"), so that no rule walks JSON rows itself.
 *
 * Every answer names the row it came from (borrowed from the KB, valid until gd_kb_free), so a
 * finding can cite the row's source with gd_kb_source_url(table, gd_kb_row_source(row)).
 * Nothing here allocates. A table that is missing (a broken --kb override) or a row whose field
 * does not parse counts as "not known": GD_ENOENT or GD_KB_UNKNOWN, never a guess.
 *
 * Versions are struct gd_version (src/core/version.h); a framework version may carry a local
 * label ("2.1.0+cu121"), which is ignored. Comparing driver versions is dotted comparison:
 * "525" is 525.0.0, lower than 525.60.13.
 */
#ifndef GD_KB_COMPAT_H
#define GD_KB_COMPAT_H

#include "core/version.h"

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

struct gd_kb;
struct gd_kb_table;
struct gd_kb_row;

/* A three-way answer: the tables say yes, say no, or do not say. */
enum gd_kb_answer { GD_KB_UNKNOWN = 0, GD_KB_NO, GD_KB_YES };

/* The operating system a driver minimum is asked for (the tables have Linux x86_64 and Windows
 * x86_64 columns). */
enum gd_kb_os { GD_KB_OS_LINUX = 0, GD_KB_OS_WINDOWS };

/* ---- CUDA toolkit -> driver (cuda_toolkit) -------------------------------------------------- */

struct gd_kb_cuda_driver {
    /* The Toolkit Driver Version: for a version with a patch that a row names ("11.0.3"), that
     * row; otherwise the lowest minimum among the releases of its major.minor (its GA), since a
     * runtime of any of them was built no later than the GA needs. */
    bool has_toolkit;
    struct gd_version toolkit_min;
    const struct gd_kb_row *toolkit_row;
    /* The minimum under minor version compatibility (CUDA 11 and later): a driver of the
     * major's family runs the runtime with a limited feature set. `compat_row` is the family's
     * row even when it gives no minimum for `os` (has_compat false). */
    bool has_compat;
    struct gd_version compat_min;
    const struct gd_kb_row *compat_row;
    const struct gd_kb_table *table; /* cuda_toolkit, for the rows' sources */
};

/* The driver minimums for a CUDA runtime/toolkit `cuda` on `os`. GD_OK when at least one is
 * known, GD_ENOENT when neither is (no table, an unknown version, or no column for `os`),
 * GD_EINVAL for NULL arguments. `*out` is always set. */
enum gd_status gd_kb_cuda_min_driver(const struct gd_kb *kb, const struct gd_version *cuda,
                                     enum gd_kb_os os, struct gd_kb_cuda_driver *out);

/* How a driver can run a CUDA runtime. */
enum gd_kb_driver_fit {
    GD_KB_FIT_UNKNOWN = 0,  /* the tables do not say */
    GD_KB_FIT_NO,           /* older than every minimum known for it */
    GD_KB_FIT_MINOR_COMPAT, /* only through minor version compatibility (limited features:
                             * no PTX JIT of newer PTX, per NVIDIA's compatibility guide) */
    GD_KB_FIT_TOOLKIT,      /* at least the toolkit's own driver version */
};

/* Whether a driver version written with `have`'s parts meets the minimum `min`: YES or NO by
 * dotted comparison, UNKNOWN when `have` is shorter than `min` and agrees with all of its parts
 * ("470.82" against 470.82.01: a 470.82.00 would not, a 470.82.01 would). A driver read from
 * the machine always has every part; one given by a user may not. */
enum gd_kb_answer gd_kb_driver_meets(const struct gd_version *have, const struct gd_version *min);

/* Whether `driver` runs `cuda` on `os`; `why` (may be NULL) receives the minimums compared.
 * Below the toolkit's driver it is MINOR_COMPAT or NO by the family minimum; UNKNOWN when the
 * family has minor version compatibility but no minimum for `os`, when nothing is known, or
 * when the driver is written too short to tell (gd_kb_driver_meets); a driver that meets the
 * family minimum but is too short to compare with the toolkit's is MINOR_COMPAT (at least). */
enum gd_kb_driver_fit gd_kb_driver_runs_cuda(const struct gd_kb *kb,
                                             const struct gd_version *driver,
                                             const struct gd_version *cuda, enum gd_kb_os os,
                                             struct gd_kb_cuda_driver *why);

/* The forward-compatibility row (cuda-compat package, the GPUs it is limited to), or NULL. */
const struct gd_kb_row *gd_kb_forward_compat(const struct gd_kb *kb);

/* Whether forward compatibility (cuda-compat) is available for a GPU, given its row of the
 * `gpus` table: YES for data-center and Jetson parts; UNKNOWN for other RTX cards (NVIDIA allows
 * "select NGC Server Ready SKUs of RTX cards" without listing them); NO for other workstation and
 * consumer cards; UNKNOWN without a row or without the forward_compat row. */
enum gd_kb_answer gd_kb_forward_compat_gpu(const struct gd_kb *kb, const struct gd_kb_row *gpu);

/* The CUDA versions (major.minor) the cuda_toolkit table has a driver row for, newest first.
 * Fills at most `cap`, returns how many there are. */
size_t gd_kb_cuda_versions(const struct gd_kb *kb, struct gd_version *out, size_t cap);

/* ---- CUDA toolkit -> compute capabilities (cuda_arch) ------------------------------------- */

/* Every compute capability an event of cuda_arch names, lowest first. As gd_kb_cuda_versions. */
size_t gd_kb_arch_ccs(const struct gd_kb *kb, struct gd_version *out, size_t cap);

/* Whether nvcc of toolkit `cuda` can build for compute capability `cc` (real architecture):
 * YES when the latest event for `cc` at or before `cuda` is "added", NO when it is "dropped" or
 * when `cc` was added by a later toolkit, UNKNOWN when the table has no event for `cc` or `cuda`
 * is older than the oldest toolkit the sources track. `why` (may be NULL) receives the deciding
 * row. */
enum gd_kb_answer gd_kb_cuda_supports_cc(const struct gd_kb *kb, const struct gd_version *cuda,
                                         const struct gd_version *cc, const struct gd_kb_row **why);

/* ---- cuDNN (cudnn_builds) -------------------------------------------------------------------- */

/* Whether cuDNN `cudnn` ("9.1.0.70", or "8.9" for any 8.9.x) has a package for CUDA `cuda`:
 * YES when a row of that release lists it (a listed "12.4" covers 12.4.x); NO when the release's
 * rows for that CUDA major are complete and do not list it, or no row of the release is for that
 * major; UNKNOWN when the release is not in the table or its list for that major is incomplete. */
enum gd_kb_answer gd_kb_cudnn_supports_cuda(const struct gd_kb *kb, const struct gd_version *cudnn,
                                            const struct gd_version *cuda,
                                            const struct gd_kb_row **why);

struct gd_kb_cudnn_req {
    enum gd_kb_answer cuda; /* as gd_kb_cudnn_supports_cuda */
    enum gd_kb_answer cc;   /* UNKNOWN when no cc was asked or the rows give none */
    /* The lowest driver minimum for `os` among the rows that list `cuda` (and `cc`, when given
     * and known). */
    bool has_driver;
    struct gd_version driver_min;
    const struct gd_kb_row *row;
};

/* What cuDNN `cudnn` with CUDA `cuda` needs on `os`, and whether it supports compute capability
 * `cc` (may be NULL). GD_OK, or GD_EINVAL for NULL arguments; `*out` is always set. */
enum gd_status gd_kb_cudnn_requirements(const struct gd_kb *kb, const struct gd_version *cudnn,
                                        const struct gd_version *cuda, const struct gd_version *cc,
                                        enum gd_kb_os os, struct gd_kb_cudnn_req *out);

#define GD_KB_CUDNN_LIST_MAX 16

/* One package of the cuDNN support matrix (a row of cudnn_builds). */
struct gd_kb_cudnn_build {
    struct gd_version cudnn, cudnn_last; /* cudnn_last == cudnn for a single release */
    unsigned long cuda_major;
    size_t ncuda;
    struct gd_version cuda[GD_KB_CUDNN_LIST_MAX];
    bool cuda_list_complete;
    bool has_driver_linux, has_driver_windows;
    struct gd_version driver_linux, driver_windows;
    size_t ncc; /* compute capabilities listed; or cc_min when has_cc_min */
    struct gd_version cc[GD_KB_CUDNN_LIST_MAX];
    bool has_cc_min;
    struct gd_version cc_min;
    const struct gd_kb_row *row;
};

/* The packages of cuDNN `cudnn` (matched at the precision it is written with, as
 * gd_kb_cudnn_supports_cuda; NULL: every package), newest release first. Fills at most `cap`
 * (beyond it, the rows first in the table are the ones kept), returns how many there are; rows
 * whose versions do not parse or whose lists are longer than GD_KB_CUDNN_LIST_MAX are left
 * out. */
size_t gd_kb_cudnn_builds(const struct gd_kb *kb, const struct gd_version *cudnn,
                          struct gd_kb_cudnn_build *out, size_t cap);

/* ---- TensorFlow (tf_builds) ------------------------------------------------------------------ */

struct gd_kb_tf_build {
    struct gd_version tensorflow; /* the tested release the row names ("2.15.0") */
    struct gd_version cuda;       /* as the table writes it ("12.2", "10" on old Windows rows) */
    struct gd_version cudnn;      /* "8.9" */
    const char *python;           /* "3.9-3.11" (borrowed) */
    const struct gd_kb_row *row;
};

/* The tested build configuration of `tf` on `os`: the row of that release, else the row of
 * the same major.minor (2.16.2 -> 2.16.1). GD_ENOENT when none, GD_EFORMAT when the row's
 * versions do not parse. */
enum gd_status gd_kb_tf_build(const struct gd_kb *kb, const struct gd_version *tf, enum gd_kb_os os,
                              struct gd_kb_tf_build *out);

/* The last TensorFlow release with GPU support on native Windows ("2.10"). GD_ENOENT when the
 * fact is not in the table. `row` may be NULL. */
enum gd_status gd_kb_tf_last_native_windows_gpu(const struct gd_kb *kb, struct gd_version *out,
                                                const struct gd_kb_row **row);

/* ---- PyTorch (torch_builds) ----------------------------------------------------------------- */

#define GD_KB_TORCH_VARIANTS_MAX 8

struct gd_kb_torch_variant {
    struct gd_version cuda; /* 12.1 */
    char tag[16];           /* "cu121" */
    bool has_cudnn;
    struct gd_version cudnn;     /* the cuDNN the release matrix gives for it (8.9.2.26) */
    enum gd_kb_answer stable;    /* YES stable, NO experimental, UNKNOWN not in the matrix */
    const struct gd_kb_row *row; /* the wheel or release row it came from */
};

/* The CUDA variants of the official wheels of PyTorch `torch`: the release row of that exact
 * version when the table has one (its pip commands), else the release matrix's wheel rows of
 * its major.minor; cuDNN and status from the matrix. Fills `out` (room for `cap`), sets `*n`.
 * GD_ENOENT when the version is unknown, GD_ELIMIT when more than `cap` variants. */
enum gd_status gd_kb_torch_variants(const struct gd_kb *kb, const struct gd_version *torch,
                                    struct gd_kb_torch_variant *out, size_t cap, size_t *n);

/* The release matrix row of PyTorch minor `torch` (its Python range), or NULL. */
const struct gd_kb_row *gd_kb_torch_matrix(const struct gd_kb *kb, const struct gd_version *torch);

/* ---- Newest release a driver runs ----------------------------------------------------------- */

struct gd_kb_pick {
    struct gd_version release; /* TensorFlow "2.15.0"; PyTorch minor "2.5" */
    struct gd_version cuda;    /* the CUDA of that build or wheel */
    enum gd_kb_driver_fit fit;
    const struct gd_kb_row *row;
};

/* The newest TensorFlow tested build for `os` whose CUDA `driver` runs: with the toolkit's own
 * driver, or also through minor version compatibility when `minor_compat`. GD_ENOENT when
 * none. */
enum gd_status gd_kb_tf_newest_for_driver(const struct gd_kb *kb, const struct gd_version *driver,
                                          enum gd_kb_os os, bool minor_compat,
                                          struct gd_kb_pick *out);

/* The newest PyTorch minor release with a wheel variant `driver` runs, and the newest such
 * variant (the release matrix). GD_ENOENT when none. */
enum gd_status gd_kb_torch_newest_for_driver(const struct gd_kb *kb,
                                             const struct gd_version *driver, enum gd_kb_os os,
                                             bool minor_compat, struct gd_kb_pick *out);

/* ---- JAX, CuPy, ONNX Runtime ---------------------------------------------------------------- */

struct gd_kb_jax_plugin {
    const char *plugin; /* "jax-cuda12-plugin" (borrowed) */
    struct gd_version cuda_min, cudnn_min, cudnn_below, driver_min, cc_min;
    const struct gd_kb_row *row;
};

/* What the current JAX CUDA plugin for `cuda_major` needs (the row marked current). GD_ENOENT
 * when none, GD_EFORMAT when a field does not parse. */
enum gd_status gd_kb_jax_plugin(const struct gd_kb *kb, unsigned long cuda_major,
                                struct gd_kb_jax_plugin *out);

/* Whether CuPy `cupy`'s requirements list CUDA `cuda` (a listed "12.4" covers 12.4.x). A row
 * "14" covers every 14.x; "13.2.0" only itself. UNKNOWN when no row covers `cupy`. */
enum gd_kb_answer gd_kb_cupy_supports_cuda(const struct gd_kb *kb, const struct gd_version *cupy,
                                           const struct gd_version *cuda,
                                           const struct gd_kb_row **why);

/* The onnxruntime_builds row for ONNX Runtime `ort` built for CUDA major `cuda_major` (a listed
 * "1.20" covers 1.20.x), or NULL. */
const struct gd_kb_row *gd_kb_ort_build(const struct gd_kb *kb, const struct gd_version *ort,
                                        unsigned long cuda_major);

#endif
