/*
 * gpudoctor compat and plan: what a framework release, a CUDA or cuDNN version or a GPU needs,
 * whether a machine can run it, and the newest releases that run on it with their install
 * commands - answered from the knowledge base (docs/compat.md). The machine is the one of the
 * options: the live machine or a --root by default, or one described by gd_options_set_driver,
 * gd_options_add_gpu, gd_options_add_cc and gd_options_set_os (any of them makes the machine a
 * described one; what is not described is unknown). Ownership as in gpudoctor.h.
 */
#ifndef GPUDOCTOR_ADVISE_H
#define GPUDOCTOR_ADVISE_H

#include <gpudoctor/gpudoctor.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gd_advice;

/* An answer: the knowledge base says yes, says no, or cannot tell. */
enum gd_answer { GD_ANSWER_UNKNOWN = 0, GD_ANSWER_NO, GD_ANSWER_YES };

/* The described machine's NVIDIA driver ("470.82", "535.104.05"). A version written without its
 * last parts is compared only as far as it goes. GD_EINVAL when it is not a version. */
GD_API enum gd_status gd_options_set_driver(struct gd_options *opts, const char *version);
/* A GPU of the described machine by model ("Tesla K80"), its compute capability from the KB's
 * gpus table; repeatable. GD_EINVAL for NULL or "". */
GD_API enum gd_status gd_options_add_gpu(struct gd_options *opts, const char *model);
/* A GPU of the described machine by compute capability ("3.7"); repeatable. GD_EINVAL when it
 * is not major.minor. */
GD_API enum gd_status gd_options_add_cc(struct gd_options *opts, const char *cc);
/* The described machine's operating system: "linux" or "windows" (native). GD_EINVAL else. */
GD_API enum gd_status gd_options_set_os(struct gd_options *opts, const char *os);

/*
 * What `spec` needs and whether the machine can run it. `spec`: "tensorflow==2.15",
 * "torch==2.1.0" (also "pytorch"), "jax", "cuda==12.4", "cudnn==8.9", a bare name for every
 * version the KB knows, or a GPU model ("Tesla K80"). GD_OK with `*out` new; GD_EINVAL for a
 * malformed `spec` or option, with `problem` (size `size`, may be NULL) saying why; GD_ENOENT /
 * GD_ENOTDIR for a --root or --kb that is not a directory; GD_ENOMEM.
 */
GD_API enum gd_status gd_compat(const struct gd_options *opts, const char *spec,
                                struct gd_advice **out, char *problem, size_t size);

/* The newest releases of `framework` ("tensorflow", "torch", "jax") that run on the machine,
 * with install commands, and the driver to upgrade to for newer ones. Statuses as gd_compat. */
GD_API enum gd_status gd_plan(const struct gd_options *opts, const char *framework,
                              struct gd_advice **out, char *problem, size_t size);

/* The answer in one word: compat - the machine can run it (YES), cannot (NO), the KB cannot
 * tell (UNKNOWN); plan - a release that runs was found, none runs, cannot tell. */
GD_API enum gd_answer gd_advice_verdict(const struct gd_advice *advice);

/* Format an answer as text (`json` false) or JSON (schema in docs/compat.md). On GD_OK `*out`
 * is new memory (gd_free) of `*len` bytes (len may be NULL) plus a NUL. */
GD_API enum gd_status gd_advice_render(const struct gd_advice *advice, bool json,
                                       const struct gd_render_options *options, char **out,
                                       size_t *len);

GD_API void gd_advice_free(struct gd_advice *advice);

#ifdef __cplusplus
}
#endif

#endif
