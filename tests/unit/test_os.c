/* src/os through its interface alone, the same test on every platform: the POSIX build runs it
 * natively, the mingw build under wine (tests/windows.cmake), so that os_win32.c answers as
 * os_posix.c does. Child programs are this test program itself, started again with a role as
 * its first argument (no shell or system program whose behaviour differs between systems). */
#include "core/alloc.h"
#include "core/env.h"
#include "os/childfn.h"
#include "os/os.h"
#include "os/run.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const char *self; /* this program's path, from the command line of the test */

/* ---- the roles of the child ------------------------------------------------------------------ */

static int child_role(int argc, char **argv)
{
    const char *role = argv[1];
    if (strcmp(role, "--echo") == 0) {
        /* Every argument back, one a line, each between brackets: quoting shows. */
        for (int i = 2; i < argc; i++)
            printf("[%s]\n", argv[i]);
        fprintf(stderr, "to stderr\n");
        return 0;
    }
    if (strcmp(role, "--env") == 0) {
        const char *v = getenv("GD_TEST_VAR");
        printf("%s\n", v ? v : "(unset)");
        return 0;
    }
    if (strcmp(role, "--exit") == 0)
        return atoi(argv[2]);
    if (strcmp(role, "--hang") == 0) {
        for (;;)
            ;
    }
    if (strcmp(role, "--tee") == 0) {
        printf("to stdout\n");
        fflush(stdout);
        fprintf(stderr, "to stderr\n");
        return 3;
    }
    if (strcmp(role, "--trap") == 0)
        __builtin_trap(); /* SIGILL on Linux, STATUS_ILLEGAL_INSTRUCTION on Windows */
    return 100;
}

/* ---- files and directories ------------------------------------------------------------------- */

static void test_read_file(void **state)
{
    (void)state;
    const char *path = GD_SOURCE_DIR "/src/os/os.h";
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char want[1 << 16];
    size_t want_len = fread(want, 1, sizeof want, f);
    fclose(f);
    assert_true(want_len > 100);

    struct gd_os_file *file = NULL;
    assert_int_equal(gd_os_open_read(path, true, &file), GD_OK);
    struct gd_os_stat st;
    assert_int_equal(gd_os_file_stat(file, &st), GD_OK);
    assert_int_equal(st.type, GD_FT_REG);
    assert_int_equal(st.size, want_len);
    char got[64];
    size_t n = 0;
    assert_int_equal(gd_os_pread(file, got, sizeof got, 10, &n), GD_OK);
    assert_int_equal(n, sizeof got);
    assert_memory_equal(got, want + 10, sizeof got);
    /* Past the end: fewer bytes, no error. */
    assert_int_equal(gd_os_pread(file, got, sizeof got, want_len - 5, &n), GD_OK);
    assert_int_equal(n, 5);
    assert_memory_equal(got, want + want_len - 5, 5);
    gd_os_close(file);

    char *data = NULL;
    size_t len = 0;
    assert_int_equal(gd_os_read_file(path, 1 << 20, &data, &len), GD_OK);
    assert_int_equal(len, want_len);
    assert_memory_equal(data, want, len);
    gd_free(data);
    assert_int_equal(gd_os_read_file(path, 10, &data, &len), GD_ELIMIT);
}

static void test_not_files(void **state)
{
    (void)state;
    struct gd_os_stat st;
    assert_int_equal(gd_os_stat(GD_SOURCE_DIR "/src/os", &st), GD_OK);
    assert_int_equal(st.type, GD_FT_DIR);
    assert_int_equal(gd_os_lstat(GD_SOURCE_DIR "/src/os", &st), GD_OK);
    assert_int_equal(st.type, GD_FT_DIR);
    assert_int_equal(gd_os_stat(GD_SOURCE_DIR "/src/os/no-such-file", &st), GD_ENOENT);
    struct gd_os_file *f = NULL;
    assert_int_equal(gd_os_open_read(GD_SOURCE_DIR "/src/os", false, &f), GD_ENOTREG);
    assert_null(f);
    assert_int_equal(gd_os_open_read(GD_SOURCE_DIR "/src/os/no-such-file", false, &f), GD_ENOENT);
    char *target = NULL;
    assert_int_equal(gd_os_readlink(GD_SOURCE_DIR "/src/os/os.h", &target), GD_EINVAL);
    assert_null(target);
    assert_int_equal(gd_os_access(GD_SOURCE_DIR "/src/os/os.h", true, false), GD_OK);
    assert_int_equal(gd_os_access(GD_SOURCE_DIR "/src/os/no-such-file", true, false), GD_ENOENT);
}

/* A directory held open: paths relative to it name what the host paths name, whatever the
 * system's way of doing it, and its entries can be listed more than once. */
static void check_directory_held(void)
{
    struct gd_os_dirh *src = NULL, *os = NULL, *h = (struct gd_os_dirh *)1;
    assert_int_equal(gd_os_dirh_open(NULL, GD_SOURCE_DIR "/src", true, &src), GD_OK);
    assert_int_equal(gd_os_dirh_open(src, "os", true, &os), GD_OK);
    struct gd_os_stat st, want;
    assert_int_equal(gd_os_lstat(GD_SOURCE_DIR "/src/os/os.h", &want), GD_OK);
    assert_int_equal(gd_os_lstat_at(src, "os/os.h", &st), GD_OK);
    assert_int_equal(st.type, GD_FT_REG);
    assert_int_equal(st.size, want.size);
    assert_int_equal(gd_os_lstat_at(os, ".", &st), GD_OK);
    assert_int_equal(st.type, GD_FT_DIR);
    assert_int_equal(gd_os_lstat_at(os, "no-such-file", &st), GD_ENOENT);
    char *target = NULL;
    assert_int_equal(gd_os_readlink_at(os, "os.h", &target), GD_EINVAL);
    assert_null(target);
    char *data = NULL;
    size_t len = 0;
    assert_int_equal(gd_os_read_file(GD_SOURCE_DIR "/src/os/os.h", 1 << 20, &data, &len), GD_OK);
    struct gd_os_file *f = NULL;
    assert_int_equal(gd_os_open_read_at(os, "os.h", true, NULL, &f), GD_OK);
    char got[32];
    size_t n = 0;
    assert_int_equal(gd_os_pread(f, got, sizeof got, 0, &n), GD_OK);
    assert_int_equal(n, sizeof got);
    assert_memory_equal(got, data, sizeof got);
    gd_os_close(f);
    gd_free(data);
    /* The caller's lstat stands for the file's status. */
    assert_int_equal(gd_os_open_read_at(src, "os/os.h", true, &want, &f), GD_OK);
    assert_int_equal(gd_os_file_stat(f, &st), GD_OK);
    assert_int_equal(st.size, want.size);
    gd_os_close(f);
    assert_int_equal(gd_os_open_read_at(src, "os", true, NULL, &f), GD_ENOTREG);
    assert_int_equal(gd_os_open_read_at(os, "no-such-file", true, NULL, &f), GD_ENOENT);
    assert_int_equal(gd_os_dirh_open(os, "os.h", true, &h), GD_ENOTDIR);
    assert_null(h);
    assert_int_equal(gd_os_dirh_open(os, "no-such-dir", true, &h), GD_ENOENT);
    /* Listed twice from the one handle: the same entries, each time from the start. */
    size_t counts[2] = { 0, 0 };
    for (int pass = 0; pass < 2; pass++) {
        struct gd_os_dir *d = NULL;
        assert_int_equal(gd_os_opendir_dirh(os, &d), GD_OK);
        bool header = false;
        const char *name;
        enum gd_file_type type;
        bool known;
        enum gd_status rs;
        while ((rs = gd_os_readdir_type(d, &name, &type, &known)) == GD_OK) {
            assert_string_not_equal(name, ".");
            assert_string_not_equal(name, "..");
            if (strcmp(name, "os.h") == 0) {
                header = true;
                assert_true(!known || type == GD_FT_REG);
            }
            counts[pass]++;
        }
        assert_int_equal(rs, GD_ENOENT);
        gd_os_closedir(d);
        assert_true(header);
    }
    assert_true(counts[0] > 5);
    assert_int_equal(counts[0], counts[1]);
    gd_os_dirh_close(os);
    gd_os_dirh_close(src);
    gd_os_dirh_close(NULL);
}

static void test_directory(void **state)
{
    (void)state;
    struct gd_os_dir *d = NULL;
    assert_int_equal(gd_os_opendir(GD_SOURCE_DIR "/src/os", &d), GD_OK);
    bool header = false, posix = false, win32 = false;
    const char *name;
    enum gd_status st;
    while ((st = gd_os_readdir(d, &name)) == GD_OK) {
        assert_string_not_equal(name, ".");
        assert_string_not_equal(name, "..");
        header |= strcmp(name, "os.h") == 0;
        posix |= strcmp(name, "os_posix.c") == 0;
        win32 |= strcmp(name, "os_win32.c") == 0;
    }
    assert_int_equal(st, GD_ENOENT);
    gd_os_closedir(d);
    assert_true(header && posix && win32);
    assert_int_equal(gd_os_opendir(GD_SOURCE_DIR "/src/no-such-dir", &d), GD_ENOENT);
    assert_int_equal(gd_os_opendir(GD_SOURCE_DIR "/src/os/os.h", &d), GD_ENOTDIR);
    check_directory_held();
}

static void test_realpath(void **state)
{
    (void)state;
    char *p = NULL;
    assert_int_equal(gd_os_realpath(GD_SOURCE_DIR "/src/../src/os", &p), GD_OK);
    size_t n = strlen(p);
    assert_true(n > 7);
    assert_string_equal(p + n - 7, "/src/os");
    assert_null(strstr(p, ".."));
    assert_null(strchr(p, '\\'));
    gd_free(p);
    assert_int_equal(gd_os_realpath(GD_SOURCE_DIR "/no-such-dir", &p), GD_ENOENT);
    assert_int_equal(gd_os_getcwd(&p), GD_OK);
    assert_true(strlen(p) > 0);
    assert_null(strchr(p, '\\'));
    gd_free(p);
}

static void test_environ(void **state)
{
    (void)state;
    gd_os_setenv("GD_OS_TEST", "value with spaces");
    struct gd_env *env = gd_env_new();
    assert_non_null(env);
    assert_int_equal(gd_os_environ(env), GD_OK);
    assert_string_equal(gd_env_get(env, "GD_OS_TEST"), "value with spaces");
    assert_non_null(getenv("GD_OS_TEST"));
    gd_env_free(env);
    gd_os_setenv("GD_OS_TEST", NULL);
    env = gd_env_new();
    assert_int_equal(gd_os_environ(env), GD_OK);
    assert_null(gd_env_get(env, "GD_OS_TEST"));
    gd_env_free(env);
    unsigned long long a = gd_os_monotonic_ns(), b = gd_os_monotonic_ns();
    assert_true(b >= a);
}

/* ---- child programs -------------------------------------------------------------------------- */

static struct gd_child_result run_program(const char *const *argv, const char *const *envp,
                                          unsigned timeout_ms)
{
    static const char *const no_env[] = { NULL };
    struct gd_child_job job = { NULL, NULL, argv, envp ? envp : no_env };
    struct gd_child_result r;
    assert_int_equal(gd_os_children_run(&job, 1, timeout_ms, 1 << 16, &r), GD_OK);
    return r;
}

static void test_program_output(void **state)
{
    (void)state;
    const char *argv[] = { self, "--echo", "plain", "a b", "q\"uote", "back\\slash\\", "", NULL };
    struct gd_child_result r = run_program(argv, NULL, 20000);
    assert_int_equal(r.end, GD_CHILD_EXITED);
    assert_int_equal(r.code, 0);
    /* Text-mode output on Windows ends lines with \r\n: compare without the \r. */
    char out[256];
    size_t k = 0;
    for (size_t i = 0; i < r.len && k + 1 < sizeof out; i++)
        if (r.output[i] != '\r')
            out[k++] = r.output[i];
    out[k] = '\0';
    assert_string_equal(out, "[plain]\n[a b]\n[q\"uote]\n[back\\slash\\]\n[]\n");
    assert_non_null(strstr(r.errors, "to stderr"));
    gd_child_result_free(&r);
}

static void test_program_env_and_exit(void **state)
{
    (void)state;
    const char *argv[] = { self, "--env", NULL };
    const char *envp[] = { "GD_TEST_VAR=from the job", NULL };
    struct gd_child_result r = run_program(argv, envp, 20000);
    assert_int_equal(r.end, GD_CHILD_EXITED);
    assert_non_null(strstr(r.output, "from the job"));
    gd_child_result_free(&r);

    const char *exit3[] = { self, "--exit", "3", NULL };
    r = run_program(exit3, NULL, 20000);
    assert_int_equal(r.end, GD_CHILD_EXITED);
    assert_int_equal(r.code, 3);
    gd_child_result_free(&r);

    const char *missing[] = { GD_SOURCE_DIR "/no-such-program.exe", NULL };
    r = run_program(missing, NULL, 20000);
    assert_int_equal(r.end, GD_CHILD_EXEC_FAILED);
    assert_true(strlen(r.exec_error) > 0);
    gd_child_result_free(&r);
}

static void test_program_deadline(void **state)
{
    (void)state;
    const char *argv[] = { self, "--hang", NULL };
    unsigned long long start = gd_os_monotonic_ns();
    struct gd_child_result r = run_program(argv, NULL, 300);
    unsigned long long took_ms = (gd_os_monotonic_ns() - start) / 1000000ULL;
    assert_int_equal(r.end, GD_CHILD_TIMED_OUT);
    assert_true(took_ms >= 300);
    assert_true(took_ms < 10000);
    gd_child_result_free(&r);
}

static void test_program_crash(void **state)
{
    (void)state;
    const char *argv[] = { self, "--trap", NULL };
    struct gd_child_result r = run_program(argv, NULL, 60000);
    assert_int_equal(r.end, GD_CHILD_SIGNALED);
    assert_int_equal(r.code, SIGILL);
    char buf[32];
    assert_string_equal(gd_os_signal_name(r.code, buf, sizeof buf), "SIGILL");
    gd_child_result_free(&r);
}

/* ---- a command run with its output passed through (explain --run) -------------------------- */

struct seen {
    char text[2][256];
    size_t len[2];
};

static void on_output(void *ctx, unsigned channel, const char *data, size_t len)
{
    struct seen *s = ctx;
    assert_true(channel < 2);
    /* Windows' text streams end lines with CR LF: kept without the CR. */
    for (size_t i = 0; i < len; i++)
        if (data[i] != '\r' && s->len[channel] + 1 < sizeof s->text[channel])
            s->text[channel][s->len[channel]++] = data[i];
}

/* Its output reaches the callback (and this test's own streams), its status comes back, a
 * crash is a signal, a missing program is GD_ENOENT: the same on POSIX and Windows. */
static void test_run_tee(void **state)
{
    (void)state;
    char *tee[] = { (char *)self, "--tee", NULL };
    struct seen seen;
    memset(&seen, 0, sizeof seen);
    struct gd_os_run_end end;
    assert_int_equal(gd_os_run_tee(tee, on_output, &seen, &end), GD_OK);
    assert_false(end.signaled);
    assert_int_equal(end.code, 3);
    assert_false(end.output_lost);
    assert_string_equal(seen.text[0], "to stdout\n");
    assert_string_equal(seen.text[1], "to stderr\n");

    char *trap[] = { (char *)self, "--trap", NULL };
    assert_int_equal(gd_os_run_tee(trap, NULL, NULL, &end), GD_OK);
    assert_true(end.signaled);
    assert_int_equal(end.code, SIGILL);

    char *missing[] = { GD_SOURCE_DIR "/no-such-program", NULL };
    assert_int_equal(gd_os_run_tee(missing, NULL, NULL, &end), GD_ENOENT);
    char *none[] = { NULL };
    assert_int_equal(gd_os_run_tee(none, NULL, NULL, &end), GD_EINVAL);
}

/* ---- function children ------------------------------------------------------------------- */

/* A function child's argument with every kind of value its text form must carry. */
struct hello {
    long long n;
    const char *text, *none;
};

static void say_hello(void *arg, struct gd_child_out *out)
{
    const struct hello *h = arg;
    gd_child_send(out, "hello", "%lld [%s] [%s]", h->n, h->text, h->none ? h->none : "(none)");
    /* What it prints must not reach the report: its stdout is the null device. */
    printf("printed\n");
    fflush(stdout);
    fprintf(stderr, "to stderr\n");
}

static void hello_pack(const void *arg, struct gd_child_args *out)
{
    const struct hello *h = arg;
    gd_child_args_int(out, h->n);
    gd_child_args_str(out, h->text);
    gd_child_args_str(out, h->none);
}

static bool hello_unpack(const struct gd_child_args *in, void *arg)
{
    struct hello *h = arg;
    h->text = gd_child_args_at(in, 1);
    h->none = gd_child_args_at(in, 2);
    return in->n == 3 && gd_child_args_get_int(in, 0, &h->n) && h->text;
}

static const struct gd_child_def hello_def = { "test.hello", say_hello, hello_pack, hello_unpack,
                                               sizeof(struct hello) };
/* Never served by this program (main). */
static const struct gd_child_def stray_def = { "test.stray", say_hello, hello_pack, hello_unpack,
                                               sizeof(struct hello) };

static const struct hello hello_arg = { -42, "a \"quoted\" b\\ c\\\\ \xc3\xa9t\xc3\xa9 \t", NULL };
static const char hello_out[] =
    "hello -42 [a \"quoted\" b\\ c\\\\ \xc3\xa9t\xc3\xa9 \t] [(none)]\n";

/* A function in a child: a fork on POSIX, this program started again on Windows (gd_os_child_serve
 * in main); the same report either way, and nothing of what it printed. */
static void test_function_child(void **state)
{
    (void)state;
    struct gd_child_result r;
    assert_int_equal(gd_os_child_run(&hello_def, (void *)&hello_arg, 20000, 4096, &r), GD_OK);
    assert_int_equal(r.end, GD_CHILD_EXITED);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.output, hello_out);
    assert_string_equal(r.errors, "");
    gd_child_result_free(&r);

    /* A function this program does not serve: forked all the same on POSIX; on Windows there is
     * nothing to start, and the reason says so. */
    enum gd_status st = gd_os_child_run(&stray_def, (void *)&hello_arg, 20000, 4096, &r);
#ifdef _WIN32
    assert_int_equal(st, GD_EUNSUPPORTED);
    assert_int_equal(r.end, GD_CHILD_EXEC_FAILED);
    assert_non_null(strstr(r.exec_error, "does not run test.stray in a child"));
#else
    assert_int_equal(st, GD_OK);
    assert_string_equal(r.output, hello_out);
#endif
    gd_child_result_free(&r);
}

/* The entry point itself, on every platform: this program started as a program child with the
 * command line gd_os_child_argv makes says on its standard output what the function sends, and
 * refuses (125, the reason on standard error) a line that names no function or no argument. */
static void test_function_entry(void **state)
{
    (void)state;
    char **argv = NULL;
    assert_int_equal(gd_os_child_argv(self, &hello_def, &hello_arg, &argv), GD_OK);
    assert_string_equal(argv[1], GD_CHILD_FLAG);
    assert_string_equal(argv[2], "test.hello");
    assert_string_equal(argv[3], "=-42");
    assert_string_equal(argv[5], "!");
    assert_null(argv[6]);
    struct gd_child_result r = run_program((const char *const *)argv, NULL, 20000);
    assert_int_equal(r.end, GD_CHILD_EXITED);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.output, hello_out);
    assert_string_equal(r.errors, "");
    gd_child_result_free(&r);
    gd_free(argv);
    assert_int_equal(gd_os_child_argv(self, &stray_def, &hello_arg, &argv), GD_EUNSUPPORTED);
    assert_null(argv);

    static const struct {
        const char *words[5], *says;
    } bad[] = {
        { { GD_CHILD_FLAG, NULL }, "no function named" },
        { { GD_CHILD_FLAG, "test.stray", "=1", "=x", "!" }, "has no function test.stray" },
        { { GD_CHILD_FLAG, "test.hello", "=1", "x", "!" }, "not x" },
        { { GD_CHILD_FLAG, "test.hello", "=one", "=x", "!" }, "argument of test.hello" },
        { { GD_CHILD_FLAG, "test.hello", "=1", "=x" }, "argument of test.hello" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *words[7] = { self };
        for (size_t k = 0; k < 5 && bad[i].words[k]; k++)
            words[k + 1] = bad[i].words[k];
        r = run_program(words, NULL, 20000);
        assert_int_equal(r.end, GD_CHILD_EXITED);
        assert_int_equal(r.code, 125);
        assert_string_equal(r.output, "");
        if (!strstr(r.errors, bad[i].says))
            fail_msg("case %lu: stderr \"%s\" lacks \"%s\"", (unsigned long)i, r.errors,
                     bad[i].says);
        gd_child_result_free(&r);
    }
}

int main(int argc, char **argv)
{
    static const struct gd_child_def *const defs[] = { &hello_def };
    gd_os_child_serve(argc, argv, defs, 1);
    if (argc >= 2 && strncmp(argv[1], "--", 2) == 0)
        return child_role(argc, argv);
    if (argc < 2) {
        fprintf(stderr, "usage: test_os PATH-OF-THIS-PROGRAM\n");
        return 2;
    }
    self = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_not_files),
        cmocka_unit_test(test_directory),
        cmocka_unit_test(test_realpath),
        cmocka_unit_test(test_environ),
        cmocka_unit_test(test_program_output),
        cmocka_unit_test(test_program_env_and_exit),
        cmocka_unit_test(test_program_deadline),
        cmocka_unit_test(test_program_crash),
        cmocka_unit_test(test_run_tee),
        cmocka_unit_test(test_function_child),
        cmocka_unit_test(test_function_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
