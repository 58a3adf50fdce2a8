/* CUDA_VISIBLE_DEVICES read as the driver reads it, matched against GPUs, and PCI addresses in
 * one spelling. The expectations are the driver's behaviour as PyTorch's tests record it
 * (test/test_cuda_nvml_based_avail.py, TestVisibleDeviceParses) and as NVIDIA's Programming
 * Guide describes it ("0,2,-1,1" shows devices 0 and 2). */
#include "parse/visible_devices.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

struct parse_case {
    const char *value;
    enum gd_vd_mode mode;
    const char *visible; /* the visible entries as written, joined with '|' */
    size_t total;
    enum gd_vd_stop stop;
    const char *stop_text;
};

static const struct parse_case parse_cases[] = {
    { "0,1", GD_VD_ORDINALS, "0|1", 2, GD_VD_STOP_NONE, NULL },
    /* The guide's example, and PyTorch's recorded driver behaviour. */
    { "0,2,-1,1", GD_VD_ORDINALS, "0|2", 4, GD_VD_STOP_NEGATIVE, "-1" },
    { "0, 1, 2, -1, 3", GD_VD_ORDINALS, "0|1|2", 5, GD_VD_STOP_NEGATIVE, "-1" },
    { "1gpu2,2ampere", GD_VD_ORDINALS, "1gpu2|2ampere", 2, GD_VD_STOP_NONE, NULL },
    { "0, 1, 2, 1", GD_VD_ORDINALS, "", 4, GD_VD_STOP_DUPLICATE, "1" },
    { "2, +3, -0, 5", GD_VD_ORDINALS, "2|+3|-0|5", 4, GD_VD_STOP_NONE, NULL },
    { "one,two,3,4", GD_VD_ORDINALS, "", 4, GD_VD_STOP_INVALID, "one" },
    { "4,3,two,one", GD_VD_ORDINALS, "4|3", 4, GD_VD_STOP_INVALID, "two" },
    { "GPU-9e8d35e3", GD_VD_GPU_UUIDS, "GPU-9e8d35e3", 1, GD_VD_STOP_NONE, NULL },
    { "GPU-123, 2", GD_VD_GPU_UUIDS, "GPU-123", 2, GD_VD_STOP_INVALID, " 2" },
    { "MIG-89c850dc", GD_VD_MIG_UUIDS, "MIG-89c850dc", 1, GD_VD_STOP_NONE, NULL },
    { "GPU-a,GPU-b,GPU-a", GD_VD_GPU_UUIDS, "", 3, GD_VD_STOP_DUPLICATE, "GPU-a" },
    /* An empty value, and the ways schedulers say "none". */
    { "", GD_VD_ORDINALS, "", 1, GD_VD_STOP_INVALID, "" },
    { "-1", GD_VD_ORDINALS, "", 1, GD_VD_STOP_NEGATIVE, "-1" },
    { "NoDevFiles", GD_VD_ORDINALS, "", 1, GD_VD_STOP_INVALID, "NoDevFiles" },
    { "0,,1", GD_VD_ORDINALS, "0", 3, GD_VD_STOP_INVALID, "" },
    { "+", GD_VD_ORDINALS, "", 1, GD_VD_STOP_INVALID, "+" },
    /* A UUID list starts with the prefix itself: leading white space makes it an ordinal list. */
    { " GPU-1", GD_VD_ORDINALS, "", 1, GD_VD_STOP_INVALID, "GPU-1" },
};

static void join(const struct gd_vd_list *l, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; i < l->n; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s%.*s", i ? "|" : "", (int)l->entries[i].text.n,
                 l->entries[i].text.p);
    }
}

static void test_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof parse_cases / sizeof *parse_cases; i++) {
        const struct parse_case *c = &parse_cases[i];
        struct gd_vd_list l;
        gd_visible_devices_parse(c->value, strlen(c->value), &l);
        char got[256];
        join(&l, got, sizeof got);
        print_message("\"%s\" -> \"%s\"\n", c->value, got);
        assert_int_equal(l.mode, c->mode);
        assert_string_equal(got, c->visible);
        assert_int_equal(l.total, c->total);
        assert_int_equal(l.stop, c->stop);
        if (c->stop_text) {
            assert_int_equal(l.stop_text.n, strlen(c->stop_text));
            assert_memory_equal(l.stop_text.p, c->stop_text, l.stop_text.n);
        }
    }
    struct gd_vd_list l;
    gd_visible_devices_parse("2, +3, -0, 5", 12, &l);
    assert_int_equal(l.entries[0].ordinal, 2);
    assert_int_equal(l.entries[1].ordinal, 3);
    assert_int_equal(l.entries[2].ordinal, 0);
    assert_int_equal(l.entries[3].ordinal, 5);
    gd_visible_devices_parse(NULL, 0, &l);
    assert_int_equal(l.n, 0);
    /* Only `len` bytes count. */
    gd_visible_devices_parse("0,1,2", 3, &l);
    assert_int_equal(l.n, 2);
    /* More entries than kept. */
    char many[GD_VD_ENTRIES_MAX * 4 + 8] = "";
    for (int i = 0; i <= GD_VD_ENTRIES_MAX; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%s%d", i ? "," : "", i);
    gd_visible_devices_parse(many, strlen(many), &l);
    assert_int_equal(l.n, GD_VD_ENTRIES_MAX);
    assert_int_equal(l.stop, GD_VD_STOP_TOO_MANY);
    assert_int_equal(l.total, GD_VD_ENTRIES_MAX + 1);
    /* A huge ordinal saturates, and is out of range of any machine. */
    gd_visible_devices_parse("99999999999999999999999", 23, &l);
    assert_int_equal(l.n, 1);
    size_t map[GD_VD_ENTRIES_MAX];
    assert_int_equal(gd_visible_devices_resolve(&l, NULL, 8, map), 0);
    assert_int_equal(l.stop, GD_VD_STOP_RANGE);
}

/* PyTorch's eight UUIDs (test_partial_uuid_resolver). */
static const char *const uuids[] = {
    "GPU-9942190a-aa31-4ff1-4aa9-c388d80f85f1", "GPU-9e8d35e3-a134-0fdd-0e01-23811fdbd293",
    "GPU-e429a63e-c61c-4795-b757-5132caeb8e70", "GPU-eee1dfbc-0a0f-6ad8-5ff6-dc942a8b9d98",
    "GPU-bbcd6503-5150-4e92-c266-97cc4390d04e", "GPU-472ea263-58d7-410d-cc82-f7fdece5bd28",
    "GPU-e56257c4-947f-6a5b-7ec9-0f45567ccf4e", "GPU-1c20e77d-1c1a-d9ed-fe37-18b8466a78ad",
};

struct resolve_case {
    const char *value;
    size_t ngpus;
    const char *map; /* GPU indices, "2,1" */
    enum gd_vd_stop stop;
};

static const struct resolve_case resolve_cases[] = {
    { "GPU-9e8d35e3", 8, "1", GD_VD_STOP_NONE },
    { "GPU-e4,GPU-9e8d35e3", 8, "2,1", GD_VD_STOP_NONE },
    { "GPU-9e8d35e3,GPU-1,GPU-47", 8, "1,7,5", GD_VD_STOP_NONE },
    { "GPU-123,GPU-9e8d35e3", 8, "", GD_VD_STOP_NO_MATCH },
    { "GPU-9e8d35e3,GPU-123,GPU-47", 8, "1", GD_VD_STOP_NO_MATCH },
    { "GPU-9e8d35e3,GPU-e,GPU-47", 8, "1", GD_VD_STOP_AMBIGUOUS },
    { "GPU-9e8d35e3,GPU-47,GPU-9e8", 8, "", GD_VD_STOP_DUPLICATE },
    /* PyTorch's test_ordinal_parse_visible_devices: two GPUs. */
    { "1, 0", 2, "1,0", GD_VD_STOP_NONE },
    { "1, 5, 0", 2, "1", GD_VD_STOP_RANGE },
    { "0,1", 0, "", GD_VD_STOP_RANGE },
    { "MIG-89c850dc", 8, "", GD_VD_STOP_NONE },
};

static void test_resolve(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof resolve_cases / sizeof *resolve_cases; i++) {
        const struct resolve_case *c = &resolve_cases[i];
        struct gd_vd_list l;
        gd_visible_devices_parse(c->value, strlen(c->value), &l);
        size_t map[GD_VD_ENTRIES_MAX];
        size_t n = gd_visible_devices_resolve(&l, uuids, c->ngpus, map);
        char got[64] = "";
        for (size_t k = 0; k < n; k++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%zu", k ? "," : "", map[k]);
        print_message("\"%s\" on %lu GPUs -> %s\n", c->value, (unsigned long)c->ngpus, got);
        assert_string_equal(got, c->map);
        assert_int_equal(l.stop, c->stop);
        assert_int_equal(n, l.mode == GD_VD_MIG_UUIDS ? 0 : l.n);
    }
    /* Unknown UUIDs match nothing. */
    const char *none[2] = { NULL, NULL };
    struct gd_vd_list l;
    gd_visible_devices_parse("GPU-1", 5, &l);
    size_t map[GD_VD_ENTRIES_MAX];
    assert_int_equal(gd_visible_devices_resolve(&l, none, 2, map), 0);
    assert_int_equal(l.stop, GD_VD_STOP_NO_MATCH);
    assert_string_equal(gd_vd_stop_text(GD_VD_STOP_NONE), "");
    assert_string_equal(gd_vd_stop_text(GD_VD_STOP_NEGATIVE), "is negative");
}

static void test_pci(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } ok[] = {
        { "00000000:3B:00.0", "0000:3b:00.0" }, /* NVML busId */
        { "0000:3B:00.0", "0000:3b:00.0" },     /* NVML busIdLegacy, cuDeviceGetPCIBusId */
        { "0000:01:00.0", "0000:01:00.0" },     /* /proc */
        { "10000:e1:1f.7", "10000:e1:1f.7" },   /* a 32-bit domain */
        { "0001:00:00.0", "0001:00:00.0" },
    };
    char out[GD_PCI_BUS_ID_MAX];
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        assert_true(gd_pci_bus_id_normalize(ok[i].in, strlen(ok[i].in), out));
        assert_string_equal(out, ok[i].out);
    }
    static const char *const bad[] = { "",
                                       "0000:3B:00",
                                       "000:3b:00.0",
                                       "0000:3b:20.0",
                                       "0000:3b:00.8",
                                       "0000:3b:00.0 ",
                                       "000000000:3b:00.0",
                                       "0000-3b-00.0",
                                       "GPU-1" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        strcpy(out, "x");
        assert_false(gd_pci_bus_id_normalize(bad[i], strlen(bad[i]), out));
        assert_string_equal(out, "");
    }
    assert_false(gd_pci_bus_id_normalize(NULL, 0, out));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_pci),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
