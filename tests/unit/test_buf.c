/* Growing buffers: a cap fixed at init, a sticky first failure, and take handing over. */
#include "core/alloc.h"
#include "core/buf.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static void test_append(void **state)
{
    (void)state;
    struct gd_buf b;
    gd_buf_init(&b, 1 << 20);
    assert_string_equal(gd_buf_str(&b), "");
    assert_null(b.data);
    gd_buf_puts(&b, "cuda");
    gd_buf_putc(&b, '-');
    gd_buf_add(&b, "12.4xyz", 4);
    gd_buf_printf(&b, " %d %s", 42, "ok");
    gd_buf_add(&b, "", 0);
    assert_string_equal(gd_buf_str(&b), "cuda-12.4 42 ok");
    assert_int_equal(b.len, strlen("cuda-12.4 42 ok"));
    assert_int_equal(b.data[b.len], '\0');
    /* Bytes with NULs inside are kept; the text stays NUL-terminated after them. */
    gd_buf_add(&b, "a\0b", 3);
    assert_int_equal(b.len, 18);
    assert_memory_equal(b.data + 15, "a\0b", 4);
    /* printf output longer than its 256-byte stack buffer. */
    char big[1000];
    memset(big, 'z', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    gd_buf_printf(&b, "[%s]", big);
    assert_int_equal(b.len, 18 + 1001);
    assert_int_equal(b.data[b.len - 1], ']');
    assert_int_equal(b.data[b.len], '\0');
    assert_int_equal(gd_buf_status(&b), GD_OK);
    gd_buf_free(&b);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.limit, 1 << 20);
    gd_buf_puts(&b, "reused"); /* freed buffers are empty and usable */
    assert_string_equal(gd_buf_str(&b), "reused");
    gd_buf_free(&b);
}

static void test_cap_is_sticky(void **state)
{
    (void)state;
    struct gd_buf b;
    gd_buf_init(&b, 5);
    gd_buf_puts(&b, "12345"); /* exactly the cap */
    assert_int_equal(gd_buf_status(&b), GD_OK);
    assert_string_equal(gd_buf_str(&b), "12345");
    gd_buf_putc(&b, '6');
    assert_int_equal(gd_buf_status(&b), GD_ELIMIT);
    assert_string_equal(gd_buf_str(&b), "12345");
    /* Sticky: nothing is appended any more, and the first failure is the one kept. */
    gd_buf_free(&b);
    gd_buf_puts(&b, "ab");
    assert_int_equal(gd_buf_status(&b), GD_OK);
    gd_buf_puts(&b, "cdefgh");
    gd_buf_puts(&b, "x");
    gd_buf_printf(&b, "%d", 1);
    assert_int_equal(gd_buf_status(&b), GD_ELIMIT);
    assert_string_equal(gd_buf_str(&b), "ab");
    gd_alloc_fail_at(1);
    gd_buf_puts(&b, "y"); /* would fail with ENOMEM, but the buffer is failed already */
    gd_alloc_fail_at(0);
    assert_int_equal(gd_buf_status(&b), GD_ELIMIT);
    gd_buf_free(&b);

    /* printf past the cap, through its large-output path. */
    gd_buf_init(&b, 300);
    char big[400];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    gd_buf_printf(&b, "%s", big);
    assert_int_equal(gd_buf_status(&b), GD_ELIMIT);
    assert_int_equal(b.len, 0);
    gd_buf_free(&b);

    /* A zero cap holds the empty string only. */
    gd_buf_init(&b, 0);
    gd_buf_add(&b, "", 0);
    assert_int_equal(gd_buf_status(&b), GD_OK);
    gd_buf_putc(&b, 'x');
    assert_int_equal(gd_buf_status(&b), GD_ELIMIT);
    gd_buf_free(&b);
}

static void test_enomem_is_sticky(void **state)
{
    (void)state;
    struct gd_buf b;
    gd_buf_init(&b, 1 << 20);
    gd_alloc_fail_at(1);
    gd_buf_puts(&b, "first");
    gd_buf_puts(&b, "second"); /* would succeed: the failure is sticky */
    gd_alloc_fail_at(0);
    assert_int_equal(gd_buf_status(&b), GD_ENOMEM);
    assert_string_equal(gd_buf_str(&b), "");
    char *out = (char *)1;
    size_t len = 7;
    assert_int_equal(gd_buf_take(&b, &out, &len), GD_ENOMEM);
    assert_null(out);
    assert_int_equal(len, 0);
    assert_null(b.data);

    /* A failing allocation inside printf's large path. */
    gd_buf_init(&b, 1 << 20);
    gd_buf_puts(&b, "x");
    char big[600];
    memset(big, 'p', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    gd_alloc_fail_at(1);
    gd_buf_printf(&b, "%s", big);
    gd_alloc_fail_at(0);
    assert_int_equal(gd_buf_status(&b), GD_ENOMEM);
    assert_string_equal(gd_buf_str(&b), "x");
    gd_buf_free(&b);
}

static void test_take(void **state)
{
    (void)state;
    struct gd_buf b;
    gd_buf_init(&b, 100);
    gd_buf_puts(&b, "report");
    char *out = NULL;
    size_t len = 0;
    assert_int_equal(gd_buf_take(&b, &out, &len), GD_OK);
    assert_string_equal(out, "report");
    assert_int_equal(len, 6);
    /* The buffer is empty again, and a new append does not touch the taken memory. */
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    gd_buf_puts(&b, "next");
    assert_string_equal(out, "report");
    gd_free(out);
    assert_int_equal(gd_buf_take(&b, &out, NULL), GD_OK);
    assert_string_equal(out, "next");
    gd_free(out);

    /* Taking an empty buffer gives "" in new memory, never NULL. */
    assert_int_equal(gd_buf_take(&b, &out, &len), GD_OK);
    assert_non_null(out);
    assert_string_equal(out, "");
    assert_int_equal(len, 0);
    gd_free(out);
    gd_alloc_fail_at(1);
    enum gd_status st = gd_buf_take(&b, &out, &len);
    gd_alloc_fail_at(0);
    assert_int_equal(st, GD_ENOMEM);
    assert_null(out);

    /* Taking a failed buffer reports the failure and drops the contents. */
    gd_buf_init(&b, 3);
    gd_buf_puts(&b, "abcd");
    assert_int_equal(gd_buf_take(&b, &out, &len), GD_ELIMIT);
    assert_null(out);
    gd_buf_free(&b);
}

struct collected {
    char text[4096];
    size_t len, calls, fail_on; /* fail_on: the call that fails, 0 none */
};

static bool collect(void *ctx, const char *data, size_t len)
{
    struct collected *c = ctx;
    c->calls++;
    if (c->calls == c->fail_on || c->len + len >= sizeof c->text)
        return false;
    memcpy(c->text + c->len, data, len);
    c->len += len;
    c->text[c->len] = '\0';
    return true;
}

/* A sink gets the text in pieces of about `chunk`, in order, and never holds much more. */
static void test_sink(void **state)
{
    (void)state;
    struct collected c = { .fail_on = 0 };
    struct gd_buf b;
    gd_buf_init_sink(&b, 16, collect, &c);
    for (int i = 0; i < 20; i++)
        gd_buf_printf(&b, "line %02d\n", i);
    assert_true(b.cap <= 64); /* 16 and one 8-byte line, rounded up */
    assert_true(c.calls >= 8);
    gd_buf_reserve(&b, 1 << 20); /* a streaming buffer reserves no more than a chunk */
    assert_true(b.cap <= 64);
    assert_int_equal(gd_buf_flush(&b), GD_OK);
    assert_int_equal(b.len, 0);
    assert_int_equal(c.len, 20 * 8);
    assert_memory_equal(c.text, "line 00\nline 01\n", 16);
    assert_memory_equal(c.text + 19 * 8, "line 19\n", 8);
    gd_buf_free(&b);

    /* A failed write is sticky: GD_EIO, and nothing more is handed over. */
    struct collected f = { .fail_on = 2 };
    gd_buf_init_sink(&b, 16, collect, &f);
    for (int i = 0; i < 20; i++)
        gd_buf_printf(&b, "line %02d\n", i);
    assert_int_equal(gd_buf_status(&b), GD_EIO);
    assert_int_equal(f.calls, 2);
    assert_int_equal(gd_buf_flush(&b), GD_EIO);
    assert_int_equal(f.calls, 2);
    gd_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append),
        cmocka_unit_test(test_cap_is_sticky),
        cmocka_unit_test(test_enomem_is_sticky),
        cmocka_unit_test(test_take),
        cmocka_unit_test(test_sink),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
