/* src/os through its interface alone, the same test on every platform: the POSIX build runs it
 * natively, the mingw build under wine (tests/windows.cmake), so that os_win32.c answers as
 * os_posix.c does. Child programs are this test program itself, started again with a role as
 * its first argument (no shell or system program whose behaviour differs between systems). */
#include "core/alloc.h"
#include "core/env.h"
#include "os/os.h"

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

static void say_hello(void *arg, struct gd_child_out *out)
{
    (void)arg;
    gd_child_send(out, "hello", "%d", 42);
}

/* A function in a child: fork() on POSIX; refused, with a reason, on Windows (docs/windows.md). */
static void test_function_child(void **state)
{
    (void)state;
    struct gd_child_result r;
    enum gd_status st = gd_os_child_run(say_hello, NULL, 20000, 4096, &r);
#ifdef _WIN32
    assert_int_equal(st, GD_EUNSUPPORTED);
    assert_int_equal(r.end, GD_CHILD_EXEC_FAILED);
    assert_non_null(strstr(r.exec_error, "not supported on Windows"));
#else
    assert_int_equal(st, GD_OK);
    assert_int_equal(r.end, GD_CHILD_EXITED);
    assert_string_equal(r.output, "hello 42\n");
#endif
    gd_child_result_free(&r);
}

int main(int argc, char **argv)
{
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
        cmocka_unit_test(test_function_child),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
