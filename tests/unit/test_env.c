/* The environment snapshot the probes read instead of getenv(). */
#include "core/alloc.h"
#include "core/env.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static void test_set_get(void **state)
{
    (void)state;
    struct gd_env *env = gd_env_new();
    assert_non_null(env);
    assert_int_equal(gd_env_count(env), 0);
    assert_null(gd_env_get(env, "CUDA_HOME"));
    assert_int_equal(gd_env_set(env, "CUDA_HOME", "/usr/local/cuda"), GD_OK);
    assert_int_equal(gd_env_set(env, "EMPTY", ""), GD_OK);
    assert_string_equal(gd_env_get(env, "CUDA_HOME"), "/usr/local/cuda");
    assert_string_equal(gd_env_get(env, "EMPTY"), ""); /* set to "" is not unset */
    assert_null(gd_env_get(env, "cuda_home"));         /* names are case-sensitive */
    /* Replacing keeps one entry, in its place. */
    assert_int_equal(gd_env_set(env, "CUDA_HOME", "/opt/cuda"), GD_OK);
    assert_int_equal(gd_env_count(env), 2);
    assert_string_equal(gd_env_name_at(env, 0), "CUDA_HOME");
    assert_string_equal(gd_env_value_at(env, 0), "/opt/cuda");
    assert_string_equal(gd_env_name_at(env, 1), "EMPTY");
    assert_null(gd_env_name_at(env, 2));
    assert_null(gd_env_value_at(env, 2));
    /* The strings are copies. */
    char name[] = "MUTABLE", value[] = "before";
    assert_int_equal(gd_env_set(env, name, value), GD_OK);
    strcpy(value, "after!");
    name[0] = 'X';
    assert_string_equal(gd_env_get(env, "MUTABLE"), "before");

    static const struct {
        const char *name, *value;
    } bad[] = { { "", "x" }, { "A=B", "x" }, { NULL, "x" }, { "A", NULL } };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(gd_env_set(env, bad[i].name, bad[i].value), GD_EINVAL);
    assert_int_equal(gd_env_count(env), 3);
    gd_env_free(env);
    gd_env_free(NULL);
}

static void test_put(void **state)
{
    (void)state;
    struct gd_env *env = gd_env_new();
    static const struct {
        const char *text;
        enum gd_status status;
        const char *name, *value;
    } cases[] = {
        { "CUDA_VISIBLE_DEVICES=0,1", GD_OK, "CUDA_VISIBLE_DEVICES", "0,1" },
        { "A==b", GD_OK, "A", "=b" },
        { "EMPTY=", GD_OK, "EMPTY", "" },
        { "SPACED = x", GD_OK, "SPACED ", " x" },
        { "=value", GD_EINVAL, NULL, NULL },
        { "NOEQUALS", GD_EINVAL, NULL, NULL },
        { "", GD_EINVAL, NULL, NULL },
        { NULL, GD_EINVAL, NULL, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        enum gd_status st = gd_env_put(env, cases[i].text);
        if (st != cases[i].status)
            fail_msg("\"%s\": %s", cases[i].text ? cases[i].text : "(null)", gd_status_str(st));
        if (st == GD_OK)
            assert_string_equal(gd_env_get(env, cases[i].name), cases[i].value);
    }
    assert_int_equal(gd_env_count(env), 4);
    gd_env_free(env);
}

static void test_clone_clear(void **state)
{
    (void)state;
    struct gd_env *env = gd_env_new();
    for (int i = 0; i < 40; i++) {
        char text[32];
        snprintf(text, sizeof text, "V%d=%d", i, i * i);
        assert_int_equal(gd_env_put(env, text), GD_OK);
    }
    struct gd_env *copy = gd_env_clone(env);
    assert_non_null(copy);
    assert_int_equal(gd_env_count(copy), 40);
    assert_string_equal(gd_env_get(copy, "V39"), "1521");
    /* Independent: changing one leaves the other. */
    assert_int_equal(gd_env_set(env, "V39", "changed"), GD_OK);
    assert_string_equal(gd_env_get(copy, "V39"), "1521");
    gd_env_clear(env);
    assert_int_equal(gd_env_count(env), 0);
    assert_null(gd_env_get(env, "V0"));
    assert_string_equal(gd_env_get(copy, "V0"), "0");
    assert_int_equal(gd_env_set(env, "AFTER", "clear"), GD_OK); /* still usable */
    assert_int_equal(gd_env_count(env), 1);
    gd_env_free(copy);
    gd_env_free(env);
}

/* Every allocation failure is GD_ENOMEM (or NULL), and leaves the snapshot as it was. */
static void test_alloc_failures(void **state)
{
    (void)state;
    struct gd_env *env = gd_env_new();
    assert_int_equal(gd_env_put(env, "KEEP=1"), GD_OK);
    for (unsigned long n = 1;; n++) {
        gd_alloc_fail_at(n);
        enum gd_status a = gd_env_put(env, "NEW=2");
        enum gd_status b = gd_env_set(env, "KEEP", "3");
        gd_alloc_fail_at(0);
        if (a == GD_OK && b == GD_OK)
            break;
        assert_true(a == GD_OK || a == GD_ENOMEM);
        assert_true(b == GD_OK || b == GD_ENOMEM);
        assert_string_equal(gd_env_get(env, "KEEP"), b == GD_OK ? "3" : "1");
        if (a != GD_OK)
            assert_null(gd_env_get(env, "NEW"));
        gd_env_clear(env);
        assert_int_equal(gd_env_put(env, "KEEP=1"), GD_OK);
    }
    assert_string_equal(gd_env_get(env, "NEW"), "2");
    for (unsigned long n = 1;; n++) {
        gd_alloc_fail_at(n);
        struct gd_env *copy = gd_env_clone(env);
        gd_alloc_fail_at(0);
        if (copy) {
            assert_int_equal(gd_env_count(copy), 2);
            gd_env_free(copy);
            break;
        }
    }
    gd_env_free(env);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_get),
        cmocka_unit_test(test_put),
        cmocka_unit_test(test_clone_clear),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
