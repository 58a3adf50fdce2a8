/*
 * The live probe (src/probe/live*.c) and the smoke tests (src/probe/smoke.c) on this machine with
 * the fake NVIDIA libraries of tests/fakes: the facts each vendor call gives, which driver
 * library a Windows machine's children load (the driver probe's paths, else the DLL names), and
 * every allocation failed in turn, which must end in a report marked out of memory — never in a
 * report that silently lacks facts.
 *
 * Linux: the fakes are libcuda.so.1 and libnvidia-ml.so.1 on LD_LIBRARY_PATH (set by
 * tests/CMakeLists.txt). Windows (the mingw build, under wine): nvcuda.dll and nvml.dll built from
 * the same sources into tests/fakes/win (tests/windows.cmake), found the Windows way: that
 * directory put on PATH by this test, or named by the driver facts a case records itself; the
 * children are this program started again (gd_os_child_serve in main). Cases that need the fakes
 * are skipped (77) when they are not there.
 */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "core/env.h"
#include "core/report.h"
#include "os/os.h"
#include "probe/childfns.h"
#include "probe/live.h"
#include "probe/smoke.h"

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

#ifdef _WIN32
/* What gd_probe_host says of the machine this test runs on. */
#define ON_WINDOWS true
#define FAKES_DIR  GD_BINARY_DIR "/tests/fakes/win"
#define CUDA_LIB   "nvcuda.dll"
#define NVML_LIB   "nvml.dll"
/* The driver facts of the driver-paths case: the fakes by full path. */
#define CUDA_PATH FAKES_DIR "/nvcuda.dll"
#define NVML_PATH FAKES_DIR "/nvml.dll"

static char *original_path;

/* The fakes' directory first on PATH, where LoadLibrary looks for a DLL by name (after the
 * program's directory, System32 and the Windows directory), or PATH as the test found it. The
 * children are started with this process's environment. */
static void fakes_on_path(bool on)
{
    char *value = NULL;
    if (on) {
        size_t n = strlen(FAKES_DIR) + strlen(original_path) + 2;
        value = malloc(n);
        assert_non_null(value);
        snprintf(value, n, "%s;%s", FAKES_DIR, original_path);
        for (char *c = value; *c && *c != ';'; c++)
            if (*c == '/')
                *c = '\\';
    }
    gd_os_setenv("PATH", on ? value : original_path);
    free(value);
}

static bool fakes_loaded(void)
{
    FILE *f = tu_fopen(CUDA_PATH, "rb");
    if (f)
        fclose(f);
    if (!f || !getenv("FAKE_GPUS"))
        return false;
    fakes_on_path(true);
    return true;
}
#else
#define ON_WINDOWS false
#define CUDA_LIB   "libcuda.so.1"
#define NVML_LIB   "libnvidia-ml.so.1"
/* glibc reads LD_LIBRARY_PATH once, at start: the fakes stay on it. A Windows machine's driver
 * facts name these files instead of DLLs, which is all the live probe needs of them. */
#define CUDA_PATH  GD_BINARY_DIR "/tests/fakes/lib/libcuda.so.1"
#define NVML_PATH  GD_BINARY_DIR "/tests/fakes/lib/libnvidia-ml.so.1"

static void fakes_on_path(bool on)
{
    (void)on;
}

static bool fakes_loaded(void)
{
    const char *path = getenv("LD_LIBRARY_PATH");
    return path && strstr(path, "tests/fakes/lib") && getenv("FAKE_GPUS");
}
#endif

struct run {
    struct gd_root *root;
    struct gd_env *env;
    struct gd_report *report;
};

static void start(struct run *r, const char *visible)
{
    assert_int_equal(gd_root_new("/", &r->root), GD_OK);
    r->env = gd_env_new();
    assert_non_null(r->env);
    if (visible)
        assert_int_equal(gd_env_set(r->env, "CUDA_VISIBLE_DEVICES", visible), GD_OK);
    r->report = gd_report_new();
    assert_non_null(r->report);
}

static void stop(struct run *r)
{
    gd_report_free(r->report);
    gd_env_free(r->env);
    gd_root_free(r->root);
}

static void probe_with(struct run *r, bool smoke, bool windows, unsigned timeout_ms)
{
    struct gd_probe_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.root = r->root;
    ctx.env = r->env;
    ctx.report = r->report;
    ctx.windows = windows;
    ctx.timeout_ms = timeout_ms;
    gd_probe_live(&ctx);
    if (smoke) {
        struct gd_smoke_options o = { 0, NULL, NULL };
        gd_probe_smoke(&ctx, &o);
    }
}

static void probe_as(struct run *r, bool smoke, bool windows)
{
    probe_with(r, smoke, windows, 0);
}

/* As gd_probe_host would set it for this machine. */
static void probe(struct run *r, bool smoke)
{
    probe_as(r, smoke, ON_WINDOWS);
}

static const char *value(const struct run *r, const char *entity, const char *fact)
{
    const char *v = gd_report_value(r->report, entity, fact);
    return v ? v : "(none)";
}

static const struct gd_fact *fact_of(const struct run *r, const char *entity, const char *name)
{
    const struct gd_fact *f = gd_report_fact(r->report, entity, name);
    if (!f)
        fail_msg("no fact %s.%s", entity, name);
    return f;
}

/* `s` ends with `tail`, ignoring case (a Windows path comes back as the disk spells it). */
static bool ends_with_nocase(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    if (k > n)
        return false;
    for (size_t i = 0; i < k; i++)
        if (tolower((unsigned char)s[n - k + i]) != tolower((unsigned char)tail[i]))
            return false;
    return true;
}

/* The library the child loaded, and the call that names what it was told to load. */
static void assert_loaded(const struct run *r, const char *entity, const char *file,
                          const char *asked)
{
    const struct gd_fact *lib = fact_of(r, entity, "library");
    if (!gd_fact_known_value(lib))
        fail_msg("%s.library: not loaded (%s)", entity, lib->reason ? lib->reason : "");
    if (!ends_with_nocase(lib->value, file))
        fail_msg("%s.library = %s, not %s", entity, lib->value, file);
    char call[1100];
    snprintf(call, sizeof call, "dlopen(%s)", asked);
    assert_string_equal(lib->source.ref, call);
}

static void test_facts(void **state)
{
    (void)state;
    if (!fakes_loaded())
        skip();
    struct run r;
    /* The inspected environment's CUDA_VISIBLE_DEVICES reaches the driver in the child, whatever
     * gpudoctor's own environment holds. */
    start(&r, "1");
    probe(&r, false);
    assert_false(gd_report_failed(r.report));
    assert_string_equal(value(&r, "cuda_driver", "init"), "CUDA_SUCCESS");
    assert_string_equal(value(&r, "cuda_driver", "device_count"), "1");
    assert_string_equal(value(&r, "cuda_device:0", "name"), "Fake GPU 1");
    assert_string_equal(value(&r, "cuda_device:0", "bus_id"), "0000:20:00.0");
    assert_string_equal(value(&r, "cuda_device:0", "gpu"), "gpu:0000:20:00.0");
    assert_string_equal(value(&r, "cuda_device:0", "nvidia_smi_index"), "1");
    assert_string_equal(value(&r, "nvml", "device_count"), "2");
    assert_string_equal(value(&r, "gpu:0000:10:00.0", "nvml.index"), "0");
    assert_string_equal(value(&r, "visible_devices", "device[0]"), "0000:20:00.0");
    assert_string_equal(value(&r, "visible_devices", "device[0].entry"), "1");
    assert_string_equal(value(&r, "visible_devices", "confirmed"), "true");
    assert_null(gd_report_entity(r.report, "cuda_device:1"));
    /* Loaded by name through the system's search (LD_LIBRARY_PATH; PATH on Windows). */
    assert_loaded(&r, "cuda_driver", ON_WINDOWS ? "/nvcuda.dll" : "/libcuda.so.1", CUDA_LIB);
    assert_loaded(&r, "nvml", ON_WINDOWS ? "/nvml.dll" : "/libnvidia-ml.so.1", NVML_LIB);
    stop(&r);
}

/* A Windows machine whose driver probe found nvcuda.dll and nvml.dll (nvml.dll of older drivers
 * sits in the NVSMI folder, on no search path): the children load those files by their paths,
 * and say so. On Windows the fakes are off PATH here, so loading by name would fail. */
static void test_driver_paths(void **state)
{
    (void)state;
    if (!fakes_loaded())
        skip();
    fakes_on_path(false);
    struct run r;
    start(&r, NULL);
    /* The paths as the system spells them: on Windows with their drive ("Z:/..." under wine),
     * which a live root hands to the system as they are (sysroot.c); "/..." would be a path of
     * the system drive. On POSIX the path itself. */
    char *cuda = tu_realpath(CUDA_PATH), *nvml = tu_realpath(NVML_PATH);
    struct gd_entity *driver = gd_report_add_entity(r.report, "driver", "driver");
    gd_fact_str(driver, "nvcuda.path", cuda, gd_src(GD_SOURCE_PATH, cuda));
    gd_fact_str(driver, "nvml.path", nvml, gd_src(GD_SOURCE_PATH, nvml));
    probe_as(&r, false, true);
    assert_false(gd_report_failed(r.report));
    assert_loaded(&r, "cuda_driver", CUDA_PATH, cuda);
    assert_loaded(&r, "nvml", NVML_PATH, nvml);
    free(cuda);
    free(nvml);
    assert_string_equal(value(&r, "cuda_driver", "init"), "CUDA_SUCCESS");
    assert_string_equal(value(&r, "cuda_driver", "device_count"), "2");
    assert_string_equal(value(&r, "nvml", "init"), "NVML_SUCCESS");
    assert_string_equal(value(&r, "nvml", "device_count"), "2");
    stop(&r);
    fakes_on_path(true);
}

/* A driver library that crashes and one that hangs (the fakes' FAKE_CRASH and FAKE_HANG: SIGSEGV,
 * or an access violation on Windows; a call that never returns): each ends in facts that say so,
 * the hang at the children's deadline. */
static void test_crash_and_hang(void **state)
{
    (void)state;
    if (!fakes_loaded())
        skip();
    gd_os_setenv("FAKE_CRASH", "cuInit");
    gd_os_setenv("FAKE_HANG", "nvmlInit_v2");
    struct run r;
    start(&r, NULL);
    probe_with(&r, false, ON_WINDOWS, 1000);
    gd_os_setenv("FAKE_CRASH", NULL);
    gd_os_setenv("FAKE_HANG", NULL);
    assert_false(gd_report_failed(r.report));
    assert_string_equal(value(&r, "cuda_driver", "call.end"), "signal");
    const char *problem = value(&r, "cuda_driver", "call.problem");
    if (!strstr(problem, "SIGSEGV") || !strstr(problem, "cuInit"))
        fail_msg("cuda_driver.call.problem = %s", problem);
    assert_string_equal(value(&r, "cuda_driver", "call.library"), CUDA_LIB);
    assert_string_equal(value(&r, "nvml", "call.end"), "timeout");
    problem = value(&r, "nvml", "call.problem");
    if (!strstr(problem, "nvmlInit_v2"))
        fail_msg("nvml.call.problem = %s", problem);
    assert_string_equal(value(&r, "nvml", "call.library"), NVML_LIB);
    stop(&r);
}

/* A Windows machine without a driver: no driver facts, and nvcuda.dll and nvml.dll found nowhere
 * (on Linux no file has those names). The facts name the DLLs that were tried. Needs no fake. */
static void test_windows_no_driver(void **state)
{
    (void)state;
    fakes_on_path(false);
    struct run r;
    start(&r, NULL);
    probe_as(&r, false, true);
    assert_false(gd_report_failed(r.report));
    static const struct {
        const char *entity, *dll, *init_call;
    } want[] = { { "cuda_driver", "nvcuda.dll", "cuInit" }, { "nvml", "nvml.dll", "nvmlInit_v2" } };
    for (size_t i = 0; i < 2; i++) {
        const struct gd_fact *lib = fact_of(&r, want[i].entity, "library");
        assert_int_equal(lib->state, GD_FACT_ABSENT);
        /* The loader's message names the file: dlerror's "nvcuda.dll: cannot open shared object
         * file", or "LoadLibrary nvcuda.dll: ..." (os_win32.c). */
        if (!lib->reason || !strstr(lib->reason, want[i].dll))
            fail_msg("%s.library: the reason \"%s\" does not name %s", want[i].entity,
                     lib->reason ? lib->reason : "", want[i].dll);
        char call[64];
        snprintf(call, sizeof call, "dlopen(%s)", want[i].dll);
        assert_string_equal(lib->source.ref, call);
        const struct gd_fact *init = fact_of(&r, want[i].entity, "init");
        assert_int_equal(init->state, GD_FACT_ABSENT);
        char why[64];
        snprintf(why, sizeof why, "%s could not be loaded", want[i].dll);
        assert_string_equal(init->reason, why);
        assert_string_equal(init->source.ref, want[i].init_call);
    }
    stop(&r);
    fakes_on_path(true);
}

static void test_smoke_facts(void **state)
{
    (void)state;
    if (!fakes_loaded())
        skip();
    struct run r;
    start(&r, NULL);
    probe(&r, true);
    assert_false(gd_report_failed(r.report));
    assert_string_equal(value(&r, "test", "devices"), "2");
    assert_string_equal(value(&r, "test_device:1", "kernel"), "ok");
    assert_string_equal(value(&r, "test_device:1", "copy"), "ok");
    assert_string_equal(value(&r, "test_device:0", "largest_block"), "ok");
    /* No soname entities here: no copy of cuBLAS, cuDNN or NCCL to test. */
    assert_string_equal(value(&r, "test", "cublas_copies"), "0");
    stop(&r);
}

/* Fail each allocation in turn; the children keep running (they use no allocator of gpudoctor's,
 * or a failure injected in the parent would be inherited by the fork). */
static void test_alloc_failures(void **state)
{
    (void)state;
    if (!fakes_loaded())
        skip();
    struct run r;
    start(&r, "1");
    gd_alloc_fail_at(0);
    probe(&r, true);
    unsigned long total = gd_alloc_fail_at(0);
    size_t want = gd_report_entity_count(r.report);
    assert_false(gd_report_failed(r.report));
    stop(&r);
    assert_true(total > 20);
    /* How many allocations a run makes depends a little on how the children's output arrives
     * (in one read or several): a run that made fewer than n never met the failure. */
    for (unsigned long n = 1; n <= total + 1; n++) {
        start(&r, "1");
        gd_alloc_fail_at(n);
        probe(&r, true);
        unsigned long made = gd_alloc_fail_at(0);
        if (made >= n && !gd_report_failed(r.report))
            fail_msg("allocation %lu of %lu failed, yet the report is not marked", n, made);
        if (made < n) {
            assert_false(gd_report_failed(r.report));
            assert_int_equal(gd_report_entity_count(r.report), want);
        }
        stop(&r);
    }
}

int main(int argc, char **argv)
{
    /* A function child of the Windows build is this program again: run it and exit. */
    gd_os_child_serve(argc, argv, gd_probe_child_defs, gd_probe_child_def_count);
#ifdef _WIN32
    const char *path = getenv("PATH");
    original_path = strdup(path ? path : "");
    if (!original_path)
        return 1;
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_facts),
        cmocka_unit_test(test_driver_paths),
        cmocka_unit_test(test_windows_no_driver),
        cmocka_unit_test(test_crash_and_hang),
        cmocka_unit_test(test_smoke_facts),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
