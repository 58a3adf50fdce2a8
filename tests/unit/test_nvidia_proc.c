/* /proc/driver/nvidia/version as the proprietary and the open kernel modules write it. */
#include "parse/nvidia_proc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

struct proc_case {
    const char *data;
    enum gd_status status;
    const char *version;
    bool open;
    const char *gcc;
};

static const struct proc_case cases[] = {
    /* Proprietary modules, x86_64 and aarch64. */
    { "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"
      "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14) \n",
      GD_OK, "535.104.05", false, "gcc version 12.2.0 (Debian 12.2.0-14)" },
    { "NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.161.08  Tue Mar  5 22:18:48 UTC 2024\n"
      "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04) \n",
      GD_OK, "535.161.08", false, "gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)" },
    { "NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.223.02  Sat Oct  7 15:35:29 UTC 2023\n"
      "GCC version:  gcc version 8.5.0 20210514 (Red Hat 8.5.0-20) (GCC) \n",
      GD_OK, "470.223.02", false, "gcc version 8.5.0 20210514 (Red Hat 8.5.0-20) (GCC)" },
    /* Old two-part versions. */
    { "NVRM version: NVIDIA UNIX x86_64 Kernel Module  390.157  Wed Oct 12 09:19:07 UTC 2022\n",
      GD_OK, "390.157", false, "" },
    /* Open modules name the flavour and the architecture after it. */
    { "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build  "
      "(dvs-builder@U16-I3-B03-4-3)  Thu Feb 22 01:25:25 UTC 2024\n"
      "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) \n",
      GD_OK, "550.54.14", true, "gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)" },
    { "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  570.86.15  Release Build  "
      "(dvs-builder@U16-I1-N08-12-2)  Thu Jan 23 22:48:50 UTC 2025\r\n",
      GD_OK, "570.86.15", true, "" },
    /* White space, CRLF, no trailing newline, the GCC line first. */
    { "GCC version:  gcc version 13.2.0\n  NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
      "580.65.06",
      GD_OK, "580.65.06", false, "gcc version 13.2.0" },
    /* Only the first NVRM line counts. */
    { "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  x\n"
      "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  y\n",
      GD_OK, "535.104.05", false, "" },
    /* Garbage. */
    { "", GD_EFORMAT, NULL, false, NULL },
    { "hello\nworld\n", GD_EFORMAT, NULL, false, NULL },
    { "NVRM version:\n", GD_EFORMAT, NULL, false, NULL },
    { "NVRM version: NVIDIA UNIX x86_64 Kernel Module   Sat Aug 19 01:15:15 UTC 2023\n", GD_EFORMAT,
      NULL, false, NULL },
    { "NVRM version NVIDIA UNIX x86_64 Kernel Module  535.104.05\n", GD_EFORMAT, NULL, false,
      NULL },
    { "GCC version:  gcc version 12.2.0\n", GD_EFORMAT, NULL, false, NULL },
    { "nvrm version: NVIDIA UNIX x86_64 Kernel Module  535.104.05\n", GD_EFORMAT, NULL, false,
      NULL },
    { "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05.1.2\n", GD_EFORMAT, NULL, false,
      NULL },
    { "NVRM version: NVIDIA UNIX x86_64 Kernel Module  v535x104\n", GD_EFORMAT, NULL, false, NULL },
};

static void test_proc_version(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct proc_case *c = &cases[i];
        struct gd_nvidia_proc_version v;
        memset(&v, 'x', sizeof v);
        enum gd_status st = gd_parse_nvidia_proc_version(c->data, strlen(c->data), &v);
        if (st != c->status)
            fail_msg("case %zu: status %s", i, gd_status_str(st));
        if (st != GD_OK) {
            assert_string_equal(v.version, "");
            continue;
        }
        if (strcmp(v.version, c->version) != 0)
            fail_msg("case %zu: version \"%s\", want \"%s\"", i, v.version, c->version);
        if (v.open_module != c->open)
            fail_msg("case %zu: open_module %d", i, v.open_module);
        if (strcmp(v.gcc, c->gcc) != 0)
            fail_msg("case %zu: gcc \"%s\", want \"%s\"", i, v.gcc, c->gcc);
    }
}

/* Binary junk and NUL bytes; nothing past `len` is read. */
static void test_binary(void **state)
{
    (void)state;
    static const char junk[] = "\x7f"
                               "ELF\0\0\0NVRM version:\0 535.104.05\n\xff\xfe";
    struct gd_nvidia_proc_version v;
    assert_int_equal(gd_parse_nvidia_proc_version(junk, sizeof junk - 1, &v), GD_EFORMAT);
    static const char line[] = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat";
    /* Cut inside the version: "535.10" is still a version token at the end of the data. */
    size_t cut = strstr(line, "535.104.05") - line + 6;
    assert_int_equal(gd_parse_nvidia_proc_version(line, cut, &v), GD_OK);
    assert_string_equal(v.version, "535.10");
    assert_int_equal(gd_parse_nvidia_proc_version(line, 20, &v), GD_EFORMAT);
}

struct token_case {
    const char *text;
    bool found;
    const char *want;
};

static const struct token_case token_cases[] = {
    { "550.54.14", true, "550.54.14" },
    { "x86_64 535.104.05 rest", true, "535.104.05" },
    /* A token has white space (or the text's ends) on both sides. */
    { "x86_64.1 535.104.05", true, "535.104.05" },
    { "v535.104.05", false, NULL },
    { "(535.104.05)", false, NULL },
    { "\t535.104.05\n", true, "535.104.05" },
    { "390.157", true, "390.157" },
    { "12", false, NULL },
    { "12.", false, NULL },
    { ".12.3", false, NULL },
    { "1.2.3.4", false, NULL },
    { "535.104.05a", false, NULL },
    { "abc", false, NULL },
    { "", false, NULL },
    { "01:15:15 2023", false, NULL },
};

static void test_find_version(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof token_cases / sizeof *token_cases; i++) {
        const struct token_case *c = &token_cases[i];
        char buf[32] = "unchanged";
        bool found = gd_find_driver_version(c->text, strlen(c->text), buf, sizeof buf);
        if (found != c->found)
            fail_msg("\"%s\": found %d", c->text, found);
        if (found && strcmp(buf, c->want) != 0)
            fail_msg("\"%s\": \"%s\", want \"%s\"", c->text, buf, c->want);
    }
    /* A buffer too small for the token is no match, never a truncated version. */
    char small[8];
    assert_false(gd_find_driver_version("535.104.05", 10, small, sizeof small));
    char exact[11];
    assert_true(gd_find_driver_version("535.104.05", 10, exact, sizeof exact));
    assert_string_equal(exact, "535.104.05");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proc_version),
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_find_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
