/* Renderers: pure functions of a report, in four formats. */
#include "core/alloc.h"
#include "core/report.h"

#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* A report with every kind of fact and one finding of each severity. */
static struct gd_report *sample(void)
{
    struct gd_report *r = gd_report_new();
    struct gd_entity *host = gd_report_add_entity(r, "host", "host");
    gd_fact_bool(host, "live", true, gd_src(GD_SOURCE_DERIVED, "the root is /"));
    gd_fact_str(host, "os.pretty_name", "Debian GNU/Linux 12 (bookworm)",
                gd_src(GD_SOURCE_FILE, "/etc/os-release"));
    gd_fact_str(host, "kernel.release", "6.1.0-18-amd64", gd_src(GD_SOURCE_CALL, "uname(2)"));
    struct gd_entity *drv = gd_report_add_entity(r, "driver", "driver");
    const struct gd_fact *km = gd_fact_str(drv, "kernel_module.version", "535.104.05",
                                           gd_src(GD_SOURCE_FILE, "/proc/driver/nvidia/version"));
    const struct gd_fact *lib =
        gd_fact_str(drv, "libcuda.version", "550.54.14",
                    gd_src(GD_SOURCE_PATH, "/usr/lib/libcuda.so.550.54.14"));
    const struct gd_fact *count =
        gd_fact_int(drv, "libcuda.copies.count", 2, gd_src(GD_SOURCE_PATH, "/usr/lib"));
    const struct gd_fact *loaded =
        gd_fact_bool(drv, "module.nouveau.loaded", false, gd_src(GD_SOURCE_FILE, "/proc/modules"));
    struct gd_entity *env = gd_report_add_entity(r, "env", "env");
    const struct gd_fact *absent =
        gd_fact_absent(env, "CUDA_HOME", "not set", gd_src(GD_SOURCE_ENV, "CUDA_HOME"));
    struct gd_entity *dev = gd_report_add_entity(r, "devices", "devices");
    const struct gd_fact *unknown = gd_fact_unknown(dev, "nvidiactl.present", "permission denied",
                                                    gd_src(GD_SOURCE_PATH, "/dev/nvidiactl"));

    struct gd_finding *f =
        gd_finding_add(r, "driver.version-mismatch", GD_SEV_ERROR,
                       "NVIDIA kernel module %s does not match %s", "535.104.05", "550.54.14");
    gd_finding_set_why(f, "nvidia-smi fails with \"Failed to initialize NVML: Driver/library "
                          "version mismatch\" and cuInit fails, so no framework sees the GPU.");
    gd_finding_add_evidence(f, km);
    gd_finding_add_evidence(f, lib);
    gd_finding_add_evidence(f, absent);
    gd_finding_add_evidence(f, unknown);
    gd_finding_add_fix(f, "Reboot.");
    gd_finding_add_fix(f, "Run: `nvidia-smi`");
    f = gd_finding_add(r, "driver.multiple-libcuda", GD_SEV_WARNING,
                       "Several versions | of libcuda are installed");
    gd_finding_add_evidence(f, count);
    gd_finding_add_fix(f, "Remove the old one.");
    f = gd_finding_add(r, "env.info-thing", GD_SEV_INFO, "Something worth knowing");
    gd_finding_add_evidence(f, absent);
    f = gd_finding_add(r, "driver.ok", GD_SEV_OK, "The driver is fine otherwise");
    gd_finding_add_evidence(f, loaded);
    assert_false(gd_report_failed(r));
    return r;
}

static char *render(const struct gd_report *r, enum gd_format format, bool color, bool verbose)
{
    struct gd_render_options o = { color, verbose };
    char *out = NULL;
    size_t len = 0;
    assert_int_equal(gd_render(r, format, &o, &out, &len), GD_OK);
    assert_non_null(out);
    assert_int_equal(strlen(out), len);
    return out;
}

static struct json_object *get(struct json_object *o, const char *key, enum json_type type)
{
    struct json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v))
        fail_msg("no \"%s\"", key);
    if (!json_object_is_type(v, type))
        fail_msg("\"%s\" is a %s", key, json_type_to_name(json_object_get_type(v)));
    return v;
}

static bool has(struct json_object *o, const char *key)
{
    return json_object_object_get_ex(o, key, NULL);
}

static void test_json(void **state)
{
    (void)state;
    struct gd_report *r = sample();
    char *text = render(r, GD_FORMAT_JSON, true, false);
    struct json_tokener *tok = json_tokener_new();
    struct json_object *root = json_tokener_parse_ex(tok, text, (int)strlen(text));
    assert_int_equal(json_tokener_get_error(tok), json_tokener_success);
    json_tokener_free(tok);
    assert_non_null(root);
    assert_string_equal(json_object_get_string(get(root, "schema", json_type_string)),
                        "gpudoctor.report/1");
    assert_string_equal(json_object_get_string(get(root, "gpudoctor", json_type_string)),
                        gd_version());

    struct json_object *summary = get(root, "summary", json_type_object);
    assert_string_equal(json_object_get_string(get(summary, "worst", json_type_string)), "error");
    static const char *const sev[] = { "error", "warning", "info", "ok" };
    for (int i = 0; i < 4; i++)
        assert_int_equal(json_object_get_int(get(summary, sev[i], json_type_int)), 1);

    struct json_object *findings = get(root, "findings", json_type_array);
    assert_int_equal(json_object_array_length(findings), 4);
    struct json_object *f0 = json_object_array_get_idx(findings, 0);
    assert_string_equal(json_object_get_string(get(f0, "id", json_type_string)),
                        "driver.version-mismatch");
    assert_string_equal(json_object_get_string(get(f0, "severity", json_type_string)), "error");
    assert_string_equal(json_object_get_string(get(f0, "title", json_type_string)),
                        "NVIDIA kernel module 535.104.05 does not match 550.54.14");
    assert_non_null(strstr(json_object_get_string(get(f0, "why", json_type_string)),
                           "\"Failed to initialize NVML"));
    struct json_object *fix = get(f0, "fix", json_type_array);
    assert_int_equal(json_object_array_length(fix), 2);
    assert_string_equal(json_object_get_string(json_object_array_get_idx(fix, 1)),
                        "Run: `nvidia-smi`");
    /* Evidence: named, typed, with its state and source. */
    struct json_object *ev = get(f0, "evidence", json_type_array);
    assert_int_equal(json_object_array_length(ev), 4);
    struct json_object *e0 = json_object_array_get_idx(ev, 0);
    assert_string_equal(json_object_get_string(get(e0, "entity", json_type_string)), "driver");
    assert_string_equal(json_object_get_string(get(e0, "fact", json_type_string)),
                        "kernel_module.version");
    assert_string_equal(json_object_get_string(get(e0, "state", json_type_string)), "known");
    assert_string_equal(json_object_get_string(get(e0, "value", json_type_string)), "535.104.05");
    struct json_object *source = get(e0, "source", json_type_object);
    assert_string_equal(json_object_get_string(get(source, "kind", json_type_string)), "file");
    assert_string_equal(json_object_get_string(get(source, "ref", json_type_string)),
                        "/proc/driver/nvidia/version");
    struct json_object *e2 = json_object_array_get_idx(ev, 2);
    assert_string_equal(json_object_get_string(get(e2, "state", json_type_string)), "absent");
    assert_false(has(e2, "value")); /* never a made-up value */
    assert_string_equal(json_object_get_string(get(e2, "reason", json_type_string)), "not set");
    struct json_object *e3 = json_object_array_get_idx(ev, 3);
    assert_string_equal(json_object_get_string(get(e3, "state", json_type_string)), "unknown");
    assert_false(has(e3, "value"));
    assert_string_equal(json_object_get_string(get(e3, "reason", json_type_string)),
                        "permission denied");
    /* A finding without why has no "why". */
    assert_false(has(json_object_array_get_idx(findings, 2), "why"));

    /* Entities and their facts, with typed values. */
    struct json_object *entities = get(root, "entities", json_type_array);
    assert_int_equal(json_object_array_length(entities), 4);
    struct json_object *drv = json_object_array_get_idx(entities, 1);
    assert_string_equal(json_object_get_string(get(drv, "kind", json_type_string)), "driver");
    assert_string_equal(json_object_get_string(get(drv, "id", json_type_string)), "driver");
    struct json_object *facts = get(drv, "facts", json_type_object);
    struct json_object *count = get(facts, "libcuda.copies.count", json_type_object);
    assert_int_equal(json_object_get_int(get(count, "value", json_type_int)), 2);
    struct json_object *loaded = get(facts, "module.nouveau.loaded", json_type_object);
    assert_false(json_object_get_boolean(get(loaded, "value", json_type_boolean)));
    struct json_object *host =
        get(json_object_array_get_idx(entities, 0), "facts", json_type_object);
    assert_true(json_object_get_boolean(
        get(get(host, "live", json_type_object), "value", json_type_boolean)));
    assert_false(has(get(host, "live", json_type_object), "entity")); /* only evidence names */
    json_object_put(root);
    gd_free(text);

    /* An empty report: worst ok, no findings. */
    struct gd_report *empty = gd_report_new();
    text = render(empty, GD_FORMAT_JSON, false, false);
    root = json_tokener_parse(text);
    assert_non_null(root);
    assert_string_equal(json_object_get_string(
                            get(get(root, "summary", json_type_object), "worst", json_type_string)),
                        "ok");
    assert_int_equal(json_object_array_length(get(root, "findings", json_type_array)), 0);
    assert_int_equal(json_object_array_length(get(root, "entities", json_type_array)), 0);
    json_object_put(root);
    gd_free(text);
    gd_report_free(empty);
    gd_report_free(r);
}

static void test_text(void **state)
{
    (void)state;
    struct gd_report *r = sample();
    char *plain = render(r, GD_FORMAT_TEXT, false, false);
    assert_null(strchr(plain, '\033'));
    static const char header[] = "gpudoctor check of this machine (Debian GNU/Linux 12 "
                                 "(bookworm), Linux 6.1.0-18-amd64)\n\n";
    assert_memory_equal(plain, header, sizeof header - 1);
    static const char *const ids[] = { "[driver.version-mismatch]", "[driver.multiple-libcuda]",
                                       "[env.info-thing]", "[driver.ok]" };
    const char *prev = plain;
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        const char *at = strstr(plain, ids[i]);
        if (!at)
            fail_msg("no %s in\n%s", ids[i], plain);
        assert_true(at > prev); /* in report order */
        prev = at;
    }
    assert_non_null(strstr(plain, "\n1 error, 1 warning, 1 info, 1 ok\n"));
    /* Problems get why, evidence and fix; info and ok ones only their line. */
    assert_non_null(strstr(plain, "evidence: driver.kernel_module.version = 535.104.05  [file "
                                  "/proc/driver/nvidia/version]"));
    assert_non_null(strstr(plain, "env.CUDA_HOME = absent (not set)  [env CUDA_HOME]"));
    assert_non_null(strstr(plain, "devices.nvidiactl.present = unknown (permission denied)"));
    assert_non_null(strstr(plain, "fix:      1. Reboot."));
    assert_non_null(strstr(plain, "2. Run: `nvidia-smi`"));
    assert_null(strstr(plain, "driver.module.nouveau.loaded"));
    assert_null(strstr(plain, "\nFacts\n"));
    /* Long text is wrapped within 100 columns. */
    for (const char *line = plain; *line;) {
        size_t n = strcspn(line, "\n");
        if (n > 100)
            fail_msg("line of %zu columns: %.*s", n, (int)n, line);
        line += n + (line[n] == '\n');
    }

    char *verbose = render(r, GD_FORMAT_TEXT, false, true);
    assert_null(strchr(verbose, '\033'));
    assert_non_null(strstr(verbose, "evidence: driver.module.nouveau.loaded = false"));
    assert_non_null(strstr(verbose, "\nFacts\n"));
    assert_non_null(strstr(verbose, "  driver.libcuda.copies.count = 2  [path /usr/lib]\n"));
    assert_non_null(strstr(verbose, "  host.live = true  [derived the root is /]\n"));

    char *color = render(r, GD_FORMAT_TEXT, true, false);
    assert_non_null(strstr(color, "\033[1;31merror  \033[0m"));
    assert_non_null(strstr(color, "\033[33mwarning\033[0m"));
    assert_non_null(strstr(color, "\033[32mok     \033[0m"));
    /* Without the escapes, the same text. */
    char stripped[16384];
    size_t n = 0;
    for (const char *p = color; *p && n + 1 < sizeof stripped;) {
        if (*p == '\033') {
            p += strcspn(p, "m") + 1;
            continue;
        }
        stripped[n++] = *p++;
    }
    stripped[n] = '\0';
    assert_string_equal(stripped, plain);
    gd_free(plain);
    gd_free(verbose);
    gd_free(color);

    /* A foreign root's header names the tree. */
    struct gd_report *img = gd_report_new();
    struct gd_entity *host = gd_report_add_entity(img, "host", "host");
    gd_fact_bool(host, "live", false, gd_src(GD_SOURCE_DERIVED, "x"));
    gd_fact_str(host, "root", "/tmp/img", gd_src(GD_SOURCE_OPTION, "--root"));
    gd_fact_unknown(host, "kernel.release", "no /proc", gd_src(GD_SOURCE_FILE, "/proc"));
    char *text = render(img, GD_FORMAT_TEXT, false, false);
    assert_string_equal(text, "gpudoctor check of the tree at /tmp/img\n\n\n0 errors, 0 warnings, "
                              "0 info, 0 ok\n");
    gd_free(text);
    gd_report_free(img);
    gd_report_free(r);
}

static void test_prometheus(void **state)
{
    (void)state;
    struct gd_report *r = gd_report_new();
    gd_finding_add(r, "a\"quote\\back\nline", GD_SEV_WARNING, "t");
    gd_finding_add(r, "driver.ok", GD_SEV_OK, "t");
    char *text = render(r, GD_FORMAT_PROMETHEUS, true, true);
    assert_non_null(strstr(
        text, "\ngpudoctor_finding{id=\"a\\\"quote\\\\back\\nline\",severity=\"warning\"} 1\n"));
    assert_non_null(strstr(text, "\ngpudoctor_finding{id=\"driver.ok\",severity=\"ok\"} 1\n"));
    assert_non_null(strstr(text, "# TYPE gpudoctor_finding gauge\n"));
    assert_non_null(strstr(text, "\ngpudoctor_findings{severity=\"error\"} 0\n"));
    assert_non_null(strstr(text, "\ngpudoctor_findings{severity=\"warning\"} 1\n"));
    assert_non_null(strstr(text, "\ngpudoctor_findings{severity=\"ok\"} 1\n"));
    assert_non_null(strstr(text, "\ngpudoctor_worst_severity 2\n"));
    assert_null(strchr(text, '\033'));
    /* Every line is a comment or a sample: no raw newline inside a label broke one. */
    for (const char *line = text; *line;) {
        size_t n = strcspn(line, "\n");
        if (!(line[0] == '#' || strncmp(line, "gpudoctor_", 10) == 0))
            fail_msg("stray line: %.*s", (int)n, line);
        line += n + (line[n] == '\n');
    }
    assert_int_equal(text[strlen(text) - 1], '\n');
    gd_free(text);
    gd_report_free(r);
}

static void test_markdown(void **state)
{
    (void)state;
    struct gd_report *r = sample();
    char *text = render(r, GD_FORMAT_MARKDOWN, false, false);
    static const char top[] = "## gpudoctor report\n\n1 error(s), 1 warning(s), 1 info, 1 ok\n\n";
    assert_memory_equal(text, top, sizeof top - 1);
    assert_non_null(strstr(text, "| ⚠️ | Several versions \\| of libcuda are installed | "
                                 "`driver.multiple-libcuda` |\n"));
    assert_non_null(strstr(text, "- `driver.kernel_module.version` = `535.104.05` (file "
                                 "`/proc/driver/nvidia/version`)\n"));
    assert_non_null(strstr(text, "- `env.CUDA_HOME` = `absent (not set)` (env `CUDA_HOME`)\n"));
    assert_non_null(strstr(text, "**Fix**\n\n1. Reboot.\n2. Run: `nvidia-smi`\n"));
    assert_non_null(strstr(text, "### ❌ NVIDIA kernel module"));
    /* Not verbose: info and ok findings have no section. */
    assert_null(strstr(text, "### ✅"));
    assert_null(strstr(text, "### ℹ️"));
    gd_free(text);
    text = render(r, GD_FORMAT_MARKDOWN, true, true);
    assert_non_null(strstr(text, "### ✅ The driver is fine otherwise"));
    assert_non_null(
        strstr(text, "- `driver.module.nouveau.loaded` = `false` (file `/proc/modules`)"));
    assert_null(strchr(text, '\033'));
    gd_free(text);
    gd_report_free(r);

    /* A value with a backtick is fenced with two. */
    r = gd_report_new();
    struct gd_entity *e = gd_report_add_entity(r, "env", "env");
    struct gd_finding *f = gd_finding_add(r, "x.y", GD_SEV_ERROR, "t");
    gd_finding_add_evidence(f, gd_fact_str(e, "V", "a`b", gd_src(GD_SOURCE_ENV, "V")));
    text = render(r, GD_FORMAT_MARKDOWN, false, false);
    assert_non_null(strstr(text, "- `env.V` = `` a`b `` (env `V`)\n"));
    gd_free(text);
    gd_report_free(r);
}

static void test_arguments(void **state)
{
    (void)state;
    struct gd_report *r = sample();
    char *out = (char *)1;
    size_t len = 9;
    assert_int_equal(gd_render(NULL, GD_FORMAT_TEXT, NULL, &out, &len), GD_EINVAL);
    assert_null(out);
    assert_int_equal(len, 0);
    assert_int_equal(gd_render(r, (enum gd_format)17, NULL, &out, &len), GD_EINVAL);
    assert_null(out);
    /* NULL options are the defaults (no colour, not verbose); `len` may be NULL. */
    assert_int_equal(gd_render(r, GD_FORMAT_TEXT, NULL, &out, NULL), GD_OK);
    char *plain = render(r, GD_FORMAT_TEXT, false, false);
    assert_string_equal(out, plain);
    gd_free(out);
    gd_free(plain);
    gd_report_free(r);
}

/* Fail each allocation of rendering every format in turn: GD_ENOMEM and nothing handed out. */
static void test_alloc_failures(void **state)
{
    (void)state;
    struct gd_report *r = sample();
    for (int format = GD_FORMAT_TEXT; format <= GD_FORMAT_PROMETHEUS; format++) {
        for (int verbose = 0; verbose < 2; verbose++) {
            struct gd_render_options o = { verbose, verbose };
            char *want = NULL;
            assert_int_equal(gd_render(r, (enum gd_format)format, &o, &want, NULL), GD_OK);
            gd_alloc_fail_at(0);
            char *out = NULL;
            assert_int_equal(gd_render(r, (enum gd_format)format, &o, &out, NULL), GD_OK);
            unsigned long total = gd_alloc_fail_at(0);
            gd_free(out);
            assert_true(total > 0);
            for (unsigned long n = 1; n <= total + 1; n++) {
                gd_alloc_fail_at(n);
                out = (char *)1;
                size_t len = 5;
                enum gd_status st = gd_render(r, (enum gd_format)format, &o, &out, &len);
                gd_alloc_fail_at(0);
                if (n <= total && st != GD_ENOMEM)
                    fail_msg("format %d: allocation %lu of %lu failed: %s", format, n, total,
                             gd_status_str(st));
                if (st == GD_OK) {
                    assert_string_equal(out, want);
                    gd_free(out);
                } else {
                    assert_null(out);
                    assert_int_equal(len, 0);
                }
            }
            gd_free(want);
        }
    }
    gd_report_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json),       cmocka_unit_test(test_text),
        cmocka_unit_test(test_prometheus), cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_arguments),  cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
