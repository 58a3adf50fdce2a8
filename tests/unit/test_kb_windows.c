/* src/kb/windows.c: the lookups over windows_cuda, on the embedded table and on small tables
 * given with gd_kb_table_parse (a broken or missing row is "not known", never a guess). */
#include "kb/kb.h"
#include "kb/windows.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

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
    assert_int_equal(gd_version_parse(s, &v), GD_OK);
    return v;
}

static void test_dll(void **state)
{
    (void)state;
    struct gd_kb_win_dll d;
    assert_int_equal(gd_kb_win_dll(kb, "cudart64_110.dll", &d), GD_OK);
    assert_string_equal(d.family, "cudart");
    assert_int_equal(d.n, 1);
    assert_string_equal(d.cuda[0], "11");
    /* Names fold case, as Windows does. */
    assert_int_equal(gd_kb_win_dll(kb, "CUBLASLT64_12.DLL", &d), GD_OK);
    assert_string_equal(d.family, "cublasLt");
    assert_string_equal(d.cuda[0], "12");
    /* One name, several CUDA majors. */
    assert_int_equal(gd_kb_win_dll(kb, "curand64_10.dll", &d), GD_OK);
    assert_int_equal(d.n, 3);
    assert_int_equal(gd_kb_win_dll(kb, "nvcuda.dll", &d), GD_OK);
    assert_true(d.driver);
    assert_string_equal(d.family, "cuda");
    assert_int_equal(gd_kb_win_dll(kb, "cudnn64_8.dll", &d), GD_OK);
    assert_string_equal(d.family, "cudnn");
    assert_int_equal(d.cudnn_major, 8);
    assert_int_equal(gd_kb_win_dll(kb, "cudnn_cnn_infer64_8.dll", &d), GD_OK);
    assert_string_equal(d.family, "cudnn-sub");
    assert_int_equal(gd_kb_win_dll(kb, "kernel32.dll", &d), GD_ENOENT);
    assert_null(d.family);
}

static void test_driver_version(void **state)
{
    (void)state;
    static const struct {
        uint16_t file[4];
        enum gd_status st;
        const char *want;
    } cases[] = {
        /* mpv-animejanai-pr-81 and envyupdate-issue-21. */
        { { 32, 0, 16, 1047 }, GD_OK, "610.47" },  { { 31, 0, 15, 7652 }, GD_OK, "576.52" },
        { { 30, 0, 14, 7196 }, GD_OK, "471.96" },  { { 31, 0, 15, 3623 }, GD_OK, "536.23" },
        { { 27, 21, 14, 5671 }, GD_OK, "456.71" }, { { 31, 0, 15, 5 }, GD_OK, "500.05" },
        { { 31, 0, 15, 10000 }, GD_EFORMAT, "" },  { { 1, 2, 10, 12 }, GD_EFORMAT, "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[32];
        const struct gd_kb_row *row = NULL;
        assert_int_equal(gd_kb_win_driver_version(kb, cases[i].file, buf, sizeof buf, &row),
                         cases[i].st);
        assert_string_equal(buf, cases[i].want);
        assert_true((row != NULL) == (cases[i].st == GD_OK));
    }
}

static void test_framework_and_cudnn(void **state)
{
    (void)state;
    const struct gd_kb_row *row;
    struct gd_version v = ver("11.2");
    assert_int_equal(gd_kb_win_framework_dlls(kb, "tensorflow", &v, &row), GD_OK);
    assert_true(gd_kb_list_has(row, "dlls", "cusolver64_11.dll"));
    v = ver("12.3");
    assert_int_equal(gd_kb_win_framework_dlls(kb, "tensorflow", &v, &row), GD_ENOENT);
    v = ver("11.2");
    assert_int_equal(gd_kb_win_framework_dlls(kb, "torch", &v, &row), GD_ENOENT);
    const char *dll;
    v = ver("8.4.1");
    assert_int_equal(gd_kb_win_cudnn_dependency(kb, &v, &dll, &row), GD_OK);
    assert_string_equal(dll, "zlibwapi.dll");
    v = ver("8.3.0");
    assert_int_equal(gd_kb_win_cudnn_dependency(kb, &v, &dll, &row), GD_OK);
    v = ver("8.9.7");
    assert_int_equal(gd_kb_win_cudnn_dependency(kb, &v, &dll, &row), GD_OK);
    static const char *const none[] = { "8.1.0", "8.2.4", "9.1.0", "7.6.5" };
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        v = ver(none[i]);
        assert_int_equal(gd_kb_win_cudnn_dependency(kb, &v, &dll, &row), GD_ENOENT);
        assert_null(dll);
    }
}

/* Without the table every lookup is "not known". */
static void test_no_table(void **state)
{
    (void)state;
    struct gd_kb_win_dll d;
    assert_int_equal(gd_kb_win_dll(NULL, "cudart64_110.dll", &d), GD_ENOENT);
    uint16_t file[4] = { 31, 0, 15, 3623 };
    char buf[16];
    const struct gd_kb_row *row;
    assert_int_equal(gd_kb_win_driver_version(NULL, file, buf, sizeof buf, &row), GD_ENOENT);
    struct gd_version v = ver("11.2");
    assert_int_equal(gd_kb_win_framework_dlls(NULL, "tensorflow", &v, &row), GD_ENOENT);
    const char *dll;
    assert_int_equal(gd_kb_win_cudnn_dependency(NULL, &v, &dll, &row), GD_ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dll),
        cmocka_unit_test(test_driver_version),
        cmocka_unit_test(test_framework_and_cudnn),
        cmocka_unit_test(test_no_table),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
