/* gd_probe_smoke: the parts of `gpudoctor test` run one after another (each its own child, so a
 * crash in cuDNN leaves the cuBLAS result standing), their results recorded as facts, and
 * progress reported as steps start. */
#include "probe/smoke.h"

#include "core/alloc.h"
#include "core/str.h"
#include "probe/childfns.h"
#include "probe/smoke_child.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A cuBLAS or cuDNN first call JIT-compiles and loads hundreds of MiB; a largest-block search
 * on a big GPU makes a few dozen allocations. */
#define SMOKE_TIMEOUT_MS 120000
#define COPIES_MAX       8
#define DEVICES_MAX      16

struct step_def {
    const char *key, *label;
};

static const struct step_def device_steps[] = {
    { "context", "context" },           { "memory", "memory information" },
    { "alloc", "allocation and free" }, { "copy", "host-device-host copy" },
    { "kernel", "PTX kernel" },         { "largest_block", "largest allocation" },
};
static const struct step_def cublas_steps[] = {
    { "load", "load cuBLAS" },
    { "context", "context" },
    { "create", "cublasCreate" },
    { "sgemm", "cuBLAS SGEMM" },
};
static const struct step_def cudnn_steps[] = {
    { "load", "load cuDNN" },
    { "context", "context" },
    { "create", "cudnnCreate" },
    { "conv", "cuDNN convolution" },
};
static const struct step_def nccl_steps[] = {
    { "load", "load NCCL" },
    { "context", "contexts" },
    { "init", "ncclCommInitAll" },
    { "all_reduce", "NCCL all-reduce" },
};

/* ---- the copies programs would load --------------------------------------------------------- */

static void add_copy(struct gd_smoke_copy *out, size_t *n, size_t max, const char *path,
                     const char *who)
{
    for (size_t i = 0; i < *n; i++) {
        if (strcmp(out[i].path, path) == 0) {
            size_t len = strlen(out[i].used_by);
            snprintf(out[i].used_by + len, sizeof out[i].used_by - len, "; %s", who);
            return;
        }
    }
    if (*n == max)
        return;
    out[*n].path = path;
    snprintf(out[*n].used_by, sizeof out[*n].used_by, "%s", who);
    (*n)++;
}

/* "torch 2.4.0 in /opt/venv" from a framework entity, or its id. */
static void framework_name(const struct gd_report *r, const char *id, char *buf, size_t size)
{
    const struct gd_entity *fw = id ? gd_report_entity(r, id) : NULL;
    const char *name = fw ? gd_fact_known_value(gd_entity_fact(fw, "framework")) : NULL;
    const char *version = fw ? gd_fact_known_value(gd_entity_fact(fw, "version")) : NULL;
    const char *env = fw ? gd_fact_known_value(gd_entity_fact(fw, "env")) : NULL;
    if (!name)
        snprintf(buf, size, "%s", id ? id : "a framework");
    else
        snprintf(buf, size, "%s%s%s%s%s", name, version ? " " : "", version ? version : "",
                 env ? " in " : "", env ? env : "");
}

size_t gd_smoke_copies(const struct gd_report *r, const char *soname_prefix,
                       struct gd_smoke_copy *out, size_t max)
{
    size_t n = 0;
    /* The loader's choices first: what a program without its own search path loads. */
    for (int pass = 0; pass < 2; pass++) {
        const char *kind = pass == 0 ? "soname" : "framework_lib";
        for (size_t i = 0; i < gd_report_entity_count(r); i++) {
            const struct gd_entity *e = gd_report_entity_at(r, i);
            if (strcmp(gd_entity_kind(e), kind) != 0)
                continue;
            const char *soname = gd_fact_known_value(gd_entity_fact(e, "soname"));
            const char *path = gd_fact_known_value(gd_entity_fact(e, "path"));
            if (!soname || !path || !gd_str_starts_with(soname, soname_prefix))
                continue;
            char who[400];
            if (pass == 0) {
                snprintf(who, sizeof who, "the loader's choice for %s", soname);
            } else {
                char fw[300];
                framework_name(r, gd_fact_known_value(gd_entity_fact(e, "framework")), fw,
                               sizeof fw);
                snprintf(who, sizeof who, "%s", fw);
            }
            add_copy(out, &n, max, path, who);
        }
    }
    return n;
}

/* ---- running a part ------------------------------------------------------------------------- */

struct smoke {
    struct gd_probe_ctx *ctx;
    const struct gd_smoke_options *o;
    struct gd_live_env env;
    unsigned timeout;
    bool failed; /* gpudoctor itself: out of memory, no child could start */
};

/* Progress from the lines as they arrive: each new step is announced as running. */
struct watch {
    const struct smoke *s;
    const char *device;
    const struct step_def *steps;
    size_t nsteps;
    const char *suffix; /* " (/path/of/the/copy)" or "" */
    const char *idle;   /* why steps were not run when nothing failed, or NULL */
    char line[256];
    size_t len;
    char current[32];
};

static const char *label_of(const struct step_def *steps, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(steps[i].key, key) == 0)
            return steps[i].label;
    return key;
}

static void report(const struct watch *w, const char *key, const char *state)
{
    if (!w->s->o || !w->s->o->progress)
        return;
    char step[1200];
    snprintf(step, sizeof step, "%s%s", label_of(w->steps, w->nsteps, key), w->suffix);
    w->s->o->progress(w->s->o->user, w->device, step, state);
}

static void on_line(struct watch *w)
{
    w->line[w->len] = '\0';
    if (strncmp(w->line, "step ", 5) != 0)
        return;
    char key[32];
    snprintf(key, sizeof key, "%.*s", (int)strcspn(w->line + 5, ": "), w->line + 5);
    if (strcmp(key, w->current) != 0) {
        snprintf(w->current, sizeof w->current, "%s", key);
        report(w, key, "running");
    }
}

static void on_output(void *user, size_t job, const char *data, size_t len)
{
    (void)job;
    struct watch *w = user;
    for (size_t i = 0; i < len; i++) {
        if (data[i] == '\n') {
            on_line(w);
            w->len = 0;
        } else if (w->len + 1 < sizeof w->line) {
            w->line[w->len++] = data[i];
        }
    }
}

static enum gd_vendor_api api_of(const char *call)
{
    if (gd_str_starts_with(call, "cublas"))
        return GD_VENDOR_CUBLAS;
    return GD_VENDOR_DRIVER;
}

/* Each step's result as facts of `e`: KEY is "ok", "failed", "wrong result", "crashed",
 * "hung", "exited", or absent when not run; KEY.detail says what failed, KEY.error and
 * KEY.code the status. Progress reports every step reached. */
static void record_steps(struct gd_entity *e, const struct gd_vc *vc, const struct watch *w)
{
    char step_key[32];
    snprintf(step_key, sizeof step_key, "%.*s", (int)strcspn(vc->step, ": "), vc->step);
    const char *stopped = NULL;
    for (size_t i = 0; i < w->nsteps; i++) {
        const char *key = w->steps[i].key;
        char name[64], text[1024], call[64], err[GD_VC_NAME_MAX];
        long code;
        struct gd_source src = gd_src(GD_SOURCE_CALL, w->steps[i].label);
        snprintf(name, sizeof name, "%s.wrong", key);
        const char *state = NULL;
        if (gd_vc_str(vc, name, text, sizeof text)) {
            state = "wrong result";
            snprintf(name, sizeof name, "%s.detail", key);
            gd_fact_str(e, name, text, src);
        } else if (gd_vc_str(vc, key, text, sizeof text) && strcmp(text, "ok") == 0) {
            state = "ok";
        } else if (gd_vc_failure(vc, key, GD_VENDOR_DRIVER, call, &code, err)) {
            /* Names the library could not give come from the table of the API called. */
            if (api_of(call) != GD_VENDOR_DRIVER)
                gd_vc_failure(vc, key, api_of(call), call, &code, err);
            state = "failed";
            snprintf(name, sizeof name, "%s.detail", key);
            if (code == -1)
                gd_fact_strf(e, name, src, "%s: %s", call, err[0] ? err : "failed");
            else if (err[0])
                gd_fact_strf(e, name, src, "%s returned %s (%ld)", call, err, code);
            else
                gd_fact_strf(e, name, src, "%s returned %ld", call, code);
            if (code != -1) {
                snprintf(name, sizeof name, "%s.code", key);
                gd_fact_int(e, name, code, src);
                if (err[0]) {
                    snprintf(name, sizeof name, "%s.error", key);
                    gd_fact_str(e, name, err, src);
                }
            }
            snprintf(name, sizeof name, "%s.log", key);
            if (gd_vc_str(vc, name, text, sizeof text))
                gd_fact_str(e, name, text, src);
        } else if (!vc->done && !stopped && strcmp(step_key, key) == 0) {
            state = strcmp(vc->end, "timeout") == 0  ? "hung"
                    : strcmp(vc->end, "signal") == 0 ? "crashed"
                                                     : "exited";
            snprintf(name, sizeof name, "%s.detail", key);
            gd_fact_strf(e, name, src, "%s", vc->problem);
        }
        if (state) {
            gd_fact_str(e, key, state, src);
            report(w, key, state);
            if (strcmp(state, "ok") != 0 && !stopped)
                stopped = w->steps[i].label;
        } else {
            char why[400];
            if (stopped)
                snprintf(why, sizeof why, "not run: %s did not pass", stopped);
            else if (!vc->done)
                snprintf(why, sizeof why, "not run: the test %s", vc->problem);
            else
                snprintf(why, sizeof why, "not run%s%s", w->idle ? ": " : "",
                         w->idle ? w->idle : "");
            gd_fact_absent(e, key, why, src);
        }
    }
}

/* Facts a part sends besides its steps. */
typedef void (*extra_fn)(struct gd_entity *e, const struct gd_vc *vc);

static void run_part(struct smoke *s, const struct gd_child_def *def, struct gd_smoke_arg *arg,
                     struct gd_entity *e, const char *device, const struct step_def *steps,
                     size_t nsteps, const char *library, extra_fn extra)
{
    char suffix[1100] = "";
    if (library)
        snprintf(suffix, sizeof suffix, " (%s)", library);
    struct watch w = { s,      device, steps,
                       nsteps, suffix, arg->device < 0 ? "no GPU to run on" : NULL,
                       "",     0,      "" };
    struct gd_child_job job = { .def = def, .arg = arg };
    struct gd_vc vc;
    enum gd_status st = gd_vc_run(&job, 1, s->timeout, &vc, on_output, &w);
    if (st == GD_OK) {
        record_steps(e, &vc, &w);
        if (extra)
            extra(e, &vc);
        char what[1400];
        snprintf(what, sizeof what, "%s on %s", library ? library : s->env.lib, device);
        gd_vc_record_end(e, &vc, what);
    } else {
        if (st == GD_ENOMEM)
            gd_report_out_of_memory(s->ctx->report);
        s->failed = true;
    }
    gd_vc_free(&vc);
}

static void device_numbers(struct gd_entity *e, const struct gd_vc *vc)
{
    static const struct {
        const char *key, *call;
    } numbers[] = {
        { "memory.free", "cuMemGetInfo_v2" },
        { "memory.total", "cuMemGetInfo_v2" },
        { "largest_block.bytes", "cuMemAlloc_v2" },
    };
    for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++) {
        long long v;
        if (gd_vc_int(vc, numbers[i].key, &v))
            gd_fact_int(e, numbers[i].key, v, gd_src(GD_SOURCE_CALL, numbers[i].call));
    }
}

/* "GPU 0 (NVIDIA H100 80GB HBM3)" */
static void device_label(const struct gd_report *r, int d, char *buf, size_t size)
{
    char id[48];
    snprintf(id, sizeof id, "cuda_device:%d", d);
    const char *name = gd_report_value(r, id, "name");
    if (name)
        snprintf(buf, size, "GPU %d (%s)", d, name);
    else
        snprintf(buf, size, "GPU %d", d);
}

static void device_part(struct smoke *s, int d, const char *label)
{
    struct gd_report *r = s->ctx->report;
    char id[48], dev_id[48];
    snprintf(id, sizeof id, "test_device:%d", d);
    snprintf(dev_id, sizeof dev_id, "cuda_device:%d", d);
    struct gd_entity *e = gd_report_add_entity(r, "test_device", id);
    struct gd_source src = gd_src(GD_SOURCE_DERIVED, "cuda_device");
    gd_fact_int(e, "device", d, src);
    const char *name = gd_report_value(r, dev_id, "name");
    const char *bus = gd_report_value(r, dev_id, "bus_id");
    if (name)
        gd_fact_str(e, "name", name, src);
    if (bus)
        gd_fact_str(e, "bus_id", bus, src);
    struct gd_smoke_arg arg = { s->env, d, GD_SMOKE_CUBLAS, NULL };
    run_part(s, &gd_smoke_device_def, &arg, e, label, device_steps,
             sizeof device_steps / sizeof *device_steps, NULL, device_numbers);
}

static void library_part(struct smoke *s, enum gd_smoke_family family,
                         const struct gd_smoke_copy *copy, int d, const char *label)
{
    const char *fam = family == GD_SMOKE_CUBLAS ? "cublas" : "cudnn";
    char id[1200];
    if (d >= 0)
        snprintf(id, sizeof id, "test_library:%s:%d:%s", fam, d, copy->path);
    else
        snprintf(id, sizeof id, "test_library:%s:%s", fam, copy->path);
    struct gd_entity *e = gd_report_add_entity(s->ctx->report, "test_library", id);
    struct gd_source src = gd_src(GD_SOURCE_DERIVED, "the loader emulation and framework_lib");
    gd_fact_str(e, "family", fam, src);
    gd_fact_str(e, "path", copy->path, src);
    gd_fact_str(e, "used_by", copy->used_by, src);
    if (d >= 0)
        gd_fact_int(e, "device", d, src);
    else
        gd_fact_absent(e, "device", "no GPU to run on: the library is only loaded", src);
    struct gd_smoke_arg arg = { s->env, d, family, copy->path };
    const struct step_def *steps = family == GD_SMOKE_CUBLAS ? cublas_steps : cudnn_steps;
    run_part(s, &gd_smoke_library_def, &arg, e, label, steps, 4, copy->path, NULL);
}

static void nccl_part(struct smoke *s, const struct gd_smoke_copy *copy, int n)
{
    char id[1100];
    snprintf(id, sizeof id, "test_nccl:%s", copy->path);
    struct gd_entity *e = gd_report_add_entity(s->ctx->report, "test_nccl", id);
    struct gd_source src = gd_src(GD_SOURCE_DERIVED, "the loader emulation and framework_lib");
    gd_fact_str(e, "path", copy->path, src);
    gd_fact_str(e, "used_by", copy->used_by, src);
    gd_fact_int(e, "devices", n, gd_src(GD_SOURCE_CALL, "cuDeviceGetCount"));
    struct gd_smoke_arg arg = { s->env, n, GD_SMOKE_NCCL, copy->path };
    run_part(s, &gd_smoke_nccl_def, &arg, e, "all GPUs", nccl_steps, 4, copy->path, NULL);
}

void gd_probe_smoke(struct gd_probe_ctx *ctx, const struct gd_smoke_options *o)
{
    struct gd_report *r = ctx->report;
    struct gd_entity *test = gd_report_add_entity(r, "test", "test");
    struct gd_source count_src = gd_src(GD_SOURCE_CALL, "cuDeviceGetCount");
    if (!gd_root_is_live(ctx->root)) {
        gd_fact_unknown(test, "devices", "not the live machine: nothing under --root is run",
                        count_src);
        return;
    }
    struct smoke s = { ctx,
                       o,
                       { gd_env_get(ctx->env, "CUDA_VISIBLE_DEVICES"),
                         gd_env_get(ctx->env, "CUDA_DEVICE_ORDER"),
                         gd_live_driver_lib(ctx, GD_LIVE_CUDA) },
                       o && o->timeout_ms ? o->timeout_ms : SMOKE_TIMEOUT_MS,
                       false };
    long long count = 0;
    const struct gd_fact *init = gd_report_fact(r, "cuda_driver", "init.code");
    const struct gd_fact *cnt = gd_report_fact(r, "cuda_driver", "device_count");
    bool driver = gd_fact_known_value(init) && strcmp(gd_fact_value(init), "0") == 0;
    if (driver && gd_fact_known_value(cnt))
        count = strtoll(gd_fact_value(cnt), NULL, 10);
    if (count > 0) {
        gd_fact_int(test, "devices", count > DEVICES_MAX ? DEVICES_MAX : count, count_src);
    } else if (driver) {
        gd_fact_int(test, "devices", 0, count_src);
    } else {
        const char *why = gd_report_value(r, "cuda_driver", "init");
        char reason[1100];
        if (why)
            snprintf(reason, sizeof reason, "cuInit returned %s", why);
        else
            snprintf(reason, sizeof reason, "%s could not be loaded", s.env.lib);
        gd_fact_absent(test, "devices", reason, gd_src(GD_SOURCE_CALL, "cuInit"));
    }
    struct gd_smoke_copy *cublas = gd_calloc(COPIES_MAX, sizeof *cublas);
    struct gd_smoke_copy *cudnn = gd_calloc(COPIES_MAX, sizeof *cudnn);
    struct gd_smoke_copy *nccl = gd_calloc(COPIES_MAX, sizeof *nccl);
    if (!cublas || !cudnn || !nccl) {
        gd_report_out_of_memory(r);
        goto out;
    }
    size_t ncublas = gd_smoke_copies(r, "libcublas.so.", cublas, COPIES_MAX);
    size_t ncudnn = gd_smoke_copies(r, "libcudnn.so.", cudnn, COPIES_MAX);
    size_t nnccl = gd_smoke_copies(r, "libnccl.so.", nccl, COPIES_MAX);
    struct gd_source copies_src = gd_src(GD_SOURCE_DERIVED, "soname and framework_lib entities");
    gd_fact_int(test, "cublas_copies", (long long)ncublas, copies_src);
    gd_fact_int(test, "cudnn_copies", (long long)ncudnn, copies_src);
    gd_fact_int(test, "nccl_copies", (long long)nnccl, copies_src);
    int ndev = count > DEVICES_MAX ? DEVICES_MAX : (int)count;
    for (int d = 0; d < ndev && !s.failed; d++) {
        char label[300];
        device_label(r, d, label, sizeof label);
        device_part(&s, d, label);
        for (size_t i = 0; i < ncublas && !s.failed; i++)
            library_part(&s, GD_SMOKE_CUBLAS, &cublas[i], d, label);
        for (size_t i = 0; i < ncudnn && !s.failed; i++)
            library_part(&s, GD_SMOKE_CUDNN, &cudnn[i], d, label);
    }
    /* No GPU to run on: still load each copy, which catches a broken install by itself. */
    for (size_t i = 0; ndev == 0 && i < ncublas && !s.failed; i++)
        library_part(&s, GD_SMOKE_CUBLAS, &cublas[i], -1, "no GPU");
    for (size_t i = 0; ndev == 0 && i < ncudnn && !s.failed; i++)
        library_part(&s, GD_SMOKE_CUDNN, &cudnn[i], -1, "no GPU");
    if (ndev >= 2) {
        for (size_t i = 0; i < nnccl && !s.failed; i++)
            nccl_part(&s, &nccl[i], ndev > GD_SMOKE_NCCL_MAX ? GD_SMOKE_NCCL_MAX : ndev);
        if (!nnccl)
            gd_fact_absent(test, "nccl", "no libnccl.so.2 for a program or framework to load",
                           copies_src);
    } else {
        gd_fact_absent(test, "nccl", "an all-reduce needs two GPUs or more", count_src);
    }
    if (s.failed && !gd_report_failed(r))
        gd_fact_unknown(test, "complete", "gpudoctor could not start a child process",
                        gd_src(GD_SOURCE_DERIVED, "gpudoctor test"));
out:
    gd_free(cublas);
    gd_free(cudnn);
    gd_free(nccl);
}
