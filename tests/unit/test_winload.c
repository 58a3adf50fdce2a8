/*
 * The Windows DLL search (src/loader/winload.c) on Windows trees built at test time under a
 * foreign root: hand-built PE images (tests/unit/pebuild.h) of chosen machines and imports, in
 * directories spelled in other cases than the names asked for; both search orders, PATH and the
 * current directory, os.add_dll_directory's directories, the Python that loads a module, a DLL of
 * another machine, a file that is not a PE image, loops of imports, API sets, hostile import
 * tables, every failed allocation; and a DLL built by mingw-w64.
 */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "loader/winload.h"
#include "os/os.h"
#include "sysroot/sysroot.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pebuild.h"
#include "testutil.h"

#define X64  0x8664
#define X86  0x014c
#define ARM6 0xaa64

/* A DLL for `machine` at `rel` importing up to three names (NULL ends them). */
static void dll(const char *root, const char *rel, uint16_t machine, const char *a, const char *b,
                const char *c)
{
    const char *names[3] = { NULL, NULL, NULL };
    size_t n = 0;
    if (a)
        names[n++] = a;
    if (b)
        names[n++] = b;
    if (c)
        names[n++] = c;
    size_t len = 0;
    unsigned char *img = pb_image(machine, 0, names, n, &len);
    assert_non_null(img);
    tu_write_n(root, rel, img, len);
    free(img);
}

/* A Windows installation as a wine prefix spells it: lower-case windows/system32 with the
 * system DLLs in upper case, as Windows ships some of them. */
static char *windows_tree(void)
{
    char *root = tu_mkdtemp("winload");
    dll(root, "/windows/system32/KERNEL32.DLL", X64, "ntdll.dll", NULL, NULL);
    dll(root, "/windows/system32/ntdll.dll", X64, NULL, NULL, NULL);
    dll(root, "/windows/system32/msvcrt.dll", X64, "KERNEL32.dll", NULL, NULL);
    tu_mkdirs(root, "/windows/system");
    return root;
}

struct fixture {
    char *dir;
    struct gd_root *root;
    struct gd_winload *L;
};

static struct gd_winload *load(struct fixture *f, const struct gd_winload_options *o,
                               uint16_t machine)
{
    assert_int_equal(gd_root_new(f->dir, &f->root), GD_OK);
    assert_int_equal(gd_winload_new(f->root, o, machine, &f->L), GD_OK);
    return f->L;
}

static void done(struct fixture *f)
{
    gd_winload_free(f->L);
    gd_root_free(f->root);
    tu_rmtree(f->dir);
    free(f->dir);
}

/* The rules of an edge's tries, as "rule:verdict" joined by spaces. */
static const char *tries_text(const struct gd_win_edge *e, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; i < e->ntries; i++) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, "%s%s:%s", i ? " " : "", gd_win_rule_name(e->tries[i].rule),
                 gd_win_verdict_name(e->tries[i].verdict));
    }
    return buf;
}

/* ---- paths ------------------------------------------------------------------------------------
 */

static void expect_path(const char *win, const char *cwd, const char *want)
{
    char *got = NULL;
    enum gd_status st = gd_win_path_in_root(win, cwd, &got);
    if (!want) {
        assert_int_equal(st, GD_EINVAL);
        assert_null(got);
        return;
    }
    assert_int_equal(st, GD_OK);
    assert_string_equal(got, want);
    gd_free(got);
}

static void test_paths(void **state)
{
    (void)state;
    expect_path("C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin", NULL,
                "/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2/bin");
    expect_path("c:/Windows/System32/", NULL, "/Windows/System32");
    expect_path("\\Windows\\\\System32\\.\\drivers\\..", NULL, "/Windows/System32");
    expect_path("\\\\?\\D:\\x\\y", NULL, "/x/y");
    expect_path("\\\\server\\share\\bin", "/x", NULL);
    expect_path("\\\\.\\pipe\\x", "/x", NULL);
    expect_path("bin\\x64", "/Users/alice", "/Users/alice/bin/x64");
    expect_path("C:bin", "/Users/alice", "/Users/alice/bin");
    expect_path("bin", NULL, NULL);
    expect_path("..\\..\\..\\..", "/Users/alice", "/");
    expect_path("/already/inside", NULL, "/already/inside");
    expect_path("C:\\", NULL, "/");
    expect_path("", "/x", NULL);
}

static void test_find_any_case(void **state)
{
    (void)state;
    struct fixture f = { windows_tree(), NULL, NULL };
    assert_int_equal(gd_root_new(f.dir, &f.root), GD_OK);
    char *p = NULL;
    assert_int_equal(gd_win_find(f.root, "/WINDOWS/System32/kernel32.dll", &p), GD_OK);
    assert_string_equal(p, "/windows/system32/KERNEL32.DLL");
    gd_free(p);
    assert_int_equal(gd_win_find(f.root, "/Windows/SYSTEM32", &p), GD_OK);
    assert_string_equal(p, "/windows/system32");
    gd_free(p);
    /* The exact spelling wins where a case-sensitive tree holds two (a case-folding file
     * system, Windows', holds one: the file written is KERNEL32.DLL again). */
    if (!gd_os_names_ignore_case()) {
        dll(f.dir, "/windows/system32/kernel32.dll", X64, NULL, NULL, NULL);
        gd_root_forget(f.root);
        assert_int_equal(gd_win_find(f.root, "/windows/system32/kernel32.dll", &p), GD_OK);
        assert_string_equal(p, "/windows/system32/kernel32.dll");
        gd_free(p);
    }
    assert_int_equal(gd_win_find(f.root, "/windows/system32/nothere.dll", &p), GD_ENOENT);
    assert_int_equal(gd_win_find(f.root, "/windows/nodir/x.dll", &p), GD_ENOENT);
    /* A file is not a directory on the way. */
    assert_int_equal(gd_win_find(f.root, "/windows/system32/ntdll.dll/x", &p), GD_ENOENT);
    assert_null(p);
    gd_root_free(f.root);
    f.root = NULL;
    done(&f);
}

/* ---- the standard order -----------------------------------------------------------------------
 */

static void test_standard_order(void **state)
{
    (void)state;
    struct fixture f = { windows_tree(), NULL, NULL };
    dll(f.dir, "/app/app.exe", X64, NULL, NULL, NULL);
    dll(f.dir, "/Tools/Bin/cudart64_110.dll", X64, "KERNEL32.dll", NULL, NULL);
    tu_mkdirs(f.dir, "/Users/alice");
    struct gd_winload_options o = { 0 };
    o.mode = GD_WIN_STANDARD;
    o.app_dir = "C:\\app";
    o.cwd = "C:\\Users\\alice";
    o.path_env = "C:\\nowhere;;\"C:\\tools\\bin\";\\\\server\\share";
    o.record_tries = true;
    struct gd_winload *L = load(&f, &o, 0);
    struct gd_win_edge *e = NULL;
    assert_int_equal(gd_winload_resolve(L, NULL, "CUDART64_110", true, &e), GD_OK);
    assert_string_equal(e->name, "CUDART64_110.dll");
    assert_non_null(e->to);
    assert_int_equal(e->rule, GD_WIN_RULE_PATH_ENV);
    assert_string_equal(e->to->path, "/Tools/Bin/cudart64_110.dll");
    assert_string_equal(e->dir, "/Tools/Bin");
    char buf[1024];
    assert_string_equal(tries_text(e, buf, sizeof buf),
                        "application directory:not there System32:not there "
                        "16-bit system directory:not there Windows directory:not there "
                        "current directory:not there PATH:not there PATH:found");
    /* The directories of the request, the UNC entry kept with why it is not searched. */
    const struct gd_win_dir *dirs = NULL;
    size_t n = gd_winload_dirs(L, e->to->request, &dirs);
    assert_int_equal(n, 8);
    assert_string_equal(dirs[0].dir, "/app");
    assert_string_equal(dirs[1].dir, "/windows/system32");
    assert_string_equal(dirs[6].as_given, "C:\\tools\\bin");
    assert_null(dirs[7].dir);
    assert_non_null(dirs[7].why);
    /* Its import is in System32, found without regard to case, then reused. */
    assert_int_equal(gd_winload_count(L), 3);
    struct gd_win_object *k32 = gd_winload_at(L, 1);
    assert_string_equal(k32->path, "/windows/system32/KERNEL32.DLL");
    assert_int_equal(k32->found_by, GD_WIN_RULE_SYSTEM32);
    assert_string_equal(gd_winload_at(L, 2)->name, "ntdll.dll");
    assert_int_equal(gd_winload_missing_count(L), 0);
    /* The application directory comes first: a copy there wins over PATH's. */
    struct gd_win_edge *again = NULL;
    assert_int_equal(gd_winload_resolve(L, NULL, "cudart64_110.dll", false, &again), GD_OK);
    assert_int_equal(again->rule, GD_WIN_RULE_LOADED);
    gd_winload_free(L);
    dll(f.dir, "/app/cudart64_110.dll", X64, NULL, NULL, NULL);
    gd_root_forget(f.root);
    assert_int_equal(gd_winload_new(f.root, &o, 0, &f.L), GD_OK);
    assert_int_equal(gd_winload_resolve(f.L, NULL, "cudart64_110.dll", false, &e), GD_OK);
    assert_int_equal(e->rule, GD_WIN_RULE_APP_DIR);
    /* And the current directory before PATH. */
    gd_winload_free(f.L);
    unlink(tu_path(buf, sizeof buf, f.dir, "/app/cudart64_110.dll"));
    dll(f.dir, "/Users/alice/cudart64_110.dll", X64, NULL, NULL, NULL);
    gd_root_forget(f.root);
    assert_int_equal(gd_winload_new(f.root, &o, 0, &f.L), GD_OK);
    assert_int_equal(gd_winload_resolve(f.L, NULL, "cudart64_110.dll", false, &e), GD_OK);
    assert_int_equal(e->rule, GD_WIN_RULE_CWD);
    done(&f);
}

/* A DLL loaded by path in the standard order: its imports are looked for in the application's
 * directory, not its own. */
static void test_standard_dll_by_path(void **state)
{
    (void)state;
    struct fixture f = { windows_tree(), NULL, NULL };
    dll(f.dir, "/lib/plugin.dll", X64, "helper.dll", NULL, NULL);
    dll(f.dir, "/lib/helper.dll", X64, NULL, NULL, NULL);
    struct gd_winload_options o = { 0 };
    o.app_dir = "C:\\app";
    o.record_tries = true;
    struct gd_winload *L = load(&f, &o, 0);
    struct gd_win_object *m = NULL;
    assert_int_equal(gd_winload_module(L, "C:\\LIB\\Plugin.dll", true, &m), GD_OK);
    assert_string_equal(m->path, "/lib/plugin.dll");
    assert_int_equal(m->found_by, GD_WIN_RULE_MAIN);
    assert_int_equal(m->ndeps, 1);
    assert_null(m->deps[0].to);
    assert_int_equal(gd_winload_missing_count(L), 1);
    assert_string_equal(gd_winload_missing_at(L, 0)->name, "helper.dll");
    /* The current directory is not known: it is listed with why, not searched. */
    const struct gd_win_dir *dirs = NULL;
    size_t n = gd_winload_dirs(L, m->request, &dirs);
    assert_int_equal(n, 5);
    assert_int_equal(dirs[4].rule, GD_WIN_RULE_CWD);
    assert_null(dirs[4].dir);
    done(&f);
}

/* ---- the extension-module order ---------------------------------------------------------------
 */

static void test_extension_order(void **state)
{
    (void)state;
    struct fixture f = { windows_tree(), NULL, NULL };
    dll(f.dir, "/Python310/python.exe", X64, "python310.dll", NULL, NULL);
    dll(f.dir, "/Python310/python310.dll", X64, "KERNEL32.dll", NULL, NULL);
    dll(f.dir, "/Python310/Lib/site-packages/pkg/_ext.pyd", X64, "python310.dll",
        "cudart64_110.dll", "helper.dll");
    dll(f.dir, "/Python310/Lib/site-packages/pkg/helper.dll", X64, "cudnn64_8.dll", NULL, NULL);
    dll(f.dir, "/CUDA/v11.2/bin/cudart64_110.dll", X64, "KERNEL32.dll", NULL, NULL);
    dll(f.dir, "/cudnn/bin/cudnn64_8.dll", X64, NULL, NULL, NULL);
    dll(f.dir, "/Python310/Lib/site-packages/pkg/extra.dll", X64, NULL, NULL, NULL);
    dll(f.dir, "/Python310/Lib/site-packages/pkg/alone.dll", X64, NULL, NULL, NULL);
    char *app = NULL;
    struct gd_root *root = NULL;
    assert_int_equal(gd_root_new(f.dir, &root), GD_OK);
    assert_int_equal(gd_win_python_app_dir(root, "/Python310/Lib/site-packages/pkg/_ext.pyd", &app),
                     GD_OK);
    assert_string_equal(app, "/Python310");
    gd_root_free(root);

    struct gd_winload_options o = { 0 };
    o.mode = GD_WIN_EXTENSION;
    o.app_dir = app;
    o.cwd = "C:\\CUDA\\v11.2\\bin";
    o.path_env = "C:\\CUDA\\v11.2\\bin;C:\\cudnn\\bin";
    o.record_tries = true;
    struct gd_winload *L = load(&f, &o, 0);
    gd_free(app);
    struct gd_win_object *m = NULL;
    assert_int_equal(gd_winload_module(L, "/Python310/Lib/site-packages/pkg/_ext.pyd", true, &m),
                     GD_OK);
    assert_int_equal(m->ndeps, 3);
    assert_int_equal(m->deps[0].rule, GD_WIN_RULE_APP_DIR);
    /* PATH and the current directory are not searched: cudart is missing, with every place
     * tried in order. */
    assert_null(m->deps[1].to);
    char buf[1024];
    assert_string_equal(tries_text(&m->deps[1], buf, sizeof buf),
                        "DLL's directory:not there application directory:not there "
                        "System32:not there");
    /* The module's own directory is searched for the imports of what it loads too. */
    assert_int_equal(m->deps[2].rule, GD_WIN_RULE_DLL_DIR);
    assert_null(m->deps[2].to->deps[0].to);
    assert_int_equal(gd_winload_missing_count(L), 2);
    assert_string_equal(gd_winload_missing_at(L, 0)->name, "cudart64_110.dll");
    /* A name asked as an import of the module uses its directories; asked alone, LoadLibrary's
     * (without the module's directory). */
    struct gd_win_edge *e = NULL;
    assert_int_equal(gd_winload_resolve(L, m, "extra.dll", false, &e), GD_OK);
    assert_int_equal(e->rule, GD_WIN_RULE_DLL_DIR);
    assert_int_equal(gd_winload_resolve(L, NULL, "alone", false, &e), GD_OK);
    assert_null(e->to);
    assert_string_equal(gd_winload_missing_at(L, 1)->name, "cudnn64_8.dll");
    gd_winload_free(L);

    /* os.add_dll_directory fixes it, in the order given. */
    const char *added[] = { "C:\\cudnn\\bin", "c:\\cuda\\V11.2\\BIN" };
    o.dll_dirs = added;
    o.ndll_dirs = 2;
    o.app_dir = "C:\\Python310";
    assert_int_equal(gd_winload_new(f.root, &o, 0, &f.L), GD_OK);
    assert_int_equal(gd_winload_module(f.L, "/Python310/Lib/site-packages/pkg/_ext.pyd", true, &m),
                     GD_OK);
    assert_int_equal(m->deps[1].rule, GD_WIN_RULE_USER_DIR);
    assert_string_equal(m->deps[1].to->path, "/CUDA/v11.2/bin/cudart64_110.dll");
    assert_string_equal(tries_text(&m->deps[1], buf, sizeof buf),
                        "DLL's directory:not there application directory:not there "
                        "AddDllDirectory:not there AddDllDirectory:found");
    assert_int_equal(gd_winload_missing_count(f.L), 0);
    /* The standard order finds it on PATH. */
    gd_winload_free(f.L);
    o.mode = GD_WIN_STANDARD;
    o.dll_dirs = NULL;
    o.ndll_dirs = 0;
    assert_int_equal(gd_winload_new(f.root, &o, 0, &f.L), GD_OK);
    assert_int_equal(gd_winload_resolve(f.L, NULL, "cudnn64_8.dll", false, &e), GD_OK);
    assert_int_equal(e->rule, GD_WIN_RULE_PATH_ENV);
    done(&f);
}

/* A venv's python.exe only starts its base: the application directory is pyvenv.cfg's home. */
static void test_python_app_dir(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("winpy");
    dll(dir, "/Users/a/AppData/Local/Programs/Python/Python311/python.exe", X64, NULL, NULL, NULL);
    tu_write(dir, "/proj/.venv/pyvenv.cfg",
             "home = C:\\Users\\a\\AppData\\Local\\Programs\\Python\\Python311\r\n"
             "include-system-site-packages = false\r\nversion = 3.11.5\r\n");
    dll(dir, "/proj/.venv/Scripts/python.exe", X64, NULL, NULL, NULL);
    tu_mkdirs(dir, "/proj/.venv/Lib/site-packages/torch/lib");
    dll(dir, "/miniconda3/envs/tf/python.exe", X64, NULL, NULL, NULL);
    tu_mkdirs(dir, "/miniconda3/envs/tf/Lib/site-packages/tensorflow/python");
    tu_mkdirs(dir, "/loose/dir");
    struct gd_root *root = NULL;
    assert_int_equal(gd_root_new(dir, &root), GD_OK);
    char *app = NULL;
    assert_int_equal(
        gd_win_python_app_dir(root, "/proj/.venv/Lib/site-packages/torch/lib/c10.dll", &app),
        GD_OK);
    assert_string_equal(app, "/Users/a/AppData/Local/Programs/Python/Python311");
    gd_free(app);
    assert_int_equal(gd_win_python_app_dir(
                         root, "/miniconda3/envs/tf/Lib/site-packages/tensorflow/python", &app),
                     GD_OK);
    assert_string_equal(app, "/miniconda3/envs/tf");
    gd_free(app);
    assert_int_equal(gd_win_python_app_dir(root, "/loose/dir/x.pyd", &app), GD_ENOENT);
    assert_null(app);
    gd_root_free(root);
    tu_rmtree(dir);
    free(dir);
}

/* ---- what the loader skips and where it stops -------------------------------------------------
 */

static void test_wrong_machine(void **state)
{
    (void)state;
    struct fixture f = { windows_tree(), NULL, NULL };
    dll(f.dir, "/app/zlibwapi.dll", X86, NULL, NULL, NULL);
    dll(f.dir, "/windows/system32/zlibwapi.dll", X64, NULL, NULL, NULL);
    dll(f.dir, "/app/only32.dll", X86, NULL, NULL, NULL);
    dll(f.dir, "/app/arm.dll", ARM6, NULL, NULL, NULL);
    struct gd_winload_options o = { 0 };
    o.app_dir = "C:\\app";
    o.record_tries = true;
    struct gd_winload *L = load(&f, &o, X64);
    struct gd_win_edge *e = NULL;
    assert_int_equal(gd_winload_resolve(L, NULL, "zlibwapi.dll", false, &e), GD_OK);
    assert_int_equal(e->rule, GD_WIN_RULE_SYSTEM32);
    assert_int_equal(e->tries[0].verdict, GD_WIN_TRY_WRONG_MACHINE);
    /* Nothing of this machine: STATUS_INVALID_IMAGE_FORMAT, an error rather than "missing". */
    assert_int_equal(gd_winload_resolve(L, NULL, "only32.dll", false, &e), GD_OK);
    assert_null(e->to);
    assert_non_null(e->error);
    assert_non_null(strstr(e->error, "another machine"));
    assert_int_equal(gd_winload_resolve(L, NULL, "arm.dll", false, &e), GD_OK);
    assert_null(e->to);
    assert_int_equal(gd_winload_missing_count(L), 2);
    assert_non_null(gd_winload_missing_at(L, 0)->error);
    done(&f);
}

/* WOW64: a 32-bit x86 process's System32 is SysWOW64. */
static void test_wow64(void **state)
{
    (void)state;
    struct fixture f = { windows_tree(), NULL, NULL };
    dll(f.dir, "/windows/SysWOW64/kernel32.dll", X86, NULL, NULL, NULL);
    dll(f.dir, "/app32/app.exe", X86, "KERNEL32.dll", NULL, NULL);
    struct gd_winload_options o = { 0 };
    o.app_dir = "C:\\app32";
    struct gd_winload *L = load(&f, &o, 0);
    struct gd_win_object *m = NULL;
    assert_int_equal(gd_winload_module(L, "/app32/app.exe", true, &m), GD_OK);
    assert_int_equal(gd_winload_machine(L), X86);
    assert_non_null(m->deps[0].to);
    assert_string_equal(m->deps[0].to->path, "/windows/SysWOW64/kernel32.dll");
    assert_int_equal(m->deps[0].rule, GD_WIN_RULE_SYSTEM32);
    done(&f);
}

static void test_not_pe_stops(void **state)
{
    (void)state;
    struct fixture f = { windows_tree(), NULL, NULL };
    tu_write(f.dir, "/app/msvcp140.dll",
             "This is not a DLL but a text file long enough to hold a DOS header, and more.\n");
    dll(f.dir, "/windows/system32/msvcp140.dll", X64, NULL, NULL, NULL);
    tu_mkfifo(f.dir, "/app/fifo.dll");
    tu_mkdirs(f.dir, "/app/dir.dll");
    struct gd_winload_options o = { 0 };
    o.app_dir = "C:\\app";
    o.record_tries = true;
    struct gd_winload *L = load(&f, &o, X64);
    struct gd_win_edge *e = NULL;
    assert_int_equal(gd_winload_resolve(L, NULL, "msvcp140.dll", false, &e), GD_OK);
    assert_null(e->to);
    assert_non_null(e->error);
    assert_non_null(strstr(e->error, "/app/msvcp140.dll"));
    assert_int_equal(e->ntries, 1);
    assert_int_equal(e->tries[0].verdict, GD_WIN_TRY_NOT_PE);
    assert_int_equal(gd_winload_resolve(L, NULL, "fifo.dll", false, &e), GD_OK);
    assert_int_equal(e->tries[0].verdict, GD_WIN_TRY_NOT_PE);
    assert_int_equal(gd_winload_resolve(L, NULL, "dir.dll", false, &e), GD_OK);
    assert_int_equal(e->tries[0].verdict, GD_WIN_TRY_NOT_PE);
    /* Asked again, the answer is remembered. */
    assert_int_equal(gd_winload_resolve(L, NULL, "MSVCP140.DLL", false, &e), GD_OK);
    assert_non_null(e->error);
    assert_int_equal(e->ntries, 0);
    assert_int_equal(gd_winload_missing_count(L), 3);
    /* A module loaded by path that is not a PE image is the caller's error. */
    struct gd_win_object *m = NULL;
    assert_int_equal(gd_winload_module(L, "/app/msvcp140.dll", true, &m), GD_EFORMAT);
    assert_int_equal(gd_winload_module(L, "/app/none.pyd", true, &m), GD_ENOENT);
    done(&f);
}

/* ---- the tree ---------------------------------------------------------------------------------
 */

static void test_tree_breadth_first_and_loops(void **state)
{
    (void)state;
    struct fixture f = { windows_tree(), NULL, NULL };
    dll(f.dir, "/app/main.exe", X64, "a.dll", "b.dll", "api-ms-win-crt-runtime-l1-1-0.dll");
    dll(f.dir, "/app/a.dll", X64, "c.dll", "B.DLL", "missing.dll");
    dll(f.dir, "/app/b.dll", X64, "a.dll", "Missing.dll", "ext-ms-win-x-l1-1-0.dll");
    dll(f.dir, "/app/c.dll", X64, "main.exe", "msvcrt.dll", NULL);
    struct gd_winload_options o = { 0 };
    o.app_dir = "C:\\app";
    struct gd_winload *L = load(&f, &o, 0);
    struct gd_win_object *m = NULL;
    assert_int_equal(gd_winload_module(L, "C:\\app\\main.exe", true, &m), GD_OK);
    const char *order[] = { "main.exe",   "a.dll",        "b.dll",    "c.dll",
                            "msvcrt.dll", "KERNEL32.dll", "ntdll.dll" };
    assert_int_equal(gd_winload_count(L), 7);
    for (size_t i = 0; i < 7; i++)
        assert_string_equal(gd_winload_at(L, i)->name, order[i]);
    assert_int_equal(m->deps[2].rule, GD_WIN_RULE_API_SET);
    assert_null(m->deps[2].to);
    struct gd_win_object *a = gd_winload_at(L, 1), *b = gd_winload_at(L, 2);
    assert_int_equal(a->deps[1].rule, GD_WIN_RULE_LOADED);
    assert_ptr_equal(a->deps[1].to, b);
    assert_ptr_equal(b->deps[0].to, a);
    assert_ptr_equal(gd_winload_at(L, 3)->deps[0].to, m);
    assert_int_equal(b->deps[2].rule, GD_WIN_RULE_API_SET);
    /* Missing once, where it was first needed. */
    assert_int_equal(gd_winload_missing_count(L), 1);
    assert_string_equal(gd_winload_missing_at(L, 0)->name, "missing.dll");
    assert_int_equal(gd_winload_missing_at(L, 0)->position, 4);
    done(&f);
}

/* Import tables that cannot be read leave the module without imports, never a crash. */
static void test_hostile_imports(void **state)
{
    (void)state;
    struct fixture f = { windows_tree(), NULL, NULL };
    const char *names[] = { "KERNEL32.dll" };
    size_t len = 0;
    unsigned char *img = pb_image(X64, 0, names, 1, &len);
    assert_non_null(img);
    /* The name's RVA points past every section. */
    pb_put32(img + PB_SEC_RAW + 12, 0x7ffffff0);
    tu_write_n(f.dir, "/app/badname.dll", img, len);
    /* Truncated inside the section: the headers stay readable. */
    tu_write_n(f.dir, "/app/short.dll", img, PB_SEC_RAW + 8);
    /* Truncated inside the headers: not a PE image we can read. */
    tu_write_n(f.dir, "/app/tiny.dll", img, 0x50);
    free(img);
    struct gd_winload_options o = { 0 };
    o.app_dir = "C:\\app";
    struct gd_winload *L = load(&f, &o, X64);
    struct gd_win_object *m = NULL;
    assert_int_equal(gd_winload_module(L, "/app/badname.dll", true, &m), GD_OK);
    assert_int_equal(m->ndeps, 0);
    assert_int_not_equal(m->pe->imports_status, GD_OK);
    assert_int_equal(gd_winload_module(L, "/app/short.dll", true, &m), GD_OK);
    assert_int_equal(m->ndeps, 0);
    assert_int_equal(gd_winload_module(L, "/app/tiny.dll", true, &m), GD_ETRUNCATED);
    struct gd_win_edge *e = NULL;
    assert_int_equal(gd_winload_resolve(L, NULL, "tiny.dll", false, &e), GD_OK);
    assert_non_null(e->error);
    done(&f);
}

/* A name without an extension gets ".dll"; a trailing dot means none; a name with a path is
 * opened there. */
static void test_names(void **state)
{
    (void)state;
    struct fixture f = { windows_tree(), NULL, NULL };
    dll(f.dir, "/app/noext", X64, NULL, NULL, NULL);
    dll(f.dir, "/other/x.dll", X64, NULL, NULL, NULL);
    struct gd_winload_options o = { 0 };
    o.app_dir = "C:\\app";
    o.cwd = "C:\\other";
    o.record_tries = true;
    struct gd_winload *L = load(&f, &o, 0);
    struct gd_win_edge *e = NULL;
    assert_int_equal(gd_winload_resolve(L, NULL, "noext.", false, &e), GD_OK);
    assert_string_equal(e->name, "noext");
    assert_int_equal(e->rule, GD_WIN_RULE_APP_DIR);
    assert_int_equal(gd_winload_resolve(L, NULL, "D:\\OTHER\\X.DLL", false, &e), GD_OK);
    assert_int_equal(e->rule, GD_WIN_RULE_PATH);
    assert_string_equal(e->to->path, "/other/x.dll");
    assert_int_equal(gd_winload_resolve(L, NULL, ".\\x.dll", false, &e), GD_OK);
    assert_int_equal(e->rule, GD_WIN_RULE_LOADED); /* the same base name is loaded */
    assert_int_equal(gd_winload_resolve(L, NULL, "C:\\nowhere\\y.dll", false, &e), GD_OK);
    assert_null(e->to);
    assert_int_equal(e->ntries, 1);
    assert_int_equal(gd_winload_resolve(L, NULL, "", false, &e), GD_EINVAL);
    done(&f);
}

/* Without an application directory, a current directory or PATH, the search says so. */
static void test_unknowns(void **state)
{
    (void)state;
    struct fixture f = { windows_tree(), NULL, NULL };
    struct gd_winload_options o = { 0 };
    o.mode = GD_WIN_EXTENSION;
    struct gd_winload *L = load(&f, &o, 0);
    struct gd_win_edge *e = NULL;
    assert_int_equal(gd_winload_resolve(L, NULL, "msvcrt", true, &e), GD_OK);
    assert_int_equal(e->rule, GD_WIN_RULE_SYSTEM32);
    assert_int_equal(gd_winload_machine(L), X64);
    const struct gd_win_dir *dirs = NULL;
    assert_int_equal(gd_winload_dirs(L, e->to->request, &dirs), 2);
    assert_null(dirs[0].dir);
    assert_int_equal(dirs[0].rule, GD_WIN_RULE_APP_DIR);
    assert_int_equal(gd_winload_dirs(L, 99, &dirs), 0);
    done(&f);
}

/* A DLL built by mingw-w64 (the PE reader's corpus): its real import table resolved. */
static void test_mingw_dll(void **state)
{
    (void)state;
    struct fixture f = { windows_tree(), NULL, NULL };
    const char *src = GD_SOURCE_DIR "/fuzz/corpus/fuzz_pe/mingw-imports.dll";
    FILE *in = fopen(src, "rb");
    assert_non_null(in);
    static unsigned char data[64 * 1024];
    size_t n = fread(data, 1, sizeof data, in);
    fclose(in);
    tu_write_n(f.dir, "/site/pkg/_cuda.pyd", data, n);
    struct gd_winload_options o = { 0 };
    o.mode = GD_WIN_EXTENSION;
    o.app_dir = "C:\\site";
    struct gd_winload *L = load(&f, &o, 0);
    struct gd_win_object *m = NULL;
    assert_int_equal(gd_winload_module(L, "/site/pkg/_cuda.pyd", true, &m), GD_OK);
    assert_int_equal(m->ndeps, 3);
    assert_null(m->deps[0].to); /* cudart64_110.dll */
    assert_int_equal(m->deps[1].rule, GD_WIN_RULE_SYSTEM32);
    assert_int_equal(m->deps[2].rule, GD_WIN_RULE_SYSTEM32);
    assert_int_equal(gd_winload_missing_count(L), 1);
    done(&f);
}

/* Every allocation failed in turn: GD_ENOMEM or the full answer, and no leak (ASan). */
static void test_alloc_failures(void **state)
{
    (void)state;
    struct fixture f = { windows_tree(), NULL, NULL };
    dll(f.dir, "/Python310/python.exe", X64, NULL, NULL, NULL);
    dll(f.dir, "/Python310/Lib/site-packages/pkg/_ext.pyd", X64, "helper.dll", "KERNEL32.dll",
        "api-ms-win-crt-heap-l1-1-0.dll");
    dll(f.dir, "/Python310/Lib/site-packages/pkg/helper.dll", X64, "gone.dll", "msvcrt.dll", NULL);
    tu_write(f.dir, "/p/venv/pyvenv.cfg", "home = C:\\Python310\n");
    tu_mkdirs(f.dir, "/p/venv/Lib/site-packages");
    const char *added[] = { "C:\\cuda\\bin", "\\\\unc\\x" };
    struct gd_winload_options o = { 0 };
    o.mode = GD_WIN_EXTENSION;
    o.app_dir = "C:\\Python310";
    o.cwd = "C:\\";
    o.path_env = "C:\\a;C:\\b";
    o.dll_dirs = added;
    o.ndll_dirs = 2;
    o.record_tries = true;
    bool completed[2] = { false, false };
    for (unsigned long n = 1; n < 5000 && !(completed[0] && completed[1]); n++) {
        for (int mode = 0; mode < 2; mode++) {
            o.mode = mode ? GD_WIN_STANDARD : GD_WIN_EXTENSION;
            assert_int_equal(gd_root_new(f.dir, &f.root), GD_OK);
            gd_alloc_fail_at(n);
            struct gd_winload *L = NULL;
            enum gd_status st = gd_winload_new(f.root, &o, 0, &L);
            struct gd_win_object *m = NULL;
            struct gd_win_edge *e = NULL;
            if (st == GD_OK)
                st = gd_winload_module(L, "/Python310/Lib/site-packages/pkg/_ext.pyd", true, &m);
            if (st == GD_OK)
                st = gd_winload_resolve(L, NULL, "gone", true, &e);
            char *app = NULL;
            if (st == GD_OK)
                st = gd_win_python_app_dir(f.root, "/p/venv/Lib/site-packages", &app);
            char *p = NULL;
            if (st == GD_OK)
                st = gd_win_find(f.root, "/PYTHON310/lib/SITE-packages/pkg/_EXT.pyd", &p);
            char *q = NULL;
            if (st == GD_OK)
                st = gd_win_path_in_root("C:\\a\\..\\b", NULL, &q);
            gd_alloc_fail_at(0);
            if (st == GD_OK) {
                /* Extension order: the module's directory holds helper.dll; the standard
                 * order looks for it in the application's directory and misses it. */
                assert_int_equal(gd_winload_count(L), mode ? 3 : 5);
                assert_int_equal(gd_winload_missing_count(L), mode ? 2 : 1);
                assert_string_equal(app, "/Python310");
                assert_string_equal(p, "/Python310/Lib/site-packages/pkg/_ext.pyd");
                assert_string_equal(q, "/b");
                completed[mode] = true;
            } else {
                if (st != GD_ENOMEM)
                    fprintf(stderr, "n=%lu mode=%d m=%p e=%p app=%p p=%p\n", n, mode, (void *)m,
                            (void *)e, (void *)app, (void *)p);
                assert_int_equal(st, GD_ENOMEM);
            }
            gd_free(p);
            gd_free(q);
            gd_free(app);
            gd_winload_free(L);
            gd_root_free(f.root);
            f.root = NULL;
        }
    }
    assert_true(completed[0] && completed[1]);
    f.root = NULL;
    tu_rmtree(f.dir);
    free(f.dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths),           cmocka_unit_test(test_find_any_case),
        cmocka_unit_test(test_standard_order),  cmocka_unit_test(test_standard_dll_by_path),
        cmocka_unit_test(test_extension_order), cmocka_unit_test(test_python_app_dir),
        cmocka_unit_test(test_wrong_machine),   cmocka_unit_test(test_wow64),
        cmocka_unit_test(test_not_pe_stops),    cmocka_unit_test(test_tree_breadth_first_and_loops),
        cmocka_unit_test(test_hostile_imports), cmocka_unit_test(test_names),
        cmocka_unit_test(test_unknowns),        cmocka_unit_test(test_mingw_dll),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
