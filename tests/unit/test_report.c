/* The report model: entities, facts that know what they don't know, findings with evidence. */
#include "core/alloc.h"
#include "core/report.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static struct gd_source src(const char *ref)
{
    return gd_src(GD_SOURCE_FILE, ref);
}

static void test_entities(void **state)
{
    (void)state;
    struct gd_report *r = gd_report_new();
    assert_non_null(r);
    assert_int_equal(gd_report_entity_count(r), 0);
    struct gd_entity *host = gd_report_add_entity(r, "host", "host");
    struct gd_entity *lib = gd_report_add_entity(r, "library", "libcudnn.so.9");
    assert_non_null(host);
    assert_non_null(lib);
    /* The same id is the same entity; its kind stays the first one. */
    assert_ptr_equal(gd_report_add_entity(r, "other", "host"), host);
    assert_int_equal(gd_report_entity_count(r), 2);
    assert_string_equal(gd_entity_kind(gd_report_entity(r, "host")), "host");
    assert_string_equal(gd_entity_id(gd_report_entity_at(r, 1)), "libcudnn.so.9");
    assert_string_equal(gd_entity_kind(lib), "library");
    assert_null(gd_report_entity(r, "nope"));
    assert_null(gd_report_entity_at(r, 2));
    assert_false(gd_report_failed(r));
    assert_non_null(gd_report_arena(r));
    /* Many entities: the array grows. */
    for (int i = 0; i < 100; i++) {
        char id[16];
        snprintf(id, sizeof id, "e%d", i);
        assert_non_null(gd_report_add_entity(r, "x", id));
    }
    assert_int_equal(gd_report_entity_count(r), 102);
    assert_string_equal(gd_entity_id(gd_report_entity(r, "e99")), "e99");
    assert_null(gd_report_add_entity(NULL, "x", "y"));
    /* Parts: in the order added, each once; NULLs ignored. */
    size_t n = 9;
    assert_null(gd_entity_parts(host, &n));
    assert_int_equal(n, 0);
    gd_entity_add_part(host, lib);
    gd_entity_add_part(host, gd_report_add_entity(r, "x", "e5"));
    gd_entity_add_part(host, lib);
    gd_entity_add_part(host, NULL);
    gd_entity_add_part(NULL, lib);
    struct gd_entity *const *parts = gd_entity_parts(host, &n);
    assert_int_equal(n, 2);
    assert_ptr_equal(parts[0], lib);
    assert_string_equal(gd_entity_id(parts[1]), "e5");
    assert_null(gd_entity_parts(NULL, &n));
    assert_int_equal(n, 0);
    /* Out of memory is sticky and adds nothing. */
    gd_alloc_fail_at(1);
    gd_entity_add_part(lib, host);
    gd_alloc_fail_at(0);
    assert_true(gd_report_failed(r));
    gd_entity_parts(lib, &n);
    assert_int_equal(n, 0);
    gd_report_free(r);
    gd_report_free(NULL);
}

static void test_facts(void **state)
{
    (void)state;
    struct gd_report *r = gd_report_new();
    struct gd_entity *e = gd_report_add_entity(r, "driver", "driver");
    char ref[] = "/proc/driver/nvidia/version";
    const struct gd_fact *v = gd_fact_str(e, "version", "535.104.05", src(ref));
    ref[0] = 'X'; /* the source is copied */
    const struct gd_fact *n = gd_fact_int(e, "count", -42, gd_src(GD_SOURCE_DERIVED, NULL));
    const struct gd_fact *b = gd_fact_bool(e, "loaded", true, gd_src(GD_SOURCE_PATH, "/sys"));
    const struct gd_fact *f = gd_fact_bool(e, "blacklisted", false, src("x"));
    const struct gd_fact *a = gd_fact_absent(e, "libcuda", NULL, src("/usr/lib"));
    const struct gd_fact *u = gd_fact_unknown(e, "nvml", "permission denied", src("/dev"));
    const struct gd_fact *u2 = gd_fact_unknown(e, "other", NULL, gd_src(GD_SOURCE_ENV, "X"));
    const struct gd_fact *s =
        gd_fact_strf(e, "fmt", gd_src(GD_SOURCE_ELF, "a.so:SONAME"), "%s.%d", "libcudnn.so", 9);
    const struct gd_fact *z = gd_fact_str(e, "null", NULL, src("y"));

    assert_int_equal(gd_entity_fact_count(e), 9);
    assert_ptr_equal(gd_entity_fact_at(e, 0), v);
    assert_null(gd_entity_fact_at(e, 9));
    assert_ptr_equal(gd_fact_entity(v), e);
    assert_string_equal(gd_fact_name(v), "version");
    assert_int_equal(gd_fact_state(v), GD_FACT_KNOWN);
    assert_int_equal(gd_fact_type(v), GD_VALUE_STRING);
    assert_string_equal(gd_fact_value(v), "535.104.05");
    assert_null(gd_fact_reason(v));
    assert_int_equal(gd_fact_source_kind(v), GD_SOURCE_FILE);
    assert_string_equal(gd_fact_source_ref(v), "/proc/driver/nvidia/version");

    assert_int_equal(gd_fact_type(n), GD_VALUE_INT);
    assert_string_equal(gd_fact_value(n), "-42");
    assert_int_equal(n->int_value, -42);
    assert_string_equal(gd_fact_source_ref(n), ""); /* a NULL ref reads as "" */
    assert_int_equal(gd_fact_type(b), GD_VALUE_BOOL);
    assert_string_equal(gd_fact_value(b), "true");
    assert_string_equal(gd_fact_value(f), "false");
    assert_true(gd_fact_is_true(b));
    assert_false(gd_fact_is_false(b));
    assert_true(gd_fact_is_false(f));
    assert_false(gd_fact_is_true(f));
    /* Only a known boolean is true or false. */
    assert_false(gd_fact_is_true(v));
    assert_false(gd_fact_is_false(v));
    assert_false(gd_fact_is_false(n));
    assert_false(gd_fact_is_true(a));
    assert_false(gd_fact_is_false(a));
    assert_false(gd_fact_is_true(NULL));
    assert_false(gd_fact_is_false(NULL));

    /* Absent and unknown facts have no value, only a reason. */
    assert_int_equal(gd_fact_state(a), GD_FACT_ABSENT);
    assert_null(gd_fact_value(a));
    assert_null(gd_fact_reason(a));
    assert_int_equal(gd_fact_state(u), GD_FACT_UNKNOWN);
    assert_null(gd_fact_value(u));
    assert_string_equal(gd_fact_reason(u), "permission denied");
    assert_string_equal(gd_fact_reason(u2), "unknown");
    assert_null(gd_fact_known_value(u));
    assert_null(gd_fact_known_value(NULL));
    assert_string_equal(gd_fact_known_value(v), "535.104.05");
    assert_string_equal(gd_fact_value(s), "libcudnn.so.9");
    assert_string_equal(gd_source_kind_name(gd_fact_source_kind(s)), "elf");
    assert_string_equal(gd_fact_value(z), "");

    /* Lookups by entity id and fact name. */
    assert_ptr_equal(gd_report_fact(r, "driver", "nvml"), u);
    assert_null(gd_report_fact(r, "driver", "missing"));
    assert_null(gd_report_fact(r, "nope", "version"));
    assert_string_equal(gd_report_value(r, "driver", "version"), "535.104.05");
    assert_null(gd_report_value(r, "driver", "libcuda"));
    assert_ptr_equal(gd_entity_fact(e, "count"), n);
    assert_null(gd_entity_fact(NULL, "count"));

    /* A NULL entity makes every builder a no-op. */
    assert_null(gd_fact_str(NULL, "x", "y", src("z")));
    assert_null(gd_fact_int(NULL, "x", 1, src("z")));
    assert_null(gd_fact_bool(NULL, "x", true, src("z")));
    assert_null(gd_fact_absent(NULL, "x", NULL, src("z")));
    assert_null(gd_fact_unknown(NULL, "x", NULL, src("z")));
    assert_null(gd_fact_strf(NULL, "x", src("z"), "%d", 1));
    assert_false(gd_report_failed(r));
    gd_report_free(r);
}

/* A second fact of one name replaces the first in place: same pointer, same position, so
 * evidence that points at it sees the new value. */
static void test_replace_in_place(void **state)
{
    (void)state;
    struct gd_report *r = gd_report_new();
    struct gd_entity *e = gd_report_add_entity(r, "host", "host");
    const struct gd_fact *first = gd_fact_str(e, "os.id", "debian", src("/etc/os-release"));
    gd_fact_str(e, "arch", "x86_64", src("uname"));
    struct gd_finding *fd = gd_finding_add(r, "x.y", GD_SEV_INFO, "t");
    gd_finding_add_evidence(fd, first);

    const struct gd_fact *again = gd_fact_unknown(e, "os.id", "no ID= line", src("/usr/lib/os"));
    assert_ptr_equal(again, first);
    assert_int_equal(gd_entity_fact_count(e), 2);
    assert_ptr_equal(gd_entity_fact_at(e, 0), first);
    assert_int_equal(gd_fact_state(first), GD_FACT_UNKNOWN);
    assert_null(gd_fact_value(first));
    assert_string_equal(gd_fact_reason(first), "no ID= line");
    assert_string_equal(gd_fact_source_ref(first), "/usr/lib/os");
    assert_string_equal(gd_fact_name(first), "os.id");

    /* Changing type: unknown -> int -> bool -> string; the reason goes with the old state. */
    gd_fact_int(e, "os.id", 7, gd_src(GD_SOURCE_DERIVED, "d"));
    assert_int_equal(gd_fact_type(first), GD_VALUE_INT);
    assert_string_equal(gd_fact_value(first), "7");
    assert_null(gd_fact_reason(first));
    assert_int_equal(gd_fact_source_kind(first), GD_SOURCE_DERIVED);
    gd_fact_bool(e, "os.id", false, src("b"));
    assert_true(gd_fact_is_false(first));
    gd_fact_str(e, "os.id", "ubuntu", src("c"));
    assert_false(gd_fact_is_false(first));
    assert_int_equal(gd_fact_type(first), GD_VALUE_STRING);
    assert_string_equal(gd_fact_value(gd_finding_evidence_at(fd, 0)), "ubuntu");
    assert_int_equal(gd_entity_fact_count(e), 2);
    assert_string_equal(gd_fact_value(gd_entity_fact_at(e, 1)), "x86_64");
    gd_report_free(r);
}

static void test_findings(void **state)
{
    (void)state;
    struct gd_report *r = gd_report_new();
    assert_int_equal(gd_report_worst(r), GD_SEV_OK);
    struct gd_entity *e = gd_report_add_entity(r, "env", "env");
    const struct gd_fact *a = gd_fact_str(e, "A", "1", gd_src(GD_SOURCE_ENV, "A"));
    const struct gd_fact *b = gd_fact_str(e, "B", "2", gd_src(GD_SOURCE_ENV, "B"));
    struct gd_finding *f =
        gd_finding_add(r, "env.thing", GD_SEV_WARNING, "%s=\"%s\" is %d%%", "A", "1", 100);
    assert_non_null(f);
    assert_string_equal(gd_finding_id(f), "env.thing");
    assert_string_equal(gd_finding_title(f), "A=\"1\" is 100%");
    assert_int_equal(gd_finding_severity(f), GD_SEV_WARNING);
    assert_null(gd_finding_why(f));
    gd_finding_set_why(f, "because %s", "reasons");
    assert_string_equal(gd_finding_why(f), "because reasons");
    /* Evidence: NULL ignored, duplicates kept once, order kept. */
    gd_finding_add_evidence(f, b);
    gd_finding_add_evidence(f, NULL);
    gd_finding_add_evidence(f, a);
    gd_finding_add_evidence(f, b);
    gd_finding_add_evidence(f, a);
    assert_int_equal(gd_finding_evidence_count(f), 2);
    assert_ptr_equal(gd_finding_evidence_at(f, 0), b);
    assert_ptr_equal(gd_finding_evidence_at(f, 1), a);
    assert_null(gd_finding_evidence_at(f, 2));
    gd_finding_add_fix(f, "Run: %s", "unset A");
    gd_finding_add_fix(f, "Then %d", 2);
    assert_int_equal(gd_finding_fix_count(f), 2);
    assert_string_equal(gd_finding_fix_at(f, 0), "Run: unset A");
    assert_string_equal(gd_finding_fix_at(f, 1), "Then 2");
    assert_null(gd_finding_fix_at(f, 2));
    /* Many evidence facts and fixes: the arrays grow. */
    for (int i = 0; i < 50; i++) {
        char name[16];
        snprintf(name, sizeof name, "F%d", i);
        gd_finding_add_evidence(f, gd_fact_int(e, name, i, src("x")));
        gd_finding_add_fix(f, "step %d", i);
    }
    assert_int_equal(gd_finding_evidence_count(f), 52);
    assert_int_equal(gd_finding_fix_count(f), 52);
    assert_string_equal(gd_fact_value(gd_finding_evidence_at(f, 51)), "49");

    /* NULL findings are accepted and ignored by every builder. */
    gd_finding_set_why(NULL, "x");
    gd_finding_add_evidence(NULL, a);
    gd_finding_add_fix(NULL, "x");
    assert_null(gd_finding_add(NULL, "x", GD_SEV_OK, "t"));

    assert_int_equal(gd_report_finding_count(r), 1);
    assert_ptr_equal(gd_report_finding_at(r, 0), f);
    assert_null(gd_report_finding_at(r, 1));
    assert_int_equal(gd_report_worst(r), GD_SEV_WARNING);
    gd_finding_add(r, "x.err", GD_SEV_ERROR, "e");
    assert_int_equal(gd_report_worst(r), GD_SEV_ERROR);
    gd_report_free(r);
}

/* Most severe first; within a severity, the order the rules added them. */
static void test_sort(void **state)
{
    (void)state;
    static const struct {
        const char *id;
        enum gd_severity sev;
    } added[] = {
        { "ok.1", GD_SEV_OK },        { "info.1", GD_SEV_INFO },    { "err.1", GD_SEV_ERROR },
        { "warn.1", GD_SEV_WARNING }, { "ok.2", GD_SEV_OK },        { "err.2", GD_SEV_ERROR },
        { "info.2", GD_SEV_INFO },    { "warn.2", GD_SEV_WARNING }, { "err.3", GD_SEV_ERROR },
        { "ok.3", GD_SEV_OK },
    };
    static const char *const want[] = { "err.1",  "err.2",  "err.3", "warn.1", "warn.2",
                                        "info.1", "info.2", "ok.1",  "ok.2",   "ok.3" };
    struct gd_report *r = gd_report_new();
    for (size_t i = 0; i < sizeof added / sizeof *added; i++)
        gd_finding_add(r, added[i].id, added[i].sev, "%s", added[i].id);
    gd_report_sort_findings(r);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        assert_string_equal(gd_finding_id(gd_report_finding_at(r, i)), want[i]);
    /* Sorting again changes nothing. */
    gd_report_sort_findings(r);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        assert_string_equal(gd_finding_id(gd_report_finding_at(r, i)), want[i]);
    gd_report_free(r);

    r = gd_report_new();
    gd_report_sort_findings(r); /* empty */
    assert_int_equal(gd_report_finding_count(r), 0);
    gd_report_free(r);
}

static void test_names(void **state)
{
    (void)state;
    static const struct {
        enum gd_source_kind kind;
        const char *name;
    } kinds[] = {
        { GD_SOURCE_FILE, "file" },
        { GD_SOURCE_PATH, "path" },
        { GD_SOURCE_ENV, "env" },
        { GD_SOURCE_ELF, "elf" },
        { GD_SOURCE_CALL, "call" },
        { GD_SOURCE_DERIVED, "derived" },
        { GD_SOURCE_OPTION, "option" },
        { GD_SOURCE_KB, "kb" },
        { (enum gd_source_kind)42, "unknown" },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        assert_string_equal(gd_source_kind_name(kinds[i].kind), kinds[i].name);
    assert_string_equal(gd_severity_name(GD_SEV_OK), "ok");
    assert_string_equal(gd_severity_name(GD_SEV_INFO), "info");
    assert_string_equal(gd_severity_name(GD_SEV_WARNING), "warning");
    assert_string_equal(gd_severity_name(GD_SEV_ERROR), "error");
    assert_string_equal(gd_severity_name((enum gd_severity)9), "unknown");
}

/* The report strdup/printf helpers. */
static void test_strings(void **state)
{
    (void)state;
    struct gd_report *r = gd_report_new();
    assert_null(gd_report_strdup(r, NULL));
    assert_string_equal(gd_report_strdup(r, "x"), "x");
    assert_string_equal(gd_report_printf(r, "%d-%s", 3, "y"), "3-y");
    assert_false(gd_report_failed(r));
    gd_alloc_fail_at(1);
    assert_null(gd_report_printf(r, "%0*d", 300000, 0)); /* needs a new chunk: fails */
    gd_alloc_fail_at(0);
    assert_true(gd_report_failed(r));
    gd_report_free(r);
}

/* One report as the probes and rules build it: facts of every kind, a replacement, lookups
 * between additions, findings with why, evidence and fixes. Returns whether it is complete. */
static bool build(struct gd_report *r)
{
    struct gd_entity *host = gd_report_add_entity(r, "host", "host");
    gd_fact_str(host, "os.id", "debian", src("/etc/os-release"));
    gd_fact_bool(host, "live", true, gd_src(GD_SOURCE_DERIVED, "root"));
    if (!gd_entity_fact(host, "os.pretty_name"))
        gd_fact_unknown(host, "os.pretty_name", "no PRETTY_NAME= line", src("/etc/os-release"));
    struct gd_entity *drv = gd_report_add_entity(r, "driver", "driver");
    for (int i = 0; i < 30; i++) {
        char name[32];
        snprintf(name, sizeof name, "module.m%d.loaded", i);
        gd_fact_bool(drv, name, i % 2, gd_src(GD_SOURCE_FILE, "/proc/modules"));
        /* Lookups between additions, as a probe does after a failed one. */
        gd_report_value(r, "driver", "kernel_module.version");
        gd_entity_fact(drv, name);
    }
    gd_fact_strf(drv, "kernel_module.version", src("/proc/driver/nvidia/version"), "%d.%d.%02d",
                 535, 104, 5);
    gd_fact_absent(drv, "libcuda.path", "no libcuda.so.1", gd_src(GD_SOURCE_PATH, "/usr/lib"));
    gd_fact_int(drv, "libcuda.copies.count", 0, gd_src(GD_SOURCE_PATH, "/usr/lib"));
    gd_fact_str(drv, "kernel_module.version", "550.54.14", src("/proc/driver/nvidia/version"));
    gd_fact_unknown(drv, "libcuda.version", NULL, src("x"));
    for (int i = 0; i < 12; i++) {
        struct gd_finding *f = gd_finding_add(
            r, "driver.thing", (enum gd_severity)(i % 4), "Finding %d about %s", i,
            gd_report_value(r, "driver", "kernel_module.version") ? "a known module"
                                                                  : "an unknown one");
        gd_finding_set_why(f, "why %d", i);
        gd_finding_add_evidence(f, gd_report_fact(r, "driver", "kernel_module.version"));
        gd_finding_add_evidence(f, gd_report_fact(r, "driver", "libcuda.path"));
        gd_finding_add_evidence(f, gd_report_fact(r, "host", "os.id"));
        gd_finding_add_fix(f, "step one of %d", i);
        gd_finding_add_fix(f, "step two");
    }
    gd_report_sort_findings(r);
    return !gd_report_failed(r);
}

static void check_built(const struct gd_report *r)
{
    assert_int_equal(gd_report_entity_count(r), 2);
    const struct gd_entity *drv = gd_report_entity(r, "driver");
    assert_int_equal(gd_entity_fact_count(drv), 34);
    assert_string_equal(gd_report_value(r, "driver", "kernel_module.version"), "550.54.14");
    assert_string_equal(gd_fact_reason(gd_report_fact(r, "host", "os.pretty_name")),
                        "no PRETTY_NAME= line");
    assert_int_equal(gd_report_finding_count(r), 12);
    for (size_t i = 0; i < 12; i++) {
        const struct gd_finding *f = gd_report_finding_at(r, i);
        assert_int_equal(gd_finding_evidence_count(f), 3);
        assert_int_equal(gd_finding_fix_count(f), 2);
        assert_non_null(gd_finding_why(f));
        assert_non_null(strstr(gd_finding_title(f), "a known module"));
    }
    assert_int_equal(gd_finding_severity(gd_report_finding_at(r, 0)), GD_SEV_ERROR);
}

/* Fail each allocation in turn: the failure is sticky, later additions and lookups are safe, and
 * the report frees without leaks (the sanitizer build checks). */
static void test_alloc_failures(void **state)
{
    (void)state;
    gd_alloc_fail_at(0);
    struct gd_report *r = gd_report_new();
    assert_true(build(r));
    check_built(r);
    gd_report_free(r);
    unsigned long total = gd_alloc_fail_at(0);
    assert_true(total > 10);

    for (unsigned long n = 1; n <= total + 1; n++) {
        gd_alloc_fail_at(n);
        r = gd_report_new();
        bool complete = r && build(r);
        gd_alloc_fail_at(0);
        if (n <= total && complete)
            fail_msg("allocation %lu of %lu failed, yet the report is complete", n, total);
        if (complete)
            check_built(r);
        else if (r)
            assert_true(gd_report_failed(r));
        /* A failed report answers lookups without crashing. */
        if (r) {
            gd_report_value(r, "driver", "kernel_module.version");
            gd_report_fact(r, "host", "os.id");
            for (size_t i = 0; i < gd_report_entity_count(r); i++) {
                const struct gd_entity *e = gd_report_entity_at(r, i);
                for (size_t k = 0; k < gd_entity_fact_count(e); k++)
                    assert_non_null(gd_fact_name(gd_entity_fact_at(e, k)));
            }
        }
        gd_report_free(r);
    }
}

/* An allocation failure at each point of adding a fact (the arena allocates only at a chunk
 * boundary, so the used size is swept across one): the fact is either complete or not there,
 * and a replaced fact keeps its old value. */
static void test_fact_failure_points(void **state)
{
    (void)state;
    for (int pad = 0; pad <= 4096; pad += 8) {
        for (int replace = 0; replace < 2; replace++) {
            struct gd_report *r = gd_report_new();
            struct gd_entity *e = gd_report_add_entity(r, "driver", "driver");
            if (replace)
                gd_fact_str(e, "libcuda.version", "535.104.05", src("old"));
            assert_non_null(gd_report_printf(r, "%*s", pad, ""));
            gd_alloc_fail_at(1);
            const struct gd_fact *f = gd_fact_str(e, "libcuda.version", "550.54.14-a-long-value",
                                                  src("/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
            gd_alloc_fail_at(0);
            assert_int_equal(f == NULL, gd_report_failed(r));
            for (size_t k = 0; k < gd_entity_fact_count(e); k++) {
                const struct gd_fact *g = gd_entity_fact_at(e, k);
                if (!gd_fact_name(g) || !gd_fact_source_ref(g))
                    fail_msg("pad %d, replace %d: fact %zu left half-made", pad, replace, k);
                if (gd_fact_state(g) == GD_FACT_KNOWN && !gd_fact_value(g))
                    fail_msg("pad %d, replace %d: known fact without a value", pad, replace);
            }
            const char *v = gd_report_value(r, "driver", "libcuda.version");
            if (f)
                assert_string_equal(v, "550.54.14-a-long-value");
            else if (replace && (!v || strcmp(v, "535.104.05") != 0))
                fail_msg("pad %d: the replaced fact lost its old value (%s)", pad, v ? v : "NULL");
            gd_report_free(r);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entities),
        cmocka_unit_test(test_facts),
        cmocka_unit_test(test_replace_in_place),
        cmocka_unit_test(test_findings),
        cmocka_unit_test(test_sort),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_fact_failure_points),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
