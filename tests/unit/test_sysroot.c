/* The sysroot: every path confined to the root, symlinks resolved as the kernel would with the
 * root as "/", and what goes wrong on the way returned as a status and kept as an anomaly. */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "sysroot/sysroot.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#ifndef _WIN32
#include <grp.h>
#include <sys/wait.h>
#endif

#include <cmocka.h>

#include "testutil.h"

static char *tree;
/* Whether the tree has its symlinks and its FIFO: a system without them (Windows has no FIFO;
 * wine 8 makes no symlink) runs what needs neither, and skips the rest, saying so. */
static bool links = true, fifo = true;

static void need(bool have, const char *what)
{
    if (!have) {
        print_message("the tree has no %s on this system: skipped\n", what);
        skip();
    }
}

/* The first link the system refuses ends the trying (and the messages). */
#define LINK(rel, target) (links = links && tu_try_symlink(tree, rel, target))

/* The tree every test reads. Paths name what each entry is for. */
static int setup(void **state)
{
    (void)state;
    tree = tu_mkdtemp("sysroot");
    tu_write(tree, "etc/passwd", "root-inside\n");
    tu_write(tree, "etc/os-release", "ID=debian\n");
    tu_write(tree, "usr/lib/x86_64-linux-gnu/libfoo.so.1.2.3", "libfoo");
    LINK("usr/lib/x86_64-linux-gnu/libfoo.so.1", "libfoo.so.1.2.3");
    LINK("usr/lib/x86_64-linux-gnu/libabs.so", "/usr/lib/x86_64-linux-gnu/libfoo.so.1");
    LINK("lib", "usr/lib");    /* merged /usr, relative */
    LINK("lib64", "/usr/lib"); /* absolute, inside the root */
    LINK("esc/passwd-abs", "/etc/passwd");
    LINK("esc/passwd-rel", "../../../../etc/passwd");
    LINK("esc/passwd-ok", "../etc/passwd");
    LINK("esc/up", "../../..");
    LINK("esc/etc-abs", "/etc");
    LINK("loop/a", "b");
    LINK("loop/b", "a");
    LINK("loop/self", "self");
    LINK("loop/dir", "dir/x");
    tu_write(tree, "notdir/file", "x");
    LINK("dangling", "nowhere/at/all");
    fifo = tu_try_mkfifo(tree, "fifo");
    LINK("fifo-link", "fifo");
    char hundred[100];
    for (size_t i = 0; i < sizeof hundred; i++)
        hundred[i] = (char)('0' + i % 10);
    tu_write_n(tree, "big", hundred, sizeof hundred);
    tu_write(tree, "empty", "");
    tu_write(tree, "dir/c", "c");
    tu_write(tree, "dir/a", "a");
    tu_write(tree, "dir/B", "B");
    tu_write(tree, "dir/.hidden", "h");
    tu_mkdirs(tree, "dir/sub");
    LINK("dir/link", "a");
    tu_mkdirs(tree, "emptydir");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmtree(tree);
    free(tree);
    tree = NULL;
    return 0;
}

static struct gd_root *open_tree(void)
{
    struct gd_root *root = NULL;
    assert_int_equal(gd_root_new(tree, &root), GD_OK);
    assert_non_null(root);
    return root;
}

static size_t count_kind(const struct gd_root *root, enum gd_anomaly_kind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < gd_root_anomaly_count(root); i++)
        if (gd_root_anomaly_at(root, i)->kind == kind)
            n++;
    return n;
}

static const struct gd_anomaly *find_anomaly(const struct gd_root *root, enum gd_anomaly_kind kind,
                                             const char *path)
{
    for (size_t i = 0; i < gd_root_anomaly_count(root); i++) {
        const struct gd_anomaly *a = gd_root_anomaly_at(root, i);
        if (a->kind == kind && strcmp(a->path, path) == 0)
            return a;
    }
    return NULL;
}

static void test_new(void **state)
{
    (void)state;
    struct gd_root *root = (struct gd_root *)1;
    char path[PATH_MAX];
    assert_int_equal(gd_root_new(tu_path(path, sizeof path, tree, "missing"), &root), GD_ENOENT);
    assert_null(root);
    assert_int_equal(gd_root_new(tu_path(path, sizeof path, tree, "etc/passwd"), &root),
                     GD_ENOTDIR);
    assert_null(root);

    /* A root given through a symlink (where the tree has links) and with "." and ".." is made
     * canonical. */
    tu_path(path, sizeof path, tree, links ? "lib/../../etc/./.." : "etc/../etc/./..");
    assert_int_equal(gd_root_new(path, &root), GD_OK);
    char *canon = tu_realpath(tree);
    assert_string_equal(gd_root_dir(root), canon);
    assert_false(gd_root_is_live(root));
    char *host = gd_root_host_path(root, "/etc/passwd");
    char want[PATH_MAX];
    assert_string_equal(host, tu_path(want, sizeof want, canon, "etc/passwd"));
    gd_free(host);
    host = gd_root_host_path(root, "etc/passwd"); /* relative means from the root too */
    assert_string_equal(host, want);
    gd_free(host);
    assert_int_equal(gd_root_access(root, "/etc/passwd", true, false), GD_EUNSUPPORTED);
    assert_int_equal(gd_root_anomaly_count(root), 0);
    gd_root_free(root);
    free(canon);
    gd_root_free(NULL);
}

enum { LINKS = 1, FIFO = 2 };

struct resolve_case {
    const char *path;
    bool follow_last;
    enum gd_status status;
    const char *want; /* resolved path inside the root */
    unsigned needs;   /* LINKS, FIFO: what of the tree the case walks through */
};

static const struct resolve_case resolve_cases[] = {
    { "/", true, GD_OK, "/", 0 },
    { "", true, GD_OK, "/", 0 },
    { "/etc/passwd", true, GD_OK, "/etc/passwd", 0 },
    { "etc/./passwd", true, GD_OK, "/etc/passwd", 0 },
    { "//etc///passwd", true, GD_OK, "/etc/passwd", 0 },
    { "/etc/../etc/passwd", true, GD_OK, "/etc/passwd", 0 },
    /* ".." at "/" stays at "/", as the kernel does for the real root. */
    { "/../../etc/passwd", true, GD_OK, "/etc/passwd", 0 },
    /* A trailing '/' asks for a directory, as the kernel reads it. */
    { "/etc/passwd/", true, GD_ENOTDIR, NULL, 0 },
    { "/etc/", true, GD_OK, "/etc", 0 },
    /* Relative and absolute links, in the last component and in the middle. */
    { "/usr/lib/x86_64-linux-gnu/libfoo.so.1", true, GD_OK,
      "/usr/lib/x86_64-linux-gnu/libfoo.so.1.2.3", LINKS },
    { "/usr/lib/x86_64-linux-gnu/libfoo.so.1", false, GD_OK,
      "/usr/lib/x86_64-linux-gnu/libfoo.so.1", LINKS },
    { "/usr/lib/x86_64-linux-gnu/libabs.so", true, GD_OK,
      "/usr/lib/x86_64-linux-gnu/libfoo.so.1.2.3", LINKS },
    { "/lib/x86_64-linux-gnu/libfoo.so.1", true, GD_OK, "/usr/lib/x86_64-linux-gnu/libfoo.so.1.2.3",
      LINKS },
    { "/lib64/x86_64-linux-gnu/libabs.so", true, GD_OK, "/usr/lib/x86_64-linux-gnu/libfoo.so.1.2.3",
      LINKS },
    { "/lib", false, GD_OK, "/lib", LINKS },
    { "/lib", true, GD_OK, "/usr/lib", LINKS },
    /* ".." after a link climbs from the link's target, not from the link (path_resolution(7)). */
    { "/lib/../etc/passwd", true, GD_ENOENT, NULL, LINKS },
    { "/lib/../lib/x86_64-linux-gnu", true, GD_OK, "/usr/lib/x86_64-linux-gnu", LINKS },
    /* Links out of the root land inside it. */
    { "/esc/passwd-abs", true, GD_OK, "/etc/passwd", LINKS },
    { "/esc/passwd-rel", true, GD_OK, "/etc/passwd", LINKS },
    { "/esc/passwd-ok", true, GD_OK, "/etc/passwd", LINKS },
    { "/esc/etc-abs/passwd", true, GD_OK, "/etc/passwd", LINKS },
    { "/esc/up/etc/passwd", true, GD_OK, "/etc/passwd", LINKS },
    /* Loops. */
    { "/loop/a", true, GD_ELOOP, NULL, LINKS },
    { "/loop/a", false, GD_OK, "/loop/a", LINKS },
    { "/loop/self", true, GD_ELOOP, NULL, LINKS },
    { "/loop/self/x", false, GD_ELOOP, NULL, LINKS },
    { "/loop/dir/y", true, GD_ELOOP, NULL, LINKS },
    /* A file in the middle of a path, missing entries, dangling links. */
    { "/notdir/file/x", true, GD_ENOTDIR, NULL, 0 },
    { "/notdir/file", true, GD_OK, "/notdir/file", 0 },
    { "/missing/x", true, GD_ENOENT, NULL, 0 },
    { "/missing", true, GD_ENOENT, NULL, 0 },
    { "/dangling", true, GD_ENOENT, NULL, LINKS },
    { "/dangling", false, GD_OK, "/dangling", LINKS },
    { "/fifo-link", true, GD_OK, "/fifo", LINKS | FIFO },
};

static void test_resolve(void **state)
{
    (void)state;
    struct gd_root *root = open_tree();
    /* Twice: the second pass goes through what the root remembers of the first. */
    size_t n = sizeof resolve_cases / sizeof *resolve_cases, skipped = 0;
    for (size_t k = 0; k < 2 * n; k++) {
        const struct resolve_case *c = &resolve_cases[k % n];
        if (((c->needs & LINKS) && !links) || ((c->needs & FIFO) && !fifo)) {
            skipped++;
            continue;
        }
        char *out = (char *)1;
        enum gd_status st = gd_root_resolve(root, c->path, c->follow_last, &out);
        if (st != c->status)
            fail_msg("\"%s\" (follow %d): status %s, want %s", c->path, c->follow_last,
                     gd_status_str(st), gd_status_str(c->status));
        if (st != GD_OK) {
            assert_null(out);
            continue;
        }
        if (strcmp(out, c->want) != 0)
            fail_msg("\"%s\" (follow %d): \"%s\", want \"%s\"", c->path, c->follow_last, out,
                     c->want);
        gd_free(out);
    }
    if (skipped)
        print_message("%lu of %lu cases walk through links or a FIFO this system cannot make: "
                      "not run\n",
                      (unsigned long)skipped / 2, (unsigned long)n);
    gd_root_free(root);
}

/* Every real directory under `dir`, listed (the root keeps each listing with its entries'
 * types). Depth-capped: the tree's loops are links, which are not walked. */
static void list_all(struct gd_root *root, const char *dir, int depth)
{
    struct gd_names names;
    if (depth > 8 || gd_root_list(root, dir, &names) != GD_OK)
        return;
    for (size_t i = 0; i < names.count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, names.names[i]);
        struct gd_os_stat st;
        if (gd_root_lstat(root, path, &st) == GD_OK && st.type == GD_FT_DIR)
            list_all(root, path, depth + 1);
    }
    gd_names_free(&names);
}

/* The same answers when the resolver reads types and absences from listings kept by the root
 * instead of asking lstat. */
static void test_resolve_listed(void **state)
{
    (void)state;
    struct gd_root *root = open_tree();
    list_all(root, "/", 0);
    size_t n = sizeof resolve_cases / sizeof *resolve_cases;
    for (size_t k = 0; k < n; k++) {
        const struct resolve_case *c = &resolve_cases[k];
        if (((c->needs & LINKS) && !links) || ((c->needs & FIFO) && !fifo))
            continue; /* test_resolve says how many */
        char *out = (char *)1;
        enum gd_status st = gd_root_resolve(root, c->path, c->follow_last, &out);
        if (st != c->status)
            fail_msg("listed: \"%s\" (follow %d): status %s, want %s", c->path, c->follow_last,
                     gd_status_str(st), gd_status_str(c->status));
        if (st == GD_OK && strcmp(out, c->want) != 0)
            fail_msg("listed: \"%s\": \"%s\", want \"%s\"", c->path, out, c->want);
        if (st == GD_OK)
            gd_free(out);
    }
    /* A listed directory answers for its entries: present, absent, a directory. */
    tu_write(tree, "listed/d/f", "x");
    tu_mkdirs(tree, "listed/d/sub");
    gd_root_forget(root);
    list_all(root, "/listed", 0);
    assert_true(gd_root_exists(root, "/listed/d/f"));
    assert_true(gd_root_is_dir(root, "/listed/d/sub"));
    assert_false(gd_root_is_dir(root, "/listed/d/f"));
    assert_false(gd_root_exists(root, "/listed/d/g"));
    /* A snapshot: a file made after the listing is not seen until the root forgets. */
    tu_write(tree, "listed/d/g", "y");
    assert_false(gd_root_exists(root, "/listed/d/g"));
    struct gd_names names;
    assert_int_equal(gd_root_list(root, "/listed/d", &names), GD_OK);
    assert_int_equal(names.count, 2);
    assert_string_equal(names.names[0], "f");
    assert_string_equal(names.names[1], "sub");
    gd_names_free(&names);
    gd_root_forget(root);
    assert_true(gd_root_exists(root, "/listed/d/g"));
    /* An opened file whose lstat the root holds: its size is that of the file. */
    char *data = NULL;
    size_t len = 0;
    assert_int_equal(gd_root_read_file(root, "/listed/d/g", 16, &data, &len), GD_OK);
    assert_int_equal(len, 1);
    gd_free(data);
    gd_root_free(root);
}

/* A root is a snapshot: a file removed after it was seen is still there for it, until the root
 * forgets; a directory made into a link is still walked as the directory it was. */
static void test_snapshot(void **state)
{
    (void)state;
    struct gd_root *root = open_tree();
    tu_write(tree, "snap/d/f", "x");
    struct gd_os_stat st;
    assert_int_equal(gd_root_stat(root, "/snap/d/f", &st), GD_OK);
    assert_true(gd_root_is_dir(root, "/snap/d"));
    char path[4096];
    assert_int_equal(unlink(tu_path(path, sizeof path, tree, "snap/d/f")), 0);
    assert_int_equal(gd_root_stat(root, "/snap/d/f", &st), GD_OK);
    assert_false(gd_root_exists(root, "/snap/d/g"));
    tu_write(tree, "snap/d/g", "y");
    assert_false(gd_root_exists(root, "/snap/d/g"));
    gd_root_forget(root);
    assert_int_equal(gd_root_stat(root, "/snap/d/f", &st), GD_ENOENT);
    assert_true(gd_root_exists(root, "/snap/d/g"));
    gd_root_free(root);
}

/* A link to /etc/passwd, even one climbing with "..", reads the root's own file; only a link
 * that climbs above the root is an escape. */
static void test_escape(void **state)
{
    (void)state;
    need(links, "symbolic links");
    struct gd_root *root = open_tree();
    char *data = NULL;
    size_t len = 0;
    static const char *const inside[] = { "/esc/passwd-abs", "/esc/passwd-ok", "/../etc/passwd",
                                          "/esc/etc-abs/passwd", "/etc/../../etc/passwd" };
    for (size_t i = 0; i < sizeof inside / sizeof *inside; i++) {
        assert_int_equal(gd_root_read_file(root, inside[i], 1024, &data, &len), GD_OK);
        assert_string_equal(data, "root-inside\n");
        gd_free(data);
    }
    assert_int_equal(count_kind(root, GD_ANOMALY_ESCAPE), 0);

    assert_int_equal(gd_root_read_file(root, "/esc/passwd-rel", 1024, &data, &len), GD_OK);
    assert_string_equal(data, "root-inside\n");
    assert_int_equal(len, 12);
    gd_free(data);
    assert_int_equal(count_kind(root, GD_ANOMALY_ESCAPE), 1);
    const struct gd_anomaly *a = find_anomaly(root, GD_ANOMALY_ESCAPE, "/esc/passwd-rel");
    assert_non_null(a);
    assert_string_equal(a->detail, "/esc/passwd-rel -> ../../../../etc/passwd");

    /* A directory link in the middle of the path. */
    struct gd_os_stat st;
    assert_int_equal(gd_root_stat(root, "/esc/up/etc/passwd", &st), GD_OK);
    assert_int_equal(st.type, GD_FT_REG);
    assert_int_equal(st.size, 12);
    assert_non_null(find_anomaly(root, GD_ANOMALY_ESCAPE, "/esc/up/etc/passwd"));
    assert_int_equal(count_kind(root, GD_ANOMALY_ESCAPE), 2);
    gd_root_free(root);
}

static void test_loops(void **state)
{
    (void)state;
    need(links, "symbolic links");
    struct gd_root *root = open_tree();
    char *data = NULL;
    size_t len = 0;
    assert_int_equal(gd_root_read_file(root, "/loop/a", 1024, &data, &len), GD_ELOOP);
    assert_null(data);
    const struct gd_anomaly *a = find_anomaly(root, GD_ANOMALY_LOOP, "/loop/a");
    assert_non_null(a);
    assert_string_equal(gd_anomaly_kind_name(a->kind), "symlink-loop");
    struct gd_os_stat st;
    assert_int_equal(gd_root_stat(root, "/loop/self", &st), GD_ELOOP);
    assert_non_null(find_anomaly(root, GD_ANOMALY_LOOP, "/loop/self"));
    /* lstat does not follow the last link, so a looping link can still be looked at. */
    assert_int_equal(gd_root_lstat(root, "/loop/self", &st), GD_OK);
    assert_int_equal(st.type, GD_FT_LNK);
    char *target = NULL;
    assert_int_equal(gd_root_readlink(root, "/loop/self", &target), GD_OK);
    assert_string_equal(target, "self");
    gd_free(target);
    assert_false(gd_root_exists(root, "/loop/b"));
    assert_int_equal(count_kind(root, GD_ANOMALY_LOOP), 3);
    gd_root_free(root);
}

static void test_stat_and_readlink(void **state)
{
    (void)state;
    need(links, "symbolic links");
    need(fifo, "FIFO");
    struct gd_root *root = open_tree();
    struct gd_os_stat st;
    assert_int_equal(gd_root_stat(root, "/lib", &st), GD_OK);
    assert_int_equal(st.type, GD_FT_DIR);
    assert_int_equal(gd_root_lstat(root, "/lib", &st), GD_OK);
    assert_int_equal(st.type, GD_FT_LNK);
    assert_true(gd_root_is_dir(root, "/lib64"));
    assert_false(gd_root_is_dir(root, "/etc/passwd"));
    assert_true(gd_root_exists(root, "/etc/passwd"));
    assert_false(gd_root_exists(root, "/dangling"));
    assert_int_equal(gd_root_lstat(root, "/dangling", &st), GD_OK);
    assert_int_equal(gd_root_stat(root, "/dangling", &st), GD_ENOENT);
    assert_int_equal(gd_root_stat(root, "/notdir/file/x", &st), GD_ENOTDIR);
    assert_int_equal(gd_root_stat(root, "/fifo", &st), GD_OK);
    assert_int_equal(st.type, GD_FT_FIFO);

    char *target = NULL;
    assert_int_equal(gd_root_readlink(root, "/esc/passwd-rel", &target), GD_OK);
    assert_string_equal(target, "../../../../etc/passwd");
    gd_free(target);
    /* The link itself is read through the root: its directory may be a link too. */
    assert_int_equal(gd_root_readlink(root, "/lib/x86_64-linux-gnu/libfoo.so.1", &target), GD_OK);
    assert_string_equal(target, "libfoo.so.1.2.3");
    gd_free(target);
    assert_int_equal(gd_root_readlink(root, "/dangling", &target), GD_OK);
    assert_string_equal(target, "nowhere/at/all");
    gd_free(target);
    assert_int_equal(gd_root_readlink(root, "/etc/passwd", &target), GD_EINVAL);
    assert_null(target);
    /* Missing files, dangling links and ENOTDIR are not anomalies; stat of a FIFO neither. */
    assert_int_equal(gd_root_anomaly_count(root), 0);
    gd_root_free(root);
}

/* A FIFO where a file is expected must neither block the reader nor be read. */
static void test_fifo(void **state)
{
    (void)state;
    need(fifo, "FIFO");
    need(links, "symbolic links");
#ifndef _WIN32
    struct gd_root *root = open_tree();
    char *data = (char *)1;
    size_t len = 1;
    alarm(10); /* a blocking open would end the test here, as a failure */
    assert_int_equal(gd_root_read_file(root, "/fifo", 1024, &data, &len), GD_ENOTREG);
    assert_null(data);
    assert_int_equal(len, 0);
    assert_int_equal(gd_root_read_head(root, "/fifo-link", 16, &data, &len), GD_ENOTREG);
    struct gd_os_file *f = (struct gd_os_file *)1;
    assert_int_equal(gd_root_open(root, "/fifo", &f), GD_ENOTREG);
    assert_null(f);
    /* A directory is not a regular file either. */
    assert_int_equal(gd_root_read_file(root, "/dir", 1024, &data, &len), GD_ENOTREG);

    /* The live root goes through the kernel: the same answer, as quickly. */
    struct gd_root *live = NULL;
    assert_int_equal(gd_root_new("/", &live), GD_OK);
    char path[PATH_MAX];
    assert_int_equal(
        gd_root_read_file(live, tu_path(path, sizeof path, tree, "fifo"), 1024, &data, &len),
        GD_ENOTREG);
    alarm(0);
    assert_non_null(find_anomaly(live, GD_ANOMALY_NOT_REGULAR, path));
    gd_root_free(live);

    const struct gd_anomaly *a = find_anomaly(root, GD_ANOMALY_NOT_REGULAR, "/fifo");
    assert_non_null(a);
    assert_string_equal(gd_anomaly_kind_name(a->kind), "not-regular");
    assert_non_null(find_anomaly(root, GD_ANOMALY_NOT_REGULAR, "/fifo-link"));
    assert_non_null(find_anomaly(root, GD_ANOMALY_NOT_REGULAR, "/dir"));
    /* Opened twice, noted once. */
    assert_int_equal(count_kind(root, GD_ANOMALY_NOT_REGULAR), 3);
    gd_root_free(root);
#endif
}

static void test_read_file(void **state)
{
    (void)state;
    struct gd_root *root = open_tree();
    char *data = NULL;
    size_t len = 0;
    /* Exactly the cap is accepted; one byte less is not. */
    assert_int_equal(gd_root_read_file(root, "/big", 100, &data, &len), GD_OK);
    assert_int_equal(len, 100);
    assert_int_equal(data[100], '\0');
    assert_memory_equal(data, "0123456789", 10);
    gd_free(data);
    assert_int_equal(gd_root_anomaly_count(root), 0);

    data = (char *)1;
    assert_int_equal(gd_root_read_file(root, "/big", 99, &data, &len), GD_ELIMIT);
    assert_null(data);
    assert_int_equal(len, 0);
    const struct gd_anomaly *a = find_anomaly(root, GD_ANOMALY_TOO_LARGE, "/big");
    assert_non_null(a);
    assert_string_equal(a->detail, "larger than 99 bytes");
    assert_string_equal(gd_anomaly_kind_name(a->kind), "too-large");
    assert_int_equal(gd_root_read_file(root, "/big", 10, &data, &len), GD_ELIMIT);
    assert_int_equal(gd_root_anomaly_count(root), 1); /* same kind and path: kept once */

    /* An empty file is an empty, NUL-terminated buffer, not NULL. */
    assert_int_equal(gd_root_read_file(root, "/empty", 10, &data, &len), GD_OK);
    assert_non_null(data);
    assert_int_equal(len, 0);
    assert_int_equal(data[0], '\0');
    gd_free(data);
    assert_int_equal(gd_root_read_file(root, "/empty", 0, &data, &len), GD_OK);
    gd_free(data);

    /* Through links. */
    if (links) {
        assert_int_equal(
            gd_root_read_file(root, "/lib64/x86_64-linux-gnu/libabs.so", 10, &data, &len), GD_OK);
        assert_string_equal(data, "libfoo");
        gd_free(data);
        assert_int_equal(gd_root_read_file(root, "/dangling", 10, &data, &len), GD_ENOENT);
    } else {
        print_message("no symbolic links on this system: files not read through them\n");
    }
    assert_int_equal(gd_root_read_file(root, "/missing", 10, &data, &len), GD_ENOENT);
    assert_int_equal(gd_root_read_file(root, "/notdir/file/x", 10, &data, &len), GD_ENOTDIR);
    assert_int_equal(gd_root_anomaly_count(root), 1);
    gd_root_free(root);
}

/* Files larger than the reader's 8 KiB chunks. */
static void test_read_large(void **state)
{
    (void)state;
    enum { SIZE = 3 * 8192 + 123 };
    char *content = malloc(SIZE);
    for (size_t i = 0; i < SIZE; i++)
        content[i] = (char)('a' + (i * 7) % 26);
    tu_write_n(tree, "large", content, SIZE);
    struct gd_root *root = open_tree();
    char *data = NULL;
    size_t len = 0;
    assert_int_equal(gd_root_read_file(root, "/large", 1 << 20, &data, &len), GD_OK);
    assert_int_equal(len, SIZE);
    assert_memory_equal(data, content, SIZE);
    gd_free(data);
    assert_int_equal(gd_root_read_file(root, "/large", SIZE, &data, &len), GD_OK);
    gd_free(data);
    assert_int_equal(gd_root_read_file(root, "/large", 2 * 8192, &data, &len), GD_ELIMIT);

    /* A head across chunk boundaries, and one past the end of the file. */
    static const size_t heads[] = { 0, 1, 10, 8191, 8192, 8193, 20000, SIZE, SIZE + 1, 1 << 20 };
    for (size_t i = 0; i < sizeof heads / sizeof *heads; i++) {
        assert_int_equal(gd_root_read_head(root, "/large", heads[i], &data, &len), GD_OK);
        size_t want = heads[i] < SIZE ? heads[i] : SIZE;
        if (len != want)
            fail_msg("head %zu: %zu bytes, want %zu", heads[i], len, want);
        assert_memory_equal(data, content, want);
        assert_int_equal(data[len], '\0');
        gd_free(data);
    }
    assert_int_equal(gd_root_read_head(root, "/big", 10, &data, &len), GD_OK);
    assert_string_equal(data, "0123456789");
    gd_free(data);
    /* A head never exceeds its cap, so it is no too-large anomaly. */
    assert_int_equal(count_kind(root, GD_ANOMALY_TOO_LARGE), 1);
    assert_non_null(find_anomaly(root, GD_ANOMALY_TOO_LARGE, "/large"));

    struct gd_os_file *f = NULL;
    const char *lib =
        links ? "/lib/x86_64-linux-gnu/libfoo.so.1" : "/usr/lib/x86_64-linux-gnu/libfoo.so.1.2.3";
    assert_int_equal(gd_root_open(root, lib, &f), GD_OK);
    char buf[16];
    size_t got = 0;
    assert_int_equal(gd_os_pread(f, buf, sizeof buf, 3, &got), GD_OK);
    assert_int_equal(got, 3);
    assert_memory_equal(buf, "foo", 3);
    gd_os_close(f);
    gd_root_free(root);
    free(content);
}

static void test_list(void **state)
{
    (void)state;
    struct gd_root *root = open_tree();
    struct gd_names names;
    assert_int_equal(gd_root_list(root, "/dir", &names), GD_OK);
    static const char *const want[] = { ".hidden", "B", "a", "c", "link", "sub" };
    static const char *const want_no_link[] = { ".hidden", "B", "a", "c", "sub" };
    const char *const *w = links ? want : want_no_link;
    assert_int_equal(names.count, links ? 6 : 5);
    for (size_t i = 0; i < names.count; i++)
        assert_string_equal(names.names[i], w[i]);
    gd_names_free(&names);
    assert_null(names.names);
    assert_int_equal(names.count, 0);
    gd_names_free(&names); /* twice is harmless */

    /* Through a directory link (where the tree has links), and a relative path. */
    assert_int_equal(gd_root_list(root, links ? "lib" : "usr/lib", &names), GD_OK);
    assert_int_equal(names.count, 1);
    assert_string_equal(names.names[0], "x86_64-linux-gnu");
    gd_names_free(&names);

    assert_int_equal(gd_root_list(root, "/emptydir", &names), GD_OK);
    assert_int_equal(names.count, 0);
    gd_names_free(&names);
    assert_int_equal(gd_root_list(root, "/missing", &names), GD_ENOENT);
    assert_null(names.names);
    assert_int_equal(gd_root_list(root, "/etc/passwd", &names), GD_ENOTDIR);
    if (links) {
        assert_int_equal(gd_root_list(root, "/loop/a", &names), GD_ELOOP);
        assert_int_equal(names.count, 0);
    }

    /* The root itself lists the top of the tree. */
    assert_int_equal(gd_root_list(root, "/", &names), GD_OK);
    bool saw_etc = false;
    for (size_t i = 0; i < names.count; i++) {
        assert_string_not_equal(names.names[i], ".");
        assert_string_not_equal(names.names[i], "..");
        if (i)
            assert_true(strcmp(names.names[i - 1], names.names[i]) < 0);
        saw_etc = saw_etc || strcmp(names.names[i], "etc") == 0;
    }
    assert_true(saw_etc);
    gd_names_free(&names);
    gd_root_free(root);
}

#ifndef _WIN32
/* Runs in a child without privileges: a mode-000 file and directory cannot be read. */
static int unreadable_child(void)
{
    struct gd_root *root = NULL;
    if (gd_root_new(tree, &root) != GD_OK)
        return 10;
    int bad = 0;
    char *data = NULL;
    size_t len = 0;
    if (gd_root_read_file(root, "/secret/file", 1024, &data, &len) != GD_EACCES || data)
        bad |= 1;
    const struct gd_anomaly *a = find_anomaly(root, GD_ANOMALY_UNREADABLE, "/secret/file");
    if (!a || strcmp(a->detail, "permission denied") != 0)
        bad |= 2;
    struct gd_names names;
    if (gd_root_list(root, "/secret/dir", &names) != GD_EACCES)
        bad |= 4;
    if (!find_anomaly(root, GD_ANOMALY_UNREADABLE, "/secret/dir"))
        bad |= 8;
    /* A file whose directory may not be searched cannot even be looked at. */
    struct gd_os_stat st;
    if (gd_root_stat(root, "/secret/dir/inner", &st) != GD_EACCES)
        bad |= 16;
    if (gd_root_anomaly_count(root) != 3)
        bad |= 32;
    gd_root_free(root);

    /* The live root answers the same through the kernel, and access() agrees. */
    struct gd_root *live = NULL;
    char path[PATH_MAX];
    if (gd_root_new("/", &live) != GD_OK)
        return 11;
    tu_path(path, sizeof path, tree, "secret/file");
    if (gd_root_read_file(live, path, 1024, &data, &len) != GD_EACCES)
        bad |= 64;
    if (!find_anomaly(live, GD_ANOMALY_UNREADABLE, path))
        bad |= 128;
    if (gd_root_access(live, path, true, false) != GD_EACCES)
        bad |= 256;
    gd_root_free(live);
    return bad;
}

#endif

static void test_unreadable(void **state)
{
    (void)state;
#ifdef _WIN32
    /* An unreadable file takes an ACL on Windows (and wine keeps none): the mode-000 case is the
     * POSIX build's. */
    print_message("no mode bits on Windows: a file cannot be made unreadable here: skipped\n");
    skip();
#else
    tu_write(tree, "secret/file", "secret");
    tu_write(tree, "secret/dir/inner", "x");
    tu_chmod(tree, "secret/file", 0);
    tu_chmod(tree, "secret/dir", 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (geteuid() == 0) {
            /* Root reads everything: become nobody (65534) first. */
            if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
                _exit(77);
        }
        _exit(unreadable_child());
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    tu_chmod(tree, "secret/dir", 0755);
    tu_chmod(tree, "secret/file", 0644);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77) {
        print_message("cannot drop root privileges to uid 65534 here: unreadable case skipped\n");
        skip();
    }
    if (WEXITSTATUS(status) != 0)
        fail_msg("unreadable checks failed in the child: code %d", WEXITSTATUS(status));
#endif
}

static void test_long_paths(void **state)
{
    (void)state;
    struct gd_root *root = open_tree();
    struct gd_root *live = NULL;
    assert_int_equal(gd_root_new("/", &live), GD_OK);
    static const size_t lengths[] = { GD_ROOT_PATH_MAX + 1, 2 * GD_ROOT_PATH_MAX + 10, 100000 };
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++) {
        char *path = malloc(lengths[i] + 1);
        for (size_t k = 0; k < lengths[i]; k++)
            path[k] = k % 2 ? 'a' : '/';
        path[lengths[i]] = '\0';
        char *out = NULL, *data = NULL;
        size_t len = 0;
        struct gd_os_stat st;
        assert_int_equal(gd_root_resolve(root, path, true, &out), GD_ELIMIT);
        assert_null(out);
        assert_int_equal(gd_root_read_file(root, path, 16, &data, &len), GD_ELIMIT);
        assert_int_equal(gd_root_stat(root, path, &st), GD_ELIMIT);
        if (gd_root_read_file(live, path, 16, &data, &len) != GD_ELIMIT)
            fail_msg("live root, path of %zu bytes: not GD_ELIMIT", lengths[i]);
        assert_int_equal(gd_root_stat(live, path, &st), GD_ELIMIT);
        free(path);
    }
    /* A path of exactly GD_ROOT_PATH_MAX bytes is walked (and found missing). */
    char *path = malloc(GD_ROOT_PATH_MAX + 1);
    for (size_t k = 0; k < GD_ROOT_PATH_MAX; k++)
        path[k] = k % 2 ? 'a' : '/';
    path[GD_ROOT_PATH_MAX] = '\0';
    char *out = NULL;
    assert_int_equal(gd_root_resolve(root, path, true, &out), GD_ENOENT);
    free(path);
    gd_root_free(live);
    gd_root_free(root);
}

static void test_live_root(void **state)
{
    (void)state;
    struct gd_root *root = NULL;
    assert_int_equal(gd_root_new("/", &root), GD_OK);
    assert_true(gd_root_is_live(root));
    /* "/" itself; on Windows the root of the system drive ("C:/", the drive of %SystemRoot%),
     * not the current drive that "/" names there. */
#ifdef _WIN32
    const char *system_root = getenv("SystemRoot");
    assert_non_null(system_root);
    char drive[4] = { system_root[0], ':', '/', '\0' };
    char *top = tu_realpath(drive);
#else
    char *top = tu_realpath("/");
#endif
    assert_string_equal(gd_root_dir(root), top);
    free(top);
    char *data = NULL;
    size_t len = 0;
#ifndef _WIN32
    char *host = gd_root_host_path(root, "/proc/self/status");
    assert_string_equal(host, "/proc/self/status");
    gd_free(host);

    /* /proc files report size 0: the reader goes to EOF all the same. */
    assert_int_equal(gd_root_read_file(root, "/proc/self/status", 64 * 1024, &data, &len), GD_OK);
    assert_true(len > 0);
    assert_int_equal(strlen(data), len);
    assert_non_null(strstr(data, "Name:"));
    char pid_line[64];
    snprintf(pid_line, sizeof pid_line, "\nPid:\t%ld\n", (long)getpid());
    assert_non_null(strstr(data, pid_line));
    gd_free(data);
    assert_int_equal(gd_root_read_file(root, "/proc/self/status", 10, &data, &len), GD_ELIMIT);
    assert_non_null(find_anomaly(root, GD_ANOMALY_TOO_LARGE, "/proc/self/status"));
    assert_int_equal(gd_root_read_head(root, "/proc/self/status", 5, &data, &len), GD_OK);
    assert_string_equal(data, "Name:");
    gd_free(data);
#endif

    /* The tree read through the live root by its host path. */
    char path[PATH_MAX];
    /* ".." after lib: from lib's target (usr/lib) on POSIX, where nothing is found; Windows
     * takes "lib/.." away before it looks the path up, lib or no lib. */
#ifdef _WIN32
    enum gd_status want_up = GD_OK;
#else
    enum gd_status want_up = GD_ENOENT;
#endif
    assert_int_equal(gd_root_read_file(root, tu_path(path, sizeof path, tree, "lib/../etc/passwd"),
                                       64, &data, &len),
                     want_up);
    if (want_up == GD_OK)
        gd_free(data);
    assert_int_equal(
        gd_root_read_file(root, tu_path(path, sizeof path, tree, "etc/passwd"), 64, &data, &len),
        GD_OK);
    assert_string_equal(data, "root-inside\n");
    gd_free(data);
    assert_int_equal(gd_root_access(root, path, true, false), GD_OK);
    assert_int_equal(gd_root_access(root, tu_path(path, sizeof path, tree, "missing"), true, false),
                     GD_ENOENT);
    if (links) {
        assert_int_equal(
            gd_root_read_file(root, tu_path(path, sizeof path, tree, "loop/a"), 64, &data, &len),
            GD_ELOOP);
        assert_non_null(find_anomaly(root, GD_ANOMALY_LOOP, path));
    }
    gd_root_free(root);
}

/* Each (kind, path) is kept once; past GD_ROOT_ANOMALY_MAX they are counted, not stored. */
static void test_anomaly_cap(void **state)
{
    (void)state;
    need(links, "symbolic links");
    struct gd_root *root = open_tree();
    char path[64];
    struct gd_os_stat st;
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < GD_ROOT_ANOMALY_MAX - 1; i++) {
            snprintf(path, sizeof path, "/loop/a/%d", i);
            assert_int_equal(gd_root_stat(root, path, &st), GD_ELOOP);
        }
    }
    assert_int_equal(gd_root_anomaly_count(root), GD_ROOT_ANOMALY_MAX - 1);
    assert_int_equal(gd_root_anomalies_dropped(root), 0);

    /* Another kind for a path already noted is a new anomaly: the last one stored. */
    assert_int_equal(gd_root_lstat(root, "/loop/a/0", &st), GD_ELOOP); /* the same loop again */
    char *data = NULL;
    size_t len = 0;
    assert_int_equal(gd_root_read_file(root, "/big", 1, &data, &len), GD_ELIMIT);
    assert_int_equal(gd_root_anomaly_count(root), GD_ROOT_ANOMALY_MAX);
    assert_int_equal(gd_root_anomalies_dropped(root), 0);

    /* Five more distinct ones are dropped and counted. */
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "/loop/b/%d", i);
        assert_int_equal(gd_root_stat(root, path, &st), GD_ELOOP);
    }
    assert_int_equal(gd_root_anomaly_count(root), GD_ROOT_ANOMALY_MAX);
    assert_int_equal(gd_root_anomalies_dropped(root), 5);
    /* A stored one seen again is neither stored nor dropped. */
    assert_int_equal(gd_root_stat(root, "/loop/a/3", &st), GD_ELOOP);
    assert_int_equal(gd_root_anomalies_dropped(root), 5);
    assert_null(gd_root_anomaly_at(root, GD_ROOT_ANOMALY_MAX));
    const struct gd_anomaly *last = gd_root_anomaly_at(root, GD_ROOT_ANOMALY_MAX - 1);
    assert_int_equal(last->kind, GD_ANOMALY_TOO_LARGE);
    assert_string_equal(last->path, "/big");
    for (size_t i = 0; i + 1 < GD_ROOT_ANOMALY_MAX; i++) {
        snprintf(path, sizeof path, "/loop/a/%zu", i);
        assert_string_equal(gd_root_anomaly_at(root, i)->path, path);
    }
    gd_root_free(root);
}

static void test_kind_names(void **state)
{
    (void)state;
    static const struct {
        enum gd_anomaly_kind kind;
        const char *name;
    } names[] = {
        { GD_ANOMALY_LOOP, "symlink-loop" },       { GD_ANOMALY_ESCAPE, "symlink-escape" },
        { GD_ANOMALY_UNREADABLE, "unreadable" },   { GD_ANOMALY_TOO_LARGE, "too-large" },
        { GD_ANOMALY_NOT_REGULAR, "not-regular" }, { (enum gd_anomaly_kind)99, "unknown" },
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        assert_string_equal(gd_anomaly_kind_name(names[i].kind), names[i].name);
}

/* Out of memory anywhere in a resolution or a read is GD_ENOMEM, never a crash or a leak. */
static void test_alloc_failures(void **state)
{
    (void)state;
    struct gd_root *root = open_tree();
    /* Through the links where the tree has them. */
    const char *file =
        links ? "/lib64/x86_64-linux-gnu/libabs.so" : "/usr/lib/x86_64-linux-gnu/libfoo.so.1.2.3";
    const char *dir = links ? "/lib/../../dir" : "/usr/lib/../../dir";
    for (unsigned long n = 1;; n++) {
        gd_alloc_fail_at(n);
        char *data = NULL;
        size_t len = 0;
        enum gd_status st = gd_root_read_file(root, file, 64, &data, &len);
        gd_alloc_fail_at(0);
        if (st == GD_OK) {
            assert_string_equal(data, "libfoo");
            gd_free(data);
            break;
        }
        if (st != GD_ENOMEM)
            fail_msg("allocation %lu failed: %s", n, gd_status_str(st));
        assert_null(data);
    }
    for (unsigned long n = 1;; n++) {
        gd_alloc_fail_at(n);
        struct gd_names names;
        enum gd_status st = gd_root_list(root, dir, &names);
        gd_alloc_fail_at(0);
        if (st == GD_OK) {
            assert_int_equal(names.count, links ? 6 : 5);
            gd_names_free(&names);
            break;
        }
        if (st != GD_ENOMEM)
            fail_msg("allocation %lu failed: %s", n, gd_status_str(st));
    }
    for (unsigned long n = 1;; n++) {
        gd_alloc_fail_at(n);
        struct gd_root *r = NULL;
        enum gd_status st = gd_root_new(tree, &r);
        gd_alloc_fail_at(0);
        gd_root_free(r);
        if (st == GD_OK)
            break;
        assert_int_equal(st, GD_ENOMEM);
    }
    gd_root_free(root);
}

/* Below directories the root has seen, the walk starts at the deepest one and goes on from
 * there, "." and ".." included: the same answers cold, warm, and with every directory listed. */
struct seen_case {
    const char *path;
    enum gd_status status;
    const char *want; /* resolved path inside the root, following the last link */
};

static const struct seen_case seen_cases[] = {
    { "/dir/sub/../a", GD_OK, "/dir/a" }, { "/dir/sub/./../c", GD_OK, "/dir/c" },
    { "/dir/sub/", GD_OK, "/dir/sub" },   { "/dir/.hidden", GD_OK, "/dir/.hidden" },
    { "/dir/sub/..", GD_OK, "/dir" },     { "/dir/missing/../a", GD_ENOENT, NULL },
    { "/dir/a/x", GD_ENOTDIR, NULL },
};

/* The same through the tree's symbolic links. */
static const struct seen_case seen_link_cases[] = {
    /* ".." after a link climbs from its target (a file here). */
    { "/dir/link/../a", GD_ENOTDIR, NULL },
    { "/usr/lib/x86_64-linux-gnu/../x86_64-linux-gnu/libfoo.so.1", GD_OK,
      "/usr/lib/x86_64-linux-gnu/libfoo.so.1.2.3" },
    { "/usr/lib/x86_64-linux-gnu/../../../lib/x86_64-linux-gnu/libabs.so", GD_OK,
      "/usr/lib/x86_64-linux-gnu/libfoo.so.1.2.3" },
    { "/usr/lib/x86_64-linux-gnu/libabs.so/", GD_ENOTDIR, NULL },
};

static void check_seen(struct gd_root *root, const char *pass, const struct seen_case *cases,
                       size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const struct seen_case *c = &cases[k];
        char *out = NULL;
        enum gd_status st = gd_root_resolve(root, c->path, true, &out);
        if (st != c->status)
            fail_msg("%s: \"%s\": status %s, want %s", pass, c->path, gd_status_str(st),
                     gd_status_str(c->status));
        if (st == GD_OK && strcmp(out, c->want) != 0)
            fail_msg("%s: \"%s\": \"%s\", want \"%s\"", pass, c->path, out, c->want);
        gd_free(out);
    }
}

static void check_seen_cases(struct gd_root *root, const struct seen_case *cases, size_t n)
{
    check_seen(root, "cold", cases, n);
    check_seen(root, "warm", cases, n);
    gd_root_forget(root);
    list_all(root, "/", 0);
    check_seen(root, "listed", cases, n);
}

static void test_resolve_seen(void **state)
{
    (void)state;
    struct gd_root *root = open_tree();
    check_seen_cases(root, seen_cases, sizeof seen_cases / sizeof *seen_cases);
    /* What a listed directory says stands for the walk: a file made since is not there. */
    tu_write(tree, "dir/sub/new", "n");
    assert_int_equal(gd_root_resolve(root, "/dir/sub/../sub/new", true, &(char *){ NULL }),
                     GD_ENOENT);
    gd_root_free(root);
    char path[4096];
    assert_int_equal(unlink(tu_path(path, sizeof path, tree, "dir/sub/new")), 0);
}

static void test_resolve_seen_links(void **state)
{
    (void)state;
    need(links, "symbolic links");
    struct gd_root *root = open_tree();
    check_seen_cases(root, seen_link_cases, sizeof seen_link_cases / sizeof *seen_link_cases);
    /* A link's target is read once too: changed since, the root still follows the old one
     * until it forgets. */
    tu_write(tree, "seen/t1", "1");
    tu_write(tree, "seen/t2", "2");
    tu_symlink(tree, "seen/l", "t1");
    gd_root_forget(root); /* the listings above know nothing of /seen */
    char *out = NULL;
    assert_int_equal(gd_root_resolve(root, "/seen/l", true, &out), GD_OK);
    assert_string_equal(out, "/seen/t1");
    gd_free(out);
    char path[4096];
    assert_int_equal(unlink(tu_path(path, sizeof path, tree, "seen/l")), 0);
    tu_symlink(tree, "seen/l", "t2");
    assert_int_equal(gd_root_resolve(root, "/seen/l", true, &out), GD_OK);
    assert_string_equal(out, "/seen/t1");
    gd_free(out);
    gd_root_forget(root);
    assert_int_equal(gd_root_resolve(root, "/seen/l", true, &out), GD_OK);
    assert_string_equal(out, "/seen/t2");
    gd_free(out);
    gd_root_free(root);
}

/* More listed directories than the root holds open at once: the ones it closed again are
 * still read right (relative to the root directory, then), before and after it forgets. */
static void test_many_dirs(void **state)
{
    (void)state;
    enum { N = 600 };
    char rel[64], want[32];
    for (int i = 0; i < N; i++) {
        snprintf(rel, sizeof rel, "many/d%03d/f", i);
        snprintf(want, sizeof want, "%d\n", i);
        tu_write(tree, rel, want);
    }
    struct gd_root *root = open_tree();
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < N; i++) {
            snprintf(rel, sizeof rel, "/many/d%03d", i);
            struct gd_names names;
            assert_int_equal(gd_root_list(root, rel, &names), GD_OK);
            assert_int_equal(names.count, 1);
            gd_names_free(&names);
        }
        for (int i = 0; i < N; i++) {
            snprintf(rel, sizeof rel, "/many/d%03d/../d%03d/f", i, i);
            snprintf(want, sizeof want, "%d\n", i);
            char *data = NULL;
            size_t len = 0;
            assert_int_equal(gd_root_read_file(root, rel, 64, &data, &len), GD_OK);
            assert_string_equal(data, want);
            gd_free(data);
            struct gd_os_stat st;
            assert_int_equal(gd_root_lstat(root, rel, &st), GD_OK);
            assert_int_equal(st.size, strlen(want));
        }
        gd_root_forget(root);
    }
    assert_int_equal(gd_root_anomaly_count(root), 0);
    gd_root_free(root);
    char path[4096];
    tu_rmtree(tu_path(path, sizeof path, tree, "many"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_resolve_listed),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_loops),
        cmocka_unit_test(test_stat_and_readlink),
        cmocka_unit_test(test_fifo),
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_read_large),
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_unreadable),
        cmocka_unit_test(test_long_paths),
        cmocka_unit_test(test_live_root),
        cmocka_unit_test(test_anomaly_cap),
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_snapshot),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_resolve_seen),
        cmocka_unit_test(test_resolve_seen_links),
        cmocka_unit_test(test_many_dirs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
