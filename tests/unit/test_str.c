/* Span and string helpers: bounds-safe on any bytes. */
#include "core/alloc.h"
#include "core/str.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static struct gd_span sp(const char *p, size_t n)
{
    struct gd_span s = { p, n };
    return s;
}

static void test_compare(void **state)
{
    (void)state;
    assert_true(gd_span_eq(gd_span_of("abc"), "abc"));
    assert_false(gd_span_eq(gd_span_of("abc"), "ab"));
    assert_false(gd_span_eq(sp("ab", 2), "abc"));
    assert_true(gd_span_eq(sp(NULL, 0), ""));
    assert_true(gd_span_eq(gd_span_of(NULL), ""));
    assert_true(gd_span_eq(sp("a\0b", 3), "a") == false);
    assert_true(gd_span_starts_with(sp("nvidia_uvm", 6), "nvidia"));
    assert_false(gd_span_starts_with(sp("nvidia_uvm", 5), "nvidia"));
    assert_true(gd_span_starts_with(sp(NULL, 0), ""));
    assert_true(gd_str_starts_with("libcuda.so.1", "libcuda"));
    assert_false(gd_str_starts_with("lib", "libcuda"));
    assert_true(gd_str_ends_with("libcuda.so", ".so"));
    assert_false(gd_str_ends_with("so", ".so"));
    assert_true(gd_str_ends_with("x", ""));
    assert_true(gd_str_ieq("Ubuntu", "uBUNTU"));
    assert_false(gd_str_ieq("Ubuntu", "Ubuntu2"));
    assert_false(gd_str_ieq("Ubunt", "Ubuntu"));
    assert_true(gd_str_ieq("", ""));
}

static void test_classes(void **state)
{
    (void)state;
    for (int c = -128; c < 128; c++) {
        char ch = (char)c;
        bool space =
            ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
        assert_int_equal(gd_is_space(ch), space);
        assert_int_equal(gd_is_digit(ch), ch >= '0' && ch <= '9');
        assert_int_equal(gd_is_alpha(ch), (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'));
        char lower = ch >= 'A' && ch <= 'Z' ? (char)(ch + 32) : ch;
        assert_int_equal(gd_to_lower(ch), lower);
    }
}

static void test_trim_and_split(void **state)
{
    (void)state;
    struct gd_span t = gd_span_trim(gd_span_of(" \t 12.4 \r\n"));
    assert_true(gd_span_eq(t, "12.4"));
    assert_int_equal(gd_span_trim(gd_span_of("   ")).n, 0);
    assert_int_equal(gd_span_trim(sp(NULL, 0)).n, 0);

    struct gd_span before, after;
    assert_true(gd_span_split(gd_span_of("KEY=a=b"), '=', &before, &after));
    assert_true(gd_span_eq(before, "KEY"));
    assert_true(gd_span_eq(after, "a=b"));
    assert_true(gd_span_split(gd_span_of("=x"), '=', &before, &after));
    assert_int_equal(before.n, 0);
    assert_true(gd_span_eq(after, "x"));
    assert_true(gd_span_split(gd_span_of("x="), '=', &before, &after));
    assert_int_equal(after.n, 0);
    /* Absent: both left untouched. */
    before = sp("keep", 4);
    assert_false(gd_span_split(gd_span_of("none"), '=', &before, &after));
    assert_true(gd_span_eq(before, "keep"));
    assert_false(gd_span_split(sp(NULL, 0), '=', &before, &after));
    /* The separator only counts inside the span. */
    assert_false(gd_span_split(sp("ab=c", 2), '=', &before, &after));
}

static void test_fields(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        char sep;
        const char *want; /* fields joined with '|' */
    } cases[] = {
        { "a:b:c", ':', "a|b|c" },
        { ":a::b:", ':', "|a||b|" },
        { "", ':', "" },
        { "abc", ':', "abc" },
        { ",", ',', "|" },
        { "0,1,,2", ',', "0|1||2" },
        { "GPU-1,MIG-2", ',', "GPU-1|MIG-2" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct gd_span rest = gd_span_of(cases[i].text), field;
        char joined[64] = "";
        size_t n = 0, count = 0;
        while (gd_span_next_field(&rest, cases[i].sep, &field)) {
            if (count++)
                joined[n++] = '|';
            memcpy(joined + n, field.p, field.n);
            n += field.n;
            joined[n] = '\0';
        }
        if (strcmp(joined, cases[i].want) != 0)
            fail_msg("\"%s\": \"%s\", want \"%s\"", cases[i].text, joined, cases[i].want);
        assert_null(rest.p);
        /* Once exhausted, it stays so. */
        assert_false(gd_span_next_field(&rest, cases[i].sep, &field));
    }
}

/* A string literal and its length, NULs inside included. */
#define LIT(s) s, sizeof(s) - 1

static void test_lines(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        size_t len;
        const char *want; /* lines joined with '|' */
        size_t want_len;
        size_t count;
    } cases[] = {
        { LIT("a\nb\n"), LIT("a|b"), 2 },
        { LIT("a\nb"), LIT("a|b"), 2 },
        { LIT("a\r\nb\r\n"), LIT("a|b"), 2 },
        { LIT("\n\n"), LIT("|"), 2 },
        { LIT(""), LIT(""), 0 },
        { LIT("x"), LIT("x"), 1 },
        { LIT("\r\n"), LIT(""), 1 },
        { LIT("a\rb\n"), LIT("a\rb"), 1 },
        { LIT("a\n\r"), LIT("a|"), 2 },
        { LIT("a\0b\nc"), LIT("a\0b|c"), 2 },
        { "abc\ndef", 2, LIT("ab"), 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *cur = cases[i].text, *end = cases[i].text + cases[i].len;
        struct gd_span line;
        char joined[64];
        size_t n = 0, count = 0;
        while (gd_next_line(&cur, end, &line)) {
            if (count++)
                joined[n++] = '|';
            memcpy(joined + n, line.p, line.n);
            n += line.n;
        }
        if (count != cases[i].count || n != cases[i].want_len ||
            memcmp(joined, cases[i].want, n) != 0)
            fail_msg("case %zu: %zu lines, %zu bytes", i, count, n);
        assert_ptr_equal(cur, end);
    }
    const char *cur = NULL;
    struct gd_span line;
    assert_false(gd_next_line(&cur, cur, &line));
}

static void test_find(void **state)
{
    (void)state;
    static const struct {
        const char *hay;
        size_t n;
        const char *needle;
        long at; /* -1: absent */
    } cases[] = {
        { "GNU C Library", 13, "Library", 6 },
        { "aaab", 4, "aab", 1 },
        { "abcabd", 6, "abd", 3 },
        { "abc", 3, "abcd", -1 },
        { "abc", 3, "", 0 },
        { "abc", 2, "c", -1 },
        { "xx\0needle", 9, "needle", 3 },
        { "needle", 6, "needle", 0 },
        { "", 0, "a", -1 },
        { "ababab", 6, "bab", 1 },
        { "aaaa", 4, "b", -1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *hit = gd_span_find(sp(cases[i].hay, cases[i].n), cases[i].needle);
        long at = hit ? (long)(hit - cases[i].hay) : -1;
        if (at != cases[i].at)
            fail_msg("case %zu: at %ld, want %ld", i, at, cases[i].at);
    }
}

static void test_copy(void **state)
{
    (void)state;
    char buf[5];
    gd_span_copy(gd_span_of("ab"), buf, sizeof buf);
    assert_string_equal(buf, "ab");
    gd_span_copy(gd_span_of("abcdefgh"), buf, sizeof buf);
    assert_string_equal(buf, "abcd");
    gd_span_copy(sp(NULL, 0), buf, sizeof buf);
    assert_string_equal(buf, "");
    char one[1] = { 'x' };
    gd_span_copy(gd_span_of("abc"), one, 1);
    assert_int_equal(one[0], '\0');
}

static void test_paths(void **state)
{
    (void)state;
    static const struct {
        const char *dir, *name, *want;
    } cases[] = {
        { "/usr/lib", "libcuda.so.1", "/usr/lib/libcuda.so.1" },
        { "/usr/lib/", "libcuda.so.1", "/usr/lib/libcuda.so.1" },
        { "/usr/lib//", "/libcuda.so.1", "/usr/lib/libcuda.so.1" },
        { "/", "etc", "/etc" },
        { "//", "etc", "/etc" },
        { "/", "/etc", "/etc" },
        { "", "etc", "etc" },
        { "rel", "x", "rel/x" },
        { "/a", "", "/a/" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *p = gd_path_join(cases[i].dir, cases[i].name);
        if (strcmp(p, cases[i].want) != 0)
            fail_msg("join(\"%s\", \"%s\") = \"%s\", want \"%s\"", cases[i].dir, cases[i].name, p,
                     cases[i].want);
        gd_free(p);
    }
    gd_alloc_fail_at(1);
    char *p = gd_path_join("/a", "b");
    gd_alloc_fail_at(0);
    assert_null(p);

    assert_string_equal(gd_path_base("/usr/lib/libcuda.so.1"), "libcuda.so.1");
    assert_string_equal(gd_path_base("libcuda.so.1"), "libcuda.so.1");
    assert_string_equal(gd_path_base("/usr/lib/"), "");
    assert_string_equal(gd_path_base("/"), "");
}

static void test_text_clean(void **state)
{
    (void)state;
    char buf[16];
    static const struct {
        const char *in;
        size_t n;
        const char *want;
    } cases[] = {
        { "plain text", 10, "plain text" },
        { "tab\there\r\n", 10, "tab?here??" },
        { "nul\0in", 6, "nul?in" },
        { "\x1b[31mred", 8, "?[31mred" },
        { "caf\xc3\xa9", 5, "caf\xc3\xa9" },           /* é kept */
        { "\xe2\x9c\x93 ok", 6, "\xe2\x9c\x93 ok" },   /* U+2713 kept */
        { "\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80" }, /* U+1F600 kept */
        { "bad \xff\xfe", 6, "bad ??" },               /* not UTF-8 */
        { "\xc0\xaf", 2, "??" },                       /* overlong '/' */
        { "\xed\xa0\x80", 3, "???" },                  /* a surrogate */
        { "\xf4\x90\x80\x80", 4, "????" },             /* past U+10FFFF */
        { "cut \xc3", 5, "cut ?" },                    /* a sequence cut short */
        { "\x7f", 1, "?" },
        { "0123456789abcdefgh", 18, "0123456789abcde" },    /* cut to fit */
        { "0123456789abcd\xc3\xa9", 16, "0123456789abcd" }, /* not in the middle of é */
        { "", 0, "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t n = gd_text_clean(sp(cases[i].in, cases[i].n), buf, sizeof buf);
        if (strcmp(buf, cases[i].want) != 0 || n != strlen(buf))
            fail_msg("case %zu: \"%s\" (%zu), want \"%s\"", i, buf, n, cases[i].want);
    }
    char one[1];
    assert_int_equal(gd_text_clean(sp("abc", 3), one, 1), 0);
    assert_int_equal(one[0], '\0');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare),        cmocka_unit_test(test_classes),
        cmocka_unit_test(test_trim_and_split), cmocka_unit_test(test_fields),
        cmocka_unit_test(test_lines),          cmocka_unit_test(test_find),
        cmocka_unit_test(test_copy),           cmocka_unit_test(test_paths),
        cmocka_unit_test(test_text_clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
