/* Versions: every dialect of the stack parsed, formatted and ordered (table-driven). */
#include "core/version.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

struct parse_case {
    const char *text;
    enum gd_status status;
    const char *canonical; /* gd_version_format output */
    int nparts;
    unsigned long major, minor;
    const char *local;
};

static const struct parse_case parse_cases[] = {
    { "12.4", GD_OK, "12.4", 2, 12, 4, "" },
    { "12.4.1", GD_OK, "12.4.1", 3, 12, 4, "" },
    { "V12.4.131", GD_OK, "12.4.131", 3, 12, 4, "" },
    { "8.9.7", GD_OK, "8.9.7", 3, 8, 9, "" },
    { "8.9.7.29", GD_OK, "8.9.7.29", 4, 8, 9, "" },
    { "535.104.05", GD_OK, "535.104.5", 3, 535, 104, "" },
    { "550.54.14", GD_OK, "550.54.14", 3, 550, 54, "" },
    { "2.15.0", GD_OK, "2.15.0", 3, 2, 15, "" },
    { "2.1.0+cu121", GD_OK, "2.1.0+cu121", 3, 2, 1, "cu121" },
    { "1.13.0a0+gitunknown", GD_OK, "1.13.0a0+gitunknown", 3, 1, 13, "gitunknown" },
    { "2.16.0rc0", GD_OK, "2.16.0rc0", 3, 2, 16, "" },
    { "2.16.0-rc1", GD_OK, "2.16.0rc1", 3, 2, 16, "" },
    { "2.5.0.dev20240601", GD_OK, "2.5.0.dev20240601", 3, 2, 5, "" },
    { "2.0.0.post1", GD_OK, "2.0.0.post1", 3, 2, 0, "" },
    { "1.0-1", GD_OK, "1.0.post1", 2, 1, 0, "" },
    { "1.0alpha2", GD_OK, "1.0a2", 2, 1, 0, "" },
    { "1.0.BETA", GD_OK, "1.0b0", 2, 1, 0, "" },
    { "1.0c3", GD_OK, "1.0rc3", 2, 1, 0, "" },
    { "1!2.0", GD_OK, "1!2.0", 2, 2, 0, "" },
    { " 12.2 \n", GD_OK, "12.2", 2, 12, 2, "" },
    { "2.1.0+CU118", GD_OK, "2.1.0+cu118", 3, 2, 1, "cu118" },
    { "", GD_EFORMAT, NULL, 0, 0, 0, NULL },
    { "v", GD_EFORMAT, NULL, 0, 0, 0, NULL },
    { "abc", GD_EFORMAT, NULL, 0, 0, 0, NULL },
    { "1..2", GD_EFORMAT, NULL, 0, 0, 0, NULL },
    { "1.2.", GD_EFORMAT, NULL, 0, 0, 0, NULL },
    { "1.2+", GD_EFORMAT, NULL, 0, 0, 0, NULL },
    { "1.2+a b", GD_EFORMAT, NULL, 0, 0, 0, NULL },
    { "1.2 3", GD_EFORMAT, NULL, 0, 0, 0, NULL },
    { "12345678901.0", GD_EFORMAT, NULL, 0, 0, 0, NULL },
    { "1.2.3.4.5.6.7", GD_ELIMIT, NULL, 0, 0, 0, NULL },
    { "1.0+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", GD_ELIMIT, NULL, 0, 0,
      0, NULL },
};

static void test_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof parse_cases / sizeof *parse_cases; i++) {
        const struct parse_case *c = &parse_cases[i];
        struct gd_version v;
        enum gd_status st = gd_version_parse(c->text, &v);
        if (st != c->status)
            fail_msg("\"%s\": status %d, want %d", c->text, st, c->status);
        if (st != GD_OK)
            continue;
        char buf[GD_VERSION_TEXT_MAX];
        gd_version_format(&v, buf, sizeof buf);
        if (strcmp(buf, c->canonical) != 0)
            fail_msg("\"%s\": formatted \"%s\", want \"%s\"", c->text, buf, c->canonical);
        assert_int_equal(v.nparts, c->nparts);
        assert_int_equal(gd_version_major(&v), c->major);
        assert_int_equal(gd_version_minor(&v), c->minor);
        assert_string_equal(v.local, c->local);
    }
}

/* The display text keeps what was written (drivers print "535.104.05", not "535.104.5"). */
static void test_text_kept(void **state)
{
    (void)state;
    struct gd_version v;
    assert_int_equal(gd_version_parse("  v535.104.05 ", &v), GD_OK);
    assert_string_equal(v.text, "535.104.05");
    assert_int_equal(gd_version_parse(NULL, &v), GD_EFORMAT);
}

struct int_case {
    char kind; /* 'u' CUDA, 'd' cuDNN, 'n' NCCL */
    long value;
    enum gd_status status;
    const char *canonical;
};

static const struct int_case int_cases[] = {
    { 'u', 12040, GD_OK, "12.4" },   { 'u', 11080, GD_OK, "11.8" }, { 'u', 13000, GD_OK, "13.0" },
    { 'u', 10020, GD_OK, "10.2" },   { 'u', 9020, GD_OK, "9.2" },   { 'u', 0, GD_EFORMAT, NULL },
    { 'u', -5, GD_EFORMAT, NULL },   { 'd', 8907, GD_OK, "8.9.7" }, { 'd', 90100, GD_OK, "9.1.0" },
    { 'd', 91900, GD_OK, "9.19.0" }, { 'd', 7605, GD_OK, "7.6.5" }, { 'd', 8100, GD_OK, "8.1.0" },
    { 'd', 0, GD_EFORMAT, NULL },    { 'n', 2408, GD_OK, "2.4.8" }, { 'n', 21803, GD_OK, "2.18.3" },
    { 'n', 22809, GD_OK, "2.28.9" }, { 'n', 0, GD_EFORMAT, NULL },
};

static void test_integers(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof int_cases / sizeof *int_cases; i++) {
        const struct int_case *c = &int_cases[i];
        struct gd_version v;
        enum gd_status st = c->kind == 'u'   ? gd_version_from_cuda_int(c->value, &v)
                            : c->kind == 'd' ? gd_version_from_cudnn_int(c->value, &v)
                                             : gd_version_from_nccl_int(c->value, &v);
        if (st != c->status)
            fail_msg("%c %ld: status %d, want %d", c->kind, c->value, st, c->status);
        if (st == GD_OK) {
            char buf[GD_VERSION_TEXT_MAX];
            gd_version_format(&v, buf, sizeof buf);
            if (strcmp(buf, c->canonical) != 0)
                fail_msg("%c %ld: \"%s\", want \"%s\"", c->kind, c->value, buf, c->canonical);
            assert_string_equal(v.text, c->canonical);
        }
    }
}

static const struct {
    const char *tag;
    enum gd_status status;
    const char *canonical;
} tag_cases[] = {
    { "cu121", GD_OK, "12.1" },     { "cu118", GD_OK, "11.8" },    { "cu102", GD_OK, "10.2" },
    { "cu92", GD_OK, "9.2" },       { "cu80", GD_OK, "8.0" },      { "cu12", GD_OK, "12" },
    { "cu11", GD_OK, "11" },        { "CU126", GD_OK, "12.6" },    { "cuda12", GD_OK, "12" },
    { "cuda112", GD_OK, "11.2" },   { "cuda12x", GD_OK, "12" },    { "cuda11x", GD_OK, "11" },
    { "cu130", GD_OK, "13.0" },     { "cpu", GD_EFORMAT, NULL },   { "cu", GD_EFORMAT, NULL },
    { "cu1234", GD_EFORMAT, NULL }, { "cu12a", GD_EFORMAT, NULL }, { "rocm5.7", GD_EFORMAT, NULL },
    { "", GD_EFORMAT, NULL },
};

static void test_cuda_tags(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof tag_cases / sizeof *tag_cases; i++) {
        struct gd_version v;
        enum gd_status st = gd_version_from_cuda_tag(tag_cases[i].tag, &v);
        if (st != tag_cases[i].status)
            fail_msg("tag \"%s\": status %d", tag_cases[i].tag, st);
        if (st == GD_OK) {
            char buf[GD_VERSION_TEXT_MAX];
            gd_version_format(&v, buf, sizeof buf);
            if (strcmp(buf, tag_cases[i].canonical) != 0)
                fail_msg("tag \"%s\": \"%s\"", tag_cases[i].tag, buf);
        }
    }
}

/* Each row is strictly ordered: a < b. */
static const struct {
    const char *a, *b;
} order_cases[] = {
    { "12.2", "12.4" },
    { "12.4", "12.10" },
    { "11.8", "12.0" },
    { "535.104.05", "535.129.03" },
    { "535.129.03", "550.54.14" },
    { "8.9.7", "9.0.0" },
    { "2.16.0rc0", "2.16.0" },
    { "2.16.0rc0", "2.16.0rc1" },
    { "2.16.0a1", "2.16.0b0" },
    { "2.16.0b3", "2.16.0rc0" },
    { "2.5.0.dev20240601", "2.5.0a0" },
    { "2.5.0.dev1", "2.5.0.dev2" },
    { "2.5.0", "2.5.0.post1" },
    { "2.5.0.post1.dev1", "2.5.0.post1" },
    { "1.13.0a0+gitunknown", "1.13.0" },
    { "1.13.0", "1.13.1" },
    { "2.1.0", "2.1.0+cu121" },
    { "2.1.0+cu118", "2.1.0+cu121" },
    { "2.0", "1!1.0" },
    { "1.0", "1.0.1" },
};

static void test_order(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof order_cases / sizeof *order_cases; i++) {
        struct gd_version a, b;
        assert_int_equal(gd_version_parse(order_cases[i].a, &a), GD_OK);
        assert_int_equal(gd_version_parse(order_cases[i].b, &b), GD_OK);
        if (gd_version_cmp(&a, &b) >= 0 || gd_version_cmp(&b, &a) <= 0)
            fail_msg("want %s < %s", order_cases[i].a, order_cases[i].b);
    }
}

static void test_equal_and_prefix(void **state)
{
    (void)state;
    struct gd_version a, b, p;
    assert_int_equal(gd_version_parse("12.4", &a), GD_OK);
    assert_int_equal(gd_version_parse("12.4.0", &b), GD_OK);
    assert_int_equal(gd_version_cmp(&a, &b), 0);
    gd_version_from_cuda_int(12040, &b);
    assert_int_equal(gd_version_cmp(&a, &b), 0);
    gd_version_from_cuda_tag("cu124", &b);
    assert_int_equal(gd_version_cmp(&a, &b), 0);

    assert_int_equal(gd_version_parse("8.9.7", &a), GD_OK);
    assert_int_equal(gd_version_parse("8.9", &p), GD_OK);
    assert_true(gd_version_has_prefix(&a, &p));
    assert_int_equal(gd_version_parse("8.8", &p), GD_OK);
    assert_false(gd_version_has_prefix(&a, &p));
    assert_int_equal(gd_version_parse("8", &p), GD_OK);
    assert_true(gd_version_has_prefix(&a, &p));
    assert_int_equal(gd_version_cmp_parts(&a, &p, 1), 0);
    assert_true(gd_version_cmp_parts(&a, &p, 2) > 0);

    assert_int_equal(gd_version_parse("2.16.0rc0", &a), GD_OK);
    assert_true(gd_version_is_prerelease(&a));
    assert_int_equal(gd_version_parse("2.16.0", &a), GD_OK);
    assert_false(gd_version_is_prerelease(&a));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),    cmocka_unit_test(test_text_kept),
        cmocka_unit_test(test_integers), cmocka_unit_test(test_cuda_tags),
        cmocka_unit_test(test_order),    cmocka_unit_test(test_equal_and_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
