/*
 * gpudoctor explain joined with a machine: reports built by hand with the facts the probes record
 * (inventory copies and SONAMEs, the driver, GPUs, frameworks, check findings) confirm or rule
 * out the causes of real log lines and make their fix steps exact; a saved report read back with
 * gd_report_read_json gives the same answer as the report itself; hostile report files are
 * refused; each allocation fails in turn.
 */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "core/report.h"

#include <gpudoctor/gpudoctor.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static struct gd_explain *ex;

static int setup(void **state)
{
    (void)state;
    return gd_explain_new(NULL, &ex) == GD_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gd_explain_free(ex);
    return 0;
}

/* ---- helpers ------------------------------------------------------------------------------ */

static struct gd_source derived(void)
{
    return gd_src(GD_SOURCE_DERIVED, "test");
}

/* A copy of a CUDA library as the inventory records it. */
static void add_copy(struct gd_report *m, const char *family, const char *path, const char *soname,
                     const char *version)
{
    char id[512];
    snprintf(id, sizeof id, "%s:%s", family, path);
    struct gd_entity *e = gd_report_add_entity(m, "library", id);
    gd_fact_str(e, "family", family, gd_src(GD_SOURCE_PATH, path));
    gd_fact_str(e, "path", path, gd_src(GD_SOURCE_PATH, path));
    gd_fact_str(e, "soname", soname, gd_src(GD_SOURCE_ELF, path));
    if (version)
        gd_fact_str(e, "version", version, gd_src(GD_SOURCE_FILE, path));
}

/* The loader's answer for a SONAME: `path`, or not found when NULL. */
static void add_soname(struct gd_report *m, const char *soname, const char *family,
                       const char *path)
{
    char id[300];
    snprintf(id, sizeof id, "soname:%s", soname);
    struct gd_entity *e = gd_report_add_entity(m, "soname", id);
    gd_fact_str(e, "soname", soname, derived());
    gd_fact_str(e, "family", family, derived());
    if (path) {
        gd_fact_str(e, "path", path, derived());
        gd_fact_str(e, "rule", "ld.so.cache", derived());
    } else {
        gd_fact_absent(e, "path", "not found", derived());
    }
}

static void add_inventory(struct gd_report *m, long long copies)
{
    gd_fact_int(gd_report_add_entity(m, "inventory", "inventory"), "copies", copies, derived());
}

static struct gd_report *machine(void)
{
    struct gd_report *m = gd_report_new();
    assert_non_null(m);
    gd_fact_str(gd_report_add_entity(m, "host", "host"), "os.pretty_name", "Ubuntu 22.04.4 LTS",
                gd_src(GD_SOURCE_FILE, "/etc/os-release"));
    gd_fact_str(gd_report_add_entity(m, "host", "host"), "os.id", "ubuntu",
                gd_src(GD_SOURCE_FILE, "/etc/os-release"));
    return m;
}

static struct gd_explain_result *explain(const char *log, const struct gd_report *m)
{
    struct gd_explain_result *r = NULL;
    assert_int_equal(gd_explain_message(ex, log, strlen(log), m, &r), GD_OK);
    return r;
}

static const struct gd_explain_cause *cause(const struct gd_explain_result *r, const char *id)
{
    for (size_t i = 0; i < gd_explain_cause_count(r); i++)
        if (strcmp(gd_explain_cause_id(gd_explain_cause_at(r, i)), id) == 0)
            return gd_explain_cause_at(r, i);
    fail_msg("no cause %s", id);
    return NULL;
}

/* The note or fix step of `c` that contains `text`, else a failure listing them. */
static void has_note(const struct gd_explain_cause *c, const char *text)
{
    for (size_t i = 0; i < gd_explain_cause_note_count(c); i++)
        if (strstr(gd_explain_cause_note_at(c, i), text))
            return;
    for (size_t i = 0; i < gd_explain_cause_note_count(c); i++)
        fprintf(stderr, "note: %s\n", gd_explain_cause_note_at(c, i));
    fail_msg("%s: no note with \"%s\"", gd_explain_cause_id(c), text);
}

static void has_fix(const struct gd_explain_cause *c, const char *text, size_t at)
{
    for (size_t i = 0; i < gd_explain_cause_fix_count(c); i++)
        if (strstr(gd_explain_cause_fix_at(c, i), text)) {
            if (at != SIZE_MAX && i != at)
                fail_msg("%s: fix \"%s\" is step %zu, not %zu", gd_explain_cause_id(c), text, i,
                         at);
            return;
        }
    for (size_t i = 0; i < gd_explain_cause_fix_count(c); i++)
        fprintf(stderr, "fix: %s\n", gd_explain_cause_fix_at(c, i));
    fail_msg("%s: no fix step with \"%s\"", gd_explain_cause_id(c), text);
}

static bool cites(const struct gd_explain_cause *c, const char *entity, const char *fact)
{
    for (size_t i = 0; i < gd_explain_cause_evidence_count(c); i++) {
        const struct gd_fact *f = gd_explain_cause_evidence_at(c, i);
        if (strcmp(gd_entity_id(gd_fact_entity(f)), entity) == 0 &&
            strcmp(gd_fact_name(f), fact) == 0)
            return true;
    }
    return false;
}

/* Real lines (explain_signatures' examples and their issues). */
static const char log_cudnn8[] =
    "2023-06-13 10:31:02.213401: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
    "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared "
    "object file: No such file or directory\n";
static const char log_cudart11[] =
    "2024-02-25 18:52:47.991396: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
    "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open "
    "shared object file: No such file or directory\n";

/* ---- libraries ---------------------------------------------------------------------------- */

/* The log wants cuDNN 8, the machine has only cuDNN 9: confirmed, and the wheel of cuDNN 8 for
 * the CUDA major the log's libcudart names. */
static void test_cudnn_only_other_major(void **state)
{
    (void)state;
    struct gd_report *m = machine();
    add_inventory(m, 1);
    add_copy(m, "cudnn", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0", "libcudnn.so.9", "9.1.0");
    add_soname(m, "libcudnn.so.8", "cudnn", NULL);
    char log[2048];
    snprintf(log, sizeof log, "%s%s", log_cudart11, log_cudnn8);
    struct gd_explain_result *r = explain(log, m);
    const struct gd_explain_cause *c = cause(r, "cudnn-not-found");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_CONFIRMED);
    has_note(c, "libcudnn.so.8 is not found here either; this machine has only libcudnn.so.9 "
                "9.1.0 (/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0)");
    /* The exact step comes first, the generic ones of explain_causes after it. */
    has_fix(c, "python3 -m pip install \"nvidia-cudnn-cu11>=8,<9\"", 0);
    assert_true(cites(c, "cudnn:/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0", "version"));
    assert_true(cites(c, "inventory", "copies"));
    /* libcudart 11 has no copy at all: the CUDA 11 runtime wheel. */
    const struct gd_explain_cause *rt = cause(r, "cuda-runtime-not-found");
    assert_int_equal(gd_explain_cause_verdict(rt), GD_EXPLAIN_CONFIRMED);
    has_note(rt, "no copy of the cudart family on this machine");
    has_fix(rt, "pip install nvidia-cuda-runtime-cu11", 0);
    gd_explain_result_free(r);
    gd_report_free(m);
}

/* Without any library of the log naming the CUDA major, the framework's build says it; the
 * framework's own interpreter runs pip. */
static void test_cuda_major_from_framework(void **state)
{
    (void)state;
    struct gd_report *m = machine();
    add_inventory(m, 0);
    add_soname(m, "libcudnn.so.8", "cudnn", NULL);
    struct gd_entity *fw = gd_report_add_entity(m, "framework", "framework:tensorflow:/opt/venv");
    gd_fact_str(fw, "framework", "tensorflow", derived());
    gd_fact_str(fw, "version", "2.12.0", derived());
    gd_fact_str(fw, "env", "/opt/venv", derived());
    gd_fact_str(fw, "build.cuda", "11.8", derived());
    gd_fact_str(gd_report_add_entity(m, "python_env", "python_env:/opt/venv"), "python",
                "/opt/venv/bin/python", derived());
    struct gd_explain_result *r = explain(log_cudnn8, m);
    const struct gd_explain_cause *c = cause(r, "cudnn-not-found");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_CONFIRMED);
    has_note(c, "no copy of the cudnn family on this machine");
    has_fix(c, "/opt/venv/bin/python -m pip install \"nvidia-cudnn-cu11>=8,<9\"", 0);
    has_fix(c, "in the environment of /opt/venv", 0);
    gd_explain_result_free(r);
    gd_report_free(m);
}

/* The loader finds the library here: the log is from another machine or another environment. */
static void test_library_found_here(void **state)
{
    (void)state;
    struct gd_report *m = machine();
    add_inventory(m, 1);
    add_copy(m, "cudnn", "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7", "libcudnn.so.8", "8.9.7");
    add_soname(m, "libcudnn.so.8", "cudnn", "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7");
    struct gd_explain_result *r = explain(log_cudnn8, m);
    const struct gd_explain_cause *c = cause(r, "cudnn-not-found");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_NOT_HERE);
    has_note(c, "here the loader finds libcudnn.so.8: /usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7 "
                "(ld.so.cache)");
    assert_true(cites(c, "soname:libcudnn.so.8", "path"));
    gd_explain_result_free(r);
    gd_report_free(m);
}

/* A copy of the very SONAME exists, outside the loader's search order: make it visible. */
static void test_library_not_reached(void **state)
{
    (void)state;
    struct gd_report *m = machine();
    add_inventory(m, 1);
    add_copy(m, "cudnn", "/opt/cudnn-8.9/lib/libcudnn.so.8.9.7", "libcudnn.so.8", "8.9.7");
    add_soname(m, "libcudnn.so.8", "cudnn", NULL);
    struct gd_explain_result *r = explain(log_cudnn8, m);
    const struct gd_explain_cause *c = cause(r, "cudnn-not-found");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_CONFIRMED);
    has_note(c, "libcudnn.so.8 exists here (/opt/cudnn-8.9/lib/libcudnn.so.8.9.7) but the "
                "loader's search order does not reach it");
    has_fix(c, "export LD_LIBRARY_PATH=/opt/cudnn-8.9/lib:$LD_LIBRARY_PATH", 0);
    gd_explain_result_free(r);
    gd_report_free(m);
}

/* No inventory in the report (a report cut by hand): neither confirmed nor ruled out. */
static void test_library_no_inventory(void **state)
{
    (void)state;
    struct gd_report *m = machine();
    struct gd_explain_result *r = explain(log_cudnn8, m);
    assert_int_equal(gd_explain_cause_verdict(cause(r, "cudnn-not-found")), GD_EXPLAIN_UNDECIDED);
    assert_string_equal(gd_explain_verdict_name(GD_EXPLAIN_UNDECIDED), "undecided");
    gd_explain_result_free(r);
    gd_report_free(m);
}

/* ---- findings of gpudoctor check ---------------------------------------------------------- */

/* A check finding named by explain_causes confirms the cause and brings its own fix steps, before
 * the generic ones; a finding below warning level does not. */
static void test_finding_confirms(void **state)
{
    (void)state;
    static const char log[] = "[task 2025-07-01T05:06:30.005+00:00] [train] [nvidia-smi(stdout)] "
                              "Failed to initialize NVML: Driver/library version mismatch\n";
    struct gd_report *m = machine();
    struct gd_entity *drv = gd_report_add_entity(m, "driver", "driver");
    const struct gd_fact *km = gd_fact_str(drv, "kernel_module.version", "550.54.14",
                                           gd_src(GD_SOURCE_FILE, "/proc/driver/nvidia/version"));
    gd_fact_str(drv, "libcuda.version", "550.90.07",
                gd_src(GD_SOURCE_PATH, "/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07"));
    struct gd_finding *f = gd_finding_add(m, "driver.version-mismatch", GD_SEV_ERROR,
                                          "Kernel module 550.54.14 and libcuda 550.90.07 differ");
    gd_finding_add_evidence(f, km);
    gd_finding_add_fix(f, "Reboot, so that the kernel module of the installed driver loads");
    gd_finding_add(m, "driver.multiple-libcuda", GD_SEV_INFO, "Two copies of libcuda");
    struct gd_explain_result *r = explain(log, m);
    const struct gd_explain_cause *c = cause(r, "driver-library-mismatch");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_CONFIRMED);
    has_note(c, "gpudoctor check on this machine: Kernel module 550.54.14 and libcuda 550.90.07 "
                "differ [driver.version-mismatch]");
    for (size_t i = 0; i < gd_explain_cause_note_count(c); i++)
        assert_null(strstr(gd_explain_cause_note_at(c, i), "driver.multiple-libcuda"));
    has_fix(c, "Reboot, so that the kernel module of the installed driver loads", 0);
    assert_true(gd_explain_cause_fix_count(c) > 1);
    assert_true(cites(c, "driver", "kernel_module.version"));
    /* The facts explain_causes names are shown too. */
    assert_true(cites(c, "driver", "libcuda.version"));
    gd_explain_result_free(r);
    gd_report_free(m);
}

/* A finding about another library than the log's is context, not a confirmation. */
static void test_finding_other_library(void **state)
{
    (void)state;
    struct gd_report *m = machine();
    add_inventory(m, 1);
    add_copy(m, "cudnn", "/usr/lib/libcudnn.so.8.9.7", "libcudnn.so.8", "8.9.7");
    add_soname(m, "libcudnn.so.8", "cudnn", "/usr/lib/libcudnn.so.8.9.7");
    struct gd_finding *f = gd_finding_add(m, "framework.cuda-lib-missing", GD_SEV_ERROR,
                                          "torch 2.3 needs libcublas.so.12, which is not found");
    gd_finding_add_fix(f, "Install nvidia-cublas-cu12");
    struct gd_explain_result *r = explain(log_cudnn8, m);
    const struct gd_explain_cause *c = cause(r, "cudnn-not-found");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_NOT_HERE);
    has_note(c, "gpudoctor check on this machine also reports: torch 2.3 needs libcublas.so.12");
    for (size_t i = 0; i < gd_explain_cause_fix_count(c); i++)
        assert_null(strstr(gd_explain_cause_fix_at(c, i), "nvidia-cublas-cu12"));
    gd_explain_result_free(r);
    gd_report_free(m);
}

/* The same message on a machine whose module and libcuda agree: not this machine. */
static void test_driver_mismatch_not_here(void **state)
{
    (void)state;
    static const char log[] = "Failed to initialize NVML: Driver/library version mismatch\n";
    struct gd_report *m = machine();
    struct gd_entity *drv = gd_report_add_entity(m, "driver", "driver");
    gd_fact_str(drv, "kernel_module.version", "550.90.07", derived());
    gd_fact_str(drv, "libcuda.version", "550.90.07", derived());
    struct gd_explain_result *r = explain(log, m);
    const struct gd_explain_cause *c = cause(r, "driver-library-mismatch");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_NOT_HERE);
    has_note(c, "here the kernel module and libcuda are both 550.90.07");
    gd_explain_result_free(r);
    gd_report_free(m);
}

/* ---- the driver --------------------------------------------------------------------------- */

static const char log_no_driver[] =
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that "
    "the latest NVIDIA driver is installed and running.\n";

static void test_driver_not_loaded(void **state)
{
    (void)state;
    struct gd_report *m = machine();
    gd_fact_absent(gd_report_add_entity(m, "driver", "driver"), "kernel_module.version",
                   "no /proc/driver/nvidia/version",
                   gd_src(GD_SOURCE_FILE, "/proc/driver/nvidia/version"));
    struct gd_explain_result *r = explain(log_no_driver, m);
    const struct gd_explain_cause *c = cause(r, "driver-not-loaded");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_CONFIRMED);
    assert_true(cites(c, "driver", "kernel_module.version"));
    gd_explain_result_free(r);

    /* A loaded driver with its libcuda: the log is not from this state of the machine. */
    struct gd_report *m2 = machine();
    struct gd_entity *drv = gd_report_add_entity(m2, "driver", "driver");
    gd_fact_str(drv, "kernel_module.version", "550.90.07", derived());
    gd_fact_str(drv, "libcuda.path", "/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07", derived());
    r = explain(log_no_driver, m2);
    c = cause(r, "driver-not-loaded");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_NOT_HERE);
    has_note(c, "here the NVIDIA driver 550.90.07 is loaded");
    gd_explain_result_free(r);
    gd_report_free(m2);
    gd_report_free(m);
}

/* "The driver is too old" where no driver is loaded at all: another machine's message. */
static void test_driver_too_old(void **state)
{
    (void)state;
    static const char log[] =
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please "
        "update your GPU driver by downloading and installing a new version from the URL: "
        "http://www.nvidia.com/Download/index.aspx\n";
    struct gd_report *m = machine();
    gd_fact_absent(gd_report_add_entity(m, "driver", "driver"), "kernel_module.version", NULL,
                   derived());
    struct gd_explain_result *r = explain(log, m);
    const struct gd_explain_cause *c = cause(r, "driver-too-old");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_NOT_HERE);
    has_note(c, "the log: the driver supported CUDA up to 11.4");
    has_note(c, "this machine has no NVIDIA driver loaded at all");
    gd_explain_result_free(r);
    /* The CUDA runtime's own message, with no driver here: that is what it says then. */
    static const char rt[] = " CUDA error: 35 (0x23) cudaErrorInsufficientDriver : CUDA driver "
                             "version is insufficient for CUDA runtime version\n";
    r = explain(rt, m);
    c = cause(r, "driver-too-old");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_CONFIRMED);
    has_note(c, "for which the CUDA runtime reports the same error: install the driver");
    has_fix(c, "ubuntu-drivers", 0);
    gd_explain_result_free(r);
    gd_report_free(m);
}

/* ---- frameworks and GPUs ------------------------------------------------------------------ */

static struct gd_entity *add_torch(struct gd_report *m, const char *build, const char *archs)
{
    struct gd_entity *fw =
        gd_report_add_entity(m, "framework", "framework:torch:/usr/lib/python3/dist-packages");
    gd_fact_str(fw, "framework", "torch", derived());
    gd_fact_str(fw, "version", "2.1.2", derived());
    gd_fact_str(fw, "env", "/usr/lib/python3/dist-packages", derived());
    gd_fact_str(fw, "build", build, derived());
    if (archs)
        gd_fact_str(fw, "build.compute_capabilities", archs, derived());
    return fw;
}

static void test_cpu_only_build(void **state)
{
    (void)state;
    static const char log[] = "AssertionError: Torch not compiled with CUDA enabled\n";
    struct gd_report *m = machine();
    add_torch(m, "cpu", NULL);
    struct gd_explain_result *r = explain(log, m);
    const struct gd_explain_cause *c = cause(r, "cpu-only-build");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_CONFIRMED);
    has_note(c, "here torch 2.1.2 in /usr/lib/python3/dist-packages is a CPU-only build");
    assert_true(cites(c, "framework:torch:/usr/lib/python3/dist-packages", "build"));
    gd_explain_result_free(r);
    gd_report_free(m);
}

static void add_gpu(struct gd_report *m, const char *cc)
{
    struct gd_entity *g = gd_report_add_entity(m, "gpu", "gpu:0000:01:00.0");
    gd_fact_str(g, "model", "NVIDIA GeForce RTX 3060", derived());
    gd_fact_str(g, "compute_capability", cc, derived());
    gd_fact_str(g, "bus_id", "0000:01:00.0", derived());
}

static void test_no_kernel_image(void **state)
{
    (void)state;
    static const char log[] =
        "NVIDIA GeForce RTX 3060 Laptop GPU with CUDA capability sm_86 is not compatible with the "
        "current PyTorch installation.\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n";
    struct gd_report *m = machine();
    add_gpu(m, "8.6");
    add_torch(m, "cuda", "sm_37,sm_50,sm_60,sm_70");
    struct gd_explain_result *r = explain(log, m);
    const struct gd_explain_cause *c = cause(r, "no-kernel-image");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_CONFIRMED);
    has_note(c, "the log: the GPU is sm_86");
    has_note(c, "here: NVIDIA GeForce RTX 3060, compute capability 8.6 (sm_86)");
    has_note(c, "torch 2.1.2 was built for sm_37,sm_50,sm_60,sm_70: no code this GPU can run");
    gd_explain_result_free(r);
    gd_report_free(m);

    /* NVIDIA's compatibility rules: SASS of 8.0 runs on 8.6, PTX of 7.0 is compiled for it,
     * SASS of 9.0a only on 9.0, nothing of 8.9 on 8.6. */
    static const struct {
        const char *archs, *cc;
        enum gd_explain_verdict verdict;
    } cases[] = {
        { "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90", "8.6", GD_EXPLAIN_NOT_HERE },
        { "sm_80", "8.6", GD_EXPLAIN_NOT_HERE },
        { "sm_86", "8.0", GD_EXPLAIN_CONFIRMED },
        { "sm_70,compute_70", "8.6", GD_EXPLAIN_UNDECIDED },
        { "sm_35,sm_50,sm_60,sm_70,sm_75,compute_80", "8.6", GD_EXPLAIN_NOT_HERE },
        { "sm_89", "8.6", GD_EXPLAIN_CONFIRMED },
        { "sm_90a", "9.0", GD_EXPLAIN_NOT_HERE },
        { "sm_90a", "10.0", GD_EXPLAIN_CONFIRMED },
        { "compute_90a", "10.0", GD_EXPLAIN_CONFIRMED },
        { "compute_90", "12.0", GD_EXPLAIN_UNDECIDED },
        { "sm_x,sm_,compute_", "8.6", GD_EXPLAIN_CONFIRMED },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        m = machine();
        add_gpu(m, cases[i].cc);
        add_torch(m, "cuda", cases[i].archs);
        r = explain(log, m);
        c = cause(r, "no-kernel-image");
        if (gd_explain_cause_verdict(c) != cases[i].verdict)
            fail_msg("%s on %s: %s", cases[i].archs, cases[i].cc,
                     gd_explain_verdict_name(gd_explain_cause_verdict(c)));
        gd_explain_result_free(r);
        gd_report_free(m);
    }
}

/* ---- cuDNN versions ----------------------------------------------------------------------- */

static void test_cudnn_version_mismatch(void **state)
{
    (void)state;
    static const char log[] =
        "2021-10-13 17:19:29.385716: E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded "
        "runtime CuDNN library: 8.0.4 but source was compiled with: 8.1.0.  CuDNN library needs "
        "to have matching major version and equal or higher minor version. If using a binary "
        "install, upgrade your CuDNN library.  If building from sources, make sure the library "
        "loaded at runtime is compatible with the version specified during compile "
        "configuration.\n";
    const char *path = "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.0.4";
    struct gd_report *m = machine();
    add_copy(m, "cudnn", path, "libcudnn.so.8", "8.0.4");
    add_soname(m, "libcudnn.so.8", "cudnn", path);
    struct gd_entity *fw = gd_report_add_entity(m, "framework", "framework:tensorflow:/srv/env");
    gd_fact_str(fw, "framework", "tensorflow", derived());
    gd_fact_str(fw, "build.cuda", "11.2", derived());
    struct gd_explain_result *r = explain(log, m);
    const struct gd_explain_cause *c = cause(r, "cudnn-version-mismatch");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_CONFIRMED);
    has_note(c, "the log: built with cuDNN 8.1.0, loaded cuDNN 8.0.4");
    has_note(c, "here the loader picks cuDNN 8.0.4 at /usr/lib/x86_64-linux-gnu/libcudnn.so.8.0.4");
    has_fix(c, "python3 -m pip install \"nvidia-cudnn-cu11>=8.1,<9\"", 0);
    gd_explain_result_free(r);
    gd_report_free(m);

    /* The loader picks a new enough cuDNN 8 here. */
    m = machine();
    path = "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7";
    add_copy(m, "cudnn", path, "libcudnn.so.8", "8.9.7");
    add_soname(m, "libcudnn.so.8", "cudnn", path);
    r = explain(log, m);
    c = cause(r, "cudnn-version-mismatch");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_NOT_HERE);
    gd_explain_result_free(r);
    gd_report_free(m);

    /* cuDNN's integer form (7201 is 7.2.1) in PyTorch's message. */
    static const char pt[] =
        "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 7201 but linked "
        "against 7104\n";
    r = explain(pt, NULL);
    c = cause(r, "cudnn-version-mismatch");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_UNCHECKED);
    gd_explain_result_free(r);
    m = machine();
    r = explain(pt, m);
    has_note(cause(r, "cudnn-version-mismatch"), "built with cuDNN 7.2.1, loaded cuDNN 7.1.4");
    gd_explain_result_free(r);
    gd_report_free(m);
}

/* ---- Xids --------------------------------------------------------------------------------- */

static void test_xid(void **state)
{
    (void)state;
    static const char log[] =
        "May 18 19:02:39 kernel: NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n";
    /* The log alone: NVIDIA's meaning and action for Xid 79. */
    struct gd_explain_result *r = explain(log, NULL);
    const struct gd_explain_cause *c = cause(r, "hardware-xid");
    has_note(c, "Xid 79 (");
    has_fix(c, "Xid 79: reboot the machine", 0);
    gd_explain_result_free(r);
    /* The machine has a GPU at that PCI address. */
    struct gd_report *m = machine();
    add_gpu(m, "8.6");
    r = explain(log, m);
    c = cause(r, "hardware-xid");
    has_note(c, "the GPU at 0000:01:00 here is NVIDIA GeForce RTX 3060");
    gd_explain_result_free(r);
    gd_report_free(m);
    /* An Xid the table does not have. */
    r = explain("NVRM: Xid (PCI:0000:65:00): 9999, pid=1234, name=python\n", NULL);
    has_note(cause(r, "hardware-xid"), "Xid 9999: not in the xids table");
    gd_explain_result_free(r);
}

/* ---- scores ------------------------------------------------------------------------------- */

/* Confirmation moves a cause up; ruling out moves it down. */
static void test_verdicts_rank(void **state)
{
    (void)state;
    /* cudnn-not-found from a weight-1 signature, no-gpu-visible from a weight-3 one. */
    static const char log[] = "Please make sure libcudnn_cnn_infer.so.8 is in your library path!\n"
                              "RuntimeError: No CUDA GPUs are available\n";
    struct gd_explain_result *r = explain(log, NULL);
    assert_string_equal(gd_explain_cause_id(gd_explain_cause_at(r, 0)), "no-gpu-visible");
    int unchecked = gd_explain_cause_score(cause(r, "cudnn-not-found"));
    int other = gd_explain_cause_score(cause(r, "no-gpu-visible"));
    assert_true(unchecked < other && unchecked + 30 > other);
    gd_explain_result_free(r);
    /* The machine has no cuDNN 8: confirmed, and first. */
    struct gd_report *m = machine();
    add_inventory(m, 0);
    add_soname(m, "libcudnn_cnn_infer.so.8", "cudnn-sub", NULL);
    r = explain(log, m);
    assert_string_equal(gd_explain_cause_id(gd_explain_cause_at(r, 0)), "cudnn-not-found");
    assert_int_equal(gd_explain_cause_score(gd_explain_cause_at(r, 0)), unchecked + 30);
    assert_int_equal(gd_explain_cause_score(cause(r, "no-gpu-visible")), other);
    gd_explain_result_free(r);
    gd_report_free(m);
    /* The loader finds it here: ruled out, last. */
    m = machine();
    add_inventory(m, 1);
    add_copy(m, "cudnn-sub", "/usr/lib/libcudnn_cnn_infer.so.8.9.7", "libcudnn_cnn_infer.so.8",
             "8.9.7");
    add_soname(m, "libcudnn_cnn_infer.so.8", "cudnn-sub", "/usr/lib/libcudnn_cnn_infer.so.8.9.7");
    r = explain(log, m);
    assert_string_equal(gd_explain_cause_id(gd_explain_cause_at(r, 1)), "cudnn-not-found");
    assert_int_equal(gd_explain_cause_score(gd_explain_cause_at(r, 1)), unchecked - 15);
    gd_explain_result_free(r);
    gd_report_free(m);
}

/* ---- saved reports ------------------------------------------------------------------------ */

/* The JSON of a report, read back: the same explanation as from the report itself. */
static void test_report_round_trip(void **state)
{
    (void)state;
    struct gd_report *m = machine();
    add_inventory(m, 1);
    add_copy(m, "cudnn", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0", "libcudnn.so.9", "9.1.0");
    add_soname(m, "libcudnn.so.8", "cudnn", NULL);
    gd_fact_int(gd_report_add_entity(m, "gpus", "gpus"), "count", 2, derived());
    gd_fact_bool(gd_report_add_entity(m, "wsl", "wsl"), "detected", false, derived());
    struct gd_finding *f = gd_finding_add(m, "framework.cuda-lib-missing", GD_SEV_ERROR,
                                          "tensorflow needs libcudnn.so.8");
    gd_finding_set_why(f, "why");
    gd_finding_add_evidence(f, gd_report_fact(m, "soname:libcudnn.so.8", "path"));
    gd_finding_add_fix(f, "Install cuDNN 8");
    char *json = NULL;
    size_t len = 0;
    assert_int_equal(gd_render(m, GD_FORMAT_JSON, NULL, &json, &len), GD_OK);
    struct gd_report *back = NULL;
    assert_int_equal(gd_report_read_json(json, len, &back), GD_OK);
    assert_int_equal(gd_report_entity_count(back), gd_report_entity_count(m));
    assert_int_equal(gd_report_finding_count(back), 1);
    assert_string_equal(gd_report_value(back, "gpus", "count"), "2");
    assert_int_equal(gd_fact_type(gd_report_fact(back, "gpus", "count")), GD_VALUE_INT);
    assert_int_equal(gd_fact_type(gd_report_fact(back, "wsl", "detected")), GD_VALUE_BOOL);
    assert_int_equal(gd_fact_state(gd_report_fact(back, "soname:libcudnn.so.8", "path")),
                     GD_FACT_ABSENT);
    const struct gd_finding *bf = gd_report_finding_at(back, 0);
    assert_int_equal(gd_finding_evidence_count(bf), 1);
    assert_int_equal(gd_finding_fix_count(bf), 1);
    /* Both reports render the same JSON: nothing was lost or changed. */
    char *again = NULL;
    size_t alen = 0;
    assert_int_equal(gd_render(back, GD_FORMAT_JSON, NULL, &again, &alen), GD_OK);
    assert_string_equal(again, json);
    /* And explain the same. */
    char *a = NULL, *b = NULL;
    struct gd_explain_result *ra = explain(log_cudnn8, m), *rb = explain(log_cudnn8, back);
    assert_int_equal(gd_explain_render(ra, GD_FORMAT_JSON, NULL, &a, &len), GD_OK);
    assert_int_equal(gd_explain_render(rb, GD_FORMAT_JSON, NULL, &b, &len), GD_OK);
    assert_string_equal(a, b);
    assert_int_equal(gd_explain_cause_verdict(cause(ra, "cudnn-not-found")), GD_EXPLAIN_CONFIRMED);
    has_note(cause(rb, "cudnn-not-found"),
             "gpudoctor check on this machine: tensorflow needs libcudnn.so.8 "
             "[framework.cuda-lib-missing]");
    gd_free(a);
    gd_free(b);
    gd_explain_result_free(ra);
    gd_explain_result_free(rb);
    gd_free(again);
    gd_free(json);
    gd_report_free(back);
    gd_report_free(m);
}

/* What is not a saved report of schema 1 is refused; odd parts of one are skipped. */
static void test_report_hostile(void **state)
{
    (void)state;
    static const char *bad[] = {
        "",
        "   ",
        "null",
        "[]",
        "{}",
        "{\"schema\":\"gpudoctor.report/2\",\"entities\":[]}",
        "{\"schema\":\"gpudoctor.explain/1\",\"entities\":[]}",
        "{\"schema\":\"gpudoctor.report/1\"}",
        "{\"schema\":\"gpudoctor.report/1\",\"entities\":{}}",
        "{\"schema\":\"gpudoctor.report/1\",\"entities\":[]} trailing",
        "{\"schema\":\"gpudoctor.report/1\",\"entities\":[]}{}",
        "{\"schema\":\"gpudoctor.report/1\",\"entities\":[",
        "{\"schema\":1,\"entities\":[]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct gd_report *r = (struct gd_report *)1;
        if (gd_report_read_json(bad[i], strlen(bad[i]), &r) != GD_EFORMAT)
            fail_msg("accepted: %s", bad[i]);
        assert_null(r);
    }
    /* A document with a NUL inside is not JSON that ends where its bytes end. */
    static const char nul[] = "{\"schema\":\"gpudoctor.report/1\",\"entities\":[]}\0{}";
    struct gd_report *r = NULL;
    assert_int_equal(gd_report_read_json(nul, sizeof nul - 1, &r), GD_EFORMAT);
    assert_int_equal(gd_report_read_json(NULL, 1, &r), GD_EINVAL);
    /* Entities and facts of the wrong shape are skipped, the rest is kept. */
    static const char odd[] =
        "{\"schema\":\"gpudoctor.report/1\",\"entities\":["
        "1, \"x\", {\"kind\":\"gpus\"}, {\"kind\":\"gpus\",\"id\":\"\",\"facts\":{}},"
        "{\"kind\":\"gpus\",\"id\":\"gpus\",\"facts\":{"
        "\"count\":{\"state\":\"known\",\"value\":1,\"source\":{\"kind\":\"derived\",\"ref\":\"x\"}"
        "},"
        "\"a\":{\"state\":\"known\",\"value\":[1],\"source\":{\"kind\":\"derived\",\"ref\":\"x\"}},"
        "\"b\":{\"state\":\"known\",\"value\":1,\"source\":{\"kind\":\"elsewhere\",\"ref\":\"x\"}},"
        "\"c\":{\"state\":\"maybe\",\"source\":{\"kind\":\"derived\",\"ref\":\"x\"}},"
        "\"d\":{\"state\":\"known\",\"source\":{\"kind\":\"derived\",\"ref\":\"x\"}},"
        "\"e\":{\"state\":\"absent\",\"source\":{\"kind\":\"file\",\"ref\":\"/x\"}},"
        "\"f\":7}}],"
        "\"findings\":[1,{\"id\":\"x\"},{\"id\":\"a.b\",\"severity\":\"fatal\",\"title\":\"t\"},"
        "{\"id\":\"a.c\",\"severity\":\"error\",\"title\":\"t\",\"evidence\":[1,{\"entity\":"
        "\"gpus\","
        "\"fact\":\"count\"},{\"entity\":\"nowhere\",\"fact\":\"n\",\"state\":\"known\",\"value\":"
        "\"v\",\"source\":{\"kind\":\"kb\",\"ref\":\"k\"}}],\"fix\":[2,\"step\"]}]}";
    assert_int_equal(gd_report_read_json(odd, sizeof odd - 1, &r), GD_OK);
    const struct gd_entity *g = gd_report_entity(r, "gpus");
    assert_non_null(g);
    assert_int_equal(gd_entity_fact_count(g), 2);
    assert_string_equal(gd_report_value(r, "gpus", "count"), "1");
    assert_int_equal(gd_fact_state(gd_entity_fact(g, "e")), GD_FACT_ABSENT);
    assert_int_equal(gd_report_finding_count(r), 1);
    const struct gd_finding *f = gd_report_finding_at(r, 0);
    assert_string_equal(gd_finding_id(f), "a.c");
    assert_int_equal(gd_finding_evidence_count(f), 2);
    assert_int_equal(gd_finding_fix_count(f), 1);
    assert_string_equal(gd_report_value(r, "nowhere", "n"), "v");
    gd_report_free(r);
}

/* A report of gd_check on a fixture tree, saved and read back, explains as the report itself. */
static void test_report_of_check(void **state)
{
    (void)state;
    struct gd_options *o = NULL;
    assert_int_equal(gd_options_new(&o), GD_OK);
    assert_int_equal(gd_options_set_root(o, GD_SOURCE_DIR "/tests/fixtures/roots/no-driver"),
                     GD_OK);
    assert_int_equal(gd_options_clear_env(o), GD_OK);
    struct gd_report *m = NULL;
    assert_int_equal(gd_check(o, &m), GD_OK);
    gd_options_free(o);
    char *json = NULL, *again = NULL;
    size_t len = 0, alen = 0;
    assert_int_equal(gd_render(m, GD_FORMAT_JSON, NULL, &json, &len), GD_OK);
    struct gd_report *back = NULL;
    assert_int_equal(gd_report_read_json(json, len, &back), GD_OK);
    assert_int_equal(gd_render(back, GD_FORMAT_JSON, NULL, &again, &alen), GD_OK);
    assert_string_equal(again, json);
    struct gd_explain_result *ra = explain(log_no_driver, m), *rb = explain(log_no_driver, back);
    const struct gd_explain_cause *c = cause(rb, "driver-not-loaded");
    assert_int_equal(gd_explain_cause_verdict(c), GD_EXPLAIN_CONFIRMED);
    assert_true(gd_explain_cause_note_count(c) >= 1);
    char *a = NULL, *b = NULL;
    assert_int_equal(gd_explain_render(ra, GD_FORMAT_JSON, NULL, &a, &len), GD_OK);
    assert_int_equal(gd_explain_render(rb, GD_FORMAT_JSON, NULL, &b, &len), GD_OK);
    assert_string_equal(a, b);
    gd_free(a);
    gd_free(b);
    gd_explain_result_free(ra);
    gd_explain_result_free(rb);
    gd_free(json);
    gd_free(again);
    gd_report_free(back);
    gd_report_free(m);
}

/* ---- allocation failures ------------------------------------------------------------------ */

static void test_alloc_join(void **state)
{
    (void)state;
    struct gd_report *m = machine();
    add_inventory(m, 1);
    add_copy(m, "cudnn", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0", "libcudnn.so.9", "9.1.0");
    add_soname(m, "libcudnn.so.8", "cudnn", NULL);
    add_gpu(m, "8.6");
    add_torch(m, "cpu", "sm_50");
    char log[4096];
    snprintf(log, sizeof log,
             "%s%sAssertionError: Torch not compiled with CUDA enabled\n"
             "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n",
             log_cudart11, log_cudnn8);
    gd_alloc_fail_at(0);
    struct gd_explain_result *r = NULL;
    assert_int_equal(gd_explain_message(ex, log, strlen(log), m, &r), GD_OK);
    gd_explain_result_free(r);
    unsigned long total = gd_alloc_fail_at(0);
    for (unsigned long n = 1; n <= total + 1; n++) {
        gd_alloc_fail_at(n);
        r = NULL;
        enum gd_status st = gd_explain_message(ex, log, strlen(log), m, &r);
        char *out = NULL;
        size_t len = 0;
        enum gd_status rs =
            st == GD_OK ? gd_explain_render(r, GD_FORMAT_TEXT, NULL, &out, &len) : GD_OK;
        gd_alloc_fail_at(0);
        if (n <= total && st != GD_ENOMEM)
            fail_msg("allocation %lu of %lu failed, yet explain answered %s", n, total,
                     gd_status_str(st));
        if (st == GD_OK) {
            assert_non_null(r);
            assert_int_equal(gd_explain_cause_count(r), 4);
            if (rs == GD_OK)
                gd_free(out);
            gd_explain_result_free(r);
        } else {
            assert_null(r);
        }
    }
    gd_report_free(m);
}

static void test_alloc_report_json(void **state)
{
    (void)state;
    struct gd_report *m = machine();
    add_inventory(m, 1);
    add_copy(m, "cudnn", "/usr/lib/libcudnn.so.9.1.0", "libcudnn.so.9", "9.1.0");
    struct gd_finding *f = gd_finding_add(m, "libs.x", GD_SEV_WARNING, "t");
    gd_finding_add_evidence(f, gd_report_fact(m, "inventory", "copies"));
    gd_finding_add_fix(f, "step");
    char *json = NULL;
    size_t len = 0;
    assert_int_equal(gd_render(m, GD_FORMAT_JSON, NULL, &json, &len), GD_OK);
    gd_alloc_fail_at(0);
    struct gd_report *back = NULL;
    assert_int_equal(gd_report_read_json(json, len, &back), GD_OK);
    gd_report_free(back);
    unsigned long total = gd_alloc_fail_at(0);
    assert_true(total > 0);
    for (unsigned long n = 1; n <= total; n++) {
        gd_alloc_fail_at(n);
        back = NULL;
        enum gd_status st = gd_report_read_json(json, len, &back);
        gd_alloc_fail_at(0);
        if (st != GD_ENOMEM)
            fail_msg("allocation %lu of %lu failed, yet the report was read", n, total);
        assert_null(back);
    }
    gd_free(json);
    gd_report_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cudnn_only_other_major),
        cmocka_unit_test(test_cuda_major_from_framework),
        cmocka_unit_test(test_library_found_here),
        cmocka_unit_test(test_library_not_reached),
        cmocka_unit_test(test_library_no_inventory),
        cmocka_unit_test(test_finding_confirms),
        cmocka_unit_test(test_finding_other_library),
        cmocka_unit_test(test_driver_mismatch_not_here),
        cmocka_unit_test(test_driver_not_loaded),
        cmocka_unit_test(test_driver_too_old),
        cmocka_unit_test(test_cpu_only_build),
        cmocka_unit_test(test_no_kernel_image),
        cmocka_unit_test(test_cudnn_version_mismatch),
        cmocka_unit_test(test_xid),
        cmocka_unit_test(test_verdicts_rank),
        cmocka_unit_test(test_report_round_trip),
        cmocka_unit_test(test_report_hostile),
        cmocka_unit_test(test_report_of_check),
        cmocka_unit_test(test_alloc_join),
        cmocka_unit_test(test_alloc_report_json),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
