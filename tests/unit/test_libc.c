/* The glibc version of a foreign tree: from versioned file names, or the banner in libc.so.6. */
#include "parse/libc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const struct {
    const char *name;
    const char *version; /* NULL: not a versioned libc */
} name_cases[] = {
    { "libc-2.31.so", "2.31" },
    { "ld-2.27.so", "2.27" },
    { "libc-2.17.so", "2.17" },
    { "libc-2.31.0.so", "2.31.0" },
    { "libc.so.6", NULL },
    { "libc.so", NULL },
    { "libc-2.31.so.1", NULL },
    { "libc-.so", NULL },
    { "libc-x.so", NULL },
    { "libc-2.so", NULL },
    { "libc-2.31-2.so", NULL },
    { "libc-2.31.so ", NULL },
    { "libcrypt-2.31.so", NULL },
    { "libcrypt.so.1", NULL },
    { "ld-linux-x86-64.so.2", NULL },
    { "ld-linux-aarch64.so.1", NULL },
    { "ld-.so", NULL },
    { "ld-", NULL },
    { "", NULL },
};

static void test_names(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof name_cases / sizeof *name_cases; i++) {
        char buf[32] = "unchanged";
        bool found = gd_libc_version_from_name(name_cases[i].name, buf, sizeof buf);
        const char *want = name_cases[i].version;
        if (found != (want != NULL))
            fail_msg("\"%s\": found %d", name_cases[i].name, found);
        if (found && strcmp(buf, want) != 0)
            fail_msg("\"%s\": \"%s\", want \"%s\"", name_cases[i].name, buf, want);
    }
    char small[4];
    assert_false(gd_libc_version_from_name("libc-2.31.so", small, sizeof small));
    char exact[5];
    assert_true(gd_libc_version_from_name("libc-2.31.so", exact, sizeof exact));
    assert_string_equal(exact, "2.31");
}

/* A blob standing in for libc.so.6: binary bytes, NULs, then the banner string. */
static size_t blob(char *out, size_t size, const char *before, size_t before_len,
                   const char *banner, size_t banner_len)
{
    size_t n = 0;
    for (size_t i = 0; i < 3000 && n < size; i++)
        out[n++] = (char)(i * 131 % 256 == 'G' ? 0 : i * 131 % 256);
    memcpy(out + n, before, before_len);
    n += before_len;
    memcpy(out + n, banner, banner_len);
    n += banner_len;
    out[n++] = '\0';
    for (size_t i = 0; i < 500; i++)
        out[n++] = (char)(i % 7);
    return n;
}

static void test_banner(void **state)
{
    (void)state;
/* A string literal and its length, NULs inside included. */
#define LIT(s) s, sizeof(s) - 1
    static const struct {
        const char *before;
        size_t before_len;
        const char *banner;
        size_t banner_len;
        const char *version;
    } cases[] = {
        { LIT(""),
          LIT("GNU C Library (Debian GLIBC 2.36-9+deb12u4) stable release version 2.36.\n"
              "Copyright (C) 2022 Free Software Foundation, Inc.\n"),
          "2.36" },
        { LIT(""),
          LIT("GNU C Library (Ubuntu GLIBC 2.35-0ubuntu3.8) stable release version 2.35.\n"
              "Copyright (C) 2022 Free Software Foundation, Inc.\n"),
          "2.35" },
        { LIT(""), LIT("GNU C Library (GNU libc) stable release version 2.34."), "2.34" },
        { LIT(""), LIT("GNU C Library (GNU libc) development release version 2.40.9000."),
          "2.40.9000" },
        /* The marker elsewhere first (another string), then the banner. */
        { LIT("GNU C Library\0"),
          LIT("GNU C Library (Debian GLIBC 2.31-13+deb11u8) stable release version 2.31."),
          "2.31" },
        /* "release version" after the string's NUL belongs to another string. */
        { LIT(""), LIT("GNU C Library (GNU libc) stable\0release version 2.36."), NULL },
        { LIT(""), LIT("GNU C Library (GNU libc) stable release version ."), NULL },
        { LIT(""), LIT("GNU C Library (GNU libc) stable release version x2.36"), NULL },
        { LIT(""), LIT("GNU C Library"), NULL },
        { LIT(""), LIT("release version 2.36. GNU C"), NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        static char data[8192];
        size_t n = blob(data, sizeof data, cases[i].before, cases[i].before_len, cases[i].banner,
                        cases[i].banner_len);
        char buf[32] = "unchanged";
        bool found = gd_libc_version_from_banner(data, n, buf, sizeof buf);
        const char *want = cases[i].version;
        if (found != (want != NULL))
            fail_msg("case %zu: found %d (%s)", i, found, buf);
        if (found && strcmp(buf, want) != 0)
            fail_msg("case %zu: \"%s\", want \"%s\"", i, buf, want);
    }
    /* A banner at the very end of the data, without a NUL after it. */
    static const char tail[] = "\x7f"
                               "ELF\x02\x01GNU C Library (GNU libc) stable release version 2.39";
    char buf[32];
    assert_true(gd_libc_version_from_banner(tail, sizeof tail - 1, buf, sizeof buf));
    assert_string_equal(buf, "2.39");
    /* Cut before the version ends: only what is inside `len` counts. */
    assert_true(gd_libc_version_from_banner(tail, sizeof tail - 2, buf, sizeof buf));
    assert_string_equal(buf, "2.3");
    assert_false(gd_libc_version_from_banner(tail, sizeof tail - 5, buf, sizeof buf));
    assert_false(gd_libc_version_from_banner("", 0, buf, sizeof buf));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_banner),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
