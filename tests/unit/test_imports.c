/*
 * --import (gd_probe_imports) on hand-built reports: python_env and framework entities as the
 * Python and frameworks probes record them, and fake interpreters written here as shell scripts
 * (they answer, print junk, fail with a traceback, hang, crash, flood their output, close it
 * and go on). Which environments are chosen; that nothing runs under a foreign root; the
 * child's environment; every allocation failing in turn. Then the real import script: on
 * fake framework packages with the real python3, and on Debian's python3-torch where it is
 * installed.
 */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "core/buf.h"
#include "core/env.h"
#include "core/report.h"
#include "probe/probe.h"
#include "probe/pyimport.h"
#include "sysroot/sysroot.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

static char *dir; /* the fake interpreters */

struct run {
    struct gd_root *root;
    struct gd_env *env;
    struct gd_report *report;
    struct gd_probe_ctx ctx;
};

static void run_init(struct run *r, const char *root, enum gd_import_mode mode, unsigned ms)
{
    memset(r, 0, sizeof *r);
    assert_int_equal(gd_root_new(root, &r->root), GD_OK);
    r->env = gd_env_new();
    assert_non_null(r->env);
    assert_int_equal(gd_env_set(r->env, "PATH", "/usr/bin:/bin"), GD_OK);
    r->report = gd_report_new();
    assert_non_null(r->report);
    r->ctx.root = r->root;
    r->ctx.env = r->env;
    r->ctx.report = r->report;
    r->ctx.import_mode = mode;
    r->ctx.import_timeout_ms = ms;
}

static void run_free(struct run *r)
{
    gd_report_free(r->report);
    gd_env_free(r->env);
    gd_root_free(r->root);
}

/* A python_env as gd_probe_python records it; `python` NULL for one without an interpreter,
 * `how` "active", "default", "--python" or "" for none of those. */
static void add_env(struct gd_report *rep, const char *prefix, const char *python, const char *how)
{
    char id[PATH_MAX + 16], site[PATH_MAX + 64];
    snprintf(id, sizeof id, "python_env:%s", prefix);
    snprintf(site, sizeof site, "%s/lib/python3.11/site-packages", prefix);
    struct gd_entity *e = gd_report_add_entity(rep, "python_env", id);
    struct gd_source src = gd_src(GD_SOURCE_PATH, prefix);
    gd_fact_str(e, "kind", "venv", src);
    gd_fact_str(e, "prefix", prefix, src);
    gd_fact_str(e, "found_by", strcmp(how, "--python") == 0 ? "--python" : "PATH", src);
    if (python)
        gd_fact_str(e, "python", python, gd_src(GD_SOURCE_PATH, python));
    else
        gd_fact_absent(e, "python", "no pythonX.Y, python3 or python in its bin", src);
    gd_fact_bool(e, "active", strcmp(how, "active") == 0, src);
    gd_fact_bool(e, "default", strcmp(how, "default") == 0, src);
    gd_fact_int(e, "site_dirs", 1, src);
    gd_fact_str(e, "site_dirs[0]", site, src);
}

/* A framework entity as the frameworks probe records it, in the site of `prefix`. */
static void add_framework(struct gd_report *rep, const char *prefix, const char *framework,
                          const char *dist)
{
    char id[PATH_MAX + 128], site[PATH_MAX + 64];
    snprintf(site, sizeof site, "%s/lib/python3.11/site-packages", prefix);
    snprintf(id, sizeof id, "framework:%s/%s-1.0.dist-info", site, dist);
    struct gd_entity *e = gd_report_add_entity(rep, "framework", id);
    struct gd_source src = gd_src(GD_SOURCE_FILE, id + 10);
    gd_fact_str(e, "framework", framework, src);
    gd_fact_str(e, "dist", dist, src);
    gd_fact_str(e, "env", prefix, src);
    gd_fact_str(e, "site", site, src);
}

/* A fake interpreter: a shell script that gets `-c SCRIPT FRAMEWORK` like python. */
static const char *fake(const char *name, const char *body)
{
    return tu_script(dir, name, body);
}

/* Every fact of the import entities, one a line: "id name = value", "(absent: why)",
 * "(unknown: why)"; sources only where `sources`. */
static void describe(const struct gd_report *rep, bool sources, struct gd_buf *b)
{
    for (size_t i = 0; i < gd_report_entity_count(rep); i++) {
        const struct gd_entity *e = gd_report_entity_at(rep, i);
        if (strcmp(gd_entity_kind(e), "framework_import") != 0 &&
            strcmp(gd_entity_kind(e), "imports") != 0)
            continue;
        for (size_t k = 0; k < gd_entity_fact_count(e); k++) {
            const struct gd_fact *f = gd_entity_fact_at(e, k);
            gd_buf_printf(b, "%s %s = ", gd_entity_id(e), gd_fact_name(f));
            if (gd_fact_state(f) == GD_FACT_KNOWN)
                gd_buf_printf(b, "%s", gd_fact_value(f));
            else
                gd_buf_printf(b, "(%s: %s)",
                              gd_fact_state(f) == GD_FACT_ABSENT ? "absent" : "unknown",
                              gd_fact_reason(f) ? gd_fact_reason(f) : "");
            if (sources)
                gd_buf_printf(b, "  [%s %s]", gd_source_kind_name(gd_fact_source_kind(f)),
                              gd_fact_source_ref(f));
            gd_buf_putc(b, '\n');
        }
    }
}

static char *describe_new(const struct gd_report *rep, bool sources)
{
    struct gd_buf b;
    gd_buf_init(&b, 1 << 22);
    describe(rep, sources, &b);
    char *out = NULL;
    assert_int_equal(gd_buf_take(&b, &out, NULL), GD_OK);
    return out;
}

static const char *value(const struct gd_report *rep, const char *id, const char *name)
{
    return gd_report_value(rep, id, name);
}

static void want_fact(const struct gd_report *rep, const char *id, const char *name,
                      const char *want)
{
    const char *got = value(rep, id, name);
    if (!got || strcmp(got, want) != 0)
        fail_msg("%s %s = %s, want %s", id, name, got ? got : "(not known)", want);
}

static void want_reason(const struct gd_report *rep, const char *id, const char *name,
                        enum gd_fact_state state, const char *want)
{
    const struct gd_fact *f = gd_report_fact(rep, id, name);
    if (!f)
        fail_msg("%s %s: not recorded", id, name);
    const char *why = gd_fact_reason(f);
    if (gd_fact_state(f) != state || !why || !strstr(why, want))
        fail_msg("%s %s: state %d (%s), want %d with \"%s\"", id, name, gd_fact_state(f),
                 why ? why : "no reason", state, want);
}

static char id_buf[PATH_MAX + 64];
static const char *imp(const char *prefix, const char *framework)
{
    snprintf(id_buf, sizeof id_buf, "import:%s:%s", prefix, framework);
    return id_buf;
}

/* ---- one environment per way a child can go --------------------------------------------- */

static const char *const answer_torch =
    "{\"imported\": true, \"version\": \"2.1.0+cu121\", \"cuda\": \"12.1\", \"hip\": null, "
    "\"cuda_build\": true, \"cuda_available\": false, \"device_count\": 0, \"arch_list\": "
    "[\"sm_50\", \"sm_90\"], \"cudnn\": 8902, \"errors\": {}}";

static void test_children_each_way(void **state)
{
    (void)state;
    dir = tu_mkdtemp("imports");
    char text[1024];
    snprintf(text, sizeof text,
             "echo \"W0101 cuda_dlopen.cc] Could not load dynamic library 'libcudnn.so.8'\" >&2\n"
             "[ \"$1\" = -c ] && [ \"$3\" = torch ] || exit 9\n"
             "echo '%s'",
             answer_torch);
    const char *good = fake("good", text);
    const char *junk = fake("junk", "echo 'Python 3.11 is a wrapper here'");
    const char *fails = fake("fails", "echo 'Traceback (most recent call last):' >&2\n"
                                      "echo '  File \"<string>\", line 21, in <module>' >&2\n"
                                      "echo 'ImportError: libcudnn.so.8: cannot open shared "
                                      "object file: No such file or directory' >&2\n"
                                      "echo >&2\n"
                                      "exit 1");
    const char *hangs = fake("hangs", "echo 'importing' >&2\nexec sleep 1000");
    const char *crashes = fake("crashes", "echo 'Fatal Python error: Segmentation fault' >&2\n"
                                          "kill -SEGV $$");
    const char *floods = fake("floods", "head -c 10485760 /dev/zero | tr '\\000' x\n"
                                        "head -c 10485760 /dev/zero | tr '\\000' '\\n' >&2");
    const char *closes = fake("closes", "exec >&-\nexec sleep 1000");
    char missing[PATH_MAX];
    tu_path(missing, sizeof missing, dir, "missing");
    const char *pythons[] = { good, junk, fails, hangs, crashes, floods, closes, missing };
    const char *names[] = { "/e/good",    "/e/junk",   "/e/fails",  "/e/hangs",
                            "/e/crashes", "/e/floods", "/e/closes", "/e/missing" };

    struct run r;
    run_init(&r, "/", GD_IMPORT_ALL, 1000);
    for (size_t i = 0; i < 8; i++) {
        add_env(r.report, names[i], pythons[i], "");
        add_framework(r.report, names[i], "torch", "torch");
    }
    gd_probe_imports(&r.ctx);
    assert_false(gd_report_failed(r.report));
    const struct gd_report *rep = r.report;

    want_fact(rep, "imports", "mode", "all");
    want_fact(rep, "imports", "timeout_s", "1");
    want_fact(rep, "imports", "count", "8");

    /* An answer: every field, the encoded cuDNN version, Python's None, the stderr. */
    const char *id = imp("/e/good", "torch");
    want_fact(rep, id, "env", "/e/good");
    want_fact(rep, id, "framework", "torch");
    want_fact(rep, id, "python", good);
    want_fact(rep, id, "status", "ok");
    want_fact(rep, id, "imported", "true");
    want_fact(rep, id, "version", "2.1.0+cu121");
    want_fact(rep, id, "cuda", "12.1");
    want_reason(rep, id, "hip", GD_FACT_ABSENT, "None");
    want_fact(rep, id, "cuda_build", "true");
    want_fact(rep, id, "cuda_available", "false");
    want_fact(rep, id, "device_count", "0");
    want_fact(rep, id, "arch_list", "sm_50,sm_90");
    want_fact(rep, id, "cudnn", "8.9.2");
    want_fact(rep, id, "stderr[0]",
              "W0101 cuda_dlopen.cc] Could not load dynamic library 'libcudnn.so.8'");
    want_fact(rep, id, "stderr.count", "1");
    assert_null(gd_report_fact(rep, id, "stderr.truncated"));
    assert_null(gd_report_fact(rep, id, "error"));
    /* The facts read in order: what was run, how it ended, the answer, then the stderr. */
    const struct gd_entity *e = gd_report_entity(rep, id);
    static const char *const order[] = { "env", "framework", "python", "status", "imported" };
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(gd_fact_name(gd_entity_fact_at(e, i)), order[i]);
    assert_string_equal(gd_fact_name(gd_entity_fact_at(e, gd_entity_fact_count(e) - 1)),
                        "stderr.count");
    const struct gd_fact *f = gd_report_fact(rep, id, "cudnn");
    assert_string_equal(gd_fact_source_ref(f), "torch.backends.cudnn.version() = 8902");
    assert_int_equal(gd_fact_source_kind(f), GD_SOURCE_CALL);
    f = gd_report_fact(rep, id, "cuda_available");
    assert_string_equal(gd_fact_source_ref(f), "torch.cuda.is_available()");

    id = imp("/e/junk", "torch");
    want_fact(rep, id, "status", "bad answer: not JSON: unexpected character");
    want_reason(rep, id, "imported", GD_FACT_UNKNOWN, "the answer was not understood");
    want_fact(rep, id, "stderr.count", "0");

    /* Python itself failed: the traceback's last line is the error. */
    id = imp("/e/fails", "torch");
    want_fact(rep, id, "status", "exit 1");
    want_fact(rep, id, "error",
              "ImportError: libcudnn.so.8: cannot open shared object file: No such file or "
              "directory");
    want_reason(rep, id, "imported", GD_FACT_UNKNOWN, "exited with status 1 without an answer");
    want_fact(rep, id, "stderr[0]", "Traceback (most recent call last):");
    want_fact(rep, id, "stderr[1]", "  File \"<string>\", line 21, in <module>");
    want_fact(rep, id, "stderr.count", "4");

    id = imp("/e/hangs", "torch");
    want_fact(rep, id, "status", "timeout");
    want_reason(rep, id, "imported", GD_FACT_UNKNOWN, "did not answer within 1 s (killed)");
    want_fact(rep, id, "stderr[0]", "importing");

    id = imp("/e/crashes", "torch");
    want_fact(rep, id, "status", "signal SIGSEGV");
    want_reason(rep, id, "imported", GD_FACT_UNKNOWN, "was killed by SIGSEGV");
    want_fact(rep, id, "stderr[0]", "Fatal Python error: Segmentation fault");

    /* 10 MiB on each stream: capped, the child ends normally. */
    id = imp("/e/floods", "torch");
    const char *st = value(rep, id, "status");
    assert_non_null(st);
    assert_true(strncmp(st, "bad answer: ", 12) == 0);
    assert_non_null(strstr(st, "(more than 64 KiB)"));
    want_fact(rep, id, "stderr.count", "65536");
    want_fact(rep, id, "stderr.truncated", "true");
    assert_non_null(gd_report_fact(rep, id, "stderr[49]"));
    assert_null(gd_report_fact(rep, id, "stderr[50]"));

    id = imp("/e/closes", "torch");
    want_fact(rep, id, "status", "timeout");

    id = imp("/e/missing", "torch");
    char want[128];
    snprintf(want, sizeof want, "exec failed: %s", strerror(ENOENT));
    want_fact(rep, id, "status", want);
    want_reason(rep, id, "imported", GD_FACT_UNKNOWN, "could not be started");
    assert_null(gd_report_fact(rep, id, "stderr.count"));

    run_free(&r);
    tu_rmtree(dir);
    free(dir);
}

/* Answers the framework gives for some of its queries only; lines of stderr that are not
 * text; an answer with the wrong types. */
static void test_answers(void **state)
{
    (void)state;
    dir = tu_mkdtemp("imports");
    const char *py = fake(
        "py", "case $3 in\n"
              "cupy) echo '{\"imported\": true, \"version\": \"13.0.0\", \"cuda\": 12020, "
              "\"driver\": 0, \"cuda_build\": true, \"cuda_available\": false, \"errors\": "
              "{\"device_count\": \"CUDARuntimeError: cudaErrorInsufficientDriver: CUDA driver "
              "version is insufficient for CUDA runtime version\"}}' ;;\n"
              "tensorflow) printf 'bad \\033[31m\\377 line\\n' >&2\n"
              "  echo '{\"imported\": false, \"error\": \"ImportError: libcudart.so.11.0: cannot "
              "open shared object file: No such file or directory\", \"error_type\": "
              "\"ImportError\", \"errors\": {}}' ;;\n"
              "jax) echo '{\"imported\": 1, \"version\": [\"0.4\"], \"gpus\": [{\"name\": \"NVIDIA "
              "A100-SXM4-80GB\", \"capability\": \"8.0\"}]}' ;;\n"
              "esac");
    struct run r;
    run_init(&r, "/", GD_IMPORT_CHOSEN, 20000);
    add_env(r.report, "/venv", py, "active");
    add_framework(r.report, "/venv", "cupy", "cupy-cuda12x");
    add_framework(r.report, "/venv", "tensorflow", "tensorflow");
    add_framework(r.report, "/venv", "jax", "jax");
    add_framework(r.report, "/venv", "jax", "jaxlib");  /* one import for both */
    add_framework(r.report, "/venv", "keras", "keras"); /* not imported on its own */
    gd_probe_imports(&r.ctx);
    const struct gd_report *rep = r.report;
    want_fact(rep, "imports", "count", "3");

    const char *id = imp("/venv", "cupy");
    want_fact(rep, id, "cuda", "12.2");
    assert_string_equal(gd_fact_source_ref(gd_report_fact(rep, id, "cuda")),
                        "cupy.cuda.runtime.runtimeGetVersion() = 12020");
    want_reason(rep, id, "driver", GD_FACT_ABSENT, "no CUDA driver is installed");
    want_reason(rep, id, "device_count", GD_FACT_UNKNOWN,
                "raised CUDARuntimeError: cudaErrorInsufficientDriver");
    want_fact(rep, id, "cuda_available", "false");

    id = imp("/venv", "tensorflow");
    want_fact(rep, id, "status", "ok");
    want_fact(rep, id, "imported", "false");
    want_fact(rep, id, "error",
              "ImportError: libcudart.so.11.0: cannot open shared object file: No such file "
              "or directory");
    want_fact(rep, id, "error_type", "ImportError");
    want_fact(rep, id, "stderr[0]", "bad ?[31m? line");

    id = imp("/venv", "jax");
    want_reason(rep, id, "imported", GD_FACT_UNKNOWN, "the answer gives an integer");
    want_reason(rep, id, "version", GD_FACT_UNKNOWN, "the answer gives an array");
    want_fact(rep, id, "gpu[0].name", "NVIDIA A100-SXM4-80GB");
    want_fact(rep, id, "gpu[0].capability", "8.0");
    assert_string_equal(gd_fact_source_ref(gd_report_fact(rep, id, "gpu[0].name")),
                        "jax.devices()[i].device_kind");
    assert_null(gd_report_entity(rep, imp("/venv", "keras")));
    run_free(&r);
    tu_rmtree(dir);
    free(dir);
}

/* Which environments: the active and the --python ones, else the default; all of them with
 * `all`; one without an interpreter says so; one without a framework has no entity. The
 * child sees exactly the inspected environment. */
static void test_choice(void **state)
{
    (void)state;
    dir = tu_mkdtemp("imports");
    const char *py = fake("py", "echo \"{\\\"imported\\\": true, \\\"version\\\": "
                                "\\\"${GD_MARK-unset}:${HOME-nohome}\\\"}\"");
    static const struct {
        const char *prefix, *how;
        bool python, framework;
    } envs[] = {
        { "/sys", "default", true, true },    { "/act", "active", true, true },
        { "/given", "--python", true, true }, { "/other", "", true, true },
        { "/bare", "active", true, false },   { "/broken", "active", false, true },
    };
    struct {
        enum gd_import_mode mode;
        bool drop_named; /* leave out the active and given ones */
        const char *want;
    } cases[] = {
        { GD_IMPORT_CHOSEN, false, "/act /given /broken" },
        { GD_IMPORT_CHOSEN, true, "/sys" },
        { GD_IMPORT_ALL, false, "/sys /act /given /other /broken" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        struct run r;
        run_init(&r, "/", cases[c].mode, 20000);
        assert_int_equal(gd_env_set(r.env, "GD_MARK", "marked"), GD_OK);
        for (size_t i = 0; i < sizeof envs / sizeof *envs; i++) {
            bool named = strcmp(envs[i].how, "active") == 0 || strcmp(envs[i].how, "--python") == 0;
            if (cases[c].drop_named && named)
                continue;
            add_env(r.report, envs[i].prefix, envs[i].python ? py : NULL, envs[i].how);
            if (envs[i].framework)
                add_framework(r.report, envs[i].prefix, "onnxruntime", "onnxruntime-gpu");
        }
        gd_probe_imports(&r.ctx);
        char got[256] = "";
        for (size_t i = 0; i < gd_report_entity_count(r.report); i++) {
            const struct gd_entity *e = gd_report_entity_at(r.report, i);
            if (strcmp(gd_entity_kind(e), "framework_import") != 0)
                continue;
            const char *env = value(r.report, gd_entity_id(e), "env");
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", got[0] ? " " : "", env);
        }
        if (strcmp(got, cases[c].want) != 0)
            fail_msg("case %zu: imported in \"%s\", want \"%s\"", c, got, cases[c].want);
        if (!cases[c].drop_named) {
            want_fact(r.report, imp("/act", "onnxruntime"), "version", "marked:nohome");
            want_reason(r.report, imp("/broken", "onnxruntime"), "python", GD_FACT_ABSENT,
                        "no pythonX.Y");
            want_reason(r.report, imp("/broken", "onnxruntime"), "status", GD_FACT_UNKNOWN,
                        "the environment has no interpreter");
        }
        run_free(&r);
    }
    /* Off: nothing at all. */
    struct run r;
    run_init(&r, "/", GD_IMPORT_OFF, 20000);
    add_env(r.report, "/sys", py, "default");
    add_framework(r.report, "/sys", "torch", "torch");
    gd_probe_imports(&r.ctx);
    assert_null(gd_report_entity(r.report, "imports"));
    assert_int_equal(gd_report_entity_count(r.report), 2);
    run_free(&r);
    tu_rmtree(dir);
    free(dir);
}

/* A framework is imported where the interpreter would find it: a venv that includes the system
 * site packages imports the system's torch; a framework without a site goes by its env. */
static void test_site_visibility(void **state)
{
    (void)state;
    dir = tu_mkdtemp("imports");
    const char *py = fake("py", "echo '{\"imported\": true}'");
    struct run r;
    run_init(&r, "/", GD_IMPORT_ALL, 20000);
    add_env(r.report, "/usr", py, "default");
    add_env(r.report, "/venv", py, "active");
    struct gd_entity *venv = gd_report_add_entity(r.report, "python_env", "python_env:/venv");
    gd_fact_str(venv, "site_dirs[1]", "/usr/lib/python3.11/site-packages",
                gd_src(GD_SOURCE_PATH, "/venv"));
    add_framework(r.report, "/usr", "torch", "torch");
    struct gd_entity *fw = gd_report_add_entity(r.report, "framework", "framework:/x/jax");
    gd_fact_str(fw, "framework", "jax", gd_src(GD_SOURCE_FILE, "/x"));
    gd_fact_str(fw, "env", "/venv", gd_src(GD_SOURCE_FILE, "/x"));
    gd_probe_imports(&r.ctx);
    want_fact(r.report, imp("/usr", "torch"), "imported", "true");
    want_fact(r.report, imp("/venv", "torch"), "imported", "true");
    want_fact(r.report, imp("/venv", "jax"), "imported", "true");
    assert_null(gd_report_entity(r.report, imp("/usr", "jax")));
    run_free(&r);
    tu_rmtree(dir);
    free(dir);
}

/* Under a foreign root nothing is executed: not even a fake that would leave a mark. */
static void test_foreign_root(void **state)
{
    (void)state;
    dir = tu_mkdtemp("imports");
    char mark[PATH_MAX], body[PATH_MAX + 64];
    tu_path(mark, sizeof mark, dir, "ran");
    snprintf(body, sizeof body, "touch '%s'\necho '{\"imported\": true}'", mark);
    const char *py = fake("py", body);
    struct run r;
    run_init(&r, dir, GD_IMPORT_CHOSEN, 20000);
    add_env(r.report, "/usr", py, "default");
    add_framework(r.report, "/usr", "tensorflow", "tensorflow");
    gd_probe_imports(&r.ctx);
    const char *id = imp("/usr", "tensorflow");
    want_fact(r.report, id, "python", py);
    want_reason(r.report, id, "status", GD_FACT_UNKNOWN, "nothing under a foreign root");
    want_reason(r.report, id, "imported", GD_FACT_UNKNOWN, "nothing under a foreign root");
    assert_int_equal(access(mark, F_OK), -1);
    run_free(&r);
    tu_rmtree(dir);
    free(dir);
}

/* Every allocation failing in turn: the report is marked failed or is the whole one. */
static void test_allocation_failures(void **state)
{
    (void)state;
    dir = tu_mkdtemp("imports");
    char text[1024];
    snprintf(text, sizeof text, "echo 'a warning' >&2\necho '%s'", answer_torch);
    const char *py = fake("py", text);
    const char *bad = fake("bad", "echo 'Traceback' >&2\necho 'OSError: no' >&2\nexit 1");
    struct run r;
    run_init(&r, "/", GD_IMPORT_CHOSEN, 20000);
    add_env(r.report, "/a", py, "active");
    add_framework(r.report, "/a", "torch", "torch");
    add_env(r.report, "/b", bad, "--python");
    add_framework(r.report, "/b", "tensorrt", "tensorrt-cu12");
    gd_alloc_fail_at(0);
    gd_probe_imports(&r.ctx);
    unsigned long total = gd_alloc_fail_at(0);
    assert_false(gd_report_failed(r.report));
    char *want = describe_new(r.report, true);
    run_free(&r);
    assert_non_null(strstr(want, "import:/a:torch cudnn = 8.9.2"));
    assert_non_null(strstr(want, "import:/b:tensorrt error = OSError: no"));
    assert_true(total > 10);
    /* Allocation n fails, for n = 1, 2, ... until a run makes fewer than n: then each one
     * has failed once, and that run, which none failed, must be the whole report. */
    bool reached = true;
    for (unsigned long n = 1; reached; n++) {
        if (n > 10 * total)
            fail_msg("more than %lu allocations", 10 * total);
        run_init(&r, "/", GD_IMPORT_CHOSEN, 20000);
        add_env(r.report, "/a", py, "active");
        add_framework(r.report, "/a", "torch", "torch");
        add_env(r.report, "/b", bad, "--python");
        add_framework(r.report, "/b", "tensorrt", "tensorrt-cu12");
        gd_alloc_fail_at(n);
        gd_probe_imports(&r.ctx);
        /* How many allocations a run makes depends on how the children's output arrives (in
         * one read or several), so whether the nth was reached is asked of each run. */
        reached = gd_alloc_fail_at(0) >= n;
        bool failed = gd_report_failed(r.report);
        if (reached && !failed)
            fail_msg("allocation %lu failed, yet the report is not marked", n);
        if (!failed) {
            char *got = describe_new(r.report, true);
            assert_string_equal(got, want);
            gd_free(got);
        }
        run_free(&r);
    }
    gd_free(want);
    tu_rmtree(dir);
    free(dir);
}

/* ---- the real script, with the real Python --------------------------------------------------- */

/* A Linux system's Python 3; none for the Windows build (under wine the host's Linux python3
 * is there to see, and wine would even start it, with Windows paths it cannot use). */
static const char *system_python(void)
{
#ifndef _WIN32
    static const char *const candidates[] = { "/usr/bin/python3", "/usr/local/bin/python3" };
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++)
        if (access(candidates[i], X_OK) == 0)
            return candidates[i];
#endif
    return NULL;
}

/* Fake packages with the APIs the script asks (the shapes their documentation gives), on
 * PYTHONPATH: the script's code for TensorFlow, JAX, CuPy, ONNX Runtime and TensorRT runs for
 * real. */
static void write_fake_packages(const char *root)
{
    tu_write(root, "tensorflow/__init__.py",
             "import sys\n"
             "__version__ = '2.15.0'\n"
             "sys.stdout.write('tensorflow prints on stdout\\n')\n"
             "sys.stderr.write(\"W tensorflow: Could not find cuda drivers on your machine, GPU "
             "will not be used.\\n\")\n"
             "class _Dev(object):\n"
             "    def __init__(self, n): self.name = '/physical_device:GPU:%d' % n\n"
             "class sysconfig(object):\n"
             "    @staticmethod\n"
             "    def get_build_info():\n"
             "        return {'is_cuda_build': True, 'cuda_version': '12.2', 'cudnn_version': "
             "'8', 'cuda_compute_capabilities': ['sm_50', 'sm_60', 'compute_90']}\n"
             "class config(object):\n"
             "    @staticmethod\n"
             "    def list_physical_devices(kind): return [_Dev(0)] if kind == 'GPU' else []\n"
             "    class experimental(object):\n"
             "        @staticmethod\n"
             "        def get_device_details(d): return {'device_name': 'Tesla T4', "
             "'compute_capability': (7, 5)}\n");
    tu_write(root, "jax/__init__.py",
             "__version__ = '0.4.23'\n"
             "class _D(object):\n"
             "    def __init__(self, p, k): self.platform = p; self.device_kind = k\n"
             "def default_backend(): return 'cpu'\n"
             "def devices(): return [_D('cpu', 'cpu')]\n");
    tu_write(root, "jaxlib/__init__.py", "from jaxlib.version import __version__\n");
    tu_write(root, "jaxlib/version.py", "__version__ = '0.4.23'\n");
    tu_write(root, "cupy/__init__.py", "__version__ = '13.0.0'\nfrom cupy import cuda\n");
    tu_write(root, "cupy/cuda/__init__.py", "from cupy.cuda import runtime\n");
    tu_write(root, "cupy/cuda/runtime.py",
             "is_hip = False\n"
             "class CUDARuntimeError(RuntimeError): pass\n"
             "def runtimeGetVersion(): return 12020\n"
             "def driverGetVersion(): return 0\n"
             "def getDeviceCount():\n"
             "    raise CUDARuntimeError('cudaErrorInsufficientDriver: CUDA driver version is "
             "insufficient for CUDA runtime version')\n");
    tu_write(root, "onnxruntime/__init__.py",
             "__version__ = '1.17.1'\n"
             "def get_available_providers(): return ['CUDAExecutionProvider', "
             "'CPUExecutionProvider']\n"
             "def get_device(): return 'GPU'\n");
    tu_write(root, "tensorrt/__init__.py",
             "raise ImportError('libnvinfer.so.10: cannot open shared object file: No such file "
             "or directory')\n");
}

static void test_real_script(void **state)
{
    (void)state;
    const char *python = system_python();
    if (!python) {
        print_message("no python3 in /usr/bin or /usr/local/bin (or a Windows build): the script "
                      "cannot be run\n");
        skip();
        return;
    }
    dir = tu_mkdtemp("imports");
    char pkgs[PATH_MAX];
    tu_mkdirs(dir, "pkgs");
    tu_path(pkgs, sizeof pkgs, dir, "pkgs");
    write_fake_packages(pkgs);
    struct run r;
    run_init(&r, "/", GD_IMPORT_CHOSEN, 60000);
    assert_int_equal(gd_env_set(r.env, "PYTHONPATH", pkgs), GD_OK);
    add_env(r.report, "/fake", python, "active");
    const char *fws[][2] = { { "tensorflow", "tensorflow" },
                             { "jax", "jax" },
                             { "cupy", "cupy-cuda12x" },
                             { "onnxruntime", "onnxruntime-gpu" },
                             { "tensorrt", "tensorrt-cu12" } };
    for (size_t i = 0; i < 5; i++)
        add_framework(r.report, "/fake", fws[i][0], fws[i][1]);
    gd_probe_imports(&r.ctx);
    const struct gd_report *rep = r.report;

    const char *id = imp("/fake", "tensorflow");
    want_fact(rep, id, "status", "ok");
    want_fact(rep, id, "imported", "true");
    want_fact(rep, id, "version", "2.15.0");
    want_fact(rep, id, "cuda_build", "true");
    want_fact(rep, id, "cuda", "12.2");
    want_fact(rep, id, "cudnn", "8");
    want_fact(rep, id, "compute_capabilities", "sm_50,sm_60,compute_90");
    want_fact(rep, id, "device_count", "1");
    want_fact(rep, id, "cuda_available", "true");
    want_fact(rep, id, "gpu[0].name", "Tesla T4");
    want_fact(rep, id, "gpu[0].capability", "7.5");
    /* What the framework printed, on stdout too, is evidence and not the answer. */
    want_fact(rep, id, "stderr[0]", "tensorflow prints on stdout");
    want_fact(rep, id, "stderr[1]",
              "W tensorflow: Could not find cuda drivers on your "
              "machine, GPU will not be used.");

    id = imp("/fake", "jax");
    want_fact(rep, id, "version", "0.4.23");
    want_fact(rep, id, "jaxlib", "0.4.23");
    want_fact(rep, id, "backend", "cpu");
    want_fact(rep, id, "platforms", "cpu");
    want_fact(rep, id, "device_count", "0");
    want_fact(rep, id, "cuda_available", "false");

    id = imp("/fake", "cupy");
    want_fact(rep, id, "cuda", "12.2");
    want_reason(rep, id, "driver", GD_FACT_ABSENT, "no CUDA driver");
    want_reason(rep, id, "device_count", GD_FACT_UNKNOWN, "cudaErrorInsufficientDriver");
    want_fact(rep, id, "cuda_available", "false");
    want_fact(rep, id, "cuda_build", "true");

    id = imp("/fake", "onnxruntime");
    want_fact(rep, id, "providers", "CUDAExecutionProvider,CPUExecutionProvider");
    want_fact(rep, id, "device", "GPU");
    want_fact(rep, id, "cuda_build", "true");

    id = imp("/fake", "tensorrt");
    want_fact(rep, id, "status", "ok");
    want_fact(rep, id, "imported", "false");
    want_fact(rep, id, "error_type", "ImportError");
    want_fact(rep, id, "error",
              "ImportError: libnvinfer.so.10: cannot open shared object "
              "file: No such file or directory");
    /* The traceback is on stderr, its last line the error. */
    const char *count = value(rep, id, "stderr.count");
    assert_non_null(count);
    char name[32];
    snprintf(name, sizeof name, "stderr[%d]", atoi(count) - 1);
    want_fact(rep, id, name, value(rep, id, "error"));
    run_free(&r);
    tu_rmtree(dir);
    free(dir);
}

/* Debian's python3-torch (a CPU build): importable, no CUDA, no GPU. */
static void test_debian_torch(void **state)
{
    (void)state;
    if (!system_python() || access("/usr/bin/python3", X_OK) != 0 ||
        access("/usr/lib/python3/dist-packages/torch/__init__.py", R_OK) != 0) {
        print_message("Debian's python3-torch is not installed (or a Windows build)\n");
        skip();
    }
    struct run r;
    run_init(&r, "/", GD_IMPORT_CHOSEN, 120000);
    add_env(r.report, "/usr", "/usr/bin/python3", "default");
    struct gd_entity *env = gd_report_add_entity(r.report, "python_env", "python_env:/usr");
    gd_fact_str(env, "site_dirs[1]", "/usr/lib/python3/dist-packages",
                gd_src(GD_SOURCE_PATH, "/usr"));
    struct gd_entity *fw = gd_report_add_entity(
        r.report, "framework",
        "framework:/usr/lib/python3/dist-packages/torch-1.13.0a0+gitunknown.egg-info");
    struct gd_source src = gd_src(GD_SOURCE_FILE, "/usr/lib/python3/dist-packages");
    gd_fact_str(fw, "framework", "torch", src);
    gd_fact_str(fw, "env", "/usr", src);
    gd_fact_str(fw, "site", "/usr/lib/python3/dist-packages", src);
    gd_probe_imports(&r.ctx);
    const char *id = imp("/usr", "torch");
    const char *status = value(r.report, id, "status");
    if (!status || strcmp(status, "ok") != 0) {
        char *all = describe_new(r.report, false);
        fail_msg("status %s:\n%s", status ? status : "(not known)", all);
    }
    want_fact(r.report, id, "imported", "true");
    want_fact(r.report, id, "cuda_available", "false");
    want_fact(r.report, id, "cuda_build", "false");
    want_reason(r.report, id, "cuda", GD_FACT_ABSENT, "None");
    want_fact(r.report, id, "device_count", "0");
    want_reason(r.report, id, "arch_list", GD_FACT_ABSENT, "an empty list");
    const char *version = value(r.report, id, "version");
    assert_non_null(version);
    assert_true(strncmp(version, "1.", 2) == 0 || strncmp(version, "2.", 2) == 0);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_children_each_way),
        cmocka_unit_test(test_answers),
        cmocka_unit_test(test_choice),
        cmocka_unit_test(test_site_visibility),
        cmocka_unit_test(test_foreign_root),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_real_script),
        cmocka_unit_test(test_debian_torch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
