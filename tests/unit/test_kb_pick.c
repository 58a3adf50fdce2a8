/*
 * Choosing framework builds for a machine (src/kb/pick.h) over the embedded tables: the best
 * build for a driver and GPUs, the install command of a build, and what stays unknown. Each
 * expected value follows from rows the sources state (docs/kb.md); the comments say which.
 */
#define _GNU_SOURCE
#include "kb/kb.h"
#include "kb/pick.h"

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

/* An environment: driver (NULL: none), os, and up to three compute capabilities. */
static struct gd_kb_env env_of(const char *driver, enum gd_kb_os os, const char *cc1,
                               const char *cc2)
{
    struct gd_kb_env e;
    memset(&e, 0, sizeof e);
    e.os = os;
    if (driver) {
        e.has_driver = true;
        e.driver = ver(driver);
    }
    if (cc1) {
        struct gd_version c = ver(cc1);
        assert_true(gd_kb_env_add_cc(&e, &c));
    }
    if (cc2) {
        struct gd_version c = ver(cc2);
        assert_true(gd_kb_env_add_cc(&e, &c));
    }
    return e;
}

#define CAP 160

/* The best PyTorch and TensorFlow build for a machine, and the command that installs it. */
static const struct {
    const char *name, *framework, *driver, *cc1, *cc2;
    enum gd_kb_os os;
    const char *release, *tag; /* NULL release: none surely runs */
    enum gd_kb_driver_fit fit;
    const char *install;
    bool exact;
} best_cases[] = {
    /* 470.82.01 reaches CUDA 11.4 (470.42.01) by the toolkit drivers: 1.12.1's cu113 is the
     * newest such wheel; a K80's 3.7 can still be built by CUDA 11.3. */
    { "K80 on 470", "torch", "470.82.01", "3.7", NULL, GD_KB_OS_LINUX, "1.12.1", "cu113",
      GD_KB_FIT_TOOLKIT,
      "pip install torch==1.12.1+cu113 --extra-index-url https://download.pytorch.org/whl/cu113",
      true },
    /* 535.104.05 reaches CUDA 12.2 (535.54.03) by the toolkit drivers; the newest minor with
     * a wheel of CUDA 12.2 or older is 2.7 (cu118; no release row: the index form). */
    { "RTX 3090 on 535", "torch", "535.104.05", "8.6", NULL, GD_KB_OS_LINUX, "2.7", "cu118",
      GD_KB_FIT_TOOLKIT,
      "pip install 'torch==2.7.*' --index-url https://download.pytorch.org/whl/cu118", false },
    /* 560.35.03 runs CUDA 12.6 (560.28.03), which every minor up to 2.14 publishes. */
    { "RTX 3090 on 560", "torch", "560.35.03", "8.6", NULL, GD_KB_OS_LINUX, "2.14", "cu126",
      GD_KB_FIT_TOOLKIT,
      "pip install 'torch==2.14.*' --index-url https://download.pytorch.org/whl/cu126", false },
    /* 580.65.06 is CUDA 13.0's GA driver: 2.14's cu130; CUDA 12.8 added 12.0. */
    { "RTX 5090 on 580", "torch", "580.65.06", "12.0", NULL, GD_KB_OS_LINUX, "2.14", "cu130",
      GD_KB_FIT_TOOLKIT,
      "pip install 'torch==2.14.*' --index-url https://download.pytorch.org/whl/cu130", false },
    /* Two GPUs: the H100 (9.0) and a K80 (3.7) together rule out every CUDA 12 wheel, and
     * CUDA 11.8 can build both: 2.7's cu118, whose CUDA 11.8 the 520.61.05 driver runs. */
    { "H100 and K80 on 520", "torch", "520.61.05", "9.0", "3.7", GD_KB_OS_LINUX, "2.7", "cu118",
      GD_KB_FIT_TOOLKIT,
      "pip install 'torch==2.7.*' --index-url https://download.pytorch.org/whl/cu118", false },
    /* Without a driver nothing surely runs. */
    { "no driver", "torch", NULL, "8.6", NULL, GD_KB_OS_LINUX, NULL, NULL, GD_KB_FIT_UNKNOWN, NULL,
      false },
    /* Too old for any wheel the tables know (CUDA 10.2 needs 440.33). */
    { "driver 418", "torch", "418.39", NULL, NULL, GD_KB_OS_LINUX, NULL, NULL, GD_KB_FIT_UNKNOWN,
      NULL, false },
    /* 450.80.02 runs CUDA 11.0 (450.36.06) by the toolkit drivers: TensorFlow 2.4.0. */
    { "TF on 450.80.02", "tensorflow", "450.80.02", "7.0", NULL, GD_KB_OS_LINUX, "2.4.0", "",
      GD_KB_FIT_TOOLKIT, "python3 -m pip install 'tensorflow==2.4.*'", false },
    /* 535.104.05 runs CUDA 12.2: TensorFlow 2.15.0, with the and-cuda extra (first seen in
     * 2.13.1). */
    { "TF on 535", "tensorflow", "535.104.05", "8.0", NULL, GD_KB_OS_LINUX, "2.15.0", "",
      GD_KB_FIT_TOOLKIT, "python3 -m pip install 'tensorflow[and-cuda]==2.15.*'", false },
    /* 525.60.13 runs CUDA 11.8 by its toolkit driver (520.61.05): 2.14.0; the 12.x builds only
     * through minor version compatibility, which is the second choice. */
    { "TF on 525", "tensorflow", "525.60.13", "7.5", NULL, GD_KB_OS_LINUX, "2.14.0", "",
      GD_KB_FIT_TOOLKIT, "python3 -m pip install 'tensorflow[and-cuda]==2.14.*'", false },
    /* A K80 under TensorFlow: every build from 2.15 on is CUDA 12; 2.14.0 (CUDA 11.8) is the
     * newest whose CUDA can still build for 3.7. */
    { "TF on a K80", "tensorflow", "600", "3.7", NULL, GD_KB_OS_LINUX, "2.14.0", "",
      GD_KB_FIT_TOOLKIT, "python3 -m pip install 'tensorflow[and-cuda]==2.14.*'", false },
    /* 410.48 is CUDA 10.0's driver: 2.0.0, the last build with it. */
    { "TF on 410.48", "tensorflow", "410.48", "7.5", NULL, GD_KB_OS_LINUX, "2.0.0", "",
      GD_KB_FIT_TOOLKIT, "python3 -m pip install 'tensorflow==2.0.*'", false },
    /* Native Windows: the Windows rows and the commands of the last GPU releases there. */
    { "TF on Windows 472", "tensorflow", "472.50", "7.5", NULL, GD_KB_OS_WINDOWS, "2.6.0", "",
      GD_KB_FIT_TOOLKIT,
      "conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0 && python -m pip install "
      "\"tensorflow<2.11\"",
      false },
};

static void test_best(void **state)
{
    (void)state;
    static struct gd_kb_choice list[CAP];
    for (size_t i = 0; i < sizeof best_cases / sizeof *best_cases; i++) {
        const __typeof__(best_cases[0]) *c = &best_cases[i];
        struct gd_kb_env e = env_of(c->driver, c->os, c->cc1, c->cc2);
        bool torch = strcmp(c->framework, "torch") == 0;
        size_t n =
            torch ? gd_kb_torch_choices(kb, &e, list, CAP) : gd_kb_tf_choices(kb, &e, list, CAP);
        assert_true(n >= 10 && n <= CAP);
        const struct gd_kb_choice *best = gd_kb_best_choice(list, n);
        if (!c->release) {
            if (best)
                fail_msg("%s: %s %s runs", c->name, best->release.text, best->tag);
            continue;
        }
        if (!best)
            fail_msg("%s: nothing runs", c->name);
        struct gd_version want = ver(c->release);
        if (gd_version_cmp(&best->release, &want) != 0 || strcmp(best->tag, c->tag) != 0)
            fail_msg("%s: %s %s, want %s %s", c->name, best->release.text, best->tag, c->release,
                     c->tag);
        if (best->fit != c->fit)
            fail_msg("%s: fit %d, want %d", c->name, best->fit, c->fit);
        char cmd[512];
        bool exact = false;
        const struct gd_kb_row *row = NULL;
        if (torch) {
            assert_int_equal(gd_kb_torch_pip(kb, best, cmd, sizeof cmd, &exact, &row), GD_OK);
        } else {
            enum gd_kb_tf_how how;
            assert_int_equal(gd_kb_tf_install(kb, best, c->os, cmd, sizeof cmd, &how, &row), GD_OK);
        }
        if (strcmp(cmd, c->install) != 0)
            fail_msg("%s: \"%s\", want \"%s\"", c->name, cmd, c->install);
        assert_int_equal(exact, c->exact);
        /* Every command names the row it comes from, and that row its source. */
        assert_non_null(row);
        const struct gd_kb_table *t = gd_kb_row_table(kb, row);
        assert_non_null(t);
        assert_non_null(gd_kb_source_url(t, gd_kb_row_source(row)));
    }
}

/* The list is ordered newest first, and each choice carries the minimums of its CUDA. */
static void test_order_and_needs(void **state)
{
    (void)state;
    static struct gd_kb_choice list[CAP];
    struct gd_kb_env e = env_of("470.82.01", GD_KB_OS_LINUX, "3.7", NULL);
    size_t n = gd_kb_torch_choices(kb, &e, list, CAP);
    for (size_t i = 1; i < n; i++) {
        int c = gd_version_cmp_parts(&list[i - 1].release, &list[i].release, 3);
        if (c < 0 || (c == 0 && gd_version_cmp(&list[i - 1].cuda, &list[i].cuda) <= 0))
            fail_msg("%zu: %s %s before %s %s", i, list[i - 1].release.text, list[i - 1].tag,
                     list[i].release.text, list[i].tag);
    }
    /* The newest: 2.14 cu132 (CUDA 13.2: GA driver 595.45.04, family >= 580), ruled out for
     * the driver and for the K80 (CUDA 12.0 dropped 3.7). */
    assert_string_equal(list[0].release.text, "2.14");
    assert_true(list[0].minor_only);
    assert_string_equal(list[0].tag, "cu132");
    assert_int_equal(list[0].fit, GD_KB_FIT_NO);
    assert_true(list[0].need.has_toolkit);
    assert_string_equal(list[0].need.toolkit_min.text, "595.45.04");
    assert_string_equal(list[0].need.compat_min.text, "580");
    assert_int_equal(list[0].cc, GD_KB_NO);
    assert_string_equal(list[0].cc_bad.text, "3.7");
    assert_string_equal(gd_kb_str(list[0].cc_row, "cuda"), "12.0");
    assert_int_equal(gd_kb_choice_runs(&list[0], true), GD_KB_NO);
    /* 2.7 cu118: through minor version compatibility only. */
    size_t k = 0;
    while (k < n &&
           !(strcmp(list[k].release.text, "2.7") == 0 && strcmp(list[k].tag, "cu118") == 0))
        k++;
    assert_true(k < n);
    assert_int_equal(list[k].fit, GD_KB_FIT_MINOR_COMPAT);
    assert_true(list[k].has_cudnn);
    assert_string_equal(list[k].cudnn.text, "9.1.0.70");
    assert_int_equal(gd_kb_choice_runs(&list[k], false), GD_KB_NO);
    assert_int_equal(gd_kb_choice_runs(&list[k], true), GD_KB_YES);
    /* The oldest: the variants of 1.9's newest release row, 1.9.1. */
    assert_string_equal(list[n - 1].release.text, "1.9.1");
    assert_string_equal(list[n - 1].tag, "cu102");
    assert_false(list[n - 1].minor_only);

    /* A capacity too small: the count is still the full one, the newest are kept. */
    struct gd_kb_choice few[3];
    assert_int_equal(gd_kb_torch_choices(kb, &e, few, 3), n);
    assert_string_equal(few[0].tag, "cu132");
    assert_int_equal(gd_kb_torch_choices(kb, &e, NULL, 0), n);
}

/* The variants of one release, for the fix of a CPU-only build. */
static void test_release_choices(void **state)
{
    (void)state;
    struct gd_kb_choice list[8];
    /* 2.1.0 on 525.60.13: cu121 needs 530.30.02 (minor compatibility only), cu118 runs. */
    struct gd_kb_env e = env_of("525.60.13", GD_KB_OS_LINUX, "8.6", NULL);
    struct gd_version v = ver("2.1.0+cpu");
    size_t n = gd_kb_torch_release_choices(kb, &e, &v, list, 8);
    assert_int_equal(n, 2);
    assert_string_equal(list[0].tag, "cu121");
    assert_int_equal(list[0].fit, GD_KB_FIT_MINOR_COMPAT);
    assert_string_equal(list[1].tag, "cu118");
    assert_int_equal(list[1].fit, GD_KB_FIT_TOOLKIT);
    const struct gd_kb_choice *best = gd_kb_best_choice(list, n);
    assert_ptr_equal(best, &list[1]);
    char cmd[256];
    bool exact;
    assert_int_equal(gd_kb_torch_pip(kb, best, cmd, sizeof cmd, &exact, NULL), GD_OK);
    assert_string_equal(
        cmd, "pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu118");
    assert_true(exact);
    assert_string_equal(list[1].cudnn.text, "8.7.0.84");

    /* 2.5.1 has no release row: the matrix's 2.5 variants, the index form with the version. */
    v = ver("2.5.1");
    n = gd_kb_torch_release_choices(kb, &e, &v, list, 8);
    assert_int_equal(n, 3);
    assert_string_equal(list[0].tag, "cu124");
    assert_false(list[0].minor_only);
    assert_int_equal(gd_kb_torch_pip(kb, &list[0], cmd, sizeof cmd, &exact, NULL), GD_OK);
    assert_string_equal(
        cmd, "pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124");
    assert_false(exact);
    /* Too small a buffer. */
    char tiny[16];
    assert_int_equal(gd_kb_torch_pip(kb, &list[0], tiny, sizeof tiny, &exact, NULL), GD_ELIMIT);
    assert_string_equal(tiny, "");

    /* A release the tables do not know. */
    v = ver("0.4.1");
    assert_int_equal(gd_kb_torch_release_choices(kb, &e, &v, list, 8), 0);
    /* 1.12 (a minor): its newest release row, 1.12.1, with CUDA 10.2 that the matrix lacks. */
    v = ver("1.12");
    n = gd_kb_torch_release_choices(kb, &e, &v, list, 8);
    assert_int_equal(n, 3);
    assert_string_equal(list[2].tag, "cu102");
    assert_string_equal(list[2].release.text, "1.12.1");
    /* 1.8 has no row and its era has no index form either: no command. */
    struct gd_kb_choice old;
    memset(&old, 0, sizeof old);
    old.release = ver("1.8.1");
    snprintf(old.tag, sizeof old.tag, "cu111");
    assert_int_equal(gd_kb_torch_pip(kb, &old, cmd, sizeof cmd, &exact, NULL), GD_ENOENT);
}

/* What stays unknown: a compute capability the tables do not track, a driver written short. */
static void test_unknowns(void **state)
{
    (void)state;
    static struct gd_kb_choice list[CAP];
    /* 7.2 (Jetson Xavier) has no event before CUDA 13.0 drops it. */
    struct gd_kb_env e = env_of("600", GD_KB_OS_LINUX, "7.2", NULL);
    size_t n = gd_kb_tf_choices(kb, &e, list, CAP);
    assert_true(n > 0);
    assert_int_equal(list[0].fit, GD_KB_FIT_TOOLKIT);
    assert_true(list[0].cc_judged);
    assert_int_equal(list[0].cc, GD_KB_UNKNOWN);
    assert_string_equal(list[0].cc_bad.text, "7.2");
    assert_int_equal(gd_kb_choice_runs(&list[0], true), GD_KB_UNKNOWN);
    assert_null(gd_kb_best_choice(list, n));
    /* No GPU known: the driver alone cannot make a choice sure. */
    e = env_of("600", GD_KB_OS_LINUX, NULL, NULL);
    n = gd_kb_tf_choices(kb, &e, list, CAP);
    assert_false(list[0].cc_judged);
    assert_int_equal(gd_kb_choice_runs(&list[0], true), GD_KB_UNKNOWN);
    /* "450.80" may be below 11.x's 450.80.02. */
    e = env_of("450.80", GD_KB_OS_LINUX, "7.0", NULL);
    n = gd_kb_tf_choices(kb, &e, list, CAP);
    size_t k = 0;
    while (k < n && strcmp(list[k].release.text, "2.13.0") != 0)
        k++;
    assert_true(k < n);
    assert_int_equal(list[k].fit, GD_KB_FIT_UNKNOWN);
    /* A full environment refuses a ninth compute capability but keeps duplicates once. */
    struct gd_kb_env full;
    memset(&full, 0, sizeof full);
    static const char *const ccs[] = { "3.5", "3.7", "5.0", "5.2", "6.0", "6.1", "7.0", "7.5" };
    for (size_t i = 0; i < 8; i++) {
        struct gd_version c = ver(ccs[i]);
        assert_true(gd_kb_env_add_cc(&full, &c));
    }
    struct gd_version c = ver("7.5"), d = ver("8.0");
    assert_true(gd_kb_env_add_cc(&full, &c));
    assert_false(gd_kb_env_add_cc(&full, &d));
    assert_int_equal(full.ncc, 8);
}

/* TensorFlow 2.13 is installed with the pip page's own commands for it; 2.13.0 is older than
 * the first release seen with and-cuda (2.13.1) but the page's row covers the minor. */
static void test_tf_install(void **state)
{
    (void)state;
    static struct gd_kb_choice list[CAP];
    struct gd_kb_env e = env_of("520.61.05", GD_KB_OS_LINUX, "7.5", NULL);
    size_t n = gd_kb_tf_choices(kb, &e, list, CAP), k = 0;
    while (k < n && strcmp(list[k].release.text, "2.13.0") != 0)
        k++;
    assert_true(k < n);
    char cmd[512];
    enum gd_kb_tf_how how;
    const struct gd_kb_row *row;
    assert_int_equal(gd_kb_tf_install(kb, &list[k], GD_KB_OS_LINUX, cmd, sizeof cmd, &how, &row),
                     GD_OK);
    assert_string_equal(cmd, "conda install -c conda-forge cudatoolkit=11.8.0 && python3 -m pip "
                             "install nvidia-cudnn-cu11==8.6.0.163 tensorflow==2.13.*");
    assert_int_equal(how, GD_KB_TF_COMMANDS);
    assert_string_equal(gd_kb_str(row, "kind"), "pip_requirements");
    /* 2.12.0: plain pip, CUDA 11.8 and cuDNN 8.6 of its build row to be installed apart. */
    while (k < n && strcmp(list[k].release.text, "2.12.0") != 0)
        k++;
    assert_true(k < n);
    assert_int_equal(gd_kb_tf_install(kb, &list[k], GD_KB_OS_LINUX, cmd, sizeof cmd, &how, &row),
                     GD_OK);
    assert_string_equal(cmd, "python3 -m pip install 'tensorflow==2.12.*'");
    assert_int_equal(how, GD_KB_TF_PLAIN);
    assert_ptr_equal(row, list[k].row);
    /* 1.x: the tensorflow-gpu package its build row names. */
    while (k < n && strcmp(list[k].release.text, "1.15.0") != 0)
        k++;
    assert_true(k < n);
    assert_int_equal(gd_kb_tf_install(kb, &list[k], GD_KB_OS_LINUX, cmd, sizeof cmd, &how, &row),
                     GD_OK);
    assert_string_equal(cmd, "python3 -m pip install 'tensorflow-gpu==1.15.*'");
    char tiny[8];
    assert_int_equal(gd_kb_tf_install(kb, &list[k], GD_KB_OS_LINUX, tiny, sizeof tiny, &how, NULL),
                     GD_ELIMIT);
}

/* Rows know their table; a row of no table has none. */
static void test_row_table(void **state)
{
    (void)state;
    const struct gd_kb_table *t = gd_kb_table(kb, "tf_builds");
    assert_ptr_equal(gd_kb_row_table(kb, gd_kb_row_at(t, 3)), t);
    assert_null(gd_kb_row_table(kb, NULL));
    assert_null(gd_kb_row_table(NULL, gd_kb_row_at(t, 3)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_best),
        cmocka_unit_test(test_order_and_needs),
        cmocka_unit_test(test_release_choices),
        cmocka_unit_test(test_unknowns),
        cmocka_unit_test(test_tf_install),
        cmocka_unit_test(test_row_table),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
