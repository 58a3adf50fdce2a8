/* The GPUs the NVIDIA kernel module drives: one /proc/driver/nvidia/gpus/<PCI address>/ per GPU
 * it probed (nv_procfs_add_gpu in NVIDIA's nv-procfs.c), whatever /dev nodes exist; and each
 * model's compute capability from the knowledge base. */
#include "probe/probe.h"

#include "core/alloc.h"
#include "core/str.h"
#include "kb/gpus.h"
#include "kb/kb.h"
#include "parse/nvidia_gpu.h"

#include <stdio.h>
#include <string.h>

#define PROC_GPUS "/proc/driver/nvidia/gpus"

/* "major.minor", digits only: how NVIDIA writes a compute capability ("8.6", "12.0"). */
static bool is_compute_capability(const char *s)
{
    if (!s)
        return false;
    size_t a = strspn(s, "0123456789");
    if (a == 0 || a > 3 || s[a] != '.')
        return false;
    size_t b = strspn(s + a + 1, "0123456789");
    return b > 0 && b <= 3 && s[a + 1 + b] == '\0';
}

/* The compute capability of `model` (NULL when the file named none) from the `gpus` table. The
 * source names the row, so that the evidence says which NVIDIA page the value came from. */
static void probe_compute_capability(struct gd_probe_ctx *ctx, struct gd_entity *gpu,
                                     const char *model)
{
    const char *fact = "compute_capability";
    struct gd_source table = gd_src(GD_SOURCE_KB, "gpus");
    if (!model) {
        gd_fact_absent(gpu, fact, "the GPU model is not known", table);
        return;
    }
    const struct gd_kb_table *t = gd_kb_table(ctx->kb, "gpus");
    if (!t) {
        gd_fact_unknown(gpu, fact, "the knowledge base has no gpus table", table);
        return;
    }
    enum gd_gpu_match how;
    const struct gd_kb_row *row = gd_kb_gpu_find(t, model, &how);
    if (!row) {
        const char *why = how == GD_GPU_MATCH_AMBIGUOUS
                              ? "the model matches rows of different compute capability"
                              : "the model is not in the gpus table";
        gd_fact_absent(gpu, fact, why, table);
        return;
    }
    const char *name = gd_kb_str(row, "name"), *source = gd_kb_row_source(row);
    char ref[GD_GPU_MODEL_MAX + 96];
    snprintf(ref, sizeof ref, "gpus: %s (%s)", name ? name : "?", source ? source : "?");
    const char *cc = gd_kb_str(row, "cc");
    /* A --kb table could hold anything. */
    if (!is_compute_capability(cc)) {
        gd_fact_unknown(gpu, fact, "the gpus row has no valid \"cc\"", gd_src(GD_SOURCE_KB, ref));
        return;
    }
    gd_fact_str(gpu, fact, cc, gd_src(GD_SOURCE_KB, ref));
}

static void probe_gpu(struct gd_probe_ctx *ctx, const char *bus)
{
    char id[64], dir[96], path[128];
    snprintf(id, sizeof id, "gpu:%s", bus);
    snprintf(dir, sizeof dir, "%s/%s", PROC_GPUS, bus);
    snprintf(path, sizeof path, "%s/information", dir);
    struct gd_entity *gpu = gd_report_add_entity(ctx->report, "gpu", id);
    struct gd_source src = gd_src(GD_SOURCE_FILE, path);

    char *data = NULL;
    size_t len = 0;
    struct gd_nvidia_gpu_info info = { NULL, NULL, NULL, -1, -1 };
    enum gd_status st = gd_root_read_file(ctx->root, path, GD_PROBE_TEXT_MAX, &data, &len);
    bool read = st == GD_OK;
    if (read) {
        /* GD_EFORMAT (no known line) leaves `info` empty: every field is then absent. */
        st = gd_parse_nvidia_gpu_info(data, len, &info);
        gd_free(data);
        if (st == GD_ENOMEM) {
            gd_report_out_of_memory(ctx->report);
            return;
        }
    } else {
        gd_probe_fact_failed(gpu, "model", st, src);
    }

    if (info.bus_location)
        gd_fact_str(gpu, "bus_id", info.bus_location, src);
    else
        gd_fact_str(gpu, "bus_id", bus, gd_src(GD_SOURCE_PATH, dir));
    if (read) {
        if (info.model)
            gd_fact_str(gpu, "model", info.model, src);
        else
            gd_fact_absent(gpu, "model", "no \"Model:\" line", src);
        if (info.uuid)
            gd_fact_str(gpu, "uuid", info.uuid, src);
        else
            gd_fact_absent(gpu, "uuid", "no \"GPU UUID:\" line", src);
        if (info.minor >= 0)
            gd_fact_int(gpu, "minor", info.minor, src);
        else
            gd_fact_absent(gpu, "minor", "no \"Device Minor:\" number", src);
        if (info.excluded >= 0)
            gd_fact_bool(gpu, "excluded", info.excluded == 1, src);
        else
            gd_fact_absent(gpu, "excluded", "no \"GPU Excluded:\" Yes or No", src);
    }
    probe_compute_capability(ctx, gpu, info.model);
    gd_nvidia_gpu_info_free(&info);
}

void gd_probe_gpus(struct gd_probe_ctx *ctx)
{
    struct gd_entity *gpus = gd_report_add_entity(ctx->report, "gpus", "gpus");
    struct gd_source src = gd_src(GD_SOURCE_PATH, PROC_GPUS);
    struct gd_names names;
    enum gd_status st = gd_root_list(ctx->root, PROC_GPUS, &names);
    if (st != GD_OK) {
        gd_probe_fact_failed(gpus, "count", st, src);
        return;
    }
    long long count = 0;
    for (size_t i = 0; i < names.count; i++) {
        /* The module names each directory by the GPU's PCI address; anything else there is not
         * one of its GPUs. */
        if (!gd_nvidia_bus_id_valid(names.names[i], strlen(names.names[i])))
            continue;
        count++;
        probe_gpu(ctx, names.names[i]);
    }
    gd_fact_int(gpus, "count", count, src);
    gd_names_free(&names);
}
