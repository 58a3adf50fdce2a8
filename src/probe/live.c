/* gd_probe_live: the driver API, NVML and the CUDA runtimes asked at once, each in its own child
 * with a deadline, then joined with the GPUs of /proc: the physical GPU of each CUDA device is
 * the gpu:<PCI address> entity of the same address. */
#include "probe/live.h"

#include "core/alloc.h"
#include "core/str.h"
#include "probe/childfns.h"
#include "sysroot/sysroot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cuInit without persistence mode can take seconds per GPU on a large machine. */
#define LIVE_TIMEOUT_MS 30000
/* Runtimes asked: one per libcudart SONAME the loader resolves and per framework's copy. */
#define RUNTIMES_MAX 16

struct runtime {
    const char *path; /* borrowed from the report */
    char used_by[512];
};

static void add_runtime(struct runtime *rt, size_t *n, const char *path, const char *who)
{
    for (size_t i = 0; i < *n; i++) {
        if (strcmp(rt[i].path, path) == 0) {
            size_t len = strlen(rt[i].used_by);
            snprintf(rt[i].used_by + len, sizeof rt[i].used_by - len, "; %s", who);
            return;
        }
    }
    if (*n == RUNTIMES_MAX)
        return;
    rt[*n].path = path;
    snprintf(rt[*n].used_by, sizeof rt[*n].used_by, "%s", who);
    (*n)++;
}

/* The copies of libcudart programs would load: the loader's choice for each libcudart SONAME
 * (the inventory's soname entities) and each framework's own (framework_lib entities). */
static size_t find_runtimes(const struct gd_report *r, struct runtime *rt)
{
    size_t n = 0;
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        const char *kind = gd_entity_kind(e);
        bool loader = strcmp(kind, "soname") == 0, framework = strcmp(kind, "framework_lib") == 0;
        if (!loader && !framework)
            continue;
        const char *soname = gd_fact_known_value(gd_entity_fact(e, "soname"));
        const char *path = gd_fact_known_value(gd_entity_fact(e, "path"));
        if (!soname || !path || !gd_str_starts_with(soname, "libcudart.so."))
            continue;
        char who[300];
        if (loader) {
            snprintf(who, sizeof who, "the loader's choice for %s", soname);
        } else {
            const char *fw = gd_fact_known_value(gd_entity_fact(e, "framework"));
            snprintf(who, sizeof who, "%s", fw ? fw : gd_entity_id(e));
        }
        add_runtime(rt, &n, path, who);
    }
    return n;
}

/* nvidia-smi's index of the GPU at `bus`: NVML's index when NVML answered, else its place among
 * the GPUs of /proc in PCI order (the order nvidia-smi uses). -1 when unknown. */
static long long smi_index(const struct gd_report *r, const char *bus)
{
    char id[64];
    snprintf(id, sizeof id, "gpu:%s", bus);
    const struct gd_entity *gpu = gd_report_entity(r, id);
    const struct gd_fact *nv = gpu ? gd_entity_fact(gpu, "nvml.index") : NULL;
    if (gd_fact_known_value(nv))
        return strtoll(gd_fact_value(nv), NULL, 10);
    if (!gpu)
        return -1;
    long long before = 0;
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        const char *other = gd_fact_known_value(gd_entity_fact(e, "bus_id"));
        if (strcmp(gd_entity_kind(e), "gpu") == 0 && other && strcmp(other, bus) < 0)
            before++;
    }
    return before;
}

/* Each CUDA device's physical GPU, found by PCI address. */
static void join(struct gd_probe_ctx *ctx)
{
    struct gd_report *r = ctx->report;
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        struct gd_entity *dev = (struct gd_entity *)gd_report_entity_at(r, i);
        if (strcmp(gd_entity_kind(dev), "cuda_device") != 0)
            continue;
        const char *bus = gd_fact_known_value(gd_entity_fact(dev, "bus_id"));
        if (!bus)
            continue;
        char id[64];
        snprintf(id, sizeof id, "gpu:%s", bus);
        const struct gd_entity *gpu = gd_report_entity(r, id);
        struct gd_source src = gd_src(GD_SOURCE_DERIVED, "bus_id");
        if (!gpu) {
            gd_fact_absent(dev, "gpu", "no GPU of /proc or NVML has this PCI address", src);
            continue;
        }
        gd_fact_str(dev, "gpu", id, src);
        long long smi = smi_index(r, bus);
        if (smi >= 0)
            gd_fact_int(dev, "nvidia_smi_index", smi,
                        gd_src(GD_SOURCE_DERIVED, "the GPU's NVML index, else its place in PCI "
                                                  "order"));
        /* A MIG device: CUDA names it by its own UUID, which nvidia-smi writes "MIG-...". */
        const struct gd_fact *mig = gd_entity_fact(gpu, "mig.enabled");
        const char *uuid = gd_fact_known_value(gd_entity_fact(dev, "uuid"));
        const char *gpu_uuid = gd_fact_known_value(gd_entity_fact(gpu, "nvml.uuid"));
        if (!gpu_uuid)
            gpu_uuid = gd_fact_known_value(gd_entity_fact(gpu, "uuid"));
        if (gd_fact_is_true(mig) && uuid && gpu_uuid && strcmp(uuid, gpu_uuid) != 0 &&
            gd_str_starts_with(uuid, "GPU-")) {
            gd_fact_strf(dev, "uuid", gd_src(GD_SOURCE_CALL, "cuDeviceGetUuid_v2"), "MIG-%s",
                         uuid + 4);
            gd_fact_bool(dev, "mig", true, gd_src(GD_SOURCE_DERIVED, "the GPU's mig.enabled"));
        }
    }
}

const char *gd_live_driver_lib(struct gd_probe_ctx *ctx, enum gd_live_driver which)
{
    bool cuda = which == GD_LIVE_CUDA;
    if (!ctx->windows)
        return cuda ? GD_LIVE_CUDA_SONAME : GD_LIVE_NVML_SONAME;
    const char *dll = cuda ? GD_LIVE_CUDA_DLL : GD_LIVE_NVML_DLL;
    /* A root path ("/Windows/System32/nvcuda.dll"). The live probe runs for the live root only,
     * whose host path of it is itself: to LoadLibrary a rooted path names the current drive,
     * which is what the live root is on Windows (sysroot.h). */
    const char *found = gd_fact_known_value(
        gd_report_fact(ctx->report, "driver", cuda ? "nvcuda.path" : "nvml.path"));
    if (!found)
        return dll;
    char *host = gd_root_host_path(ctx->root, found);
    const char *lib = host ? gd_report_printf(ctx->report, "%s", host) : NULL;
    gd_free(host);
    if (!lib) {
        gd_report_out_of_memory(ctx->report);
        return dll;
    }
    return lib;
}

static void skipped(struct gd_probe_ctx *ctx, const char *why)
{
    gd_fact_unknown(gd_report_add_entity(ctx->report, "cuda_driver", "cuda_driver"), "init", why,
                    gd_src(GD_SOURCE_CALL, "cuInit"));
    gd_fact_unknown(gd_report_add_entity(ctx->report, "nvml", "nvml"), "init", why,
                    gd_src(GD_SOURCE_CALL, "nvmlInit_v2"));
}

void gd_probe_live(struct gd_probe_ctx *ctx)
{
    if (!gd_root_is_live(ctx->root)) {
        skipped(ctx, "not the live machine: nothing under --root is loaded");
        gd_probe_visible(ctx);
        return;
    }
    if (ctx->no_devices) {
        skipped(ctx, "not asked (--no-devices)");
        gd_probe_visible(ctx);
        return;
    }
    struct gd_live_env env = { gd_env_get(ctx->env, "CUDA_VISIBLE_DEVICES"),
                               gd_env_get(ctx->env, "CUDA_DEVICE_ORDER"), NULL };
    struct gd_live_env cuda = env, nvml = env;
    cuda.lib = gd_live_driver_lib(ctx, GD_LIVE_CUDA);
    nvml.lib = gd_live_driver_lib(ctx, GD_LIVE_NVML);
    struct runtime *rt = gd_calloc(RUNTIMES_MAX, sizeof *rt);
    struct gd_cudart_arg *args = gd_calloc(RUNTIMES_MAX, sizeof *args);
    struct gd_child_job *jobs = gd_calloc(2 + RUNTIMES_MAX, sizeof *jobs);
    struct gd_vc *vcs = gd_calloc(2 + RUNTIMES_MAX, sizeof *vcs);
    if (!rt || !args || !jobs || !vcs) {
        gd_report_out_of_memory(ctx->report);
        goto out;
    }
    size_t nrt = find_runtimes(ctx->report, rt);
    jobs[0] = (struct gd_child_job){ .def = &gd_live_cuda_def, .arg = &cuda };
    jobs[1] = (struct gd_child_job){ .def = &gd_live_nvml_def, .arg = &nvml };
    for (size_t i = 0; i < nrt; i++) {
        args[i] = (struct gd_cudart_arg){ env, rt[i].path };
        jobs[2 + i] = (struct gd_child_job){ .def = &gd_live_cudart_def, .arg = &args[i] };
    }
    unsigned timeout = ctx->timeout_ms ? ctx->timeout_ms : LIVE_TIMEOUT_MS;
    enum gd_status st = gd_vc_run(jobs, 2 + nrt, timeout, vcs, NULL, NULL);
    if (st == GD_ENOMEM) {
        gd_report_out_of_memory(ctx->report);
    } else if (st != GD_OK) {
        skipped(ctx, "gpudoctor could not start a child process to ask the driver");
    } else {
        gd_live_cuda_facts(ctx, &vcs[0], cuda.lib);
        gd_live_nvml_facts(ctx, &vcs[1], nvml.lib);
        for (size_t i = 0; i < nrt; i++)
            gd_live_cudart_facts(ctx, &vcs[2 + i], rt[i].path, rt[i].used_by);
        join(ctx);
    }
    for (size_t i = 0; i < 2 + nrt; i++)
        gd_vc_free(&vcs[i]);
    gd_probe_visible(ctx);
out:
    gd_free(vcs);
    gd_free(jobs);
    gd_free(args);
    gd_free(rt);
}
