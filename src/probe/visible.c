/* Which physical GPU each CUDA device number is. Programs and frameworks (torch's cuda:0,
 * TensorFlow's /GPU:0, JAX's devices()[0]) number the devices CUDA lets them see, in CUDA's
 * order: CUDA_VISIBLE_DEVICES picks and orders them, its ordinals counting GPUs in the order
 * CUDA_DEVICE_ORDER gives — FASTEST_FIRST by default, PCI_BUS_ID as nvidia-smi counts them. The
 * driver's answer is taken when the driver was asked (live machine); otherwise the numbering is
 * predicted from the variables (src/parse/visible_devices.c) over the GPUs NVML or /proc list,
 * which is only possible where the order does not depend on the driver's notion of "fastest". */
#include "probe/live.h"

#include "core/str.h"
#include "parse/visible_devices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct phys {
    const char *bus, *uuid, *model;
    long long rank; /* NVML index, or 0 for /proc (sorted by bus) */
};

static const char *known(const struct gd_entity *e, const char *name)
{
    return gd_fact_known_value(gd_entity_fact(e, name));
}

static int by_rank(const void *a, const void *b)
{
    const struct phys *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return strcmp(x->bus, y->bus);
}

/* The machine's GPUs in nvidia-smi's order: NVML's when it answered, else those of /proc in PCI
 * order. `*from` names the source. */
static size_t physical_gpus(const struct gd_report *r, struct phys *out, const char **from)
{
    size_t n = 0;
    bool nvml = false;
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        if (strcmp(gd_entity_kind(e), "gpu") == 0 && known(e, "nvml.index"))
            nvml = true;
    }
    for (size_t i = 0; i < gd_report_entity_count(r) && n < GD_LIVE_DEVICES_MAX; i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        const char *bus = known(e, "bus_id");
        if (strcmp(gd_entity_kind(e), "gpu") != 0 || !bus || (nvml && !known(e, "nvml.index")))
            continue;
        out[n].bus = bus;
        out[n].uuid = known(e, "nvml.uuid") ? known(e, "nvml.uuid") : known(e, "uuid");
        out[n].model = known(e, "nvml.name") ? known(e, "nvml.name") : known(e, "model");
        out[n].rank = nvml ? strtoll(known(e, "nvml.index"), NULL, 10) : 0;
        n++;
    }
    qsort(out, n, sizeof *out, by_rank);
    *from = nvml ? "NVML (nvmlDeviceGetHandleByIndex_v2)" : "/proc/driver/nvidia/gpus";
    return n;
}

static bool mixed_models(const struct phys *p, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (p[i].model && p[0].model && strcmp(p[i].model, p[0].model) != 0)
            return true;
    return false;
}

static void device_fact(struct gd_entity *e, size_t i, const char *suffix, const char *value,
                        long long number, struct gd_source src)
{
    char name[64];
    snprintf(name, sizeof name, "device[%zu]%s", i, suffix);
    if (value)
        gd_fact_str(e, name, value, src);
    else
        gd_fact_int(e, name, number, src);
}

/* The driver's own numbering: cuda_device:<i> with its PCI address and nvidia-smi index. */
static void confirmed_devices(struct gd_report *r, struct gd_entity *e, long long count,
                              const struct gd_vd_list *list, bool ordinals)
{
    for (long long i = 0; i < count && i < GD_LIVE_DEVICES_MAX; i++) {
        char id[48];
        snprintf(id, sizeof id, "cuda_device:%lld", i);
        const struct gd_entity *dev = gd_report_entity(r, id);
        const char *bus = dev ? known(dev, "bus_id") : NULL;
        const char *smi = dev ? known(dev, "nvidia_smi_index") : NULL;
        struct gd_source src = gd_src(GD_SOURCE_CALL, "cuDeviceGetPCIBusId");
        char name[32];
        snprintf(name, sizeof name, "device[%lld]", i);
        if (bus)
            gd_fact_str(e, name, bus, src);
        else
            gd_fact_unknown(e, name, "the driver did not give its PCI address", src);
        if (smi)
            device_fact(e, (size_t)i, ".nvidia_smi", NULL, strtoll(smi, NULL, 10),
                        gd_src(GD_SOURCE_DERIVED, "the GPU's nvidia_smi_index"));
        /* The number the user wrote for it, where one was written. */
        if (list && ordinals && (size_t)i < list->n)
            device_fact(e, (size_t)i, ".entry", NULL, (long long)list->entries[i].ordinal,
                        gd_src(GD_SOURCE_ENV, "CUDA_VISIBLE_DEVICES"));
        else if (!list)
            device_fact(e, (size_t)i, ".entry", NULL, i,
                        gd_src(GD_SOURCE_DERIVED, "CUDA_VISIBLE_DEVICES is not set"));
    }
}

void gd_probe_visible(struct gd_probe_ctx *ctx)
{
    struct gd_report *r = ctx->report;
    const char *value = gd_env_get(ctx->env, "CUDA_VISIBLE_DEVICES");
    const char *order = gd_env_get(ctx->env, "CUDA_DEVICE_ORDER");
    const struct gd_fact *init = gd_report_fact(r, "cuda_driver", "init.code");
    const struct gd_fact *count_fact = gd_report_fact(r, "cuda_driver", "device_count");
    bool confirmed = gd_fact_known_value(init) && strcmp(gd_fact_value(init), "0") == 0 &&
                     gd_fact_known_value(count_fact);
    if (!value && !order && !confirmed)
        return;
    struct gd_entity *e = gd_report_add_entity(r, "visible_devices", "visible_devices");
    bool pci = order && strcmp(order, "PCI_BUS_ID") == 0;
    if (order)
        gd_fact_str(e, "order", pci ? "PCI_BUS_ID" : "FASTEST_FIRST",
                    gd_src(GD_SOURCE_ENV, "CUDA_DEVICE_ORDER"));
    else
        gd_fact_str(e, "order", "FASTEST_FIRST",
                    gd_src(GD_SOURCE_DERIVED, "CUDA_DEVICE_ORDER is not set: CUDA's default"));

    struct phys phys[GD_LIVE_DEVICES_MAX];
    const char *from;
    size_t nphys = physical_gpus(r, phys, &from);
    struct gd_source phys_src = gd_src(GD_SOURCE_DERIVED, from);
    if (nphys)
        gd_fact_int(e, "physical", (long long)nphys, phys_src);
    else
        gd_fact_absent(e, "physical", "neither NVML nor /proc/driver/nvidia/gpus lists a GPU",
                       phys_src);
    if (nphys >= 2)
        gd_fact_bool(e, "mixed_models", mixed_models(phys, nphys),
                     gd_src(GD_SOURCE_DERIVED, "the models of the GPUs"));

    struct gd_vd_list list;
    size_t map[GD_VD_ENTRIES_MAX];
    size_t visible = 0;
    bool resolved = false;
    struct gd_source env_src = gd_src(GD_SOURCE_ENV, "CUDA_VISIBLE_DEVICES");
    if (value) {
        gd_visible_devices_parse(value, strlen(value), &list);
        gd_fact_str(e, "kind",
                    list.mode == GD_VD_ORDINALS    ? "ordinals"
                    : list.mode == GD_VD_GPU_UUIDS ? "GPU UUIDs"
                                                   : "MIG UUIDs",
                    env_src);
        gd_fact_int(e, "entries", (long long)list.total, env_src);
        const char *uuids[GD_LIVE_DEVICES_MAX];
        for (size_t i = 0; i < nphys; i++)
            uuids[i] = phys[i].uuid;
        /* Ordinals can be checked against the number of GPUs in any order; UUIDs need the
         * GPUs' UUIDs; MIG devices are not among the GPUs. */
        resolved = nphys > 0 && list.mode != GD_VD_MIG_UUIDS;
        visible = resolved ? gd_visible_devices_resolve(&list, uuids, nphys, map) : list.n;
        struct gd_source vis_src =
            resolved ? gd_src(GD_SOURCE_DERIVED, "CUDA_VISIBLE_DEVICES over the machine's GPUs")
                     : env_src;
        gd_fact_int(e, "visible_entries", (long long)visible, vis_src);
        if (list.stop != GD_VD_STOP_NONE) {
            char entry[128];
            gd_span_copy(list.stop_text, entry, sizeof entry);
            gd_fact_str(e, "stop.entry", entry, vis_src);
            gd_fact_strf(e, "stop", vis_src, "entry %zu (\"%s\") %s", list.stop_at + 1, entry,
                         gd_vd_stop_text(list.stop));
        }
    }

    if (confirmed) {
        long long count = strtoll(gd_fact_value(count_fact), NULL, 10);
        gd_fact_int(e, "count", count, gd_src(GD_SOURCE_CALL, "cuDeviceGetCount"));
        gd_fact_bool(e, "confirmed", true, gd_src(GD_SOURCE_CALL, "cuDeviceGetCount"));
        confirmed_devices(r, e, count, value ? &list : NULL, value && list.mode == GD_VD_ORDINALS);
        return;
    }
    gd_fact_bool(e, "confirmed", false,
                 gd_src(GD_SOURCE_DERIVED, "the driver was not asked, or did not answer"));
    struct gd_source predicted = gd_src(GD_SOURCE_DERIVED, "CUDA_VISIBLE_DEVICES and "
                                                           "CUDA_DEVICE_ORDER over the machine's "
                                                           "GPUs");
    size_t count;
    if (value && (resolved || visible == 0 || list.mode == GD_VD_MIG_UUIDS)) {
        count = visible;
        if (list.mode == GD_VD_MIG_UUIDS && visible) {
            gd_fact_unknown(e, "count", "MIG devices are only known to the driver", predicted);
            return;
        }
    } else if (!value && nphys) {
        count = nphys;
    } else {
        gd_fact_unknown(e, "count", "the machine's GPUs are not known", predicted);
        return;
    }
    gd_fact_int(e, "count", (long long)count, predicted);
    /* Which GPU each number is, where the order does not depend on the driver. */
    for (size_t i = 0; i < count && i < GD_LIVE_DEVICES_MAX; i++) {
        bool by_uuid = value && list.mode == GD_VD_GPU_UUIDS;
        size_t gpu = value ? map[i] : i;
        if (by_uuid || pci) {
            device_fact(e, i, "", phys[gpu].bus, 0, predicted);
            device_fact(e, i, ".nvidia_smi", NULL, (long long)gpu, phys_src);
        } else {
            char name[32];
            snprintf(name, sizeof name, "device[%zu]", i);
            gd_fact_unknown(e, name,
                            "in FASTEST_FIRST order the driver decides which GPU is which "
                            "number",
                            predicted);
        }
        if (value && list.mode == GD_VD_ORDINALS)
            device_fact(e, i, ".entry", NULL, (long long)list.entries[i].ordinal, env_src);
    }
}
