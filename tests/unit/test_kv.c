/* KEY=VALUE files: os-release(5) shell quoting and docker's plain env-file lines. */
#include "core/buf.h"
#include "parse/kv.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Every variable the parser hands over, as "KEY=VALUE@LINE\n". */
struct seen {
    struct gd_buf out;
    size_t stop_after; /* 0: never stop */
    size_t calls;
};

static bool collect(void *user, const char *key, const char *value, size_t line)
{
    struct seen *s = user;
    gd_buf_printf(&s->out, "%s=%s@%zu\n", key, value, line);
    s->calls++;
    return !(s->stop_after && s->calls == s->stop_after);
}

struct kv_case {
    enum gd_kv_style style;
    const char *data;
    const char *want; /* the collected variables */
    size_t bad;       /* malformed lines */
};

#define SH GD_KV_SHELL
#define PL GD_KV_PLAIN

static const struct kv_case cases[] = {
    /* os-release(5) as distributions ship it. */
    { SH,
      "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\n"
      "VERSION_ID=\"12\"\nVERSION=\"12 (bookworm)\"\nVERSION_CODENAME=bookworm\nID=debian\n"
      "HOME_URL=\"https://www.debian.org/\"\n",
      "PRETTY_NAME=Debian GNU/Linux 12 (bookworm)@1\nNAME=Debian GNU/Linux@2\nVERSION_ID=12@3\n"
      "VERSION=12 (bookworm)@4\nVERSION_CODENAME=bookworm@5\nID=debian@6\n"
      "HOME_URL=https://www.debian.org/@7\n",
      0 },
    { SH, "ID=ubuntu\nID_LIKE=debian\nPRETTY_NAME='Ubuntu 22.04.3 LTS'\n",
      "ID=ubuntu@1\nID_LIKE=debian@2\nPRETTY_NAME=Ubuntu 22.04.3 LTS@3\n", 0 },
    { SH, "ID=\"rhel\"\nID_LIKE=\"fedora\"\nVERSION_ID=\"9.3\"",
      "ID=rhel@1\nID_LIKE=fedora@2\nVERSION_ID=9.3@3\n", 0 },
    /* Comments, blank lines and white space around the assignment. */
    { SH, "# comment\n\n   \n  ID=arch  \n\t# indented comment\n", "ID=arch@4\n", 0 },
    { SH, "ID=debian\r\nVERSION_ID=\"12\"\r\n", "ID=debian@1\nVERSION_ID=12@2\n", 0 },
    /* Shell escapes: inside double quotes \ escapes $ ` " \ only; elsewhere it is kept. */
    { SH, "A=\"12 (\\\"bookworm\\\")\"\n", "A=12 (\"bookworm\")@1\n", 0 },
    { SH, "A=\"a\\\\b\"\nB=\"\\$HOME\"\nC=\"x\\`y\"\n", "A=a\\b@1\nB=$HOME@2\nC=x`y@3\n", 0 },
    { SH, "A=\"C:\\path\\new\"\n", "A=C:\\path\\new@1\n", 0 },
    /* Single quotes take everything literally. */
    { SH, "A='a\\b \"c\"'\n", "A=a\\b \"c\"@1\n", 0 },
    /* Outside quotes a backslash escapes the next character. */
    { SH, "A=a\\ b\n", "A=a b@1\n", 0 },
    /* Adjacent quoted parts join, as in the shell. */
    { SH, "A=\"a\"'b'c\n", "A=abc@1\n", 0 },
    { SH, "A=\nB=\"\"\nC=''\n", "A=@1\nB=@2\nC=@3\n", 0 },
    { SH, "A==x\n", "A==x@1\n", 0 },
    /* Malformed: unterminated quotes, no '=', bad names. */
    { SH, "A=\"open\nB='open\nOK=1\n", "OK=1@3\n", 2 },
    { SH, "just words\n=value\n1ABC=x\nA-B=x\nA.B=x\nexport X=1\nGOOD_1=y\n", "GOOD_1=y@7\n", 6 },
    /* Last line without a newline; empty input. */
    { SH, "A=1\nB=2", "A=1@1\nB=2@2\n", 0 },
    { SH, "", "", 0 },
    { SH, "\n\n\n", "", 0 },

    /* docker --env-file: the value verbatim after the first '=', no quoting. */
    { PL, "A=b c\nB=\"quoted\"\nC='single'\nD=x  \nE=a\\tb\nF==g\n",
      "A=b c@1\nB=\"quoted\"@2\nC='single'@3\nD=x  @4\nE=a\\tb@5\nF==g@6\n", 0 },
    { PL, "  INDENTED=1\n# comment\n\nEMPTY=\n", "INDENTED=1@1\nEMPTY=@4\n", 0 },
    { PL, "A = b\nNOEQUALS\nOK=1\n1X=2\n", "OK=1@3\n", 3 },
    { PL, "A=x\tgoes on\r\n", "A=x\tgoes on@1\n", 0 },
};

static void run_case(const struct kv_case *c, size_t len, size_t index)
{
    struct seen s = { .stop_after = 0 };
    gd_buf_init(&s.out, 1 << 20);
    size_t bad = 99;
    assert_int_equal(gd_parse_kv(c->data, len, c->style, collect, &s, &bad), GD_OK);
    if (strcmp(gd_buf_str(&s.out), c->want) != 0)
        fail_msg("case %zu: got\n%s\nwant\n%s", index, gd_buf_str(&s.out), c->want);
    if (bad != c->bad)
        fail_msg("case %zu: %zu malformed lines, want %zu", index, bad, c->bad);
    gd_buf_free(&s.out);
}

static void test_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        run_case(&cases[i], strlen(cases[i].data), i);
}

/* NUL bytes: a line holding one is malformed, and nothing after `len` is read. */
static void test_nul_bytes(void **state)
{
    (void)state;
    static const char data[] = "A=1\nB=x\0y\nC\0D=2\nE=\"q\0\"\nF=3\n";
    static const struct kv_case plain = { PL, data, "A=1@1\nF=3@5\n", 3 };
    static const struct kv_case shell = { SH, data, "A=1@1\nF=3@5\n", 3 };
    run_case(&plain, sizeof data - 1, 0);
    run_case(&shell, sizeof data - 1, 1);

    /* A length that stops mid-line: the partial line is the last one. */
    static const struct kv_case cut = { PL, "A=123456\nB=2\n", "A=123@1\n", 0 };
    run_case(&cut, 5, 2);
    static const struct kv_case none = { PL, "A=1\n", "", 0 };
    run_case(&none, 0, 3);
}

/* Values up to GD_KV_VALUE_MAX - 1 bytes are kept whole; longer lines are malformed. */
static void test_long_values(void **state)
{
    (void)state;
    static const size_t sizes[] = { 1, GD_KV_VALUE_MAX - 1, GD_KV_VALUE_MAX, 100000 };
    for (int style = 0; style < 2; style++) {
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            size_t n = sizes[i];
            char *data = malloc(n + 16);
            memcpy(data, "K=", 2);
            memset(data + 2, 'v', n);
            memcpy(data + 2 + n, "\nZ=1\n", 6);
            struct seen s = { .stop_after = 0 };
            gd_buf_init(&s.out, 1 << 20);
            size_t bad = 0;
            assert_int_equal(gd_parse_kv(data, strlen(data), style ? GD_KV_PLAIN : GD_KV_SHELL,
                                         collect, &s, &bad),
                             GD_OK);
            bool fits = n < GD_KV_VALUE_MAX;
            assert_int_equal(bad, fits ? 0 : 1);
            assert_int_equal(s.calls, fits ? 2 : 1);
            if (fits) {
                /* "K=" + n values + "@1\n" */
                const char *out = gd_buf_str(&s.out);
                assert_int_equal(strcspn(out, "@"), n + 2);
            }
            assert_non_null(strstr(gd_buf_str(&s.out), "Z=1@2\n"));
            gd_buf_free(&s.out);
            free(data);
        }
    }
    /* Keys: up to GD_KV_KEY_MAX - 1 characters. */
    char line[GD_KV_KEY_MAX + 8];
    memset(line, 'K', GD_KV_KEY_MAX - 1);
    memcpy(line + GD_KV_KEY_MAX - 1, "=1\n", 4);
    size_t bad = 1;
    struct seen s = { .stop_after = 0 };
    gd_buf_init(&s.out, 4096);
    assert_int_equal(gd_parse_kv(line, strlen(line), GD_KV_SHELL, collect, &s, &bad), GD_OK);
    assert_int_equal(bad, 0);
    assert_int_equal(s.calls, 1);
    memset(line, 'K', GD_KV_KEY_MAX);
    memcpy(line + GD_KV_KEY_MAX, "=1\n", 4);
    assert_int_equal(gd_parse_kv(line, strlen(line), GD_KV_SHELL, collect, &s, &bad), GD_OK);
    assert_int_equal(bad, 1);
    assert_int_equal(s.calls, 1);
    gd_buf_free(&s.out);
}

/* The callback stops the parse; `bad` may be NULL. */
static void test_stop(void **state)
{
    (void)state;
    struct seen s = { .stop_after = 2 };
    gd_buf_init(&s.out, 4096);
    static const char data[] = "A=1\nB=2\nC=3\n";
    assert_int_equal(gd_parse_kv(data, sizeof data - 1, GD_KV_PLAIN, collect, &s, NULL), GD_OK);
    assert_string_equal(gd_buf_str(&s.out), "A=1@1\nB=2@2\n");
    gd_buf_free(&s.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_nul_bytes),
        cmocka_unit_test(test_long_values),
        cmocka_unit_test(test_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
