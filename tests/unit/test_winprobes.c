/* The Windows probes and rules through gd_check, on the Windows fixture roots of the repository
 * (read only: the test runs the same under wine): the driver's DLLs and the version they state,
 * CUDA_PATH and CUDA_PATH_V*, the toolkits and their DLLs, cuDNN and zlibwapi.dll, the Python
 * environments of a Windows machine (python.org, a venv, conda, the Microsoft Store's user site),
 * no Linux fact or finding, and every failed allocation of a whole check. */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "core/report.h"
#include "os/os.h"

#include <gpudoctor/gpudoctor.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pebuild.h"
#include "testutil.h"

#define ROOTS   GD_SOURCE_DIR "/tests/fixtures/roots/"
#define CUDA    "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\"
#define ALICE   "C:\\Users\\alice"
#define TK210   "cuda_toolkit:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2"
#define CUDNN   "cudnn_dir:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2/bin"
#define VENV    "python_env:/Users/alice/venvs/tf210"
#define SITE210 "/Users/alice/venvs/tf210/Lib/site-packages"

static struct gd_options *options(const char *root, const char *const *env)
{
    struct gd_options *o = NULL;
    assert_int_equal(gd_options_new(&o), GD_OK);
    assert_int_equal(gd_options_set_root(o, root), GD_OK);
    for (size_t i = 0; env[i]; i++)
        assert_int_equal(gd_options_set_env(o, env[i]), GD_OK);
    return o;
}

static const char *const tf210_env[] = {
    "USERPROFILE=" ALICE,
    "APPDATA=" ALICE "\\AppData\\Roaming",
    "VIRTUAL_ENV=" ALICE "\\venvs\\tf210",
    "CUDA_PATH=" CUDA "v11.2",
    "cuda_path_v11_2=" CUDA "v11.2", /* Windows ignores the case of names */
    "CUDA_PATH_V11_8=" CUDA "v11.8",
    "Path=" ALICE "\\venvs\\tf210\\Scripts;" CUDA "v11.2\\bin;C:\\WINDOWS\\system32;C:\\WINDOWS",
    NULL,
};

static const char *const tf215_env[] = {
    "USERPROFILE=C:\\Users\\bob",
    "CUDA_PATH=" CUDA "v12.3",
    "CUDA_PATH_V12_3=" CUDA "v12.3",
    "CUDA_PATH_V11_8=" CUDA "v12.3",
    "CUDA_PATH_V10_2=C:/PROGRA~1/NVIDIA~2/CUDA/v10.2",
    "Path=" CUDA "v12.3\\bin;C:\\Program Files\\Python39\\;C:\\WINDOWS\\system32",
    NULL,
};

static void expect(const struct gd_report *r, const char *entity, const char *fact,
                   const char *want)
{
    const char *got = gd_report_value(r, entity, fact);
    if (!got || strcmp(got, want) != 0)
        fail_msg("%s.%s = %s, want %s", entity, fact, got ? got : "(none)", want);
}

static bool has_finding(const struct gd_report *r, const char *id)
{
    for (size_t i = 0; i < gd_report_finding_count(r); i++)
        if (strcmp(gd_finding_id(gd_report_finding_at(r, i)), id) == 0)
            return true;
    return false;
}

static void test_tf210(void **state)
{
    (void)state;
    struct gd_options *o = options(ROOTS "win-tf210", tf210_env);
    struct gd_report *r = NULL;
    assert_int_equal(gd_check(o, &r), GD_OK);
    expect(r, "host", "os.id", "windows");
    expect(r, "host", "windows.drive", "C:");
    /* The driver: nvcuda.dll found ignoring case, its file version, NVIDIA's numbering. */
    expect(r, "driver", "nvcuda.path", "/Windows/System32/nvcuda.dll");
    expect(r, "driver", "nvcuda.file_version", "31.0.15.3623");
    expect(r, "driver", "nvcuda.version", "536.23");
    expect(r, "driver", "nvml.path", "/Windows/System32/nvml.dll");
    /* The environment: Path read as PATH, Windows paths on the tree. */
    expect(r, "env", "CUDA_PATH.exists", "true");
    expect(r, "env", "CUDA_PATH.cuda_version", "11.2");
    expect(r, "env", "CUDA_PATH_V11_2.exists", "true");
    expect(r, "env", "CUDA_PATH_V11_8.exists", "false");
    /* The toolkit, its DLLs, cuDNN 8.4.1 copied in and its missing zlibwapi.dll. */
    expect(r, "cuda_toolkits", "count", "1");
    expect(r, TK210, "version", "11.2");
    expect(r, TK210, "found_by", "CUDA_PATH, CUDA_PATH_V11_2, the installer's directory");
    expect(r,
           "cuda_dll:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2/bin/cudart64_110.dll",
           "cuda", "11");
    expect(r, CUDNN, "version", "8.4.1");
    expect(r, CUDNN, "major", "8");
    const struct gd_fact *zlib = gd_report_fact(r, CUDNN, "zlibwapi.path");
    assert_non_null(zlib);
    assert_int_equal(gd_fact_state(zlib), GD_FACT_ABSENT);
    /* Python: the venv (Scripts\python.exe, pyvenv.cfg's home) and its python.org base. */
    expect(r, VENV, "kind", "venv");
    expect(r, VENV, "python", "/Users/alice/venvs/tf210/Scripts/python.exe");
    expect(r, VENV, "version", "3.10");
    expect(r, VENV, "base_prefix", "/Users/alice/AppData/Local/Programs/Python/Python310");
    expect(r, VENV, "site_dirs[0]", SITE210);
    expect(r, "python_env:/Users/alice/AppData/Local/Programs/Python/Python310", "version", "3.10");
    /* TensorFlow's Windows build_info: 64_112 is CUDA 11.2. */
    expect(r, "framework:" SITE210 "/tensorflow-2.10.0.dist-info", "build.cuda", "11.2");
    expect(r, "framework:" SITE210 "/tensorflow-2.10.0.dist-info", "build.cudnn", "8");
    /* Findings: Windows', none of Linux's. */
    assert_true(has_finding(r, "windows.cudnn-zlib-missing"));
    assert_true(has_finding(r, "env.cuda-path-version-missing"));
    assert_true(has_finding(r, "windows.driver-ok"));
    assert_false(has_finding(r, "windows.tf-cuda-untested"));
    assert_false(has_finding(r, "framework.tf-windows-no-gpu"));
    for (size_t i = 0; i < gd_report_finding_count(r); i++) {
        const char *id = gd_finding_id(gd_report_finding_at(r, i));
        if (strncmp(id, "driver.", 7) == 0 || strncmp(id, "devices.", 8) == 0 ||
            strncmp(id, "container.", 10) == 0 || strncmp(id, "wsl.", 4) == 0 ||
            strncmp(id, "libs.", 5) == 0)
            fail_msg("a Linux finding on Windows: %s", id);
    }
    assert_null(gd_report_fact(r, "driver", "kernel_module.version"));
    assert_null(gd_report_fact(r, "devices", "nvidiactl.present"));
    assert_null(gd_report_fact(r, "env", "LD_LIBRARY_PATH"));
    gd_report_free(r);
    gd_options_free(o);
}

static void test_tf215(void **state)
{
    (void)state;
    struct gd_options *o = options(ROOTS "win-tf215", tf215_env);
    struct gd_report *r = NULL;
    assert_int_equal(gd_check(o, &r), GD_OK);
    expect(r, "driver", "nvcuda.version", "451.48");
    expect(r, "driver", "nvml.path", "/Program Files/NVIDIA Corporation/NVSMI/nvml.dll");
    expect(r, "env", "CUDA_PATH_V11_8.cuda_version", "12.3");
    /* An 8.3 short name has no place in a tree: unknown, with the reason. */
    const struct gd_fact *s = gd_report_fact(r, "env", "CUDA_PATH_V10_2.exists");
    assert_non_null(s);
    assert_int_equal(gd_fact_state(s), GD_FACT_UNKNOWN);
    assert_non_null(strstr(gd_fact_reason(s), "8.3 short name"));
    expect(r, "python_env:/Users/bob/miniconda3/envs/tf215", "kind", "conda");
    expect(r, "python_env:/Users/bob/miniconda3/envs/tf215", "version", "3.11");
    expect(r, "python_env:/Program Files/Python39", "version", "3.9");
    expect(r,
           "python_env:/Users/bob/AppData/Local/Packages/"
           "PythonSoftwareFoundation.Python.3.11_qbz5n2kfra8p0/LocalCache/local-packages",
           "kind", "user");
    assert_true(has_finding(r, "framework.tf-windows-no-gpu"));
    assert_true(has_finding(r, "windows.tf-cuda-untested"));
    assert_true(has_finding(r, "windows.tf-cudnn-untested"));
    assert_true(has_finding(r, "env.cuda-path-version-mismatch"));
    assert_true(has_finding(r, "framework.driver-too-old"));
    /* tensorflow and tensorflow-intel are one install: one finding. */
    size_t no_gpu = 0;
    for (size_t i = 0; i < gd_report_finding_count(r); i++)
        no_gpu +=
            strcmp(gd_finding_id(gd_report_finding_at(r, i)), "framework.tf-windows-no-gpu") == 0;
    assert_int_equal(no_gpu, 1);
    assert_false(has_finding(r, "framework.cpu-only-build"));
    gd_report_free(r);
    gd_options_free(o);
}

/* The drive Windows paths are read on: SystemDrive of the inspected environment for a tree
 * (a root that is a whole drive, "C:/" under gpudoctor.exe, is that drive whatever the variable
 * says; no tree of the repository is one), else C:. A path on another drive names nothing. */
static void test_drive(void **state)
{
    (void)state;
    static const struct {
        const char *system_drive; /* NULL: unset */
        const char *want;
        const char *cuda_path;
        enum gd_fact_state exists; /* of env.CUDA_PATH.exists */
    } cases[] = {
        { NULL, "C:", "C:\\CUDA", GD_FACT_KNOWN },
        { "D:", "D:", "D:\\CUDA", GD_FACT_KNOWN },
        { "D:", "D:", "C:\\CUDA", GD_FACT_UNKNOWN },
        { "e:\\", "E:", "E:\\CUDA", GD_FACT_KNOWN },
        { "C:\\Windows", "C:", "C:\\CUDA", GD_FACT_KNOWN },
        { "", "C:", "D:\\CUDA", GD_FACT_UNKNOWN },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char sys[64], cuda[64];
        snprintf(sys, sizeof sys, "SystemDrive=%s", cases[i].system_drive);
        snprintf(cuda, sizeof cuda, "CUDA_PATH=%s", cases[i].cuda_path);
        const char *env[] = { cuda, cases[i].system_drive ? sys : NULL, NULL };
        struct gd_options *o = options(ROOTS "win-nodriver", env);
        struct gd_report *r = NULL;
        assert_int_equal(gd_check(o, &r), GD_OK);
        expect(r, "host", "windows.drive", cases[i].want);
        const struct gd_fact *f = gd_entity_fact(gd_report_entity(r, "env"), "CUDA_PATH.exists");
        assert_non_null(f);
        if (gd_fact_state(f) != cases[i].exists)
            fail_msg("case %zu: CUDA_PATH.exists state %d, want %d (%s)", i, gd_fact_state(f),
                     cases[i].exists, gd_fact_reason(f) ? gd_fact_reason(f) : "");
        if (cases[i].exists == GD_FACT_UNKNOWN)
            assert_non_null(strstr(gd_fact_reason(f), "drive"));
        gd_report_free(r);
        gd_options_free(o);
    }
}

/* After allocation n: n + step while that is an allocation, then the last one, then the run
 * without a failure. */
static unsigned long next_n(unsigned long n, unsigned long total, unsigned long step)
{
    if (n + step <= total)
        return n + step;
    return n < total ? total : n + 1;
}

/* Each allocation of a whole check of a Windows root failed in turn: GD_ENOMEM every time, and
 * the run without a failure is complete. The Linux builds (normal and ASan) fail every one; the
 * Windows build fails every 32nd and the last: a check takes some 200 ms under wine (mostly the
 * KB's JSON on wine's heap), so every one of the 4,000 would take a quarter of an hour on two
 * shared cores, and the code is the same apart from src/os. */
static void alloc_failures(const char *root, const char *const *env)
{
    struct gd_options *o = options(root, env);
    struct gd_report *r = NULL;
    gd_alloc_fail_at(0);
    assert_int_equal(gd_check(o, &r), GD_OK);
    unsigned long total = gd_alloc_fail_at(0);
    size_t want = gd_report_finding_count(r);
    gd_report_free(r);
    assert_true(total > 100);
    unsigned long step = gd_os_names_ignore_case() ? 32 : 1;
    for (unsigned long n = 1; n <= total + 1; n = next_n(n, total, step)) {
        gd_alloc_fail_at(n);
        r = (struct gd_report *)1;
        enum gd_status st = gd_check(o, &r);
        gd_alloc_fail_at(0);
        if (n <= total && st != GD_ENOMEM)
            fail_msg("%s: allocation %lu of %lu failed, yet gd_check says %s", root, n, total,
                     gd_status_str(st));
        if (st == GD_ENOMEM) {
            assert_null(r);
            continue;
        }
        assert_int_equal(gd_report_finding_count(r), want);
        gd_report_free(r);
    }
    gd_options_free(o);
}

/* A PE image for `machine` at `rel` in `root`. */
static void pe_file(const char *root, const char *rel, uint16_t machine)
{
    size_t len = 0;
    unsigned char *img = pb_image(machine, 0, NULL, 0, &len);
    assert_non_null(img);
    tu_write_n(root, rel, img, len);
    free(img);
}

/* zlibwapi.dll is looked for as Windows' loader looks for a DLL that cuDNN's sub-libraries
 * import (src/loader/winload.c, the standard order with the inspected PATH): a 32-bit copy in
 * System32 is skipped, the x64 one on PATH is found; one beside cuDNN only, in a directory not
 * on PATH, is not where the loader looks. */
static void test_zlibwapi_search(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("gd-zlib");
    const char *bin = "/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.8/bin";
    char rel[256];
    tu_mkdirs(dir, "/Windows/System32");
    snprintf(rel, sizeof rel, "%s/cudnn64_8.dll", bin);
    pe_file(dir, rel, 0x8664);
    tu_write(dir, "/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.8/include/cudnn_version.h",
             "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 4\n#define CUDNN_PATCHLEVEL 1\n");
    pe_file(dir, "/Windows/System32/zlibwapi.dll", 0x014c);
    pe_file(dir, "/zlib/bin/zlibwapi.dll", 0x8664);
    const char *cudnn = "cudnn_dir:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.8/bin";
    const char *const on_path[] = { "Path=C:\\zlib\\bin;C:\\Windows\\system32", NULL };
    struct gd_options *o = options(dir, on_path);
    struct gd_report *r = NULL;
    assert_int_equal(gd_check(o, &r), GD_OK);
    expect(r, cudnn, "version", "8.4.1");
    expect(r, cudnn, "zlibwapi.path", "/zlib/bin/zlibwapi.dll");
    assert_false(has_finding(r, "windows.cudnn-zlib-missing"));
    gd_report_free(r);
    gd_options_free(o);
    /* Beside cuDNN, whose directory is not on PATH: not found. */
    snprintf(rel, sizeof rel, "%s/zlibwapi.dll", bin);
    pe_file(dir, rel, 0x8664);
    const char *const off_path[] = { "Path=C:\\Windows\\system32", NULL };
    o = options(dir, off_path);
    assert_int_equal(gd_check(o, &r), GD_OK);
    const struct gd_fact *zlib = gd_report_fact(r, cudnn, "zlibwapi.path");
    assert_non_null(zlib);
    assert_int_equal(gd_fact_state(zlib), GD_FACT_ABSENT);
    assert_non_null(strstr(gd_fact_reason(zlib), "/Windows/System32"));
    assert_null(strstr(gd_fact_reason(zlib), "/zlib/bin"));
    assert_true(has_finding(r, "windows.cudnn-zlib-missing"));
    gd_report_free(r);
    gd_options_free(o);
    tu_rmtree(dir);
    free(dir);
}

static void test_alloc_failures(void **state)
{
    (void)state;
    alloc_failures(ROOTS "win-tf210", tf210_env);
    alloc_failures(ROOTS "win-tf215", tf215_env);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tf210),          cmocka_unit_test(test_tf215),
        cmocka_unit_test(test_drive),          cmocka_unit_test(test_zlibwapi_search),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
