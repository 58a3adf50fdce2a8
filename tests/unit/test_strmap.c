/* The string map: first insertion wins, growth keeps every key, out of memory changes nothing. */
#include "core/alloc.h"
#include "core/strmap.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#define KEYS 1000

static char keys[KEYS][16];

static void test_put_get(void **state)
{
    (void)state;
    struct gd_strmap m = { 0 };
    assert_null(gd_strmap_get(&m, "absent"));
    assert_null(gd_strmap_get(&m, NULL));
    for (uintptr_t i = 0; i < KEYS; i++) {
        snprintf(keys[i], sizeof keys[i], "key-%lu", (unsigned long)i);
        assert_int_equal(gd_strmap_put(&m, keys[i], (void *)(i + 1)), GD_OK);
    }
    assert_int_equal(m.count, KEYS);
    /* Never more than half full, a power of two. */
    assert_true(m.cap >= 2 * KEYS);
    assert_int_equal(m.cap & (m.cap - 1), 0);
    for (uintptr_t i = 0; i < KEYS; i++) {
        char probe[16];
        snprintf(probe, sizeof probe, "key-%lu", (unsigned long)i);
        assert_ptr_equal(gd_strmap_get(&m, probe), (void *)(i + 1));
    }
    assert_null(gd_strmap_get(&m, "key-1000"));
    assert_null(gd_strmap_get(&m, "key-"));
    /* The first insertion wins; a NULL key is ignored. */
    assert_int_equal(gd_strmap_put(&m, "key-7", (void *)99), GD_OK);
    assert_ptr_equal(gd_strmap_get(&m, "key-7"), (void *)8);
    assert_int_equal(gd_strmap_put(&m, NULL, (void *)1), GD_OK);
    assert_int_equal(m.count, KEYS);
    gd_strmap_clear(&m);
    assert_null(gd_strmap_get(&m, "key-7"));
    assert_int_equal(gd_strmap_put(&m, "again", (void *)5), GD_OK);
    assert_ptr_equal(gd_strmap_get(&m, "again"), (void *)5);
    gd_strmap_clear(&m);
}

static void test_out_of_memory(void **state)
{
    (void)state;
    struct gd_strmap m = { 0 };
    gd_alloc_fail_at(1);
    assert_int_equal(gd_strmap_put(&m, "a", (void *)1), GD_ENOMEM);
    gd_alloc_fail_at(0);
    assert_int_equal(m.count, 0);
    assert_null(gd_strmap_get(&m, "a"));
    /* A failed growth keeps what was there. */
    size_t i = 0;
    for (; m.count * 2 + 2 <= m.cap || m.cap == 0; i++)
        assert_int_equal(gd_strmap_put(&m, keys[i], (void *)1), GD_OK);
    size_t before = m.count;
    gd_alloc_fail_at(1);
    assert_int_equal(gd_strmap_put(&m, keys[i], (void *)1), GD_ENOMEM);
    gd_alloc_fail_at(0);
    assert_int_equal(m.count, before);
    for (size_t k = 0; k < i; k++)
        assert_non_null(gd_strmap_get(&m, keys[k]));
    assert_null(gd_strmap_get(&m, keys[i]));
    gd_strmap_clear(&m);
}

int main(void)
{
    for (unsigned long i = 0; i < KEYS; i++)
        snprintf(keys[i], sizeof keys[i], "k%lu", i);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
