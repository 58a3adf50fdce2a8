/* src/core/winpath.c: Windows path text into root paths, table-driven; and
 * src/sysroot/nocase.c: names looked up ignoring case in the win-tf210 fixture root (a tree in
 * the repository, read only, so the test runs the same under wine). */
#include "core/alloc.h"
#include "core/winpath.h"
#include "os/os.h"
#include "sysroot/nocase.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static void test_to_root(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        char drive;
        enum gd_winpath_result want;
        const char *out;
    } cases[] = {
        { "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2", 'C', GD_WINPATH_OK,
          "/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2" },
        { "c:/Windows/System32/", 'C', GD_WINPATH_OK, "/Windows/System32" },
        { "C:\\", 'c', GD_WINPATH_OK, "/" },
        { "C:\\\\a\\.\\b\\\\", 'C', GD_WINPATH_OK, "/a/b" },
        { "C:\\a\\..\\b", 'C', GD_WINPATH_OK, "/a/../b" },
        { "\\Users\\alice", 'C', GD_WINPATH_OK, "/Users/alice" },
        { "/Users/alice", 'D', GD_WINPATH_OK, "/Users/alice" },
        { "\"C:\\Program Files\\Python310\\\"", 'C', GD_WINPATH_OK, "/Program Files/Python310" },
        { "  C:\\x  ", 'C', GD_WINPATH_OK, "/x" },
        { "\\\\?\\C:\\Windows", 'C', GD_WINPATH_OK, "/Windows" },
        { "\\??\\C:\\Windows", 'C', GD_WINPATH_OK, "/Windows" },
        { "D:\\cuda", 'C', GD_WINPATH_OTHER_DRIVE, "" },
        { "\\\\server\\share", 'C', GD_WINPATH_UNC, "" },
        { "\\\\?\\UNC\\server\\share", 'C', GD_WINPATH_UNC, "" },
        { "\\\\.\\pipe\\x", 'C', GD_WINPATH_UNC, "" },
        { "C:bin", 'C', GD_WINPATH_RELATIVE, "" },
        { "C:", 'C', GD_WINPATH_RELATIVE, "" },
        { "bin\\x64", 'C', GD_WINPATH_RELATIVE, "" },
        { "%SystemRoot%\\system32", 'C', GD_WINPATH_RELATIVE, "" },
        { "", 'C', GD_WINPATH_EMPTY, "" },
        { " \"\" ", 'C', GD_WINPATH_EMPTY, "" },
        { "C:/PROGRA~1/NVIDIA~2/CUDA/v11.8", 'C', GD_WINPATH_SHORT, "" },
        { "C:\\MICROS~1.NET", 'C', GD_WINPATH_SHORT, "" },
        { "C:\\Users\\~1", 'C', GD_WINPATH_OK, "/Users/~1" },
        { "C:\\Users\\alice~home", 'C', GD_WINPATH_OK, "/Users/alice~home" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char out[256], why[64];
        enum gd_winpath_result r = gd_winpath_to_root(cases[i].in, cases[i].drive, out, sizeof out);
        if (r != cases[i].want || strcmp(out, cases[i].out) != 0)
            fail_msg("%s: %d \"%s\", want %d \"%s\"", cases[i].in, r, out, cases[i].want,
                     cases[i].out);
        assert_non_null(gd_winpath_why(r, cases[i].drive, why, sizeof why));
    }
    char why[64];
    assert_string_equal(gd_winpath_why(GD_WINPATH_OTHER_DRIVE, 'c', why, sizeof why),
                        "on another drive than the inspected C:");
    /* Too small an output: nothing half-written. */
    char small[8];
    assert_int_equal(gd_winpath_to_root("C:\\Windows\\System32", 'C', small, sizeof small),
                     GD_WINPATH_TOO_LONG);
    assert_string_equal(small, "");
    assert_int_equal(gd_winpath_to_root("C:\\", 'C', small, 1), GD_WINPATH_TOO_LONG);
    assert_true(gd_winpath_name_eq("System32", "SYSTEM32"));
    assert_false(gd_winpath_name_eq("System32", "System3"));
}

static void test_nocase(void **state)
{
    (void)state;
    struct gd_root *root = NULL;
    assert_int_equal(gd_root_new(GD_SOURCE_DIR "/tests/fixtures/roots/win-tf210", &root), GD_OK);
    static const struct {
        const char *in;
        enum gd_status want;
        const char *out;
    } cases[] = {
        { "/windows/system32/NVCUDA.DLL", GD_OK, "/Windows/System32/nvcuda.dll" },
        { "/Windows/System32/nvcuda.dll", GD_OK, "/Windows/System32/nvcuda.dll" },
        { "//program files/nvidia gpu computing toolkit/cuda/V11.2/BIN", GD_OK,
          "/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2/bin" },
        { "/", GD_OK, "/" },
        { "/Windows/System32/nvcuda.dll/x", GD_ENOTDIR, NULL },
        { "/windows/system32/zlibwapi.dll", GD_ENOENT, NULL },
        { "relative", GD_EINVAL, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *out = (char *)1;
        enum gd_status st = gd_root_find_nocase(root, cases[i].in, &out);
        if (st != cases[i].want)
            fail_msg("%s: status %d, want %d", cases[i].in, st, cases[i].want);
        if (st == GD_OK)
            assert_string_equal(out, cases[i].out);
        else
            assert_null(out);
        gd_free(out);
    }
    /* The stored spelling of a name: Windows' own answer; POSIX stores names as asked. */
    static const struct {
        const char *in;
        enum gd_status want; /* on Windows */
        const char *name;
    } stored[] = {
        { "/Windows", GD_OK, "Windows" },
        { "/windows/SYSTEM32", GD_OK, "System32" },
        { "/Windows/System32/NVCUDA.dll", GD_OK, "nvcuda.dll" },
        { "/Windows/zlibwapi.dll", GD_ENOENT, NULL },
        { "/Windows/System32/nv*.dll", GD_ENOENT, NULL }, /* never a wildcard */
    };
    for (size_t i = 0; i < sizeof stored / sizeof *stored; i++) {
        char *name = (char *)1;
        enum gd_status st = gd_root_stored_name(root, stored[i].in, &name);
        if (!gd_os_names_ignore_case()) {
            assert_int_equal(st, GD_EUNSUPPORTED);
            assert_null(name);
            continue;
        }
        if (st != stored[i].want)
            fail_msg("%s: status %d, want %d", stored[i].in, st, stored[i].want);
        if (st == GD_OK)
            assert_string_equal(name, stored[i].name);
        else
            assert_null(name);
        gd_free(name);
    }
    gd_root_free(root);
    /* Every allocation failed in turn, on a fresh root each time (out of memory is sticky in a
     * root). A failed allocation of the root's own memo (a listing it keeps) does not fail the
     * lookup, which has the listing in hand, but must mark the root out of memory. */
    for (unsigned long n = 1;; n++) {
        assert_int_equal(gd_root_new(GD_SOURCE_DIR "/tests/fixtures/roots/win-tf210", &root),
                         GD_OK);
        gd_alloc_fail_at(n);
        char *out = NULL;
        enum gd_status st = gd_root_find_nocase(root, "/windows/SYSTEM32/nvml.dll", &out);
        unsigned long made = gd_alloc_fail_at(0);
        if (st == GD_OK) {
            assert_string_equal(out, "/Windows/System32/nvml.dll");
            gd_free(out);
            bool failed_one = made >= n;
            assert_true(gd_root_out_of_memory(root) == failed_one);
            gd_root_free(root);
            if (!failed_one)
                break;
            continue;
        }
        assert_int_equal(st, GD_ENOMEM);
        assert_null(out);
        gd_root_free(root);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_to_root),
        cmocka_unit_test(test_nocase),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
