/* The knowledge base: table validation, --kb overrides, and the embedded tables themselves. */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "kb/embedded.h"
#include "kb/kb.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

#define GOOD                                                                                       \
    "{\n  \"table\": \"demo\",\n  \"format\": 1,\n  \"description\": \"a test table\",\n"          \
    "  \"sources\": {\n    \"a\": { \"title\": \"Source A\", \"url\": \"https://a.example/\" },\n" \
    "    \"b\": { \"url\": \"https://b.example/x\" }\n  },\n"                                      \
    "  \"rows\": [\n    { \"name\": \"one\", \"n\": 12, \"f\": 0.5, \"yes\": true,\n"              \
    "      \"list\": [\"x\", \"y\", 3], \"obj\": {}, \"source\": \"a\" },\n"                       \
    "    { \"name\": \"two\", \"list\": \"not a list\", \"source\": \"b\" }\n  ]\n}\n"

static void test_parse_good(void **state)
{
    (void)state;
    struct gd_kb_table *t = NULL;
    char problem[256] = "unchanged";
    assert_int_equal(gd_kb_table_parse("demo", GOOD, strlen(GOOD), &t, problem, sizeof problem),
                     GD_OK);
    assert_non_null(t);
    assert_string_equal(problem, "");
    assert_string_equal(gd_kb_table_name(t), "demo");
    assert_string_equal(gd_kb_table_origin(t), "embedded");
    assert_int_equal(gd_kb_row_count(t), 2);
    const struct gd_kb_row *one = gd_kb_row_at(t, 0), *two = gd_kb_row_at(t, 1);
    assert_null(gd_kb_row_at(t, 2));
    assert_string_equal(gd_kb_str(one, "name"), "one");
    /* Numbers and booleans as their JSON text; objects and arrays are no strings. */
    assert_string_equal(gd_kb_str(one, "n"), "12");
    assert_string_equal(gd_kb_str(one, "f"), "0.5");
    assert_string_equal(gd_kb_str(one, "yes"), "true");
    assert_null(gd_kb_str(one, "obj"));
    assert_null(gd_kb_str(one, "list"));
    assert_null(gd_kb_str(one, "missing"));
    assert_null(gd_kb_str(NULL, "name"));
    assert_int_equal(gd_kb_list_len(one, "list"), 3);
    assert_string_equal(gd_kb_list_at(one, "list", 0), "x");
    assert_string_equal(gd_kb_list_at(one, "list", 2), "3");
    assert_null(gd_kb_list_at(one, "list", 3));
    assert_true(gd_kb_list_has(one, "list", "y"));
    assert_false(gd_kb_list_has(one, "list", "Y"));
    assert_false(gd_kb_list_has(one, "name", "one"));
    assert_int_equal(gd_kb_list_len(two, "list"), 0); /* a string is not a list */
    assert_null(gd_kb_list_at(two, "list", 0));
    assert_int_equal(gd_kb_list_len(one, "missing"), 0);
    assert_string_equal(gd_kb_row_source(one), "a");
    assert_string_equal(gd_kb_source_url(t, "a"), "https://a.example/");
    assert_string_equal(gd_kb_source_title(t, "a"), "Source A");
    assert_string_equal(gd_kb_source_url(t, gd_kb_row_source(two)), "https://b.example/x");
    assert_null(gd_kb_source_title(t, "b"));
    assert_null(gd_kb_source_url(t, "c"));
    assert_null(gd_kb_source_url(t, NULL));
    assert_null(gd_kb_source_url(NULL, "a"));
    assert_int_equal(gd_kb_row_count(NULL), 0);
    assert_null(gd_kb_row_at(NULL, 0));
    gd_kb_table_free(t);
    gd_kb_table_free(NULL);

    /* Trailing white space is fine; an empty rows array too. */
    static const char ws[] = "{\"table\":\"t\",\"format\":1,\"sources\":{},\"rows\":[]} \n\t\r\n";
    assert_int_equal(gd_kb_table_parse("t", ws, strlen(ws), &t, problem, sizeof problem), GD_OK);
    assert_int_equal(gd_kb_row_count(t), 0);
    gd_kb_table_free(t);
}

struct bad_case {
    const char *name;
    const char *json;
    const char *problem; /* a substring of the problem text */
};

#define TABLE(sources, rows) \
    "{\"table\": \"t\", \"format\": 1, \"sources\": " sources ", \"rows\": " rows "}"
#define SRC "{\"s\": {\"url\": \"https://s.example/\"}}"

static const struct bad_case bad_cases[] = {
    { "t", "", "invalid JSON" },
    { "t", "{", "invalid JSON" },
    { "t", "not json", "invalid JSON" },
    /* Trailing commas and leading zeros are not JSON, though json-c's lenient mode takes them. */
    { "t", "{\"table\": \"t\",}", "invalid JSON" },
    { "t", TABLE(SRC, "[{\"source\": \"s\"},]"), "invalid JSON" },
    { "t", "{\"table\": \"t\", \"format\": 01, \"sources\": " SRC ", \"rows\": []}",
      "invalid JSON" },
    { "t", TABLE(SRC, "[]") " x", "trailing data" },
    { "t", TABLE(SRC, "[]") TABLE(SRC, "[]"), "trailing data" },
    { "t", "[" TABLE(SRC, "[]") "]", "not a JSON object" },
    { "t", "\"t\"", "not a JSON object" },
    /* "format" must be the integer 1. */
    { "t", "{\"table\": \"t\", \"sources\": " SRC ", \"rows\": []}", "\"format\"" },
    { "t", "{\"table\": \"t\", \"format\": 2, \"sources\": " SRC ", \"rows\": []}", "\"format\"" },
    { "t", "{\"table\": \"t\", \"format\": 0, \"sources\": " SRC ", \"rows\": []}", "\"format\"" },
    { "t", "{\"table\": \"t\", \"format\": \"1\", \"sources\": " SRC ", \"rows\": []}",
      "\"format\"" },
    { "t", "{\"table\": \"t\", \"format\": true, \"sources\": " SRC ", \"rows\": []}",
      "\"format\"" },
    { "t", "{\"table\": \"t\", \"format\": 1.5, \"sources\": " SRC ", \"rows\": []}",
      "\"format\"" },
    /* "table" must name the file. */
    { "other", TABLE(SRC, "[]"), "\"table\" does not match" },
    { "t", "{\"format\": 1, \"sources\": " SRC ", \"rows\": []}", "\"table\" does not match" },
    { "t", "{\"table\": 1, \"format\": 1, \"sources\": " SRC ", \"rows\": []}",
      "\"table\" does not match" },
    { "T", TABLE(SRC, "[]"), "\"table\" does not match" },
    /* Sources. */
    { "t", "{\"table\": \"t\", \"format\": 1, \"rows\": []}", "no \"sources\" object" },
    { "t", TABLE("[]", "[]"), "no \"sources\" object" },
    { "t", TABLE("{\"s\": {\"title\": \"no url\"}}", "[]"), "source \"s\" has no url" },
    { "t", TABLE("{\"s\": {\"url\": 5}}", "[]"), "source \"s\" has no url" },
    { "t", TABLE("{\"s\": \"https://s.example/\"}", "[]"), "source \"s\" has no url" },
    /* Rows. */
    { "t", "{\"table\": \"t\", \"format\": 1, \"sources\": " SRC "}", "no \"rows\" array" },
    { "t", TABLE(SRC, "{}"), "no \"rows\" array" },
    { "t", TABLE(SRC, "[{\"source\": \"s\"}, {\"x\": 1}]"), "rows[1] has no source" },
    { "t", TABLE(SRC, "[{\"source\": 1}]"), "rows[0] has no source" },
    { "t", TABLE(SRC, "[\"s\"]"), "rows[0] has no source" },
    { "t", TABLE(SRC, "[{\"source\": \"nope\"}]"), "rows[0] names undefined source \"nope\"" },
};

static void test_parse_bad(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
        const struct bad_case *c = &bad_cases[i];
        struct gd_kb_table *t = (struct gd_kb_table *)1;
        char problem[256] = "";
        enum gd_status st =
            gd_kb_table_parse(c->name, c->json, strlen(c->json), &t, problem, sizeof problem);
        if (st != GD_EFORMAT)
            fail_msg("case %zu (%s): %s, want GD_EFORMAT", i, c->json, gd_status_str(st));
        assert_null(t);
        if (!strstr(problem, c->problem))
            fail_msg("case %zu: problem \"%s\", want \"%s\"", i, problem, c->problem);
    }
    /* A NUL byte after the object is trailing data; bytes past `len` are never read. */
    static const char nul[] = TABLE(SRC, "[]") "\0";
    struct gd_kb_table *t = NULL;
    char problem[256];
    assert_int_equal(gd_kb_table_parse("t", nul, sizeof nul - 1, &t, problem, sizeof problem),
                     GD_EFORMAT);
    assert_non_null(strstr(problem, "trailing data"));
    assert_int_equal(gd_kb_table_parse("t", nul, sizeof nul - 2, &t, problem, sizeof problem),
                     GD_OK);
    gd_kb_table_free(t);
    assert_int_equal(gd_kb_table_parse("t", nul, 10, &t, problem, sizeof problem), GD_EFORMAT);
    /* Past 8 MiB the file is refused before parsing. */
    size_t big = 8 * 1024 * 1024 + 1;
    char *data = malloc(big);
    memset(data, ' ', big);
    memcpy(data, TABLE(SRC, "[]"), strlen(TABLE(SRC, "[]")));
    assert_int_equal(gd_kb_table_parse("t", data, big, &t, problem, sizeof problem), GD_EFORMAT);
    assert_non_null(strstr(problem, "too large"));
    assert_int_equal(gd_kb_table_parse("t", data, big - 1, &t, problem, sizeof problem), GD_OK);
    gd_kb_table_free(t);
    free(data);
    /* A problem buffer of size 0 is never written. */
    assert_int_equal(gd_kb_table_parse("t", "{", 1, &t, NULL, 0), GD_EFORMAT);
}

/* A directory of override tables, made for each test. */
static char *make_override_dir(void)
{
    char *dir = tu_mkdtemp("kb");
    /* Replaces the embedded env_values. */
    tu_write(dir, "env_values.json",
             "{\"table\": \"env_values\", \"format\": 1, \"sources\": {\"mine\": {\"url\": "
             "\"https://example.org/env\"}}, \"rows\": [{\"variable\": \"ONLY_ME\", \"values\": "
             "[\"1\"], \"source\": \"mine\"}]}");
    /* Invalid: the embedded driver_install stays. */
    tu_write(dir, "driver_install.json",
             "{\"table\": \"driver_install\", \"format\": 1, \"sources\": {}, \"rows\": [{}]}");
    /* A table the embedded set does not have. */
    tu_write(dir, "extra.json",
             "{\"table\": \"extra\", \"format\": 1, \"sources\": {}, \"rows\": []}");
    /* Ignored: not *.json, or nothing before the extension. */
    tu_write(dir, "README.txt", "not a table");
    tu_write(dir, ".json", "{");
    tu_write(dir, "env_values.json.bak", "{");
    return dir;
}

static const struct gd_kb_table *table(const struct gd_kb *kb, const char *name)
{
    const struct gd_kb_table *t = gd_kb_table(kb, name);
    if (!t)
        fail_msg("no table %s", name);
    return t;
}

static void check_override(const struct gd_kb *kb, const char *dir)
{
    char path[PATH_MAX];
    const struct gd_kb_table *env = table(kb, "env_values");
    assert_string_equal(gd_kb_table_origin(env),
                        tu_path(path, sizeof path, dir, "env_values.json"));
    assert_int_equal(gd_kb_row_count(env), 1);
    assert_string_equal(gd_kb_str(gd_kb_row_at(env, 0), "variable"), "ONLY_ME");
    const struct gd_kb_table *drv = table(kb, "driver_install");
    assert_string_equal(gd_kb_table_origin(drv), "embedded");
    assert_true(gd_kb_row_count(drv) > 0);
    assert_string_equal(gd_kb_table_origin(table(kb, "extra")),
                        tu_path(path, sizeof path, dir, "extra.json"));
    assert_int_equal(gd_kb_table_count(kb), gd_kb_embedded_count + 1);
    assert_int_equal(gd_kb_problem_count(kb), 1);
    const char *p = gd_kb_problem_at(kb, 0);
    assert_non_null(strstr(p, "driver_install.json"));
    assert_non_null(strstr(p, "rows[0] has no source"));
    assert_non_null(strstr(p, "the embedded table is used"));
    assert_null(gd_kb_problem_at(kb, 1));
}

static void test_open(void **state)
{
    (void)state;
    struct gd_kb *kb = NULL;
    assert_int_equal(gd_kb_open(NULL, &kb), GD_OK);
    assert_int_equal(gd_kb_table_count(kb), gd_kb_embedded_count);
    assert_int_equal(gd_kb_problem_count(kb), 0);
    for (size_t i = 0; i < gd_kb_table_count(kb); i++)
        assert_string_equal(gd_kb_table_origin(gd_kb_table_at(kb, i)), "embedded");
    assert_null(gd_kb_table_at(kb, gd_kb_table_count(kb)));
    assert_null(gd_kb_table(kb, "nope"));
    assert_null(gd_kb_table(NULL, "env_values"));
    gd_kb_free(kb);
    gd_kb_free(NULL);

    char *dir = make_override_dir();
    assert_int_equal(gd_kb_open(dir, &kb), GD_OK);
    check_override(kb, dir);
    gd_kb_free(kb);

    /* A directory named like a table, and an unreadable table, are problems, not failures. */
    tu_mkdirs(dir, "sub.json");
    assert_int_equal(gd_kb_open(dir, &kb), GD_OK);
    assert_int_equal(gd_kb_problem_count(kb), 2);
    bool saw = false;
    for (size_t i = 0; i < gd_kb_problem_count(kb); i++)
        saw = saw || (strstr(gd_kb_problem_at(kb, i), "sub.json") &&
                      strstr(gd_kb_problem_at(kb, i), "not a regular file"));
    assert_true(saw);
    gd_kb_free(kb);
    tu_rmtree(dir);
    free(dir);

    /* The directory itself must exist. */
    kb = (struct gd_kb *)1;
    assert_int_equal(gd_kb_open("/nonexistent/gpudoctor-kb", &kb), GD_ENOENT);
    assert_null(kb);
    assert_int_equal(gd_kb_open(GD_SOURCE_DIR "/README.md", &kb), GD_ENOTDIR);
    assert_null(kb);
}

/* Fail each allocation of opening the KB (embedded and overrides) in turn. */
static void test_open_alloc_failures(void **state)
{
    (void)state;
    char *dir = make_override_dir();
    struct gd_kb *kb = NULL;
    gd_alloc_fail_at(0);
    assert_int_equal(gd_kb_open(dir, &kb), GD_OK);
    gd_kb_free(kb);
    unsigned long total = gd_alloc_fail_at(0);
    for (unsigned long n = 1; n <= total + 1; n++) {
        gd_alloc_fail_at(n);
        kb = NULL;
        enum gd_status st = gd_kb_open(dir, &kb);
        gd_alloc_fail_at(0);
        if (n <= total && st != GD_ENOMEM)
            fail_msg("allocation %lu of %lu failed, yet gd_kb_open says %s", n, total,
                     gd_status_str(st));
        if (st == GD_ENOMEM) {
            assert_null(kb);
            continue;
        }
        /* Success is complete: every table with its origin, every problem. */
        check_override(kb, dir);
        assert_int_equal(gd_kb_table_count(kb), gd_kb_embedded_count + 1);
        for (size_t i = 0; i < gd_kb_table_count(kb); i++) {
            const struct gd_kb_table *t = gd_kb_table_at(kb, i);
            if (!gd_kb_table_name(t) || !gd_kb_table_origin(t))
                fail_msg("allocation %lu: table %zu without name or origin", n, i);
        }
        assert_int_equal(gd_kb_row_count(table(kb, "env_values")), 1);
        gd_kb_free(kb);
    }
    tu_rmtree(dir);
    free(dir);
}

/* Every embedded table parses, every row names a source with an https URL, and every file of
 * data/kb is embedded. */
static void test_embedded(void **state)
{
    (void)state;
    assert_true(gd_kb_embedded_count > 0);
    for (size_t i = 0; i < gd_kb_embedded_count; i++) {
        const struct gd_kb_blob *b = &gd_kb_embedded[i];
        struct gd_kb_table *t = NULL;
        char problem[256];
        if (gd_kb_table_parse(b->name, (const char *)b->data, b->len, &t, problem,
                              sizeof problem) != GD_OK)
            fail_msg("embedded %s: %s", b->name, problem);
        assert_true(gd_kb_row_count(t) > 0);
        for (size_t k = 0; k < gd_kb_row_count(t); k++) {
            const char *source = gd_kb_row_source(gd_kb_row_at(t, k));
            const char *url = gd_kb_source_url(t, source);
            if (!source || !url || strncmp(url, "https://", 8) != 0 || strlen(url) < 12)
                fail_msg("%s rows[%zu]: source %s has no https url", b->name, k,
                         source ? source : "(none)");
        }
        gd_kb_table_free(t);
    }
    assert_null(gd_kb_embedded[gd_kb_embedded_count].name);

    DIR *d = opendir(GD_SOURCE_DIR "/data/kb");
    assert_non_null(d);
    size_t files = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        size_t n = strlen(ent->d_name);
        if (n <= 5 || strcmp(ent->d_name + n - 5, ".json") != 0)
            continue;
        files++;
        bool embedded = false;
        for (size_t i = 0; i < gd_kb_embedded_count; i++)
            embedded = embedded || (strlen(gd_kb_embedded[i].name) == n - 5 &&
                                    strncmp(gd_kb_embedded[i].name, ent->d_name, n - 5) == 0);
        if (!embedded)
            fail_msg("data/kb/%s is not embedded", ent->d_name);
    }
    closedir(d);
    assert_int_equal(files, gd_kb_embedded_count);
}

/* What the rules rely on: env_values rows name a variable and list accepted values as strings;
 * driver_install rows name an os-release ID and one is the "*" fallback. */
static void test_embedded_shape(void **state)
{
    (void)state;
    struct gd_kb *kb = NULL;
    assert_int_equal(gd_kb_open(NULL, &kb), GD_OK);
    const struct gd_kb_table *env = table(kb, "env_values");
    for (size_t i = 0; i < gd_kb_row_count(env); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(env, i);
        const char *var = gd_kb_str(row, "variable");
        if (!var || !*var)
            fail_msg("env_values rows[%zu] has no variable", i);
        for (size_t k = 0; k < gd_kb_list_len(row, "values"); k++)
            if (!gd_kb_list_at(row, "values", k))
                fail_msg("env_values %s: values[%zu] is not a string", var, k);
    }
    const struct gd_kb_table *drv = table(kb, "driver_install");
    bool fallback = false;
    for (size_t i = 0; i < gd_kb_row_count(drv); i++) {
        const char *os = gd_kb_str(gd_kb_row_at(drv, i), "os_id");
        if (!os)
            fail_msg("driver_install rows[%zu] has no os_id", i);
        fallback = fallback || strcmp(os, "*") == 0;
    }
    assert_true(fallback);
    gd_kb_free(kb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_good), cmocka_unit_test(test_parse_bad),
        cmocka_unit_test(test_open),       cmocka_unit_test(test_open_alloc_failures),
        cmocka_unit_test(test_embedded),   cmocka_unit_test(test_embedded_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
