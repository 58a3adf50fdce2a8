/* A vendor child's "KEY VALUE" lines: keys, values, the last one winning, integers, and the
 * bytes a crashing vendor library may leave behind; every allocation failed in turn. */
#include "core/alloc.h"
#include "parse/childmsg.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const char answer[] = "step dlopen libcuda.so.1\n"
                             "library /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14\n"
                             "step cuInit\n"
                             "init.code 0\r\n"
                             "count 2\n"
                             "dev.0.name NVIDIA GeForce RTX 3090\n"
                             "flag\n"
                             "neg -35\n"
                             "big 9223372036854775807\n"
                             "bigger 9223372036854775808\n"
                             "min -9223372036854775808\n"
                             "notint 12a\n"
                             "empty \n"
                             "step cuDeviceGetName 0";

static void test_parse(void **state)
{
    (void)state;
    struct gd_msgs m;
    assert_int_equal(gd_msgs_parse(answer, sizeof answer - 1, &m), GD_OK);
    assert_int_equal(m.n, 14);
    assert_false(m.truncated);
    char buf[64];
    /* The last "step" wins, even without a final newline. */
    assert_string_equal(gd_msgs_str(&m, "step", buf, sizeof buf), "cuDeviceGetName 0");
    assert_string_equal(gd_msgs_str(&m, "dev.0.name", buf, sizeof buf), "NVIDIA GeForce RTX 3090");
    assert_string_equal(gd_msgs_str(&m, "dev.0.name", buf, 7), "NVIDIA");
    assert_string_equal(gd_msgs_str(&m, "flag", buf, sizeof buf), "");
    assert_string_equal(gd_msgs_str(&m, "empty", buf, sizeof buf), "");
    assert_null(gd_msgs_str(&m, "dev.1.name", buf, sizeof buf));
    assert_null(gd_msgs_str(&m, "init", buf, sizeof buf));
    long long v = 7;
    assert_true(gd_msgs_int(&m, "init.code", &v));
    assert_int_equal(v, 0);
    assert_true(gd_msgs_int(&m, "neg", &v));
    assert_int_equal(v, -35);
    assert_true(gd_msgs_int(&m, "big", &v));
    assert_true(v == 9223372036854775807LL);
    assert_true(gd_msgs_int(&m, "min", &v));
    assert_true(v == -9223372036854775807LL - 1);
    v = 7;
    assert_false(gd_msgs_int(&m, "bigger", &v));
    assert_false(gd_msgs_int(&m, "notint", &v));
    assert_false(gd_msgs_int(&m, "empty", &v));
    assert_false(gd_msgs_int(&m, "flag", &v));
    assert_false(gd_msgs_int(&m, "missing", &v));
    assert_int_equal(v, 7);
    gd_msgs_free(&m);
    assert_null(m.lines);
    gd_msgs_free(NULL);

    /* NULs and a line cut short by a crash are kept as bytes. */
    static const char garbage[] = "a 1\0x\nb \xff\xfe\nc";
    assert_int_equal(gd_msgs_parse(garbage, sizeof garbage - 1, &m), GD_OK);
    assert_int_equal(m.n, 3);
    struct gd_span s;
    assert_true(gd_msgs_get(&m, "a", &s));
    assert_int_equal(s.n, 3);
    assert_memory_equal(s.p, "1\0x", 3);
    assert_false(gd_msgs_int(&m, "a", &v));
    assert_true(gd_msgs_get(&m, "c", &s));
    assert_int_equal(s.n, 0);
    gd_msgs_free(&m);

    assert_int_equal(gd_msgs_parse(NULL, 0, &m), GD_OK);
    assert_int_equal(m.n, 0);
    gd_msgs_free(&m);
}

static void test_cap(void **state)
{
    (void)state;
    size_t lines = GD_MSGS_MAX + 10;
    char *text = malloc(lines * 4);
    assert_non_null(text);
    for (size_t i = 0; i < lines; i++)
        memcpy(text + 4 * i, "k 1\n", 4);
    struct gd_msgs m;
    assert_int_equal(gd_msgs_parse(text, lines * 4, &m), GD_OK);
    assert_int_equal(m.n, GD_MSGS_MAX);
    assert_true(m.truncated);
    gd_msgs_free(&m);
    free(text);
}

static void test_alloc_failures(void **state)
{
    (void)state;
    struct gd_msgs m;
    gd_alloc_fail_at(0);
    assert_int_equal(gd_msgs_parse(answer, sizeof answer - 1, &m), GD_OK);
    unsigned long total = gd_alloc_fail_at(0);
    gd_msgs_free(&m);
    assert_true(total > 0);
    for (unsigned long n = 1; n <= total; n++) {
        gd_alloc_fail_at(n);
        enum gd_status st = gd_msgs_parse(answer, sizeof answer - 1, &m);
        gd_alloc_fail_at(0);
        assert_int_equal(st, GD_ENOMEM);
        assert_null(m.lines);
        assert_int_equal(m.n, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
