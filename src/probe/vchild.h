/*
 * Vendor calls in children: the conventions every probe that loads libcuda, NVML, cudart, cuBLAS,
 * cuDNN or NCCL follows, on top of src/os's children with a deadline.
 *
 * The child sends "KEY VALUE" lines (gd_child_send):
 *   step NAME             the call it is about to make (the last one names where it stopped)
 *   KEY VALUE             a result
 *   KEY! CALL CODE NAME   a failed call and its status code, with NVIDIA's name for it ("" when
 *                         the library could not name it); for dlopen and dlsym the code is -1
 *                         and the name the loader's message
 *   done 1                it reached its end
 * and uses no heap of gpudoctor's (the parent's failure injection is inherited by the fork).
 * The parent reads them (src/parse/childmsg) and turns each KEY into a fact that is known, or
 * absent/unknown with the failed call as the reason, or unknown because the child stopped.
 */
#ifndef GD_PROBE_VCHILD_H
#define GD_PROBE_VCHILD_H

#include "core/attr.h"
#include "core/report.h"
#include "os/os.h"
#include "parse/childmsg.h"
#include "vendor/errors.h"

#include <stdbool.h>

/* Most a child may send: a few hundred lines per GPU. */
#define GD_VC_OUTPUT_MAX (1024 * 1024)

/* ---- in the child ---- */
void gd_vc_step(struct gd_child_out *out, const char *fmt, ...) GD_PRINTF(2, 3);
void gd_vc_fail(struct gd_child_out *out, const char *key, const char *call, long code,
                const char *name);
void gd_vc_done(struct gd_child_out *out);

/* ---- in the parent ---- */
struct gd_vc {
    struct gd_child_result res;
    struct gd_msgs msgs;
    bool done;         /* the child sent "done" and exited normally */
    char step[160];    /* the last step it announced ("start" before any) */
    char problem[320]; /* when not done: "crashed with SIGSEGV during cuInit" */
    const char *end;   /* when not done: "signal", "timeout" or "exit"; NULL when done */
};

/* Run `n` jobs at once, each with `timeout_ms`, and read what each sent into vcs[i]. `watch`
 * (may be NULL) sees the output as it arrives. GD_OK, GD_ENOMEM, or GD_ECHILD when a child could
 * not start (those that did are still read). Free each with gd_vc_free. */
enum gd_status gd_vc_run(const struct gd_child_job *jobs, size_t n, unsigned timeout_ms,
                         struct gd_vc *vcs, gd_child_watch_fn watch, void *user);
void gd_vc_free(struct gd_vc *vc);

/* The value sent for `key`, copied into `buf`; NULL when none. */
const char *gd_vc_str(const struct gd_vc *vc, const char *key, char *buf, size_t size);
bool gd_vc_int(const struct gd_vc *vc, const char *key, long long *value);
/* The failure sent for `key` ("KEY! CALL CODE NAME"): true with its parts, the name taken from
 * src/vendor/errors.c when the child sent none. `call` has room for 64 bytes, `name` for
 * GD_VC_NAME_MAX (a dlopen failure sends the loader's message as the name, code -1). */
#define GD_VC_NAME_MAX 512
bool gd_vc_failure(const struct gd_vc *vc, const char *key, enum gd_vendor_api api, char *call,
                   long *code, char *name);

/* Record the fact `name` of `e` from `key`: known (a string, or an integer when `integer`), or,
 * for a failed call, absent when its code is `absent_code` (NVML_ERROR_NOT_SUPPORTED: the GPU
 * does not report it) or it was a dlopen (the library is not there to load), and unknown
 * otherwise, with the call's error as the reason; or unknown because the child never sent it
 * (how it ended). Returns the fact. */
const struct gd_fact *gd_vc_fact(struct gd_entity *e, const char *name, const struct gd_vc *vc,
                                 const char *key, bool integer, enum gd_vendor_api api,
                                 long absent_code, struct gd_source src);
/* When the child did not reach its end: the facts call.end ("signal", "timeout", "exit"),
 * call.problem (what happened, naming the step) and call.library (`library`, what was being
 * called) on `e`, for the vendor-calls rule. */
void gd_vc_record_end(struct gd_entity *e, const struct gd_vc *vc, const char *library);

#endif
