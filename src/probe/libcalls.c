#include "probe/libcalls.h"

#include "core/alloc.h"
#include "probe/childfns.h"
#include "core/str.h"
#include "os/os.h"
#include "parse/childmsg.h"
#include "vendor/abi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUTPUT_MAX 4096

/* In the child: load, look up, call, report "step" lines and the answer. */
static void call_in_child(void *arg, struct gd_child_out *out)
{
    const struct gd_version_call *c = arg;
    char err[512];
    gd_child_send(out, "step", "dlopen");
    void *h = gd_os_dlopen(c->path, err, sizeof err);
    if (!h) {
        gd_child_send(out, "error", "dlopen failed: %s", err);
        return;
    }
    gd_child_send(out, "step", "dlsym");
    void *sym = gd_os_dlsym(h, c->symbol);
    if (!sym) {
        gd_child_send(out, "error", "the library has no %s", c->symbol);
        return;
    }
    gd_child_send(out, "step", "call");
    switch (c->kind) {
    case GD_CALL_INT_OUT: {
        int v = -1;
        int status = ((cudaRuntimeGetVersion_fn)sym)(&v);
        gd_child_send(out, "status", "%d", status);
        gd_child_send(out, "value", "%d", v);
        break;
    }
    case GD_CALL_SIZE_T_RETURN: {
        size_t v = ((cudnnGetVersion_fn)sym)();
        gd_child_send(out, "status", "0");
        gd_child_send(out, "value", "%zu", v);
        break;
    }
    case GD_CALL_PROPERTY: {
        int major = -1, minor = -1, patch = -1;
        cublasGetProperty_fn f = (cublasGetProperty_fn)sym;
        int s1 = f(MAJOR_VERSION, &major), s2 = f(MINOR_VERSION, &minor),
            s3 = f(PATCH_LEVEL, &patch);
        gd_child_send(out, "status", "%d", s1 ? s1 : s2 ? s2 : s3);
        gd_child_send(out, "value", "%d.%d.%d", major, minor, patch);
        break;
    }
    }
}

/* The call as values: the library, the symbol, the kind (the encoding is the parent's). */
static void call_pack(const void *arg, struct gd_child_args *out)
{
    const struct gd_version_call *c = arg;
    gd_child_args_str(out, c->path);
    gd_child_args_str(out, c->symbol);
    gd_child_args_int(out, c->kind);
}

static bool call_unpack(const struct gd_child_args *in, void *arg)
{
    struct gd_version_call *c = arg;
    long long kind;
    if (in->n != 3 || !gd_child_args_get_int(in, 2, &kind) || kind < GD_CALL_INT_OUT ||
        kind > GD_CALL_PROPERTY)
        return false;
    c->path = gd_child_args_at(in, 0);
    c->symbol = gd_child_args_at(in, 1);
    c->kind = (enum gd_call_kind)kind;
    return c->path && c->symbol;
}

const struct gd_child_def gd_version_call_def = { "libcalls.version", call_in_child, call_pack,
                                                  call_unpack, sizeof(struct gd_version_call) };

/* What the child sent is read as any untrusted text (src/parse/childmsg.h). GD_OK or GD_ENOMEM. */
static enum gd_status interpret(struct gd_version_call *c, const struct gd_child_result *res)
{
    char step[32] = "start", error[256], status[32], value[64], sig[32];
    struct gd_msgs msgs;
    if (gd_msgs_parse(res->output, res->len, &msgs) != GD_OK)
        return GD_ENOMEM;
    gd_msgs_str(&msgs, "step", step, sizeof step);
    bool have_error = gd_msgs_str(&msgs, "error", error, sizeof error) != NULL;
    bool have_value = gd_msgs_str(&msgs, "value", value, sizeof value) != NULL &&
                      gd_msgs_str(&msgs, "status", status, sizeof status) != NULL;
    gd_msgs_free(&msgs);
    if (res->end == GD_CHILD_TIMED_OUT) {
        snprintf(c->detail, sizeof c->detail, "%s of %s did not finish in time (killed)", step,
                 c->symbol);
        return GD_OK;
    }
    if (res->end == GD_CHILD_SIGNALED) {
        snprintf(c->detail, sizeof c->detail, "crashed with %s during %s",
                 gd_os_signal_name(res->code, sig, sizeof sig), step);
        return GD_OK;
    }
    if (have_error) {
        snprintf(c->detail, sizeof c->detail, "%s", error);
        return GD_OK;
    }
    if (!have_value) {
        snprintf(c->detail, sizeof c->detail, "exited with status %d during %s", res->code, step);
        return GD_OK;
    }
    if (strcmp(status, "0") != 0) {
        snprintf(c->detail, sizeof c->detail, "%s returned error %s", c->symbol, status);
        return GD_OK;
    }
    enum gd_status st;
    long n = strtol(value, NULL, 10);
    if (c->kind == GD_CALL_PROPERTY)
        st = gd_version_parse(value, &c->version);
    else if (c->encoding && strcmp(c->encoding, "cudnn_int") == 0)
        st = gd_version_from_cudnn_int(n, &c->version);
    else if (c->encoding && strcmp(c->encoding, "nccl_int") == 0)
        st = gd_version_from_nccl_int(n, &c->version);
    else
        st = gd_version_from_cuda_int(n, &c->version);
    if (st != GD_OK) {
        snprintf(c->detail, sizeof c->detail, "%s returned %s, not a version", c->symbol, value);
        return GD_OK;
    }
    c->ok = true;
    snprintf(c->detail, sizeof c->detail, "%s returned %s", c->symbol, value);
    return GD_OK;
}

enum gd_status gd_version_calls_run(struct gd_version_call *calls, size_t n, unsigned timeout_ms)
{
    if (n == 0)
        return GD_OK;
    struct gd_child_job *jobs = gd_calloc(n, sizeof *jobs);
    struct gd_child_result *results = gd_calloc(n, sizeof *results);
    enum gd_status st = jobs && results ? GD_OK : GD_ENOMEM;
    for (size_t i = 0; st == GD_OK && i < n; i++) {
        jobs[i].def = &gd_version_call_def;
        jobs[i].arg = &calls[i];
        calls[i].ok = false;
        calls[i].detail[0] = '\0';
    }
    if (st == GD_OK)
        st = gd_os_children_run(jobs, n, timeout_ms, OUTPUT_MAX, results);
    for (size_t i = 0; st == GD_OK && i < n; i++)
        st = interpret(&calls[i], &results[i]);
    for (size_t i = 0; results && i < n; i++)
        gd_child_result_free(&results[i]);
    gd_free(results);
    gd_free(jobs);
    return st;
}

bool gd_call_kind_parse(const char *text, enum gd_call_kind *out)
{
    if (!text)
        return false;
    if (strcmp(text, "int_out") == 0)
        *out = GD_CALL_INT_OUT;
    else if (strcmp(text, "size_t_return") == 0)
        *out = GD_CALL_SIZE_T_RETURN;
    else if (strcmp(text, "property") == 0)
        *out = GD_CALL_PROPERTY;
    else
        return false;
    return true;
}
