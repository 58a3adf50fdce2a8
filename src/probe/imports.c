/*
 * --import: ask the frameworks themselves. Which environments and frameworks come from the
 * report (the python_env entities of gd_probe_python, the framework entities of the frameworks
 * probe), so that this probe runs on any report that has them; each (environment, framework)
 * pair is imported in a child of the environment's interpreter (src/probe/pyimport.h), and what
 * the child answered, how it ended and what it wrote on its standard error become the facts of a
 * `framework_import` entity, id "import:<environment>:<framework>".
 *
 * Nothing under a foreign root is executed: there the same entities say why nothing was run.
 */
#include "probe/probe.h"

#include "core/alloc.h"
#include "core/str.h"
#include "core/version.h"
#include "parse/pyanswer.h"
#include "probe/pyimport.h"

#include <stdio.h>
#include <string.h>

/* Lines of a child's standard error kept as facts, and the bytes kept of each. */
#define STDERR_LINES_MAX 50
#define STDERR_LINE_MAX  512

struct env {
    const struct gd_entity *e;
    const char *name;   /* the python_env id without "python_env:" */
    const char *prefix; /* its `prefix` */
    const struct gd_fact *python;
    bool chosen;
    bool has[GD_IMPORT_FRAMEWORKS]; /* by index in gd_import_frameworks */
};

struct pair {
    struct gd_entity *e;
    const char *framework;
    const char *python; /* NULL when nothing is run */
    char call[GD_ROOT_PATH_MAX + 64];
};

static int framework_index(const char *name)
{
    for (size_t i = 0; name && i < GD_IMPORT_FRAMEWORKS; i++)
        if (strcmp(gd_import_frameworks[i], name) == 0)
            return (int)i;
    return -1;
}

static bool has_site(const struct gd_entity *env, const char *site)
{
    for (size_t i = 0; i < gd_entity_fact_count(env); i++) {
        const struct gd_fact *f = gd_entity_fact_at(env, i);
        const char *v = gd_fact_known_value(f);
        if (v && gd_str_starts_with(gd_fact_name(f), "site_dirs[") && strcmp(v, site) == 0)
            return true;
    }
    return false;
}

/* A framework belongs to every environment that would import it: one whose site directories
 * hold its site (a venv with the system's site packages sees the system's torch), else, for a
 * framework that does not say where it is, the environment it names. */
static void mark_frameworks(const struct gd_report *r, struct env *envs, size_t n)
{
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *fw = gd_report_entity_at(r, i);
        if (strcmp(gd_entity_kind(fw), "framework") != 0)
            continue;
        int k = framework_index(gd_fact_known_value(gd_entity_fact(fw, "framework")));
        if (k < 0)
            continue;
        const char *site = gd_fact_known_value(gd_entity_fact(fw, "site"));
        const char *prefix = gd_fact_known_value(gd_entity_fact(fw, "env"));
        for (size_t j = 0; j < n; j++) {
            if (site ? has_site(envs[j].e, site)
                     : prefix && envs[j].prefix && strcmp(prefix, envs[j].prefix) == 0)
                envs[j].has[k] = true;
        }
    }
}

static bool any_framework(const struct env *e)
{
    for (size_t k = 0; k < GD_IMPORT_FRAMEWORKS; k++)
        if (e->has[k])
            return true;
    return false;
}

/* GD_IMPORT_CHOSEN: the environments the user runs, i.e. the active ones (VIRTUAL_ENV,
 * CONDA_PREFIX) and those given with --python; without any, the one python3 on PATH runs.
 * GD_IMPORT_ALL: every one. Only those with a framework and a `python` fact count (a user
 * site or a --site directory has no interpreter of its own: its frameworks are imported
 * through the interpreters whose site directories include it). */
static void choose(struct env *envs, size_t n, enum gd_import_mode mode)
{
    bool named = false;
    for (size_t i = 0; i < n; i++) {
        const struct gd_entity *e = envs[i].e;
        const char *by = gd_fact_known_value(gd_entity_fact(e, "found_by"));
        envs[i].chosen = mode == GD_IMPORT_ALL || gd_fact_is_true(gd_entity_fact(e, "active")) ||
                         (by && strcmp(by, "--python") == 0);
        named |= envs[i].chosen;
    }
    for (size_t i = 0; i < n && !named; i++)
        envs[i].chosen = gd_fact_is_true(gd_entity_fact(envs[i].e, "default"));
    for (size_t i = 0; i < n; i++)
        envs[i].chosen &= envs[i].python != NULL && any_framework(&envs[i]);
}

static size_t find_envs(const struct gd_report *r, struct env *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < gd_report_entity_count(r) && n < max; i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        if (strcmp(gd_entity_kind(e), "python_env") != 0)
            continue;
        const char *id = gd_entity_id(e);
        out[n] = (struct env){ .e = e,
                               .name = gd_str_starts_with(id, "python_env:") ? id + 11 : id,
                               .prefix = gd_fact_known_value(gd_entity_fact(e, "prefix")),
                               .python = gd_entity_fact(e, "python") };
        n++;
    }
    return n;
}

/* ---- what the child said -------------------------------------------------------------------- */

/* The Python expression behind each answer, for the facts' sources. */
static const struct {
    const char *framework, *name, *expr;
} exprs[] = {
    { "torch", "version", "torch.__version__" },
    { "torch", "cuda", "torch.version.cuda" },
    { "torch", "hip", "torch.version.hip" },
    { "torch", "cuda_build", "torch.version.cuda is not None" },
    { "torch", "cuda_available", "torch.cuda.is_available()" },
    { "torch", "device_count", "torch.cuda.device_count()" },
    { "torch", "arch_list", "torch.cuda.get_arch_list()" },
    { "torch", "cudnn", "torch.backends.cudnn.version()" },
    { "torch", "gpu.name", "torch.cuda.get_device_name(i)" },
    { "torch", "gpu.capability", "torch.cuda.get_device_capability(i)" },
    { "tensorflow", "version", "tf.__version__" },
    { "tensorflow", "cuda_build", "tf.sysconfig.get_build_info()['is_cuda_build']" },
    { "tensorflow", "cuda", "tf.sysconfig.get_build_info()['cuda_version']" },
    { "tensorflow", "cudnn", "tf.sysconfig.get_build_info()['cudnn_version']" },
    { "tensorflow", "compute_capabilities",
      "tf.sysconfig.get_build_info()['cuda_compute_capabilities']" },
    { "tensorflow", "device_count", "len(tf.config.list_physical_devices('GPU'))" },
    { "tensorflow", "cuda_available", "tf.config.list_physical_devices('GPU') != []" },
    { "tensorflow", "gpus", "tf.config.list_physical_devices('GPU')" },
    { "tensorflow", "gpu.name", "tf.config.experimental.get_device_details(gpu)['device_name']" },
    { "tensorflow", "gpu.capability",
      "tf.config.experimental.get_device_details(gpu)['compute_capability']" },
    { "jax", "version", "jax.__version__" },
    { "jax", "jaxlib", "jaxlib.__version__" },
    { "jax", "backend", "jax.default_backend()" },
    { "jax", "platforms", "the platforms of jax.devices()" },
    { "jax", "device_count", "the GPUs of jax.devices()" },
    { "jax", "cuda_available", "a GPU among jax.devices()" },
    { "jax", "gpu.name", "jax.devices()[i].device_kind" },
    { "jax", "gpu.capability", "jax.devices()[i].compute_capability" },
    { "cupy", "version", "cupy.__version__" },
    { "cupy", "cuda", "cupy.cuda.runtime.runtimeGetVersion()" },
    { "cupy", "driver", "cupy.cuda.runtime.driverGetVersion()" },
    { "cupy", "cuda_build", "not cupy.cuda.runtime.is_hip" },
    { "cupy", "device_count", "cupy.cuda.runtime.getDeviceCount()" },
    { "cupy", "cuda_available", "cupy.cuda.runtime.getDeviceCount() > 0" },
    { "cupy", "gpu.name", "cupy.cuda.runtime.getDeviceProperties(i)['name']" },
    { "cupy", "gpu.capability", "cupy.cuda.Device(i).compute_capability" },
    { "onnxruntime", "version", "onnxruntime.__version__" },
    { "onnxruntime", "providers", "onnxruntime.get_available_providers()" },
    { "onnxruntime", "device", "onnxruntime.get_device()" },
    { "onnxruntime", "cuda_build",
      "'CUDAExecutionProvider' in onnxruntime.get_available_providers()" },
    { "tensorrt", "version", "tensorrt.__version__" },
};

struct reading {
    struct gd_entity *e;
    const char *framework;
    const char *call; /* the command line, for the facts only the answer as a whole states */
    bool imported_said;
};

static void expr_of(const struct reading *rd, const char *name, char *buf, size_t size)
{
    char key[32];
    unsigned i;
    char field[16];
    /* gpu[3].name -> gpu.name */
    if (sscanf(name, "gpu[%u].%15s", &i, field) == 2)
        snprintf(key, sizeof key, "gpu.%s", field);
    else
        snprintf(key, sizeof key, "%s", name);
    for (size_t k = 0; k < sizeof exprs / sizeof *exprs; k++) {
        if (strcmp(exprs[k].framework, rd->framework) == 0 && strcmp(exprs[k].name, key) == 0) {
            snprintf(buf, size, "%s", exprs[k].expr);
            return;
        }
    }
    if (strcmp(name, "imported") == 0 || strcmp(name, "error") == 0 ||
        strcmp(name, "error_type") == 0)
        snprintf(buf, size, "import %s", rd->framework);
    else
        snprintf(buf, size, "%s (the import script's answer)", name);
}

/* Integers some frameworks give in an encoding of their own, as versions. */
static bool encoded_version(const struct reading *rd, const struct gd_answer_item *it,
                            const char *expr)
{
    struct gd_version v;
    enum gd_status st;
    bool torch = strcmp(rd->framework, "torch") == 0, cupy = strcmp(rd->framework, "cupy") == 0;
    if (torch && strcmp(it->name, "cudnn") == 0)
        st = gd_version_from_cudnn_int((long)it->number, &v);
    else if (cupy && (strcmp(it->name, "cuda") == 0 || strcmp(it->name, "driver") == 0))
        st = gd_version_from_cuda_int((long)it->number, &v);
    else
        return false;
    char ref[160 + 32]; /* the expression (160, see on_item) and " = <number>" */
    snprintf(ref, sizeof ref, "%s = %lld", expr, it->number);
    if (cupy && strcmp(it->name, "driver") == 0 && it->number == 0) {
        /* cudaDriverGetVersion: "If no driver is installed, then 0 is returned". */
        gd_fact_absent(rd->e, it->name, "0: no CUDA driver is installed",
                       gd_src(GD_SOURCE_CALL, ref));
        return true;
    }
    if (st != GD_OK) {
        gd_fact_unknown(rd->e, it->name, "not a version number", gd_src(GD_SOURCE_CALL, ref));
        return true;
    }
    char text[GD_VERSION_TEXT_MAX];
    gd_version_format(&v, text, sizeof text);
    gd_fact_str(rd->e, it->name, text, gd_src(GD_SOURCE_CALL, ref));
    return true;
}

static void on_item(void *user, const struct gd_answer_item *it)
{
    struct reading *rd = user;
    char expr[160], why[GD_ANSWER_TEXT_MAX + 64];
    expr_of(rd, it->name, expr, sizeof expr);
    struct gd_source src = gd_src(GD_SOURCE_CALL, expr);
    if (strcmp(it->name, "imported") == 0)
        rd->imported_said = true;
    switch (it->type) {
    case GD_ANSWER_STR:
        gd_fact_str(rd->e, it->name, it->text, src);
        break;
    case GD_ANSWER_INT:
        if (!encoded_version(rd, it, expr))
            gd_fact_int(rd->e, it->name, it->number, src);
        break;
    case GD_ANSWER_BOOL:
        gd_fact_bool(rd->e, it->name, it->number != 0, src);
        break;
    case GD_ANSWER_NONE:
        gd_fact_absent(rd->e, it->name, it->text[0] ? "an empty list" : "None", src);
        break;
    case GD_ANSWER_RAISED:
        snprintf(why, sizeof why, "raised %s", it->text);
        gd_fact_unknown(rd->e, it->name, why, src);
        break;
    case GD_ANSWER_BAD:
        snprintf(why, sizeof why, "the answer gives %s", it->text);
        gd_fact_unknown(rd->e, it->name, why, gd_src(GD_SOURCE_CALL, rd->call));
        break;
    }
}

/* The child's standard error, line by line: the framework's own warnings ("Could not load
 * dynamic library 'libcudnn.so.8'") and the traceback are the evidence a log explainer reads.
 * Returns the last line that is not blank, cleaned, into `last`. */
static void record_stderr(struct gd_entity *e, const struct gd_child_result *res, const char *call,
                          char *last, size_t size)
{
    char ref[sizeof((struct pair *)0)->call + 16], line[STDERR_LINE_MAX];
    snprintf(ref, sizeof ref, "stderr of %s", call);
    struct gd_source src = gd_src(GD_SOURCE_CALL, ref);
    const char *cur = res->errors, *end = res->errors + res->errors_len;
    struct gd_span l;
    long long count = 0;
    last[0] = '\0';
    while (gd_next_line(&cur, end, &l)) {
        gd_text_clean(l, line, sizeof line);
        if (count < STDERR_LINES_MAX) {
            char name[32];
            snprintf(name, sizeof name, "stderr[%lld]", count);
            gd_fact_str(e, name, line, src);
        }
        if (gd_span_trim(l).n)
            snprintf(last, size, "%s", line);
        count++;
    }
    gd_fact_int(e, "stderr.count", count, src);
    if (res->errors_truncated)
        gd_fact_bool(e, "stderr.truncated", true, src);
}

/* How the child ended, as the `status` fact; `why` says it for an `imported` not answered. */
static void record_status(struct pair *p, const struct gd_child_result *res, bool answered,
                          const char *bad, unsigned timeout_s, char *why, size_t size)
{
    struct gd_source call = gd_src(GD_SOURCE_CALL, p->call);
    char sig[32];
    switch (res->end) {
    case GD_CHILD_EXITED:
        if (res->code != 0) {
            gd_fact_strf(p->e, "status", call, "exit %d", res->code);
            snprintf(why, size, "%s exited with status %d without an answer", p->python, res->code);
        } else if (!answered) {
            gd_fact_strf(p->e, "status", call, "bad answer: %s%s", bad,
                         res->truncated ? " (more than 64 KiB)" : "");
            snprintf(why, size, "the answer was not understood: %s", bad);
        } else {
            gd_fact_str(p->e, "status", "ok", call);
            snprintf(why, size, "the answer does not say");
        }
        break;
    case GD_CHILD_SIGNALED:
        gd_fact_strf(p->e, "status", call, "signal %s",
                     gd_os_signal_name(res->code, sig, sizeof sig));
        snprintf(why, size, "%s was killed by %s before it answered", p->python,
                 gd_os_signal_name(res->code, sig, sizeof sig));
        break;
    case GD_CHILD_TIMED_OUT:
        gd_fact_str(p->e, "status", "timeout", call);
        snprintf(why, size, "%s did not answer within %u s (killed)", p->python, timeout_s);
        break;
    case GD_CHILD_EXEC_FAILED:
        gd_fact_strf(p->e, "status", call, "exec failed: %s", res->exec_error);
        snprintf(why, size, "%s could not be started: %s", p->python, res->exec_error);
        break;
    }
}

static void record(struct gd_report *r, struct pair *p, const struct gd_child_result *res,
                   unsigned timeout_s)
{
    char last[STDERR_LINE_MAX] = "", why[GD_ROOT_PATH_MAX + 128], bad[96] = "";
    bool answered = false;
    struct reading rd = { p->e, p->framework, p->call, false };
    /* status and imported first, whatever the answer holds: a later fact of the same name
     * takes their place. */
    struct gd_source call = gd_src(GD_SOURCE_CALL, p->call);
    gd_fact_unknown(p->e, "status", "not read yet", call);
    gd_fact_unknown(p->e, "imported", "not read yet", call);
    if (res->end != GD_CHILD_EXEC_FAILED) {
        enum gd_status st =
            gd_parse_import_answer(res->output, res->len, on_item, &rd, bad, sizeof bad);
        if (st == GD_ENOMEM)
            gd_report_out_of_memory(r);
        answered = st == GD_OK;
        record_stderr(p->e, res, p->call, last, sizeof last);
    }
    record_status(p, res, answered, bad, timeout_s, why, sizeof why);
    if (!rd.imported_said)
        gd_fact_unknown(p->e, "imported", why, call);
    /* Python died before the script could answer (a broken interpreter, a site.py that
     * raised): the last line of its traceback says why. */
    if (!answered && last[0] && res->end == GD_CHILD_EXITED && res->code != 0)
        gd_fact_str(p->e, "error", last, gd_src(GD_SOURCE_CALL, "the last line of its stderr"));
}

/* ---- the probe ------------------------------------------------------------------------------ */

static void not_run(struct pair *p, const char *why)
{
    gd_fact_unknown(p->e, "status", why, gd_src(GD_SOURCE_DERIVED, "--import"));
    gd_fact_unknown(p->e, "imported", why, gd_src(GD_SOURCE_DERIVED, "--import"));
}

/* One entity per chosen (environment, framework), in the order of the environments and of
 * gd_import_frameworks; `p->python` is set where a child is to run. */
static size_t make_pairs(struct gd_probe_ctx *ctx, struct env *envs, size_t n, struct pair *pairs)
{
    size_t np = 0;
    bool live = gd_root_is_live(ctx->root);
    for (size_t i = 0; i < n; i++) {
        if (!envs[i].chosen)
            continue;
        const char *python = gd_fact_known_value(envs[i].python);
        for (size_t k = 0; k < GD_IMPORT_FRAMEWORKS; k++) {
            if (!envs[i].has[k])
                continue;
            const char *fw = gd_import_frameworks[k];
            struct pair *p = &pairs[np++];
            char id[GD_ROOT_PATH_MAX + 96];
            snprintf(id, sizeof id, "import:%s:%s", envs[i].name, fw);
            p->e = gd_report_add_entity(ctx->report, "framework_import", id);
            p->framework = fw;
            struct gd_source from = gd_src(GD_SOURCE_DERIVED, gd_entity_id(envs[i].e));
            gd_fact_str(p->e, "env", envs[i].prefix, from);
            gd_fact_str(p->e, "framework", fw, from);
            if (!python) {
                gd_fact_absent(p->e, "python", gd_fact_reason(envs[i].python), from);
                not_run(p, "the environment has no interpreter");
                continue;
            }
            gd_fact_str(p->e, "python", python, gd_src(GD_SOURCE_PATH, python));
            snprintf(p->call, sizeof p->call, "%s -c <import script> %s", python, fw);
            if (!live) {
                not_run(p, "not run: nothing under a foreign root (--root) is executed");
                continue;
            }
            p->python = python;
        }
    }
    return np;
}

void gd_probe_imports(struct gd_probe_ctx *ctx)
{
    if (ctx->import_mode == GD_IMPORT_OFF)
        return;
    struct gd_report *r = ctx->report;
    unsigned timeout_s = ctx->import_timeout_ms / 1000;
    struct gd_entity *sum = gd_report_add_entity(r, "imports", "imports");
    struct gd_source opt = gd_src(GD_SOURCE_OPTION, "--import");
    gd_fact_str(sum, "mode", ctx->import_mode == GD_IMPORT_ALL ? "all" : "chosen", opt);
    gd_fact_int(sum, "timeout_s", timeout_s, gd_src(GD_SOURCE_OPTION, "--import-timeout"));

    size_t max = 0;
    for (size_t i = 0; i < gd_report_entity_count(r); i++)
        max += strcmp(gd_entity_kind(gd_report_entity_at(r, i)), "python_env") == 0;
    struct env *envs = gd_calloc(max ? max : 1, sizeof *envs);
    struct pair *pairs = gd_calloc(max ? max * GD_IMPORT_FRAMEWORKS : 1, sizeof *pairs);
    struct gd_import_job *jobs = gd_calloc(max ? max * GD_IMPORT_FRAMEWORKS : 1, sizeof *jobs);
    size_t *of = gd_calloc(max ? max * GD_IMPORT_FRAMEWORKS : 1, sizeof *of);
    if (!envs || !pairs || !jobs || !of) {
        gd_report_out_of_memory(r);
        goto out;
    }
    size_t n = find_envs(r, envs, max);
    mark_frameworks(r, envs, n);
    choose(envs, n, ctx->import_mode);
    size_t np = make_pairs(ctx, envs, n, pairs), nj = 0;
    for (size_t i = 0; i < np; i++) {
        if (!pairs[i].python)
            continue;
        jobs[nj] =
            (struct gd_import_job){ .python = pairs[i].python, .framework = pairs[i].framework };
        of[nj++] = i;
    }
    gd_fact_int(sum, "count", (long long)np,
                gd_src(GD_SOURCE_DERIVED, "the chosen environments' frameworks"));
    enum gd_status st = gd_imports_run(jobs, nj, ctx->env, ctx->import_timeout_ms);
    for (size_t j = 0; j < nj; j++) {
        if (st == GD_OK)
            record(r, &pairs[of[j]], &jobs[j].result, timeout_s);
        else
            not_run(&pairs[of[j]], gd_status_str(st));
        gd_child_result_free(&jobs[j].result);
    }
    if (st == GD_ENOMEM)
        gd_report_out_of_memory(r);
out:
    gd_free(of);
    gd_free(jobs);
    gd_free(pairs);
    gd_free(envs);
}
