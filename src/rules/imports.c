/* --import: what the frameworks said when they were imported in a child (framework_import
 * entities of src/probe/imports.c): an import that failed, crashed or hung, and a CUDA build
 * that imports but sees no GPU. */
#include "rules/rules.h"

#include "core/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lines of the child's standard error given as evidence: the framework's own messages say what
 * it could not load; all of them are in the report's facts. */
#define STDERR_EVIDENCE 6

static const char *val(const struct gd_entity *e, const char *name)
{
    return gd_fact_known_value(gd_entity_fact(e, name));
}

/* The Python a user types to see the same thing. */
static const char *check_of(const char *framework)
{
    static const struct {
        const char *framework, *code;
    } checks[] = {
        { "torch", "import torch; print(torch.cuda.is_available())" },
        { "tensorflow", "import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))" },
        { "jax", "import jax; print(jax.devices())" },
        { "cupy", "import cupy; print(cupy.cuda.runtime.getDeviceCount())" },
        { "onnxruntime", "import onnxruntime; print(onnxruntime.get_available_providers())" },
        { "tensorrt", "import tensorrt; print(tensorrt.__version__)" },
    };
    for (size_t i = 0; i < sizeof checks / sizeof *checks; i++)
        if (strcmp(checks[i].framework, framework) == 0)
            return checks[i].code;
    return "";
}

static void add_stderr(struct gd_finding *f, const struct gd_entity *e, bool last)
{
    const struct gd_fact *count = gd_entity_fact(e, "stderr.count");
    long long n = count && gd_fact_known_value(count) ? atoll(gd_fact_known_value(count)) : 0;
    if (n > 50)
        n = 50; /* the lines kept */
    long long from = last && n > STDERR_EVIDENCE ? n - STDERR_EVIDENCE : 0;
    for (long long i = from; i < n && i < from + STDERR_EVIDENCE; i++) {
        char name[32];
        snprintf(name, sizeof name, "stderr[%lld]", i);
        const struct gd_fact *line = gd_entity_fact(e, name);
        const char *text = gd_fact_known_value(line);
        if (text && gd_span_trim(gd_span_of(text)).n)
            gd_finding_add_evidence(f, line);
    }
}

/* "libcudnn.so.8" out of "ImportError: libcudnn.so.8: cannot open shared object file: ...",
 * glibc's dlerror() text for a library the loader did not find. */
static bool missing_library(const char *error, char *soname, size_t size)
{
    const char *at = error ? strstr(error, ": cannot open shared object file") : NULL;
    if (!at)
        return false;
    const char *start = at;
    while (start > error && start[-1] != ' ' && start[-1] != '\'' && start[-1] != '"')
        start--;
    size_t n = (size_t)(at - start);
    if (n == 0 || n >= size || !strstr(start, ".so"))
        return false;
    memcpy(soname, start, n);
    soname[n] = '\0';
    return true;
}

/* "numpy" out of "ModuleNotFoundError: No module named 'numpy'". */
static bool missing_module(const char *error, char *module, size_t size)
{
    const char *at = error ? strstr(error, "No module named '") : NULL;
    if (!at)
        return false;
    at += strlen("No module named '");
    size_t n = strcspn(at, "'");
    if (n == 0 || n >= size || at[n] != '\'')
        return false;
    memcpy(module, at, n);
    module[n] = '\0';
    return true;
}

static void failed(struct gd_report *r, const struct gd_entity *e, const char *fw, const char *env,
                   const char *python, const char *status)
{
    const char *error = val(e, "error");
    struct gd_finding *f;
    if (gd_str_starts_with(status, "exec failed")) {
        f = gd_finding_add(r, "import.failed", GD_SEV_ERROR, "%s of %s cannot be started: %s",
                           python, env, status + strlen("exec failed: "));
        gd_finding_set_why(f, "Nothing runs with this interpreter: every `python` command of the "
                              "environment fails before Python starts.");
        gd_finding_add_evidence(f, gd_entity_fact(e, "python"));
        gd_finding_add_evidence(f, gd_entity_fact(e, "status"));
        gd_finding_add_fix(f,
                           "Look at the interpreter: `ls -lL %s`. A venv's python is a link to "
                           "the Python it was made with, which must still exist; recreate the "
                           "environment when that Python was removed or upgraded.",
                           python);
        return;
    }
    if (error)
        f = gd_finding_add(r, "import.failed", GD_SEV_ERROR, "%s cannot be imported in %s: %s", fw,
                           env, error);
    else
        f = gd_finding_add(r, "import.failed", GD_SEV_ERROR,
                           "%s cannot be imported in %s: Python ended with %s", fw, env, status);
    gd_finding_set_why(f, "`import %s` fails the same way in every program of this environment.",
                       fw);
    gd_finding_add_evidence(f, gd_entity_fact(e, "imported"));
    gd_finding_add_evidence(f, gd_entity_fact(e, "error"));
    gd_finding_add_evidence(f, gd_entity_fact(e, "status"));
    gd_finding_add_evidence(f, gd_entity_fact(e, "python"));
    add_stderr(f, e, true);
    char name[256];
    if (missing_library(error, name, sizeof name)) {
        gd_finding_add_fix(f,
                           "See which copy of %s the loader would find, and where it looked: "
                           "`gpudoctor which %s`.",
                           name, name);
        gd_finding_add_fix(f,
                           "Install the library %s was built against (the CUDA library findings "
                           "(libs.*) name what is installed), or make its directory known to the "
                           "loader (a file in /etc/ld.so.conf.d, then `ldconfig`).",
                           fw);
    } else if (missing_module(error, name, sizeof name) && strcmp(name, fw) == 0) {
        gd_finding_add_fix(f,
                           "%s's files are in a site directory of %s, but this interpreter does "
                           "not import from there: compare `%s -c 'import sys; print(sys.path)'` "
                           "with where it is installed (PYTHONPATH, PYTHONNOUSERSITE and a venv "
                           "without system site packages change the path).",
                           fw, env, python);
    } else if (missing_module(error, name, sizeof name)) {
        gd_finding_add_fix(f,
                           "%s imports the module `%s`, which this environment lacks: install "
                           "the distribution that provides it into %s.",
                           fw, name, env);
    }
    gd_finding_add_fix(f, "Run `%s -c 'import %s'` to see the whole traceback.", python, fw);
}

static void crashed(struct gd_report *r, const struct gd_entity *e, const char *fw, const char *env,
                    const char *python, const char *status)
{
    const char *sig = status + strlen("signal ");
    struct gd_finding *f = gd_finding_add(r, "import.crashed", GD_SEV_ERROR,
                                          "Importing %s in %s crashed: %s", fw, env, sig);
    /* tensorflow/tensorflow#19584: release binaries 1.6 and later are built with AVX and fail
     * to load on CPUs without it, "a crash with return code 132" (128 + SIGILL). */
    if (strcmp(sig, "SIGILL") == 0 && strcmp(fw, "tensorflow") == 0)
        gd_finding_set_why(f, "Every program that imports it dies (\"Illegal instruction (core "
                              "dumped)\"). TensorFlow's release binaries since 1.6 use AVX "
                              "instructions, and a CPU without AVX dies of SIGILL as it "
                              "loads them.");
    else
        gd_finding_set_why(f, "Every program that imports it dies the same way, before any of "
                              "its own code runs.");
    gd_finding_add_evidence(f, gd_entity_fact(e, "status"));
    gd_finding_add_evidence(f, gd_entity_fact(e, "python"));
    add_stderr(f, e, true);
    if (strcmp(sig, "SIGILL") == 0)
        gd_finding_add_fix(f,
                           "Check that the CPU has the instructions the build needs: `grep -o -m1 "
                           "-w avx /proc/cpuinfo` prints avx when it does; without it, install a "
                           "build for this CPU or build %s from source.",
                           fw);
    gd_finding_add_fix(f,
                       "Run `%s -X faulthandler -c 'import %s'`: Python's faulthandler prints "
                       "the Python stack at the crash (which module was loading).",
                       python, fw);
}

static void timed_out(struct gd_report *r, const struct gd_entity *e, const char *fw,
                      const char *env, const char *python)
{
    const struct gd_fact *limit = gd_rf(r, "imports", "timeout_s");
    const char *s = gd_fact_known_value(limit);
    struct gd_finding *f =
        gd_finding_add(r, "import.timeout", GD_SEV_WARNING,
                       "Importing %s in %s did not finish within %s s", fw, env, s ? s : "the");
    gd_finding_set_why(f, "A program that imports it waits as long, or for ever: a hung import "
                          "is often a file system that does not answer or a first CUDA "
                          "initialisation that blocks.");
    gd_finding_add_evidence(f, gd_entity_fact(e, "status"));
    gd_finding_add_evidence(f, limit);
    gd_finding_add_evidence(f, gd_entity_fact(e, "python"));
    add_stderr(f, e, true);
    gd_finding_add_fix(f,
                       "Run `timeout -s INT 300 %s -c 'import %s'`: when it hangs, the interrupt "
                       "ends it with a traceback of where it waited.",
                       python, fw);
    gd_finding_add_fix(f, "When the import is only slow, give it longer: `--import-timeout "
                          "SECONDS`.");
}

static void no_answer(struct gd_report *r, const struct gd_entity *e, const char *fw,
                      const char *env, const char *python, const char *status)
{
    struct gd_finding *f =
        gd_finding_add(r, "import.no-answer", GD_SEV_WARNING,
                       "%s of %s did not answer about %s: %s", python, env, fw, status);
    gd_finding_set_why(f, "It exited normally but did not print the answer of gpudoctor's "
                          "import script: it may be a wrapper rather than Python, or something "
                          "in the environment writes to its standard output.");
    gd_finding_add_evidence(f, gd_entity_fact(e, "status"));
    gd_finding_add_evidence(f, gd_entity_fact(e, "python"));
    add_stderr(f, e, true);
    gd_finding_add_fix(f, "Run `%s -c \"%s\"` and compare with what you expect.", python,
                       check_of(fw));
}

/* A CUDA build: the framework says so, or, where it cannot (JAX), its files do (the
 * frameworks probe's `build`). */
static bool cuda_build(const struct gd_report *r, const struct gd_entity *e, const char *fw,
                       const char *env)
{
    const struct gd_fact *said = gd_entity_fact(e, "cuda_build");
    if (gd_fact_known_value(said))
        return gd_fact_is_true(said);
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *x = gd_report_entity_at(r, i);
        const char *name = strcmp(gd_entity_kind(x), "framework") == 0 ? val(x, "framework") : 0;
        const char *where = name ? val(x, "env") : NULL, *build = name ? val(x, "build") : NULL;
        if (name && where && build && strcmp(name, fw) == 0 && strcmp(where, env) == 0 &&
            strcmp(build, "cuda") == 0)
            return true;
    }
    return false;
}

static void imported(struct gd_report *r, const struct gd_entity *e, const char *fw,
                     const char *env, const char *python)
{
    const char *version = val(e, "version");
    const struct gd_fact *avail = gd_entity_fact(e, "cuda_available");
    if (gd_fact_is_false(avail) && cuda_build(r, e, fw, env)) {
        struct gd_finding *f = gd_finding_add(r, "import.gpu-not-visible", GD_SEV_WARNING,
                                              "%s%s%s in %s is built for CUDA but sees no GPU", fw,
                                              version ? " " : "", version ? version : "", env);
        if (strcmp(fw, "torch") == 0)
            gd_finding_set_why(f, "Tensors stay on the CPU, and moving one to the GPU raises "
                                  "(\"RuntimeError: No CUDA GPUs are available\").");
        else if (strcmp(fw, "tensorflow") == 0)
            gd_finding_set_why(f, "TensorFlow places everything on the CPU without an error; its "
                                  "log says \"Skipping registering GPU devices...\".");
        else
            gd_finding_set_why(f, "%s runs on the CPU, or fails where a GPU is asked for.", fw);
        gd_finding_add_evidence(f, avail);
        gd_finding_add_evidence(f, gd_entity_fact(e, "device_count"));
        gd_finding_add_evidence(f, gd_entity_fact(e, "cuda_build"));
        gd_finding_add_evidence(f, gd_entity_fact(e, "cuda"));
        gd_finding_add_evidence(f, gd_rf(r, "gpus", "count"));
        const struct gd_fact *visible = gd_rf(r, "env", "CUDA_VISIBLE_DEVICES");
        if (gd_fact_known_value(visible))
            gd_finding_add_evidence(f, visible);
        add_stderr(f, e, false);
        struct gd_machine m;
        gd_machine_of(r, &m);
        if (!m.wsl && !m.module_loaded)
            gd_finding_add_fix(f, "No NVIDIA kernel module is loaded: a GPU is visible only once "
                                  "the driver is (see the driver findings).");
        if (gd_fact_known_value(visible))
            gd_finding_add_fix(f,
                               "CUDA_VISIBLE_DEVICES=%s chooses which GPUs CUDA programs see: "
                               "unset it, or list the GPUs to use.",
                               gd_fact_known_value(visible));
        gd_finding_add_fix(f,
                           "%s's own messages (evidence) name what failed: a CUDA library it "
                           "could not load, or a driver older than its CUDA.",
                           fw);
        gd_finding_add_fix(f, "Check again with `%s -c \"%s\"`.", python, check_of(fw));
        return;
    }
    const char *count = val(e, "device_count");
    struct gd_finding *f = gd_finding_add(
        r, "import.ok", GD_SEV_OK, "%s%s%s imports in %s%s%s%s", fw, version ? " " : "",
        version ? version : "", env, gd_fact_is_true(avail) ? " and sees " : "",
        gd_fact_is_true(avail) && count ? count : "",
        gd_fact_is_true(avail) ? (count && strcmp(count, "1") == 0 ? " GPU" : " GPUs") : "");
    gd_finding_add_evidence(f, gd_entity_fact(e, "imported"));
    gd_finding_add_evidence(f, gd_entity_fact(e, "version"));
    gd_finding_add_evidence(f, avail);
    gd_finding_add_evidence(f, gd_entity_fact(e, "device_count"));
}

void gd_rule_imports(struct gd_report *r, const struct gd_kb *kb)
{
    (void)kb;
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        if (strcmp(gd_entity_kind(e), "framework_import") != 0)
            continue;
        const char *status = val(e, "status"), *fw = val(e, "framework"), *env = val(e, "env");
        const char *python = val(e, "python");
        if (!status || !fw || !env || !python)
            continue; /* not run (--root, no interpreter): the facts say why */
        const struct gd_fact *imp = gd_entity_fact(e, "imported");
        if (gd_str_starts_with(status, "signal "))
            crashed(r, e, fw, env, python, status);
        else if (strcmp(status, "timeout") == 0)
            timed_out(r, e, fw, env, python);
        else if (gd_str_starts_with(status, "exec failed") || gd_fact_is_false(imp) ||
                 (gd_str_starts_with(status, "exit ") && !gd_fact_is_true(imp)))
            failed(r, e, fw, env, python, status);
        else if (gd_str_starts_with(status, "bad answer"))
            no_answer(r, e, fw, env, python, status);
        else if (gd_fact_is_true(imp))
            imported(r, e, fw, env, python);
    }
}
