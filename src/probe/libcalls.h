/* A CUDA library's own version call, made in a child process (src/os children): the loaded
 * library says what it is, even when its file name and headers disagree. */
#ifndef GD_PROBE_LIBCALLS_H
#define GD_PROBE_LIBCALLS_H

#include "core/version.h"

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>

/* How to ask a library its version (the call_kind of the cuda_libraries table). */
enum gd_call_kind {
    GD_CALL_INT_OUT,       /* status fn(int *out): cudaRuntimeGetVersion, ncclGetVersion */
    GD_CALL_SIZE_T_RETURN, /* size_t fn(void): cudnnGetVersion */
    GD_CALL_PROPERTY, /* status fn(type, int *out) for major, minor, patch: cublasGetProperty */
};

struct gd_version_call {
    const char *path;   /* host path of the library to dlopen */
    const char *symbol; /* "cudaRuntimeGetVersion" */
    enum gd_call_kind kind;
    const char *encoding; /* "cuda_int", "cudnn_int", "nccl_int", or NULL for the property kind */
    /* Result, filled by gd_version_calls_run. */
    bool ok;
    struct gd_version version;
    char detail[256]; /* "cudaRuntimeGetVersion returned 13000", or what went wrong */
};

/* Run every call in parallel children, each limited to `timeout_ms`. GD_OK unless gpudoctor
 * itself failed (no child could start, out of memory); a call that fails says so in `detail`. */
enum gd_status gd_version_calls_run(struct gd_version_call *calls, size_t n, unsigned timeout_ms);

/* "int_out" -> GD_CALL_INT_OUT ...; false for an unknown kind. */
bool gd_call_kind_parse(const char *text, enum gd_call_kind *out);

#endif
