/* ld.so.conf: the line parser, and whole configurations with their includes read inside a root
 * the way ldconfig reads them. */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "loader/ldconf.h"
#include "sysroot/sysroot.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

/* ---- the parser ---------------------------------------------------------------------------- */

struct seen {
    char text[8192];
    size_t calls, stop_after;
};

static bool record(struct seen *s, const char *kind, const char *text, size_t line)
{
    size_t n = strlen(s->text);
    snprintf(s->text + n, sizeof s->text - n, "%s%s:%zu:%s", n ? " | " : "", kind, line, text);
    s->calls++;
    return s->stop_after == 0 || s->calls < s->stop_after;
}

static bool on_dir(void *user, const char *text, size_t line)
{
    return record(user, "dir", text, line);
}

static bool on_include(void *user, const char *text, size_t line)
{
    return record(user, "include", text, line);
}

static const char *parse(const char *text, size_t len, size_t stop_after)
{
    static struct seen s;
    memset(&s, 0, sizeof s);
    s.stop_after = stop_after;
    assert_int_equal(gd_ldconf_parse(text, len, on_dir, on_include, &s), GD_OK);
    return s.text;
}

static void test_parse(void **state)
{
    (void)state;
    static const char conf[] = "# the main file\n"
                               "include /etc/ld.so.conf.d/*.conf\n"
                               "\n"
                               "   /usr/local/lib   # trailing comment\n"
                               "\t/opt/x=libc6\n"
                               "include\ta.conf  b.conf\t c/*.conf \n"
                               "hwcap 1 nosegneg\n"
                               "HWCAP\t0 tls\n"
                               "#/commented/out\n"
                               "/lib/with space\r\n"
                               "includes/not-a-keyword\n"
                               "include\n"
                               "/last/without/newline";
    assert_string_equal(parse(conf, sizeof conf - 1, 0),
                        "include:2:/etc/ld.so.conf.d/*.conf | dir:4:/usr/local/lib | "
                        "dir:5:/opt/x=libc6 | include:6:a.conf | include:6:b.conf | "
                        "include:6:c/*.conf | dir:10:/lib/with space | "
                        "dir:11:includes/not-a-keyword | dir:12:include | "
                        "dir:13:/last/without/newline");
    /* The callbacks stop the parse. */
    assert_string_equal(parse(conf, sizeof conf - 1, 2),
                        "include:2:/etc/ld.so.conf.d/*.conf | dir:4:/usr/local/lib");
    assert_string_equal(parse(conf, sizeof conf - 1, 4),
                        "include:2:/etc/ld.so.conf.d/*.conf | dir:4:/usr/local/lib | "
                        "dir:5:/opt/x=libc6 | include:6:a.conf");
    /* Nothing read outside the buffer: a length that cuts the text. */
    assert_string_equal(parse("/usr/lib64\n/opt", 13, 0), "dir:1:/usr/lib64 | dir:2:/o");
    assert_string_equal(parse("", 0, 0), "");
    assert_string_equal(parse("# only\n\n  \t\n", 12, 0), "");
    /* A NUL inside a line, and a line longer than 4096 bytes, are not directories. */
    static const char nul[] = "/a\0b\n/c\n";
    assert_string_equal(parse(nul, sizeof nul - 1, 0), "dir:2:/c");
    char *longline = malloc(5000 + 8);
    longline[0] = '/';
    memset(longline + 1, 'x', 4999);
    memcpy(longline + 5000, "\n/ok\n", 6);
    assert_string_equal(parse(longline, 5005, 0), "dir:2:/ok");
    free(longline);
}

/* ---- whole configurations in a root -------------------------------------------------------- */

static char *joined(const struct gd_strlist *l)
{
    size_t n = 1;
    for (size_t i = 0; i < l->count; i++)
        n += strlen(l->items[i]) + 3;
    char *s = calloc(1, n);
    for (size_t i = 0; i < l->count; i++) {
        if (i)
            strcat(s, " | ");
        strcat(s, l->items[i]);
    }
    return s;
}

static void expect_list(const struct gd_strlist *l, const char *want)
{
    char *got = joined(l);
    if (strcmp(got, want) != 0)
        fail_msg("got  %s\nwant %s", got, want);
    free(got);
}

static struct gd_root *new_root(const char *dir)
{
    struct gd_root *root = NULL;
    assert_int_equal(gd_root_new(dir, &root), GD_OK);
    return root;
}

static void test_read(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("ldconf");
    tu_write(dir, "etc/ld.so.conf",
             "include /etc/ld.so.conf.d/*.conf\n"
             "/usr/local/lib/\n"
             "/opt/typed=libc6\n"
             "/usr/local/lib\n"
             "relative/dir\n"
             "/\n"
             "hwcap 0 nosegneg\n");
    tu_write(dir, "etc/ld.so.conf.d/00-cuda.conf", "/usr/local/cuda/lib64//\n/usr/local/lib\n");
    /* Relative patterns count from the including file's directory. */
    tu_write(dir, "etc/ld.so.conf.d/10-rel.conf", "include ../extra/*.conf sub/*.conf\n");
    tu_write(dir, "etc/extra/e.conf", "/opt/extra/lib\n");
    tu_write(dir, "etc/ld.so.conf.d/sub/s1.conf", "/opt/sub/one\n");
    tu_write(dir, "etc/ld.so.conf.d/sub/s2.conf", "/opt/sub/two # comment\n");
    tu_write(dir, "etc/ld.so.conf.d/20-x86_64-linux-gnu.conf",
             "# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n"
             "/usr/lib/x86_64-linux-gnu\n");
    tu_write(dir, "etc/ld.so.conf.d/notes.txt", "/not/read\n");
    tu_write(dir, "etc/ld.so.conf.d/.hidden.conf", "/not/read/either\n");
    struct gd_root *root = new_root(dir);
    struct gd_ldconf conf;
    assert_int_equal(gd_ldconf_read(root, "/etc/ld.so.conf", &conf), GD_OK);
    expect_list(&conf.dirs, "/usr/local/cuda/lib64 | /usr/local/lib | /opt/extra/lib | "
                            "/opt/sub/one | /opt/sub/two | /usr/local/lib/x86_64-linux-gnu | "
                            "/lib/x86_64-linux-gnu | /usr/lib/x86_64-linux-gnu | /opt/typed | /");
    expect_list(&conf.files, "/etc/ld.so.conf | /etc/ld.so.conf.d/00-cuda.conf | "
                             "/etc/ld.so.conf.d/10-rel.conf | /etc/ld.so.conf.d/../extra/e.conf | "
                             "/etc/ld.so.conf.d/sub/s1.conf | /etc/ld.so.conf.d/sub/s2.conf | "
                             "/etc/ld.so.conf.d/20-x86_64-linux-gnu.conf");
    expect_list(&conf.problems, "");
    gd_ldconf_free(&conf);
    /* A missing main file is an empty configuration. */
    assert_int_equal(gd_ldconf_read(root, "/etc/none.conf", &conf), GD_OK);
    assert_int_equal(conf.dirs.count + conf.files.count + conf.problems.count, 0);
    gd_ldconf_free(&conf);
    gd_ldconf_free(NULL);
    gd_root_free(root);
    tu_rmtree(dir);
    free(dir);
}

/* Absolute includes and absolute symlinks stay inside the root. */
static void test_inside_root(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("ldconf-root");
    tu_write(dir, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
    tu_symlink(dir, "etc/ld.so.conf.d/cuda.conf", "/opt/cuda.conf");
    tu_write(dir, "opt/cuda.conf", "/usr/local/cuda-12.4/lib64\n");
    tu_symlink(dir, "etc/ld.so.conf.d/up.conf", "../../../../../../etc/hostname");
    tu_write(dir, "etc/hostname", "/inside/the/root\n");
    struct gd_root *root = new_root(dir);
    struct gd_ldconf conf;
    assert_int_equal(gd_ldconf_read(root, "/etc/ld.so.conf", &conf), GD_OK);
    expect_list(&conf.dirs, "/usr/local/cuda-12.4/lib64 | /inside/the/root");
    gd_ldconf_free(&conf);
    gd_root_free(root);
    tu_rmtree(dir);
    free(dir);
}

/* A file that includes itself: the nesting is capped and the problem named once. */
static void test_include_loop(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("ldconf-loop");
    tu_write(dir, "etc/ld.so.conf", "include /etc/ld.so.conf\n/usr/lib/loop\n");
    struct gd_root *root = new_root(dir);
    struct gd_ldconf conf;
    assert_int_equal(gd_ldconf_read(root, "/etc/ld.so.conf", &conf), GD_OK);
    expect_list(&conf.dirs, "/usr/lib/loop");
    assert_int_equal(conf.files.count, GD_LDCONF_MAX_DEPTH + 1);
    expect_list(&conf.problems, "/etc/ld.so.conf:1: includes nest deeper than 16 (a loop?): "
                                "/etc/ld.so.conf not read");
    gd_ldconf_free(&conf);
    gd_root_free(root);
    tu_rmtree(dir);
    free(dir);
}

/* Files that each include all of them: the work must stay bounded (not 3^16 reads). */
static void test_include_fanout(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("ldconf-fan");
    tu_write(dir, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
    for (int i = 0; i < 4; i++) {
        char rel[64], text[128];
        snprintf(rel, sizeof rel, "etc/ld.so.conf.d/%d.conf", i);
        snprintf(text, sizeof text, "/opt/fan/%d\ninclude /etc/ld.so.conf.d/*.conf\n", i);
        tu_write(dir, rel, text);
    }
    struct gd_root *root = new_root(dir);
    struct gd_ldconf conf;
    double t0 = tu_now_s();
    assert_int_equal(gd_ldconf_read(root, "/etc/ld.so.conf", &conf), GD_OK);
    double s = tu_now_s() - t0;
    expect_list(&conf.dirs, "/opt/fan/0 | /opt/fan/1 | /opt/fan/2 | /opt/fan/3");
    assert_true(conf.problems.count >= 1);
    if (conf.files.count > 4096 || s > 5)
        fail_msg("%zu files read in %.1f s", conf.files.count, s);
    gd_ldconf_free(&conf);
    gd_root_free(root);
    tu_rmtree(dir);
    free(dir);
}

/* An include that names a directory or a FIFO is a problem of that file; a dangling link is
 * as if absent, as glob(3) lists it and ldconfig cannot open it. */
static void test_unreadable_include(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("ldconf-bad");
    tu_write(dir, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*\n/usr/lib/after\n");
    tu_mkdirs(dir, "etc/ld.so.conf.d/a-dir");
    tu_mkfifo(dir, "etc/ld.so.conf.d/b-fifo");
    tu_symlink(dir, "etc/ld.so.conf.d/c-dangling", "nowhere");
    tu_write(dir, "etc/ld.so.conf.d/d.conf", "/usr/lib/d\n");
    struct gd_root *root = new_root(dir);
    struct gd_ldconf conf;
    assert_int_equal(gd_ldconf_read(root, "/etc/ld.so.conf", &conf), GD_OK);
    expect_list(&conf.dirs, "/usr/lib/d | /usr/lib/after");
    expect_list(&conf.files, "/etc/ld.so.conf | /etc/ld.so.conf.d/d.conf");
    assert_int_equal(conf.problems.count, 2);
    assert_non_null(strstr(conf.problems.items[0], "/etc/ld.so.conf.d/a-dir: "));
    assert_non_null(strstr(conf.problems.items[1], "/etc/ld.so.conf.d/b-fifo: "));
    gd_ldconf_free(&conf);
    /* The main file itself unreadable (a directory): a problem, no directories. */
    assert_int_equal(gd_ldconf_read(root, "/etc/ld.so.conf.d", &conf), GD_OK);
    assert_int_equal(conf.dirs.count, 0);
    assert_int_equal(conf.problems.count, 1);
    gd_ldconf_free(&conf);
    gd_root_free(root);
    tu_rmtree(dir);
    free(dir);
}

/* Past GD_LDCONF_MAX_DIRS directories, the rest are left out. */
static void test_many_dirs(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("ldconf-many");
    size_t n = GD_LDCONF_MAX_DIRS + 10, cap = n * 24 + 1, len = 0;
    char *text = malloc(cap);
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "/opt/d%zu\n", i);
    tu_write(dir, "etc/ld.so.conf", text);
    free(text);
    struct gd_root *root = new_root(dir);
    struct gd_ldconf conf;
    assert_int_equal(gd_ldconf_read(root, "/etc/ld.so.conf", &conf), GD_OK);
    assert_int_equal(conf.dirs.count, GD_LDCONF_MAX_DIRS);
    assert_string_equal(conf.dirs.items[GD_LDCONF_MAX_DIRS - 1], "/opt/d4095");
    gd_ldconf_free(&conf);
    gd_root_free(root);
    tu_rmtree(dir);
    free(dir);
}

/* Each allocation failed in turn: GD_ENOMEM (the result freed), or a root that says it ran
 * out of memory; never a shorter configuration taken for the real one. */
static void test_alloc_failures(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("ldconf-oom");
    tu_write(dir, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n/usr/local/lib\n");
    tu_write(dir, "etc/ld.so.conf.d/a.conf", "/opt/a\ninclude b/*.conf\n");
    tu_write(dir, "etc/ld.so.conf.d/b/b.conf", "/opt/b\n");
    tu_mkdirs(dir, "etc/ld.so.conf.d/d.conf");
    struct gd_root *root = new_root(dir);
    struct gd_ldconf conf;
    gd_alloc_fail_at(0);
    assert_int_equal(gd_ldconf_read(root, "/etc/ld.so.conf", &conf), GD_OK);
    unsigned long total = gd_alloc_fail_at(0);
    char *want = joined(&conf.dirs);
    gd_ldconf_free(&conf);
    gd_root_free(root);
    assert_string_equal(want, "/opt/a | /opt/b | /usr/local/lib");
    for (unsigned long n = 1; n <= total; n++) {
        root = new_root(dir);
        gd_alloc_fail_at(n);
        enum gd_status st = gd_ldconf_read(root, "/etc/ld.so.conf", &conf);
        gd_alloc_fail_at(0);
        if (st == GD_OK) {
            char *got = joined(&conf.dirs);
            if (strcmp(got, want) != 0 && !gd_root_out_of_memory(root))
                fail_msg("allocation %lu of %lu failed: GD_OK with %s", n, total, got);
            free(got);
        } else {
            assert_int_equal(st, GD_ENOMEM);
            assert_int_equal(conf.dirs.count + conf.files.count + conf.problems.count, 0);
        }
        gd_ldconf_free(&conf);
        gd_root_free(root);
    }
    free(want);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),          cmocka_unit_test(test_read),
        cmocka_unit_test(test_inside_root),    cmocka_unit_test(test_include_loop),
        cmocka_unit_test(test_include_fanout), cmocka_unit_test(test_unreadable_include),
        cmocka_unit_test(test_many_dirs),      cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
