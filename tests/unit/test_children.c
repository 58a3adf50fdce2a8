/*
 * Children with a deadline (gd_os_child_run, gd_os_children_run): what they report, how they
 * end (exit, signal, deadline), grandchildren that keep the pipe, output caps, parallel runs,
 * a start that fails half-way, programs with their two streams, a watch on the output as it
 * arrives; and gd_version_calls_run on fake CUDA libraries compiled at test time, one per way a
 * vendor call can go wrong.
 *
 * The same file runs in the mingw build under wine, where a function child is this program
 * started again (gd_os_child_serve in main): the functions below are described for that by
 * their gd_child_def. What needs fork() or a shell script is the POSIX build's.
 */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "os/os.h"
#include "os/signals.h" /* SIGKILL, SIGBUS: src/os's numbers where Windows has none */
#include "probe/childfns.h"
#include "probe/libcalls.h"
#include "probe/live.h"
#include "probe/smoke_child.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#ifndef _WIN32
#include <sys/resource.h>
#include <sys/wait.h>
#endif
#include <time.h>

#include <cmocka.h>

#include "testutil.h"

static double now_s(void)
{
    return tu_now_s();
}

/* Sanitizers handle SIGSEGV themselves; a child that must die of it restores the default. On
 * Windows a signal raised is only an exit (status 3): the crash is a real access violation. */
static void die_of(int sig)
{
#ifdef _WIN32
    static int *volatile nowhere; /* NULL, unknown to the compiler */
    if (sig == SIGSEGV)
        *nowhere = 1;
#endif
    signal(sig, SIG_DFL);
    raise(sig);
}

/* No pause() on Windows: a sleep that never ends. */
static void wait_forever(void)
{
#ifdef _WIN32
    for (;;)
        Sleep(1000);
#else
    for (;;)
        pause();
#endif
}

static void reports(void *arg, struct gd_child_out *out)
{
    (void)arg;
    gd_child_send(out, "step", "dlopen");
    gd_child_send(out, "value", "%d.%d", 12, 4);
    gd_child_send(out, "text", "two\nlines\r");
}

static void exits_3(void *arg, struct gd_child_out *out)
{
    gd_child_send(out, "step", "call");
    (void)arg;
    _exit(3);
}

static void segfaults(void *arg, struct gd_child_out *out)
{
    (void)arg;
    gd_child_send(out, "step", "call");
    die_of(SIGSEGV);
}

static void aborts(void *arg, struct gd_child_out *out)
{
    (void)arg;
    (void)out;
    abort();
}

static void hangs(void *arg, struct gd_child_out *out)
{
    (void)arg;
    gd_child_send(out, "step", "call");
    wait_forever();
}

#ifndef _WIN32
/* Forks a grandchild that keeps the pipe open (and says its pid), then exits. */
static void leaves_grandchild(void *arg, struct gd_child_out *out)
{
    (void)arg;
    pid_t pid = fork();
    if (pid == 0)
        wait_forever();
    gd_child_send(out, "grandchild", "%d", (int)pid);
    gd_child_send(out, "step", "done");
}
#endif

static void chatty(void *arg, struct gd_child_out *out)
{
    int lines = *(int *)arg;
    char text[100];
    memset(text, 'x', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    for (int i = 0; i < lines; i++)
        gd_child_send(out, "line", "%s", text);
}

static void huge_line(void *arg, struct gd_child_out *out)
{
    (void)arg;
    static char text[5000];
    memset(text, 'x', sizeof text - 1);
    gd_child_send(out, "k", "%s", text);
}

static void naps(void *arg, struct gd_child_out *out)
{
    int ms = *(int *)arg;
    usleep((useconds_t)ms * 1000);
    gd_child_send(out, "slept", "%d", ms);
}

static void silent(void *arg, struct gd_child_out *out)
{
    (void)arg;
    (void)out;
}

/* The functions as a child runs them, and their int argument as text. */
static void int_pack(const void *arg, struct gd_child_args *out)
{
    gd_child_args_int(out, *(const int *)arg);
}

static bool int_unpack(const struct gd_child_args *in, void *arg)
{
    long long v;
    if (in->n != 1 || !gd_child_args_get_int(in, 0, &v) || v < 0 || v > 1000000)
        return false;
    *(int *)arg = (int)v;
    return true;
}

#define DEF(f) static const struct gd_child_def f##_def = { "test." #f, f, NULL, NULL, 0 }
DEF(reports);
DEF(exits_3);
DEF(segfaults);
DEF(aborts);
DEF(hangs);
DEF(huge_line);
DEF(silent);
#ifndef _WIN32
DEF(leaves_grandchild);
#endif
#undef DEF
static const struct gd_child_def chatty_def = { "test.chatty", chatty, int_pack, int_unpack,
                                                sizeof(int) };
static const struct gd_child_def naps_def = { "test.naps", naps, int_pack, int_unpack,
                                              sizeof(int) };

static void test_reports_and_exits(void **state)
{
    (void)state;
    struct gd_child_result r;
    assert_int_equal(gd_os_child_run(&reports_def, NULL, 5000, 4096, &r), GD_OK);
    assert_int_equal(r.end, GD_CHILD_EXITED);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.output, "step dlopen\nvalue 12.4\ntext two lines \n");
    assert_int_equal(r.len, strlen(r.output));
    assert_false(r.truncated);
    assert_true(r.elapsed_ns > 0);
    gd_child_result_free(&r);
    assert_null(r.output);
    assert_int_equal(r.len, 0);
    gd_child_result_free(NULL);

    assert_int_equal(gd_os_child_run(&exits_3_def, NULL, 5000, 4096, &r), GD_OK);
    assert_int_equal(r.end, GD_CHILD_EXITED);
    assert_int_equal(r.code, 3);
    assert_string_equal(r.output, "step call\n");
    gd_child_result_free(&r);

    /* Nothing sent: an empty string, never NULL. */
    assert_int_equal(gd_os_child_run(&silent_def, NULL, 5000, 4096, &r), GD_OK);
    assert_non_null(r.output);
    assert_string_equal(r.output, "");
    assert_int_equal(r.len, 0);
    gd_child_result_free(&r);
}

static void test_signals(void **state)
{
    (void)state;
    struct gd_child_result r;
    assert_int_equal(gd_os_child_run(&segfaults_def, NULL, 5000, 4096, &r), GD_OK);
    assert_int_equal(r.end, GD_CHILD_SIGNALED);
    assert_int_equal(r.code, SIGSEGV);
    assert_string_equal(r.output, "step call\n"); /* what it sent before dying is kept */
    gd_child_result_free(&r);
    assert_int_equal(gd_os_child_run(&aborts_def, NULL, 5000, 4096, &r), GD_OK);
    assert_int_equal(r.end, GD_CHILD_SIGNALED);
    assert_int_equal(r.code, SIGABRT);
    gd_child_result_free(&r);
    char buf[32];
    assert_string_equal(gd_os_signal_name(SIGSEGV, buf, sizeof buf), "SIGSEGV");
    assert_string_equal(gd_os_signal_name(SIGABRT, buf, sizeof buf), "SIGABRT");
    assert_string_equal(gd_os_signal_name(SIGBUS, buf, sizeof buf), "SIGBUS");
    assert_string_equal(gd_os_signal_name(SIGKILL, buf, sizeof buf), "SIGKILL");
#ifndef _WIN32
    assert_string_equal(gd_os_signal_name(SIGUSR1, buf, sizeof buf), "signal 10");
#endif
}

/* A hang is killed at the deadline, and the call returns about then. */
static void test_deadline(void **state)
{
    (void)state;
    struct gd_child_result r;
    double t0 = now_s();
    assert_int_equal(gd_os_child_run(&hangs_def, NULL, 300, 4096, &r), GD_OK);
    double took = now_s() - t0;
    assert_int_equal(r.end, GD_CHILD_TIMED_OUT);
    assert_string_equal(r.output, "step call\n");
    if (took < 0.25 || took > 2.0)
        fail_msg("a 300 ms deadline took %.2f s", took);
    assert_true(r.elapsed_ns >= 250000000ULL);
    gd_child_result_free(&r);
}

/* A grandchild that keeps the pipe open after the child exited must not hold the parent
 * until the deadline, nor outlive the call. */
static void test_grandchild(void **state)
{
    (void)state;
#ifdef _WIN32
    /* A job object ends a child's descendants with it (os_win32.c), but a grandchild here would
     * not hold the report's pipe: the child keeps it on a handle of its own, not inherited. */
    print_message("the grandchild is made by fork(): the POSIX build's case\n");
    skip();
#else
    struct gd_child_result r;
    double t0 = now_s();
    assert_int_equal(gd_os_child_run(&leaves_grandchild_def, NULL, 4000, 4096, &r), GD_OK);
    double took = now_s() - t0;
    assert_int_equal(r.end, GD_CHILD_EXITED);
    assert_int_equal(r.code, 0);
    int pid = 0;
    assert_int_equal(sscanf(r.output, "grandchild %d\nstep done\n", &pid), 1);
    assert_true(pid > 0);
    assert_non_null(strstr(r.output, "step done\n"));
    gd_child_result_free(&r);
    if (took > 2.0)
        fail_msg("the child exited at once, the call took %.2f s (a 4 s deadline)", took);
    /* The grandchild is gone (or a zombie waiting for init to reap it). */
    bool alive = true;
    for (int i = 0; i < 100 && alive; i++) {
        char path[64], stat[256] = "";
        snprintf(path, sizeof path, "/proc/%d/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f) {
            alive = false;
            break;
        }
        bool got = fgets(stat, sizeof stat, f) != NULL;
        fclose(f);
        const char *paren = strrchr(stat, ')');
        alive = !(got && paren && paren[1] == ' ' && paren[2] == 'Z');
        if (alive)
            usleep(10000);
    }
    if (alive) {
        kill(pid, SIGKILL);
        fail_msg("the grandchild %d outlived the call", pid);
    }
#endif
}

static void test_output_cap(void **state)
{
    (void)state;
    struct gd_child_result r;
    int lines = 200; /* 200 lines of 105 bytes: more than a pipe holds */
    assert_int_equal(gd_os_child_run(&chatty_def, &lines, 5000, 1000, &r), GD_OK);
    assert_int_equal(r.end, GD_CHILD_EXITED);
    assert_true(r.truncated);
    assert_int_equal(r.len, 1000);
    assert_int_equal(strlen(r.output), 1000);
    assert_memory_equal(r.output, "line xxx", 8);
    gd_child_result_free(&r);
    lines = 2;
    assert_int_equal(gd_os_child_run(&chatty_def, &lines, 5000, 210, &r), GD_OK);
    assert_false(r.truncated); /* exactly the cap */
    assert_int_equal(r.len, 210);
    gd_child_result_free(&r);
    assert_int_equal(gd_os_child_run(&chatty_def, &lines, 5000, 209, &r), GD_OK);
    assert_true(r.truncated);
    assert_int_equal(r.len, 209);
    gd_child_result_free(&r);
    assert_int_equal(gd_os_child_run(&chatty_def, &lines, 5000, 0, &r), GD_OK);
    assert_true(r.truncated);
    assert_string_equal(r.output, "");
    gd_child_result_free(&r);
    /* A value longer than gd_child_send's buffer arrives cut, not overflowing. */
    assert_int_equal(gd_os_child_run(&huge_line_def, NULL, 5000, 1 << 20, &r), GD_OK);
    assert_int_equal(r.len, 2 + 4095 + 1);
    assert_memory_equal(r.output, "k xxxx", 6);
    assert_int_equal(r.output[r.len - 1], '\n');
    gd_child_result_free(&r);
}

/* Children run at once: four 300 ms naps take about 300 ms, a hang among them ends at the
 * deadline, and each result belongs to its job. */
static void test_parallel(void **state)
{
    (void)state;
    int ms[4] = { 300, 250, 200, 150 };
    struct gd_child_job jobs[6] = {
        { .def = &naps_def, .arg = &ms[0] },    { .def = &naps_def, .arg = &ms[1] },
        { .def = &hangs_def, .arg = NULL },     { .def = &naps_def, .arg = &ms[2] },
        { .def = &segfaults_def, .arg = NULL }, { .def = &naps_def, .arg = &ms[3] },
    };
    struct gd_child_result res[6];
    double t0 = now_s();
    assert_int_equal(gd_os_children_run(jobs, 6, 1000, 4096, res), GD_OK);
    double took = now_s() - t0;
    if (took > 2.5)
        fail_msg("six children with a 1 s deadline took %.2f s", took);
    assert_true(took >= 0.9);
    static const char *const want[] = { "slept 300\n", "slept 250\n", "step call\n",
                                        "slept 200\n", "step call\n", "slept 150\n" };
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(res[i].output, want[i]);
    assert_int_equal(res[0].end, GD_CHILD_EXITED);
    assert_int_equal(res[2].end, GD_CHILD_TIMED_OUT);
    assert_int_equal(res[4].end, GD_CHILD_SIGNALED);
    assert_int_equal(res[4].code, SIGSEGV);
    /* The naps ended long before the deadline: each its own time. */
    assert_true(res[5].elapsed_ns < 800000000ULL);
    for (size_t i = 0; i < 6; i++)
        gd_child_result_free(&res[i]);
    /* Without the hang, the call ends with the slowest. */
    struct gd_child_job quick[4] = { { .def = &naps_def, .arg = &ms[0] },
                                     { .def = &naps_def, .arg = &ms[1] },
                                     { .def = &naps_def, .arg = &ms[2] },
                                     { .def = &naps_def, .arg = &ms[3] } };
    t0 = now_s();
    assert_int_equal(gd_os_children_run(quick, 4, 5000, 4096, res), GD_OK);
    took = now_s() - t0;
    if (took > 1.0)
        fail_msg("four naps of at most 300 ms took %.2f s: not in parallel", took);
    for (size_t i = 0; i < 4; i++)
        gd_child_result_free(&res[i]);
    assert_int_equal(gd_os_children_run(quick, 0, 100, 16, res), GD_OK);
}

/* No descriptors left after two children: the third cannot start. The call says GD_ECHILD,
 * the children started are waited for, and every result is one the caller can free. */
static void test_start_fails_half_way(void **state)
{
    (void)state;
#ifdef _WIN32
    print_message("descriptors run out under setrlimit in a fork: the POSIX build's case\n");
    skip();
#else
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* A crash here must end this process, not be caught by cmocka's handlers. */
        static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
        for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
            signal(sigs[i], SIG_DFL);
        /* Descriptors 3, 4, 5 only: two pipes' read ends stay open, the third pipe fails. */
        for (int fd = 3; fd < 4096; fd++)
            close(fd);
        struct rlimit rl = { 6, 6 };
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            _exit(70);
        int ms = 50;
        struct gd_child_job jobs[6];
        for (size_t i = 0; i < 6; i++)
            jobs[i] = (struct gd_child_job){ .def = &naps_def, .arg = &ms };
        struct gd_child_result res[6];
        memset(res, 0xa5, sizeof res); /* what the caller's stack may hold */
        enum gd_status st = gd_os_children_run(jobs, 6, 2000, 4096, res);
        if (st != GD_ECHILD)
            _exit(71);
        if (strcmp(res[0].output, "slept 50\n") != 0 || res[0].end != GD_CHILD_EXITED)
            _exit(72);
        for (size_t i = 0; i < 6; i++) {
            if (!res[i].output || strlen(res[i].output) != res[i].len)
                _exit(73);
            gd_child_result_free(&res[i]);
        }
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        fail_msg("the process died of signal %d", WTERMSIG(status));
    if (WEXITSTATUS(status) == 70)
        skip();
    assert_int_equal(WEXITSTATUS(status), 0);
#endif
}

/* ---- programs: exec, standard output and error, environment, deadline ---------------------- */

static char *progs;

static const char *script(const char *name, const char *body)
{
    return tu_script(progs, name, body);
}

static const char *const plain_env[] = { "PATH=/usr/bin:/bin", "GD_TEST_VAR=from the caller",
                                         NULL };

static struct gd_child_result run_program(const char *path, unsigned timeout_ms, size_t max)
{
    const char *argv[] = { path, "-c", "print(1)", "torch", NULL };
    struct gd_child_job job = { .argv = argv, .envp = plain_env };
    struct gd_child_result r;
    assert_int_equal(gd_os_children_run(&job, 1, timeout_ms, max, &r), GD_OK);
    return r;
}

static void test_program_streams(void **state)
{
    (void)state;
    progs = tu_mkdtemp("progs");
    /* Arguments as given, the environment exactly as given, stdin at its end, both streams
     * apart. */
    const char *p = script("talk", "echo \"args: $1 $3 $#\"\n"
                                   "echo \"var: $GD_TEST_VAR; home: ${HOME-unset}\"\n"
                                   "read line; echo \"stdin: $? [$line]\"\n"
                                   "echo 'a warning' >&2\n"
                                   "echo 'second line' >&2\n"
                                   "exit 0");
    struct gd_child_result r = run_program(p, 10000, 4096);
    assert_int_equal(r.end, GD_CHILD_EXITED);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.output, "args: -c torch 3\nvar: from the caller; home: unset\n"
                                  "stdin: 1 []\n");
    assert_string_equal(r.errors, "a warning\nsecond line\n");
    assert_int_equal(r.errors_len, strlen(r.errors));
    assert_false(r.truncated);
    assert_false(r.errors_truncated);
    gd_child_result_free(&r);
    assert_null(r.errors);

    p = script("fails", "echo 'Traceback (most recent call last):' >&2\n"
                        "echo 'ImportError: libcudnn.so.8: cannot open shared object file' >&2\n"
                        "exit 1");
    r = run_program(p, 10000, 4096);
    assert_int_equal(r.end, GD_CHILD_EXITED);
    assert_int_equal(r.code, 1);
    assert_string_equal(r.output, "");
    assert_non_null(strstr(r.errors, "ImportError: libcudnn.so.8"));
    gd_child_result_free(&r);

    /* A function child has an empty, never NULL, standard error. */
    assert_int_equal(gd_os_child_run(&reports_def, NULL, 5000, 4096, &r), GD_OK);
    assert_string_equal(r.errors, "");
    gd_child_result_free(&r);
    tu_rmtree(progs);
    free(progs);
}

static void test_program_exec_failed(void **state)
{
    (void)state;
#ifdef _WIN32
    /* errno values and shebang lines: POSIX's; unit.os checks a Windows program not found. */
    print_message("exec(2)'s errors: the POSIX build's case\n");
    skip();
#else
    progs = tu_mkdtemp("progs");
    char path[PATH_MAX];
    tu_path(path, sizeof path, progs, "missing");
    struct gd_child_result r = run_program(path, 5000, 4096);
    assert_int_equal(r.end, GD_CHILD_EXEC_FAILED);
    assert_int_equal(r.code, ENOENT);
    assert_string_equal(r.exec_error, strerror(ENOENT));
    assert_string_equal(r.output, "");
    assert_string_equal(r.errors, "");
    gd_child_result_free(&r);
    /* Not executable (root too needs one execute bit). */
    tu_write(progs, "plain", "#!/bin/sh\necho hi\n");
    tu_chmod(progs, "plain", 0644);
    tu_path(path, sizeof path, progs, "plain");
    r = run_program(path, 5000, 4096);
    assert_int_equal(r.end, GD_CHILD_EXEC_FAILED);
    assert_int_equal(r.code, EACCES);
    gd_child_result_free(&r);
    /* An interpreter line that names nothing. */
    tu_write(progs, "badshebang", "#!/nonexistent/python\n");
    tu_chmod(progs, "badshebang", 0755);
    tu_path(path, sizeof path, progs, "badshebang");
    r = run_program(path, 5000, 4096);
    assert_int_equal(r.end, GD_CHILD_EXEC_FAILED);
    assert_int_equal(r.code, ENOENT);
    gd_child_result_free(&r);
    tu_rmtree(progs);
    free(progs);
#endif
}

static void test_program_signals(void **state)
{
    (void)state;
#ifdef _WIN32
    print_message("signals sent by a shell script: the POSIX build's case\n");
    skip();
#else
    progs = tu_mkdtemp("progs");
    const char *p = script("segv", "echo before >&2\nkill -SEGV $$\necho after");
    struct gd_child_result r = run_program(p, 10000, 4096);
    assert_int_equal(r.end, GD_CHILD_SIGNALED);
    assert_int_equal(r.code, SIGSEGV);
    assert_string_equal(r.errors, "before\n");
    assert_string_equal(r.output, "");
    gd_child_result_free(&r);
    /* A signal this process ignores is at its default in the program: a shell cannot undo an
     * ignored signal it inherited, so it would survive SIGUSR1 otherwise. */
    void (*old)(int) = signal(SIGUSR1, SIG_IGN);
    p = script("usr1", "kill -USR1 $$\necho survived");
    r = run_program(p, 10000, 4096);
    signal(SIGUSR1, old);
    assert_int_equal(r.end, GD_CHILD_SIGNALED);
    assert_int_equal(r.code, SIGUSR1);
    assert_string_equal(r.output, "");
    gd_child_result_free(&r);
    tu_rmtree(progs);
    free(progs);
#endif
}

static void test_program_deadline(void **state)
{
    (void)state;
    progs = tu_mkdtemp("progs");
    /* SIGTERM first: a program that handles it still says so, and what it says is kept. */
    const char *p = script("term", "trap 'echo got TERM >&2; exit 3' TERM\n"
                                   "echo started\n"
                                   "while :; do sleep 1; done");
    struct gd_child_result r = run_program(p, 300, 4096);
    assert_int_equal(r.end, GD_CHILD_TIMED_OUT);
    assert_string_equal(r.output, "started\n");
    /* (the shell may first say that its `sleep`, in the same group, was "Terminated") */
    assert_non_null(strstr(r.errors, "got TERM\n"));
    gd_child_result_free(&r);
    /* One that ignores SIGTERM gets SIGKILL after the grace period. */
    p = script("stubborn", "trap '' TERM\necho started\nwhile :; do sleep 1; done");
    r = run_program(p, 300, 4096);
    assert_int_equal(r.end, GD_CHILD_TIMED_OUT);
    assert_string_equal(r.output, "started\n");
    gd_child_result_free(&r);
    /* Closing its standard output does not end the wait: the program is still running. */
    p = script("closes", "exec >&-\necho 'stdout closed' >&2\nexec sleep 1000");
    r = run_program(p, 300, 4096);
    assert_int_equal(r.end, GD_CHILD_TIMED_OUT);
    assert_string_equal(r.output, "");
    assert_string_equal(r.errors, "stdout closed\n");
    gd_child_result_free(&r);
    tu_rmtree(progs);
    free(progs);
}

/* 10 MiB on each stream: kept up to the cap, the rest read and dropped, the program ends
 * normally (it would block forever on a full pipe otherwise, and time out). */
static void test_program_flood(void **state)
{
    (void)state;
    progs = tu_mkdtemp("progs");
    const char *p = script("flood", "head -c 10485760 /dev/zero | tr '\\000' x\n"
                                    "head -c 10485760 /dev/zero | tr '\\000' y >&2\n"
                                    "echo end");
    struct gd_child_result r = run_program(p, 60000, 65536);
    assert_int_equal(r.end, GD_CHILD_EXITED);
    assert_int_equal(r.code, 0);
    assert_true(r.truncated);
    assert_true(r.errors_truncated);
    assert_int_equal(r.len, 65536);
    assert_int_equal(r.errors_len, 65536);
    assert_int_equal(r.output[0], 'x');
    assert_int_equal(r.output[65535], 'x');
    assert_int_equal(r.errors[65535], 'y');
    gd_child_result_free(&r);
    tu_rmtree(progs);
    free(progs);
}

/* Programs and functions side by side, each result its own. */
static void test_program_mixed(void **state)
{
    (void)state;
    progs = tu_mkdtemp("progs");
    const char *ok = script("ok", "echo one");
    const char *bad = script("bad", "echo two >&2; exit 2");
    char missing[PATH_MAX];
    tu_path(missing, sizeof missing, progs, "missing");
    const char *a1[] = { ok, NULL }, *a2[] = { bad, NULL }, *a3[] = { missing, NULL };
    int ms = 50;
    struct gd_child_job jobs[4] = {
        { .argv = a1, .envp = plain_env },
        { .def = &naps_def, .arg = &ms },
        { .argv = a3, .envp = plain_env },
        { .argv = a2, .envp = plain_env },
    };
    struct gd_child_result res[4];
    assert_int_equal(gd_os_children_run(jobs, 4, 10000, 4096, res), GD_OK);
    assert_string_equal(res[0].output, "one\n");
    assert_int_equal(res[0].end, GD_CHILD_EXITED);
    assert_string_equal(res[1].output, "slept 50\n");
    assert_int_equal(res[2].end, GD_CHILD_EXEC_FAILED);
    assert_int_equal(res[3].end, GD_CHILD_EXITED);
    assert_int_equal(res[3].code, 2);
    assert_string_equal(res[3].errors, "two\n");
    for (size_t i = 0; i < 4; i++)
        gd_child_result_free(&res[i]);
    tu_rmtree(progs);
    free(progs);
}

/* What gd_os_children_run_watched's callback saw, per job. */
struct watched {
    char text[3][8192];
    size_t len[3];
    double first[3]; /* seconds since the start of the run; 0: never called */
    double start;
};

static void watch(void *user, size_t job, const char *data, size_t len)
{
    struct watched *w = user;
    assert_true(job < 3);
    assert_true(len > 0);
    assert_true(w->len[job] + len < sizeof w->text[job]);
    if (!w->len[job])
        w->first[job] = now_s() - w->start;
    memcpy(w->text[job] + w->len[job], data, len);
    w->len[job] += len;
}

/* The watch sees each job's output as it arrives: a function's report, a program's standard
 * output (never its standard error), no more than the cap keeps; and a program that still runs
 * has been seen before its deadline. */
static void test_watched(void **state)
{
    (void)state;
    progs = tu_mkdtemp("progs");
    const char *slow = script("slow", "echo first; echo 'not watched' >&2; exec sleep 1000");
    const char *loud = script("loud", "head -c 100000 /dev/zero | tr '\\000' z");
    const char *a1[] = { slow, NULL }, *a2[] = { loud, NULL };
    struct gd_child_job jobs[3] = {
        { .def = &reports_def },
        { .argv = a1, .envp = plain_env },
        { .argv = a2, .envp = plain_env },
    };
    struct gd_child_result res[3];
    static struct watched w;
    memset(&w, 0, sizeof w);
    w.start = now_s();
    assert_int_equal(gd_os_children_run_watched(jobs, 3, 2000, 4096, res, watch, &w), GD_OK);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(w.len[i], res[i].len);
        assert_memory_equal(w.text[i], res[i].output, res[i].len);
    }
    assert_non_null(strstr(w.text[0], "value 12.4\n"));
    assert_int_equal(res[1].end, GD_CHILD_TIMED_OUT);
    assert_string_equal(res[1].output, "first\n");
    assert_string_equal(res[1].errors, "not watched\n");
    assert_true(w.first[1] > 0 && w.first[1] < 1.5);
    assert_true(res[2].truncated);
    assert_int_equal(w.len[2], 4096);
    for (size_t i = 0; i < 3; i++)
        gd_child_result_free(&res[i]);
    tu_rmtree(progs);
    free(progs);
}

/* ---- version calls on fake libraries ------------------------------------------------------- */

/* The fake libraries' directory, and their file name extension. */
static char *fakes;
#ifdef _WIN32
#define LIB_EXT ".dll"
#else
#define LIB_EXT ".so"

static bool compile(const char *name, const char *source)
{
    char src[PATH_MAX], cmd[3 * PATH_MAX];
    snprintf(src, sizeof src, "%s.c", name);
    tu_write(fakes, src, source);
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -o %s/%s.so %s/%s.c 2>&1", fakes, name, fakes,
             name);
    return system(cmd) == 0;
}

#endif

static struct gd_version_call call(const char *lib, const char *symbol, enum gd_call_kind kind,
                                   const char *encoding)
{
    static char paths[16][PATH_MAX];
    static size_t next;
    char *p = paths[next++ % 16];
    snprintf(p, PATH_MAX, "%s/%s" LIB_EXT, fakes, lib);
    struct gd_version_call c;
    memset(&c, 0, sizeof c);
    c.path = p;
    c.symbol = symbol;
    c.kind = kind;
    c.encoding = encoding;
    c.ok = true;             /* must be reset by the run */
    strcpy(c.detail, "old"); /* likewise */
    return c;
}

#ifdef _WIN32
/* The Windows build's fakes are DLLs built with it (tests/unit/win_fakes.c): loaded in function
 * children that are this program started again. What differs from POSIX is the loader's
 * message; a crash, a hang, an exit and an abort in the library read the same. */
static void test_version_calls(void **state)
{
    (void)state;
    fakes = strdup(GD_BINARY_DIR "/tests/winfakes");
    struct gd_version_call calls[] = {
        call("cudart", "cudaRuntimeGetVersion", GD_CALL_INT_OUT, "cuda_int"),
        call("cudart_err", "cudaRuntimeGetVersion", GD_CALL_INT_OUT, "cuda_int"),
        call("cudnn", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("cudnn_crash", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("cudnn_hang", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("cudnn_nosym", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("cudnn_exit", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("cudnn_abort", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("nccl", "ncclGetVersion", GD_CALL_INT_OUT, "nccl_int"),
        call("cublas", "cublasGetProperty", GD_CALL_PROPERTY, NULL),
        call("missing", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("cudnn_junk", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("cudart_dep", "cudaRuntimeGetVersion", GD_CALL_INT_OUT, "cuda_int"),
    };
    size_t n = sizeof calls / sizeof *calls;
    double t0 = now_s();
    /* A longer deadline than POSIX's 1.5 s: each child is a process started from its file. */
    assert_int_equal(gd_version_calls_run(calls, n, 5000), GD_OK);
    double took = now_s() - t0;
    if (took > 15.0)
        fail_msg("%lu calls with a 5 s deadline took %.2f s", (unsigned long)n, took);
    struct {
        bool ok;
        const char *version, *detail;
    } want[] = {
        { true, "12.4", "cudaRuntimeGetVersion returned 12040" },
        { false, NULL, "cudaRuntimeGetVersion returned error 35" },
        { true, "9.1.0", "cudnnGetVersion returned 90100" },
        { false, NULL, "crashed with SIGSEGV during call" },
        { false, NULL, "call of cudnnGetVersion did not finish in time (killed)" },
        { false, NULL, "the library has no cudnnGetVersion" },
        { false, NULL, "exited with status 3 during call" },
        { false, NULL, "crashed with SIGABRT during call" },
        { true, "2.20.5", "ncclGetVersion returned 22005" },
        { true, "12.4.5", "cublasGetProperty returned 12.4.5" },
        { false, NULL, "dlopen failed: LoadLibrary " },
        { false, NULL, "cudnnGetVersion returned 0, not a version" },
        { false, NULL, "dlopen failed: LoadLibrary " },
    };
    for (size_t i = 0; i < n; i++) {
        const struct gd_version_call *c = &calls[i];
        if (c->ok != want[i].ok || strncmp(c->detail, want[i].detail, strlen(want[i].detail)))
            fail_msg("%s: ok=%d \"%s\", want ok=%d \"%s\"", c->path, c->ok, c->detail, want[i].ok,
                     want[i].detail);
        if (want[i].version) {
            char v[GD_VERSION_TEXT_MAX];
            gd_version_format(&c->version, v, sizeof v);
            assert_string_equal(v, want[i].version);
        }
    }
    assert_non_null(strstr(calls[10].detail, "missing.dll"));
    /* A dependency not found: ERROR_MOD_NOT_FOUND, as for the missing library itself. */
    assert_non_null(strstr(calls[12].detail, "cudart_dep.dll"));
    assert_non_null(strstr(calls[12].detail, "(error 126)"));
    free(fakes);
}
#else
static void test_version_calls(void **state)
{
    (void)state;
    if (system("command -v cc >/dev/null 2>&1") != 0) {
        print_message("no C compiler: the fake libraries cannot be built\n");
        skip();
    }
    fakes = tu_mkdtemp("fakes");
    assert_true(compile("cudart", "int cudaRuntimeGetVersion(int *v) { *v = 12040; return 0; }\n"));
    assert_true(
        compile("cudart_err", "int cudaRuntimeGetVersion(int *v) { *v = 0; return 35; }\n"));
    assert_true(compile("cudnn", "unsigned long cudnnGetVersion(void) { return 90100; }\n"));
    assert_true(compile("cudnn_crash", "#include <signal.h>\n"
                                       "unsigned long cudnnGetVersion(void) {\n"
                                       "  signal(SIGSEGV, SIG_DFL);\n"
                                       "  *(volatile int *)0 = 1;\n"
                                       "  return 1; }\n"));
    assert_true(compile("cudnn_hang", "#include <unistd.h>\n"
                                      "unsigned long cudnnGetVersion(void) {\n"
                                      "  for (;;) pause(); }\n"));
    assert_true(compile("cudnn_nosym", "int somethingElse(void) { return 0; }\n"));
    assert_true(compile("cudnn_exit", "#include <stdlib.h>\n"
                                      "unsigned long cudnnGetVersion(void) { exit(3); }\n"));
    assert_true(compile("cudnn_abort", "#include <stdlib.h>\n"
                                       "unsigned long cudnnGetVersion(void) { abort(); }\n"));
    assert_true(compile("nccl", "int ncclGetVersion(int *v) { *v = 22005; return 0; }\n"));
    assert_true(compile("cublas", "int cublasGetProperty(int t, int *v) {\n"
                                  "  *v = t == 0 ? 12 : t == 1 ? 4 : 5; return 0; }\n"));
    assert_true(compile("cudnn_junk", "unsigned long cudnnGetVersion(void) { return 0; }\n"));
    assert_true(compile("cudnn_ctor", "#include <signal.h>\n"
                                      "__attribute__((constructor)) static void boom(void) {\n"
                                      "  signal(SIGSEGV, SIG_DFL);\n"
                                      "  *(volatile int *)0 = 1; }\n"
                                      "unsigned long cudnnGetVersion(void) { return 90100; }\n"));
    /* A library whose own dependency is gone: dlopen fails with the loader's message. */
    assert_true(compile("libgone", "int gone(void) { return 0; }\n"));
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "cc -shared -fPIC -o %s/cudart_dep.so %s/cudart.c -Wl,--no-as-needed -L%s "
             "-l:libgone.so && rm %s/libgone.so",
             fakes, fakes, fakes, fakes);
    assert_int_equal(system(cmd), 0);

    struct gd_version_call calls[] = {
        call("cudart", "cudaRuntimeGetVersion", GD_CALL_INT_OUT, "cuda_int"),
        call("cudart_err", "cudaRuntimeGetVersion", GD_CALL_INT_OUT, "cuda_int"),
        call("cudnn", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("cudnn_crash", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("cudnn_hang", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("cudnn_nosym", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("cudnn_exit", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("cudnn_abort", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("nccl", "ncclGetVersion", GD_CALL_INT_OUT, "nccl_int"),
        call("cublas", "cublasGetProperty", GD_CALL_PROPERTY, NULL),
        call("missing", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("cudnn_junk", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("cudnn_ctor", "cudnnGetVersion", GD_CALL_SIZE_T_RETURN, "cudnn_int"),
        call("cudart_dep", "cudaRuntimeGetVersion", GD_CALL_INT_OUT, "cuda_int"),
    };
    size_t n = sizeof calls / sizeof *calls;
    double t0 = now_s();
    assert_int_equal(gd_version_calls_run(calls, n, 1500), GD_OK);
    double took = now_s() - t0;
    if (took > 4.0)
        fail_msg("%zu calls with a 1.5 s deadline took %.2f s", n, took);
    struct {
        bool ok;
        const char *version, *detail;
    } want[] = {
        { true, "12.4", "cudaRuntimeGetVersion returned 12040" },
        { false, NULL, "cudaRuntimeGetVersion returned error 35" },
        { true, "9.1.0", "cudnnGetVersion returned 90100" },
        { false, NULL, "crashed with SIGSEGV during call" },
        { false, NULL, "call of cudnnGetVersion did not finish in time (killed)" },
        { false, NULL, "the library has no cudnnGetVersion" },
        { false, NULL, "exited with status 3 during call" },
        { false, NULL, "crashed with SIGABRT during call" },
        { true, "2.20.5", "ncclGetVersion returned 22005" },
        { true, "12.4.5", "cublasGetProperty returned 12.4.5" },
        { false, NULL, "dlopen failed: " },
        { false, NULL, "cudnnGetVersion returned 0, not a version" },
        { false, NULL, "crashed with SIGSEGV during dlopen" },
        { false, NULL, "dlopen failed: libgone.so: cannot open shared object file" },
    };
    for (size_t i = 0; i < n; i++) {
        const struct gd_version_call *c = &calls[i];
        if (c->ok != want[i].ok || strncmp(c->detail, want[i].detail, strlen(want[i].detail)))
            fail_msg("%s: ok=%d \"%s\", want ok=%d \"%s\"", c->path, c->ok, c->detail, want[i].ok,
                     want[i].detail);
        if (want[i].version) {
            char v[GD_VERSION_TEXT_MAX];
            gd_version_format(&c->version, v, sizeof v);
            assert_string_equal(v, want[i].version);
        }
    }
    assert_non_null(strstr(calls[10].detail, "missing.so"));
    assert_int_equal(gd_version_calls_run(NULL, 0, 10), GD_OK);
    tu_rmtree(fakes);
    free(fakes);
}
#endif

/* The probes' child functions: named once each, and each argument the same after its trip
 * through text (what a Windows child gets), a malformed one refused. */
static void unpack_again(const struct gd_child_def *def, const void *arg, void *out)
{
    struct gd_child_args a;
    memset(&a, 0, sizeof a);
    def->pack(arg, &a);
    memset(out, 0, def->arg_size); /* as the child's calloc gives it */
    if (!def->unpack(&a, out))
        fail_msg("%s: its own values do not make an argument", def->name);
}

static bool unpacks(const struct gd_child_def *def, const char *const *values, size_t n)
{
    struct gd_child_args a;
    memset(&a, 0, sizeof a);
    for (size_t i = 0; i < n; i++)
        gd_child_args_str(&a, values[i]);
    void *arg = calloc(1, def->arg_size);
    assert_non_null(arg);
    bool ok = def->unpack(&a, arg);
    free(arg);
    return ok;
}

static void same(const char *a, const char *b)
{
    if (a && b)
        assert_string_equal(a, b);
    else
        assert_true(a == b);
}

static void test_probe_child_args(void **state)
{
    (void)state;
    for (size_t i = 0; i < gd_probe_child_def_count; i++)
        for (size_t k = i + 1; k < gd_probe_child_def_count; k++)
            assert_string_not_equal(gd_probe_child_defs[i]->name, gd_probe_child_defs[k]->name);

    struct gd_live_env env = { "GPU-1b965d81,1", NULL, NULL }, env2;
    unpack_again(&gd_live_cuda_def, &env, &env2);
    same(env2.visible, env.visible);
    same(env2.order, NULL);
    same(env2.lib, NULL);
    /* The driver library travels: a name, or the path the Windows driver probe found. */
    struct gd_live_env nvml = { NULL, NULL, "C:/Program Files/NVIDIA Corporation/NVSMI/nvml.dll" };
    unpack_again(&gd_live_nvml_def, &nvml, &env2);
    same(env2.lib, nvml.lib);
    same(env2.visible, NULL);
    env.lib = "nvcuda.dll";
    unpack_again(&gd_live_cuda_def, &env, &env2);
    same(env2.lib, "nvcuda.dll");

    struct gd_cudart_arg rt = { { "", "PCI_BUS_ID", NULL },
                                "C:/Program Files/x y/cudart64_12.dll" },
                         rt2;
    unpack_again(&gd_live_cudart_def, &rt, &rt2);
    same(rt2.env.visible, "");
    same(rt2.env.order, "PCI_BUS_ID");
    same(rt2.path, rt.path);

    const struct gd_child_def *smokes[] = { &gd_smoke_device_def, &gd_smoke_library_def,
                                            &gd_smoke_nccl_def };
    struct gd_smoke_arg sm = { { "0", "FASTEST_FIRST", "C:/Windows/System32/nvcuda.dll" },
                               -1,
                               GD_SMOKE_NCCL,
                               NULL },
                        sm2;
    for (size_t i = 0; i < 3; i++) {
        unpack_again(smokes[i], &sm, &sm2);
        same(sm2.env.visible, "0");
        same(sm2.env.lib, sm.env.lib);
        assert_int_equal(sm2.device, -1);
        assert_int_equal(sm2.family, GD_SMOKE_NCCL);
        assert_null(sm2.path);
    }
    sm.device = 7;
    sm.family = GD_SMOKE_CUDNN;
    sm.path = "/usr/lib/x86_64-linux-gnu/libcudnn.so.9";
    unpack_again(&gd_smoke_library_def, &sm, &sm2);
    assert_int_equal(sm2.device, 7);
    assert_int_equal(sm2.family, GD_SMOKE_CUDNN);
    same(sm2.path, sm.path);

    struct gd_version_call c, c2;
    memset(&c, 0, sizeof c);
    c.path = "/opt/x/libcublas.so.12";
    c.symbol = "cublasGetProperty";
    c.kind = GD_CALL_PROPERTY;
    unpack_again(&gd_version_call_def, &c, &c2);
    same(c2.path, c.path);
    same(c2.symbol, c.symbol);
    assert_int_equal(c2.kind, GD_CALL_PROPERTY);

    /* Values that make no argument: too few or many, a number that is none or out of range. */
    static const char *const v[] = { "0", "order", "nvcuda.dll", "3", "1", "/lib", "extra" };
    assert_true(unpacks(&gd_smoke_device_def, v, 6));
    assert_false(unpacks(&gd_smoke_device_def, v, 5));
    assert_false(unpacks(&gd_smoke_device_def, v, 7));
    static const char *const bad_family[] = { "0", "order", NULL, "3", "9", "/lib" };
    assert_false(unpacks(&gd_smoke_device_def, bad_family, 6));
    static const char *const bad_device[] = { "0", "order", NULL, "3x", "1", "/lib" };
    assert_false(unpacks(&gd_smoke_device_def, bad_device, 6));
    static const char *const huge_device[] = { "0", "order", NULL, "99999999999", "1", "/lib" };
    assert_false(unpacks(&gd_smoke_device_def, huge_device, 6));
    static const char *const no_path[] = { NULL, NULL, NULL, NULL };
    assert_false(unpacks(&gd_live_cudart_def, no_path, 4));
    assert_true(unpacks(&gd_live_cuda_def, no_path, 3));
    assert_false(unpacks(&gd_live_cuda_def, no_path, 4));
    assert_false(unpacks(&gd_live_nvml_def, no_path, 2));
    static const char *const call[] = { "/lib/x.so", "f", "2" };
    assert_true(unpacks(&gd_version_call_def, call, 3));
    static const char *const bad_kind[] = { "/lib/x.so", "f", "3" };
    assert_false(unpacks(&gd_version_call_def, bad_kind, 3));
    assert_false(unpacks(&gd_version_call_def, call, 2));
}

static void test_call_kinds(void **state)
{
    (void)state;
    enum gd_call_kind k = GD_CALL_PROPERTY;
    assert_true(gd_call_kind_parse("int_out", &k));
    assert_int_equal(k, GD_CALL_INT_OUT);
    assert_true(gd_call_kind_parse("size_t_return", &k));
    assert_int_equal(k, GD_CALL_SIZE_T_RETURN);
    assert_true(gd_call_kind_parse("property", &k));
    assert_int_equal(k, GD_CALL_PROPERTY);
    assert_false(gd_call_kind_parse("Property", &k));
    assert_false(gd_call_kind_parse("", &k));
    assert_false(gd_call_kind_parse(NULL, &k));
    assert_int_equal(k, GD_CALL_PROPERTY);
}

int main(int argc, char **argv)
{
    /* A function child of the Windows build is this program again: run it and exit. */
    static const struct gd_child_def *const defs[] = {
        &reports_def,           &exits_3_def, &segfaults_def, &aborts_def, &hangs_def,
        &huge_line_def,         &silent_def,  &chatty_def,    &naps_def,   &gd_version_call_def,
#ifndef _WIN32
        &leaves_grandchild_def,
#endif
    };
    gd_os_child_serve(argc, argv, defs, sizeof defs / sizeof *defs);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reports_and_exits),
        cmocka_unit_test(test_signals),
        cmocka_unit_test(test_deadline),
        cmocka_unit_test(test_grandchild),
        cmocka_unit_test(test_output_cap),
        cmocka_unit_test(test_parallel),
        cmocka_unit_test(test_start_fails_half_way),
        cmocka_unit_test(test_program_streams),
        cmocka_unit_test(test_program_exec_failed),
        cmocka_unit_test(test_program_signals),
        cmocka_unit_test(test_program_deadline),
        cmocka_unit_test(test_program_flood),
        cmocka_unit_test(test_program_mixed),
        cmocka_unit_test(test_watched),
        cmocka_unit_test(test_version_calls),
        cmocka_unit_test(test_call_kinds),
        cmocka_unit_test(test_probe_child_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
