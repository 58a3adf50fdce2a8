/* Each GPU as NVML describes it (src/probe/live_nvml.c): memory other processes hold, a compute
 * mode that shuts programs out, a PCIe link narrower than it can be, clocks slowed by heat or
 * power faults, memory errors and repairs waiting for a reset. */
#include "rules/rules.h"

#include "core/buf.h"
#include "vendor/abi.h"

#include <stdio.h>
#include <string.h>

/* Memory others hold at this share of a GPU's total is worth a warning: TensorFlow grows to
 * nearly all of it and JAX preallocates 75% at start (XLA_PYTHON_CLIENT_MEM_FRACTION's default),
 * so a tenth already taken breaks them; below it is the driver's own reserve. */
#define MEMORY_IN_USE_PERCENT 10

static void label(const struct gd_entity *gpu, char *buf, size_t size)
{
    const char *name = gd_fact_known_value(gd_entity_fact(gpu, "nvml.name"));
    if (!name)
        name = gd_fact_known_value(gd_entity_fact(gpu, "model"));
    const char *bus = gd_fact_known_value(gd_entity_fact(gpu, "bus_id"));
    const char *index = gd_fact_known_value(gd_entity_fact(gpu, "nvml.index"));
    snprintf(buf, size, "GPU %s (%s, %s)", index ? index : "?", name ? name : "unknown model",
             bus ? bus : "unknown address");
}

static double gib(long long bytes)
{
    return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

static void memory_in_use(struct gd_report *r, const struct gd_entity *gpu, const char *name)
{
    long long used, total, procs = 0;
    const struct gd_fact *u = gd_entity_fact(gpu, "memory.used");
    const struct gd_fact *t = gd_entity_fact(gpu, "memory.total");
    if (!gd_fact_int_of(u, &used) || !gd_fact_int_of(t, &total) || total <= 0 ||
        used * 100 < total * MEMORY_IN_USE_PERCENT)
        return;
    gd_fact_int_of(gd_entity_fact(gpu, "processes"), &procs);
    struct gd_finding *f = gd_finding_add(
        r, "gpu.memory-in-use", GD_SEV_WARNING, "%s: %.1f GiB of %.1f GiB already in use%s", name,
        gib(used), gib(total), procs ? "" : " by processes not visible here");
    gd_finding_set_why(f, "A new job gets only what is left: TensorFlow and JAX reserve most of "
                          "the memory at start and fail with CUDA_ERROR_OUT_OF_MEMORY or "
                          "RESOURCE_EXHAUSTED, PyTorch raises OutOfMemoryError sooner, and cuDNN "
                          "reports CUDNN_STATUS_INTERNAL_ERROR or \"Failed to get convolution "
                          "algorithm\" when it cannot get its workspace.");
    gd_finding_add_evidence(f, u);
    gd_finding_add_evidence(f, t);
    gd_finding_add_evidence(f, gd_entity_fact(gpu, "processes"));
    struct gd_buf pids;
    gd_buf_init(&pids, 4096);
    const char *id = gd_entity_id(gpu);
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *p = gd_report_entity_at(r, i);
        const char *of = gd_fact_known_value(gd_entity_fact(p, "gpu"));
        if (strcmp(gd_entity_kind(p), "gpu_process") != 0 || !of || strcmp(of, id) != 0)
            continue;
        gd_finding_add_evidence(f, gd_entity_fact(p, "pid"));
        gd_finding_add_evidence(f, gd_entity_fact(p, "name"));
        gd_finding_add_evidence(f, gd_entity_fact(p, "memory.used"));
        const char *pid = gd_fact_known_value(gd_entity_fact(p, "pid"));
        gd_buf_printf(&pids, "%s%s", pids.len ? " " : "", pid ? pid : "?");
    }
    if (gd_buf_status(&pids) == GD_ENOMEM)
        gd_report_out_of_memory(r);
    if (pids.len)
        gd_finding_add_fix(f,
                           "See what holds it (`nvidia-smi`) and stop it if it is stale: "
                           "`kill %s`.",
                           gd_buf_str(&pids));
    else
        gd_finding_add_fix(f, "The processes holding it are not visible from here (another "
                              "container or PID namespace): run `nvidia-smi` on the host.");
    gd_finding_add_fix(f, "Or run on another GPU: `export CUDA_VISIBLE_DEVICES=<a free GPU's "
                          "UUID from nvidia-smi -L>`.");
    gd_finding_add_fix(f, "To share the GPU, make the framework allocate as it goes: "
                          "`TF_FORCE_GPU_ALLOW_GROWTH=true` (TensorFlow), "
                          "`XLA_PYTHON_CLIENT_PREALLOCATE=false` (JAX).");
    gd_buf_free(&pids);
}

static void compute_mode(struct gd_report *r, const struct gd_entity *gpu, const char *name)
{
    const struct gd_fact *m = gd_entity_fact(gpu, "compute_mode");
    const char *mode = gd_fact_known_value(m);
    if (!mode)
        return;
    if (strcmp(mode, "Prohibited") == 0) {
        struct gd_finding *f = gd_finding_add(r, "gpu.compute-prohibited", GD_SEV_ERROR,
                                              "%s: compute mode is Prohibited", name);
        gd_finding_set_why(f, "No process may create a CUDA context on it: programs fail with "
                              "cudaErrorDevicesUnavailable (\"all CUDA-capable devices are busy "
                              "or unavailable\").");
        gd_finding_add_evidence(f, m);
        gd_finding_add_fix(f, "As root: `nvidia-smi -i %s -c DEFAULT`.",
                           gd_fact_known_value(gd_entity_fact(gpu, "nvml.index"))
                               ? gd_fact_value(gd_entity_fact(gpu, "nvml.index"))
                               : "<gpu>");
        return;
    }
    if (strcmp(mode, "Exclusive_Process") != 0 && strcmp(mode, "Exclusive_Thread") != 0)
        return;
    long long procs = 0;
    bool busy = gd_fact_int_of(gd_entity_fact(gpu, "processes"), &procs) && procs > 0;
    struct gd_finding *f = gd_finding_add(
        r, "gpu.exclusive-process", busy ? GD_SEV_ERROR : GD_SEV_INFO, "%s: compute mode is %s%s",
        name, mode, busy ? ", and a process already holds it" : "");
    gd_finding_set_why(f, "Only one process at a time may have a CUDA context on it. %s",
                       busy ? "Any other process fails at its first CUDA call with "
                              "cudaErrorDevicesUnavailable (\"all CUDA-capable devices are busy "
                              "or unavailable\")."
                            : "A second process fails with cudaErrorDevicesUnavailable: "
                              "DataLoader workers that touch CUDA, a second job, a notebook "
                              "left open.");
    gd_finding_add_evidence(f, m);
    gd_finding_add_evidence(f, gd_entity_fact(gpu, "processes"));
    if (busy)
        gd_finding_add_fix(f, "Wait for the process holding it (`nvidia-smi`), or use another "
                              "GPU.");
    gd_finding_add_fix(f,
                       "Where sharing is wanted, as root: `nvidia-smi -i %s -c DEFAULT` (a "
                       "cluster's scheduler may set this mode on purpose).",
                       gd_fact_known_value(gd_entity_fact(gpu, "nvml.index"))
                           ? gd_fact_value(gd_entity_fact(gpu, "nvml.index"))
                           : "<gpu>");
}

/* The link width is fixed by the slot and the card; the generation drops at idle to save power
 * and is not judged. */
static void pcie(struct gd_report *r, const struct gd_entity *gpu, const char *name)
{
    long long width, max;
    const struct gd_fact *w = gd_entity_fact(gpu, "pcie.width");
    const struct gd_fact *m = gd_entity_fact(gpu, "pcie.width_max");
    if (!gd_fact_int_of(w, &width) || !gd_fact_int_of(m, &max) || width <= 0 || width >= max)
        return;
    struct gd_finding *f =
        gd_finding_add(r, "gpu.pcie-degraded", GD_SEV_WARNING,
                       "%s: the PCIe link runs at x%lld of x%lld lanes", name, width, max);
    gd_finding_set_why(f, "Host-device copies (data loading, NCCL without NVLink) run at a "
                          "fraction of their speed: a card in a narrower slot, a riser, or a "
                          "lane that failed training.");
    gd_finding_add_evidence(f, w);
    gd_finding_add_evidence(f, m);
    gd_finding_add_evidence(f, gd_entity_fact(gpu, "pcie.gen"));
    gd_finding_add_evidence(f, gd_entity_fact(gpu, "pcie.gen_max"));
    if (gd_rules_windows(r))
        gd_finding_add_fix(f, "Check the slot (its electrical width in the mainboard's manual), "
                              "reseat the card and any riser; `nvidia-smi -q` (GPU Link Info) "
                              "shows the link the driver sees.");
    else
        gd_finding_add_fix(f,
                           "Check the slot (its electrical width in the mainboard's manual), "
                           "reseat the card and any riser; `sudo lspci -vv -s %s | grep LnkSta` "
                           "shows the link the kernel sees.",
                           gd_fact_known_value(gd_entity_fact(gpu, "bus_id"))
                               ? gd_fact_value(gd_entity_fact(gpu, "bus_id"))
                               : "<bus>");
}

static void throttled(struct gd_report *r, const struct gd_entity *gpu, const char *name)
{
    long long bits;
    const struct gd_fact *t = gd_entity_fact(gpu, "throttle_reasons");
    const unsigned long long bad = GD_NVML_REASON_HW_SLOWDOWN | GD_NVML_REASON_SW_THERMAL |
                                   GD_NVML_REASON_HW_THERMAL | GD_NVML_REASON_HW_POWER_BRAKE;
    if (!gd_fact_int_of(t, &bits) || !((unsigned long long)bits & bad))
        return;
    const char *active = gd_fact_known_value(gd_entity_fact(gpu, "throttle_reasons.active"));
    struct gd_finding *f = gd_finding_add(r, "gpu.throttled", GD_SEV_WARNING,
                                          "%s is slowed down: %s", name, active ? active : "?");
    gd_finding_set_why(f, "The GPU lowers its clocks because it is too hot or its power "
                          "delivery signals a fault: jobs run slower than they should, and a "
                          "multi-GPU job runs at the pace of the slowest GPU.");
    gd_finding_add_evidence(f, gd_entity_fact(gpu, "throttle_reasons.active"));
    gd_finding_add_evidence(f, gd_entity_fact(gpu, "temperature_c"));
    gd_finding_add_evidence(f, gd_entity_fact(gpu, "clocks.sm_mhz"));
    gd_finding_add_evidence(f, gd_entity_fact(gpu, "clocks.sm_max_mhz"));
    gd_finding_add_evidence(f, gd_entity_fact(gpu, "power.draw_mw"));
    gd_finding_add_evidence(f, gd_entity_fact(gpu, "power.limit_mw"));
    if ((unsigned long long)bits & (GD_NVML_REASON_SW_THERMAL | GD_NVML_REASON_HW_THERMAL))
        gd_finding_add_fix(f, "Check the cooling: fans, airflow, dust, the room's temperature "
                              "(`nvidia-smi -q -d TEMPERATURE` shows the slowdown threshold).");
    if ((unsigned long long)bits & (GD_NVML_REASON_HW_SLOWDOWN | GD_NVML_REASON_HW_POWER_BRAKE))
        gd_finding_add_fix(f, "HW Slowdown and HW Power Brake come from the board or the power "
                              "supply: check the power cables and the PSU; if it persists when "
                              "cool, the card needs service.");
}

static void memory_errors(struct gd_report *r, const struct gd_entity *gpu, const char *name)
{
    long long vol = 0, agg = 0;
    const struct gd_fact *fv = gd_entity_fact(gpu, "ecc.uncorrected.volatile");
    const struct gd_fact *fa = gd_entity_fact(gpu, "ecc.uncorrected.aggregate");
    bool have_vol = gd_fact_int_of(fv, &vol) && vol > 0;
    bool have_agg = gd_fact_int_of(fa, &agg) && agg > 0;
    if (have_vol || have_agg) {
        struct gd_finding *f =
            gd_finding_add(r, "gpu.ecc-uncorrected", have_vol ? GD_SEV_ERROR : GD_SEV_WARNING,
                           "%s has %lld uncorrected ECC error%s %s", name, have_vol ? vol : agg,
                           (have_vol ? vol : agg) == 1 ? "" : "s",
                           have_vol ? "since the driver loaded" : "in its lifetime");
        gd_finding_set_why(f, "%s",
                           have_vol ? "An uncorrected error corrupts the data of the process "
                                      "that met it, which the driver ends (Xid 48, "
                                      "CUDA_ERROR_ECC_UNCORRECTABLE); the GPU needs a reset "
                                      "before it is trusted again."
                                    : "Earlier uncorrected errors point at failing memory; "
                                      "more are likely.");
        gd_finding_add_evidence(f, fv);
        gd_finding_add_evidence(f, fa);
        gd_finding_add_evidence(f, gd_entity_fact(gpu, "retired_pages.double_bit"));
        gd_finding_add_evidence(f, gd_entity_fact(gpu, "remapped_rows.uncorrectable"));
        gd_finding_add_fix(f,
                           "Reset the GPU with no process on it (%s) or reboot, so the driver "
                           "retires or remaps the bad memory.",
                           gd_fix_gpu_reset(r));
        gd_finding_add_fix(f, "If errors recur, run NVIDIA's field diagnostics (`dcgmi diag -r "
                              "3`) and have the card replaced.");
    }
    const struct gd_fact *rp = gd_entity_fact(gpu, "retired_pages.pending");
    const struct gd_fact *rr = gd_entity_fact(gpu, "remapped_rows.pending");
    if (gd_fact_is_true(rp) || gd_fact_is_true(rr)) {
        struct gd_finding *f =
            gd_finding_add(r, "gpu.memory-repair-pending", GD_SEV_WARNING,
                           "%s has memory %s waiting for a GPU reset", name,
                           gd_fact_is_true(rr) ? "rows to remap" : "pages to retire");
        gd_finding_set_why(f, "The driver found failing memory and repairs it only when the GPU "
                              "is next reset; until then the bad memory stays in use.");
        gd_finding_add_evidence(f, rp);
        gd_finding_add_evidence(f, rr);
        gd_finding_add_fix(f, "Reset the GPU with no process on it (%s) or reboot.",
                           gd_fix_gpu_reset(r));
    }
    const struct gd_fact *fail = gd_entity_fact(gpu, "remapped_rows.failure");
    if (gd_fact_is_true(fail)) {
        struct gd_finding *f = gd_finding_add(r, "gpu.row-remap-failed", GD_SEV_ERROR,
                                              "%s could not remap a failing memory row", name);
        gd_finding_set_why(f, "The GPU has run out of spare rows for a bank: the failing memory "
                              "stays in use and errors will recur.");
        gd_finding_add_evidence(f, fail);
        gd_finding_add_evidence(f, gd_entity_fact(gpu, "remapped_rows.uncorrectable"));
        gd_finding_add_fix(f, "Take the GPU out of service, run NVIDIA's field diagnostics "
                              "(`dcgmi diag -r 3`) and have it serviced or replaced.");
    }
}

void gd_rule_gpu_health(struct gd_report *r, const struct gd_kb *kb)
{
    (void)kb;
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *gpu = gd_report_entity_at(r, i);
        if (strcmp(gd_entity_kind(gpu), "gpu") != 0 || !gd_entity_fact(gpu, "nvml.index"))
            continue;
        char name[256];
        label(gpu, name, sizeof name);
        memory_in_use(r, gpu, name);
        compute_mode(r, gpu, name);
        pcie(r, gpu, name);
        throttled(r, gpu, name);
        memory_errors(r, gpu, name);
    }
}
