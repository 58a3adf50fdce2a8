/* The bump allocator behind every report: aligned, zeroed, and usable after a failure. */
#include "core/alloc.h"
#include "core/arena.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static void test_alloc(void **state)
{
    (void)state;
    struct gd_arena *a = gd_arena_new();
    assert_non_null(a);
    /* Sizes around the chunk sizes (4 KiB doubling to 256 KiB, larger ones alone). */
    static const size_t sizes[] = { 0,    1,     7,      16,     100,         4000, 4096,
                                    4097, 10000, 262144, 300000, 1000 * 1000, 3,    1 };
    unsigned char *prev = NULL;
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            unsigned char *p = gd_arena_alloc(a, sizes[i]);
            assert_non_null(p);
            assert_int_equal((uintptr_t)p % alignof(max_align_t), 0);
            for (size_t k = 0; k < sizes[i]; k++)
                if (p[k] != 0)
                    fail_msg("size %zu: byte %zu not zeroed", sizes[i], k);
            /* Fill it: a later allocation must not overlap an earlier one. */
            memset(p, 0xa5, sizes[i]);
            if (prev)
                assert_int_equal(prev[0], 0xa5);
            prev = sizes[i] ? p : prev;
        }
    }
    /* Impossible sizes fail without breaking the arena. */
    assert_null(gd_arena_alloc(a, SIZE_MAX));
    assert_null(gd_arena_alloc(a, SIZE_MAX - 8));
    assert_non_null(gd_arena_alloc(a, 32));
    gd_arena_free(a);
    gd_arena_free(NULL);
}

static void test_strings(void **state)
{
    (void)state;
    struct gd_arena *a = gd_arena_new();
    const char *src = "libcudnn.so.9";
    char *s = gd_arena_strdup(a, src);
    assert_string_equal(s, src);
    assert_ptr_not_equal(s, src);
    assert_null(gd_arena_strdup(a, NULL));
    assert_string_equal(gd_arena_strndup(a, src, 8), "libcudnn");
    assert_string_equal(gd_arena_strndup(a, src, 100), src);
    assert_string_equal(gd_arena_strndup(a, src, 0), "");
    /* strndup stops at a NUL inside the first n bytes. */
    assert_string_equal(gd_arena_strndup(a, "ab\0cd", 5), "ab");
    assert_string_equal(gd_arena_printf(a, "%s=%d", "CUDA", 12), "CUDA=12");
    assert_string_equal(gd_arena_printf(a, "%s", ""), "");
    /* Longer than any chunk so far. */
    char big[20000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    char *copy = gd_arena_printf(a, "<%s>", big);
    assert_int_equal(strlen(copy), sizeof big + 1);
    assert_int_equal(copy[0], '<');
    assert_int_equal(copy[sizeof big], '>');
    gd_arena_free(a);
}

/* A failed chunk allocation returns NULL; the arena still works and frees everything. */
static void test_alloc_failure(void **state)
{
    (void)state;
    gd_alloc_fail_at(1);
    assert_null(gd_arena_new());
    gd_alloc_fail_at(0);
    struct gd_arena *a = gd_arena_new();
    assert_non_null(gd_arena_alloc(a, 10)); /* first chunk */
    gd_alloc_fail_at(1);
    assert_non_null(gd_arena_alloc(a, 10)); /* fits the current chunk: no allocation */
    assert_null(gd_arena_alloc(a, 100000)); /* needs a chunk: the failure */
    assert_non_null(gd_arena_alloc(a, 100000));
    gd_alloc_fail_at(1);
    assert_null(gd_arena_printf(a, "%0*d", 200000, 1));
    char *again = gd_arena_printf(a, "%0*d", 200000, 1); /* a failure is one allocation only */
    gd_alloc_fail_at(0);
    assert_non_null(again);
    assert_int_equal(strlen(again), 200000);
    assert_int_equal(again[199999], '1');
    gd_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
