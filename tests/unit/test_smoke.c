/*
 * The smoke tests' own parts that need no GPU: the hand-written PTX kernel, assembled by the CUDA
 * toolkit's ptxas for the architectures it knows (skipped without ptxas), and the choice of the
 * library copies to test — the loader's for each SONAME and each framework's own, from the
 * framework_lib entities the frameworks probe records (docs/json-schema.md).
 */
#define _GNU_SOURCE
#include "core/report.h"
#include "probe/smoke.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#ifndef _WIN32
#include <sys/wait.h>
#endif

#include <cmocka.h>

#include "testutil.h"

#ifndef _WIN32
/* ptxas on PATH, under CUDA_HOME, or in the toolkit's usual place. */
static bool find_ptxas(char *buf, size_t size)
{
    const char *home = getenv("CUDA_HOME");
    char candidates[3][PATH_MAX];
    snprintf(candidates[0], PATH_MAX, "%s/bin/ptxas", home ? home : "/nonexistent");
    snprintf(candidates[1], PATH_MAX, "/usr/local/cuda/bin/ptxas");
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        size_t n = strcspn(p, ":");
        snprintf(candidates[2], PATH_MAX, "%.*s/ptxas", (int)n, p);
        if (n && access(candidates[2], X_OK) == 0) {
            snprintf(buf, size, "%s", candidates[2]);
            return true;
        }
        p += n + (p[n] == ':');
    }
    for (int i = 0; i < 2; i++)
        if (access(candidates[i], X_OK) == 0) {
            snprintf(buf, size, "%s", candidates[i]);
            return true;
        }
    return false;
}
#endif

static void test_ptx_assembles(void **state)
{
    (void)state;
#ifdef _WIN32
    /* The kernel's text is the same in every build; ptxas runs here through a POSIX shell. */
    print_message("ptxas is run through a POSIX shell: the PTX is assembled in the Linux build\n");
    skip();
#else
    char ptxas[PATH_MAX];
    if (!find_ptxas(ptxas, sizeof ptxas)) {
        print_message("no ptxas (CUDA toolkit): the kernel's PTX is not assembled here\n");
        skip();
    }
    char *dir = tu_mkdtemp("ptx");
    tu_write(dir, "k.ptx", gd_smoke_ptx);
    static const char *const archs[] = { "sm_75", "sm_80",  "sm_86", "sm_89",
                                         "sm_90", "sm_100", "sm_120" };
    int assembled = 0;
    for (size_t i = 0; i < sizeof archs / sizeof *archs; i++) {
        char cmd[3 * PATH_MAX], log[PATH_MAX];
        tu_path(log, sizeof log, dir, "log");
        snprintf(cmd, sizeof cmd, "'%s' --gpu-name %s '%s/k.ptx' -o '%s/k.cubin' >'%s' 2>&1", ptxas,
                 archs[i], dir, dir, log);
        int st = system(cmd);
        FILE *f = fopen(log, "r");
        char text[1024] = "";
        if (f) {
            size_t n = fread(text, 1, sizeof text - 1, f);
            text[n] = '\0';
            fclose(f);
        }
        /* An older ptxas that does not know a newer architecture says so; that is not the
         * kernel's fault. */
        if (strstr(text, "is not defined for option")) {
            print_message("%s: not known to this ptxas\n", archs[i]);
            continue;
        }
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            fail_msg("ptxas --gpu-name %s rejects the kernel:\n%s", archs[i], text);
        assembled++;
    }
    assert_true(assembled > 0);
    tu_rmtree(dir);
    free(dir);
#endif
}

/* The kernel's interface as smoke_child.c launches it: gd_smoke(out, in, n). */
static void test_ptx_interface(void **state)
{
    (void)state;
    assert_non_null(strstr(gd_smoke_ptx, ".version 4.0\n.target sm_50\n.address_size 64\n"));
    const char *entry = strstr(gd_smoke_ptx, ".visible .entry " GD_SMOKE_KERNEL "(");
    assert_non_null(entry);
    const char *out = strstr(entry, ".param .u64 gd_smoke_out");
    const char *in = strstr(entry, ".param .u64 gd_smoke_in");
    const char *n = strstr(entry, ".param .u32 gd_smoke_n");
    assert_true(out && in && n && out < in && in < n);
    /* out[i] = in[i] * 3 + i */
    assert_non_null(strstr(gd_smoke_ptx, "mad.lo.s32 %r7, %r6, 3, %r5;"));
}

static struct gd_report *report(void)
{
    struct gd_report *r = gd_report_new();
    assert_non_null(r);
    struct gd_source src = gd_src(GD_SOURCE_DERIVED, "test");
    struct gd_entity *e = gd_report_add_entity(r, "soname", "soname:libcublas.so.12");
    gd_fact_str(e, "soname", "libcublas.so.12", src);
    gd_fact_str(e, "path", "/usr/lib/x86_64-linux-gnu/libcublas.so.12", src);
    e = gd_report_add_entity(r, "soname", "soname:libcublasLt.so.12");
    gd_fact_str(e, "soname", "libcublasLt.so.12", src);
    gd_fact_str(e, "path", "/usr/lib/x86_64-linux-gnu/libcublasLt.so.12", src);
    e = gd_report_add_entity(r, "soname", "soname:libcudnn.so.9");
    gd_fact_str(e, "soname", "libcudnn.so.9", src);
    gd_fact_absent(e, "path", "not found by the loader", src);
    /* torch in a venv brings its own cuBLAS and cuDNN (the nvidia-* wheels). */
    const char *torch = "framework:/opt/venv/lib/python3.11/site-packages/torch-2.4.0.dist-info";
    e = gd_report_add_entity(r, "framework", torch);
    gd_fact_str(e, "framework", "torch", src);
    gd_fact_str(e, "version", "2.4.0", src);
    gd_fact_str(e, "env", "/opt/venv", src);
    char id[512];
    snprintf(id, sizeof id, "framework_lib:%s:libcublas.so.12", torch + 10);
    e = gd_report_add_entity(r, "framework_lib", id);
    gd_fact_str(e, "framework", torch, src);
    gd_fact_str(e, "soname", "libcublas.so.12", src);
    gd_fact_str(e, "path",
                "/opt/venv/lib/python3.11/site-packages/nvidia/cublas/lib/libcublas.so.12", src);
    snprintf(id, sizeof id, "framework_lib:%s:libcudnn.so.9", torch + 10);
    e = gd_report_add_entity(r, "framework_lib", id);
    gd_fact_str(e, "framework", torch, src);
    gd_fact_str(e, "soname", "libcudnn.so.9", src);
    gd_fact_str(e, "path", "/opt/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9",
                src);
    /* A framework whose copy is the system's, and one whose entity is not in the report. */
    e = gd_report_add_entity(r, "framework_lib", "framework_lib:/usr/lib/jax:libcublas.so.12");
    gd_fact_str(e, "framework", "framework:/usr/lib/python3/dist-packages/jaxlib-0.4.30.dist-info",
                src);
    gd_fact_str(e, "soname", "libcublas.so.12", src);
    gd_fact_str(e, "path", "/usr/lib/x86_64-linux-gnu/libcublas.so.12", src);
    return r;
}

static void test_copies(void **state)
{
    (void)state;
    struct gd_report *r = report();
    struct gd_smoke_copy copies[8];
    size_t n = gd_smoke_copies(r, "libcublas.so.", copies, 8);
    assert_int_equal(n, 2);
    assert_string_equal(copies[0].path, "/usr/lib/x86_64-linux-gnu/libcublas.so.12");
    assert_string_equal(copies[0].used_by,
                        "the loader's choice for libcublas.so.12; "
                        "framework:/usr/lib/python3/dist-packages/jaxlib-0.4.30.dist-info");
    assert_string_equal(copies[1].path,
                        "/opt/venv/lib/python3.11/site-packages/nvidia/cublas/lib/libcublas.so.12");
    assert_string_equal(copies[1].used_by, "torch 2.4.0 in /opt/venv");
    /* The loader finds no cuDNN; torch's own copy is still tested. */
    n = gd_smoke_copies(r, "libcudnn.so.", copies, 8);
    assert_int_equal(n, 1);
    assert_string_equal(copies[0].used_by, "torch 2.4.0 in /opt/venv");
    assert_int_equal(gd_smoke_copies(r, "libnccl.so.", copies, 8), 0);
    /* The cap. */
    assert_int_equal(gd_smoke_copies(r, "libcublas.so.", copies, 1), 1);
    gd_report_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ptx_assembles),
        cmocka_unit_test(test_ptx_interface),
        cmocka_unit_test(test_copies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
