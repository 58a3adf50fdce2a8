/* The Python environment finder: the list, kinds, versions and site directories in import
 * order, exactly, on the pyenvs fixture root and on trees built here; out of memory at every
 * allocation ends in GD_ENOMEM, never in a shorter list. */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "core/env.h"
#include "probe/probe.h"
#include "probe/pyenvs.h"
#include "sysroot/sysroot.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

#define FIXTURE GD_SOURCE_DIR "/tests/fixtures/roots/pyenvs"
/* One of the fixture's symlinks: the fixture means nothing where they are not links. */
#define FIXTURE_LINK FIXTURE "/usr/local/bin/python3"

/* One line per environment, every field the finder sets, then one per problem. */
static void describe(const struct gd_pyenvs *envs, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
#define PUT(...) n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__)
    for (size_t i = 0; i < envs->count; i++) {
        const struct gd_pyenv *e = &envs->items[i];
        PUT("%s %s v=%s py=%s by=%s%s%s", gd_pyenv_kind_name(e->kind), e->prefix,
            e->version ? e->version : "-", e->python ? e->python : "-", e->found_by,
            e->active ? " active" : "", e->is_default ? " default" : "");
        if (e->kind == GD_PYENV_VENV)
            PUT(" base=%s system_site=%d", e->base_prefix ? e->base_prefix : "-", e->system_site);
        PUT(" |");
        for (size_t k = 0; k < e->site_dirs.count; k++)
            PUT(" %s", e->site_dirs.items[k]);
        PUT("\n");
    }
    for (size_t i = 0; i < envs->nproblems; i++)
        PUT("! %s: %s\n", envs->problems[i].path, envs->problems[i].reason);
    if (envs->dropped)
        PUT("dropped %zu\n", envs->dropped);
#undef PUT
    assert_true(n < size);
}

struct run {
    struct gd_root *root;
    struct gd_env *env;
    struct gd_strlist pythons, sites;
    struct gd_probe_ctx ctx;
};

/* A context for the root at `dir` with the variables "NAME=VALUE", NULL-terminated. */
static void run_init(struct run *r, const char *dir, const char *const *vars)
{
    memset(r, 0, sizeof *r);
    assert_int_equal(gd_root_new(dir, &r->root), GD_OK);
    r->env = gd_env_new();
    assert_non_null(r->env);
    for (size_t i = 0; vars && vars[i]; i++)
        assert_int_equal(gd_env_put(r->env, vars[i]), GD_OK);
    r->ctx.root = r->root;
    r->ctx.env = r->env;
    r->ctx.pythons = &r->pythons;
    r->ctx.sites = &r->sites;
}

static void run_free(struct run *r)
{
    gd_root_free(r->root);
    gd_env_free(r->env);
    gd_strlist_free(&r->pythons);
    gd_strlist_free(&r->sites);
}

static void find(const char *dir, const char *const *vars, char *buf, size_t size)
{
    struct run r;
    run_init(&r, dir, vars);
    struct gd_pyenvs envs;
    assert_int_equal(gd_find_python_envs(&r.ctx, &envs), GD_OK);
    describe(&envs, buf, size);
    gd_pyenvs_free(&envs);
    run_free(&r);
}

/* tests/e2e/pyenvs.env: alice's shell in her project's venv, conda's torch active too. */
static const char *const alice[] = {
    "HOME=/home/alice",
    "PATH=/home/alice/project/.venv/bin:/home/alice/miniconda3/envs/torch/bin:"
    "/home/alice/miniconda3/condabin:/home/alice/.pyenv/shims:/usr/local/bin:/usr/bin:/bin",
    "VIRTUAL_ENV=/home/alice/project/.venv",
    "CONDA_PREFIX=/home/alice/miniconda3/envs/torch",
    "CONDA_EXE=/home/alice/miniconda3/bin/conda",
    NULL,
};

static const char alice_envs[] =
    "venv /home/alice/project/.venv v=3.11 py=/home/alice/project/.venv/bin/python3.11 "
    "by=VIRTUAL_ENV active default base=/usr system_site=0 | "
    "/home/alice/project/.venv/lib/python3.11/site-packages\n"
    "conda /home/alice/miniconda3/envs/torch v=3.12 "
    "py=/home/alice/miniconda3/envs/torch/bin/python3.12 by=CONDA_PREFIX active | "
    "/home/alice/miniconda3/envs/torch/lib/python3.12/site-packages\n"
    "pyenv /home/alice/.pyenv/versions/3.10.13 v=3.10 "
    "py=/home/alice/.pyenv/versions/3.10.13/bin/python3.10 by=pyenv shim | "
    "/home/alice/.pyenv/versions/3.10.13/lib/python3.10/site-packages\n"
    "system /opt/python/3.12.1 v=3.12 py=/usr/local/bin/python3 by=PATH | "
    "/opt/python/3.12.1/lib/python3.12/site-packages\n"
    "system /usr v=3.11 py=/usr/bin/python3 by=PATH | "
    "/home/alice/.local/lib/python3.11/site-packages /usr/local/lib/python3.11/dist-packages "
    "/usr/lib/python3/dist-packages\n"
    "conda /home/alice/miniconda3 v=3.11 py=/home/alice/miniconda3/bin/python3.11 by=conda | "
    "/home/alice/.local/lib/python3.11/site-packages "
    "/home/alice/miniconda3/lib/python3.11/site-packages\n"
    "conda /home/alice/miniconda3/envs/tf v=3.10 py=/home/alice/miniconda3/envs/tf/bin/python3.10 "
    "by=conda | /home/alice/miniconda3/envs/tf/lib/python3.10/site-packages\n"
    "conda /data/envs/jax v=3.11 py=/data/envs/jax/bin/python3.11 by=environments.txt | "
    "/home/alice/.local/lib/python3.11/site-packages /data/envs/jax/lib/python3.11/site-packages\n"
    "pyenv /home/alice/.pyenv/versions/3.12.1 v=3.12 "
    "py=/home/alice/.pyenv/versions/3.12.1/bin/python3.12 by=pyenv | "
    "/home/alice/.pyenv/versions/3.12.1/lib/python3.12/site-packages\n"
    "venv /home/alice/.pyenv/versions/3.12.1/envs/proj v=3.12 "
    "py=/home/alice/.pyenv/versions/3.12.1/envs/proj/bin/python3.12 by=pyenv "
    "base=/home/alice/.pyenv/versions/3.12.1 system_site=0 | "
    "/home/alice/.pyenv/versions/3.12.1/envs/proj/lib/python3.12/site-packages\n"
    "venv /home/alice/.virtualenvs/gone v=3.8 py=- by=virtualenvwrapper base=- system_site=0 | "
    "/home/alice/.virtualenvs/gone/lib/python3.8/site-packages\n"
    "venv /home/alice/.virtualenvs/junk v=3.11 py=- by=virtualenvwrapper base=- system_site=1 | "
    "/home/alice/.virtualenvs/junk/lib/python3.11/site-packages "
    "/home/alice/.local/lib/python3.11/site-packages\n"
    "venv /home/alice/.virtualenvs/ml v=3.12 py=/home/alice/.virtualenvs/ml/bin/python3 "
    "by=virtualenvwrapper base=/opt/python/3.12.1 system_site=0 | "
    "/home/alice/.virtualenvs/ml/lib/python3.12/site-packages\n"
    "venv /home/alice/.virtualenvs/web v=3.11 py=/home/alice/.virtualenvs/web/bin/python3.11 "
    "by=virtualenvwrapper base=/usr system_site=1 | "
    "/home/alice/.virtualenvs/web/lib/python3.11/site-packages "
    "/home/alice/.local/lib/python3.11/site-packages /usr/local/lib/python3.11/dist-packages "
    "/usr/lib/python3/dist-packages\n"
    "user /home/alice/.local v=3.11 py=- by=user site | "
    "/home/alice/.local/lib/python3.11/site-packages\n"
    "user /root/.local v=3.12 py=- by=user site | /root/.local/lib/python3.12/site-packages\n"
    "! /usr/local/bin/python: dangling symbolic link to /opt/python/3.9.18/bin/python3.9\n"
    "! /home/alice/.virtualenvs/gone: its base interpreter is gone: no python in home = "
    "/usr/local/python3.8/bin\n";

static void test_fixture_active(void **state)
{
    (void)state;
    tu_need_fixture_links(FIXTURE_LINK);
    static char got[16384];
    find(FIXTURE, alice, got, sizeof got);
    assert_string_equal(got, alice_envs);
}

/* No variables: every home is searched all the same, nothing is active or the default, no
 * user site precedes an environment's own, and the project's .venv is not found (it is only
 * when active, on PATH or given). The venvs' bases are added last where nothing else found
 * them. */
static void test_fixture_bare(void **state)
{
    (void)state;
    tu_need_fixture_links(FIXTURE_LINK);
    static char got[16384];
    find(FIXTURE, NULL, got, sizeof got);
    assert_string_equal(
        got,
        "conda /home/alice/miniconda3 v=3.11 py=/home/alice/miniconda3/bin/python3.11 by=conda | "
        "/home/alice/miniconda3/lib/python3.11/site-packages\n"
        "conda /home/alice/miniconda3/envs/tf v=3.10 "
        "py=/home/alice/miniconda3/envs/tf/bin/python3.10 by=conda | "
        "/home/alice/miniconda3/envs/tf/lib/python3.10/site-packages\n"
        "conda /home/alice/miniconda3/envs/torch v=3.12 "
        "py=/home/alice/miniconda3/envs/torch/bin/python3.12 by=conda | "
        "/home/alice/miniconda3/envs/torch/lib/python3.12/site-packages\n"
        "conda /data/envs/jax v=3.11 py=/data/envs/jax/bin/python3.11 by=environments.txt | "
        "/data/envs/jax/lib/python3.11/site-packages\n"
        "pyenv /home/alice/.pyenv/versions/3.10.13 v=3.10 "
        "py=/home/alice/.pyenv/versions/3.10.13/bin/python3.10 by=pyenv | "
        "/home/alice/.pyenv/versions/3.10.13/lib/python3.10/site-packages\n"
        "pyenv /home/alice/.pyenv/versions/3.12.1 v=3.12 "
        "py=/home/alice/.pyenv/versions/3.12.1/bin/python3.12 by=pyenv | "
        "/home/alice/.pyenv/versions/3.12.1/lib/python3.12/site-packages\n"
        "venv /home/alice/.pyenv/versions/3.12.1/envs/proj v=3.12 "
        "py=/home/alice/.pyenv/versions/3.12.1/envs/proj/bin/python3.12 by=pyenv "
        "base=/home/alice/.pyenv/versions/3.12.1 system_site=0 | "
        "/home/alice/.pyenv/versions/3.12.1/envs/proj/lib/python3.12/site-packages\n"
        "venv /home/alice/.virtualenvs/gone v=3.8 py=- by=virtualenvwrapper base=- "
        "system_site=0 | /home/alice/.virtualenvs/gone/lib/python3.8/site-packages\n"
        "venv /home/alice/.virtualenvs/junk v=3.11 py=- by=virtualenvwrapper base=- "
        "system_site=1 | /home/alice/.virtualenvs/junk/lib/python3.11/site-packages\n"
        "venv /home/alice/.virtualenvs/ml v=3.12 py=/home/alice/.virtualenvs/ml/bin/python3 "
        "by=virtualenvwrapper base=/opt/python/3.12.1 system_site=0 | "
        "/home/alice/.virtualenvs/ml/lib/python3.12/site-packages\n"
        "venv /home/alice/.virtualenvs/web v=3.11 py=/home/alice/.virtualenvs/web/bin/python3.11 "
        "by=virtualenvwrapper base=/usr system_site=1 | "
        "/home/alice/.virtualenvs/web/lib/python3.11/site-packages "
        "/usr/local/lib/python3.11/dist-packages /usr/lib/python3/dist-packages\n"
        "system /usr v=3.11 py=/usr/bin/python3.11 by=system | "
        "/usr/local/lib/python3.11/dist-packages /usr/lib/python3/dist-packages\n"
        "user /root/.local v=3.12 py=- by=user site | /root/.local/lib/python3.12/site-packages\n"
        "user /home/alice/.local v=3.11 py=- by=user site | "
        "/home/alice/.local/lib/python3.11/site-packages\n"
        "system /opt/python/3.12.1 v=3.12 py=/opt/python/3.12.1/bin/python3.12 by=venv base | "
        "/opt/python/3.12.1/lib/python3.12/site-packages\n"
        "! /home/alice/.virtualenvs/gone: its base interpreter is gone: no python in home = "
        "/usr/local/python3.8/bin\n");
}

/* --python and --site come first; a venv's interpreter heads the venv, not its link's target;
 * a relative path is taken from the root's top; what does not exist is a problem. */
static void test_fixture_given(void **state)
{
    (void)state;
    tu_need_fixture_links(FIXTURE_LINK);
    struct run r;
    run_init(&r, FIXTURE, NULL);
    gd_strlist_push(&r.pythons, "/home/alice/.virtualenvs/web/bin/python");
    gd_strlist_push(&r.pythons, "opt/python/3.12.1/bin/python3.12");
    gd_strlist_push(&r.pythons, "/usr/bin/python3.13");
    gd_strlist_push(&r.sites, "/srv/app/vendor");
    gd_strlist_push(&r.sites, "/home/alice/.local/lib/python3.11/site-packages");
    gd_strlist_push(&r.sites, "/srv/app/missing");
    struct gd_pyenvs envs;
    assert_int_equal(gd_find_python_envs(&r.ctx, &envs), GD_OK);
    static char got[16384];
    describe(&envs, got, sizeof got);
    /* The first lines: the given ones. */
    static const char head[] =
        "venv /home/alice/.virtualenvs/web v=3.11 py=/home/alice/.virtualenvs/web/bin/python "
        "by=--python base=/usr system_site=1 | "
        "/home/alice/.virtualenvs/web/lib/python3.11/site-packages "
        "/usr/local/lib/python3.11/dist-packages /usr/lib/python3/dist-packages\n"
        "system /opt/python/3.12.1 v=3.12 py=/opt/python/3.12.1/bin/python3.12 by=--python | "
        "/opt/python/3.12.1/lib/python3.12/site-packages\n"
        "given /srv/app/vendor v=- py=- by=--site | /srv/app/vendor\n"
        "given /home/alice/.local/lib/python3.11/site-packages v=3.11 py=- by=--site | "
        "/home/alice/.local/lib/python3.11/site-packages\n";
    assert_memory_equal(got, head, sizeof head - 1);
    assert_non_null(strstr(got, "! /usr/bin/python3.13: no such file or directory\n"));
    assert_non_null(strstr(got, "! /srv/app/missing: no such file or directory\n"));
    assert_int_equal(envs.count, 17);
    gd_pyenvs_free(&envs);
    run_free(&r);
}

/* Every allocation failed in turn: GD_ENOMEM each time, an empty list, and once none fails the
 * same list as without failures. */
static void test_alloc_failures(void **state)
{
    (void)state;
    tu_need_fixture_links(FIXTURE_LINK);
    static char want[16384], got[16384];
    struct run r;
    run_init(&r, FIXTURE, alice);
    struct gd_pyenvs envs;
    gd_alloc_fail_at(0);
    assert_int_equal(gd_find_python_envs(&r.ctx, &envs), GD_OK);
    unsigned long total = gd_alloc_fail_at(0);
    describe(&envs, want, sizeof want);
    gd_pyenvs_free(&envs);
    run_free(&r);
    assert_string_equal(want, alice_envs);
    assert_true(total > 100);
    for (unsigned long n = 1; n <= total + 1; n++) {
        run_init(&r, FIXTURE, alice); /* a fresh root: its anomalies are noted again */
        gd_alloc_fail_at(n);
        enum gd_status st = gd_find_python_envs(&r.ctx, &envs);
        gd_alloc_fail_at(0);
        if (n <= total && st != GD_ENOMEM)
            fail_msg("allocation %lu of %lu failed, yet the finder says %s", n, total,
                     gd_status_str(st));
        if (st == GD_ENOMEM) {
            assert_int_equal(envs.count, 0);
            assert_null(envs.items);
            assert_int_equal(envs.nproblems, 0);
        } else {
            assert_int_equal(st, GD_OK);
            describe(&envs, got, sizeof got);
            assert_string_equal(got, want);
            gd_pyenvs_free(&envs);
        }
        run_free(&r);
    }
}

/* ---- trees built here -------------------------------------------------------------------- */

static char *tree;

static void fresh_tree(void)
{
    tu_rmtree(tree);
    free(tree);
    tree = tu_mkdtemp("pyenvs");
}

/* Fedora: the standard library in /usr/lib64, platlib before purelib, and /usr/local first
 * (Fedora's site.py, where pip installs outside RPM). Not Debian: no dist-packages. */
static void test_fedora(void **state)
{
    (void)state;
    fresh_tree();
    tu_write(tree, "usr/bin/python3.12", "");
    tu_symlink(tree, "usr/bin/python3", "python3.12");
    tu_write(tree, "usr/lib64/python3.12/os.py", "");
    tu_mkdirs(tree, "usr/lib64/python3.12/site-packages");
    tu_mkdirs(tree, "usr/lib/python3.12/site-packages");
    tu_mkdirs(tree, "usr/local/lib/python3.12/site-packages");
    tu_mkdirs(tree, "home/fedora/.local/lib/python3.12/site-packages");
    char got[4096];
    static const char *const vars[] = { "PATH=/usr/bin", "HOME=/home/fedora", NULL };
    find(tree, vars, got, sizeof got);
    assert_string_equal(got, "system /usr v=3.12 py=/usr/bin/python3 by=PATH default | "
                             "/home/fedora/.local/lib/python3.12/site-packages "
                             "/usr/local/lib/python3.12/site-packages "
                             "/usr/lib64/python3.12/site-packages "
                             "/usr/lib/python3.12/site-packages\n"
                             "user /home/fedora/.local v=3.12 py=- by=user site | "
                             "/home/fedora/.local/lib/python3.12/site-packages\n");
}

/* The python:3.11 images: CPython built into /usr/local, no Debian python3. */
static void test_docker_python(void **state)
{
    (void)state;
    fresh_tree();
    tu_write(tree, "usr/local/bin/python3.11", "");
    tu_symlink(tree, "usr/local/bin/python3", "python3.11");
    tu_symlink(tree, "usr/local/bin/python", "python3");
    tu_write(tree, "usr/local/lib/python3.11/os.py", "");
    tu_mkdirs(tree, "usr/local/lib/python3.11/site-packages/torch");
    char got[4096];
    static const char *const vars[] = {
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", NULL
    };
    find(tree, vars, got, sizeof got);
    assert_string_equal(got, "system /usr/local v=3.11 py=/usr/local/bin/python3 by=PATH default | "
                             "/usr/local/lib/python3.11/site-packages\n");
}

/* Ubuntu with deadsnakes' python3.12 beside the system's 3.10: one prefix, two environments;
 * the one python3 runs first. python3.12 on PATH is found by name from /usr/lib's listing. */
static void test_deadsnakes(void **state)
{
    (void)state;
    fresh_tree();
    tu_write(tree, "usr/bin/python3.10", "");
    tu_write(tree, "usr/bin/python3.12", "");
    tu_symlink(tree, "usr/bin/python3", "python3.10");
    tu_write(tree, "usr/lib/python3.10/os.py", "");
    tu_write(tree, "usr/lib/python3.12/os.py", "");
    tu_mkdirs(tree, "usr/lib/python3/dist-packages");
    tu_mkdirs(tree, "usr/local/lib/python3.12/dist-packages");
    char got[4096];
    static const char *const vars[] = { "PATH=/usr/bin", NULL };
    find(tree, vars, got, sizeof got);
    assert_string_equal(got, "system /usr v=3.10 py=/usr/bin/python3 by=PATH default | "
                             "/usr/lib/python3/dist-packages\n"
                             "system /usr v=3.12 py=/usr/bin/python3.12 by=PATH | "
                             "/usr/local/lib/python3.12/dist-packages "
                             "/usr/lib/python3/dist-packages\n");
    /* The second version's entity carries it in its id. */
    struct gd_options *o = NULL;
    struct gd_report *rep = NULL;
    assert_int_equal(gd_options_new(&o), GD_OK);
    assert_int_equal(gd_options_set_root(o, tree), GD_OK);
    assert_int_equal(gd_options_set_env(o, "PATH=/usr/bin"), GD_OK);
    assert_int_equal(gd_check(o, &rep), GD_OK);
    const struct gd_entity *a = gd_report_entity(rep, "python_env:/usr");
    const struct gd_entity *b = gd_report_entity(rep, "python_env:/usr@3.12");
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(gd_fact_value(gd_entity_fact(a, "version")), "3.10");
    assert_string_equal(gd_fact_value(gd_entity_fact(b, "version")), "3.12");
    assert_string_equal(gd_fact_value(gd_entity_fact(b, "site_dirs[0]")),
                        "/usr/local/lib/python3.12/dist-packages");
    assert_string_equal(gd_fact_value(gd_report_fact(rep, "python", "default")), "/usr");
    gd_report_free(rep);
    gd_options_free(o);
}

/* PYTHONUSERBASE moves the user site (site.py); PYTHONNOUSERSITE turns it off. */
static void test_user_base(void **state)
{
    (void)state;
    fresh_tree();
    tu_write(tree, "usr/bin/python3.11", "");
    tu_symlink(tree, "usr/bin/python3", "python3.11");
    tu_write(tree, "usr/lib/python3.11/os.py", "");
    tu_mkdirs(tree, "usr/lib/python3/dist-packages");
    tu_mkdirs(tree, "opt/ub/lib/python3.11/site-packages");
    tu_mkdirs(tree, "home/bob/.local/lib/python3.11/site-packages");
    char got[4096];
    static const char *const moved[] = { "PATH=/usr/bin", "HOME=/home/bob",
                                         "PYTHONUSERBASE=/opt/ub", NULL };
    find(tree, moved, got, sizeof got);
    assert_string_equal(got, "system /usr v=3.11 py=/usr/bin/python3 by=PATH default | "
                             "/opt/ub/lib/python3.11/site-packages /usr/lib/python3/dist-packages\n"
                             "user /home/bob/.local v=3.11 py=- by=user site | "
                             "/home/bob/.local/lib/python3.11/site-packages\n"
                             "user /opt/ub v=3.11 py=- by=user site | "
                             "/opt/ub/lib/python3.11/site-packages\n");
    static const char *const off[] = { "PATH=/usr/bin", "HOME=/home/bob", "PYTHONNOUSERSITE=1",
                                       NULL };
    find(tree, off, got, sizeof got);
    assert_string_equal(got, "system /usr v=3.11 py=/usr/bin/python3 by=PATH default | "
                             "/usr/lib/python3/dist-packages\n"
                             "user /home/bob/.local v=3.11 py=- by=user site | "
                             "/home/bob/.local/lib/python3.11/site-packages\n");
}

/* One environment per real prefix: /opt/conda a link to /opt/miniconda3, CONDA_PREFIX through
 * the link, an envs/ entry that links to another. */
static void test_dedupe(void **state)
{
    (void)state;
    fresh_tree();
    tu_mkdirs(tree, "opt/miniconda3/conda-meta");
    tu_write(tree, "opt/miniconda3/bin/python3.11", "");
    tu_symlink(tree, "opt/miniconda3/bin/python3", "python3.11");
    tu_mkdirs(tree, "opt/miniconda3/lib/python3.11/site-packages");
    tu_symlink(tree, "opt/conda", "miniconda3");
    tu_mkdirs(tree, "opt/miniconda3/envs/a/conda-meta");
    tu_symlink(tree, "opt/miniconda3/envs/b", "a");
    char got[4096];
    static const char *const vars[] = { "CONDA_PREFIX=/opt/conda", NULL };
    find(tree, vars, got, sizeof got);
    assert_string_equal(got, "conda /opt/miniconda3 v=3.11 py=/opt/miniconda3/bin/python3.11 "
                             "by=CONDA_PREFIX active | "
                             "/opt/miniconda3/lib/python3.11/site-packages\n"
                             "conda /opt/miniconda3/envs/a v=- py=- by=conda |\n");
}

/* PYENV_VERSION=system: the shims stand for nothing, the next python3 on PATH is the default.
 * A version that is not installed is a problem. */
static void test_pyenv_selection(void **state)
{
    (void)state;
    fresh_tree();
    tu_write(tree, "root/.pyenv/shims/python3", "#!/usr/bin/env bash\n");
    tu_write(tree, "root/.pyenv/versions/3.11.7/bin/python3.11", "");
    tu_mkdirs(tree, "root/.pyenv/versions/3.11.7/lib/python3.11/site-packages");
    tu_write(tree, "usr/bin/python3.11", "");
    tu_symlink(tree, "usr/bin/python3", "python3.11");
    tu_write(tree, "usr/lib/python3.11/os.py", "");
    char got[4096];
    static const char *const sys[] = { "PATH=/root/.pyenv/shims:/usr/bin", "PYENV_VERSION=system",
                                       NULL };
    find(tree, sys, got, sizeof got);
    assert_string_equal(got, "system /usr v=3.11 py=/usr/bin/python3 by=PATH default |\n"
                             "pyenv /root/.pyenv/versions/3.11.7 v=3.11 "
                             "py=/root/.pyenv/versions/3.11.7/bin/python3.11 by=pyenv | "
                             "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages\n");
    static const char *const missing[] = { "PATH=/root/.pyenv/shims:/usr/bin",
                                           "PYENV_VERSION=3.9.1", NULL };
    find(tree, missing, got, sizeof got);
    assert_string_equal(got, "system /usr v=3.11 py=/usr/bin/python3 by=PATH default |\n"
                             "pyenv /root/.pyenv/versions/3.11.7 v=3.11 "
                             "py=/root/.pyenv/versions/3.11.7/bin/python3.11 by=pyenv | "
                             "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages\n"
                             "! /root/.pyenv/versions/3.9.1: pyenv version 3.9.1 is not "
                             "installed\n");
}

/* More environments than the cap: the first GD_PYENVS_MAX are kept, the rest counted. */
static void test_cap(void **state)
{
    (void)state;
    fresh_tree();
    char rel[64];
    for (int i = 0; i < GD_PYENVS_MAX + 10; i++) {
        snprintf(rel, sizeof rel, "opt/conda/envs/e%03d/conda-meta", i);
        tu_mkdirs(tree, rel);
    }
    struct run r;
    run_init(&r, tree, NULL);
    struct gd_pyenvs envs;
    assert_int_equal(gd_find_python_envs(&r.ctx, &envs), GD_OK);
    assert_int_equal(envs.count, GD_PYENVS_MAX);
    assert_int_equal(envs.dropped, 10);
    gd_pyenvs_free(&envs);
    run_free(&r);
}

/* gd_find_site_packages: every environment's site directories, each once. */
static void test_site_packages(void **state)
{
    (void)state;
    tu_need_fixture_links(FIXTURE_LINK);
    struct run r;
    run_init(&r, FIXTURE, alice);
    struct gd_strlist sites = { 0 };
    assert_int_equal(gd_find_site_packages(&r.ctx, &sites), GD_OK);
    assert_int_equal(sites.count, 17);
    assert_string_equal(sites.items[0], "/home/alice/project/.venv/lib/python3.11/site-packages");
    assert_true(gd_strlist_contains(&sites, "/usr/lib/python3/dist-packages"));
    for (size_t i = 0; i < sites.count; i++)
        for (size_t k = i + 1; k < sites.count; k++)
            assert_string_not_equal(sites.items[i], sites.items[k]);
    gd_strlist_free(&sites);
    run_free(&r);
}

static int teardown(void **state)
{
    (void)state;
    tu_rmtree(tree);
    free(tree);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_active),
        cmocka_unit_test(test_fixture_bare),
        cmocka_unit_test(test_fixture_given),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_fedora),
        cmocka_unit_test(test_docker_python),
        cmocka_unit_test(test_deadsnakes),
        cmocka_unit_test(test_user_base),
        cmocka_unit_test(test_dedupe),
        cmocka_unit_test(test_pyenv_selection),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_site_packages),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
