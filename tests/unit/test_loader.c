/*
 * The loader emulator on trees built at test time under a foreign root: hand-built ELF objects
 * (tests/unit/elfbuild.h) with chosen SONAME, NEEDED, RPATH, RUNPATH and flags, a hand-built
 * ld.so.cache or one made by ldconfig -r; then the which API on top of it, rendered in every
 * format, with each allocation failed in turn; and objects compiled with cc, linked the way
 * no linker option links them (DT_RPATH beside DT_RUNPATH), against this machine's real ldd.
 */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "elf/elf.h"
#include "loader/elfcache.h"
#include "loader/loader.h"
#include "sysroot/sysroot.h"

#include <gpudoctor/which.h>
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "elfbuild.h"
#include "testutil.h"

/* ---- building trees ------------------------------------------------------------------------ */

static struct eb_spec dyn(const char *soname)
{
    struct eb_spec s = { 0 };
    s.cls = 64;
    s.type = EB_ET_DYN;
    s.machine = EB_EM_X86_64;
    s.dynamic = true;
    s.soname = soname;
    s.sections = true;
    return s;
}

static struct eb_spec exe(void)
{
    struct eb_spec s = dyn(NULL);
    s.type = EB_ET_EXEC;
    s.interp = "/lib64/ld-linux-x86-64.so.2";
    return s;
}

static void put(const char *root, const char *rel, const struct eb_spec *s)
{
    struct eb_layout l;
    unsigned char *img = eb_build(s, &l);
    tu_write_n(root, rel, img, l.len);
    free(img);
}

/* A shared object at `rel` with SONAME `soname` (NULL: none) and the NEEDED names after it. */
static void lib(const char *root, const char *rel, const char *soname, const char *runpath,
                const char *needed0, const char *needed1)
{
    struct eb_spec s = dyn(soname);
    s.runpath = runpath;
    s.needed[0] = needed0;
    s.needed[1] = needed0 ? needed1 : NULL;
    put(root, rel, &s);
}

/* A new-format ld.so.cache at /etc/ld.so.cache: NAME, PATH pairs, NULL-terminated, every entry
 * libc6,x86-64. */
static void write_cache(const char *root, const char *const *pairs)
{
    size_t n = 0;
    while (pairs[2 * n])
        n++;
    unsigned char *p = calloc(1, 65536);
    memcpy(p, "glibc-ld.so.cache1.1", 20);
    eb_put_at(p, false, 20, 4, n);
    p[28] = 2;
    size_t at = 48 + 24 * n;
    for (size_t i = 0; i < n; i++) {
        size_t e = 48 + 24 * i;
        eb_put_at(p, false, e, 4, 0x0303);
        for (int k = 0; k < 2; k++) {
            const char *s = pairs[2 * i + (size_t)k];
            eb_put_at(p, false, e + 4 + 4 * (size_t)k, 4, at);
            memcpy(p + at, s, strlen(s) + 1);
            at += strlen(s) + 1;
        }
    }
    eb_put_at(p, false, 24, 4, at - (48 + 24 * n));
    tu_write_n(root, "etc/ld.so.cache", p, at);
    free(p);
}

/* The usual pieces of a Debian-like root: /bin/sh, the interpreter, libc. */
static void base_system(const char *root)
{
    struct eb_spec sh = exe();
    sh.needed[0] = "libc.so.6";
    put(root, "bin/sh", &sh);
    lib(root, "lib64/ld-linux-x86-64.so.2", "ld-linux-x86-64.so.2", NULL, NULL, NULL);
    lib(root, "usr/lib/x86_64-linux-gnu/libc.so.6", "libc.so.6", NULL, NULL, NULL);
}

static struct gd_root *root_at(const char *dir)
{
    struct gd_root *root = NULL;
    assert_int_equal(gd_root_new(dir, &root), GD_OK);
    return root;
}

/* Every test runs twice: with the loader reading each file it tries itself, then through an
 * ELF cache as a check's loads do (loader/elfcache.h), which must give the same answers. The
 * caches are freed at the end of the run: each only borrows its root. */
#define CACHES_MAX 64
static bool with_cache;
static struct gd_elf_cache *caches[CACHES_MAX];
static size_t ncaches;

static int free_caches(void **state)
{
    (void)state;
    for (size_t i = 0; i < ncaches; i++)
        gd_elf_cache_free(caches[i]);
    ncaches = 0;
    return 0;
}

static struct gd_loader *loader_for(struct gd_root *root, const char *llp, const char *glibc)
{
    struct gd_loader_options o = { llp, NULL, glibc, true, NULL };
    if (with_cache) {
        assert_true(ncaches < CACHES_MAX);
        assert_int_equal(gd_elf_cache_new(root, &caches[ncaches]), GD_OK);
        o.elves = caches[ncaches++];
    }
    struct gd_loader *l = NULL;
    assert_int_equal(gd_loader_new(root, &o, &l), GD_OK);
    return l;
}

static struct gd_load *load(struct gd_loader *l, const char *path)
{
    struct gd_load *L = NULL;
    assert_int_equal(gd_load_start(l, path, true, &L), GD_OK);
    return L;
}

/* The edge of `o` for NEEDED name `name`, failing the test when there is none. */
static const struct gd_edge *edge(const struct gd_object *o, const char *name)
{
    for (size_t i = 0; i < o->ndeps; i++)
        if (strcmp(o->deps[i].name, name) == 0)
            return &o->deps[i];
    fail_msg("%s has no NEEDED %s", o->path, name);
    return NULL;
}

static const struct gd_object *object(const struct gd_load *L, const char *path)
{
    for (size_t i = 0; i < gd_load_count(L); i++)
        if (strcmp(gd_load_at(L, i)->path, path) == 0)
            return gd_load_at(L, i);
    fail_msg("no object at %s", path);
    return NULL;
}

/* "RULE PATH: VERDICT" per try, one per line. New memory. */
static char *tries(const struct gd_edge *e)
{
    size_t cap = 256;
    for (size_t i = 0; i < e->ntries; i++)
        cap += strlen(e->tries[i].path) + 64;
    char *s = calloc(1, cap);
    for (size_t i = 0; i < e->ntries; i++) {
        size_t n = strlen(s);
        snprintf(s + n, cap - n, "%s %s: %s\n", gd_rule_name(e->tries[i].rule), e->tries[i].path,
                 gd_verdict_name(e->tries[i].verdict));
    }
    return s;
}

static void expect_tries(const struct gd_edge *e, const char *want)
{
    char *got = tries(e);
    if (strcmp(got, want) != 0)
        fail_msg("tries for %s:\n%s\nwant:\n%s", e->name, got, want);
    free(got);
}

/* ---- the search order ---------------------------------------------------------------------- */

/* /opt/app/bin/app: RPATH $ORIGIN/../rlib:/opt/rp, six NEEDED names, found by each rule. */
static void app_tree(const char *r)
{
    base_system(r);
    lib(r, "usr/lib/x86_64-linux-gnu/libdef.so.1", "libdef.so.1", NULL, NULL, NULL);
    lib(r, "usr/lib/x86_64-linux-gnu/libllp.so.1", "libllp.so.1", NULL, NULL, NULL);
    lib(r, "opt/llp/libllp.so.1", "libllp.so.1", NULL, NULL, NULL);
    lib(r, "opt/app/rlib/librp.so.1", "librp.so.1", NULL, "libinherit.so.1", NULL);
    lib(r, "opt/rp/libinherit.so.1", "libinherit.so.1", NULL, NULL, NULL);
    lib(r, "opt/cached/libcached.so.1", "libcached.so.1", NULL, NULL, NULL);
    struct eb_spec app = exe();
    app.rpath = "$ORIGIN/../rlib:/opt/rp";
    static const char *const needed[] = { "librp.so.1",     "libllp.so.1",     "libdef.so.1",
                                          "libcached.so.1", "libmissing.so.1", "libc.so.6" };
    for (size_t i = 0; i < 6; i++)
        app.needed[i] = needed[i];
    put(r, "opt/app/bin/app", &app);
    static const char *const cache[] = { "libcached.so.1", "/opt/cached/libcached.so.1", NULL };
    write_cache(r, cache);
}

static void test_search_order(void **state)
{
    (void)state;
    char *r = tu_mkdtemp("loader");
    app_tree(r);
    struct gd_root *root = root_at(r);
    struct gd_loader *l = loader_for(root, "/opt/llp", "2.36");
    assert_null(gd_loader_cache_problem(l));
    assert_int_equal(gd_loader_cache(l)->count, 1);
    struct gd_load *L = load(l, "/opt/app/bin/app");
    /* Breadth first, in NEEDED order, as ldd lists them. */
    static const char *const order[] = {
        "/opt/app/bin/app",           "/opt/app/bin/../rlib/librp.so.1",
        "/opt/llp/libllp.so.1",       "/usr/lib/x86_64-linux-gnu/libdef.so.1",
        "/opt/cached/libcached.so.1", "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/opt/rp/libinherit.so.1",
    };
    assert_int_equal(gd_load_count(L), 7);
    for (size_t i = 0; i < 7; i++) {
        assert_string_equal(gd_load_at(L, i)->path, order[i]);
        assert_int_equal(gd_load_at(L, i)->index, i);
    }
    assert_null(gd_load_at(L, 7));
    const struct gd_object *app = gd_load_main(L);
    assert_ptr_equal(app, gd_load_at(L, 0));
    assert_int_equal(app->found_by, GD_RULE_MAIN);
    assert_string_equal(app->origin, "/opt/app/bin");
    const struct gd_edge *e = edge(app, "librp.so.1");
    assert_int_equal(e->rule, GD_RULE_RPATH);
    assert_ptr_equal(e->owner, app);
    assert_string_equal(e->dir, "/opt/app/bin/../rlib");
    e = edge(app, "libllp.so.1");
    assert_int_equal(e->rule, GD_RULE_LD_LIBRARY_PATH);
    assert_null(e->owner);
    assert_string_equal(e->dir, "/opt/llp");
    expect_tries(e, "rpath /opt/app/bin/../rlib/libllp.so.1: not there\n"
                    "rpath /opt/rp/libllp.so.1: not there\n"
                    "LD_LIBRARY_PATH /opt/llp/libllp.so.1: found\n");
    e = edge(app, "libdef.so.1");
    assert_int_equal(e->rule, GD_RULE_DEFAULT);
    assert_string_equal(e->dir, "/usr/lib/x86_64-linux-gnu");
    e = edge(app, "libcached.so.1");
    assert_int_equal(e->rule, GD_RULE_CACHE);
    assert_string_equal(e->dir, "/opt/cached");
    expect_tries(e, "rpath /opt/app/bin/../rlib/libcached.so.1: not there\n"
                    "rpath /opt/rp/libcached.so.1: not there\n"
                    "LD_LIBRARY_PATH /opt/llp/libcached.so.1: not there\n"
                    "ld.so.cache /opt/cached/libcached.so.1: found\n");
    e = edge(app, "libmissing.so.1");
    assert_null(e->to);
    assert_null(e->error);
    assert_int_equal(e->rule, GD_RULE_NOT_FOUND);
    expect_tries(e, "rpath /opt/app/bin/../rlib/libmissing.so.1: not there\n"
                    "rpath /opt/rp/libmissing.so.1: not there\n"
                    "LD_LIBRARY_PATH /opt/llp/libmissing.so.1: not there\n"
                    "default path /lib/x86_64-linux-gnu/libmissing.so.1: not there\n"
                    "default path /usr/lib/x86_64-linux-gnu/libmissing.so.1: not there\n"
                    "default path /lib/libmissing.so.1: not there\n"
                    "default path /usr/lib/libmissing.so.1: not there\n");
    /* DT_RPATH is inherited: the program's finds its library's dependency. */
    const struct gd_object *rp = object(L, "/opt/app/bin/../rlib/librp.so.1");
    assert_ptr_equal(rp->loader, app);
    assert_int_equal(rp->found_by, GD_RULE_RPATH);
    assert_ptr_equal(rp->found_owner, app);
    e = edge(rp, "libinherit.so.1");
    assert_int_equal(e->rule, GD_RULE_RPATH);
    assert_ptr_equal(e->owner, app);
    assert_ptr_equal(e->to->loader, rp);
    assert_int_equal(gd_load_missing_count(L), 1);
    assert_string_equal(gd_load_missing_at(L, 0)->name, "libmissing.so.1");
    assert_int_equal(gd_load_missing_at(L, 0)->position, 5);
    assert_null(gd_load_missing_at(L, 1));
    gd_load_free(L);
    gd_loader_free(l);
    gd_root_free(root);
    tu_rmtree(r);
    free(r);
}

/* RPATH vs RUNPATH: RUNPATH turns the object's RPATH off (in the chain of loaders too), comes
 * after LD_LIBRARY_PATH, and is not inherited; RPATH comes before LD_LIBRARY_PATH. */
static void test_rpath_runpath(void **state)
{
    (void)state;
    char *r = tu_mkdtemp("loader-rp");
    base_system(r);
    /* libA has both: glibc ignores its DT_RPATH (elf/get-dynamic-info.h), also when its
     * dependency libC, which has neither, walks the chain of loaders. */
    struct eb_spec a = dyn("libA.so.1");
    a.runpath = "/opt/ra";
    a.rpath = "/opt/rb";
    a.needed[0] = "libC.so.1";
    put(r, "opt/m/libA.so.1", &a);
    lib(r, "opt/ra/libC.so.1", "libC.so.1", NULL, "libD.so.1", "libE.so.1");
    lib(r, "opt/rb/libD.so.1", "libD.so.1", NULL, NULL, NULL);
    lib(r, "opt/m/libE.so.1", "libE.so.1", NULL, NULL, NULL);
    struct eb_spec app = exe();
    app.rpath = "/opt/m";
    app.needed[0] = "libA.so.1";
    put(r, "opt/app1", &app);
    /* A program with both, and copies of libx in each place. */
    for (size_t i = 0; i < 3; i++) {
        static const char *const dirs[] = { "opt/rx/libx.so.1", "opt/ru/libx.so.1",
                                            "opt/llp/libx.so.1" };
        lib(r, dirs[i], "libx.so.1", NULL, NULL, NULL);
    }
    app = exe();
    app.rpath = "/opt/rx";
    app.runpath = "/opt/ru";
    app.needed[0] = "libx.so.1";
    put(r, "opt/app2", &app);
    app = exe();
    app.rpath = "/opt/rx";
    app.needed[0] = "libx.so.1";
    put(r, "opt/app3", &app);
    app = exe();
    app.runpath = "/opt/ra";
    app.needed[0] = "libC.so.1";
    put(r, "opt/app4", &app);

    struct gd_root *root = root_at(r);
    struct gd_loader *l = loader_for(root, NULL, "2.36");
    struct gd_load *L = load(l, "/opt/app1");
    const struct gd_object *app1 = gd_load_main(L);
    const struct gd_object *oa = object(L, "/opt/m/libA.so.1");
    assert_int_equal(edge(app1, "libA.so.1")->rule, GD_RULE_RPATH);
    const struct gd_edge *e = edge(oa, "libC.so.1");
    assert_int_equal(e->rule, GD_RULE_RUNPATH);
    assert_ptr_equal(e->owner, oa);
    const struct gd_object *oc = e->to;
    e = edge(oc, "libD.so.1");
    if (e->to)
        fail_msg("libD.so.1 was found at %s through the DT_RPATH of %s, which has DT_RUNPATH",
                 e->to->path, oa->path);
    expect_tries(e, "rpath /opt/m/libD.so.1: not there\n"
                    "default path /lib/x86_64-linux-gnu/libD.so.1: not there\n"
                    "default path /usr/lib/x86_64-linux-gnu/libD.so.1: not there\n"
                    "default path /lib/libD.so.1: not there\n"
                    "default path /usr/lib/libD.so.1: not there\n");
    e = edge(oc, "libE.so.1");
    assert_int_equal(e->rule, GD_RULE_RPATH); /* the program's, up the chain */
    assert_ptr_equal(e->owner, app1);
    gd_load_free(L);

    /* The program's RPATH is off too when it has RUNPATH. */
    L = load(l, "/opt/app2");
    e = edge(gd_load_main(L), "libx.so.1");
    assert_int_equal(e->rule, GD_RULE_RUNPATH);
    assert_string_equal(e->to->path, "/opt/ru/libx.so.1");
    expect_tries(e, "runpath /opt/ru/libx.so.1: found\n");
    gd_load_free(L);
    /* RUNPATH is not inherited: libC's dependencies are not looked for in /opt/ra. */
    L = load(l, "/opt/app4");
    assert_int_equal(edge(gd_load_main(L), "libC.so.1")->rule, GD_RULE_RUNPATH);
    assert_int_equal(gd_load_missing_count(L), 2);
    gd_load_free(L);
    gd_loader_free(l);

    /* LD_LIBRARY_PATH comes after RPATH and before RUNPATH. */
    l = loader_for(root, "/opt/llp", "2.36");
    L = load(l, "/opt/app2");
    e = edge(gd_load_main(L), "libx.so.1");
    assert_int_equal(e->rule, GD_RULE_LD_LIBRARY_PATH);
    expect_tries(e, "LD_LIBRARY_PATH /opt/llp/libx.so.1: found\n");
    gd_load_free(L);
    L = load(l, "/opt/app3");
    e = edge(gd_load_main(L), "libx.so.1");
    assert_int_equal(e->rule, GD_RULE_RPATH);
    assert_string_equal(e->to->path, "/opt/rx/libx.so.1");
    gd_load_free(L);
    gd_loader_free(l);
    gd_root_free(root);
    tu_rmtree(r);
    free(r);
}

/* $ORIGIN, ${ORIGIN}, $LIB and $PLATFORM, in a multiarch root and in a lib64 one. */
static void test_dynamic_string_tokens(void **state)
{
    (void)state;
    for (int multiarch = 0; multiarch < 2; multiarch++) {
        char *r = tu_mkdtemp("loader-dst");
        if (multiarch) {
            base_system(r);
        } else {
            tu_mkdirs(r, "usr/lib64");
            struct eb_spec sh = exe();
            put(r, "bin/sh", &sh);
            /* A haswell CPU: $PLATFORM is "haswell". */
            tu_write(r, "proc/cpuinfo",
                     "processor\t: 0\nflags\t\t: fpu cx16 lahf_lm popcnt sse4_1 sse4_2 ssse3 avx "
                     "avx2 bmi1 bmi2 f16c fma abm movbe xsave\n\nprocessor\t: 1\nflags\t: fpu\n");
        }
        struct eb_spec app = exe();
        app.runpath = "$ORIGIN/../a:${ORIGIN}/b:/opt/$LIB/c:/opt/${PLATFORM}/d:/x/$ORIGINAL/e:"
                      "/opt/$FOO/f:/opt/$ORIGIN_x/g::/opt/h///:${ORIGIN:/opt/i";
        app.needed[0] = "libnope.so.1";
        put(r, "opt/dst/bin/app", &app);
        struct gd_root *root = root_at(r);
        struct gd_loader *l = loader_for(root, NULL, "2.38");
        struct gd_load *L = load(l, "/opt/dst/bin/app");
        const struct gd_edge *e = edge(gd_load_main(L), "libnope.so.1");
        char want[4096];
        const char *libdir = multiarch ? "lib/x86_64-linux-gnu" : "lib64";
        const char *platform = multiarch ? "x86_64" : "haswell";
        snprintf(want, sizeof want,
                 "runpath /opt/dst/bin/../a/libnope.so.1: not there\n"
                 "runpath /opt/dst/bin/b/libnope.so.1: not there\n"
                 "runpath /opt/%s/c/libnope.so.1: not there\n"
                 "runpath /opt/%s/d/libnope.so.1: not there\n"
                 "runpath /x/$ORIGINAL/e/libnope.so.1: not there\n"
                 "runpath /opt/$FOO/f/libnope.so.1: not there\n"
                 "runpath /opt/$ORIGIN_x/g/libnope.so.1: not there\n"
                 "runpath /opt/h/libnope.so.1: not there\n"
                 "runpath /${ORIGIN/libnope.so.1: not there\n"
                 "runpath /opt/i/libnope.so.1: not there\n",
                 libdir, platform);
        /* Then the default directories of the root's layout. */
        size_t n = strlen(want);
        if (multiarch)
            snprintf(want + n, sizeof want - n,
                     "default path /lib/x86_64-linux-gnu/libnope.so.1: not there\n"
                     "default path /usr/lib/x86_64-linux-gnu/libnope.so.1: not there\n"
                     "default path /lib/libnope.so.1: not there\n"
                     "default path /usr/lib/libnope.so.1: not there\n");
        else
            snprintf(want + n, sizeof want - n,
                     "default path /lib64/libnope.so.1: not there\n"
                     "default path /usr/lib64/libnope.so.1: not there\n");
        expect_tries(e, want);
        gd_load_free(L);
        gd_loader_free(l);

        /* LD_LIBRARY_PATH's $ORIGIN is the program's; a program not on disk has none, so the
         * element is dropped. Empty entries are the current directory (none here). */
        l = loader_for(root, "$ORIGIN/llp;/opt/y::", "2.38");
        L = load(l, "/opt/dst/bin/app");
        e = edge(gd_load_main(L), "libnope.so.1");
        char *got = tries(e);
        assert_non_null(strstr(got, "LD_LIBRARY_PATH /opt/dst/bin/llp/libnope.so.1: not there\n"
                                    "LD_LIBRARY_PATH /opt/y/libnope.so.1: not there\n"
                                    "runpath "));
        free(got);
        gd_load_free(L);
        assert_int_equal(gd_load_start_virtual(l, 64, EB_EM_X86_64, &L), GD_OK);
        struct gd_edge *v = NULL;
        assert_int_equal(gd_load_resolve(L, NULL, "libnope.so.1", false, &v), GD_OK);
        got = tries(v);
        if (strstr(got, "llp"))
            fail_msg("$ORIGIN expanded for a program that is not on disk:\n%s", got);
        assert_true(strncmp(got, "LD_LIBRARY_PATH /opt/y/libnope.so.1: not there\n", 47) == 0);
        free(got);
        gd_load_free(L);
        gd_loader_free(l);
        gd_root_free(root);
        tu_rmtree(r);
        free(r);
    }
}

/* glibc-hwcaps subdirectories the CPU supports (glibc 2.33+), then the legacy hwcap ones
 * (before 2.37), then the directory itself. */
static void test_hwcaps(void **state)
{
    (void)state;
    char *r = tu_mkdtemp("loader-hw");
    base_system(r);
    tu_write(r, "proc/cpuinfo",
             "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu cx16 lahf_lm popcnt "
             "sse4_1 sse4_2 ssse3 avx avx2 bmi1 bmi2 f16c fma abm movbe xsave\n");
    lib(r, "opt/hw/glibc-hwcaps/x86-64-v2/libhw.so.1", "libhw.so.1", NULL, NULL, NULL);
    lib(r, "opt/hw/tls/x86_64/libhw.so.1", "libhw.so.1", NULL, NULL, NULL);
    lib(r, "opt/hw/libhw.so.1", "libhw.so.1", NULL, NULL, NULL);
    tu_mkdirs(r, "opt/hw/haswell");
    struct eb_spec app = exe();
    app.runpath = "/opt/hw";
    app.needed[0] = "libhw.so.1";
    put(r, "opt/app", &app);
    struct gd_root *root = root_at(r);
    struct {
        const char *glibc, *tries;
    } cases[] = {
        { "2.36", "runpath /opt/hw/glibc-hwcaps/x86-64-v3/libhw.so.1: not there\n"
                  "runpath /opt/hw/glibc-hwcaps/x86-64-v2/libhw.so.1: found\n" },
        { "2.30", "runpath /opt/hw/tls/haswell/x86_64/libhw.so.1: not there\n"
                  "runpath /opt/hw/tls/haswell/libhw.so.1: not there\n"
                  "runpath /opt/hw/tls/x86_64/libhw.so.1: found\n" },
        { "2.37", "runpath /opt/hw/glibc-hwcaps/x86-64-v3/libhw.so.1: not there\n"
                  "runpath /opt/hw/glibc-hwcaps/x86-64-v2/libhw.so.1: found\n" },
    };
    for (size_t i = 0; i < 3; i++) {
        struct gd_loader *l = loader_for(root, NULL, cases[i].glibc);
        struct gd_load *L = load(l, "/opt/app");
        expect_tries(edge(gd_load_main(L), "libhw.so.1"), cases[i].tries);
        gd_load_free(L);
        gd_loader_free(l);
    }
    /* Without glibc-hwcaps, glibc 2.37 goes straight to the directory; 2.36 walks the legacy
     * subdirectories that exist (tls and haswell here), skipping those that do not. */
    tu_rmtree(r);
    tu_mkdir_one(r);
    base_system(r);
    tu_write(r, "proc/cpuinfo", "flags\t: fpu cx16 lahf_lm popcnt sse4_1 sse4_2 ssse3\n");
    lib(r, "opt/hw/libhw.so.1", "libhw.so.1", NULL, NULL, NULL);
    tu_mkdirs(r, "opt/hw/x86_64");
    put(r, "opt/app", &app);
    gd_root_free(root);
    root = root_at(r);
    struct gd_loader *l = loader_for(root, NULL, "2.37");
    struct gd_load *L = load(l, "/opt/app");
    expect_tries(edge(gd_load_main(L), "libhw.so.1"), "runpath /opt/hw/libhw.so.1: found\n");
    gd_load_free(L);
    gd_loader_free(l);
    l = loader_for(root, NULL, "2.36");
    L = load(l, "/opt/app");
    expect_tries(edge(gd_load_main(L), "libhw.so.1"),
                 "runpath /opt/hw/x86_64/libhw.so.1: not there\n"
                 "runpath /opt/hw/libhw.so.1: found\n");
    gd_load_free(L);
    gd_loader_free(l);
    gd_root_free(root);
    tu_rmtree(r);
    free(r);
}

/* DF_1_NODEFLIB: cache entries in default directories are ignored and the default
 * directories are not searched, for the flagged object's own dependencies only. */
static void test_nodeflib(void **state)
{
    (void)state;
    char *r = tu_mkdtemp("loader-nd");
    base_system(r);
    lib(r, "usr/lib/x86_64-linux-gnu/libnd.so.1", "libnd.so.1", NULL, NULL, NULL);
    lib(r, "usr/lib/x86_64-linux-gnu/libdef2.so.1", "libdef2.so.1", NULL, NULL, NULL);
    lib(r, "opt/ndc/libndc.so.1", "libndc.so.1", NULL, "libdef2.so.1", NULL);
    static const char *const cache[] = { "libnd.so.1", "/usr/lib/x86_64-linux-gnu/libnd.so.1",
                                         "libndc.so.1", "/opt/ndc/libndc.so.1", NULL };
    write_cache(r, cache);
    struct eb_spec app = exe();
    app.flags_1 = 0x800;
    app.needed[0] = "libnd.so.1";
    app.needed[1] = "libndc.so.1";
    put(r, "opt/app", &app);
    struct gd_root *root = root_at(r);
    struct gd_loader *l = loader_for(root, NULL, "2.36");
    struct gd_load *L = load(l, "/opt/app");
    const struct gd_object *main = gd_load_main(L);
    const struct gd_edge *e = edge(main, "libnd.so.1");
    assert_null(e->to);
    expect_tries(e, "ld.so.cache /usr/lib/x86_64-linux-gnu/libnd.so.1: ignored (DF_1_NODEFLIB)\n");
    e = edge(main, "libndc.so.1");
    assert_int_equal(e->rule, GD_RULE_CACHE);
    e = edge(e->to, "libdef2.so.1");
    assert_int_equal(e->rule, GD_RULE_DEFAULT);
    gd_load_free(L);
    gd_loader_free(l);
    gd_root_free(root);
    tu_rmtree(r);
    free(r);
}

/* A cache made inside the root by ldconfig -r, with the root's ld.so.conf. */
static void test_cache_by_ldconfig(void **state)
{
    (void)state;
    const char *ldconfig = NULL;
    /* None from the Windows build: wine would see the host's Linux program. */
#ifndef _WIN32
    static const char *const paths[] = { "/sbin/ldconfig", "/usr/sbin/ldconfig" };
    for (size_t i = 0; i < 2 && !ldconfig; i++)
        if (access(paths[i], X_OK) == 0)
            ldconfig = paths[i];
#endif
    if (!ldconfig) {
        print_message("no ldconfig: skipped\n");
        skip();
    }
    char *r = tu_mkdtemp("loader-ldc");
    base_system(r);
    tu_mkdirs(r, "lib");
    tu_mkdirs(r, "usr/lib");
    tu_write(r, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
    tu_write(r, "etc/ld.so.conf.d/cuda.conf", "/usr/local/cuda-12.4/lib64\n");
    struct eb_spec s = dyn("libcudart.so.12");
    s.needed[0] = "libc.so.6";
    put(r, "usr/local/cuda-12.4/lib64/libcudart.so.12.4.127", &s);
    /* A glibc-hwcaps copy: ldconfig indexes it with the hwcaps extension. */
    struct eb_spec hw = dyn("libhw.so.1");
    put(r, "usr/local/cuda-12.4/lib64/libhw.so.1", &hw);
    put(r, "usr/local/cuda-12.4/lib64/glibc-hwcaps/x86-64-v2/libhw.so.1", &hw);
    char cmd[PATH_MAX + 128];
    snprintf(cmd, sizeof cmd, "%s -r %s 2>/dev/null", ldconfig, r);
    if (system(cmd) != 0) {
        print_message("ldconfig -r failed here (not root?): skipped\n");
        tu_rmtree(r);
        free(r);
        skip();
    }
    struct gd_root *root = root_at(r);
    struct gd_loader *l = loader_for(root, NULL, "2.36");
    assert_null(gd_loader_cache_problem(l));
    assert_non_null(gd_loader_cache(l));
    const struct gd_ldconf *conf = NULL;
    assert_int_equal(gd_loader_conf(l, &conf), GD_OK); /* read now, on first use */
    assert_true(conf->dirs.count == 1);
    assert_string_equal(conf->dirs.items[0], "/usr/local/cuda-12.4/lib64");
    const struct gd_ldconf *again = NULL;
    assert_int_equal(gd_loader_conf(l, &again), GD_OK);
    assert_ptr_equal(again, conf);
    assert_true(again->dirs.count == 1); /* not read twice */
    struct gd_load *L = NULL;
    assert_int_equal(gd_load_start_virtual(l, 64, EB_EM_X86_64, &L), GD_OK);
    struct gd_edge *e = NULL;
    assert_int_equal(gd_load_resolve(L, NULL, "libcudart.so.12", false, &e), GD_OK);
    assert_int_equal(e->rule, GD_RULE_CACHE);
    /* ldconfig made the SONAME link, and the cache names it. */
    assert_string_equal(e->to->path, "/usr/local/cuda-12.4/lib64/libcudart.so.12");
    assert_string_equal(e->to->elf->soname, "libcudart.so.12");
    /* No CPU information in the root: the plain entry. */
    assert_int_equal(gd_load_resolve(L, NULL, "libhw.so.1", false, &e), GD_OK);
    assert_int_equal(e->rule, GD_RULE_CACHE);
    assert_string_equal(e->to->path, "/usr/local/cuda-12.4/lib64/libhw.so.1");
    gd_load_free(L);
    gd_loader_free(l);
    /* An x86-64-v2 CPU: glibc 2.33+ takes the cache entry of the supported subdirectory. */
    tu_write(r, "proc/cpuinfo", "flags\t: fpu cx16 lahf_lm popcnt sse4_1 sse4_2 ssse3\n");
    gd_root_forget(root); /* the tree changed under it */
    l = loader_for(root, NULL, "2.36");
    assert_int_equal(gd_load_start_virtual(l, 64, EB_EM_X86_64, &L), GD_OK);
    assert_int_equal(gd_load_resolve(L, NULL, "libhw.so.1", false, &e), GD_OK);
    assert_int_equal(e->rule, GD_RULE_CACHE);
    assert_string_equal(e->to->path,
                        "/usr/local/cuda-12.4/lib64/glibc-hwcaps/x86-64-v2/libhw.so.1");
    gd_load_free(L);
    gd_loader_free(l);
    gd_root_free(root);
    tu_rmtree(r);
    free(r);
}

/* Reuse: by name, by SONAME, by path, by file (a symlink); a missing name searched once. */
static void test_reuse(void **state)
{
    (void)state;
    char *r = tu_mkdtemp("loader-reuse");
    base_system(r);
    lib(r, "opt/s/libreal.so.1", "libreal.so.1", NULL, NULL, NULL);
    tu_symlink(r, "opt/s/libalias.so.1", "libreal.so.1");
    lib(r, "opt/s/libuser.so.1", "libuser.so.1", "/opt/s", "libalias.so.1", "libgone.so.1");
    lib(r, "opt/s/libsoname.so.2", "libother-name.so.2", NULL, NULL, NULL);
    struct eb_spec app = exe();
    app.runpath = "/opt/s";
    static const char *const needed[] = { "libreal.so.1",       "libuser.so.1",
                                          "libsoname.so.2",     "libother-name.so.2",
                                          "libgone.so.1",       "/opt/s/libreal.so.1",
                                          "/opt/s/libnone.so.1" };
    for (size_t i = 0; i < 7; i++)
        app.needed[i] = needed[i];
    put(r, "opt/app", &app);
    struct gd_root *root = root_at(r);
    struct gd_loader *l = loader_for(root, NULL, "2.36");
    struct gd_load *L = load(l, "/opt/app");
    const struct gd_object *main = gd_load_main(L);
    assert_int_equal(gd_load_count(L), 4); /* app, libreal, libuser, libsoname */
    const struct gd_object *real = object(L, "/opt/s/libreal.so.1");
    const struct gd_edge *e = edge(main, "libother-name.so.2");
    assert_int_equal(e->rule, GD_RULE_LOADED);
    assert_ptr_equal(e->to, object(L, "/opt/s/libsoname.so.2"));
    assert_int_equal(e->ntries, 0);
    e = edge(main, "/opt/s/libreal.so.1");
    assert_int_equal(e->rule, GD_RULE_LOADED);
    assert_ptr_equal(e->to, real);
    e = edge(main, "/opt/s/libnone.so.1");
    assert_null(e->to);
    expect_tries(e, "path /opt/s/libnone.so.1: not there\n");
    /* The same file under another name: found by the search, reused as the same object. */
    const struct gd_object *user = object(L, "/opt/s/libuser.so.1");
    e = edge(user, "libalias.so.1");
    assert_int_equal(e->rule, GD_RULE_RUNPATH);
    assert_ptr_equal(e->to, real);
    assert_string_equal(real->name, "libreal.so.1");
    /* libgone.so.1: missing, searched once, listed once. */
    assert_int_equal(edge(main, "libgone.so.1")->ntries, 5);
    e = edge(user, "libgone.so.1");
    assert_null(e->to);
    assert_int_equal(e->ntries, 0);
    assert_int_equal(gd_load_missing_count(L), 2);
    assert_string_equal(gd_load_missing_at(L, 0)->name, "libgone.so.1");
    assert_string_equal(gd_load_missing_at(L, 1)->name, "/opt/s/libnone.so.1");
    gd_load_free(L);
    gd_loader_free(l);
    gd_root_free(root);
    tu_rmtree(r);
    free(r);
}

/* Candidates the loader skips (another class or machine) and those that stop it. */
static void test_verdicts(void **state)
{
    (void)state;
    char *r = tu_mkdtemp("loader-v");
    base_system(r);
    struct eb_spec s = dyn("libv.so.1");
    s.cls = 32;
    s.machine = EB_EM_386;
    put(r, "opt/v/32/libv.so.1", &s);
    s = dyn("libv.so.1");
    s.machine = EB_EM_AARCH64;
    put(r, "opt/v/arm/libv.so.1", &s);
    lib(r, "opt/v/good/libv.so.1", "libv.so.1", NULL, NULL, NULL);
    tu_write(r, "opt/v/short/libv.so.1", "junk\n");
    char hundred[100];
    memset(hundred, 'x', sizeof hundred);
    tu_write_n(r, "opt/v/junk/libv.so.1", hundred, sizeof hundred);
    s = dyn("libv.so.1");
    s.be = true;
    put(r, "opt/v/be/libv.so.1", &s);
    s = dyn("libv.so.1");
    s.type = 1; /* ET_REL */
    put(r, "opt/v/rel/libv.so.1", &s);
    tu_mkdirs(r, "opt/v/dir/libv.so.1");
    struct {
        const char *runpath, *error, *tries;
    } cases[] = {
        { "/opt/v/32:/opt/v/arm:/opt/v/good", NULL,
          "runpath /opt/v/32/libv.so.1: wrong ELF class\n"
          "runpath /opt/v/arm/libv.so.1: wrong machine\n"
          "runpath /opt/v/good/libv.so.1: found\n" },
        { "/opt/v/short:/opt/v/good", "/opt/v/short/libv.so.1: file too short",
          "runpath /opt/v/short/libv.so.1: not an ELF file\n" },
        { "/opt/v/junk:/opt/v/good", "/opt/v/junk/libv.so.1: invalid ELF header",
          "runpath /opt/v/junk/libv.so.1: not an ELF file\n" },
        { "/opt/v/be:/opt/v/good", "/opt/v/be/libv.so.1: ELF file data encoding not little-endian",
          "runpath /opt/v/be/libv.so.1: wrong byte order\n" },
        { "/opt/v/rel:/opt/v/good", "/opt/v/rel/libv.so.1: only ET_DYN and ET_EXEC can be loaded",
          "runpath /opt/v/rel/libv.so.1: not a shared object\n" },
        { "/opt/v/dir:/opt/v/good", "/opt/v/dir/libv.so.1: cannot read file data",
          "runpath /opt/v/dir/libv.so.1: not an ELF file\n" },
    };
    struct gd_root *root = root_at(r);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct eb_spec app = exe();
        app.runpath = cases[i].runpath;
        app.needed[0] = "libv.so.1";
        put(r, "opt/app", &app);
        /* A loader per program: with an ELF cache, one would keep the first /opt/app read. */
        struct gd_loader *l = loader_for(root, NULL, "2.36");
        struct gd_load *L = load(l, "/opt/app");
        const struct gd_edge *e = edge(gd_load_main(L), "libv.so.1");
        expect_tries(e, cases[i].tries);
        if (!cases[i].error) {
            assert_non_null(e->to);
            assert_null(e->error);
            assert_int_equal(gd_load_missing_count(L), 0);
        } else {
            assert_null(e->to);
            assert_non_null(e->error);
            if (strncmp(e->error, cases[i].error, strlen(cases[i].error)) != 0)
                fail_msg("error \"%s\", want \"%s\"", e->error, cases[i].error);
            assert_int_equal(e->rule, GD_RULE_RUNPATH);
            assert_int_equal(gd_load_missing_count(L), 1);
            assert_string_equal(gd_load_missing_at(L, 0)->error, e->error);
        }
        gd_load_free(L);
        gd_loader_free(l);
    }
    /* The main object itself: not found, not an ELF. */
    struct gd_loader *l = loader_for(root, NULL, "2.36");
    struct gd_load *L = (struct gd_load *)1;
    assert_int_equal(gd_load_start(l, "/opt/none", true, &L), GD_ENOENT);
    assert_null(L);
    assert_int_equal(gd_load_start(l, "/opt/v/short/libv.so.1", true, &L), GD_EFORMAT);
    assert_null(L);
    gd_loader_free(l);
    gd_root_free(root);
    tu_rmtree(r);
    free(r);
}

/* dlopen(NAME) from a library: the caller's RUNPATH decides; what is loaded stays loaded. */
static void test_dlopen(void **state)
{
    (void)state;
    char *r = tu_mkdtemp("loader-dl");
    base_system(r);
    lib(r, "opt/fw/lib/libfw.so", "libfw.so", "$ORIGIN/../nvidia/cudnn/lib", NULL, NULL);
    lib(r, "opt/fw/nvidia/cudnn/lib/libcudnn.so.9", "libcudnn.so.9", "$ORIGIN",
        "libcudnn_graph.so.9", NULL);
    lib(r, "opt/fw/nvidia/cudnn/lib/libcudnn_graph.so.9", "libcudnn_graph.so.9", NULL, NULL, NULL);
    struct eb_spec app = exe();
    app.runpath = "/opt/fw/lib";
    app.needed[0] = "libfw.so";
    put(r, "opt/python", &app);
    struct gd_root *root = root_at(r);
    struct gd_loader *l = loader_for(root, NULL, "2.36");
    struct gd_load *L = load(l, "/opt/python");
    assert_int_equal(gd_load_count(L), 2);
    struct gd_object *fw = gd_load_at(L, 1);
    assert_string_equal(fw->path, "/opt/fw/lib/libfw.so");
    struct gd_edge *e = NULL;
    assert_int_equal(gd_load_resolve(L, fw, "libcudnn.so.9", true, &e), GD_OK);
    assert_non_null(e->to);
    assert_int_equal(e->rule, GD_RULE_RUNPATH);
    assert_ptr_equal(e->owner, fw);
    assert_string_equal(e->to->path, "/opt/fw/lib/../nvidia/cudnn/lib/libcudnn.so.9");
    assert_ptr_equal(e->to->loader, fw);
    assert_int_equal(fw->ndlopens, 1);
    assert_ptr_equal(fw->dlopens[0], e);
    /* With deps: its own NEEDED, through its own RUNPATH ($ORIGIN). */
    assert_int_equal(gd_load_count(L), 4);
    assert_string_equal(gd_load_at(L, 3)->path,
                        "/opt/fw/lib/../nvidia/cudnn/lib/libcudnn_graph.so.9");
    /* The same name from the program: loaded already. */
    struct gd_edge *again = NULL;
    assert_int_equal(gd_load_resolve(L, NULL, "libcudnn.so.9", false, &again), GD_OK);
    assert_int_equal(again->rule, GD_RULE_LOADED);
    assert_ptr_equal(again->to, e->to);
    assert_int_equal(gd_load_main(L)->ndlopens, 1);
    /* A name only the library's RUNPATH would find, asked from the program: not found. */
    lib(r, "opt/fw/nvidia/cudnn/lib/libcudnn_ops.so.9", "libcudnn_ops.so.9", NULL, NULL, NULL);
    struct gd_edge *ops = NULL;
    assert_int_equal(gd_load_resolve(L, gd_load_main(L), "libcudnn_ops.so.9", false, &ops), GD_OK);
    assert_null(ops->to);
    assert_int_equal(gd_load_missing_count(L), 1);
    /* ... and found from the library, although it was missing for the program: the loader
     * remembers a failure by name, so it stays missing in this load, as glibc's would. */
    struct gd_edge *ops2 = NULL;
    assert_int_equal(gd_load_resolve(L, fw, "libcudnn_ops.so.9", false, &ops2), GD_OK);
    assert_null(ops2->to);
    gd_load_free(L);
    L = load(l, "/opt/python");
    fw = gd_load_at(L, 1);
    assert_int_equal(gd_load_resolve(L, fw, "libcudnn_ops.so.9", false, &ops2), GD_OK);
    assert_non_null(ops2->to);
    gd_load_free(L);
    gd_loader_free(l);
    gd_root_free(root);
    tu_rmtree(r);
    free(r);
}

/* ---- the which API ------------------------------------------------------------------------- */

static char *app_root;

static int which_setup(void **state)
{
    (void)state;
    app_root = tu_mkdtemp("which");
    app_tree(app_root);
    /* An x86-64-v2 CPU: the glibc-hwcaps copy of libdef is the one loaded. */
    tu_write(app_root, "proc/cpuinfo", "flags\t: fpu cx16 lahf_lm popcnt sse4_1 sse4_2 ssse3\n");
    lib(app_root, "usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v2/libdef.so.1", "libdef.so.1",
        NULL, NULL, NULL);
    tu_write(app_root, "opt/short/libshort.so.1", "junk\n");
    struct eb_spec s = exe();
    s.runpath = "/opt/short";
    s.needed[0] = "libshort.so.1";
    put(app_root, "opt/shortapp", &s);
    return 0;
}

static int which_teardown(void **state)
{
    (void)state;
    tu_rmtree(app_root);
    free(app_root);
    return 0;
}

static struct gd_options *which_options(void)
{
    struct gd_options *o = NULL;
    assert_int_equal(gd_options_new(&o), GD_OK);
    assert_int_equal(gd_options_set_root(o, app_root), GD_OK);
    assert_int_equal(gd_options_clear_env(o), GD_OK);
    assert_int_equal(gd_options_set_env(o, "LD_LIBRARY_PATH=/opt/llp"), GD_OK);
    return o;
}

static char *render(const struct gd_which *w, enum gd_which_format f, bool color)
{
    struct gd_render_options ro = { color, false };
    char *out = NULL;
    size_t len = 0;
    assert_int_equal(gd_which_render(w, f, &ro, &out, &len), GD_OK);
    assert_int_equal(strlen(out), len);
    return out;
}

static struct json_object *json_of(const struct gd_which *w)
{
    char *text = render(w, GD_WHICH_JSON, false);
    struct json_object *j = json_tokener_parse(text);
    if (!j)
        fail_msg("not JSON:\n%s", text);
    gd_free(text);
    return j;
}

static const char *jstr(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v))
        fail_msg("no key %s in %s", key, json_object_to_json_string(o));
    return v ? json_object_get_string(v) : NULL;
}

static void test_which_tree(void **state)
{
    (void)state;
    struct gd_options *o = which_options();
    struct gd_which *w = NULL;
    assert_int_equal(gd_which_tree(o, "/opt/app/bin/app", &w), GD_OK);
    assert_false(gd_which_ok(w));
    assert_null(gd_which_error(w));
    char *ldd = render(w, GD_WHICH_LDD, false);
    assert_string_equal(ldd, "\tlibrp.so.1 => /opt/app/bin/../rlib/librp.so.1\n"
                             "\tlibllp.so.1 => /opt/llp/libllp.so.1\n"
                             "\tlibdef.so.1 => "
                             "/usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v2/libdef.so.1\n"
                             "\tlibcached.so.1 => /opt/cached/libcached.so.1\n"
                             "\tlibmissing.so.1 => not found\n"
                             "\tlibc.so.6 => /usr/lib/x86_64-linux-gnu/libc.so.6\n"
                             "\tlibinherit.so.1 => /opt/rp/libinherit.so.1\n");
    gd_free(ldd);
    char *text = render(w, GD_WHICH_TEXT, false);
    static const char *const lines[] = {
        "/opt/app/bin/app  (ELF64 x86-64, RPATH $ORIGIN/../rlib:/opt/rp)\n",
        "├── librp.so.1 => /opt/app/bin/../rlib/librp.so.1 [rpath of /opt/app/bin/app]\n",
        "│   └── libinherit.so.1 => /opt/rp/libinherit.so.1 [rpath of /opt/app/bin/app]\n",
        "├── libllp.so.1 => /opt/llp/libllp.so.1 [LD_LIBRARY_PATH]\n",
        "├── libcached.so.1 => /opt/cached/libcached.so.1 [ld.so.cache]\n",
        "├── libmissing.so.1 => not found\n",
        "└── libc.so.6 => /usr/lib/x86_64-linux-gnu/libc.so.6 [default path]\n",
        "\n6 objects loaded, 1 not found\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        if (!strstr(text, lines[i]))
            fail_msg("the tree lacks \"%s\":\n%s", lines[i], text);
    assert_null(strchr(text, '\033'));
    gd_free(text);
    text = render(w, GD_WHICH_TEXT, true);
    assert_non_null(strstr(text, "\033[1;31m => not found\033[0m"));
    gd_free(text);
    struct json_object *j = json_of(w);
    assert_string_equal(jstr(j, "schema"), "gpudoctor.which-tree/1");
    assert_false(json_object_get_boolean(json_object_object_get(j, "ok")));
    assert_string_equal(jstr(j, "ld_library_path"), "/opt/llp");
    assert_int_equal(json_object_get_int(json_object_object_get(j, "ld_so_cache_entries")), 1);
    assert_null(json_object_object_get(j, "ld_so_cache_problem"));
    struct json_object *objs = json_object_object_get(j, "objects");
    assert_int_equal(json_object_array_length(objs), 7);
    struct json_object *main = json_object_array_get_idx(objs, 0);
    assert_string_equal(jstr(main, "path"), "/opt/app/bin/app");
    assert_int_equal(json_object_get_int(json_object_object_get(main, "class")), 64);
    assert_string_equal(jstr(main, "machine"), "x86-64");
    assert_string_equal(jstr(main, "rpath"), "$ORIGIN/../rlib:/opt/rp");
    assert_null(json_object_object_get(main, "runpath"));
    struct json_object *needed = json_object_object_get(main, "needed");
    assert_int_equal(json_object_array_length(needed), 6);
    struct json_object *n0 = json_object_array_get_idx(needed, 0);
    assert_string_equal(jstr(n0, "name"), "librp.so.1");
    assert_true(json_object_get_boolean(json_object_object_get(n0, "found")));
    assert_string_equal(jstr(n0, "rule"), "rpath");
    assert_string_equal(jstr(n0, "rule_owner"), "/opt/app/bin/app");
    assert_string_equal(jstr(n0, "directory"), "/opt/app/bin/../rlib");
    assert_null(json_object_object_get(n0, "tries")); /* a tree keeps no tries */
    struct json_object *n4 = json_object_array_get_idx(needed, 4);
    assert_false(json_object_get_boolean(json_object_object_get(n4, "found")));
    assert_null(json_object_object_get(n4, "path"));
    assert_string_equal(jstr(n4, "rule"), "not found");
    struct json_object *missing = json_object_object_get(j, "missing");
    assert_int_equal(json_object_array_length(missing), 1);
    assert_string_equal(json_object_get_string(json_object_array_get_idx(missing, 0)),
                        "libmissing.so.1");
    json_object_put(j);
    gd_which_free(w);

    /* A loader error: ldd prints only it, and the result says it. */
    assert_int_equal(gd_which_tree(o, "/opt/shortapp", &w), GD_OK);
    assert_false(gd_which_ok(w));
    assert_string_equal(gd_which_error(w), "/opt/short/libshort.so.1: file too short");
    ldd = render(w, GD_WHICH_LDD, false);
    assert_string_equal(ldd, "/opt/shortapp: error while loading shared libraries: "
                             "/opt/short/libshort.so.1: file too short\n");
    gd_free(ldd);
    gd_which_free(w);

    /* Statuses: gpudoctor's own failures and ELF files it cannot read. */
    w = (struct gd_which *)1;
    assert_int_equal(gd_which_tree(o, "/opt/none", &w), GD_ENOENT);
    assert_null(w);
    assert_int_equal(gd_which_tree(o, "/opt/short/libshort.so.1", &w), GD_EFORMAT);
    assert_int_equal(gd_which_tree(o, "", &w), GD_EINVAL);
    assert_int_equal(gd_which_tree(o, NULL, &w), GD_EINVAL);
    gd_which_free(NULL);
    gd_options_free(o);
}

static void test_which_name(void **state)
{
    (void)state;
    struct gd_options *o = which_options();
    struct gd_which *w = NULL;
    /* No --from: a program of the root's architecture (its /bin/sh) without RPATH/RUNPATH. */
    assert_int_equal(gd_which_name(o, "libcached.so.1", NULL, false, &w), GD_OK);
    assert_true(gd_which_ok(w));
    assert_null(gd_which_error(w));
    char *text = render(w, GD_WHICH_TEXT, false);
    static const char *const lines[] = {
        "libcached.so.1 => /opt/cached/libcached.so.1  [ld.so.cache]\n  ELF64 x86-64, SONAME "
        "libcached.so.1\n",
        "As a DT_NEEDED entry of a program without RPATH or RUNPATH, glibc's loader looks in "
        "this order:\n",
        "  rpath             none\n",
        "  runpath           none\n",
        "  LD_LIBRARY_PATH   /opt/llp/libcached.so.1  not there\n",
        "  ld.so.cache       /opt/cached/libcached.so.1  found\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        if (!strstr(text, lines[i]))
            fail_msg("the explanation lacks \"%s\":\n%s", lines[i], text);
    gd_free(text);
    struct json_object *j = json_of(w);
    assert_string_equal(jstr(j, "schema"), "gpudoctor.which/1");
    assert_true(json_object_get_boolean(json_object_object_get(j, "ok")));
    assert_null(json_object_object_get(j, "from"));
    assert_false(json_object_get_boolean(json_object_object_get(j, "dlopen")));
    struct json_object *res = json_object_object_get(j, "result");
    assert_string_equal(jstr(res, "path"), "/opt/cached/libcached.so.1");
    assert_string_equal(jstr(res, "rule"), "ld.so.cache");
    struct json_object *t = json_object_object_get(res, "tries");
    assert_int_equal(json_object_array_length(t), 2);
    assert_string_equal(jstr(json_object_array_get_idx(t, 0), "verdict"), "not there");
    assert_string_equal(jstr(json_object_array_get_idx(t, 1), "verdict"), "found");
    assert_string_equal(jstr(json_object_array_get_idx(t, 1), "rule"), "ld.so.cache");
    json_object_put(j);
    /* ldd's format is for trees only. */
    char *out = (char *)1;
    size_t len = 99;
    assert_int_equal(gd_which_render(w, GD_WHICH_LDD, NULL, &out, &len), GD_EINVAL);
    assert_null(out);
    assert_int_equal(len, 0);
    assert_int_equal(gd_which_render(w, (enum gd_which_format)42, NULL, &out, NULL), GD_EINVAL);
    assert_int_equal(gd_which_render(NULL, GD_WHICH_TEXT, NULL, &out, NULL), GD_EINVAL);
    gd_which_free(w);

    /* --from: the object's RPATH counts; --dlopen says so. */
    assert_int_equal(gd_which_name(o, "libinherit.so.1", "/opt/app/bin/app", true, &w), GD_OK);
    assert_true(gd_which_ok(w));
    j = json_of(w);
    assert_string_equal(jstr(j, "from"), "/opt/app/bin/app");
    assert_true(json_object_get_boolean(json_object_object_get(j, "dlopen")));
    res = json_object_object_get(j, "result");
    assert_string_equal(jstr(res, "rule"), "rpath");
    assert_string_equal(jstr(res, "rule_owner"), "/opt/app/bin/app");
    json_object_put(j);
    text = render(w, GD_WHICH_TEXT, false);
    assert_non_null(strstr(text, "As dlopen() of /opt/app/bin/app, glibc's loader looks"));
    assert_non_null(strstr(text, "[rpath of /opt/app/bin/app]"));
    gd_free(text);
    gd_which_free(w);
    /* From the library, which has no RPATH of its own and is the main object here. */
    assert_int_equal(gd_which_name(o, "libinherit.so.1", "/opt/app/rlib/librp.so.1", false, &w),
                     GD_OK);
    assert_false(gd_which_ok(w));
    text = render(w, GD_WHICH_TEXT, false);
    assert_non_null(strstr(text, "libinherit.so.1 => not found\n"));
    gd_free(text);
    gd_which_free(w);
    /* A name the loader stops at. */
    assert_int_equal(gd_which_name(o, "libshort.so.1", "/opt/shortapp", false, &w), GD_OK);
    assert_false(gd_which_ok(w));
    assert_string_equal(gd_which_error(w), "/opt/short/libshort.so.1: file too short");
    text = render(w, GD_WHICH_TEXT, false);
    assert_non_null(strstr(text, "libshort.so.1 => error: /opt/short/libshort.so.1: file too "
                                 "short (the loader stops here)\n"));
    gd_free(text);
    gd_which_free(w);
    /* Statuses. */
    w = (struct gd_which *)1;
    assert_int_equal(gd_which_name(o, "", NULL, false, &w), GD_EINVAL);
    assert_null(w);
    assert_int_equal(gd_which_name(o, NULL, NULL, false, &w), GD_EINVAL);
    assert_int_equal(gd_which_name(o, "libc.so.6", "/opt/none", false, &w), GD_ENOENT);
    assert_null(w);
    assert_int_equal(gd_which_name(o, "libc.so.6", "/etc/ld.so.cache", false, &w), GD_EFORMAT);
    assert_null(w);
    gd_options_free(o);
}

/* The canonical JSON of a result, to compare runs. */
static char *json_text(const struct gd_which *w)
{
    return render(w, GD_WHICH_JSON, false);
}

/* Each allocation of gd_which_tree and gd_which_name failed in turn: GD_ENOMEM every time,
 * never a result that differs from the run without failures. */
static void test_which_alloc_failures(void **state)
{
    (void)state;
    struct gd_options *o = which_options();
    for (int mode = 0; mode < 3; mode++) {
        struct gd_which *w = NULL;
        gd_alloc_fail_at(0);
        enum gd_status st = mode == 0 ? gd_which_tree(o, "/opt/app/bin/app", &w)
                            : mode == 1
                                ? gd_which_name(o, "libinherit.so.1", "/opt/app/bin/app", false, &w)
                                : gd_which_name(o, "libmissing.so.1", NULL, false, &w);
        unsigned long total = gd_alloc_fail_at(0);
        assert_int_equal(st, GD_OK);
        char *want = json_text(w);
        gd_which_free(w);
        assert_true(total > 50);
        for (unsigned long n = 1; n <= total; n++) {
            gd_alloc_fail_at(n);
            w = (struct gd_which *)1;
            st = mode == 0   ? gd_which_tree(o, "/opt/app/bin/app", &w)
                 : mode == 1 ? gd_which_name(o, "libinherit.so.1", "/opt/app/bin/app", false, &w)
                             : gd_which_name(o, "libmissing.so.1", NULL, false, &w);
            gd_alloc_fail_at(0);
            if (st == GD_OK) {
                char *got = json_text(w);
                fail_msg("mode %d: allocation %lu of %lu failed, yet GD_OK%s:\n%s", mode, n, total,
                         strcmp(got, want) == 0 ? " (same answer)" : "", got);
            }
            assert_int_equal(st, GD_ENOMEM);
            assert_null(w);
        }
        gd_free(want);
    }
    gd_options_free(o);
}

/* A corrupt ld.so.cache is a note, not an error: the search goes on without it. */
static void test_corrupt_cache(void **state)
{
    (void)state;
    char *r = tu_mkdtemp("loader-cc");
    base_system(r);
    tu_write(r, "etc/ld.so.cache", "glibc-ld.so.cache1.1 and then nothing sensible");
    lib(r, "usr/lib/libz.so.1", "libz.so.1", NULL, NULL, NULL);
    struct gd_root *root = root_at(r);
    struct gd_loader *l = loader_for(root, NULL, "2.36");
    assert_null(gd_loader_cache(l));
    assert_string_equal(gd_loader_cache_problem(l), "/etc/ld.so.cache: truncated input");
    struct gd_load *L = NULL;
    assert_int_equal(gd_load_start_virtual(l, 64, EB_EM_X86_64, &L), GD_OK);
    struct gd_edge *e = NULL;
    assert_int_equal(gd_load_resolve(L, NULL, "libz.so.1", false, &e), GD_OK);
    assert_int_equal(e->rule, GD_RULE_DEFAULT);
    assert_string_equal(e->to->path, "/usr/lib/libz.so.1");
    gd_load_free(L);
    gd_loader_free(l);
    gd_root_free(root);
    /* The which API shows the problem where the cache would have been searched. */
    struct gd_options *o = NULL;
    assert_int_equal(gd_options_new(&o), GD_OK);
    assert_int_equal(gd_options_set_root(o, r), GD_OK);
    struct gd_which *w = NULL;
    assert_int_equal(gd_which_name(o, "libz.so.1", NULL, false, &w), GD_OK);
    char *text = render(w, GD_WHICH_TEXT, false);
    assert_non_null(strstr(text, "  ld.so.cache       /etc/ld.so.cache: truncated input\n"));
    gd_free(text);
    struct json_object *j = json_of(w);
    assert_string_equal(jstr(j, "ld_so_cache_problem"), "/etc/ld.so.cache: truncated input");
    assert_int_equal(json_object_get_int(json_object_object_get(j, "ld_so_cache_entries")), 0);
    json_object_put(j);
    gd_which_free(w);
    gd_options_free(o);
    tu_rmtree(r);
    free(r);
}

/* A library needed twice in the tree is shown once with its dependencies, then as loaded. */
static void test_tree_diamond(void **state)
{
    (void)state;
    char *r = tu_mkdtemp("loader-diamond");
    base_system(r);
    lib(r, "opt/d/libA.so.1", "libA.so.1", "/opt/d", "libC.so.1", NULL);
    /* libC again, through a link with another name: a repeat that names it differently shows
     * which file it is. */
    lib(r, "opt/d/libB.so.1", "libB.so.1", "/opt/d", "libC.so", NULL);
    lib(r, "opt/d/libC.so.1", "libC.so.1", "/opt/d", "libD.so.1", NULL);
    /* The dynamic loader, needed by name: the program's interpreter, already mapped. */
    lib(r, "opt/d/libD.so.1", "libD.so.1", NULL, "ld-linux-x86-64.so.2", NULL);
    tu_symlink(r, "opt/d/libC.so", "libC.so.1");
    struct eb_spec app = exe();
    app.runpath = "/opt/d";
    app.needed[0] = "libA.so.1";
    app.needed[1] = "libB.so.1";
    put(r, "opt/app", &app);
    struct gd_options *o = NULL;
    assert_int_equal(gd_options_new(&o), GD_OK);
    assert_int_equal(gd_options_set_root(o, r), GD_OK);
    struct gd_which *w = NULL;
    assert_int_equal(gd_which_tree(o, "/opt/app", &w), GD_OK);
    assert_true(gd_which_ok(w));
    char *text = render(w, GD_WHICH_TEXT, false);
    static const char want[] =
        "/opt/app  (ELF64 x86-64, RUNPATH /opt/d)\n"
        "├── libA.so.1 => /opt/d/libA.so.1 [runpath of /opt/app]\n"
        "│   └── libC.so.1 => /opt/d/libC.so.1 [runpath of /opt/d/libA.so.1]\n"
        "│       └── libD.so.1 => /opt/d/libD.so.1 [runpath of /opt/d/libC.so.1]\n"
        "│           └── ld-linux-x86-64.so.2 => /lib64/ld-linux-x86-64.so.2 "
        "[program interpreter]\n"
        "└── libB.so.1 => /opt/d/libB.so.1 [runpath of /opt/app]\n"
        "    └── libC.so => /opt/d/libC.so.1 [already loaded]\n"
        "\n5 objects loaded, 0 not found\n";
    if (strcmp(text, want) != 0)
        fail_msg("tree:\n%s\nwant:\n%s", text, want);
    gd_free(text);
    /* Printed as it is made: the same bytes. */
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(gd_which_print(w, GD_WHICH_TEXT, NULL, f), GD_OK);
    char printed[sizeof want + 64] = "";
    rewind(f);
    size_t n = fread(printed, 1, sizeof printed - 1, f);
    fclose(f);
    assert_int_equal(n, strlen(want));
    assert_string_equal(printed, want);
    assert_int_equal(gd_which_print(w, GD_WHICH_TEXT, NULL, NULL), GD_EINVAL);
    char *ldd = render(w, GD_WHICH_LDD, false);
    assert_string_equal(ldd, "\tlibA.so.1 => /opt/d/libA.so.1\n\tlibB.so.1 => /opt/d/libB.so.1\n"
                             "\tlibC.so.1 => /opt/d/libC.so.1\n\tlibD.so.1 => /opt/d/libD.so.1\n"
                             "\t/lib64/ld-linux-x86-64.so.2\n");
    gd_free(ldd);
    gd_which_free(w);
    gd_options_free(o);
    tu_rmtree(r);
    free(r);
}

/* ---- against the real loader ----------------------------------------------------------------- */

static bool have(const char *tool)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
    return system(cmd) == 0;
}

static void run_or_fail(const char *cmd)
{
    if (system(cmd) != 0)
        fail_msg("failed: %s", cmd);
}

/* Retag the first dynamic entry `from` of an ELF64 file as `to`. */
static void retag(const char *path, uint64_t from, uint64_t to)
{
    struct gd_os_file *f = NULL;
    assert_int_equal(gd_os_open_read(path, false, &f), GD_OK);
    struct gd_elf *e = NULL;
    assert_int_equal(gd_elf_read_file(f, &e), GD_OK);
    gd_os_close(f);
    const struct gd_elf_section *dyn = gd_elf_section(e, ".dynamic");
    assert_non_null(dyn);
    assert_int_equal(e->elf_class, 64);
    FILE *file = tu_open_rw(path, false);
    bool done = false;
    for (uint64_t off = dyn->offset; off + 16 <= dyn->offset + dyn->size && !done; off += 16) {
        unsigned char b[8];
        tu_pread(file, b, 8, off);
        if (eb_get_at(b, e->big_endian, 0, 8) != from)
            continue;
        eb_put_at(b, e->big_endian, 0, 8, to);
        tu_pwrite(file, b, 8, off);
        done = true;
    }
    fclose(file);
    gd_elf_free(e);
    assert_true(done);
}

/* ldd's lines without load addresses and the vdso: what `which --ldd` prints. */
static char *real_ldd(const char *dir, const char *prog)
{
    char cmd[3 * PATH_MAX], out[PATH_MAX];
    snprintf(out, sizeof out, "%s/ldd.out", dir);
    snprintf(cmd, sizeof cmd,
             "env -u LD_LIBRARY_PATH ldd %s 2>&1 | sed -e 's/ (0x[0-9a-f]*)$//' "
             "-e '/linux-vdso\\.so/d' -e '/linux-gate\\.so/d' > %s",
             prog, out);
    run_or_fail(cmd);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    char *text = calloc(1, 65536);
    size_t n = fread(text, 1, 65535, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void compare_with_ldd(const char *dir, const char *prog)
{
    char *want = real_ldd(dir, prog);
    struct gd_options *o = NULL;
    assert_int_equal(gd_options_new(&o), GD_OK);
    assert_int_equal(gd_options_clear_env(o), GD_OK);
    struct gd_which *w = NULL;
    assert_int_equal(gd_which_tree(o, prog, &w), GD_OK);
    char *got = render(w, GD_WHICH_LDD, false);
    if (strcmp(got, want) != 0)
        fail_msg("gpudoctor which --ldd %s:\n%s\nldd:\n%s", prog, got, want);
    gd_free(got);
    gd_which_free(w);
    gd_options_free(o);
    free(want);
}

/* An object with DT_RUNPATH and DT_RPATH in the middle of the chain of loaders: glibc drops
 * its DT_RPATH (elf/get-dynamic-info.h), so its dependency's dependency is not found there.
 * No linker option writes both tags, so DT_AUXILIARY (ld -f) is retagged as DT_RUNPATH. */
static void test_against_ldd(void **state)
{
    (void)state;
#if !defined(__x86_64__) && !defined(__aarch64__)
    skip();
#endif
    if (!have("cc") || !have("ldd")) {
        print_message("no cc or no ldd: skipped\n");
        skip();
    }
    char *w = tu_mkdtemp("loader-ldd");
    char cmd[8 * PATH_MAX];
    tu_write(w, "lib.c", "int f(void) { return 1; }\n");
    tu_write(w, "main.c", "int main(void) { return 0; }\n");
    tu_mkdirs(w, "rb");
    tu_mkdirs(w, "ra");
    tu_mkdirs(w, "m");
#define CC "cc -shared -fPIC -o %s/%s %s/lib.c -Wl,--no-as-needed -Wl,-soname,%s "
    snprintf(cmd, sizeof cmd, CC, w, "rb/libD.so.1", w, "libD.so.1");
    run_or_fail(cmd);
    snprintf(cmd, sizeof cmd, CC, w, "m/libE.so.1", w, "libE.so.1");
    run_or_fail(cmd);
    snprintf(cmd, sizeof cmd, CC "-L%s/rb -l:libD.so.1 -L%s/m -l:libE.so.1", w, "ra/libC.so.1", w,
             "libC.so.1", w, w);
    run_or_fail(cmd);
    snprintf(cmd, sizeof cmd,
             CC "-L%s/ra -l:libC.so.1 -Wl,--disable-new-dtags -Wl,-rpath,%s/rb -Wl,-f,%s/ra "
                "-Wl,--allow-shlib-undefined",
             w, "m/libA.so.1", w, "libA.so.1", w, w, w);
    run_or_fail(cmd);
#undef CC
    char path[PATH_MAX];
    tu_path(path, sizeof path, w, "m/libA.so.1");
    retag(path, 0x7ffffffd /* DT_AUXILIARY */, 29 /* DT_RUNPATH */);
    struct gd_os_file *f = NULL;
    struct gd_elf *e = NULL;
    assert_int_equal(gd_os_open_read(path, false, &f), GD_OK);
    assert_int_equal(gd_elf_read_file(f, &e), GD_OK);
    gd_os_close(f);
    assert_non_null(e->rpath);
    assert_non_null(e->runpath);
    gd_elf_free(e);
    snprintf(cmd, sizeof cmd,
             "cc -o %s/prog %s/main.c -Wl,--no-as-needed -L%s/m -l:libA.so.1 "
             "-Wl,--disable-new-dtags -Wl,-rpath,%s/m -Wl,--allow-shlib-undefined",
             w, w, w, w);
    run_or_fail(cmd);
    char prog[PATH_MAX];
    tu_path(prog, sizeof prog, w, "prog");
    char *want = real_ldd(w, prog);
    if (!strstr(want, "libD.so.1 => not found"))
        fail_msg("this machine's loader found libD.so.1 after all:\n%s", want);
    free(want);
    compare_with_ldd(w, prog);
    tu_rmtree(w);
    free(w);
}

/* A library whose end (its section header table) was cut off, as by an interrupted copy: glibc
 * reads only the ELF and program headers, so ldd lists it as found; so must the emulator. */
static void test_truncated_sections_against_ldd(void **state)
{
    (void)state;
#if !defined(__x86_64__) && !defined(__aarch64__)
    skip();
#endif
    if (!have("cc") || !have("ldd")) {
        print_message("no cc or no ldd: skipped\n");
        skip();
    }
    char *w = tu_mkdtemp("loader-cut");
    char cmd[8 * PATH_MAX];
    tu_write(w, "lib.c", "int f(void) { return 1; }\n");
    tu_write(w, "main.c", "int main(void) { return 0; }\n");
    snprintf(cmd, sizeof cmd,
             "cc -shared -fPIC -o %s/libcut.so.1 %s/lib.c -Wl,-soname,libcut.so.1 && "
             "cc -o %s/prog %s/main.c -Wl,--no-as-needed -L%s -l:libcut.so.1 "
             "-Wl,--enable-new-dtags -Wl,-rpath,%s",
             w, w, w, w, w, w);
    run_or_fail(cmd);
    char path[PATH_MAX];
    tu_path(path, sizeof path, w, "libcut.so.1");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(truncate(path, st.st_size - 100), 0);
    struct gd_os_file *f = NULL;
    struct gd_elf *e = NULL;
    assert_int_equal(gd_os_open_read(path, false, &f), GD_OK);
    assert_int_equal(gd_elf_read_file(f, &e), GD_OK);
    gd_os_close(f);
    assert_int_equal(e->sections_status, GD_ETRUNCATED);
    assert_string_equal(e->soname, "libcut.so.1");
    gd_elf_free(e);
    char prog[PATH_MAX];
    tu_path(prog, sizeof prog, w, "prog");
    char *want = real_ldd(w, prog);
    if (!strstr(want, "libcut.so.1 => "))
        fail_msg("this machine's ldd does not list the cut library:\n%s", want);
    free(want);
    compare_with_ldd(w, prog);
    tu_rmtree(w);
    free(w);
}

/* The cache itself: a file read once and then answered from memory (a snapshot, as the root
 * is), under every spelling of its path; what is not a file or not an ELF said as the loader's
 * open and read would say it; out of memory anywhere is GD_ENOMEM, never a crash or a leak. */
static void test_elf_cache(void **state)
{
    (void)state;
    char *r = tu_mkdtemp("loader-cache");
    lib(r, "usr/lib/libc1.so.1", "libc1.so.1", NULL, "libc.so.6", NULL);
    tu_symlink(r, "usr/lib/libc1.so", "libc1.so.1");
    tu_write(r, "usr/lib/junk.so", "junk\n");
    tu_mkdirs(r, "usr/lib/dir.so");
    struct gd_root *root = root_at(r);
    struct gd_elf_cache *c = NULL;
    assert_int_equal(gd_elf_cache_new(root, &c), GD_OK);
    struct gd_elf *e = NULL;
    struct gd_os_stat fs;
    enum gd_status rs = GD_ENOMEM;
    assert_int_equal(gd_elf_cache_read(c, "/usr/lib/libc1.so.1", &e, &fs, &rs), GD_OK);
    assert_int_equal(rs, GD_OK);
    assert_string_equal(e->soname, "libc1.so.1");
    assert_string_equal(e->needed[0], "libc.so.6");
    assert_int_equal(e->nsections, 0); /* the loader's part only */
    unsigned long long ino = fs.ino;
    gd_elf_free(e);
    char path[4096];
    assert_int_equal(unlink(tu_path(path, sizeof path, r, "usr/lib/libc1.so.1")), 0);
    static const char *const spellings[] = { "/usr/lib/libc1.so.1", "/usr/lib/libc1.so",
                                             "/usr/lib/../lib/./libc1.so.1" };
    for (size_t i = 0; i < 3; i++) {
        e = NULL;
        assert_int_equal(gd_elf_cache_read(c, spellings[i], &e, &fs, &rs), GD_OK);
        assert_int_equal(rs, GD_OK);
        assert_string_equal(e->soname, "libc1.so.1");
        assert_int_equal(fs.ino, ino);
        gd_elf_free(e);
    }
    assert_int_equal(gd_elf_cache_read(c, "/usr/lib/missing.so", &e, &fs, &rs), GD_ENOENT);
    assert_null(e);
    assert_int_equal(gd_elf_cache_read(c, "/usr/lib/dir.so", &e, &fs, &rs), GD_ENOTREG);
    for (int pass = 0; pass < 2; pass++) {
        assert_int_equal(gd_elf_cache_read(c, "/usr/lib/junk.so", &e, &fs, &rs), GD_OK);
        assert_int_not_equal(rs, GD_OK);
        assert_int_not_equal(rs, GD_ENOMEM);
        assert_null(e);
        assert_int_equal(fs.size, 5);
    }
    gd_elf_cache_free(c);
    gd_root_free(root);
    lib(r, "usr/lib/libc1.so.1", "libc1.so.1", NULL, "libc.so.6", NULL);
    /* Each allocation fails in turn, the first read and one from the cache: the answer is
     * GD_ENOMEM, or a read whose root says it ran out of memory (the check then fails). */
    for (unsigned long n = 1;; n++) {
        root = root_at(r);
        assert_int_equal(gd_elf_cache_new(root, &c), GD_OK);
        gd_alloc_fail_at(n);
        enum gd_status st = GD_OK;
        rs = GD_OK;
        for (int k = 0; k < 2 && st == GD_OK && rs == GD_OK; k++) {
            e = NULL;
            st =
                gd_elf_cache_read(c, k ? "/usr/lib/libc1.so.1" : "/usr/lib/libc1.so", &e, &fs, &rs);
            if (st == GD_OK && rs == GD_OK)
                assert_string_equal(e->soname, "libc1.so.1");
            else
                assert_null(e);
            gd_elf_free(e);
        }
        unsigned long made = gd_alloc_fail_at(0);
        bool oom = st == GD_ENOMEM || rs == GD_ENOMEM || gd_root_out_of_memory(root);
        gd_elf_cache_free(c);
        gd_root_free(root);
        if (made < n) {
            assert_false(oom);
            break;
        }
        if (!oom)
            fail_msg("allocation %lu failed: %s, read %s", n, gd_status_str(st), gd_status_str(rs));
    }
    tu_rmtree(r);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_search_order),
        cmocka_unit_test(test_rpath_runpath),
        cmocka_unit_test(test_dynamic_string_tokens),
        cmocka_unit_test(test_hwcaps),
        cmocka_unit_test(test_nodeflib),
        cmocka_unit_test(test_cache_by_ldconfig),
        cmocka_unit_test(test_reuse),
        cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_dlopen),
        cmocka_unit_test_setup_teardown(test_which_tree, which_setup, which_teardown),
        cmocka_unit_test_setup_teardown(test_which_name, which_setup, which_teardown),
        cmocka_unit_test_setup_teardown(test_which_alloc_failures, which_setup, which_teardown),
        cmocka_unit_test(test_corrupt_cache),
        cmocka_unit_test(test_tree_diamond),
        cmocka_unit_test(test_against_ldd),
        cmocka_unit_test(test_truncated_sections_against_ldd),
        cmocka_unit_test(test_elf_cache),
    };
    int failed = cmocka_run_group_tests_name("reading", tests, NULL, free_caches);
    with_cache = true;
    return failed + cmocka_run_group_tests_name("through an ELF cache", tests, NULL, free_caches);
}
