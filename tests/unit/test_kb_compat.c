/*
 * The typed lookups of src/kb/compat.h over the embedded compatibility tables, and over small
 * --kb override tables for what the shipped ones cannot show (missing tables, unparsable fields).
 * Expected values are the ones the tables' sources state (see test_kb_tables.c and docs/kb.md).
 */
#define _GNU_SOURCE
#include "kb/compat.h"
#include "kb/gpus.h"
#include "kb/kb.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

static struct gd_kb *kb;

static int setup(void **state)
{
    (void)state;
    return gd_kb_open(NULL, &kb) == GD_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gd_kb_free(kb);
    return 0;
}

static struct gd_version ver(const char *s)
{
    struct gd_version v;
    if (gd_version_parse(s, &v) != GD_OK)
        fail_msg("\"%s\" is not a version", s);
    return v;
}

static void expect_ver(const struct gd_version *got, const char *want)
{
    struct gd_version w = ver(want);
    if (gd_version_cmp(got, &w) != 0 || got->nparts != w.nparts)
        fail_msg("got %s, want %s", got->text, want);
}

/* ---- CUDA -> driver ------------------------------------------------------------------------ */

static void test_cuda_min_driver(void **state)
{
    (void)state;
    struct gd_kb_cuda_driver d;
    struct gd_version v;

    /* 12.4: the GA's 550.54.14 (not Update 1's 550.54.15); minor compatibility >= 525. */
    v = ver("12.4");
    assert_int_equal(gd_kb_cuda_min_driver(kb, &v, GD_KB_OS_LINUX, &d), GD_OK);
    assert_true(d.has_toolkit && d.has_compat);
    expect_ver(&d.toolkit_min, "550.54.14");
    expect_ver(&d.compat_min, "525");
    assert_string_equal(gd_kb_str(d.toolkit_row, "label"), "CUDA 12.4 GA");
    assert_non_null(gd_kb_source_url(d.table, gd_kb_row_source(d.toolkit_row)));
    /* A runtime version with a patch no 12.x row names still takes the GA. */
    v = ver("12.4.127");
    assert_int_equal(gd_kb_cuda_min_driver(kb, &v, GD_KB_OS_LINUX, &d), GD_OK);
    expect_ver(&d.toolkit_min, "550.54.14");
    /* 11.0.3 is named by a row: 450.51.06, not the RC's 450.36.06; 11.0 takes the lowest. */
    v = ver("11.0.3");
    assert_int_equal(gd_kb_cuda_min_driver(kb, &v, GD_KB_OS_LINUX, &d), GD_OK);
    expect_ver(&d.toolkit_min, "450.51.06");
    v = ver("11.0");
    assert_int_equal(gd_kb_cuda_min_driver(kb, &v, GD_KB_OS_LINUX, &d), GD_OK);
    expect_ver(&d.toolkit_min, "450.36.06");
    expect_ver(&d.compat_min, "450.80.02");
    /* Windows: 11.x has a family minimum (452.39), 12.x none in the table. */
    v = ver("11.8");
    assert_int_equal(gd_kb_cuda_min_driver(kb, &v, GD_KB_OS_WINDOWS, &d), GD_OK);
    expect_ver(&d.toolkit_min, "520.06");
    expect_ver(&d.compat_min, "452.39");
    v = ver("12.1");
    assert_int_equal(gd_kb_cuda_min_driver(kb, &v, GD_KB_OS_WINDOWS, &d), GD_OK);
    expect_ver(&d.toolkit_min, "531.14");
    assert_false(d.has_compat);
    assert_non_null(d.compat_row);
    /* CUDA 10.x: no minor version compatibility. */
    v = ver("10.2");
    assert_int_equal(gd_kb_cuda_min_driver(kb, &v, GD_KB_OS_WINDOWS, &d), GD_OK);
    expect_ver(&d.toolkit_min, "441.22");
    assert_false(d.has_compat);
    assert_null(d.compat_row);
    /* CUDA 13 on Windows: N/A in the table, and no Windows family minimum. */
    v = ver("13.0");
    assert_int_equal(gd_kb_cuda_min_driver(kb, &v, GD_KB_OS_WINDOWS, &d), GD_ENOENT);
    assert_false(d.has_toolkit || d.has_compat);
    v = ver("99.1");
    assert_int_equal(gd_kb_cuda_min_driver(kb, &v, GD_KB_OS_LINUX, &d), GD_ENOENT);
    assert_int_equal(gd_kb_cuda_min_driver(kb, NULL, GD_KB_OS_LINUX, &d), GD_EINVAL);
    assert_int_equal(gd_kb_cuda_min_driver(NULL, &v, GD_KB_OS_LINUX, &d), GD_EINVAL);
    assert_int_equal(gd_kb_cuda_min_driver(kb, &v, GD_KB_OS_LINUX, NULL), GD_EINVAL);
}

static void test_driver_meets(void **state)
{
    (void)state;
    static const struct {
        const char *have, *min;
        enum gd_kb_answer want;
    } cases[] = {
        { "535.104.05", "535.54.03", GD_KB_YES },
        { "535.54.03", "535.54.03", GD_KB_YES },
        { "535.54.02", "535.54.03", GD_KB_NO },
        { "470.82", "470.82.01", GD_KB_UNKNOWN },
        { "470.82", "470.82.00", GD_KB_YES },
        { "470.82", "470.57.02", GD_KB_YES },
        { "470", "470.82.01", GD_KB_UNKNOWN },
        { "469", "470", GD_KB_NO },
        { "525", "525", GD_KB_YES },
        { "525.60.13", "525", GD_KB_YES },
        { "551.61", "551.78", GD_KB_NO },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct gd_version h = ver(cases[i].have), m = ver(cases[i].min);
        if (gd_kb_driver_meets(&h, &m) != cases[i].want)
            fail_msg("%s against %s: %d, want %d", cases[i].have, cases[i].min,
                     gd_kb_driver_meets(&h, &m), cases[i].want);
    }
    struct gd_version v = ver("1");
    assert_int_equal(gd_kb_driver_meets(NULL, &v), GD_KB_UNKNOWN);
}

static void test_driver_runs_cuda(void **state)
{
    (void)state;
    static const struct {
        const char *driver, *cuda;
        enum gd_kb_os os;
        enum gd_kb_driver_fit want;
    } cases[] = {
        { "535.104.05", "12.2", GD_KB_OS_LINUX, GD_KB_FIT_TOOLKIT },
        { "530.30.02", "12.4", GD_KB_OS_LINUX, GD_KB_FIT_MINOR_COMPAT },
        { "525.60.13", "12.9", GD_KB_OS_LINUX, GD_KB_FIT_MINOR_COMPAT },
        { "520.61.05", "12.0", GD_KB_OS_LINUX, GD_KB_FIT_NO },
        { "470.82.01", "11.8", GD_KB_OS_LINUX, GD_KB_FIT_MINOR_COMPAT },
        { "450.51.06", "11.8", GD_KB_OS_LINUX, GD_KB_FIT_NO },
        { "440.33", "10.2", GD_KB_OS_LINUX, GD_KB_FIT_TOOLKIT },
        { "418.39", "10.2", GD_KB_OS_LINUX, GD_KB_FIT_NO },
        { "575.51.03", "13.0", GD_KB_OS_LINUX, GD_KB_FIT_NO },
        { "580.65.06", "13.2", GD_KB_OS_LINUX, GD_KB_FIT_MINOR_COMPAT },
        { "600", "13.2", GD_KB_OS_LINUX, GD_KB_FIT_TOOLKIT },
        { "528.33", "12.4", GD_KB_OS_WINDOWS, GD_KB_FIT_UNKNOWN },
        { "551.61", "12.4", GD_KB_OS_WINDOWS, GD_KB_FIT_TOOLKIT },
        { "460.89", "11.8", GD_KB_OS_WINDOWS, GD_KB_FIT_MINOR_COMPAT },
        { "600", "99.0", GD_KB_OS_LINUX, GD_KB_FIT_UNKNOWN },
        /* Drivers written short: "470.82" is above 11.4's GA minimum 470.42.01; "450.80" may be
         * below 450.80.02; "525" meets the 12 family's ">= 525" but not surely 525.60.13. */
        { "470.82", "11.4", GD_KB_OS_LINUX, GD_KB_FIT_TOOLKIT },
        { "450.80", "11.8", GD_KB_OS_LINUX, GD_KB_FIT_UNKNOWN },
        { "525", "12.0", GD_KB_OS_LINUX, GD_KB_FIT_MINOR_COMPAT },
        { "410", "10.0", GD_KB_OS_LINUX, GD_KB_FIT_UNKNOWN },
        { "410.47", "10.0", GD_KB_OS_LINUX, GD_KB_FIT_NO },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct gd_version d = ver(cases[i].driver), c = ver(cases[i].cuda);
        struct gd_kb_cuda_driver why;
        enum gd_kb_driver_fit got = gd_kb_driver_runs_cuda(kb, &d, &c, cases[i].os, &why);
        if (got != cases[i].want)
            fail_msg("driver %s, CUDA %s: fit %d, want %d", cases[i].driver, cases[i].cuda, got,
                     cases[i].want);
        assert_int_equal(gd_kb_driver_runs_cuda(kb, &d, &c, cases[i].os, NULL), got);
    }
    struct gd_version c = ver("12.4");
    assert_int_equal(gd_kb_driver_runs_cuda(kb, NULL, &c, GD_KB_OS_LINUX, NULL), GD_KB_FIT_UNKNOWN);
}

static void test_forward_compat(void **state)
{
    (void)state;
    const struct gd_kb_row *row = gd_kb_forward_compat(kb);
    assert_non_null(row);
    assert_string_equal(gd_kb_str(row, "package"), "cuda-compat-<major>-<minor>");
    const struct gd_kb_table *gpus = gd_kb_table(kb, "gpus");
    static const struct {
        const char *model;
        enum gd_kb_answer want;
    } cases[] = {
        { "NVIDIA A100-SXM4-80GB", GD_KB_YES }, { "Tesla K80", GD_KB_YES },
        { "Jetson AGX Orin", GD_KB_YES },       { "NVIDIA GeForce RTX 4090", GD_KB_UNKNOWN },
        { "NVIDIA RTX A6000", GD_KB_UNKNOWN },  { "NVIDIA GeForce GTX 1080", GD_KB_NO },
        { "Quadro P1000", GD_KB_NO },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct gd_kb_row *gpu = gd_kb_gpu_find(gpus, cases[i].model, NULL);
        if (!gpu)
            fail_msg("no gpus row for %s", cases[i].model);
        if (gd_kb_forward_compat_gpu(kb, gpu) != cases[i].want)
            fail_msg("%s: %d", cases[i].model, gd_kb_forward_compat_gpu(kb, gpu));
    }
    assert_int_equal(gd_kb_forward_compat_gpu(kb, NULL), GD_KB_UNKNOWN);
    assert_null(gd_kb_forward_compat(NULL));
}

/* ---- CUDA -> compute capability ------------------------------------------------------------ */

static void test_cuda_supports_cc(void **state)
{
    (void)state;
    static const struct {
        const char *cuda, *cc;
        enum gd_kb_answer want;
    } cases[] = {
        { "11.8", "3.5", GD_KB_YES },
        { "11.8", "3.7", GD_KB_YES },
        { "12.0", "3.7", GD_KB_NO },
        { "12.4", "3.5", GD_KB_NO },
        { "10.2", "3.0", GD_KB_YES },
        { "11.0", "3.0", GD_KB_NO },
        { "12.8", "12.0", GD_KB_YES },
        { "12.6", "12.0", GD_KB_NO },
        { "12.9", "6.1", GD_KB_YES },
        { "13.0", "6.1", GD_KB_NO },
        { "13.2", "7.5", GD_KB_YES },
        { "13.0", "5.2", GD_KB_NO },
        { "13.0", "11.0", GD_KB_YES },
        { "12.9", "11.0", GD_KB_NO },
        { "12.9", "10.1", GD_KB_YES },
        { "13.0", "10.1", GD_KB_NO },
        { "10.0", "8.0", GD_KB_NO },
        { "11.0.3", "8.0", GD_KB_YES },
        { "8.0", "6.1", GD_KB_YES },
        { "7.5", "6.1", GD_KB_NO },
        /* Before the oldest toolkit the sources track; 7.2 has no "added" (CMake and LLVM
         * disagree) but is dropped by 13.0; 8.8 has no event at all. */
        { "6.5", "3.5", GD_KB_UNKNOWN },
        { "11.0", "7.2", GD_KB_UNKNOWN },
        { "13.0", "7.2", GD_KB_NO },
        { "13.0", "8.8", GD_KB_UNKNOWN },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct gd_version cuda = ver(cases[i].cuda), cc = ver(cases[i].cc);
        const struct gd_kb_row *why = (const struct gd_kb_row *)1;
        enum gd_kb_answer got = gd_kb_cuda_supports_cc(kb, &cuda, &cc, &why);
        if (got != cases[i].want)
            fail_msg("CUDA %s, cc %s: %d, want %d", cases[i].cuda, cases[i].cc, got, cases[i].want);
        if (got == GD_KB_UNKNOWN ? why != NULL : why == NULL)
            fail_msg("CUDA %s, cc %s: the deciding row", cases[i].cuda, cases[i].cc);
    }
    struct gd_version cuda = ver("12.0"), cc = ver("3.5");
    const struct gd_kb_row *why;
    gd_kb_cuda_supports_cc(kb, &cuda, &cc, &why);
    assert_string_equal(gd_kb_str(why, "event"), "dropped");
    assert_string_equal(gd_kb_str(why, "cuda"), "12.0");
    assert_int_equal(gd_kb_cuda_supports_cc(kb, NULL, &cc, NULL), GD_KB_UNKNOWN);
}

/* ---- cuDNN ---------------------------------------------------------------------------------- */

static void test_cudnn_supports_cuda(void **state)
{
    (void)state;
    static const struct {
        const char *cudnn, *cuda;
        enum gd_kb_answer want;
    } cases[] = {
        { "9.1.0.70", "11.8", GD_KB_YES },
        { "9.1.0.70", "12.4", GD_KB_UNKNOWN }, /* the 12.x list was lost in the copy */
        { "8.9.6", "12.2", GD_KB_YES },
        { "8.9.6", "12.3", GD_KB_NO },
        { "8.9", "12.2", GD_KB_YES },          /* 8.9 matches the 8.9.5 and 8.9.6 rows */
        { "8.9.7.29", "12.2", GD_KB_UNKNOWN }, /* 8.9.7 is not in the table */
        { "9.10.2.21", "13.0", GD_KB_NO },
        { "9.10.2", "12.9", GD_KB_YES },
        { "9.10.2", "11.2", GD_KB_UNKNOWN }, /* its 11.x list is incomplete */
        { "9.17.0", "13.1", GD_KB_YES },
        { "9.17.0", "11.8", GD_KB_NO },
        { "7.6.5", "10.1.243", GD_KB_YES },
        { "7.6.5", "11.0", GD_KB_NO },
        { "8.2.1", "11.4", GD_KB_NO }, /* 8.2.0 - 8.2.1 stop at 11.3 */
        { "8.2.2", "11.4", GD_KB_YES },
        { "1.0", "10.0", GD_KB_UNKNOWN },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct gd_version d = ver(cases[i].cudnn), c = ver(cases[i].cuda);
        const struct gd_kb_row *why = (const struct gd_kb_row *)1;
        enum gd_kb_answer got = gd_kb_cudnn_supports_cuda(kb, &d, &c, &why);
        if (got != cases[i].want)
            fail_msg("cuDNN %s, CUDA %s: %d, want %d", cases[i].cudnn, cases[i].cuda, got,
                     cases[i].want);
        if ((got == GD_KB_YES) != (why != NULL))
            fail_msg("cuDNN %s, CUDA %s: the row", cases[i].cudnn, cases[i].cuda);
    }
}

static void test_cudnn_requirements(void **state)
{
    (void)state;
    struct gd_kb_cudnn_req r;
    struct gd_version d = ver("9.10.2"), c = ver("12.8"), cc = ver("12.0");
    /* Blackwell needs the 12.8/12.9 package row: >= 570.26. */
    assert_int_equal(gd_kb_cudnn_requirements(kb, &d, &c, &cc, GD_KB_OS_LINUX, &r), GD_OK);
    assert_int_equal(r.cuda, GD_KB_YES);
    assert_int_equal(r.cc, GD_KB_YES);
    expect_ver(&r.driver_min, "570.26");
    /* An Ampere GPU with the same CUDA: the lowest row that supports 8.6, >= 525.60.13. */
    cc = ver("8.6");
    assert_int_equal(gd_kb_cudnn_requirements(kb, &d, &c, &cc, GD_KB_OS_LINUX, &r), GD_OK);
    expect_ver(&r.driver_min, "525.60.13");
    assert_int_equal(gd_kb_cudnn_requirements(kb, &d, &c, NULL, GD_KB_OS_WINDOWS, &r), GD_OK);
    expect_ver(&r.driver_min, "527.41");
    assert_int_equal(r.cc, GD_KB_UNKNOWN);
    /* cuDNN 9.17 for CUDA 13 has no Volta; its Windows driver is N/A. */
    d = ver("9.17.0");
    c = ver("13.0");
    cc = ver("7.0");
    assert_int_equal(gd_kb_cudnn_requirements(kb, &d, &c, &cc, GD_KB_OS_LINUX, &r), GD_OK);
    assert_int_equal(r.cc, GD_KB_NO);
    assert_false(r.has_driver);
    assert_int_equal(gd_kb_cudnn_requirements(kb, &d, &c, NULL, GD_KB_OS_WINDOWS, &r), GD_OK);
    assert_false(r.has_driver);
    /* cc_min rows: 8.2.2 with CUDA 11.2 is "SM 3.5 and later", r450 at least. */
    d = ver("8.2.2");
    c = ver("11.2");
    cc = ver("3.5");
    assert_int_equal(gd_kb_cudnn_requirements(kb, &d, &c, &cc, GD_KB_OS_LINUX, &r), GD_OK);
    assert_int_equal(r.cc, GD_KB_YES);
    expect_ver(&r.driver_min, "450");
    cc = ver("3.0");
    assert_int_equal(gd_kb_cudnn_requirements(kb, &d, &c, &cc, GD_KB_OS_LINUX, &r), GD_OK);
    assert_int_equal(r.cc, GD_KB_NO);
    /* 7.6.x rows give no compute capabilities. */
    d = ver("7.6.5");
    c = ver("10.1");
    cc = ver("6.1");
    assert_int_equal(gd_kb_cudnn_requirements(kb, &d, &c, &cc, GD_KB_OS_LINUX, &r), GD_OK);
    assert_int_equal(r.cc, GD_KB_UNKNOWN);
    expect_ver(&r.driver_min, "418.39");
    assert_int_equal(gd_kb_cudnn_requirements(kb, NULL, &c, &cc, GD_KB_OS_LINUX, &r), GD_EINVAL);
}

/* ---- TensorFlow ----------------------------------------------------------------------------- */

static void test_tf_build(void **state)
{
    (void)state;
    struct gd_kb_tf_build b;
    struct gd_version v = ver("2.15.0");
    assert_int_equal(gd_kb_tf_build(kb, &v, GD_KB_OS_LINUX, &b), GD_OK);
    expect_ver(&b.cuda, "12.2");
    expect_ver(&b.cudnn, "8.9");
    assert_string_equal(b.python, "3.9-3.11");
    /* A patch release takes its minor's tested row; a local label is ignored. */
    v = ver("2.16.2");
    assert_int_equal(gd_kb_tf_build(kb, &v, GD_KB_OS_LINUX, &b), GD_OK);
    expect_ver(&b.tensorflow, "2.16.1");
    expect_ver(&b.cuda, "12.3");
    v = ver("2.4.1+local");
    assert_int_equal(gd_kb_tf_build(kb, &v, GD_KB_OS_LINUX, &b), GD_OK);
    expect_ver(&b.cuda, "11.0");
    v = ver("2.5.3");
    assert_int_equal(gd_kb_tf_build(kb, &v, GD_KB_OS_WINDOWS, &b), GD_OK);
    expect_ver(&b.cuda, "11.2");
    assert_string_equal(gd_kb_str(b.row, "compiler"), "MSVC 2019");
    /* Windows rows were read up to 2.6.0. */
    v = ver("2.10.0");
    assert_int_equal(gd_kb_tf_build(kb, &v, GD_KB_OS_WINDOWS, &b), GD_ENOENT);
    assert_null(b.row);
    v = ver("3.0");
    assert_int_equal(gd_kb_tf_build(kb, &v, GD_KB_OS_LINUX, &b), GD_ENOENT);

    struct gd_version last;
    const struct gd_kb_row *row;
    assert_int_equal(gd_kb_tf_last_native_windows_gpu(kb, &last, &row), GD_OK);
    expect_ver(&last, "2.10");
    assert_string_equal(gd_kb_row_source(row), "tf-release-2.11.1");
    assert_int_equal(gd_kb_tf_last_native_windows_gpu(kb, &last, NULL), GD_OK);
}

/* ---- PyTorch -------------------------------------------------------------------------------- */

static void test_torch_variants(void **state)
{
    (void)state;
    struct gd_kb_torch_variant out[GD_KB_TORCH_VARIANTS_MAX];
    size_t n;
    /* 2.1.0: cu118 (stable, cuDNN 8.7.0.84) and cu121 (experimental, 8.9.2.26). */
    struct gd_version v = ver("2.1.0+cu121");
    assert_int_equal(gd_kb_torch_variants(kb, &v, out, GD_KB_TORCH_VARIANTS_MAX, &n), GD_OK);
    assert_int_equal(n, 2);
    assert_string_equal(out[0].tag, "cu118");
    expect_ver(&out[0].cudnn, "8.7.0.84");
    assert_int_equal(out[0].stable, GD_KB_YES);
    assert_string_equal(out[1].tag, "cu121");
    expect_ver(&out[1].cudnn, "8.9.2.26");
    assert_int_equal(out[1].stable, GD_KB_NO);
    assert_string_equal(gd_kb_str(out[1].row, "kind"), "release");
    /* 2.5.1 has no release row: the matrix's three variants with cuDNN 9.1.0.70. */
    v = ver("2.5.1");
    assert_int_equal(gd_kb_torch_variants(kb, &v, out, GD_KB_TORCH_VARIANTS_MAX, &n), GD_OK);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++) {
        assert_true(out[i].has_cudnn);
        expect_ver(&out[i].cudnn, "9.1.0.70");
    }
    assert_string_equal(out[2].tag, "cu124");
    /* 1.12.1's pip commands include cu102, which the matrix does not list. */
    v = ver("1.12.1");
    assert_int_equal(gd_kb_torch_variants(kb, &v, out, GD_KB_TORCH_VARIANTS_MAX, &n), GD_OK);
    assert_int_equal(n, 3);
    assert_string_equal(out[0].tag, "cu102");
    assert_false(out[0].has_cudnn);
    assert_int_equal(out[0].stable, GD_KB_UNKNOWN);
    assert_string_equal(out[1].tag, "cu113");
    assert_int_equal(out[1].stable, GD_KB_YES);
    /* 2.6's CUDA 11.8 has no cuDNN in the matrix. */
    v = ver("2.6.0");
    assert_int_equal(gd_kb_torch_variants(kb, &v, out, GD_KB_TORCH_VARIANTS_MAX, &n), GD_OK);
    assert_string_equal(out[0].tag, "cu118");
    assert_false(out[0].has_cudnn);
    v = ver("1.9.0");
    assert_int_equal(gd_kb_torch_variants(kb, &v, out, GD_KB_TORCH_VARIANTS_MAX, &n), GD_OK);
    assert_int_equal(n, 2);
    assert_string_equal(out[1].tag, "cu111");
    /* Limits and unknowns. */
    v = ver("2.14.0");
    assert_int_equal(gd_kb_torch_variants(kb, &v, out, 2, &n), GD_ELIMIT);
    assert_int_equal(gd_kb_torch_variants(kb, &v, out, 3, &n), GD_OK);
    assert_string_equal(out[2].tag, "cu132");
    v = ver("0.4.1");
    assert_int_equal(gd_kb_torch_variants(kb, &v, out, GD_KB_TORCH_VARIANTS_MAX, &n), GD_ENOENT);
    assert_int_equal(n, 0);
    assert_int_equal(gd_kb_torch_variants(kb, &v, NULL, 1, &n), GD_EINVAL);
}

/* ---- Newest release for a driver ------------------------------------------------------------ */

static void test_newest_for_driver(void **state)
{
    (void)state;
    struct gd_kb_pick p;
    struct gd_version d = ver("450.80.02");
    /* Strictly by the toolkit drivers: CUDA 11.0 (450.36.06) is the newest it runs -> 2.4.0. */
    assert_int_equal(gd_kb_tf_newest_for_driver(kb, &d, GD_KB_OS_LINUX, false, &p), GD_OK);
    expect_ver(&p.release, "2.4.0");
    assert_int_equal(p.fit, GD_KB_FIT_TOOLKIT);
    /* With minor version compatibility every 11.x build: 2.14.0 (CUDA 11.8). */
    assert_int_equal(gd_kb_tf_newest_for_driver(kb, &d, GD_KB_OS_LINUX, true, &p), GD_OK);
    expect_ver(&p.release, "2.14.0");
    expect_ver(&p.cuda, "11.8");
    assert_int_equal(p.fit, GD_KB_FIT_MINOR_COMPAT);
    d = ver("525.60.13");
    assert_int_equal(gd_kb_tf_newest_for_driver(kb, &d, GD_KB_OS_LINUX, true, &p), GD_OK);
    expect_ver(&p.release, "2.18.0");
    assert_int_equal(gd_kb_tf_newest_for_driver(kb, &d, GD_KB_OS_LINUX, false, &p), GD_OK);
    expect_ver(&p.release, "2.14.0");
    d = ver("410.48");
    assert_int_equal(gd_kb_tf_newest_for_driver(kb, &d, GD_KB_OS_LINUX, true, &p), GD_OK);
    expect_ver(&p.release, "2.0.0");
    d = ver("300");
    assert_int_equal(gd_kb_tf_newest_for_driver(kb, &d, GD_KB_OS_LINUX, true, &p), GD_ENOENT);

    /* PyTorch: a 470 driver runs the CUDA 11.8 wheels through minor version compatibility
     * (2.7 is the last minor with one); by the toolkit drivers only 1.12's cu113. */
    d = ver("470.82.01");
    assert_int_equal(gd_kb_torch_newest_for_driver(kb, &d, GD_KB_OS_LINUX, true, &p), GD_OK);
    expect_ver(&p.release, "2.7");
    expect_ver(&p.cuda, "11.8");
    assert_int_equal(gd_kb_torch_newest_for_driver(kb, &d, GD_KB_OS_LINUX, false, &p), GD_OK);
    expect_ver(&p.release, "1.12");
    expect_ver(&p.cuda, "11.3");
    d = ver("600");
    assert_int_equal(gd_kb_torch_newest_for_driver(kb, &d, GD_KB_OS_LINUX, false, &p), GD_OK);
    expect_ver(&p.release, "2.14");
    expect_ver(&p.cuda, "13.2");
    assert_string_equal(gd_kb_str(p.row, "kind"), "wheel");
    assert_int_equal(gd_kb_torch_newest_for_driver(kb, NULL, GD_KB_OS_LINUX, false, &p), GD_EINVAL);
}

/* ---- Lists for the compat command ------------------------------------------------------------ */

static void test_lists(void **state)
{
    (void)state;
    struct gd_version v[128];
    /* cuda-rn-13.2.2's Table 3: 13.2 is the newest, 7.0 the oldest; 12.7 does not exist. */
    size_t n = gd_kb_cuda_versions(kb, v, 128);
    assert_true(n >= 30 && n <= 128);
    expect_ver(&v[0], "13.2");
    expect_ver(&v[n - 1], "7.0");
    for (size_t i = 0; i < n; i++)
        assert_false(strcmp(v[i].text, "12.7") == 0);
    assert_int_equal(gd_kb_cuda_versions(kb, v, 2), n);
    expect_ver(&v[1], "13.1");
    /* cuda_arch names 2.0 (the lowest) to 12.1, 7.2 among them (CUDA 13.0 drops it). */
    n = gd_kb_arch_ccs(kb, v, 128);
    expect_ver(&v[0], "2.0");
    expect_ver(&v[n - 1], "12.1");
    bool has72 = false;
    for (size_t i = 0; i < n; i++)
        has72 = has72 || strcmp(v[i].text, "7.2") == 0;
    assert_true(has72);

    /* cuDNN 8.9: the 8.9.6 and 8.9.5 packages, CUDA 12 before CUDA 11 for each. */
    struct gd_kb_cudnn_build b[16];
    struct gd_version c = ver("8.9");
    assert_int_equal(gd_kb_cudnn_builds(kb, &c, b, 16), 4);
    expect_ver(&b[0].cudnn, "8.9.6");
    assert_int_equal(b[0].cuda_major, 12);
    assert_int_equal(b[0].ncuda, 3);
    expect_ver(&b[0].cuda[2], "12.2");
    assert_true(b[0].has_driver_linux);
    expect_ver(&b[0].driver_linux, "525.60.13");
    expect_ver(&b[0].driver_windows, "527.41");
    assert_int_equal(b[0].ncc, 9);
    expect_ver(&b[1].cudnn, "8.9.6");
    assert_int_equal(b[1].cuda_major, 11);
    expect_ver(&b[3].cudnn, "8.9.5");
    /* 8.2.0 - 8.2.1: a range, cc_min rather than a list. */
    c = ver("8.2.1");
    size_t k = gd_kb_cudnn_builds(kb, &c, b, 16);
    assert_int_equal(k, 5);
    expect_ver(&b[0].cudnn_last, "8.2.1");
    assert_true(b[0].has_cc_min);
    assert_int_equal(b[0].ncc, 0);
    /* 9.1.0 for CUDA 12: the list was lost in the stored copy. */
    c = ver("9.1.0");
    k = gd_kb_cudnn_builds(kb, &c, b, 16);
    assert_int_equal(k, 2);
    assert_int_equal(b[0].cuda_major, 12);
    assert_false(b[0].cuda_list_complete);
    /* All packages; a capacity too small keeps the count. */
    size_t all = gd_kb_cudnn_builds(kb, NULL, b, 16);
    assert_true(all >= 40);
    assert_int_equal(gd_kb_cudnn_builds(kb, NULL, NULL, 0), all);
    c = ver("6.0");
    assert_int_equal(gd_kb_cudnn_builds(kb, &c, b, 16), 0);

    /* torch-release-matrix: "2.1 | >=3.8, <=3.11". */
    c = ver("2.1.2");
    assert_string_equal(gd_kb_str(gd_kb_torch_matrix(kb, &c), "python"), ">=3.8, <=3.11");
    c = ver("1.9");
    assert_null(gd_kb_torch_matrix(kb, &c));
}

/* ---- JAX, CuPy, ONNX Runtime ---------------------------------------------------------------- */

static void test_jax_cupy_ort(void **state)
{
    (void)state;
    struct gd_kb_jax_plugin j;
    assert_int_equal(gd_kb_jax_plugin(kb, 13, &j), GD_OK);
    assert_string_equal(j.plugin, "jax-cuda13-plugin");
    expect_ver(&j.driver_min, "580");
    expect_ver(&j.cc_min, "7.5");
    expect_ver(&j.cudnn_below, "10.0");
    /* The current CUDA 12 row (cuDNN 9.8), not the 2024 one (9.1). */
    assert_int_equal(gd_kb_jax_plugin(kb, 12, &j), GD_OK);
    expect_ver(&j.cudnn_min, "9.8");
    expect_ver(&j.cuda_min, "12.1");
    assert_int_equal(gd_kb_jax_plugin(kb, 11, &j), GD_ENOENT);

    static const struct {
        const char *cupy, *cuda;
        enum gd_kb_answer want;
    } cupy[] = {
        { "13.2.0", "12.4", GD_KB_YES },     { "13.2.0", "12.5", GD_KB_NO },
        { "14.0.1", "13.0", GD_KB_YES },     { "14.0.1", "11.8", GD_KB_NO },
        { "12.0.0", "12.0", GD_KB_UNKNOWN }, { "8.6.0", "9.1", GD_KB_NO },
        { "8.6.0", "10.2.89", GD_KB_YES },
    };
    for (size_t i = 0; i < sizeof cupy / sizeof *cupy; i++) {
        struct gd_version a = ver(cupy[i].cupy), c = ver(cupy[i].cuda);
        if (gd_kb_cupy_supports_cuda(kb, &a, &c, NULL) != cupy[i].want)
            fail_msg("CuPy %s, CUDA %s", cupy[i].cupy, cupy[i].cuda);
    }

    struct gd_version o = ver("1.18.1");
    const struct gd_kb_row *r = gd_kb_ort_build(kb, &o, 12);
    assert_string_equal(gd_kb_str(r, "cudnn_major"), "9");
    r = gd_kb_ort_build(kb, &o, 11);
    assert_string_equal(gd_kb_str(r, "cuda"), "11.8");
    o = ver("1.18.0");
    assert_string_equal(gd_kb_str(gd_kb_ort_build(kb, &o, 12), "cudnn_major"), "8");
    o = ver("1.16.3");
    assert_string_equal(gd_kb_str(gd_kb_ort_build(kb, &o, 11), "cudnn_linux"), "8.2.4");
    assert_null(gd_kb_ort_build(kb, &o, 12));
    o = ver("2.0");
    assert_null(gd_kb_ort_build(kb, &o, 12));
}

/* ---- Broken or missing tables: no answer is guessed ----------------------------------------- */

#define T(name, src, rows)                                                                    \
    "{\"table\": \"" name "\", \"format\": 1, \"sources\": {\"s\": {\"url\": \"" src "\"}}, " \
    "\"rows\": " rows "}"

static void test_broken_tables(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("kbcompat");
    /* A driver row whose minimum does not parse, a family row without a minimum. */
    tu_write(dir, "cuda_toolkit.json",
             T("cuda_toolkit", "https://x.example/",
               "[{\"kind\": \"driver\", \"cuda\": \"12.4\", \"label\": \"l\", \"linux\": \"new\", "
               "\"source\": \"s\"}, {\"kind\": \"minor_compat\", \"cuda_major\": \"12\", "
               "\"source\": \"s\"}]"));
    tu_write(dir, "cuda_arch.json", T("cuda_arch", "https://x.example/", "[]"));
    tu_write(dir, "tf_builds.json",
             T("tf_builds", "https://x.example/",
               "[{\"kind\": \"build\", \"tensorflow\": \"2.15.0\", \"os\": \"linux\", \"cuda\": "
               "\"twelve\", \"cudnn\": \"8.9\", \"source\": \"s\"}]"));
    tu_write(dir, "jax_builds.json",
             T("jax_builds", "https://x.example/",
               "[{\"cuda_major\": \"12\", \"current\": true, \"cuda_min\": \"12.1\", \"source\": "
               "\"s\"}]"));
    struct gd_kb *k = NULL;
    assert_int_equal(gd_kb_open(dir, &k), GD_OK);
    struct gd_version v = ver("12.4"), d = ver("550.54.14"), cc = ver("8.0");
    struct gd_kb_cuda_driver cd;
    assert_int_equal(gd_kb_cuda_min_driver(k, &v, GD_KB_OS_LINUX, &cd), GD_ENOENT);
    assert_int_equal(gd_kb_driver_runs_cuda(k, &d, &v, GD_KB_OS_LINUX, NULL), GD_KB_FIT_UNKNOWN);
    assert_int_equal(gd_kb_cuda_supports_cc(k, &v, &cc, NULL), GD_KB_UNKNOWN);
    assert_null(gd_kb_forward_compat(k));
    struct gd_kb_tf_build b;
    v = ver("2.15.0");
    assert_int_equal(gd_kb_tf_build(k, &v, GD_KB_OS_LINUX, &b), GD_EFORMAT);
    struct gd_version last;
    assert_int_equal(gd_kb_tf_last_native_windows_gpu(k, &last, NULL), GD_ENOENT);
    struct gd_kb_jax_plugin j;
    assert_int_equal(gd_kb_jax_plugin(k, 12, &j), GD_EFORMAT);
    struct gd_kb_pick p;
    assert_int_equal(gd_kb_tf_newest_for_driver(k, &d, GD_KB_OS_LINUX, true, &p), GD_ENOENT);
    gd_kb_free(k);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuda_min_driver),
        cmocka_unit_test(test_driver_meets),
        cmocka_unit_test(test_driver_runs_cuda),
        cmocka_unit_test(test_forward_compat),
        cmocka_unit_test(test_cuda_supports_cc),
        cmocka_unit_test(test_cudnn_supports_cuda),
        cmocka_unit_test(test_cudnn_requirements),
        cmocka_unit_test(test_tf_build),
        cmocka_unit_test(test_torch_variants),
        cmocka_unit_test(test_newest_for_driver),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_jax_cupy_ort),
        cmocka_unit_test(test_broken_tables),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
