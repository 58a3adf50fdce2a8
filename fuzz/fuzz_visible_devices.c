/*
 * CUDA_VISIBLE_DEVICES: gd_visible_devices_parse over the bytes, gd_visible_devices_resolve over
 * a fixed set of eight GPUs (and over none), and gd_pci_bus_id_normalize over the bytes.
 * Invariants: every visible entry is a piece of the input without its list's separator; an
 * ordinal list holds distinct ordinals, a UUID list distinct texts with the list's prefix; a
 * stop names an entry of the input and a known reason, and none means every entry is visible;
 * a duplicate leaves nothing visible; resolving never makes more entries visible, maps each to a
 * distinct GPU below the count, and sets a reason when it drops any; a normalised PCI address is
 * in the kernel module's spelling and normalises to itself.
 */
#include "fuzz.h"

#include "parse/nvidia_gpu.h"
#include "parse/visible_devices.h"

static const char *const uuids[] = {
    "GPU-9942190a-aa31-4ff1-4aa9-c388d80f85f1", "GPU-9e8d35e3-a134-0fdd-0e01-23811fdbd293",
    "GPU-e429a63e-c61c-4795-b757-5132caeb8e70", "GPU-eee1dfbc-0a0f-6ad8-5ff6-dc942a8b9d98",
    "GPU-bbcd6503-5150-4e92-c266-97cc4390d04e", "GPU-472ea263-58d7-410d-cc82-f7fdece5bd28",
    "GPU-e56257c4-947f-6a5b-7ec9-0f45567ccf4e", "GPU-1c20e77d-1c1a-d9ed-fe37-18b8466a78ad",
};

static int inside(const char *text, size_t size, struct gd_span s)
{
    return s.n == 0 || (s.p >= text && s.p + s.n <= text + size);
}

static void check_list(const struct gd_vd_list *l, const char *text, size_t size)
{
    FUZZ_CHECK(l->n <= GD_VD_ENTRIES_MAX && l->n <= l->total);
    FUZZ_CHECK(l->stop != GD_VD_STOP_NONE || l->n == l->total);
    if (l->stop != GD_VD_STOP_NONE) {
        FUZZ_CHECK(l->stop_at < l->total && inside(text, size, l->stop_text));
        FUZZ_CHECK(gd_vd_stop_text(l->stop)[0] != '\0');
    }
    if (l->stop == GD_VD_STOP_DUPLICATE)
        FUZZ_CHECK(l->n == 0);
    for (size_t i = 0; i < l->n; i++) {
        const struct gd_vd_entry *e = &l->entries[i];
        FUZZ_CHECK(inside(text, size, e->text) && !memchr(e->text.p, ',', e->text.n));
        if (l->mode != GD_VD_ORDINALS)
            FUZZ_CHECK(e->text.n >= 4 &&
                       memcmp(e->text.p, l->mode == GD_VD_GPU_UUIDS ? "GPU-" : "MIG-", 4) == 0);
        for (size_t k = 0; k < i; k++) {
            if (l->mode == GD_VD_ORDINALS)
                FUZZ_CHECK(l->entries[k].ordinal != e->ordinal);
            else
                FUZZ_CHECK(l->entries[k].text.n != e->text.n ||
                           memcmp(l->entries[k].text.p, e->text.p, e->text.n) != 0);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct gd_vd_list list;
    gd_visible_devices_parse(text, size, &list);
    check_list(&list, text, size);

    for (size_t ngpus = 0; ngpus <= 8; ngpus += 8) {
        struct gd_vd_list copy = list;
        size_t map[GD_VD_ENTRIES_MAX];
        size_t n = gd_visible_devices_resolve(&copy, uuids, ngpus, map);
        check_list(&copy, text, size);
        FUZZ_CHECK(n == (list.mode == GD_VD_MIG_UUIDS ? 0 : copy.n) && copy.n <= list.n);
        if (copy.n < list.n)
            FUZZ_CHECK(copy.stop != GD_VD_STOP_NONE);
        for (size_t i = 0; i < n; i++) {
            FUZZ_CHECK(map[i] < ngpus);
            for (size_t k = 0; k < i; k++)
                FUZZ_CHECK(map[k] != map[i]);
        }
    }

    char bus[GD_PCI_BUS_ID_MAX];
    if (gd_pci_bus_id_normalize(text, size, bus)) {
        FUZZ_CHECK(fuzz_terminated(bus, sizeof bus));
        FUZZ_CHECK(gd_nvidia_bus_id_valid(bus, strlen(bus)));
        for (const char *c = bus; *c; c++)
            FUZZ_CHECK(*c < 'A' || *c > 'Z');
        char again[GD_PCI_BUS_ID_MAX];
        FUZZ_CHECK(gd_pci_bus_id_normalize(bus, strlen(bus), again) && strcmp(bus, again) == 0);
    } else {
        FUZZ_CHECK(bus[0] == '\0');
    }
    return 0;
}
