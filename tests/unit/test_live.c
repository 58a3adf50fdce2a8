/*
 * The live probe (src/probe/live*.c) and the smoke tests (src/probe/smoke.c) on this machine with
 * the fake NVIDIA libraries of tests/fakes, which the test runs with on LD_LIBRARY_PATH (set by
 * tests/CMakeLists.txt): the facts each vendor call gives, and every allocation failed in turn,
 * which must end in a report marked out of memory — never in a report that silently lacks facts.
 * Skipped (77) when the fakes are not what the loader finds.
 */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "core/env.h"
#include "core/report.h"
#include "probe/live.h"
#include "probe/smoke.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"

static bool fakes_loaded(void)
{
    const char *path = getenv("LD_LIBRARY_PATH");
    return path && strstr(path, "tests/fakes/lib") && getenv("FAKE_GPUS");
}

struct run {
    struct gd_root *root;
    struct gd_env *env;
    struct gd_report *report;
};

static void start(struct run *r, const char *visible)
{
    assert_int_equal(gd_root_new("/", &r->root), GD_OK);
    r->env = gd_env_new();
    assert_non_null(r->env);
    if (visible)
        assert_int_equal(gd_env_set(r->env, "CUDA_VISIBLE_DEVICES", visible), GD_OK);
    r->report = gd_report_new();
    assert_non_null(r->report);
}

static void stop(struct run *r)
{
    gd_report_free(r->report);
    gd_env_free(r->env);
    gd_root_free(r->root);
}

static void probe(struct run *r, bool smoke)
{
    struct gd_probe_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.root = r->root;
    ctx.env = r->env;
    ctx.report = r->report;
    gd_probe_live(&ctx);
    if (smoke) {
        struct gd_smoke_options o = { 0, NULL, NULL };
        gd_probe_smoke(&ctx, &o);
    }
}

static const char *value(const struct run *r, const char *entity, const char *fact)
{
    const char *v = gd_report_value(r->report, entity, fact);
    return v ? v : "(none)";
}

static void test_facts(void **state)
{
    (void)state;
    if (!fakes_loaded())
        skip();
    struct run r;
    /* The inspected environment's CUDA_VISIBLE_DEVICES reaches the driver in the child, whatever
     * gpudoctor's own environment holds. */
    start(&r, "1");
    probe(&r, false);
    assert_false(gd_report_failed(r.report));
    assert_string_equal(value(&r, "cuda_driver", "init"), "CUDA_SUCCESS");
    assert_string_equal(value(&r, "cuda_driver", "device_count"), "1");
    assert_string_equal(value(&r, "cuda_device:0", "name"), "Fake GPU 1");
    assert_string_equal(value(&r, "cuda_device:0", "bus_id"), "0000:20:00.0");
    assert_string_equal(value(&r, "cuda_device:0", "gpu"), "gpu:0000:20:00.0");
    assert_string_equal(value(&r, "cuda_device:0", "nvidia_smi_index"), "1");
    assert_string_equal(value(&r, "nvml", "device_count"), "2");
    assert_string_equal(value(&r, "gpu:0000:10:00.0", "nvml.index"), "0");
    assert_string_equal(value(&r, "visible_devices", "device[0]"), "0000:20:00.0");
    assert_string_equal(value(&r, "visible_devices", "device[0].entry"), "1");
    assert_string_equal(value(&r, "visible_devices", "confirmed"), "true");
    assert_null(gd_report_entity(r.report, "cuda_device:1"));
    stop(&r);
}

static void test_smoke_facts(void **state)
{
    (void)state;
    if (!fakes_loaded())
        skip();
    struct run r;
    start(&r, NULL);
    probe(&r, true);
    assert_false(gd_report_failed(r.report));
    assert_string_equal(value(&r, "test", "devices"), "2");
    assert_string_equal(value(&r, "test_device:1", "kernel"), "ok");
    assert_string_equal(value(&r, "test_device:1", "copy"), "ok");
    assert_string_equal(value(&r, "test_device:0", "largest_block"), "ok");
    /* No soname entities here: no copy of cuBLAS, cuDNN or NCCL to test. */
    assert_string_equal(value(&r, "test", "cublas_copies"), "0");
    stop(&r);
}

/* Fail each allocation in turn; the children keep running (they use no allocator of gpudoctor's,
 * or a failure injected in the parent would be inherited by the fork). */
static void test_alloc_failures(void **state)
{
    (void)state;
    if (!fakes_loaded())
        skip();
    struct run r;
    start(&r, "1");
    gd_alloc_fail_at(0);
    probe(&r, true);
    unsigned long total = gd_alloc_fail_at(0);
    size_t want = gd_report_entity_count(r.report);
    assert_false(gd_report_failed(r.report));
    stop(&r);
    assert_true(total > 20);
    /* How many allocations a run makes depends a little on how the children's output arrives
     * (in one read or several): a run that made fewer than n never met the failure. */
    for (unsigned long n = 1; n <= total + 1; n++) {
        start(&r, "1");
        gd_alloc_fail_at(n);
        probe(&r, true);
        unsigned long made = gd_alloc_fail_at(0);
        if (made >= n && !gd_report_failed(r.report))
            fail_msg("allocation %lu of %lu failed, yet the report is not marked", n, made);
        if (made < n) {
            assert_false(gd_report_failed(r.report));
            assert_int_equal(gd_report_entity_count(r.report), want);
        }
        stop(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_facts),
        cmocka_unit_test(test_smoke_facts),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
