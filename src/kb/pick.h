/*
 * Choosing framework builds for a machine: every CUDA build of PyTorch and TensorFlow that the
 * compatibility tables know, each judged against a driver, an operating system and the compute
 * capabilities of the GPUs, and the install command of a build. The rules use it for their fixes
 * (framework.cpu-only-build, framework.driver-too-old, framework.no-kernel-for-gpu) and the
 * compat and plan commands for their answers, so both say the same.
 *
 * Everything is read through compat.h and every choice names the rows it came from (borrowed
 * from the KB). Nothing allocates. What the tables do not say stays unknown: a compute
 * capability is judged by whether the build's CUDA can compile for it at all (cuda_arch), which
 * rules a build out but never proves that its wheel carries code for that GPU.
 */
#ifndef GD_KB_PICK_H
#define GD_KB_PICK_H

#include "kb/compat.h"

#include <stdbool.h>
#include <stddef.h>

#define GD_KB_ENV_CC_MAX 8

/* The machine a choice is made for. */
struct gd_kb_env {
    bool has_driver;
    struct gd_version driver;
    enum gd_kb_os os;
    size_t ncc; /* distinct compute capabilities of its GPUs (0: none known) */
    struct gd_version cc[GD_KB_ENV_CC_MAX];
};

/* Add a compute capability (a duplicate is kept once); false when the list is full. */
bool gd_kb_env_add_cc(struct gd_kb_env *env, const struct gd_version *cc);

/* One CUDA build of a framework release. */
struct gd_kb_choice {
    struct gd_version release; /* "2.3.1", "2.15.0"; a minor ("2.5") when minor_only */
    /* The choice stands for a minor series: PyTorch minors known from the release matrix only,
     * TensorFlow's tested build rows; install commands then ask for "X.Y.*". */
    bool minor_only;
    struct gd_version cuda;
    char tag[16]; /* PyTorch's wheel tag ("cu121"); "" for TensorFlow */
    bool has_cudnn;
    struct gd_version cudnn;
    /* The driver: GD_KB_FIT_UNKNOWN without one. `need` holds the minimums of `cuda`. */
    enum gd_kb_driver_fit fit;
    struct gd_kb_cuda_driver need;
    /* The GPUs: NO when the build's CUDA cannot compile for one of them (cc_bad, decided by
     * cc_row of cuda_arch), UNKNOWN when the tables cannot tell for one (cc_bad) or no compute
     * capability is known (cc_judged false), YES otherwise. */
    bool cc_judged;
    enum gd_kb_answer cc;
    struct gd_version cc_bad;
    const struct gd_kb_row *cc_row;
    const struct gd_kb_row *row; /* PyTorch: release or wheel row; TensorFlow: build row */
    size_t variant;              /* PyTorch release rows: the index of `tag` in its lists */
};

/* Every CUDA build of PyTorch the tables know, newest release first and, within a release, the
 * newest CUDA first: per minor release, the variants of its newest patch release that has a
 * release row (its pip commands), else the matrix's variants of the minor. Fills at most `cap`,
 * returns how many there are (which may exceed `cap`). */
size_t gd_kb_torch_choices(const struct gd_kb *kb, const struct gd_kb_env *env,
                           struct gd_kb_choice *out, size_t cap);

/* The CUDA variants of one PyTorch release ("2.1.0", or a minor "2.5"), newest CUDA first.
 * Returns how many (0: the release is not in the tables). */
size_t gd_kb_torch_release_choices(const struct gd_kb *kb, const struct gd_kb_env *env,
                                   const struct gd_version *torch, struct gd_kb_choice *out,
                                   size_t cap);

/* Every tested TensorFlow build for env->os, newest first. As gd_kb_torch_choices. */
size_t gd_kb_tf_choices(const struct gd_kb *kb, const struct gd_kb_env *env,
                        struct gd_kb_choice *out, size_t cap);

/* Whether a choice runs: the driver runs its CUDA (with the toolkit's driver, or also through
 * minor version compatibility when `minor_compat`) and no GPU is ruled out. YES, NO, or UNKNOWN
 * when the driver or a compute capability cannot be judged. */
enum gd_kb_answer gd_kb_choice_runs(const struct gd_kb_choice *c, bool minor_compat);

/* The first choice of `list` (newest first) that runs: with the toolkit's driver, else through
 * minor version compatibility. NULL when none surely runs. */
const struct gd_kb_choice *gd_kb_best_choice(const struct gd_kb_choice *list, size_t n);

/* The pip command that installs a PyTorch choice into `buf`: the release row's own command
 * (`*exact` true), else the index row's form for releases after the last release row (`*exact`
 * false: the KB read that form for older releases only). `*row` (may be NULL) receives the row
 * it came from. GD_ENOENT when the tables have no command for it, GD_ELIMIT when `buf` is too
 * small. */
enum gd_status gd_kb_torch_pip(const struct gd_kb *kb, const struct gd_kb_choice *c, char *buf,
                               size_t size, bool *exact, const struct gd_kb_row **row);

/* How a TensorFlow build is installed. */
enum gd_kb_tf_how {
    GD_KB_TF_COMMANDS, /* the commands of a row of TensorFlow's pip page for that release (2.13),
                        * or of native Windows (tensorflow<2.11) */
    GD_KB_TF_AND_CUDA, /* pip install 'tensorflow[and-cuda]==X.Y.*' (==X.Y.Z for a choice that is
                        * not minor_only): the extra brings CUDA */
    GD_KB_TF_PLAIN,    /* pip install tensorflow==X.Y.* (tensorflow-gpu for 1.x): CUDA and cuDNN
                        * of the tested build configuration are installed separately */
};

/* The install commands of a TensorFlow choice for `os` (joined with " && " when several) into
 * `buf`; `*how` says which kind, `*row` (may be NULL) the row they come from (the pip page's row,
 * the and-cuda fact, or the build row itself). GD_ELIMIT when `buf` is too small. */
enum gd_status gd_kb_tf_install(const struct gd_kb *kb, const struct gd_kb_choice *c,
                                enum gd_kb_os os, char *buf, size_t size, enum gd_kb_tf_how *how,
                                const struct gd_kb_row **row);

#endif
