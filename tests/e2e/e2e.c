/*
 * End-to-end tests: run the gpudoctor command as a user would and check what it says.
 *
 *   gd_e2e case NAME GPUDOCTOR SRCDIR BUILDDIR WORKDIR   tests/e2e/NAME.case on a fixture root
 *   gd_e2e live NAME GPUDOCTOR SRCDIR BUILDDIR WORKDIR   this machine (77 when it has a driver)
 *   gd_e2e cli  NAME GPUDOCTOR SRCDIR BUILDDIR WORKDIR   one command-line behaviour (cli_tests)
 *   gd_e2e fake NAME GPUDOCTOR SRCDIR BUILDDIR WORKDIR   tests/e2e/fakes/NAME.case on this machine
 *                                                        with the fake NVIDIA libraries
 *   gd_e2e cmd  NAME GPUDOCTOR SRCDIR BUILDDIR WORKDIR   tests/e2e/NAME.cmd: one command whose
 *                                                        output is compared with NAME.out
 *
 * A case runs `gpudoctor check --root tests/fixtures/roots/<root> --json` and checks the report
 * against tests/e2e/NAME.case, then runs the text renderer (`--color never -v`) and compares it
 * with the golden file tests/e2e/NAME.txt, the root's path replaced by @ROOT@. GD_BLESS=1 in the
 * environment rewrites the golden file instead. A case file holds one directive per line ('#'
 * starts a comment line):
 *
 *   root DIR                         the fixture, under tests/fixtures/roots
 *   env NAME=VALUE                   passed as --env NAME=VALUE (in file order with env-file)
 *   env-file FILE                    passed as --env-file tests/e2e/FILE
 *   arg OPTION [VALUE]               passed as OPTION VALUE (--python PATH, --site DIR), or as
 *                                    OPTION alone (--no-devices)
 *   fifo PATH                        the root is copied into the work directory and PATH in the
 *                                    copy replaced by a FIFO (git cannot store one)
 *   lib PATH SONAME [needs=A,B] [runpath=DIRS | rpath=DIRS] [fatbin=FILE]
 *                                    in the copy, a shared object compiled with cc at PATH with
 *                                    that SONAME, padded to 64 KiB (sizes in golden files must
 *                                    not depend on the toolchain); no binaries are checked in.
 *                                    needs= adds DT_NEEDED entries (linked against stubs of
 *                                    those names built on the side), runpath= a DT_RUNPATH,
 *                                    rpath= a DT_RPATH and no DT_RUNPATH (what patchelf
 *                                    --force-rpath leaves; $ORIGIN kept literally in both),
 *                                    fatbin= a .nv_fatbin section (flags "a", alignment 8, as
 *                                    nvcc makes it) holding exactly the bytes of
 *                                    tests/fixtures/fatbin/FILE (checked after the link)
 *   exe PATH                         in the copy, an executable compiled with cc (/bin/sh: the
 *                                    architecture gpudoctor takes for the root's programs)
 *   symlink PATH TARGET              in the copy, a symlink (to a file compiled by the case)
 *   cache SONAME PATH                an entry of the copy's /etc/ld.so.cache, written in glibc's
 *                                    new format, entries in the order given
 *   exit N                           the expected exit status ("exit 0|1": either, for a fake
 *                                    case whose status this machine's own state decides)
 *   finding ID SEVERITY              a finding that must be reported, with this severity
 *   evidence ID: LABEL = VALUE [KIND REF]
 *                                    a fact that finding ID must carry as evidence, written as
 *                                    the text renderer writes it: "driver.libcuda.version =
 *                                    550.54.14", "driver.libcuda.path = absent (reason)"; the
 *                                    source in brackets is optional
 *   no-finding ID                    a finding that must not be reported
 *   fact LABEL = VALUE [KIND REF]    a fact the report's entities must hold, in the same form;
 *                                    in fact and evidence lines "absent (*)" or "unknown (*)"
 *                                    stands for that state with any reason
 *   stderr TEXT                      standard error must contain TEXT (else it must be empty)
 *   posix-only: WHY                  the case cannot hold on Windows, for the reason given (a
 *                                    checked-in tree whose symlinks are its point, a Linux-only
 *                                    fixture): the Windows build skips it (77) and prints WHY
 *
 * A fake case (tests/e2e/fakes/) runs gpudoctor on this machine (no root) with LD_LIBRARY_PATH
 * naming the fake libraries of tests/fakes first (as a user points programs at other libraries;
 * gpudoctor has no test-only search path), CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER and FAKE_*
 * removed from its environment, and these directives besides the ones above (but root and the
 * compiling ones); there is no golden text, the machine's own facts being part of the report:
 *
 *   command check|test               the command run (check when not given)
 *   setenv NAME=VALUE                in gpudoctor's own environment (FAKE_GPUS=2, the variables
 *                                    the fakes read, CUDA_VISIBLE_DEVICES)
 *   hide SONAME                      the fakes without this one (a machine without libcuda.so.1)
 *   nofakes                          no fake at all: this machine's real libraries
 *   libdir DIR                       a directory before the fakes (under the fakes' directory
 *                                    when relative: "broken")
 *   link NAME TARGET                 a directory before them holding the link NAME -> TARGET
 *   requires PATH                    skipped (77) unless PATH exists
 *   requires-no-driver               skipped (77) unless this machine has no NVIDIA driver
 *
 * Every run has a deadline (a FIFO or a symlink loop must not hang gpudoctor), and every report
 * must give each finding evidence, and each error and warning a fix. A case that compiles
 * libraries is skipped (77) without a C compiler or on a machine that is not x86-64 (the
 * fixtures' paths and the golden files are x86-64's).
 *
 * The Windows build (mingw, tests/windows.cmake) builds this runner too, and CTest runs it under
 * wine (tests/wine-run.sh), where it runs gpudoctor.exe as a Windows program through src/os. The
 * same cases and golden files serve both builds; what differs is said, never papered over:
 *   - a case with `posix-only: WHY` (or a .cmd with that line, or a cli_tests entry with
 *     .posix_only) is skipped, with WHY;
 *   - a case that plants a FIFO or compiles Linux libraries (fifo, lib, exe, symlink, cache) is
 *     skipped: Windows has no FIFO, wine no cc;
 *   - fake cases are skipped (the fakes are Linux shared objects); `live` checks what holds on
 *     a Windows machine without a driver (the live root, os.id windows, the live probe's
 *     children run and find no driver library);
 *   - output is normalised, not the golden files: CR LF read as LF, and the root written as
 *     gpudoctor.exe writes it (its canonical form, "Z:/work/..." under wine, or with '\')
 *     replaced by @ROOT@ / @ROOTS@ like the POSIX spelling.
 * A case on a Windows tree (tests/fixtures/roots/win-*, with `arg --os windows` where the tree
 * cannot tell) thus runs twice: the Linux binary and gpudoctor.exe read the same tree with
 * --root and must write the same golden text.
 */
/* nftw() and realpath() are XSI. */
#define _XOPEN_SOURCE 700

#include <json-c/json.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#ifdef _WIN32
/* gpudoctor.exe is run through src/os's children (CreateProcess, a job object, the deadline):
 * the runner links gpudoctor's library for that alone. */
#include "os/os.h"
#include <direct.h>
#include <io.h>
#include <windows.h>
#else
#include <elf.h>
#include <ftw.h>
#include <sys/wait.h>
#endif
#include <unistd.h>
#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

#define EXIT_SKIP 77
/* Seconds a gpudoctor run may take; the sanitizer build needs well under one. */
#define DEADLINE_S 30
/* Directives of each kind per case file. */
#define ITEMS_MAX 64
#define ARGS_MAX  (2 * ITEMS_MAX + 16)

struct ctx {
    const char *name, *gpudoctor, *src, *build, *work;
};

static int failures;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("FAIL: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    failures++;
}

/* ---- strings ------------------------------------------------------------------------------- */

struct sb {
    char *p;
    size_t len, cap;
};

static void sb_add(struct sb *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            perror("realloc");
            exit(2);
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_puts(struct sb *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

static void sb_printf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    char *tmp = malloc((size_t)n + 1);
    if (!tmp) {
        perror("malloc");
        exit(2);
    }
    va_start(ap, fmt);
    vsnprintf(tmp, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_add(b, tmp, (size_t)n);
    free(tmp);
}

static char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p) {
        perror("strdup");
        exit(2);
    }
    return p;
}

/* strndup, which Windows' C library lacks. */
static char *xstrndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p = malloc(len + 1);
    if (!p) {
        perror("malloc");
        exit(2);
    }
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

static char *path_join(const char *a, const char *b)
{
    struct sb s = { 0 };
    sb_printf(&s, "%s/%s", a, b);
    return s.p;
}

/* Every occurrence of `from` in `text` replaced by `to`. New memory. */
static char *replace_all(const char *text, const char *from, const char *to)
{
    struct sb s = { 0 };
    size_t n = strlen(from);
    const char *p = text, *hit;
    sb_puts(&s, "");
    while (n && (hit = strstr(p, from)) != NULL) {
        sb_add(&s, p, (size_t)(hit - p));
        sb_puts(&s, to);
        p = hit + n;
    }
    sb_puts(&s, p);
    return s.p;
}

/* A whole file, NUL-terminated; NULL (errno set) when it cannot be read. */
static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct sb s = { 0 };
    sb_puts(&s, "");
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        sb_add(&s, chunk, n);
    bool ok = !ferror(f);
    fclose(f);
    if (!ok) {
        free(s.p);
        return NULL;
    }
    if (len)
        *len = s.len;
    return s.p;
}

static bool write_all(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

/* ---- processes ----------------------------------------------------------------------------- */

struct run {
    int status; /* exit status; -1 when killed by a signal */
    int signal;
    bool timed_out; /* killed at the deadline (SIGALRM on POSIX) */
    char *out, *err;
    size_t out_len, err_len;
};

static void run_free(struct run *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

/* The command as a shell would take it, for messages that say how to reproduce a failure. */
static void print_command(const char *prefix, char *const argv[])
{
    printf("%s", prefix);
    for (size_t i = 0; argv[i]; i++) {
        bool plain = argv[i][0] != '\0';
        for (const char *c = argv[i]; *c && plain; c++)
            plain = isalnum((unsigned char)*c) || strchr("/._-=:,+@", *c);
        const char *quote = plain ? "" : "'";
        printf(" %s%s%s", quote, argv[i], quote);
    }
    printf("\n");
}

#ifdef _WIN32
/* Windows programs write their text streams with CR LF: lines are compared without the CR. */
static void drop_cr(char *text, size_t *len)
{
    size_t k = 0;
    for (size_t i = 0; i < *len; i++)
        if (!(text[i] == '\r' && i + 1 < *len && text[i + 1] == '\n'))
            text[k++] = text[i];
    text[k] = '\0';
    *len = k;
}

extern char **_environ;

/* Run argv (argv[0] a path: Windows has no cc, cp or diff to look for) with stdin from NUL and
 * its outputs read in, killed after DEADLINE_S seconds, through src/os (a job object), with
 * this process's environment. False when it could not run. */
static bool run(char *const argv[], const char *work, struct run *r)
{
    (void)work;
    memset(r, 0, sizeof *r);
    fflush(stdout);
    fflush(stderr);
    struct gd_child_job job = { NULL, NULL, (const char *const *)argv,
                                (const char *const *)_environ };
    struct gd_child_result res;
    if (gd_os_children_run(&job, 1, DEADLINE_S * 1000, 64u << 20, &res) != GD_OK) {
        print_command("could not run:", argv);
        gd_child_result_free(&res);
        return false;
    }
    if (res.end == GD_CHILD_EXEC_FAILED) {
        print_command("could not execute:", argv);
        printf("  %s\n", res.exec_error);
        gd_child_result_free(&res);
        return false;
    }
    r->status = res.end == GD_CHILD_EXITED ? res.code : -1;
    r->signal = res.end == GD_CHILD_SIGNALED ? res.code : 0;
    r->timed_out = res.end == GD_CHILD_TIMED_OUT;
    r->out_len = res.len;
    r->err_len = res.errors_len;
    r->out = xstrdup(res.output);
    r->err = xstrdup(res.errors);
    gd_child_result_free(&res);
    drop_cr(r->out, &r->out_len);
    drop_cr(r->err, &r->err_len);
    return true;
}
#else
/* Run argv (searched on PATH when it has no slash) with stdin from /dev/null and stdout and
 * stderr into files of `work`, killed after DEADLINE_S seconds. False when it could not run. */
static bool run(char *const argv[], const char *work, struct run *r)
{
    memset(r, 0, sizeof *r);
    char *out_path = path_join(work, "stdout"), *err_path = path_join(work, "stderr");
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        free(out_path);
        free(err_path);
        return false;
    }
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
            _exit(126);
        /* The alarm survives exec: a hung gpudoctor dies of SIGALRM. */
        signal(SIGALRM, SIG_DFL);
        alarm(DEADLINE_S);
        execvp(argv[0], argv);
        _exit(127);
    }
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0) {
        if (errno != EINTR) {
            perror("waitpid");
            free(out_path);
            free(err_path);
            return false;
        }
    }
    if (WIFEXITED(ws)) {
        r->status = WEXITSTATUS(ws);
    } else {
        r->status = -1;
        r->signal = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
        r->timed_out = r->signal == SIGALRM;
    }
    r->out = read_all(out_path, &r->out_len);
    r->err = read_all(err_path, &r->err_len);
    free(out_path);
    free(err_path);
    if (!r->out || !r->err) {
        perror("reading the output of a command");
        run_free(r);
        return false;
    }
    if (r->status == 126 || r->status == 127) {
        print_command("could not execute:", argv);
        run_free(r);
        return false;
    }
    return true;
}

#endif

/* Report how a run ended when it was not the expected exit status. */
static void check_status(const struct run *r, int expected, const char *what)
{
    if (r->status == -1) {
        if (r->timed_out)
            fail("%s ran past the deadline of %d s: a hang", what, DEADLINE_S);
        else
            fail("%s was killed by signal %d", what, r->signal);
        return;
    }
    if (r->status != expected)
        fail("%s exited with %d, expected %d", what, r->status, expected);
}

/* One directory, which may be there already. */
static bool make_dir(const char *path)
{
#ifdef _WIN32
    return _mkdir(path) == 0 || errno == EEXIST;
#else
    return mkdir(path, 0755) == 0 || errno == EEXIST;
#endif
}

#ifdef _WIN32
/* rm -rf: links removed, never followed. */
static void remove_tree(const char *dir)
{
    DWORD a = GetFileAttributesA(dir);
    if (a == INVALID_FILE_ATTRIBUTES)
        return;
    SetFileAttributesA(dir, a & ~(DWORD)FILE_ATTRIBUTE_READONLY);
    if (!(a & FILE_ATTRIBUTE_DIRECTORY)) {
        DeleteFileA(dir);
        return;
    }
    if (!(a & FILE_ATTRIBUTE_REPARSE_POINT)) {
        char *pattern = path_join(dir, "*");
        WIN32_FIND_DATAA d;
        HANDLE h = FindFirstFileA(pattern, &d);
        free(pattern);
        while (h != INVALID_HANDLE_VALUE) {
            if (strcmp(d.cFileName, ".") != 0 && strcmp(d.cFileName, "..") != 0) {
                char *child = path_join(dir, d.cFileName);
                remove_tree(child);
                free(child);
            }
            if (!FindNextFileA(h, &d)) {
                FindClose(h);
                break;
            }
        }
    }
    RemoveDirectoryA(dir);
}
#else
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    if (remove(path) != 0)
        perror(path);
    return 0;
}

static void remove_tree(const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) == 0)
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
#endif

/* An empty directory at `dir`, whatever was there before (a previous run's leftovers). */
static bool fresh_dir(const char *dir)
{
    remove_tree(dir);
    struct sb partial = { 0 };
    for (const char *p = dir; *p; p++) {
        sb_add(&partial, p, 1);
        if ((p[1] == '/' || p[1] == '\0') && partial.len > 1 && !make_dir(partial.p)) {
            perror(partial.p);
            free(partial.p);
            return false;
        }
    }
    free(partial.p);
    return true;
}

/* The canonical absolute path of an existing directory, as gpudoctor writes it (new memory),
 * or NULL: realpath(3), and on Windows src/os's own ("Z:/work/..." under wine). */
static char *canonical(const char *path)
{
#ifdef _WIN32
    char *p = NULL;
    if (gd_os_realpath(path, &p) != GD_OK)
        return NULL;
    char *out = xstrdup(p);
    gd_free(p);
    return out;
#else
    return realpath(path, NULL);
#endif
}

/* `text` with `path` replaced by `token` (new memory). On Windows gpudoctor writes a path in its
 * canonical form, with a drive ("Z:/work/..." for wine's "/work/..."), and may write it with
 * '\': every spelling is replaced. */
static char *normalise(const char *text, const char *path, const char *token)
{
#ifdef _WIN32
    /* The drive's spellings first: the POSIX one ("/work/...") is the end of "Z:/work/...". */
    char *canon = canonical(path);
    if (canon) {
        char *back = xstrdup(canon);
        for (char *c = back; *c; c++)
            if (*c == '/')
                *c = '\\';
        char *a = replace_all(text, canon, token);
        char *b = replace_all(a, back, token);
        char *out = replace_all(b, path, token);
        free(a);
        free(b);
        free(back);
        free(canon);
        return out;
    }
#endif
    return replace_all(text, path, token);
}

/* ---- the report ---------------------------------------------------------------------------- */

/* A fact of the JSON report as the text renderer writes it: "LABEL = VALUE" for a known fact,
 * "LABEL = absent (reason)" or "LABEL = unknown (reason)" otherwise, with " [KIND REF]" after it
 * when `with_source`. New memory. */
static char *render_fact(const char *label, struct json_object *fact, bool with_source)
{
    struct json_object *state = NULL, *value = NULL, *reason = NULL, *source = NULL, *kind = NULL,
                       *ref = NULL;
    json_object_object_get_ex(fact, "state", &state);
    json_object_object_get_ex(fact, "value", &value);
    json_object_object_get_ex(fact, "reason", &reason);
    json_object_object_get_ex(fact, "source", &source);
    struct sb s = { 0 };
    sb_printf(&s, "%s = ", label);
    const char *st = state ? json_object_get_string(state) : "?";
    if (strcmp(st, "known") == 0) {
        sb_puts(&s, value ? json_object_get_string(value) : "?");
    } else {
        sb_puts(&s, st);
        if (reason)
            sb_printf(&s, " (%s)", json_object_get_string(reason));
    }
    if (with_source && source && json_object_object_get_ex(source, "kind", &kind) &&
        json_object_object_get_ex(source, "ref", &ref))
        sb_printf(&s, " [%s %s]", json_object_get_string(kind), json_object_get_string(ref));
    return s.p;
}

/* Does `expected` (with or without its source) describe this fact? */
static bool fact_matches(const char *label, struct json_object *fact, const char *expected)
{
    char *plain = render_fact(label, fact, false), *full = render_fact(label, fact, true);
    bool match = strcmp(expected, plain) == 0 || strcmp(expected, full) == 0;
    /* "LABEL = absent (*)": that state, whatever the reason (the wording is the probe's). */
    size_t n = strlen(expected);
    if (!match && n > 4 && strcmp(expected + n - 4, " (*)") == 0) {
        size_t head = n - 3; /* up to and with the " (" */
        match = (strncmp(expected, plain, head) == 0 && plain[strlen(plain) - 1] == ')') ||
                (strlen(plain) == n - 4 && strncmp(expected, plain, n - 4) == 0);
    }
    free(plain);
    free(full);
    return match;
}

static const char *str_field(struct json_object *o, const char *key)
{
    struct json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "";
}

static char *evidence_label(struct json_object *ev)
{
    struct sb s = { 0 };
    sb_printf(&s, "%s.%s", str_field(ev, "entity"), str_field(ev, "fact"));
    return s.p;
}

static void print_evidence(struct json_object *finding)
{
    struct json_object *evidence = NULL;
    json_object_object_get_ex(finding, "evidence", &evidence);
    size_t n = evidence ? json_object_array_length(evidence) : 0;
    printf("      %s (%s) carries %zu evidence fact%s:\n", str_field(finding, "id"),
           str_field(finding, "severity"), n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++) {
        struct json_object *ev = json_object_array_get_idx(evidence, i);
        char *label = evidence_label(ev);
        char *text = render_fact(label, ev, true);
        printf("        %s\n", text);
        free(text);
        free(label);
    }
}

static void print_finding_ids(struct json_object *findings)
{
    printf("      reported:");
    for (size_t i = 0; i < json_object_array_length(findings); i++) {
        struct json_object *f = json_object_array_get_idx(findings, i);
        printf(" %s(%s)", str_field(f, "id"), str_field(f, "severity"));
    }
    printf("\n");
}

/* Invariants of every report: findings carry evidence, problems carry a fix. */
static void check_invariants(struct json_object *findings)
{
    for (size_t i = 0; i < json_object_array_length(findings); i++) {
        struct json_object *f = json_object_array_get_idx(findings, i), *ev = NULL, *fix = NULL;
        const char *id = str_field(f, "id"), *sev = str_field(f, "severity");
        if (!json_object_object_get_ex(f, "evidence", &ev) || json_object_array_length(ev) == 0)
            fail("finding %s carries no evidence", id);
        bool problem = strcmp(sev, "error") == 0 || strcmp(sev, "warning") == 0;
        if (problem &&
            (!json_object_object_get_ex(f, "fix", &fix) || json_object_array_length(fix) == 0))
            fail("%s finding %s carries no fix", sev, id);
    }
}

/* The fact `label` ("entity.fact") among the report's entities, or NULL. Entity ids may hold
 * dots themselves ("gpu:0000:01:00.0", "python_env:/home/alice/.pyenv/versions/3.12.1"):
 * every entity whose id and a dot begin the label is tried. */
static struct json_object *entity_fact(struct json_object *report, const char *label)
{
    struct json_object *entities = NULL, *facts = NULL, *fact = NULL;
    if (!json_object_object_get_ex(report, "entities", &entities))
        return NULL;
    for (size_t i = 0; i < json_object_array_length(entities); i++) {
        struct json_object *e = json_object_array_get_idx(entities, i);
        const char *id = str_field(e, "id");
        size_t idlen = strlen(id);
        if (strncmp(id, label, idlen) != 0 || label[idlen] != '.')
            continue;
        if (json_object_object_get_ex(e, "facts", &facts) &&
            json_object_object_get_ex(facts, label + idlen + 1, &fact))
            return fact;
    }
    return NULL;
}

/* ---- case files ---------------------------------------------------------------------------- */

struct case_def {
    char *root;
    char *args[ARGS_MAX];
    size_t nargs;
    int exit_status;
    int exit_alt; /* "exit 0|1": either, where the machine's own state decides; -1 none */
    bool have_exit;
    char *finding_id[ITEMS_MAX], *finding_sev[ITEMS_MAX];
    size_t nfinding;
    char *evidence_id[ITEMS_MAX], *evidence_text[ITEMS_MAX];
    size_t nevidence;
    char *reject[ITEMS_MAX];
    size_t nreject;
    char *fact[ITEMS_MAX];
    size_t nfact;
    char *fifo[ITEMS_MAX];
    size_t nfifo;
    char *lib[ITEMS_MAX]; /* "PATH SONAME" */
    size_t nlib;
    char *exe[ITEMS_MAX];
    size_t nexe;
    char *link[ITEMS_MAX]; /* "PATH TARGET" */
    size_t nlink;
    char *cache[ITEMS_MAX]; /* "SONAME PATH" */
    size_t ncache;
    char *err_has[ITEMS_MAX];
    size_t nerr;
    /* Fake cases. */
    char *command;
    char *setenv_[ITEMS_MAX];
    size_t nsetenv;
    char *hide[ITEMS_MAX];
    size_t nhide;
    char *libdir[ITEMS_MAX];
    size_t nlibdir;
    char *liblink[ITEMS_MAX]; /* "NAME TARGET" */
    size_t nliblink;
    char *requires_[ITEMS_MAX];
    size_t nrequires;
    bool nofakes, requires_no_driver;
    char *posix_only; /* why the case cannot hold on Windows, or NULL */
};

/* Set while a fake case is read: no root needed, fake directives allowed. */
static bool fake_mode;

static void case_free(struct case_def *c)
{
    free(c->root);
    free(c->posix_only);
    for (size_t i = 0; i < c->nargs; i++)
        free(c->args[i]);
    for (size_t i = 0; i < c->nfinding; i++) {
        free(c->finding_id[i]);
        free(c->finding_sev[i]);
    }
    for (size_t i = 0; i < c->nevidence; i++) {
        free(c->evidence_id[i]);
        free(c->evidence_text[i]);
    }
    for (size_t i = 0; i < c->nreject; i++)
        free(c->reject[i]);
    for (size_t i = 0; i < c->nfact; i++)
        free(c->fact[i]);
    for (size_t i = 0; i < c->nfifo; i++)
        free(c->fifo[i]);
    for (size_t i = 0; i < c->nlib; i++)
        free(c->lib[i]);
    for (size_t i = 0; i < c->nexe; i++)
        free(c->exe[i]);
    for (size_t i = 0; i < c->nlink; i++)
        free(c->link[i]);
    for (size_t i = 0; i < c->ncache; i++)
        free(c->cache[i]);
    for (size_t i = 0; i < c->nerr; i++)
        free(c->err_has[i]);
    free(c->command);
    char **lists[] = { c->setenv_, c->hide, c->libdir, c->liblink, c->requires_ };
    size_t counts[] = { c->nsetenv, c->nhide, c->nlibdir, c->nliblink, c->nrequires };
    for (size_t l = 0; l < 5; l++)
        for (size_t i = 0; i < counts[l]; i++)
            free(lists[l][i]);
}

static bool add_item(char **items, size_t *n, const char *value, const char *where)
{
    if (*n == ITEMS_MAX) {
        printf("%s: more than %d such lines\n", where, ITEMS_MAX);
        return false;
    }
    items[(*n)++] = xstrdup(value);
    return true;
}

static bool add_arg(struct case_def *c, const char *option, const char *value)
{
    if (c->nargs + 2 > ARGS_MAX)
        return false;
    c->args[c->nargs++] = xstrdup(option);
    c->args[c->nargs++] = xstrdup(value);
    return true;
}

/* One directive; false (after saying why) when the line is not one. */
static bool case_line(struct case_def *c, const struct ctx *x, char *line, const char *where)
{
    if (fake_mode && strcmp(line, "nofakes") == 0) {
        c->nofakes = true;
        return true;
    }
    if (fake_mode && strcmp(line, "requires-no-driver") == 0) {
        c->requires_no_driver = true;
        return true;
    }
    char *sp = strchr(line, ' ');
    if (!sp || !sp[1]) {
        printf("%s: \"%s\" is not \"DIRECTIVE VALUE\"\n", where, line);
        return false;
    }
    *sp = '\0';
    const char *key = line, *rest = sp + 1;
    if (strcmp(key, "posix-only:") == 0) {
        free(c->posix_only);
        c->posix_only = xstrdup(rest);
        return true;
    }
    if (strcmp(key, "root") == 0) {
        free(c->root);
        char *roots = path_join(x->src, "tests/fixtures/roots");
        c->root = path_join(roots, rest);
        free(roots);
        return true;
    }
    if (strcmp(key, "env") == 0)
        return add_arg(c, "--env", rest);
    if (strcmp(key, "env-file") == 0) {
        char *dir = path_join(x->src, "tests/e2e");
        char *file = path_join(dir, rest);
        bool ok = add_arg(c, "--env-file", file);
        free(file);
        free(dir);
        return ok;
    }
    if (strcmp(key, "arg") == 0) {
        const char *value = strchr(rest, ' ');
        if (!value && c->nargs + 1 <= ARGS_MAX) {
            c->args[c->nargs++] = xstrdup(rest); /* an option without a value */
            return true;
        }
        if (!value) {
            printf("%s: \"arg OPTION [VALUE]\"\n", where);
            return false;
        }
        char *option = xstrndup(rest, (size_t)(value - rest));
        bool ok = add_arg(c, option, value + 1);
        free(option);
        return ok;
    }
    if (strcmp(key, "exit") == 0) {
        c->exit_status = atoi(rest);
        c->exit_alt = strchr(rest, '|') ? atoi(strchr(rest, '|') + 1) : -1;
        c->have_exit = true;
        return true;
    }
    if (strcmp(key, "finding") == 0) {
        const char *sev = strchr(rest, ' ');
        if (!sev || c->nfinding == ITEMS_MAX) {
            printf("%s: \"finding ID SEVERITY\"\n", where);
            return false;
        }
        c->finding_id[c->nfinding] = xstrndup(rest, (size_t)(sev - rest));
        c->finding_sev[c->nfinding++] = xstrdup(sev + 1);
        return true;
    }
    if (strcmp(key, "evidence") == 0) {
        const char *colon = strstr(rest, ": ");
        if (!colon || c->nevidence == ITEMS_MAX) {
            printf("%s: \"evidence ID: LABEL = VALUE\"\n", where);
            return false;
        }
        c->evidence_id[c->nevidence] = xstrndup(rest, (size_t)(colon - rest));
        c->evidence_text[c->nevidence++] = xstrdup(colon + 2);
        return true;
    }
    if (strcmp(key, "no-finding") == 0)
        return add_item(c->reject, &c->nreject, rest, where);
    if (strcmp(key, "fact") == 0)
        return add_item(c->fact, &c->nfact, rest, where);
    if (strcmp(key, "fifo") == 0)
        return add_item(c->fifo, &c->nfifo, rest, where);
    if (strcmp(key, "lib") == 0 || strcmp(key, "symlink") == 0 || strcmp(key, "cache") == 0) {
        if (!strchr(rest, ' ')) {
            printf("%s: \"%s\" takes two words\n", where, key);
            return false;
        }
        return key[0] == 'l'   ? add_item(c->lib, &c->nlib, rest, where)
               : key[0] == 's' ? add_item(c->link, &c->nlink, rest, where)
                               : add_item(c->cache, &c->ncache, rest, where);
    }
    if (strcmp(key, "exe") == 0)
        return add_item(c->exe, &c->nexe, rest, where);
    if (strcmp(key, "stderr") == 0)
        return add_item(c->err_has, &c->nerr, rest, where);
    if (fake_mode && strcmp(key, "command") == 0) {
        free(c->command);
        c->command = xstrdup(rest);
        return true;
    }
    if (fake_mode && strcmp(key, "setenv") == 0)
        return add_item(c->setenv_, &c->nsetenv, rest, where);
    if (fake_mode && strcmp(key, "hide") == 0)
        return add_item(c->hide, &c->nhide, rest, where);
    if (fake_mode && strcmp(key, "libdir") == 0)
        return add_item(c->libdir, &c->nlibdir, rest, where);
    if (fake_mode && strcmp(key, "link") == 0)
        return add_item(c->liblink, &c->nliblink, rest, where);
    if (fake_mode && strcmp(key, "requires") == 0)
        return add_item(c->requires_, &c->nrequires, rest, where);
    printf("%s: unknown directive \"%s\"\n", where, key);
    return false;
}

static bool case_load(struct case_def *c, const struct ctx *x, const char *path)
{
    memset(c, 0, sizeof *c);
    c->exit_alt = -1;
    char *text = read_all(path, NULL);
    if (!text) {
        printf("cannot read %s: %s\n", path, strerror(errno));
        return false;
    }
    bool ok = true;
    size_t lineno = 0;
    for (char *line = text, *next; ok && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        size_t n = strlen(line);
        while (n && (line[n - 1] == ' ' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (!n || line[0] == '#')
            continue;
        char where[PATH_MAX + 32];
        snprintf(where, sizeof where, "%s:%zu", path, lineno);
        ok = case_line(c, x, line, where);
    }
    free(text);
    if (ok && ((!c->root && !fake_mode) || !c->have_exit)) {
        printf("%s: a case needs %s\"exit\"\n", path, fake_mode ? "" : "\"root\" and ");
        ok = false;
    }
    return ok;
}

/* ---- one case ------------------------------------------------------------------------------ */

static void check_findings(const struct case_def *c, struct json_object *report)
{
    struct json_object *findings = NULL;
    if (!json_object_object_get_ex(report, "findings", &findings) ||
        !json_object_is_type(findings, json_type_array)) {
        fail("the report has no findings array");
        return;
    }
    check_invariants(findings);
    for (size_t i = 0; i < c->nfinding; i++) {
        bool seen = false, right = false;
        for (size_t k = 0; k < json_object_array_length(findings); k++) {
            struct json_object *f = json_object_array_get_idx(findings, k);
            if (strcmp(str_field(f, "id"), c->finding_id[i]) != 0)
                continue;
            seen = true;
            right = right || strcmp(str_field(f, "severity"), c->finding_sev[i]) == 0;
        }
        if (!seen || !right) {
            fail("expected finding %s with severity %s%s", c->finding_id[i], c->finding_sev[i],
                 seen ? ", reported with another severity" : ", not reported");
            print_finding_ids(findings);
        }
    }
    for (size_t i = 0; i < c->nevidence; i++) {
        bool seen = false, found = false;
        for (size_t k = 0; k < json_object_array_length(findings) && !found; k++) {
            struct json_object *f = json_object_array_get_idx(findings, k), *ev = NULL;
            if (strcmp(str_field(f, "id"), c->evidence_id[i]) != 0)
                continue;
            seen = true;
            json_object_object_get_ex(f, "evidence", &ev);
            for (size_t e = 0; ev && e < json_object_array_length(ev) && !found; e++) {
                struct json_object *fact = json_object_array_get_idx(ev, e);
                char *label = evidence_label(fact);
                found = fact_matches(label, fact, c->evidence_text[i]);
                free(label);
            }
        }
        if (found)
            continue;
        fail("finding %s lacks the evidence \"%s\"", c->evidence_id[i], c->evidence_text[i]);
        for (size_t k = 0; k < json_object_array_length(findings); k++) {
            struct json_object *f = json_object_array_get_idx(findings, k);
            if (strcmp(str_field(f, "id"), c->evidence_id[i]) == 0)
                print_evidence(f);
        }
        if (!seen)
            print_finding_ids(findings);
    }
    for (size_t i = 0; i < c->nreject; i++) {
        for (size_t k = 0; k < json_object_array_length(findings); k++) {
            struct json_object *f = json_object_array_get_idx(findings, k);
            if (strcmp(str_field(f, "id"), c->reject[i]) == 0) {
                fail("finding %s must not be reported here", c->reject[i]);
                print_evidence(f);
            }
        }
    }
    for (size_t i = 0; i < c->nfact; i++) {
        const char *eq = strstr(c->fact[i], " = ");
        char *label = eq ? xstrndup(c->fact[i], (size_t)(eq - c->fact[i])) : xstrdup(c->fact[i]);
        struct json_object *fact = entity_fact(report, label);
        if (!fact) {
            fail("the report has no fact %s", label);
        } else if (!fact_matches(label, fact, c->fact[i])) {
            char *actual = render_fact(label, fact, true);
            fail("expected the fact \"%s\", the report has \"%s\"", c->fact[i], actual);
            free(actual);
        }
        free(label);
    }
}

static void check_stderr(const struct run *r, char *const *has, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (!strstr(r->err, has[i]))
            fail("the standard error of %s lacks \"%s\"", what, has[i]);
    if (n == 0 && r->err_len)
        fail("%s wrote to standard error:\n%s", what, r->err);
}

/* The output against tests/e2e/NAME.EXT, or its new version under GD_BLESS=1. */
static void check_golden_ext(const struct ctx *x, const char *text, const char *ext)
{
    char *dir = path_join(x->src, "tests/e2e");
    struct sb golden_name = { 0 };
    sb_printf(&golden_name, "%s.%s", x->name, ext);
    char *golden = path_join(dir, golden_name.p);
    char *actual_path = path_join(x->work, golden_name.p);
    const char *bless = getenv("GD_BLESS");
    if (bless && *bless && strcmp(bless, "0") != 0) {
        if (write_all(golden, text, strlen(text)))
            printf("blessed tests/e2e/%s\n", golden_name.p);
        else
            fail("cannot write %s: %s", golden, strerror(errno));
        goto out;
    }
    char *expected = read_all(golden, NULL);
    if (expected && strcmp(expected, text) == 0) {
        free(expected);
        goto out;
    }
    free(expected);
    if (!write_all(actual_path, text, strlen(text))) {
        fail("cannot write %s", actual_path);
        goto out;
    }
    char *old = read_all(golden, NULL);
    fail("the output differs from tests/e2e/%s%s:", golden_name.p,
         old ? "" : " (which does not exist yet)");
#ifdef _WIN32
    /* No diff(1) here: the first line that differs, and where the whole output is. */
    const char *a = old ? old : "", *b = text;
    size_t line = 1;
    while (*a && *a == *b) {
        line += *a == '\n';
        a++;
        b++;
    }
    while (a > (old ? old : "") && a[-1] != '\n') {
        a--;
        b--;
    }
    printf("line %zu, expected:\n  %.*s\nactual (all of it in %s):\n  %.*s\n", line,
           (int)strcspn(a, "\n"), a, actual_path, (int)strcspn(b, "\n"), b);
#else
    char *diff[] = { "diff", "-u", old ? golden : "/dev/null", actual_path, NULL };
    struct run d;
    if (run(diff, x->work, &d)) {
        fputs(d.out, stdout);
        run_free(&d);
    }
#endif
    free(old);
    printf("If the new output is right, re-bless it with:\n"
           "  cd %s && GD_BLESS=1 ctest -R '^e2e\\.%s$'\n",
           x->build, x->name);
out:
    free(golden_name.p);
    free(golden);
    free(actual_path);
    free(dir);
}

static void check_golden(const struct ctx *x, const char *text)
{
    check_golden_ext(x, text, "txt");
}

/* Compiled objects are padded to this size: their sizes are facts printed in golden files. */
#define ELF_SIZE 65536
#if defined(__x86_64__)
#define CACHE_FLAGS 0x0303 /* libc6,x86-64 */
#else
#define CACHE_FLAGS 0x0003
#endif

/* Set when a case cannot run here (no C compiler, not x86-64): it is skipped, not failed. */
static const char *skip_reason;

#ifndef _WIN32
/* The directories above `path`, made as needed. */
static bool make_parents(const char *path)
{
    struct sb partial = { 0 };
    bool ok = true;
    const char *last = strrchr(path, '/');
    for (const char *p = path; ok && last && p < last; p++) {
        sb_add(&partial, p, 1);
        if ((p[1] == '/' || p + 1 == last) && partial.len > 1 && !make_dir(partial.p)) {
            fail("mkdir %s: %s", partial.p, strerror(errno));
            ok = false;
        }
    }
    free(partial.p);
    return ok;
}

/* `word` and the rest of "WORD REST" (a directive's two values). New memory. */
static char *first_word(const char *item, const char **rest)
{
    const char *sp = strchr(item, ' ');
    *rest = sp + 1;
    return xstrndup(item, (size_t)(sp - item));
}

/* Build `src` into `path` with cc and `args` (NULL-terminated, after the sources). */
static bool cc(const struct ctx *x, const char *path, const char *src, const char *const *args)
{
    const char *argv[32] = { "cc", "-o", path, src };
    size_t n = 4;
    for (; args && *args && n < 31; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    struct run r;
    bool ok = run((char **)argv, x->work, &r) && r.status == 0;
    if (!ok)
        fail("cc could not build %s: %s", path, r.err ? r.err : "");
    run_free(&r);
    return ok;
}

/* The contents of section `name` of the ELF64 file `data` (`len` bytes) and its header, or NULL.
 * Borrowed. */
static const unsigned char *elf_section(const unsigned char *data, size_t len, const char *name,
                                        Elf64_Shdr *out)
{
    Elf64_Ehdr eh;
    if (len < sizeof eh || memcmp(data, ELFMAG, SELFMAG) != 0 || data[EI_CLASS] != ELFCLASS64)
        return NULL;
    memcpy(&eh, data, sizeof eh);
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > len ||
        (len - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum || eh.e_shstrndx >= eh.e_shnum)
        return NULL;
    Elf64_Shdr names;
    memcpy(&names, data + eh.e_shoff + eh.e_shstrndx * sizeof names, sizeof names);
    if (names.sh_offset > len || names.sh_size > len - names.sh_offset)
        return NULL;
    for (size_t i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, data + eh.e_shoff + i * sizeof sh, sizeof sh);
        size_t n = strlen(name);
        if (sh.sh_name >= names.sh_size || names.sh_size - sh.sh_name <= n ||
            memcmp(data + names.sh_offset + sh.sh_name, name, n + 1) != 0)
            continue;
        if (sh.sh_type == SHT_NOBITS || sh.sh_offset > len || sh.sh_size > len - sh.sh_offset)
            return NULL;
        *out = sh;
        return data + sh.sh_offset;
    }
    return NULL;
}

/* `path`'s .nv_fatbin holds exactly the bytes of `blob`, in an allocated section aligned to 8
 * as nvcc makes it (what the fatbin reader is given to walk). */
static bool check_fatbin_section(const char *path, const char *blob)
{
    size_t len = 0, blob_len = 0;
    Elf64_Shdr sh;
    char *data = read_all(path, &len), *want = read_all(blob, &blob_len);
    const unsigned char *sec =
        data ? elf_section((const unsigned char *)data, len, ".nv_fatbin", &sh) : NULL;
    bool ok = sec && want && sh.sh_size == blob_len && memcmp(sec, want, blob_len) == 0 &&
              sh.sh_addralign == 8 && sh.sh_addr % 8 == 0 && (sh.sh_flags & SHF_ALLOC) &&
              !(sh.sh_flags & (SHF_WRITE | SHF_EXECINSTR));
    if (!ok)
        fail("%s: its .nv_fatbin section is not exactly %s", path, blob);
    free(data);
    free(want);
    return ok;
}

/* An assembly file putting `blob` into a .nv_fatbin section ("a": allocated, read-only, as
 * nvcc's host code declares it; 8-byte aligned, the alignment of a fatbin container). */
static char *fatbin_asm(const struct ctx *x, const char *blob)
{
    if (strpbrk(blob, "\"\\\n")) {
        fail("%s: a path with a quote, backslash or newline cannot be .incbin'ed", blob);
        return NULL;
    }
    struct sb text = { 0 };
    sb_printf(&text, "\t.section .nv_fatbin,\"a\",@progbits\n\t.balign 8\n\t.incbin \"%s\"\n",
              blob);
    char *s = path_join(x->work, "fatbin.s");
    bool ok = write_all(s, text.p, text.len);
    free(text.p);
    if (!ok) {
        fail("cannot write %s: %s", s, strerror(errno));
        free(s);
        return NULL;
    }
    return s;
}

/* A shared object with SONAME `soname` (NULL: an executable) at `path`, padded to ELF_SIZE.
 * `options`: "needs=A,B runpath=DIRS|rpath=DIRS fatbin=FILE" or NULL. */
static bool build_elf(const struct ctx *x, const char *path, const char *soname,
                      const char *options)
{
    char *src = path_join(x->work, soname ? "lib.c" : "main.c");
    const char *text =
        soname ? "int gd_fake(void) { return 0; }\n" : "int main(void) { return 0; }\n";
    bool ok = write_all(src, text, strlen(text)) && make_parents(path);
    struct sb flag = { 0 }, rpath = { 0 };
    char *stubs[16] = { 0 };
    const char *args[32] = { 0 };
    size_t nargs = 0, nstubs = 0;
    if (soname) {
        sb_printf(&flag, "-Wl,-soname,%s", soname);
        args[nargs++] = "-shared";
        args[nargs++] = "-fPIC";
        args[nargs++] = flag.p;
    }
    /* DT_NEEDED: the linker records a library it links against; --no-as-needed keeps it even
     * though nothing of it is used. The stubs have the needed names as SONAMEs. */
    const char *needs = options ? strstr(options, "needs=") : NULL;
    const char *runpath = options ? strstr(options, "runpath=") : NULL;
    const char *rpath_opt = options ? strstr(options, "rpath=") : NULL;
    if (rpath_opt && rpath_opt != options && rpath_opt[-1] != ' ')
        rpath_opt = NULL; /* the "rpath=" inside "runpath=" */
    const char *fatbin = options ? strstr(options, "fatbin=") : NULL;
    char *blob = NULL, *blob_asm = NULL;
    if (fatbin) {
        size_t len = strcspn(fatbin + 7, " ");
        struct sb rel = { 0 };
        sb_printf(&rel, "tests/fixtures/fatbin/%.*s", (int)len, fatbin + 7);
        blob = path_join(x->src, rel.p);
        /* Only the fixtures' own directory: no "..", no subdirectories. */
        if (len == 0 || memchr(fatbin + 7, '/', len) || access(blob, R_OK) != 0) {
            fail("fatbin=%.*s: not a readable file of tests/fixtures/fatbin", (int)len, fatbin + 7);
            ok = false;
        }
        free(rel.p);
        blob_asm = ok ? fatbin_asm(x, blob) : NULL;
        ok = ok && blob_asm;
        if (ok)
            args[nargs++] = blob_asm;
    }
    if (needs) {
        args[nargs++] = "-Wl,--no-as-needed";
        for (const char *p = needs + 6; ok && *p && *p != ' ' && nstubs < 16;) {
            size_t len = strcspn(p, ", ");
            char *name = xstrndup(p, len);
            char *dir = path_join(x->work, "stubs");
            char *stub = path_join(dir, name);
            const char *stub_args[] = { "-shared", "-fPIC", NULL, NULL };
            struct sb so = { 0 };
            sb_printf(&so, "-Wl,-soname,%s", name);
            stub_args[2] = so.p;
            ok = make_parents(stub) && cc(x, stub, src, stub_args);
            free(so.p);
            free(dir);
            free(name);
            stubs[nstubs] = stub;
            args[nargs++] = stubs[nstubs++];
            p += len;
            if (*p == ',')
                p++;
        }
    }
    if (runpath) {
        size_t len = strcspn(runpath + 8, " ");
        sb_printf(&rpath, "-Wl,--enable-new-dtags,-rpath,%.*s", (int)len, runpath + 8);
        args[nargs++] = rpath.p;
    } else if (rpath_opt) {
        size_t len = strcspn(rpath_opt + 6, " ");
        sb_printf(&rpath, "-Wl,--disable-new-dtags,-rpath,%.*s", (int)len, rpath_opt + 6);
        args[nargs++] = rpath.p;
    }
    args[nargs] = NULL;
    if (ok)
        ok = cc(x, path, src, args);
    if (ok && blob)
        ok = check_fatbin_section(path, blob);
    struct stat st;
    if (ok && (stat(path, &st) != 0 || st.st_size > ELF_SIZE || truncate(path, ELF_SIZE) != 0)) {
        fail("%s: cannot pad it to %d bytes", path, ELF_SIZE);
        ok = false;
    }
    for (size_t i = 0; i < nstubs; i++)
        free(stubs[i]);
    free(blob_asm);
    free(blob);
    free(rpath.p);
    free(flag.p);
    free(src);
    return ok;
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* /etc/ld.so.cache in glibc's new format (little-endian): "SONAME PATH" entries. */
static bool write_cache(const char *root, char *const *entries, size_t n)
{
    struct sb strings = { 0 };
    sb_puts(&strings, "");
    size_t header = 48 + 24 * n;
    unsigned char *table = calloc(1, header);
    memcpy(table, "glibc-ld.so.cache1.1", 20);
    put32(table + 20, (uint32_t)n);
    table[28] = 2; /* little-endian */
    for (size_t i = 0; i < n; i++) {
        const char *path;
        char *name = first_word(entries[i], &path);
        unsigned char *e = table + 48 + 24 * i;
        put32(e, CACHE_FLAGS);
        put32(e + 4, (uint32_t)(header + strings.len));
        sb_add(&strings, name, strlen(name) + 1);
        put32(e + 8, (uint32_t)(header + strings.len));
        sb_add(&strings, path, strlen(path) + 1);
        free(name);
    }
    put32(table + 24, (uint32_t)strings.len);
    char *file = path_join(root, "etc/ld.so.cache");
    FILE *f = make_parents(file) ? fopen(file, "wb") : NULL;
    bool ok = f && fwrite(table, 1, header, f) == header &&
              fwrite(strings.p, 1, strings.len, f) == strings.len;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        fail("cannot write %s", file);
    free(file);
    free(table);
    free(strings.p);
    return ok;
}

#endif

/* The root to inspect: the fixture itself, or a copy with FIFOs planted in it, objects
 * compiled into it, links and an ld.so.cache made. New memory. */
static char *prepare_root(const struct ctx *x, const struct case_def *c)
{
    if (c->nfifo + c->nlib + c->nexe + c->nlink + c->ncache == 0)
        return canonical(c->root);
#ifdef _WIN32
    /* What these directives make is Linux's: ELF objects built by cc, FIFOs, symlinks. */
    (void)x;
    skip_reason = c->nfifo ? "the case plants a FIFO, which Windows does not have"
                           : "the case builds Linux libraries with cc (lib, exe, symlink, cache)";
    return NULL;
#else
    if (c->nlib + c->nexe) {
#if !defined(__x86_64__)
        skip_reason = "the compiled fixtures and their golden files are x86-64's";
        return NULL;
#endif
        char *argv[] = { "cc", "--version", NULL };
        struct run r;
        bool have_cc = run(argv, x->work, &r) && r.status == 0;
        run_free(&r);
        if (!have_cc) {
            skip_reason = "no C compiler (cc) to build the case's libraries";
            return NULL;
        }
    }
    char *copy = path_join(x->work, "root");
    char *cp[] = { "cp", "-RP", c->root, copy, NULL };
    struct run r;
    if (!run(cp, x->work, &r) || r.status != 0) {
        fail("cannot copy %s to %s: %s", c->root, copy, r.err ? r.err : "");
        run_free(&r);
        free(copy);
        return NULL;
    }
    run_free(&r);
    bool ok = true;
    for (size_t i = 0; ok && i < c->nfifo; i++) {
        char *p = path_join(copy, c->fifo[i]);
        if ((unlink(p) != 0 && errno != ENOENT) || mkfifo(p, 0644) != 0) {
            fail("cannot make the FIFO %s: %s", p, strerror(errno));
            ok = false;
        }
        free(p);
    }
    for (size_t i = 0; ok && i < c->nexe; i++) {
        char *p = path_join(copy, c->exe[i]);
        ok = build_elf(x, p, NULL, NULL);
        free(p);
    }
    for (size_t i = 0; ok && i < c->nlib; i++) {
        const char *after;
        char *rel = first_word(c->lib[i], &after);
        const char *options = strchr(after, ' ');
        char *soname = options ? xstrndup(after, (size_t)(options - after)) : xstrdup(after);
        char *p = path_join(copy, rel);
        ok = build_elf(x, p, soname, options ? options + 1 : NULL);
        free(p);
        free(soname);
        free(rel);
    }
    for (size_t i = 0; ok && i < c->nlink; i++) {
        const char *target;
        char *rel = first_word(c->link[i], &target);
        char *p = path_join(copy, rel);
        ok = make_parents(p) && symlink(target, p) == 0;
        if (!ok)
            fail("cannot make the symlink %s -> %s: %s", p, target, strerror(errno));
        free(p);
        free(rel);
    }
    if (ok && c->ncache)
        ok = write_cache(copy, c->cache, c->ncache);
    char *real = ok ? realpath(copy, NULL) : NULL;
    free(copy);
    return real;
#endif
}

/* Read tests/<subdir>/<name>.case into `c`; false (after saying why) when it cannot be used. */
static bool load_named_case(const struct ctx *x, const char *subdir, struct case_def *c)
{
    char *dir = path_join(x->src, subdir);
    struct sb file = { 0 };
    sb_printf(&file, "%s/%s.case", dir, x->name);
    free(dir);
    bool loaded = case_load(c, x, file.p);
    free(file.p);
    if (!loaded)
        case_free(c);
    return loaded;
}

/* Run argv (with "--json" at `format_at`) and check the report against the case; then the same
 * run through the text renderer, every finding and fact shown. Returns the text output (new
 * memory) for a golden comparison, or NULL when it could not run or was killed. */
static char *run_both(const struct ctx *x, const struct case_def *c, char **argv, size_t n,
                      size_t format_at)
{
    print_command("$", argv);
    struct run r;
    if (run(argv, x->work, &r)) {
        check_status(&r, r.status == c->exit_alt ? c->exit_alt : c->exit_status,
                     "gpudoctor --json");
        check_stderr(&r, c->err_has, c->nerr, "gpudoctor --json");
        /* A usage error (2) writes no report. */
        enum json_tokener_error jerr = json_tokener_success;
        struct json_object *report =
            c->exit_status == 2 ? NULL : json_tokener_parse_verbose(r.out, &jerr);
        if (!report && c->exit_status != 2)
            fail("the output of --json is not JSON (%s):\n%s", json_tokener_error_desc(jerr),
                 r.out);
        else if (report)
            check_findings(c, report);
        json_object_put(report);
        run_free(&r);
    } else {
        fail("cannot run %s", x->gpudoctor);
    }
    char *text_argv[ARGS_MAX + 16];
    size_t t = 0;
    for (size_t i = 0; i < format_at; i++)
        text_argv[t++] = argv[i];
    text_argv[t++] = "--color";
    text_argv[t++] = "never";
    text_argv[t++] = "-v";
    for (size_t i = format_at + 1; i < n; i++)
        text_argv[t++] = argv[i];
    text_argv[t] = NULL;
    print_command("$", text_argv);
    char *text = NULL;
    if (run(text_argv, x->work, &r)) {
        check_status(&r, r.status == c->exit_alt ? c->exit_alt : c->exit_status,
                     "gpudoctor (text)");
        check_stderr(&r, c->err_has, c->nerr, "gpudoctor (text)");
        /* A run that was killed has nothing worth comparing, let alone blessing. */
        if (r.status != -1)
            text = xstrdup(r.out);
        run_free(&r);
    } else {
        fail("cannot run %s", x->gpudoctor);
    }
    return text;
}

/* A case that cannot hold on Windows is skipped there, with its reason (posix-only:). */
static bool skip_posix_only(const char *why)
{
#ifdef _WIN32
    if (why) {
        printf("skipped: posix-only: %s\n", why);
        return true;
    }
#else
    (void)why;
#endif
    return false;
}

static int run_case(const struct ctx *x)
{
    struct case_def c;
    if (!load_named_case(x, "tests/e2e", &c))
        return 2;
    if (skip_posix_only(c.posix_only)) {
        case_free(&c);
        return EXIT_SKIP;
    }
    char *root = prepare_root(x, &c);
    if (!root && skip_reason) {
        printf("skipped: %s\n", skip_reason);
        case_free(&c);
        return EXIT_SKIP;
    }
    if (!root) {
        if (!failures)
            fail("cannot resolve the root %s: %s", c.root, strerror(errno));
        case_free(&c);
        return 1;
    }

    char *argv[ARGS_MAX + 16];
    size_t n = 0;
    argv[n++] = (char *)x->gpudoctor;
    argv[n++] = "check";
    argv[n++] = "--root";
    argv[n++] = root;
    size_t format_at = n;
    argv[n++] = "--json";
    for (size_t i = 0; i < c.nargs; i++)
        argv[n++] = c.args[i];
    argv[n] = NULL;
    char *text = run_both(x, &c, argv, n, format_at);
    if (text) {
        char *normal = normalise(text, root, "@ROOT@");
        check_golden(x, normal);
        free(normal);
        free(text);
    }
    free(root);
    case_free(&c);
    return failures ? 1 : 0;
}

/* ---- one command with a golden output -------------------------------------------------------- */

/* tests/e2e/NAME.cmd: `arg WORD` lines (one argv entry each, verbatim, @ROOTS@ the fixture
 * directory), `exit N`, optionally `json` (standard output must be one JSON object) and `stderr
 * TEXT` lines; the standard output is compared with tests/e2e/NAME.out. */
static char *expand(const char *arg, const struct ctx *x);

static int run_cmd(const struct ctx *x)
{
    char *dir = path_join(x->src, "tests/e2e");
    struct sb file = { 0 };
    sb_printf(&file, "%s/%s.cmd", dir, x->name);
    free(dir);
    char *text = read_all(file.p, NULL);
    if (!text) {
        printf("cannot read %s: %s\n", file.p, strerror(errno));
        free(file.p);
        return 2;
    }
    char *argv[ARGS_MAX];
    char *err_has[ITEMS_MAX];
    size_t n = 0, nerr = 0;
    int status = -1;
    bool json = false, ok = true;
    char *posix_only = NULL;
    argv[n++] = xstrdup(x->gpudoctor);
    size_t lineno = 0;
    for (char *line = text, *next; ok && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        if (!*line || line[0] == '#')
            continue;
        if (strncmp(line, "arg ", 4) == 0 && n + 1 < ARGS_MAX)
            argv[n++] = expand(line + 4, x);
        else if (strncmp(line, "exit ", 5) == 0)
            status = atoi(line + 5);
        else if (strcmp(line, "json") == 0)
            json = true;
        else if (strncmp(line, "stderr ", 7) == 0 && nerr < ITEMS_MAX)
            err_has[nerr++] = xstrdup(line + 7);
        else if (strncmp(line, "posix-only: ", 12) == 0 && !posix_only)
            posix_only = xstrdup(line + 12);
        else {
            printf("%s:%zu: unknown directive \"%s\"\n", file.p, lineno, line);
            ok = false;
        }
    }
    argv[n] = NULL;
    free(text);
    if (ok && status < 0) {
        printf("%s: a command needs \"exit\"\n", file.p);
        ok = false;
    }
    free(file.p);
    bool skipped = ok && skip_posix_only(posix_only);
    free(posix_only);
    if (ok && !skipped) {
        print_command("$", argv);
        struct run r;
        if (run(argv, x->work, &r)) {
            check_status(&r, status, "gpudoctor");
            check_stderr(&r, err_has, nerr, "gpudoctor");
            if (json) {
                struct json_object *j = json_tokener_parse(r.out);
                if (!j || !json_object_is_type(j, json_type_object))
                    fail("standard output is not a JSON object:\n%s", r.out);
                json_object_put(j);
            }
            if (r.status != -1) {
                char *roots = path_join(x->src, "tests/fixtures/roots");
                char *normal = normalise(r.out, roots, "@ROOTS@");
                check_golden_ext(x, normal, "out");
                free(normal);
                free(roots);
            }
            run_free(&r);
        } else {
            fail("cannot run %s", x->gpudoctor);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(argv[i]);
    for (size_t i = 0; i < nerr; i++)
        free(err_has[i]);
    if (!ok)
        return 2;
    if (skipped)
        return EXIT_SKIP;
    return failures ? 1 : 0;
}

/* ---- this machine -------------------------------------------------------------------------- */

#ifdef _WIN32
/* gpudoctor.exe on this Windows machine (under wine: the build's own prefix). What holds on any
 * Windows without an NVIDIA driver: it is the live machine, it knows it runs on Windows, and
 * the live probe's children (gpudoctor.exe started again, os.h: gd_os_child_serve) ran and
 * found no driver library to load; a child that could not start leaves the facts unknown. */
static int run_live(const struct ctx *x)
{
    char *argv[] = { (char *)x->gpudoctor, "--json", NULL };
    print_command("$", argv);
    struct run r;
    if (!run(argv, x->work, &r)) {
        fail("cannot run %s", x->gpudoctor);
        return 1;
    }
    struct json_object *report = json_tokener_parse(r.out);
    if (!report) {
        fail("the output of --json is not JSON:\n%s", r.out);
        run_free(&r);
        return 1;
    }
    /* The children load the Windows driver's DLLs by name (the driver probe found none in
     * System32 or the NVSMI folder): the facts name the DLL each tried. */
    static const char *const want[] = {
        "host.live = true",
        "host.os.id = windows",
        "cuda_driver.init = absent (nvcuda.dll could not be loaded) [call cuInit]",
        "nvml.init = absent (nvml.dll could not be loaded) [call nvmlInit_v2]",
        "cuda_driver.library = absent (*)",
        "nvml.library = absent (*)",
        "driver.nvcuda.path = absent (*)",
        "driver.nvml.path = absent (*)",
    };
    if (r.status != 0 && r.status != 1)
        fail("gpudoctor on this machine exited with %d", r.status);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const char *eq = strstr(want[i], " = ");
        char *label = xstrndup(want[i], (size_t)(eq - want[i]));
        struct json_object *fact = entity_fact(report, label);
        if (!fact) {
            fail("the report has no fact %s", label);
        } else if (!fact_matches(label, fact, want[i])) {
            char *actual = render_fact(label, fact, true);
            fail("expected the fact \"%s\", the report has \"%s\"", want[i], actual);
            free(actual);
        }
        free(label);
    }
    /* The loader's message and the call name the DLL that was tried. */
    static const char *const tried[][2] = { { "cuda_driver.library", "nvcuda.dll" },
                                            { "nvml.library", "nvml.dll" } };
    for (size_t i = 0; i < 2; i++) {
        struct json_object *fact = entity_fact(report, tried[i][0]), *source = NULL;
        char call[64];
        snprintf(call, sizeof call, "dlopen(%s)", tried[i][1]);
        if (!fact)
            continue; /* said above */
        json_object_object_get_ex(fact, "source", &source);
        if (!strstr(str_field(fact, "reason"), tried[i][1]) ||
            strcmp(source ? str_field(source, "ref") : "", call) != 0) {
            char *actual = render_fact(tried[i][0], fact, true);
            fail("expected %s to name %s in its reason and source, the report has \"%s\"",
                 tried[i][0], tried[i][1], actual);
            free(actual);
        }
    }
    struct json_object *all = NULL;
    if (json_object_object_get_ex(report, "findings", &all))
        check_invariants(all);
    json_object_put(report);
    run_free(&r);
    return failures ? 1 : 0;
}
#else

/* Where distributions, NVIDIA's installer and the container toolkit put libcuda.so.1 (the list
 * gpudoctor's driver probe searches). */
static const char *const driver_lib_dirs[] = {
    "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
    "/usr/local/nvidia/lib64",   "/usr/local/nvidia/lib"
};

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < n && hay[k] && tolower((unsigned char)hay[k]) == needle[k])
            k++;
        if (k == n)
            return true;
    }
    return false;
}

/* Why this machine is not one without an NVIDIA driver, or NULL when it is one. */
static const char *has_driver(char *buf, size_t size)
{
    struct stat st;
    if (lstat("/proc/driver/nvidia/version", &st) == 0)
        return "/proc/driver/nvidia/version exists: the NVIDIA kernel module is loaded";
    if (lstat("/sys/module/nvidia", &st) == 0)
        return "/sys/module/nvidia exists: the NVIDIA kernel module is loaded";
    char *modules = read_all("/proc/modules", NULL);
    bool listed = modules && (strncmp(modules, "nvidia ", 7) == 0 || strstr(modules, "\nnvidia "));
    free(modules);
    if (listed)
        return "/proc/modules lists nvidia";
    for (size_t i = 0; i < sizeof driver_lib_dirs / sizeof *driver_lib_dirs; i++) {
        snprintf(buf, size, "%s/libcuda.so.1", driver_lib_dirs[i]);
        if (lstat(buf, &st) == 0) {
            snprintf(buf, size,
                     "%s/libcuda.so.1 exists: the NVIDIA driver's libraries are "
                     "installed",
                     driver_lib_dirs[i]);
            return buf;
        }
    }
    char *version = read_all("/proc/version", NULL);
    bool wsl = version && contains_ci(version, "microsoft");
    free(version);
    if (wsl || lstat("/usr/lib/wsl/lib", &st) == 0)
        return "this is WSL, where the Windows driver serves the GPU";
    return NULL;
}

static int run_live(const struct ctx *x)
{
    char buf[PATH_MAX + 128];
    const char *why = has_driver(buf, sizeof buf);
    if (why) {
        printf("skipped: this machine is not one without an NVIDIA driver (%s)\n", why);
        return EXIT_SKIP;
    }
    char *argv[] = { (char *)x->gpudoctor, "--json", NULL };
    print_command("$", argv);
    struct run r;
    if (!run(argv, x->work, &r)) {
        fail("cannot run %s", x->gpudoctor);
        return 1;
    }
    check_status(&r, 1, "gpudoctor --json on this machine");
    check_stderr(&r, NULL, 0, "gpudoctor --json on this machine");
    struct case_def c;
    memset(&c, 0, sizeof c);
    c.finding_id[c.nfinding] = xstrdup("driver.not-installed");
    c.finding_sev[c.nfinding++] = xstrdup("error");
    static const char *const evidence[] = {
        "driver.kernel_module.version = absent [file /proc/driver/nvidia/version]",
        "driver.module.nvidia.loaded = false",
        "driver.libcuda.path = absent (no libcuda.so.1 in the driver library directories)",
        "devices.nvidiactl.present = false [path /dev/nvidiactl]",
    };
    for (size_t i = 0; i < sizeof evidence / sizeof *evidence; i++) {
        c.evidence_id[c.nevidence] = xstrdup("driver.not-installed");
        c.evidence_text[c.nevidence++] = xstrdup(evidence[i]);
    }
    c.reject[c.nreject++] = xstrdup("driver.ok");
    c.fact[c.nfact++] = xstrdup("host.live = true");
    c.fact[c.nfact++] = xstrdup("host.root = /");
    struct json_object *report = json_tokener_parse(r.out);
    if (!report)
        fail("the output of --json is not JSON:\n%s", r.out);
    else
        check_findings(&c, report);
    json_object_put(report);
    run_free(&r);
    case_free(&c);

    /* The default command and renderer say the same. */
    char *text_argv[] = { (char *)x->gpudoctor, "--color", "never", NULL };
    print_command("$", text_argv);
    if (run(text_argv, x->work, &r)) {
        check_status(&r, 1, "gpudoctor on this machine");
        if (!strstr(r.out, "[driver.not-installed]"))
            fail("the text output lacks [driver.not-installed]:\n%s", r.out);
        run_free(&r);
    }
    return failures ? 1 : 0;
}

#endif

/* ---- fake NVIDIA libraries ----------------------------------------------------------------- */

#ifdef _WIN32
static int run_fake(const struct ctx *x)
{
    (void)x;
    printf("skipped: the fake NVIDIA libraries (tests/fakes) are Linux shared objects\n");
    return EXIT_SKIP;
}
#else

extern char **environ;

/* The directory of the fake libraries (tests/fakes/CMakeLists.txt). New memory. */
static char *fakes_dir(const struct ctx *x)
{
    return path_join(x->build, "tests/fakes/lib");
}

/* `dir` made and filled with links to every fake except the hidden ones. */
static bool fakes_without(const struct ctx *x, const struct case_def *c, const char *dir)
{
    char *fakes = fakes_dir(x);
    static const char *const names[] = { "libcuda.so.1",    "libnvidia-ml.so.1", "libcudart.so.13",
                                         "libcublas.so.13", "libcudnn.so.9",     "libnccl.so.2" };
    bool ok = mkdir(dir, 0755) == 0 || errno == EEXIST;
    for (size_t i = 0; ok && i < sizeof names / sizeof *names; i++) {
        bool hidden = false;
        for (size_t k = 0; k < c->nhide; k++)
            hidden |= strcmp(c->hide[k], names[i]) == 0;
        if (hidden)
            continue;
        char *target = path_join(fakes, names[i]), *link = path_join(dir, names[i]);
        ok = symlink(target, link) == 0;
        if (!ok)
            fail("cannot link %s: %s", link, strerror(errno));
        free(target);
        free(link);
    }
    free(fakes);
    return ok;
}

/* gpudoctor's environment for a fake case. */
static bool fake_environment(const struct ctx *x, const struct case_def *c)
{
    /* The developer's own settings must not leak into the case. */
    for (bool again = true; again;) {
        again = false;
        for (char **e = environ; e && *e; e++) {
            if (strncmp(*e, "FAKE_", 5) == 0 || strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21) == 0 ||
                strncmp(*e, "CUDA_DEVICE_ORDER=", 18) == 0) {
                char *name = xstrndup(*e, strcspn(*e, "="));
                unsetenv(name);
                free(name);
                again = true;
                break;
            }
        }
    }
    struct sb path = { 0 };
    sb_puts(&path, "");
    char *fakes = fakes_dir(x);
    if (c->nliblink) {
        char *dir = path_join(x->work, "links");
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            fail("mkdir %s: %s", dir, strerror(errno));
        for (size_t i = 0; i < c->nliblink; i++) {
            const char *target;
            char *name = first_word(c->liblink[i], &target);
            char *link = path_join(dir, name);
            if (symlink(target, link) != 0)
                fail("cannot link %s -> %s: %s", link, target, strerror(errno));
            free(link);
            free(name);
        }
        sb_printf(&path, "%s", dir);
        free(dir);
    }
    for (size_t i = 0; i < c->nlibdir; i++) {
        char *dir = c->libdir[i][0] == '/' ? xstrdup(c->libdir[i]) : path_join(fakes, c->libdir[i]);
        sb_printf(&path, "%s%s", path.len ? ":" : "", dir);
        free(dir);
    }
    if (!c->nofakes && c->nhide) {
        char *dir = path_join(x->work, "fakes");
        if (fakes_without(x, c, dir))
            sb_printf(&path, "%s%s", path.len ? ":" : "", dir);
        free(dir);
    } else if (!c->nofakes) {
        sb_printf(&path, "%s%s", path.len ? ":" : "", fakes);
    }
    free(fakes);
    if (path.len)
        setenv("LD_LIBRARY_PATH", path.p, 1);
    else
        unsetenv("LD_LIBRARY_PATH");
    printf("LD_LIBRARY_PATH=%s\n", path.p);
    free(path.p);
    for (size_t i = 0; i < c->nsetenv; i++) {
        char *eq = strchr(c->setenv_[i], '=');
        if (!eq) {
            fail("setenv %s: not NAME=VALUE", c->setenv_[i]);
            return false;
        }
        *eq = '\0';
        setenv(c->setenv_[i], eq + 1, 1);
        printf("%s=%s\n", c->setenv_[i], eq + 1);
        *eq = '=';
    }
    return failures == 0;
}

static int run_fake(const struct ctx *x)
{
    fake_mode = true;
    struct case_def c;
    if (!load_named_case(x, "tests/e2e/fakes", &c))
        return 2;
    /* @FAKES@ names the fakes' directory, @WORK@ the case's work directory (where the links of
     * `hide` and `link` are made), in facts, evidence, standard error and arguments. */
    char *fakes = fakes_dir(x);
    char **texts[] = { c.fact, c.evidence_text, c.err_has, c.args };
    size_t counts[] = { c.nfact, c.nevidence, c.nerr, c.nargs };
    for (size_t l = 0; l < 4; l++)
        for (size_t i = 0; i < counts[l]; i++) {
            char *a = replace_all(texts[l][i], "@FAKES@", fakes);
            char *b = replace_all(a, "@WORK@", x->work);
            free(a);
            free(texts[l][i]);
            texts[l][i] = b;
        }
    free(fakes);
    char buf[PATH_MAX + 128];
    const char *why = c.requires_no_driver ? has_driver(buf, sizeof buf) : NULL;
    struct stat st;
    for (size_t i = 0; !why && i < c.nrequires; i++)
        if (stat(c.requires_[i], &st) != 0)
            why = c.requires_[i];
    if (why) {
        printf("skipped: this machine lacks what the case needs (%s)\n", why);
        case_free(&c);
        return EXIT_SKIP;
    }
    if (!fake_environment(x, &c)) {
        case_free(&c);
        return 1;
    }
    const char *command = c.command ? c.command : "check";
    char *argv[ARGS_MAX + 16];
    size_t n = 0;
    argv[n++] = (char *)x->gpudoctor;
    argv[n++] = (char *)command;
    size_t format_at = n;
    argv[n++] = "--json";
    for (size_t i = 0; i < c.nargs; i++)
        argv[n++] = c.args[i];
    argv[n] = NULL;
    /* No golden: the machine's own facts are part of the report. */
    free(run_both(x, &c, argv, n, format_at));
    case_free(&c);
    return failures ? 1 : 0;
}
#endif

/* ---- the command line ---------------------------------------------------------------------- */

/* In args: @ROOT@ a healthy fixture root, @ROOTS@ the fixture directory, @OUT@ a file of the
 * work directory, @WORK@ the work directory, @SRC@ the source tree, @E2E@ this runner (which
 * `say TEXT STATUS` makes a command that prints TEXT and exits with STATUS). */
struct cli_test {
    const char *name;
    const char *args[12];
    int status;
    const char *out_has[4]; /* stdout must contain each; NULL: stdout must be empty */
    const char *err_has[4]; /* stderr must contain each; NULL: stderr must be empty */
    const char *file_has;   /* @OUT@ must exist and contain this */
    bool json;              /* stdout must parse as one JSON object */
    const char *posix_only; /* why it cannot hold on Windows (skipped there), or NULL */
};

static const struct cli_test cli_tests[] = {
    { .name = "unknown-option",
      .args = { "check", "--bogus" },
      .status = 2,
      .err_has = { "gpudoctor check: unknown option '--bogus'", "Try 'gpudoctor check --help'" } },
    { .name = "unknown-option-default-command",
      .args = { "--root", "@ROOT@", "--verbos" },
      .status = 2,
      .err_has = { "unknown option '--verbos'" } },
    { .name = "unexpected-argument",
      .args = { "check", "extra" },
      .status = 2,
      .err_has = { "unexpected argument 'extra'" } },
    { .name = "unknown-command",
      .args = { "frobnicate" },
      .status = 2,
      .err_has = { "unknown command 'frobnicate'" } },
    { .name = "missing-value",
      .args = { "check", "--root" },
      .status = 2,
      .err_has = { "--root needs a value" } },
    { .name = "missing-value-env",
      .args = { "--root", "@ROOT@", "--env" },
      .status = 2,
      .err_has = { "--env needs a value" } },
    { .name = "missing-value-output",
      .args = { "--root", "@ROOT@", "-o" },
      .status = 2,
      .err_has = { "-o needs a value" } },
    { .name = "root-not-directory",
      .args = { "--root", "@ROOTS@/ubuntu-550/proc/version" },
      .status = 2,
      .err_has = { "not a directory" } },
    { .name = "root-missing",
      .args = { "--root", "@WORK@/no-such-root" },
      .status = 2,
      .err_has = { "no such file or directory" } },
    { .name = "bad-format",
      .args = { "--root", "@ROOT@", "--format", "yaml" },
      .status = 2,
      .err_has = { "unknown format 'yaml'" } },
    { .name = "bad-color",
      .args = { "--root", "@ROOT@", "--color", "sometimes" },
      .status = 2,
      .err_has = { "--color takes auto, always or never, not 'sometimes'" } },
    { .name = "bad-env",
      .args = { "--root", "@ROOT@", "--env", "CUDA_HOME" },
      .status = 2,
      .err_has = { "--env takes NAME=VALUE, not 'CUDA_HOME'" } },
    { .name = "import-timeout-zero",
      .args = { "--root", "@ROOT@", "--import", "--import-timeout", "0" },
      .status = 2,
      .err_has = { "--import-timeout takes whole seconds from 1 to 3600, not '0'" } },
    { .name = "import-timeout-junk",
      .args = { "--root", "@ROOT@", "--import-timeout=10s" },
      .status = 2,
      .err_has = { "--import-timeout takes whole seconds from 1 to 3600, not '10s'" } },
    { .name = "import-bad-value",
      .args = { "--root", "@ROOT@", "--import=some" },
      .status = 2,
      .err_has = { "--import takes no value or 'all', not 'some'" } },
    { .name = "import-foreign-root",
      .args = { "--root", "@ROOT@", "--import", "all", "--import-timeout", "5", "--json" },
      .status = 0,
      .out_has = { "\"kind\": \"imports\"", "\"value\": \"all\"", "\"timeout_s\": {",
                   "\"value\": 5," } },
    { .name = "env-file-missing",
      .args = { "--root", "@ROOT@", "--env-file", "@WORK@/missing.env" },
      .status = 2,
      .err_has = { "--env-file '", "missing.env': no such file or directory" } },
    { .name = "env-file-malformed",
      .args = { "--root", "@ROOT@", "--env-file", "@SRC@/tests/e2e/cli-malformed.env", "--json" },
      .status = 0,
      .out_has = { "\"CUDA_VISIBLE_DEVICES\": {", "\"value\": \"0,1\"" },
      .err_has = { "cli-malformed.env: 2 malformed lines skipped" } },
    { .name = "format-prometheus",
      .args = { "--root", "@ROOT@", "--format", "prometheus" },
      .status = 0,
      .out_has = { "# TYPE gpudoctor_finding gauge\n",
                   "gpudoctor_finding{id=\"driver.ok\",severity=\"ok\"} 1\n",
                   "gpudoctor_findings{severity=\"error\"} 0\n", "gpudoctor_worst_severity 0\n" } },
    { .name = "format-markdown",
      .args = { "--root", "@ROOT@", "--format=markdown" },
      .status = 0,
      .out_has = { "## gpudoctor report\n", "0 error(s), 0 warning(s), 0 info, 2 ok",
                   "| NVIDIA driver 550.54.14 is loaded; kernel module and libcuda match | "
                   "`driver.ok` |" },
      .posix_only = "the driver's version comes from libcuda.so.1 -> libcuda.so.550.54.14; a "
                    "Windows checkout has no Unix symlinks, and wine 8 reads one as the file it "
                    "points to" },
    { .name = "format-json-exit-1",
      .args = { "--root", "@ROOTS@/no-driver", "--format", "json" },
      .status = 1,
      .out_has = { "\"schema\": \"gpudoctor.report/1\"", "\"id\": \"driver.not-installed\"" } },
    { .name = "output-file",
      .args = { "--root", "@ROOT@", "--format", "prometheus", "-o", "@OUT@" },
      .status = 0,
      .file_has = "gpudoctor_finding{id=\"devices.ok\",severity=\"ok\"} 1\n" },
    { .name = "output-file-long",
      .args = { "--root", "@ROOT@", "--json", "--output=@OUT@" },
      .status = 0,
      .file_has = "\"schema\": \"gpudoctor.report/1\"" },
    { .name = "output-unwritable",
      .args = { "--root", "@ROOT@", "-o", "@WORK@/no-such-dir/report.txt" },
      .status = 2,
      .err_has = { "cannot write", "no-such-dir/report.txt" } },
    { .name = "help", .args = { "--help" }, .status = 0, .out_has = { "Usage: gpudoctor" } },
    { .name = "check-help",
      .args = { "check", "--help" },
      .status = 0,
      .out_has = { "Usage: gpudoctor [check] [OPTIONS]", "--root DIR", "--env-file FILE" } },
    { .name = "version", .args = { "--version" }, .status = 0, .out_has = { "gpudoctor " } },
    { .name = "check-timeout-bad",
      .args = { "--root", "@ROOT@", "--timeout", "1x" },
      .status = 2,
      .err_has = { "gpudoctor check: --timeout takes seconds from 1 to 86400, not '1x'" } },
    /* gpudoctor test */
    { .name = "test-help",
      .args = { "test", "--help" },
      .status = 0,
      .out_has = { "Usage: gpudoctor test [OPTIONS]", "--timeout SECONDS", "--progress WHEN",
                   "Exit status: 0 every test passed" } },
    { .name = "test-timeout-bad",
      .args = { "test", "--timeout", "0" },
      .status = 2,
      .err_has = { "gpudoctor test: --timeout takes seconds from 1 to 86400, not '0'" } },
    { .name = "test-progress-bad",
      .args = { "test", "--progress", "sometimes" },
      .status = 2,
      .err_has = { "gpudoctor test: --progress takes auto, always or never, not 'sometimes'" } },
    { .name = "test-unknown-option",
      .args = { "test", "--calls" },
      .status = 2,
      .err_has = { "gpudoctor test: unknown option '--calls'", "Try 'gpudoctor test --help'" } },
    /* gpudoctor which */
    { .name = "which-no-name",
      .args = { "which", "--root", "@ROOT@" },
      .status = 2,
      .err_has = { "gpudoctor which: which library? Give a NAME, --tree ELF or --ldd ELF",
                   "Try 'gpudoctor which --help'" } },
    { .name = "which-two-modes",
      .args = { "which", "--root", "@ROOT@", "libcudart.so.12", "--ldd", "/usr/bin/python3" },
      .status = 2,
      .err_has = { "gpudoctor which: give one of NAME, --tree ELF and --ldd ELF" } },
    { .name = "which-tree-and-ldd",
      .args = { "which", "--tree", "/usr/bin/python3", "--ldd", "/usr/bin/python3" },
      .status = 2,
      .err_has = { "give one of NAME, --tree ELF and --ldd ELF" } },
    { .name = "which-dlopen-without-from",
      .args = { "which", "--os", "linux", "libcudnn.so.9", "--dlopen" },
      .status = 2,
      .err_has = { "gpudoctor which: --dlopen needs --from ELF" } },
    { .name = "which-from-with-tree",
      .args = { "which", "--os", "linux", "--tree", "/usr/bin/python3", "--from",
                "/usr/bin/python3" },
      .status = 2,
      .err_has = { "gpudoctor which: --from and --dlopen apply to a NAME" } },
    { .name = "which-unknown-option",
      .args = { "which", "libcudnn.so.9", "--bogus" },
      .status = 2,
      .err_has = { "gpudoctor which: unknown option '--bogus'" } },
    { .name = "which-unexpected-argument",
      .args = { "which", "libcudnn.so.9", "libcudnn.so.8" },
      .status = 2,
      .err_has = { "gpudoctor which: unexpected argument 'libcudnn.so.8'" } },
    { .name = "which-missing-value",
      .args = { "which", "--tree" },
      .status = 2,
      .err_has = { "--tree needs a value" } },
    { .name = "which-not-elf",
      .args = { "which", "--root", "@ROOT@", "--tree", "/etc/os-release" },
      .status = 2,
      .err_has = { "gpudoctor which: /etc/os-release: not an ELF file we can read" } },
    { .name = "which-from-not-elf",
      .args = { "which", "--root", "@ROOT@", "libc.so.6", "--from", "/proc/version" },
      .status = 2,
      .err_has = { "gpudoctor which: /proc/version: not an ELF file we can read" } },
    { .name = "which-from-missing",
      .args = { "which", "--root", "@ROOT@", "libc.so.6", "--from", "/usr/bin/none" },
      .status = 2,
      .err_has = { "gpudoctor which: /usr/bin/none: no such file or directory" } },
    { .name = "which-not-found",
      .args = { "which", "--root", "@ROOT@", "--no-env", "libnothere.so.1" },
      .status = 1,
      .out_has = { "libnothere.so.1 => not found\n",
                   "  default path      /usr/lib/x86_64-linux-gnu/libnothere.so.1  not there\n" } },
    /* Windows: options of the Windows search on a Linux tree, glibc's --dlopen on Windows. */
    { .name = "which-windows-option-on-linux",
      .args = { "which", "--root", "@ROOT@", "libc.so.6", "--dll-dir", "C:\\x" },
      .status = 2,
      .err_has = { "gpudoctor which: --app, --cwd, --dll-dir, --mode and --path are for "
                   "Windows" } },
    { .name = "which-windows-dlopen",
      .args = { "which", "--os", "windows", "--root", "@ROOT@", "--from", "/x.dll", "--dlopen",
                "a.dll" },
      .status = 2,
      .err_has = { "gpudoctor which: --dlopen is glibc's" } },
    { .name = "which-windows-bad-mode",
      .args = { "which", "--os", "windows", "a.dll", "--mode", "safe" },
      .status = 2,
      .err_has = { "gpudoctor which: --mode takes extension or standard, not 'safe'" } },
    { .name = "which-windows-not-pe",
      .args = { "which", "--os", "windows", "--root", "@ROOT@", "--tree", "/etc/os-release" },
      .status = 2,
      .err_has = { "gpudoctor which: /etc/os-release: not a PE image we can read" } },
    /* ubuntu-550's libraries are empty files: the loader stops at the first one it meets. */
    { .name = "which-json",
      .args = { "which", "--root", "@ROOT@", "--json", "--env", "LD_LIBRARY_PATH=/opt/none",
                "libcuda.so.1" },
      .status = 1,
      .json = true,
      .out_has = { "\"schema\": \"gpudoctor.which/1\"", "\"ok\": false",
                   "\"ld_library_path\": \"/opt/none\"",
                   "\"error\": \"/lib/x86_64-linux-gnu/libcuda.so.1: file too short\"" } },
    { .name = "which-help",
      .args = { "which", "--help" },
      .status = 0,
      .out_has = { "Usage: gpudoctor which NAME [--from ELF] [--dlopen]", "--ldd ELF" } },
    /* gpudoctor compat and plan */
    { .name = "compat-no-spec",
      .args = { "compat", "--driver", "470.82" },
      .status = 2,
      .err_has = { "gpudoctor compat: what should be checked? Give NAME, NAME==VERSION or a GPU "
                   "model",
                   "Try 'gpudoctor compat --help'" } },
    { .name = "compat-unknown-name",
      .args = { "compat", "tensorflo==2.15", "--os", "linux" },
      .status = 2,
      .err_has = { "gpudoctor compat: unknown name 'tensorflo' (compat knows tensorflow, torch "
                   "(pytorch), jax, cuda, cudnn; a GPU is named without '==')" } },
    { .name = "compat-range",
      .args = { "compat", "tensorflow>=2.15", "--os", "linux" },
      .status = 2,
      .err_has = { "'tensorflow>=2.15': only NAME==VERSION or a bare NAME is understood" } },
    { .name = "compat-bad-version",
      .args = { "compat", "cuda==twelve", "--os", "linux" },
      .status = 2,
      .err_has = { "gpudoctor compat: 'twelve' is not a version" } },
    { .name = "compat-bad-driver",
      .args = { "compat", "cuda==12.4", "--driver", "latest" },
      .status = 2,
      .err_has = { "--driver takes a driver version (470.82, 535.104.05), not 'latest'" } },
    { .name = "compat-bad-cc",
      .args = { "compat", "cuda==12.4", "--cc", "sm_86" },
      .status = 2,
      .err_has = { "--cc takes a compute capability such as 3.7 or 8.6, not 'sm_86'" } },
    { .name = "compat-bad-os",
      .args = { "compat", "cuda==12.4", "--os", "macos" },
      .status = 2,
      .err_has = { "--os takes linux or windows, not 'macos'" } },
    { .name = "compat-two-specs",
      .args = { "compat", "Tesla", "K80", "--os", "linux" },
      .status = 2,
      .err_has = { "unexpected argument 'K80' (quote a GPU model with spaces)" } },
    { .name = "compat-unknown-option",
      .args = { "compat", "cuda==12.4", "--gpus", "2" },
      .status = 2,
      .err_has = { "gpudoctor compat: unknown option '--gpus'" } },
    { .name = "compat-missing-value",
      .args = { "compat", "cuda==12.4", "--driver" },
      .status = 2,
      .err_has = { "--driver needs a value" } },
    { .name = "compat-root-missing",
      .args = { "compat", "cuda==12.4", "--root", "@WORK@/no-such-root" },
      .status = 2,
      .err_has = { "--root '", "no such file or directory" } },
    { .name = "compat-help",
      .args = { "compat", "--help" },
      .status = 0,
      .out_has = { "Usage: gpudoctor compat NAME[==VERSION] [OPTIONS]", "--driver VERSION",
                   "Exit status: 0 it can run it, 1 it cannot, 3" } },
    { .name = "compat-json-exit-3",
      .args = { "compat", "tensorflow==9.9", "--os", "linux", "--json" },
      .status = 3,
      .json = true,
      .out_has = { "\"schema\": \"gpudoctor.compat/1\"", "\"verdict\": \"unknown\"" } },
    { .name = "plan-no-framework",
      .args = { "plan", "--os", "linux" },
      .status = 2,
      .err_has = { "gpudoctor plan: which framework? Give tensorflow, torch or jax" } },
    { .name = "plan-unknown-framework",
      .args = { "plan", "caffe", "--os", "linux" },
      .status = 2,
      .err_has = { "gpudoctor plan: 'caffe' is not a framework plan knows (tensorflow, torch, "
                   "jax)" } },
    /* gpudoctor explain --run: the command's output passed through, its status kept, its log
     * explained. The command is this runner (`gd_e2e say TEXT STATUS`), a program on every
     * platform; tests/e2e/explain_e2e.c has the POSIX build's cases around sh. */
    { .name = "explain-run",
      .args = { "explain", "--no-probe", "--color", "never", "--run", "--", "@E2E@", "say",
                "RuntimeError: CUDA error: invalid device ordinal", "3" },
      .status = 3,
      .out_has = { "RuntimeError: CUDA error: invalid device ordinal\n" },
      .err_has = { "exited with status 3", "[invalid-device-ordinal]" } },
    { .name = "plan-help",
      .args = { "plan", "-h" },
      .status = 0,
      .out_has = { "Usage: gpudoctor plan FRAMEWORK [OPTIONS]", "--cc X.Y" } },
};

/* This runner's own path (@E2E@): a program to run on every platform. */
static const char *runner;

static char *expand(const char *arg, const struct ctx *x)
{
    char *roots = path_join(x->src, "tests/fixtures/roots");
    char *root = path_join(roots, "ubuntu-550");
    char *out = path_join(x->work, "out");
    /* @ROOTS@ before @ROOT@, which is its prefix. */
    char *a = replace_all(arg, "@ROOTS@", roots);
    char *b = replace_all(a, "@ROOT@", root);
    char *c = replace_all(b, "@OUT@", out);
    char *d = replace_all(c, "@WORK@", x->work);
    char *f = replace_all(d, "@SRC@", x->src);
    char *e = replace_all(f, "@E2E@", runner);
    free(f);
    free(roots);
    free(root);
    free(out);
    free(a);
    free(b);
    free(c);
    free(d);
    return e;
}

static void check_has(const char *text, const char *const has[4], const char *what)
{
    if (!has[0] && *text)
        fail("%s should be empty, it holds:\n%s", what, text);
    for (size_t i = 0; i < 4 && has[i]; i++)
        if (!strstr(text, has[i]))
            fail("%s lacks \"%s\"; it holds:\n%s", what, has[i], text);
}

static int run_cli(const struct ctx *x)
{
    const struct cli_test *t = NULL;
    for (size_t i = 0; i < sizeof cli_tests / sizeof *cli_tests; i++)
        if (strcmp(cli_tests[i].name, x->name) == 0)
            t = &cli_tests[i];
    if (!t) {
        printf("no command-line test named %s\n", x->name);
        return 2;
    }
    if (skip_posix_only(t->posix_only))
        return EXIT_SKIP;
    char *argv[16];
    size_t n = 0;
    argv[n++] = xstrdup(x->gpudoctor);
    for (size_t i = 0; i < 12 && t->args[i]; i++)
        argv[n++] = expand(t->args[i], x);
    argv[n] = NULL;
    print_command("$", argv);
    struct run r;
    if (run(argv, x->work, &r)) {
        check_status(&r, t->status, "gpudoctor");
        check_has(r.out, t->out_has, "standard output");
        check_has(r.err, t->err_has, "standard error");
        if (t->json) {
            struct json_object *j = json_tokener_parse(r.out);
            if (!j || !json_object_is_type(j, json_type_object))
                fail("standard output is not a JSON object:\n%s", r.out);
            json_object_put(j);
        }
        run_free(&r);
    } else {
        fail("cannot run %s", x->gpudoctor);
    }
    char *out = path_join(x->work, "out");
    char *tmp = path_join(x->work, "out.tmp");
    if (t->file_has) {
        char *data = read_all(out, NULL);
        if (!data)
            fail("-o did not write %s: %s", out, strerror(errno));
        else if (!strstr(data, t->file_has))
            fail("%s lacks \"%s\"; it holds:\n%s", out, t->file_has, data);
        free(data);
    }
    if (access(tmp, F_OK) == 0)
        fail("%s was left behind", tmp);
    free(out);
    free(tmp);
    for (size_t i = 0; i < n; i++)
        free(argv[i]);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    /* The command of the explain-run test: TEXT on standard output, then STATUS. */
    if (argc == 4 && strcmp(argv[1], "say") == 0) {
        printf("%s\n", argv[2]);
        return atoi(argv[3]);
    }
#ifdef _WIN32
    static char self[MAX_PATH + 1];
    DWORD n = GetModuleFileNameA(NULL, self, sizeof self);
    runner = n > 0 && n < sizeof self ? self : argv[0];
#else
    runner = argv[0];
#endif
    if (argc != 7) {
        fprintf(stderr,
                "usage: gd_e2e case|live|cli|fake|cmd NAME GPUDOCTOR SRCDIR BUILDDIR WORKDIR\n");
        return 2;
    }
    const char *mode = argv[1];
    char *work = path_join(argv[6], argv[2]);
    struct ctx x = { argv[2], argv[3], argv[4], argv[5], work };
    int rc = 2;
    if (!fresh_dir(work))
        goto out;
    if (strcmp(mode, "case") == 0)
        rc = run_case(&x);
    else if (strcmp(mode, "live") == 0)
        rc = run_live(&x);
    else if (strcmp(mode, "cli") == 0)
        rc = run_cli(&x);
    else if (strcmp(mode, "fake") == 0)
        rc = run_fake(&x);
    else if (strcmp(mode, "cmd") == 0)
        rc = run_cmd(&x);
    else
        fprintf(stderr, "gd_e2e: unknown mode %s\n", mode);
    if (rc == 0)
        printf("ok: %s\n", x.name);
    else if (rc == 1)
        printf("%d check%s failed\n", failures, failures == 1 ? "" : "s");
out:
    free(work);
    return rc;
}
