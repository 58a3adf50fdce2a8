/* The knowledge base: table validation, --kb overrides, and the embedded tables themselves. */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "core/version.h"
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

/* ---- frameworks: the table the frameworks probe reads (docs/kb.md, "frameworks") ---- */

/* The fields every row of a kind must have (a non-empty string or a non-empty list). */
static const struct {
    const char *kind;
    const char *fields[7];
} fw_kinds[] = {
    { "dist", { "framework", "role", NULL } },
    { "local_version", { "framework", "dist", "local_prefix", "meaning", NULL } },
    { "extra", { "framework", "dist", "extra", "requires", NULL } },
    { "wheel_deps", { "framework", "dist", "cuda", "cuda_major", "requires", NULL } },
    { "build_file", { "framework", "path", "format", "keys", NULL } },
    { "dlopen", { "framework", "cuda", "sonames", NULL } },
    { "preload", { "framework", NULL } },
    { "dll_directories", { "framework", "dirs", NULL } },
    { "provider", { "framework", "library", "needs", NULL } },
    { "keras_backend", { "keras_major", "backend", "imports", NULL } },
    { "keras_config", { "keras_major", "env", "config_file", "config_key", "default", NULL } },
    { "tf_keras",
      { "framework", "version_min", "keras_major", "legacy_env", "legacy_values", NULL } },
};

/* Fields that hold versions, as strings or lists of strings. */
static const char *const fw_version_fields[] = { "cuda",          "cuda_major",
                                                 "cuda_min",      "version_min",
                                                 "version_below", "keras_major",
                                                 "versions_seen", NULL };
/* Fields that hold PEP 503 normalised distribution names. */
static const char *const fw_dist_fields[] = { "dist",        "dist_prefix", "same_as",
                                              "legacy_dist", "requires",    NULL };

static bool fw_has(const struct gd_kb_row *row, const char *field)
{
    const char *s = gd_kb_str(row, field);
    return (s && *s) || gd_kb_list_len(row, field) > 0;
}

/* The string or every list item of `field`, through fn; returns how many were seen. */
static size_t fw_each(const struct gd_kb_row *row, const char *field,
                      void (*fn)(const char *value, const char *field, size_t row_index),
                      size_t index)
{
    const char *s = gd_kb_str(row, field);
    if (s) {
        fn(s, field, index);
        return 1;
    }
    size_t n = gd_kb_list_len(row, field);
    for (size_t i = 0; i < n; i++) {
        const char *item = gd_kb_list_at(row, field, i);
        if (!item)
            fail_msg("frameworks rows[%zu]: %s[%zu] is not a string", index, field, i);
        fn(item, field, index);
    }
    return n;
}

static void fw_check_version(const char *value, const char *field, size_t index)
{
    struct gd_version v;
    if (gd_version_parse(value, &v) != GD_OK)
        fail_msg("frameworks rows[%zu]: %s \"%s\" is not a version", index, field, value);
}

/* PEP 503: runs of -, _ and . become one -, all lower case. */
static void fw_check_dist(const char *value, const char *field, size_t index)
{
    bool ok = *value && value[0] != '-';
    for (const char *p = value; ok && *p; p++)
        ok = ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
              (*p == '-' && p[1] != '-' && p[1] != '\0'));
    if (!ok)
        fail_msg("frameworks rows[%zu]: %s \"%s\" is not a normalised name", index, field, value);
}

/* A library name: lib*.so*, with only the placeholders docs/kb.md defines. */
static void fw_check_soname(const char *value, const char *field, size_t index)
{
    const char *so = strstr(value, ".so");
    if (strncmp(value, "lib", 3) != 0 && !strstr(value, "/lib"))
        fail_msg("frameworks rows[%zu]: %s \"%s\" is not a lib*.so name", index, field, value);
    if (!so)
        fail_msg("frameworks rows[%zu]: %s \"%s\" has no .so", index, field, value);
    for (const char *p = strchr(value, '{'); p; p = strchr(p + 1, '{'))
        if (strncmp(p, "{cudnn_major}", 13) != 0 && strncmp(p, "{cuda_major_minor}", 18) != 0)
            fail_msg("frameworks rows[%zu]: %s \"%s\" has an unknown placeholder", index, field,
                     value);
}

static const struct gd_kb_table *fw_table(struct gd_kb **kb)
{
    assert_int_equal(gd_kb_open(NULL, kb), GD_OK);
    return table(*kb, "frameworks");
}

/* Every row has its kind's fields, versions parse, names are normalised and sonames well
 * formed; every source has a URL and a retrieved date and is used by some row. */
static void test_frameworks_shape(void **state)
{
    (void)state;
    struct gd_kb *kb = NULL;
    const struct gd_kb_table *t = fw_table(&kb);
    assert_true(gd_kb_row_count(t) >= 50);
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *kind = gd_kb_str(row, "kind");
        size_t k = 0;
        while (k < sizeof fw_kinds / sizeof *fw_kinds && (!kind || strcmp(kind, fw_kinds[k].kind)))
            k++;
        if (k == sizeof fw_kinds / sizeof *fw_kinds)
            fail_msg("frameworks rows[%zu]: unknown kind %s", i, kind ? kind : "(none)");
        for (const char *const *f = fw_kinds[k].fields; *f; f++)
            if (!fw_has(row, *f))
                fail_msg("frameworks rows[%zu] (%s): no %s", i, kind, *f);
        if (strcmp(kind, "dist") == 0 && fw_has(row, "dist") == fw_has(row, "dist_prefix"))
            fail_msg("frameworks rows[%zu]: a dist row names exactly one of dist, dist_prefix", i);
        if (strcmp(kind, "preload") == 0 && !fw_has(row, "wheel_files") &&
            !fw_has(row, "libraries"))
            fail_msg("frameworks rows[%zu]: a preload row lists wheel_files or libraries", i);
        for (const char *const *f = fw_version_fields; *f; f++)
            fw_each(row, *f, fw_check_version, i);
        for (const char *const *f = fw_dist_fields; *f; f++)
            fw_each(row, *f, fw_check_dist, i);
        fw_each(row, "sonames", fw_check_soname, i);
        fw_each(row, "optional", fw_check_soname, i);
        fw_each(row, "wheel_files", fw_check_soname, i);
        /* A CUDA version and its major agree. */
        const char *cuda = gd_kb_str(row, "cuda"), *major = gd_kb_str(row, "cuda_major");
        if (cuda && major) {
            struct gd_version v;
            assert_int_equal(gd_version_parse(cuda, &v), GD_OK);
            if (gd_version_major(&v) != strtoul(major, NULL, 10))
                fail_msg("frameworks rows[%zu]: cuda %s vs cuda_major %s", i, cuda, major);
        }
        /* Every "also" names a defined source. */
        for (size_t a = 0; a < gd_kb_list_len(row, "also"); a++)
            if (!gd_kb_source_url(t, gd_kb_list_at(row, "also", a)))
                fail_msg("frameworks rows[%zu]: also %s is not a source", i,
                         gd_kb_list_at(row, "also", a));
    }
    assert_true(gd_kb_source_count(t) > 0);
    assert_null(gd_kb_source_id_at(t, gd_kb_source_count(t)));
    for (size_t s = 0; s < gd_kb_source_count(t); s++) {
        const char *id = gd_kb_source_id_at(t, s);
        const char *date = gd_kb_source_retrieved(t, id);
        if (!date || strlen(date) != 10 || date[4] != '-' || date[7] != '-')
            fail_msg("frameworks source %s: retrieved date missing or not YYYY-MM-DD", id);
        if (!gd_kb_source_title(t, id))
            fail_msg("frameworks source %s: no title", id);
        bool used = false;
        for (size_t i = 0; i < gd_kb_row_count(t) && !used; i++) {
            const struct gd_kb_row *row = gd_kb_row_at(t, i);
            used = strcmp(gd_kb_row_source(row), id) == 0 || gd_kb_list_has(row, "also", id);
        }
        if (!used)
            fail_msg("frameworks source %s is used by no row", id);
    }
    gd_kb_free(kb);
}

/* The identity of a row for the duplicate check ("" for dist rows, checked by version range). */
static void fw_key(const struct gd_kb_row *row, char *key, size_t size)
{
    static const struct {
        const char *kind;
        const char *fields[4];
    } keys[] = {
        { "local_version", { "dist", "local_prefix", NULL } },
        { "extra", { "dist", "extra", "cuda_major", NULL } },
        { "wheel_deps", { "dist", "cuda", NULL } },
        { "build_file", { "framework", "path", "format", NULL } },
        { "dlopen", { "framework", "cuda", NULL } },
        { "preload", { "framework", NULL } },
        { "dll_directories", { "framework", NULL } },
        { "provider", { "framework", "library", NULL } },
        { "keras_backend", { "keras_major", "backend", NULL } },
        { "keras_config", { "keras_major", NULL } },
        { "tf_keras", { "framework", "version_min", NULL } },
    };
    const char *kind = gd_kb_str(row, "kind");
    key[0] = '\0';
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        if (strcmp(kind, keys[k].kind) != 0)
            continue;
        size_t len = (size_t)snprintf(key, size, "%s", kind);
        for (const char *const *f = keys[k].fields; *f && len < size; f++) {
            const char *v = gd_kb_str(row, *f);
            len += (size_t)snprintf(key + len, size - len, "|%s", v ? v : "-");
        }
    }
}

/* [version_min, version_below) of a dist row; missing bounds are open. */
static bool fw_overlap(const struct gd_kb_row *a, const struct gd_kb_row *b)
{
    const char *amin = gd_kb_str(a, "version_min"), *amax = gd_kb_str(a, "version_below");
    const char *bmin = gd_kb_str(b, "version_min"), *bmax = gd_kb_str(b, "version_below");
    struct gd_version x, y;
    /* a ends before b starts, or b ends before a starts */
    if (amax && bmin && gd_version_parse(amax, &x) == GD_OK &&
        gd_version_parse(bmin, &y) == GD_OK && gd_version_cmp(&x, &y) <= 0)
        return false;
    if (bmax && amin && gd_version_parse(bmax, &x) == GD_OK &&
        gd_version_parse(amin, &y) == GD_OK && gd_version_cmp(&x, &y) <= 0)
        return false;
    return true;
}

/* No two rows say different things about the same thing. */
static void test_frameworks_no_duplicates(void **state)
{
    (void)state;
    struct gd_kb *kb = NULL;
    const struct gd_kb_table *t = fw_table(&kb);
    size_t n = gd_kb_row_count(t);
    for (size_t i = 0; i < n; i++) {
        const struct gd_kb_row *a = gd_kb_row_at(t, i);
        char ka[256];
        fw_key(a, ka, sizeof ka);
        for (size_t j = i + 1; j < n; j++) {
            const struct gd_kb_row *b = gd_kb_row_at(t, j);
            if (strcmp(gd_kb_str(a, "kind"), gd_kb_str(b, "kind")) != 0)
                continue;
            if (strcmp(gd_kb_str(a, "kind"), "dist") == 0) {
                const char *da = gd_kb_str(a, "dist"), *db = gd_kb_str(b, "dist");
                const char *pa = gd_kb_str(a, "dist_prefix"), *pb = gd_kb_str(b, "dist_prefix");
                if (((da && db && strcmp(da, db) == 0) || (pa && pb && strcmp(pa, pb) == 0)) &&
                    fw_overlap(a, b))
                    fail_msg("frameworks rows[%zu] and [%zu]: %s twice for one version range", i, j,
                             da ? da : pa);
                continue;
            }
            char kb_[256];
            fw_key(b, kb_, sizeof kb_);
            if (strcmp(ka, kb_) == 0)
                fail_msg("frameworks rows[%zu] and [%zu]: both %s", i, j, ka);
        }
    }
    gd_kb_free(kb);
}

/* The first row of `kind` whose `field` is `value` (and `field2` is `value2` when given). */
static const struct gd_kb_row *fw_find(const struct gd_kb_table *t, const char *kind,
                                       const char *field, const char *value, const char *field2,
                                       const char *value2)
{
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *k = gd_kb_str(row, "kind"), *v = gd_kb_str(row, field);
        const char *v2 = field2 ? gd_kb_str(row, field2) : NULL;
        if (k && strcmp(k, kind) == 0 && v && strcmp(v, value) == 0 &&
            (!field2 || (v2 && strcmp(v2, value2) == 0)))
            return row;
    }
    fail_msg("frameworks: no %s row with %s=%s", kind, field, value);
    return NULL;
}

static void fw_expect(const struct gd_kb_row *row, const char *field, const char *want)
{
    const char *got = gd_kb_str(row, field);
    if (!got || strcmp(got, want) != 0)
        fail_msg("frameworks: %s is %s, want %s", field, got ? got : "(none)", want);
}

/* The dlopen row for a framework built with CUDA `cuda`: the row whose cuda is the longest
 * release prefix of it (docs/kb.md), or NULL. */
static const struct gd_kb_row *fw_dlopen_row(const struct gd_kb_table *t, const char *framework,
                                             const char *cuda)
{
    struct gd_version build;
    assert_int_equal(gd_version_parse(cuda, &build), GD_OK);
    const struct gd_kb_row *best = NULL;
    int best_parts = 0;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        struct gd_version prefix;
        if (strcmp(gd_kb_str(row, "kind"), "dlopen") != 0 ||
            strcmp(gd_kb_str(row, "framework"), framework) != 0 ||
            gd_version_parse(gd_kb_str(row, "cuda"), &prefix) != GD_OK ||
            !gd_version_has_prefix(&build, &prefix) || prefix.nparts <= best_parts)
            continue;
        best = row;
        best_parts = prefix.nparts;
    }
    return best;
}

/* `pattern` with {cudnn_major} and {cuda_major_minor} filled in from the build's versions. */
static void fw_expand(const char *pattern, const char *cuda, const char *cudnn, char *out,
                      size_t size)
{
    struct gd_version c, d;
    assert_int_equal(gd_version_parse(cuda, &c), GD_OK);
    assert_int_equal(gd_version_parse(cudnn, &d), GD_OK);
    size_t len = 0;
    out[0] = '\0';
    for (const char *p = pattern; *p && len + 1 < size;) {
        if (strncmp(p, "{cudnn_major}", 13) == 0) {
            len += (size_t)snprintf(out + len, size - len, "%lu", gd_version_major(&d));
            p += 13;
        } else if (strncmp(p, "{cuda_major_minor}", 18) == 0) {
            len += (size_t)snprintf(out + len, size - len, "%lu.%lu", gd_version_major(&c),
                                    gd_version_minor(&c));
            p += 18;
        } else {
            out[len++] = *p++;
            out[len] = '\0';
        }
    }
}

/* True when the row's `field`, expanded for (cuda, cudnn), holds `soname`. */
static bool fw_loads(const struct gd_kb_row *row, const char *field, const char *cuda,
                     const char *cudnn, const char *soname)
{
    for (size_t i = 0; i < gd_kb_list_len(row, field); i++) {
        char name[128];
        fw_expand(gd_kb_list_at(row, field, i), cuda, cudnn, name, sizeof name);
        if (strcmp(name, soname) == 0)
            return true;
    }
    return false;
}

/* Values asserted against what their source states (source ids of data/kb/frameworks.json). */
static void test_frameworks_spot_checks(void **state)
{
    (void)state;
    struct gd_kb *kb = NULL;
    const struct gd_kb_table *t = fw_table(&kb);
    const struct gd_kb_row *r;

    /* tf-pr-34972 / tf-readme: "a smaller CPU-only package" tensorflow-cpu. */
    fw_expect(fw_find(t, "dist", "dist", "tensorflow-cpu", NULL, NULL), "role", "cpu-only");
    /* tf-gpu-removed: "tensorflow and tensorflow-gpu have been the same package since 2.1". */
    fw_expect(fw_find(t, "dist", "dist", "tensorflow-gpu", NULL, NULL), "same_as", "tensorflow");
    /* tf-nightly-gpu-removed: tf-nightly-gpu is the same package as tf-nightly. */
    fw_expect(fw_find(t, "dist", "dist", "tf-nightly-gpu", NULL, NULL), "same_as", "tf-nightly");
    /* tf-setup-tpl: "Install the TensorFlow package built by Intel if the user is on a Windows
     * machine" (tensorflow-intel). */
    fw_expect(fw_find(t, "dist", "dist", "tensorflow-intel", NULL, NULL), "platform", "windows");
    /* pypi-keras-3.0.0: keras 3.0.0 is Keras 3; keras-2.4.0-release: 2.x is Keras 2. */
    fw_expect(fw_find(t, "dist", "dist", "keras", "version_min", "3"), "keras_major", "3");
    fw_expect(fw_find(t, "dist", "dist", "keras", "version_below", "3"), "keras_major", "2");
    /* pypi-keras-nightly-3: "Keras 2 remains available as the tf-keras package". */
    r = fw_find(t, "dist", "dist", "tf-keras", NULL, NULL);
    fw_expect(r, "keras_major", "2");
    fw_expect(r, "module", "tf_keras");
    /* pytorch-previous-versions: torch==1.13.1+cu117 is the CUDA 11.7 wheel, +cpu CPU only. */
    fw_expect(fw_find(t, "local_version", "dist", "torch", "local_prefix", "cu"), "meaning",
              "cuda");
    fw_expect(fw_find(t, "local_version", "dist", "torch", "local_prefix", "cpu"), "meaning",
              "cpu-only");
    /* jax-plugin-setup: jax-cuda<N>-plugin requires jax-cuda<N>-pjrt of the same version. */
    r = fw_find(t, "dist", "dist", "jax-cuda12-plugin", NULL, NULL);
    fw_expect(r, "cuda_major", "12");
    assert_true(gd_kb_list_has(r, "requires", "jax-cuda12-pjrt"));
    /* jax-pjrt-setup: package_name = f"jax_plugins.xla_cuda{cuda_version}". */
    fw_expect(fw_find(t, "dist", "dist", "jax-cuda12-pjrt", NULL, NULL), "module",
              "jax_plugins.xla_cuda12");
    /* pypi-cupy-cuda11x: "CuPy wheel ... for CUDA 11.2 ~ 11.x". */
    r = fw_find(t, "dist", "dist", "cupy-cuda11x", NULL, NULL);
    fw_expect(r, "cuda_major", "11");
    fw_expect(r, "cuda_min", "11.2");
    /* cupy-readme: "CUDA 10.2 | pip install cupy-cuda102". */
    fw_expect(fw_find(t, "dist", "dist", "cupy-cuda102", NULL, NULL), "cuda", "10.2");
    /* The prefix row reads the tag after "cupy-": cupy-cuda12x is CUDA 12 (cupy-v12-release). */
    r = fw_find(t, "dist", "dist_prefix", "cupy-cuda", NULL, NULL);
    fw_expect(r, "cuda_tag", "name-suffix");
    const char *name = "cupy-cuda12x";
    struct gd_version v;
    assert_int_equal(gd_version_from_cuda_tag(name + strlen("cupy-"), &v), GD_OK);
    assert_int_equal(gd_version_major(&v), 12);
    /* ort-setup: package_name 'onnxruntime' unless --use_cuda makes it 'onnxruntime-gpu'. */
    fw_expect(fw_find(t, "dist", "dist", "onnxruntime", NULL, NULL), "role", "cpu-only");
    fw_expect(fw_find(t, "dist", "dist", "onnxruntime-gpu", NULL, NULL), "role", "gpu");
    /* trt-frontend-setup: tensorrt_cu<major> requires <dist>_libs and <dist>_bindings. */
    r = fw_find(t, "dist", "dist", "tensorrt-cu12", NULL, NULL);
    assert_true(gd_kb_list_has(r, "requires", "tensorrt-cu12-libs"));
    assert_true(gd_kb_list_has(r, "requires", "tensorrt-cu12-bindings"));
    /* tf-setup-tpl: 'and-cuda': [... 'nvidia-cudnn-cu12 == 9.3.0.75', ...,
     * 'nvidia-nvjitlink-cu12 == 12.5.82']. */
    r = fw_find(t, "extra", "extra", "and-cuda", "cuda_major", "12");
    assert_true(gd_kb_list_has(r, "requires", "nvidia-cudnn-cu12"));
    assert_true(gd_kb_list_has(r, "requires", "nvidia-nvjitlink-cu12"));
    /* tf-issue-61993: tensorflow 2.13.1's and-cuda pulls nvidia-cudnn-cu11==8.7.0.84. */
    r = fw_find(t, "extra", "extra", "and-cuda", "cuda_major", "11");
    assert_true(gd_kb_list_has(r, "versions_seen", "2.13.1"));
    assert_true(gd_kb_list_has(r, "requires", "nvidia-cudnn-cu11"));
    /* pytorch-wheel-deps: the 12.8 wheels pull nvidia-cusparselt-cu12; the 11.8 ones no
     * nvJitLink wheel. */
    assert_true(gd_kb_list_has(fw_find(t, "wheel_deps", "cuda", "12.8", NULL, NULL), "requires",
                               "nvidia-cusparselt-cu12"));
    assert_false(gd_kb_list_has(fw_find(t, "wheel_deps", "cuda", "11.8", NULL, NULL), "requires",
                                "nvidia-nvjitlink-cu11"));
    /* tf-cuda-configure: cuda_config.py holds cuda_compute_capabilities; tf-get-build-info-2.4
     * documents the dict from 2.4. */
    r = fw_find(t, "build_file", "framework", "tensorflow", "format", "dict");
    assert_true(gd_kb_list_has(r, "keys", "cuda_compute_capabilities"));
    assert_true(gd_kb_list_has(r, "keys", "is_cuda_build"));
    fw_expect(r, "version_min", "2.4");
    /* tf-2.0-bzl: cuda_version_number=$${TF_CUDA_VERSION:-} cudnn_version_number=... */
    r = fw_find(t, "build_file", "framework", "tensorflow", "format", "assign");
    assert_true(gd_kb_list_has(r, "keys", "cuda_version_number"));
    assert_true(gd_kb_list_has(r, "keys", "cudnn_version_number"));
    /* torch-gen-version: __all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']. */
    r = fw_find(t, "build_file", "path", "torch/version.py", NULL, NULL);
    assert_true(gd_kb_list_has(r, "keys", "cuda"));
    assert_true(gd_kb_list_has(r, "keys", "hip"));

    /* TensorFlow's dlopen names as a function of its build versions. tf-issue-45848 /
     * tf-issue-45263: the CUDA 11.0 build asks for libcusolver.so.10. */
    r = fw_dlopen_row(t, "tensorflow", "11.0");
    assert_non_null(r);
    fw_expect(r, "cuda", "11.0");
    assert_true(fw_loads(r, "sonames", "11.0", "8.0.4", "libcusolver.so.10"));
    /* tf-issue-44777 (CUDA 11.1 build): libcudart.so.11.0, libcusolver.so.11, libcudnn.so.8;
     * tf-dso-loader-tsl: CUPTI as libcupti.so.<TF_CUDA_VERSION>. */
    r = fw_dlopen_row(t, "tensorflow", "11.8");
    fw_expect(r, "cuda", "11");
    assert_true(fw_loads(r, "sonames", "11.8", "8.6", "libcudart.so.11.0"));
    assert_true(fw_loads(r, "sonames", "11.8", "8.6", "libcusolver.so.11"));
    assert_true(fw_loads(r, "sonames", "11.8", "8.6", "libcudnn.so.8"));
    assert_true(fw_loads(r, "optional", "11.8", "8.6", "libcupti.so.11.8"));
    assert_false(fw_loads(r, "sonames", "11.8", "8.6", "libcusolver.so.10"));
    /* tf-setup-tpl pins cuFFT 11.2.3.61 and cuSPARSE 12.5.1.3 for CUDA 12; tf-cuda-configure
     * names the soname by the library's major. */
    r = fw_dlopen_row(t, "tensorflow", "12.3");
    fw_expect(r, "cuda", "12");
    assert_true(fw_loads(r, "sonames", "12.3", "9", "libcudart.so.12"));
    assert_true(fw_loads(r, "sonames", "12.3", "9", "libcufft.so.11"));
    assert_true(fw_loads(r, "sonames", "12.3", "9", "libcusparse.so.12"));
    assert_true(fw_loads(r, "sonames", "12.3", "9", "libcudnn.so.9"));
    /* tf-issue-39132: 2.2 asks for libcudart.so.10.1 and "libcu***.so.10" for the others;
     * tf_builds: 2.1 to 2.3 were built with cuDNN 7.6, hence libcudnn.so.7. */
    r = fw_dlopen_row(t, "tensorflow", "10.1");
    assert_non_null(r);
    fw_expect(r, "cuda", "10.1");
    assert_true(fw_loads(r, "sonames", "10.1", "7.6", "libcudart.so.10.1"));
    assert_true(fw_loads(r, "sonames", "10.1", "7.6", "libcusolver.so.10"));
    assert_true(fw_loads(r, "sonames", "10.1", "7.6", "libcudnn.so.7"));
    assert_false(fw_loads(r, "sonames", "10.1", "7.6", "libcudart.so.10.0"));
    /* No source read for the CUDA 10.0 builds (1.13 to 2.0): no row. */
    assert_null(fw_dlopen_row(t, "tensorflow", "10.0"));
    /* jax-cuda-plugin-init: _load("cu13", ["libcusparse.so.12"]), _load("cu13",
     * ["libcusolver.so.12"]), _load("cuda_runtime", ["libcudart.so.12"]). */
    r = fw_dlopen_row(t, "jax", "13.0");
    assert_true(gd_kb_list_has(r, "sonames", "libcusparse.so.12"));
    assert_true(gd_kb_list_has(r, "sonames", "libcusolver.so.12"));
    assert_true(gd_kb_list_has(r, "wheel_files", "cu13/lib/libcudart.so.13"));
    assert_true(gd_kb_list_has(fw_dlopen_row(t, "jax", "12.4"), "wheel_files",
                               "cuda_runtime/lib/libcudart.so.12"));
    /* torch-init: 'cudnn': 'libcudnn.so.*[0-9]' under nvidia/<folder>/lib. */
    assert_true(gd_kb_list_has(fw_find(t, "preload", "framework", "torch", NULL, NULL),
                               "wheel_files", "cudnn/lib/libcudnn.so.*[0-9]"));
    /* torch-init, Windows: os.add_dll_directory(th_dll_path), th_dll_path = .../torch/lib;
     * cupy-environment: os.add_dll_directory(os.path.join(cuda_path, 'bin')). */
    assert_true(gd_kb_list_has(fw_find(t, "dll_directories", "framework", "torch", NULL, NULL),
                               "dirs", "{site}/torch/lib"));
    assert_true(gd_kb_list_has(fw_find(t, "dll_directories", "framework", "cupy", NULL, NULL),
                               "dirs", "{env:CUDA_PATH}/bin|{which:nvcc.exe}"));
    /* ort-setup: cuda_dependencies = ['libcublas.so', 'libcublasLt.so', 'libcudnn.so', ...]. */
    assert_true(gd_kb_list_has(fw_find(t, "provider", "framework", "onnxruntime", NULL, NULL),
                               "needs", "libcublasLt.so"));

    /* keras-numpy-nn: the numpy backend imports jax. */
    assert_true(gd_kb_list_has(fw_find(t, "keras_backend", "backend", "numpy", NULL, NULL),
                               "imports", "jax"));
    /* keras-config-src: default backend "tensorflow"; keras.json key "backend"; /tmp when the
     * home directory is not writable. */
    r = fw_find(t, "keras_config", "keras_major", "3", NULL, NULL);
    fw_expect(r, "default", "tensorflow");
    fw_expect(r, "config_key", "backend");
    fw_expect(r, "home_fallback", "/tmp/.keras");
    fw_expect(r, "home_env", "KERAS_HOME");
    /* tf-api-template: TF_USE_LEGACY_KERAS in ("true", "True", "1"); tf-pr-62904: from 2.16. */
    r = fw_find(t, "tf_keras", "framework", "tensorflow", NULL, NULL);
    fw_expect(r, "version_min", "2.16");
    assert_true(gd_kb_list_has(r, "legacy_values", "True"));
    assert_false(gd_kb_list_has(r, "legacy_values", "yes"));
    fw_expect(r, "legacy_dist", "tf-keras");
    gd_kb_free(kb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_good),
        cmocka_unit_test(test_parse_bad),
        cmocka_unit_test(test_open),
        cmocka_unit_test(test_open_alloc_failures),
        cmocka_unit_test(test_embedded),
        cmocka_unit_test(test_embedded_shape),
        cmocka_unit_test(test_frameworks_shape),
        cmocka_unit_test(test_frameworks_no_duplicates),
        cmocka_unit_test(test_frameworks_spot_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
