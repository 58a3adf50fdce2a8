/*
 * End-to-end tests of `gpudoctor explain`: the command run as a user runs it, on the logs of
 * tests/fixtures/explain, with --no-probe, with a saved report (--report), with a fixture root
 * probed (--root), on standard input, and with --run around shell commands (output passed through,
 * the command's exit status kept).
 *
 *   explain_e2e NAME GPUDOCTOR SRCDIR WORKDIR      one entry of `cases` below
 *
 * Arguments may hold @SRC@ (the source directory), @LOGS@ (tests/fixtures/explain), @CASES@
 * (tests/e2e/explain), @ROOTS@ (tests/fixtures/roots) and @WORK@ (a fresh directory for the case,
 * also the command's working directory). A case with a golden file compares standard output with
 * tests/e2e/explain/NAME.out, the source directory written @SRC@; GD_BLESS=1 rewrites the file.
 *
 * Exit status: 0 passed, 1 failed (what differs is printed).
 */
#define _XOPEN_SOURCE 700

#include <json-c/json.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEADLINE_S 60
#define ARGS_MAX   24
#define HAS_MAX    6

struct test {
    const char *name;
    const char *args[ARGS_MAX]; /* after the gpudoctor program */
    const char *stdin_file;     /* NULL: /dev/null */
    int status;
    bool golden;                  /* stdout against tests/e2e/explain/NAME.out */
    bool json;                    /* stdout is a gpudoctor.explain/1 document */
    const char *out_is, *err_is;  /* the whole stream (NULL: not checked) */
    const char *out_has[HAS_MAX]; /* pieces standard output must contain */
    const char *out_lacks[HAS_MAX];
    const char *err_has[HAS_MAX];
    const char *file, *file_has; /* a file the command must write (under @WORK@), and a piece */
};

static const struct test cases[] = {
    /* ---- a log, from the log alone ---- */
    { .name = "no-probe-text",
      .args = { "explain", "--no-probe", "--color", "never",
                "@LOGS@/failed/tf_cudnn8_missing.log" },
      .status = 1,
      .golden = true,
      .err_is = "" },
    { .name = "no-probe-json",
      .args = { "explain", "--no-probe", "--json", "@LOGS@/failed/tf_cudnn8_missing.log" },
      .status = 1,
      .golden = true,
      .json = true,
      .err_is = "" },
    { .name = "clean-log",
      .args = { "explain", "--no-probe", "@LOGS@/clean/pytorch_ddp_lightning_training.log" },
      .status = 0,
      .out_has = { "0 causes found", "No known failure signature matched" },
      .err_is = "" },
    { .name = "stdin",
      .args = { "explain", "--no-probe", "--color", "never", "-" },
      .stdin_file = "@LOGS@/failed/pytorch_oom.log",
      .status = 1,
      .out_has = { "gpudoctor explain of standard input:", "[out-of-memory]",
                   "the log: GPU 0 has 23.65 GiB in all, 1.02 GiB was free when 1.50 GiB was "
                   "requested" },
      .err_is = "" },
    { .name = "hostile-bytes",
      .args = { "explain", "--no-probe", "--color", "never", "@CASES@/hostile.log" },
      .status = 1,
      .out_has = { "\\x1b[2J\\x00RuntimeError: CUDA error: invalid device ordinal\\xff",
                   "[invalid-device-ordinal]", "[out-of-memory]" },
      .out_lacks = { "\x1b" },
      .err_is = "" },
    { .name = "output-file",
      .args = { "explain", "--no-probe", "--json", "-o", "@WORK@/explained.json",
                "@LOGS@/failed/dmesg_xid79.log" },
      .status = 1,
      .out_is = "",
      .err_is = "",
      .file = "explained.json",
      .file_has = "\"schema\": \"gpudoctor.explain/1\"" },

    /* ---- against a saved report, or a probed fixture root ---- */
    { .name = "report-text",
      .args = { "explain", "--report", "@CASES@/report-tf213-cudnn9.json", "--color", "never", "-v",
                "@LOGS@/failed/tf_cudnn8_missing.log" },
      .status = 1,
      .golden = true,
      .out_has = { "confirmed on this machine",
                   "Run: /opt/venv/bin/python -m pip install \"nvidia-cudnn-cu11>=8,<9\"" },
      .err_is = "" },
    { .name = "report-json",
      .args = { "explain", "--report", "@CASES@/report-tf213-cudnn9.json", "--json",
                "@LOGS@/failed/tf_cudnn8_missing.log" },
      .status = 1,
      .golden = true,
      .json = true,
      .err_is = "" },
    { .name = "report-rules-out",
      .args = { "explain", "--report", "@CASES@/report-tf213-cudnn9.json", "--color", "never",
                "@LOGS@/failed/cudnn_sublib_needs_libcuda.log" },
      .status = 1,
      .out_has = { "[driver-not-loaded]", "not seen on this machine",
                   "here the NVIDIA driver 535.161.07 is loaded" },
      .err_is = "" },
    { .name = "root-no-driver",
      .args = { "explain", "--root", "@ROOTS@/no-driver", "--color", "never",
                "@CASES@/nvidia-smi-no-driver.log" },
      .status = 1,
      .golden = true,
      .err_is = "" },

    /* ---- --run ---- */
    { .name = "run-fails",
      .args = { "explain", "--no-probe", "--color", "never", "--run", "--", "sh", "-c",
                "echo step 1; echo 'RuntimeError: CUDA error: invalid device ordinal' >&2; "
                "exit 3" },
      .status = 3,
      .out_is = "step 1\n",
      .err_has = { "RuntimeError: CUDA error: invalid device ordinal\n\ngpudoctor explain: sh "
                   "exited with status 3\ngpudoctor explain of sh: 1 line of output and 1 of "
                   "errors, 1 cause found\n",
                   "[invalid-device-ordinal]", "stderr:1: RuntimeError" } },
    { .name = "run-fails-json",
      .args = { "explain", "--no-probe", "--json", "--run", "--", "sh", "-c",
                "echo 'AssertionError: Torch not compiled with CUDA enabled' >&2; exit 1" },
      .status = 1,
      .out_is = "",
      .err_has = { "\"schema\": \"gpudoctor.explain/1\"", "\"id\": \"cpu-only-build\"" } },
    { .name = "run-succeeds",
      .args = { "explain", "--no-probe", "--run", "--", "sh", "-c",
                "echo fine; echo 'RuntimeError: CUDA error: invalid device ordinal' >&2" },
      .status = 0,
      .out_is = "fine\n",
      .err_is = "RuntimeError: CUDA error: invalid device ordinal\n" },
    { .name = "run-unexplained",
      .args = { "explain", "--no-probe", "--run", "--", "sh", "-c", "echo x; exit 4" },
      .status = 4,
      .out_is = "x\n",
      .err_has = { "gpudoctor explain: sh exited with status 4",
                   "No known failure signature matched" } },
    { .name = "run-signal",
      .args = { "explain", "--no-probe", "--run", "--", "sh", "-c", "kill -TERM $$" },
      .status = 143,
      .out_is = "",
      .err_has = { "gpudoctor explain: sh was killed by signal 15" } },
    { .name = "run-stdin",
      .args = { "explain", "--no-probe", "--run", "--", "sh", "-c", "cat; exit 2" },
      .stdin_file = "@LOGS@/failed/nccl_watchdog_timeout.log",
      .status = 2,
      .out_has = { "Watchdog caught collective operation timeout" },
      .err_has = { "[nccl-error]", "log:       1: [rank1]" } },
    { .name = "run-not-found",
      .args = { "explain", "--no-probe", "--run", "--", "@WORK@/no-such-command" },
      .status = 127,
      .out_is = "",
      .err_has = { "gpudoctor explain: cannot run", "no such file or directory" } },
    { .name = "run-not-executable",
      .args = { "explain", "--no-probe", "--run", "--", "@CASES@/report-tf213-cudnn9.json" },
      .status = 126,
      .out_is = "",
      .err_has = { "gpudoctor explain: cannot run" } },
    { .name = "run-output-file",
      .args = { "explain", "--no-probe", "-o", "@WORK@/explained.txt", "--run", "--", "sh", "-c",
                "echo 'RuntimeError: CUDA error: no kernel image is available for execution on "
                "the device'; exit 1" },
      .status = 1,
      .out_is = "RuntimeError: CUDA error: no kernel image is available for execution on the "
                "device\n",
      .err_is = "\ngpudoctor explain: sh exited with status 1\n",
      .file = "explained.txt",
      .file_has = "[no-kernel-image]" },

    /* ---- usage ---- */
    { .name = "help",
      .args = { "explain", "--help" },
      .status = 0,
      .out_has = { "Usage: gpudoctor explain [OPTIONS] [FILE | -]", "--run", "--report FILE",
                   "--no-probe" },
      .err_is = "" },
    { .name = "run-without-command",
      .args = { "explain", "--run" },
      .status = 2,
      .out_is = "",
      .err_has = { "--run needs a command after --" } },
    { .name = "command-without-run",
      .args = { "explain", "--", "sh" },
      .status = 2,
      .err_has = { "a command after -- needs --run" } },
    { .name = "file-and-run",
      .args = { "explain", "@LOGS@/failed/pytorch_oom.log", "--run", "--", "true" },
      .status = 2,
      .err_has = { "give a FILE or --run -- COMMAND, not both" } },
    { .name = "report-and-no-probe",
      .args = { "explain", "--no-probe", "--report", "@CASES@/report-tf213-cudnn9.json",
                "@LOGS@/failed/pytorch_oom.log" },
      .status = 2,
      .err_has = { "--report and --no-probe exclude each other" } },
    { .name = "report-missing",
      .args = { "explain", "--report", "@WORK@/missing.json", "@LOGS@/failed/pytorch_oom.log" },
      .status = 2,
      .err_has = { "no such file or directory" } },
    { .name = "report-not-a-report",
      .args = { "explain", "--report", "@LOGS@/failed/pytorch_oom.log",
                "@LOGS@/failed/pytorch_oom.log" },
      .status = 2,
      .err_has = { "not a report of gpudoctor check --json" } },
    { .name = "log-missing",
      .args = { "explain", "--no-probe", "@WORK@/missing.log" },
      .status = 2,
      .out_is = "",
      .err_has = { "cannot read", "no such file or directory" } },
    { .name = "two-logs",
      .args = { "explain", "--no-probe", "a.log", "b.log" },
      .status = 2,
      .err_has = { "unexpected argument 'b.log'" } },
    { .name = "unknown-option",
      .args = { "explain", "--bogus" },
      .status = 2,
      .err_has = { "unknown option '--bogus'", "Try 'gpudoctor explain --help'" } },
};

static int failures;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

static char *xstrdup(const char *s)
{
    char *c = strdup(s);
    if (!c)
        abort();
    return c;
}

static char *replace_all(const char *text, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to), n = 0;
    for (const char *p = text; (p = strstr(p, from)) != NULL; p += fl)
        n++;
    char *out = malloc(strlen(text) + n * tl + 1), *o = out;
    if (!out)
        abort();
    for (const char *p = text, *q; (q = strstr(p, from)) != NULL; p = q + fl) {
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, tl);
        o += tl;
        text = q + fl;
    }
    strcpy(o, text);
    return out;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            char *bigger = realloc(buf, cap *= 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
            }
            buf = bigger;
        }
    }
    fclose(f);
    if (!buf)
        abort();
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

struct ctx {
    const char *gpudoctor, *src;
    char work[4096];
};

static char *expand(const char *arg, const struct ctx *x)
{
    char path[4096];
    char *a = xstrdup(arg), *b;
    snprintf(path, sizeof path, "%s/tests/fixtures/explain", x->src);
    b = replace_all(a, "@LOGS@", path);
    free(a);
    snprintf(path, sizeof path, "%s/tests/e2e/explain", x->src);
    a = replace_all(b, "@CASES@", path);
    free(b);
    snprintf(path, sizeof path, "%s/tests/fixtures/roots", x->src);
    b = replace_all(a, "@ROOTS@", path);
    free(a);
    a = replace_all(b, "@WORK@", x->work);
    free(b);
    b = replace_all(a, "@SRC@", x->src);
    free(a);
    return b;
}

struct run {
    int status; /* exit status, or -1 when killed (signal) */
    int signal;
    char *out, *err;
    size_t out_len, err_len;
};

static bool run(char *const argv[], const char *stdin_path, const char *work, struct run *r)
{
    memset(r, 0, sizeof *r);
    char out_path[4200], err_path[4200];
    snprintf(out_path, sizeof out_path, "%s/.stdout", work);
    snprintf(err_path, sizeof err_path, "%s/.stderr", work);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        int in = open(stdin_path ? stdin_path : "/dev/null", O_RDONLY);
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
            dup2(err, 2) < 0 || chdir(work) != 0)
            _exit(125);
        /* The alarm survives exec: a hung gpudoctor dies of SIGALRM. */
        signal(SIGALRM, SIG_DFL);
        alarm(DEADLINE_S);
        execv(argv[0], argv);
        _exit(125);
    }
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR)
            return false;
    r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    r->signal = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
    r->out = read_all(out_path, &r->out_len);
    r->err = read_all(err_path, &r->err_len);
    return r->out && r->err;
}

static void check_has(const char *what, const char *text, size_t len, const char *const *has,
                      bool lacks)
{
    for (size_t i = 0; i < HAS_MAX && has[i]; i++) {
        bool found = strstr(text, has[i]) != NULL && strlen(text) == len;
        if (!found && strlen(text) != len) /* NULs in the output: search every piece */
            for (size_t off = 0; off < len && !found; off += strlen(text + off) + 1)
                found = strstr(text + off, has[i]) != NULL;
        if (found == lacks)
            fail("%s %s \"%s\"", what, lacks ? "contains" : "lacks", has[i]);
    }
}

static void check_json(const char *what, const char *text)
{
    struct json_object *j = json_tokener_parse(text), *schema;
    if (!j || !json_object_object_get_ex(j, "schema", &schema) ||
        strcmp(json_object_get_string(schema), "gpudoctor.explain/1") != 0)
        fail("%s is not a gpudoctor.explain/1 document", what);
    json_object_put(j);
}

static void check_golden(const struct test *t, const struct ctx *x, const char *out)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/tests/e2e/explain/%s.out", x->src, t->name);
    char *got = replace_all(out, x->src, "@SRC@");
    const char *bless = getenv("GD_BLESS");
    if (bless && strcmp(bless, "1") == 0) {
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(got, 1, strlen(got), f) != strlen(got) || fclose(f) != 0)
            fail("cannot write %s: %s", path, strerror(errno));
        else
            printf("blessed %s\n", path);
        free(got);
        return;
    }
    char *want = read_all(path, NULL);
    if (!want) {
        fail("no golden file %s (GD_BLESS=1 writes it)", path);
    } else if (strcmp(want, got) != 0) {
        size_t i = 0;
        while (want[i] && want[i] == got[i])
            i++;
        size_t line = 1;
        for (size_t k = 0; k < i; k++)
            line += want[k] == '\n';
        fail("standard output differs from %s from line %zu:\n--- got\n%s\n--- want\n%s", path,
             line, got, want);
    }
    free(want);
    free(got);
}

static int run_test(const struct test *t, struct ctx *x)
{
    char *argv[ARGS_MAX + 2];
    size_t n = 0;
    argv[n++] = xstrdup(x->gpudoctor);
    for (size_t i = 0; i < ARGS_MAX && t->args[i]; i++)
        argv[n++] = expand(t->args[i], x);
    argv[n] = NULL;
    printf("$");
    for (size_t i = 0; i < n; i++)
        printf(" '%s'", argv[i]);
    printf("\n");
    char *in = t->stdin_file ? expand(t->stdin_file, x) : NULL;
    struct run r;
    if (!run(argv, in, x->work, &r)) {
        fail("cannot run %s", x->gpudoctor);
        return 1;
    }
    if (r.status != t->status)
        fail("exit status %d (signal %d), expected %d", r.status, r.signal, t->status);
    if (t->out_is && (r.out_len != strlen(t->out_is) || strcmp(r.out, t->out_is) != 0))
        fail("standard output is:\n%s\n--- expected:\n%s", r.out, t->out_is);
    if (t->err_is && (r.err_len != strlen(t->err_is) || strcmp(r.err, t->err_is) != 0))
        fail("standard error is:\n%s\n--- expected:\n%s", r.err, t->err_is);
    check_has("standard output", r.out, r.out_len, t->out_has, false);
    check_has("standard output", r.out, r.out_len, t->out_lacks, true);
    check_has("standard error", r.err, r.err_len, t->err_has, false);
    if (t->json)
        check_json("standard output", r.out);
    if (t->golden)
        check_golden(t, x, r.out);
    if (t->file) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", x->work, t->file);
        char *data = read_all(path, NULL);
        if (!data)
            fail("%s was not written", path);
        else if (t->file_has && !strstr(data, t->file_has))
            fail("%s lacks \"%s\"", path, t->file_has);
        free(data);
    }
    if (failures) {
        printf("--- standard output:\n%s\n--- standard error:\n%s\n", r.out, r.err);
    }
    free(r.out);
    free(r.err);
    free(in);
    for (size_t i = 0; i < n; i++)
        free(argv[i]);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s NAME GPUDOCTOR SRCDIR WORKDIR\n", argv[0]);
        return 2;
    }
    struct ctx x = { argv[2], argv[3], "" };
    const struct test *t = NULL;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (strcmp(cases[i].name, argv[1]) == 0)
            t = &cases[i];
    if (!t) {
        fprintf(stderr, "no explain e2e case named %s\n", argv[1]);
        return 2;
    }
    /* A fresh work directory per case: its files from an earlier run are removed first. */
    snprintf(x.work, sizeof x.work, "%s/explain-%s", argv[4], t->name);
    mkdir(argv[4], 0755);
    mkdir(x.work, 0755);
    static const char *const leftovers[] = { "explained.json", "explained.txt", ".stdout",
                                             ".stderr" };
    for (size_t i = 0; i < sizeof leftovers / sizeof *leftovers; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", x.work, leftovers[i]);
        unlink(path);
    }
    return run_test(t, &x);
}
