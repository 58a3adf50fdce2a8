/* Wildcards: gd_glob_match against glob(3)'s rules (checked with fnmatch(3) where it has a
 * view), and gd_root_glob expanding patterns inside a root, sorted, bounded. */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "core/glob.h"
#include "sysroot/glob.h"
#include "sysroot/sysroot.h"

#ifndef _WIN32
#include <fnmatch.h> /* the table's cross-check: Windows' C library has no fnmatch(3) */
#endif
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

struct match_case {
    const char *pattern, *name;
    bool match;
};

static const struct match_case match_cases[] = {
    /* Literals. */
    { "ld.so.conf", "ld.so.conf", true },
    { "ld.so.conf", "ld.so.conf2", false },
    { "ld.so.conf", "ld.so.con", false },
    { "", "", true },
    { "", "a", false },
    /* A trailing backslash escapes nothing: fnmatch(3) matches nothing with it. */
    { "ab\\", "ab\\", false },
    { "ab\\", "ab", false },
    { "a", "", false },
    /* '*': any run, the empty one too, anywhere. */
    { "*", "cuda.conf", true },
    { "*.conf", "cuda.conf", true },
    { "*.conf", ".conf", false }, /* a leading dot needs a literal dot */
    { "*.conf", "cuda.conf.bak", false },
    { "*.conf", "conf", false },
    { "cuda*", "cuda", true },
    { "cu*da", "cuda", true },
    { "cu*da", "cu-x-da", true },
    { "*a*b*c*", "xaxbxcx", true },
    { "*a*b*c*", "xaxcxbx", false },
    { "**", "abc", true },
    { "*.so.*", "libcudnn.so.9.1.0", true },
    { "*x", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxy", false },
    { "a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false },
    /* '?': exactly one character. */
    { "?", "a", true },
    { "?", "", false },
    { "?", "ab", false },
    { "lib?.so", "libz.so", true },
    { "lib?.so", "libzz.so", false },
    { "?conf", ".conf", false }, /* not a leading dot either */
    /* Bracket expressions. */
    { "[a-z]", "q", true },
    { "[a-z]", "Q", false },
    { "[a-z]", "-", false },
    { "[abc]x", "bx", true },
    { "[abc]x", "dx", false },
    { "[!x]", "y", true },
    { "[!x]", "x", false },
    { "[^x]", "x", false },
    { "[^x]", "z", true },
    { "[0-9][0-9]-*.conf", "10-cuda.conf", true },
    { "[0-9][0-9]-*.conf", "x0-cuda.conf", false },
    { "[]]", "]", true }, /* a ']' first is a member */
    { "[!]]", "]", false },
    { "[!]]", "a", true },
    { "[a-]", "-", true }, /* a '-' last is a member */
    { "[a-]", "a", true },
    { "[a-]", "b", false },
    { "[.]conf", ".conf", false }, /* a class does not match a leading dot */
    /* Bytes above 127 compare unsigned: UTF-8 "é" (0xc3 0xa9) lies in [a-\xff]. */
    { "[a-\xff][a-\xff]", "\xc3\xa9", true },
    { "[\x01-\x7f]", "\xc3", false },
    /* An unterminated '[' is a literal. */
    { "[", "[", true },
    { "[ab", "[ab", true },
    { "[ab", "a", false },
    { "x[", "x[", true },
    { "x[", "xa", false },
    /* Escapes. */
    { "\\*", "*", true },
    { "\\*", "a", false },
    { "\\?", "?", true },
    { "\\?", "x", false },
    { "\\[a]", "[a]", true },
    { "\\[a]", "a", false },
    { "\\.hidden", ".hidden", true }, /* an escaped dot is a literal dot */
    /* Leading dots. */
    { ".*", ".hidden", true },
    { ".*", "visible", false },
    { "*", ".hidden", false },
    { ".conf", ".conf", true },
    { "x.*", "x.conf", true }, /* only the first character counts */
};

/* The table, and glibc's fnmatch(3) with FNM_PERIOD (the flags glob(3) uses per component)
 * agreeing with it. */
static void test_match_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof match_cases / sizeof *match_cases; i++) {
        const struct match_case *c = &match_cases[i];
        bool got = gd_glob_match(c->pattern, c->name);
        if (got != c->match)
            fail_msg("gd_glob_match(\"%s\", \"%s\") = %s, want %s", c->pattern, c->name,
                     got ? "true" : "false", c->match ? "true" : "false");
#ifndef _WIN32
        bool libc = fnmatch(c->pattern, c->name, FNM_PERIOD) == 0;
        if (libc != c->match)
            fail_msg("the table disagrees with fnmatch(\"%s\", \"%s\", FNM_PERIOD) = %s",
                     c->pattern, c->name, libc ? "match" : "no match");
#endif
    }
}

static void test_has_magic(void **state)
{
    (void)state;
    assert_true(gd_glob_has_magic("*.conf"));
    assert_true(gd_glob_has_magic("a?b"));
    assert_true(gd_glob_has_magic("[ab]"));
    assert_false(gd_glob_has_magic("/etc/ld.so.conf.d/cuda.conf"));
    assert_false(gd_glob_has_magic(""));
}

static char *tree;
/* Whether the tree has its two links (a dangling one, cuda -> cuda-12.4): where the system
 * makes none (wine 8), the cases run without them and expect what such a tree holds. */
static bool links = true;

static int setup(void **state)
{
    (void)state;
    tree = tu_mkdtemp("glob");
    tu_write(tree, "etc/ld.so.conf.d/b.conf", "");
    tu_write(tree, "etc/ld.so.conf.d/a.conf", "");
    tu_write(tree, "etc/ld.so.conf.d/C.conf", "");
    tu_write(tree, "etc/ld.so.conf.d/.hidden.conf", "");
    tu_write(tree, "etc/ld.so.conf.d/notes.txt", "");
    tu_mkdirs(tree, "etc/ld.so.conf.d/dir.conf");
    links = tu_try_symlink(tree, "etc/ld.so.conf.d/z-dangling.conf", "nowhere");
    tu_write(tree, "usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12", "");
    tu_write(tree, "usr/local/cuda-11.8/targets/x86_64-linux/lib/libcudart.so.11.0", "");
    tu_write(tree, "usr/local/cuda-11.8/targets/sbsa-linux/lib/libcudart.so.11.0", "");
    tu_write(tree, "usr/local/cuda-11.8/targets/notadir", "");
    links = links && tu_try_symlink(tree, "usr/local/cuda", "cuda-12.4");
    tu_write(tree, "usr/local/cudafile", "");
    for (int i = 0; i < 20; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "many/f%02d", i);
        tu_write(tree, rel, "");
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmtree(tree);
    free(tree);
    return 0;
}

static char *joined(const struct gd_strlist *l)
{
    size_t n = 1;
    for (size_t i = 0; i < l->count; i++)
        n += strlen(l->items[i]) + 1;
    char *s = calloc(1, n);
    for (size_t i = 0; i < l->count; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, l->items[i]);
    }
    return s;
}

static void expect_glob(struct gd_root *root, const char *pattern, size_t max,
                        enum gd_status want_st, const char *want)
{
    struct gd_strlist l = { 0 };
    enum gd_status st = gd_root_glob(root, pattern, max, &l);
    char *got = joined(&l);
    if (st != want_st || strcmp(got, want) != 0)
        fail_msg("gd_root_glob(\"%s\", %zu) = %s [%s], want %s [%s]", pattern, max,
                 gd_status_str(st), got, gd_status_str(want_st), want);
    free(got);
    gd_strlist_free(&l);
}

static void test_root_glob(void **state)
{
    (void)state;
    struct gd_root *root = NULL;
    assert_int_equal(gd_root_new(tree, &root), GD_OK);
    if (!links)
        print_message("no symbolic links on this system: the tree has neither the dangling link "
                      "nor the cuda link\n");
    /* Sorted byte-wise (C before a), hidden files left out, directories and dangling links
     * match a last component as glob(3) returns them. */
    expect_glob(root, "/etc/ld.so.conf.d/*.conf", 100, GD_OK,
                links ? "/etc/ld.so.conf.d/C.conf /etc/ld.so.conf.d/a.conf "
                        "/etc/ld.so.conf.d/b.conf /etc/ld.so.conf.d/dir.conf "
                        "/etc/ld.so.conf.d/z-dangling.conf"
                      : "/etc/ld.so.conf.d/C.conf /etc/ld.so.conf.d/a.conf "
                        "/etc/ld.so.conf.d/b.conf /etc/ld.so.conf.d/dir.conf");
    expect_glob(root, "/etc/ld.so.conf.d/.*.conf", 100, GD_OK, "/etc/ld.so.conf.d/.hidden.conf");
    expect_glob(root, "/etc/ld.so.conf.d/[ab].conf", 100, GD_OK,
                "/etc/ld.so.conf.d/a.conf /etc/ld.so.conf.d/b.conf");
    /* No wildcard: the path when it exists, nothing otherwise. */
    expect_glob(root, "/etc/ld.so.conf.d/a.conf", 100, GD_OK, "/etc/ld.so.conf.d/a.conf");
    expect_glob(root, "/etc/ld.so.conf.d/none.conf", 100, GD_OK, "");
    expect_glob(root, "/nowhere/*.conf", 100, GD_OK, "");
    /* Several levels, sorted level by level; only directories lead on; symlinks followed. */
    const char *cuda_lib = links ? "/usr/local/cuda/targets/x86_64-linux/lib " : "";
    char want[1024];
    snprintf(want, sizeof want,
             "%s/usr/local/cuda-11.8/targets/sbsa-linux/lib "
             "/usr/local/cuda-11.8/targets/x86_64-linux/lib "
             "/usr/local/cuda-12.4/targets/x86_64-linux/lib",
             cuda_lib);
    expect_glob(root, "/usr/local/cuda*/targets/*/lib", 100, GD_OK, want);
    expect_glob(root, "/usr/local/cuda-11.8/targets/*", 100, GD_OK,
                "/usr/local/cuda-11.8/targets/notadir /usr/local/cuda-11.8/targets/sbsa-linux "
                "/usr/local/cuda-11.8/targets/x86_64-linux");
    expect_glob(root, "/usr/local/cuda-11.8/targets/*/", 100, GD_OK,
                "/usr/local/cuda-11.8/targets/sbsa-linux "
                "/usr/local/cuda-11.8/targets/x86_64-linux");
    expect_glob(root, "/usr/local/cuda*/targets/x86_64-linux/lib/libcudart.so.1?", 100, GD_OK,
                links ? "/usr/local/cuda/targets/x86_64-linux/lib/libcudart.so.12 "
                        "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12"
                      : "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12");
    /* Doubled slashes are one. */
    expect_glob(root, "//etc//ld.so.conf.d//b.conf", 100, GD_OK, "/etc/ld.so.conf.d/b.conf");
    /* The cap: GD_ELIMIT, with what was found kept. */
    expect_glob(root, "/many/*", 20, GD_OK,
                "/many/f00 /many/f01 /many/f02 /many/f03 /many/f04 /many/f05 /many/f06 "
                "/many/f07 /many/f08 /many/f09 /many/f10 /many/f11 /many/f12 /many/f13 "
                "/many/f14 /many/f15 /many/f16 /many/f17 /many/f18 /many/f19");
    expect_glob(root, "/many/*", 3, GD_ELIMIT, "/many/f00 /many/f01 /many/f02");
    expect_glob(root, "/many/f0?", 0, GD_ELIMIT, "");
    /* A component longer than any name: nothing, no crash. */
    char longpat[2200] = "/many/";
    memset(longpat + 6, '?', 2100);
    expect_glob(root, longpat, 100, GD_OK, "");
    /* Results are appended to what the list held. */
    struct gd_strlist l = { 0 };
    assert_int_equal(gd_strlist_push(&l, "/first"), GD_OK);
    assert_int_equal(gd_root_glob(root, "/etc/ld.so.conf.d/a*", 10, &l), GD_OK);
    assert_int_equal(l.count, 2);
    assert_string_equal(l.items[1], "/etc/ld.so.conf.d/a.conf");
    gd_strlist_free(&l);
    gd_root_free(root);
}

/* Each allocation failed in turn: GD_ENOMEM, or (when the failure hit the root's own
 * bookkeeping, which says so) a root marked out of memory; never a shorter answer as GD_OK. */
static void test_root_glob_alloc_failures(void **state)
{
    (void)state;
    struct gd_root *root = NULL;
    assert_int_equal(gd_root_new(tree, &root), GD_OK);
    struct gd_strlist l = { 0 };
    gd_alloc_fail_at(0);
    assert_int_equal(gd_root_glob(root, "/usr/local/cuda*/targets/*/lib", 100, &l), GD_OK);
    unsigned long total = gd_alloc_fail_at(0);
    size_t want = l.count;
    gd_strlist_free(&l);
    gd_root_free(root);
    for (unsigned long n = 1; n <= total; n++) {
        assert_int_equal(gd_root_new(tree, &root), GD_OK);
        gd_alloc_fail_at(n);
        enum gd_status st = gd_root_glob(root, "/usr/local/cuda*/targets/*/lib", 100, &l);
        gd_alloc_fail_at(0);
        if (st == GD_OK && l.count != want)
            fail_msg("allocation %lu of %lu failed: GD_OK with %zu of %zu paths", n, total, l.count,
                     want);
        assert_true(st == GD_OK || st == GD_ENOMEM);
        gd_strlist_free(&l);
        gd_root_free(root);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match_table),
        cmocka_unit_test(test_has_magic),
        cmocka_unit_test(test_root_glob),
        cmocka_unit_test(test_root_glob_alloc_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
