/*
 * The answers of `gpudoctor compat` and `gpudoctor plan`: what a framework release, a CUDA or
 * cuDNN version or a GPU needs, whether a machine can run it, the newest releases that run and
 * what to upgrade for newer ones (docs/compat.md). Pure functions of the knowledge base and a
 * machine description: the probes (this machine, a --root) or the options (a machine that is
 * not this one) fill the description, src/api does that, src/render/advice.c prints the answer.
 *
 * Every statement carries its sources: rows of the KB (table, source id, URL) or the machine
 * facts it judged. What the KB does not say is said as such, never guessed.
 *
 * An answer owns all of its strings (one arena); `gd_advice_free` releases it. Running out of
 * memory while building one fails the whole answer (GD_ENOMEM), never a shorter one.
 */
#ifndef GD_ADVISE_ADVISE_H
#define GD_ADVISE_ADVISE_H

#include "core/attr.h"
#include "core/version.h"
#include "kb/compat.h"
#include "kb/pick.h"

#include <gpudoctor/advise.h>
#include <stdbool.h>
#include <stddef.h>

struct gd_arena;

#define GD_ADV_GPUS_MAX 8

/* A GPU of the machine: a model (NULL when only a compute capability is known) and its compute
 * capability when known, each with the source it came from. */
struct gd_adv_gpu {
    unsigned count; /* GPUs of this model and compute capability (a machine with two RTX 3090) */
    const char *name;
    bool has_cc;
    struct gd_version cc;
    const char *cc_kind, *cc_ref; /* "kb" + "gpus: Tesla K80 (...)", "option" + "--cc", ... */
    const char *why;              /* why the compute capability is not known */
};

/* The machine an answer is about. Strings are borrowed for the call. */
struct gd_adv_machine {
    bool given;        /* described by options, not read from a machine */
    const char *where; /* "this machine", "the --root tree", "the described machine" */
    const char *root;  /* the --root directory, or NULL */
    bool has_driver;
    struct gd_version driver;
    const char *driver_kind, *driver_ref;
    const char *no_driver; /* why there is none (probed), or NULL */
    enum gd_kb_os os;
    const char *os_name; /* "Debian GNU/Linux 12 (bookworm)", "linux", "windows" */
    const char *os_kind, *os_ref;
    bool gpus_known; /* the GPU list is complete (probed through the driver, or given) */
    size_t ngpus;
    struct gd_adv_gpu gpus[GD_ADV_GPUS_MAX];
};

enum gd_adv_kind {
    GD_ADV_FACT,    /* what the KB states */
    GD_ADV_CHECK,   /* a judgement of the machine: answer yes, no or unknown */
    GD_ADV_INSTALL, /* a command that installs it */
    GD_ADV_UPGRADE, /* what to change to reach more */
    GD_ADV_NOTE,    /* what the KB does not say */
};

#define GD_ADV_LINE_SOURCES 6

struct gd_adv_line {
    enum gd_adv_kind kind;
    enum gd_kb_answer answer; /* checks */
    const char *text;
    const char *command;             /* install lines; NULL otherwise */
    size_t src[GD_ADV_LINE_SOURCES]; /* indices into the answer's sources */
    size_t nsrc;
};

struct gd_adv_section {
    const char *title;
    bool judged; /* it has a verdict */
    enum gd_kb_answer verdict;
    struct gd_adv_line *lines;
    size_t nlines, cap;
};

/* A source cited by the answer: a KB row's source (table set) or a machine fact (kind, ref). */
struct gd_adv_source {
    const char *table, *id, *title, *url;
    const char *kind, *ref;
};

struct gd_advice {
    struct gd_arena *arena;
    bool failed; /* an allocation failed: the answer is not to be used */
    const char *command, *query;
    struct gd_adv_machine machine; /* its strings copied into the arena */
    struct gd_adv_section *sections;
    size_t nsections, cap_sections;
    struct gd_adv_source *sources;
    size_t nsources, cap_sources;
    enum gd_kb_answer verdict;
    const char *summary; /* one sentence: the answer */
};

/* `gpudoctor compat SPEC`: "tensorflow==2.15", "torch==2.1.0", "jax", "cuda==12.4", "cudnn==8.9",
 * a bare name for every version, or a GPU model ("Tesla K80"). GD_OK with `*out` new; GD_EINVAL
 * for a SPEC that is not one of those forms (`problem` says why); GD_ENOMEM. */
enum gd_status gd_advise_compat(const struct gd_kb *kb, const struct gd_adv_machine *m,
                                const char *spec, struct gd_advice **out, char *problem,
                                size_t size);

/* `gpudoctor plan FRAMEWORK` (tensorflow, torch, jax): the newest builds that run on the
 * machine, their install commands, and the driver that reaches newer ones. Statuses as for
 * gd_advise_compat. */
enum gd_status gd_advise_plan(const struct gd_kb *kb, const struct gd_adv_machine *m,
                              const char *framework, struct gd_advice **out, char *problem,
                              size_t size);

/* ---- building an answer (advise.c), for compat.c and plan.c ---------------------------------- */

struct gd_advice *gd_adv_new(const struct gd_adv_machine *m, const char *command,
                             const char *query);
struct gd_adv_section *gd_adv_section(struct gd_advice *a, const char *fmt, ...) GD_PRINTF(2, 3);
struct gd_adv_line *gd_adv_line(struct gd_advice *a, struct gd_adv_section *s,
                                enum gd_adv_kind kind, enum gd_kb_answer answer, const char *fmt,
                                ...) GD_PRINTF(5, 6);
/* The line's command (install lines). */
void gd_adv_command(struct gd_advice *a, struct gd_adv_line *l, const char *command);
/* Cite the source of a KB row (NULL: nothing). */
void gd_adv_cite(struct gd_advice *a, struct gd_adv_line *l, const struct gd_kb *kb,
                 const struct gd_kb_row *row);
/* Cite a machine fact. */
void gd_adv_cite_fact(struct gd_advice *a, struct gd_adv_line *l, const char *kind,
                      const char *ref);
/* Set the section's verdict from its checks: NO if one says no, else UNKNOWN if one cannot
 * tell, else YES. */
void gd_adv_judge(struct gd_adv_section *s);
/* Combine answers: NO wins over UNKNOWN over YES ("all of these"). */
enum gd_kb_answer gd_adv_all(enum gd_kb_answer a, enum gd_kb_answer b);
/* "any of these": YES wins over UNKNOWN over NO. */
enum gd_kb_answer gd_adv_any(enum gd_kb_answer a, enum gd_kb_answer b);
void gd_adv_summary(struct gd_advice *a, const char *fmt, ...) GD_PRINTF(2, 3);
/* The summary for verdict `v`: "<Where> can <what>.", "... cannot ...", "The knowledge base
 * cannot tell whether <where> can <what>." */
void gd_adv_conclude(struct gd_advice *a, enum gd_kb_answer v, const char *what);

/* Checks shared by compat and plan: whether the machine's driver runs CUDA `cuda`, and whether
 * CUDA `cuda` can compile for each of its GPUs (`what` names the build: "TensorFlow 2.15.0").
 * Each adds lines to `s` and returns the combined answer. */
enum gd_kb_answer gd_adv_check_driver(struct gd_advice *a, struct gd_adv_section *s,
                                      const struct gd_kb *kb, const struct gd_version *cuda);
enum gd_kb_answer gd_adv_check_gpus(struct gd_advice *a, struct gd_adv_section *s,
                                    const struct gd_kb *kb, const struct gd_version *cuda,
                                    const char *what);
/* The environment of src/kb/pick.h for the machine. */
void gd_adv_env(const struct gd_adv_machine *m, struct gd_kb_env *env);
/* "550.54.14 or newer (CUDA 12.4's own; 525 or newer through minor version compatibility)". */
const char *gd_adv_need_text(struct gd_advice *a, const struct gd_kb_cuda_driver *need,
                             const struct gd_version *cuda);

/* For a build chosen by src/kb/pick.h: one line on whether it runs here ("runs", "needs driver
 * X", "CUDA 12.6 cannot compile for compute capability 3.7 (dropped by CUDA 12.0)"), cited;
 * and its install line ("torch" or "tensorflow"). */
const char *gd_adv_choice_reason(struct gd_advice *a, const struct gd_kb_choice *c);
void gd_adv_cite_choice(struct gd_advice *a, struct gd_adv_line *l, const struct gd_kb *kb,
                        const struct gd_kb_choice *c);
void gd_adv_install(struct gd_advice *a, struct gd_adv_section *s, const struct gd_kb *kb,
                    const char *framework, const struct gd_kb_choice *c);

/* The parts of compat and plan (compat.c, plan.c). */
enum gd_kb_answer gd_adv_tensorflow(struct gd_advice *a, const struct gd_kb *kb,
                                    const struct gd_version *version);
enum gd_kb_answer gd_adv_torch(struct gd_advice *a, const struct gd_kb *kb,
                               const struct gd_version *version);
enum gd_kb_answer gd_adv_jax(struct gd_advice *a, const struct gd_kb *kb,
                             const struct gd_version *version);
enum gd_kb_answer gd_adv_cuda(struct gd_advice *a, const struct gd_kb *kb,
                              const struct gd_version *version);
enum gd_kb_answer gd_adv_cudnn(struct gd_advice *a, const struct gd_kb *kb,
                               const struct gd_version *version);
enum gd_kb_answer gd_adv_gpu(struct gd_advice *a, const struct gd_kb *kb, const char *model);
/* plan.c: `framework` is "tensorflow", "torch" or "jax". */
enum gd_kb_answer gd_adv_plan(struct gd_advice *a, const struct gd_kb *kb, const char *framework);

#endif
