/* The results of `gpudoctor test` (src/probe/smoke.c): each step of each part is "ok", "failed",
 * "wrong result", "crashed", "hung" or "exited", or absent when not run. Crashes and hangs are
 * vendor.call-crashed and vendor.call-hung (vendor_calls.c); failures and wrong results are
 * judged here, one finding per part and step. */
#include "rules/rules.h"

#include "core/str.h"
#include "vendor/errors.h"

#include <stdio.h>
#include <string.h>

static const char *const device_steps[] = { "context", "memory", "alloc",
                                            "copy",    "kernel", "largest_block" };
static const char *const cublas_steps[] = { "load", "context", "create", "sgemm" };
static const char *const cudnn_steps[] = { "load", "context", "create", "conv" };
static const char *const nccl_steps[] = { "load", "context", "init", "all_reduce" };

static const char *state(const struct gd_entity *e, const char *step)
{
    return gd_fact_known_value(gd_entity_fact(e, step));
}

static const struct gd_fact *detail(const struct gd_entity *e, const char *step, const char *what)
{
    char name[64];
    snprintf(name, sizeof name, "%s.%s", step, what);
    return gd_entity_fact(e, name);
}

/* "GPU 0 (NVIDIA H100 80GB HBM3)" */
static void device_name(const struct gd_report *r, long long d, char *buf, size_t size)
{
    char id[48];
    snprintf(id, sizeof id, "cuda_device:%lld", d);
    const char *name = gd_report_value(r, id, "name");
    snprintf(buf, size, "GPU %lld%s%s%s", d, name ? " (" : "", name ? name : "", name ? ")" : "");
}

static void add_error_why(struct gd_finding *f, const struct gd_entity *e, const char *step,
                          const char *what_fails)
{
    long long code;
    const char *meaning = NULL;
    const char *call = gd_fact_known_value(detail(e, step, "detail"));
    if (gd_fact_int_of(detail(e, step, "code"), &code) && call && gd_str_starts_with(call, "cu") &&
        !gd_str_starts_with(call, "cublas") && !gd_str_starts_with(call, "cudnn"))
        meaning = gd_vendor_error_meaning(GD_VENDOR_DRIVER, (long)code);
    else if (gd_fact_int_of(detail(e, step, "code"), &code) && call &&
             gd_str_starts_with(call, "cublas"))
        meaning = gd_vendor_error_meaning(GD_VENDOR_CUBLAS, (long)code);
    gd_finding_set_why(f, "%s%s%s", meaning ? meaning : "", meaning ? " " : "", what_fails);
}

static void evidence(struct gd_finding *f, const struct gd_entity *e, const char *step)
{
    gd_finding_add_evidence(f, gd_entity_fact(e, step));
    gd_finding_add_evidence(f, detail(e, step, "detail"));
    gd_finding_add_evidence(f, detail(e, step, "error"));
    gd_finding_add_evidence(f, detail(e, step, "log"));
}

static void wrong(struct gd_report *r, const struct gd_entity *e, const char *step,
                  const char *what, const char *who)
{
    struct gd_finding *f = gd_finding_add(r, "test.wrong-result", GD_SEV_ERROR,
                                          "%s: the %s gave a wrong result", who, what);
    gd_finding_set_why(f, "The GPU or the library computed something other than the CPU did, "
                          "without an error: programs get silently wrong numbers (bad memory, "
                          "an overclocked or failing GPU, a broken library build).");
    evidence(f, e, step);
    gd_finding_add_evidence(f, gd_entity_fact(e, "path"));
    if (gd_rules_windows(r))
        gd_finding_add_fix(f, "Run it again: a result that changes between runs points at the "
                              "hardware (check `nvidia-smi -q -d ECC,TEMPERATURE` and the System "
                              "log in Event Viewer, source nvlddmkm).");
    else
        gd_finding_add_fix(f, "Run it again: a result that changes between runs points at the "
                              "hardware (check `nvidia-smi -q -d ECC,TEMPERATURE` and `dmesg` for "
                              "Xid errors; run `dcgmi diag -r 3`).");
    gd_finding_add_fix(f, "If it is the same every time and one library copy only, reinstall "
                          "that copy.");
}

static void device_results(struct gd_report *r, const struct gd_entity *e)
{
    long long d = 0;
    gd_fact_int_of(gd_entity_fact(e, "device"), &d);
    char who[300];
    device_name(r, d, who, sizeof who);
    const char *s;
    if ((s = state(e, "context")) && strcmp(s, "failed") == 0) {
        const char *err = gd_fact_known_value(detail(e, "context", "error"));
        struct gd_finding *f = gd_finding_add(r, "test.context-failed", GD_SEV_ERROR,
                                              "%s: no CUDA context can be created%s%s", who,
                                              err ? ": " : "", err ? err : "");
        add_error_why(f, e, "context",
                      "Every framework creates this context first; nothing "
                      "can run on this GPU.");
        evidence(f, e, "context");
        gd_finding_add_fix(f, "Run `gpudoctor check`: its driver and GPU findings say why; "
                              "`nvidia-smi -q -d COMPUTE` shows whether the GPU is exclusive "
                              "or prohibited.");
    }
    static const char *const memory_steps[] = { "memory", "alloc", "largest_block" };
    for (size_t i = 0; i < 3; i++) {
        if (!(s = state(e, memory_steps[i])) || strcmp(s, "failed") != 0)
            continue;
        struct gd_finding *f =
            gd_finding_add(r, "test.memory-failed", GD_SEV_ERROR, "%s: device memory cannot be %s",
                           who, i == 0 ? "queried" : "allocated and freed");
        add_error_why(f, e, memory_steps[i],
                      "Frameworks allocate at start; they fail with out-of-memory errors.");
        evidence(f, e, memory_steps[i]);
        gd_finding_add_fix(f, "See what holds the GPU's memory (`nvidia-smi`); run `gpudoctor "
                              "check` for gpu.memory-in-use.");
        break;
    }
    if ((s = state(e, "copy")) && strcmp(s, "failed") == 0) {
        struct gd_finding *f = gd_finding_add(r, "test.copy-failed", GD_SEV_ERROR,
                                              "%s: copying between host and device fails", who);
        add_error_why(f, e, "copy", "Every program copies its data to the GPU first.");
        evidence(f, e, "copy");
        gd_finding_add_fix(f, "Read %s for the driver's errors (IOMMU and PCIe faults show there).",
                           gd_fix_driver_log(r));
    } else if (s && strcmp(s, "wrong result") == 0) {
        wrong(r, e, "copy", "host-device-host copy", who);
    }
    if ((s = state(e, "kernel")) && strcmp(s, "failed") == 0) {
        const char *err = gd_fact_known_value(detail(e, "kernel", "error"));
        struct gd_finding *f = gd_finding_add(
            r, "test.kernel-failed", GD_SEV_ERROR, "%s: a PTX kernel cannot be %s%s%s", who,
            err && strstr(err, "PTX") ? "JIT-compiled" : "compiled and run", err ? ": " : "",
            err ? err : "");
        add_error_why(f, e, "kernel",
                      "gpudoctor's kernel is plain PTX of CUDA 6.0's ISA that every driver can "
                      "compile; frameworks whose builds hold only PTX for this GPU (new GPUs, "
                      "nightly builds) fail the same way.");
        evidence(f, e, "kernel");
        gd_finding_add_fix(f, "A driver too old for the PTX, or one missing its JIT compiler "
                              "(libnvidia-ptxjitcompiler.so.1): install a current driver with "
                              "all its libraries.");
    } else if (s && strcmp(s, "wrong result") == 0) {
        wrong(r, e, "kernel", "PTX kernel", who);
    }
    long long largest, free_bytes;
    const struct gd_fact *lb = gd_entity_fact(e, "largest_block.bytes");
    if (gd_fact_int_of(lb, &largest) &&
        gd_fact_int_of(gd_entity_fact(e, "memory.free"), &free_bytes)) {
        struct gd_finding *f = gd_finding_add(
            r, "test.largest-block", GD_SEV_INFO,
            "%s: the largest block that can be allocated is %.1f GiB (%.1f GiB free)", who,
            (double)largest / 1073741824.0, (double)free_bytes / 1073741824.0);
        gd_finding_add_evidence(f, lb);
        gd_finding_add_evidence(f, gd_entity_fact(e, "memory.free"));
        gd_finding_add_evidence(f, gd_entity_fact(e, "memory.total"));
    }
}

/* finding-id: test.cublas-failed finding-id: test.cudnn-failed finding-id: test.nccl-failed */
static void library_results(struct gd_report *r, const struct gd_entity *e, const char *kind)
{
    bool nccl = strcmp(kind, "test_nccl") == 0;
    const char *family = nccl ? "nccl" : gd_fact_known_value(gd_entity_fact(e, "family"));
    if (!family)
        return;
    bool cublas = strcmp(family, "cublas") == 0;
    const char *const *steps = nccl ? nccl_steps : cublas ? cublas_steps : cudnn_steps;
    const char *id = nccl     ? "test.nccl-failed"
                     : cublas ? "test.cublas-failed"
                              : "test.cudnn-failed";
    const char *name = nccl ? "NCCL" : cublas ? "cuBLAS" : "cuDNN";
    const char *path = gd_fact_known_value(gd_entity_fact(e, "path"));
    const char *used_by = gd_fact_known_value(gd_entity_fact(e, "used_by"));
    long long d = -1;
    char who[300] = "all GPUs";
    if (!nccl && gd_fact_int_of(gd_entity_fact(e, "device"), &d))
        device_name(r, d, who, sizeof who);
    else if (!nccl)
        snprintf(who, sizeof who, "no GPU");
    for (size_t i = 0; i < 4; i++) {
        const char *s = state(e, steps[i]);
        if (!s || strcmp(steps[i], "context") == 0)
            continue; /* a context failure is the device part's finding */
        if (strcmp(s, "wrong result") == 0) {
            char what[300];
            snprintf(what, sizeof what, "%s %s of %s", name,
                     nccl     ? "all-reduce"
                     : cublas ? "SGEMM"
                              : "convolution",
                     path ? path : "?");
            wrong(r, e, steps[i], what, who);
            return;
        }
        if (strcmp(s, "failed") != 0)
            continue;
        const char *err = gd_fact_known_value(detail(e, steps[i], "detail"));
        struct gd_finding *f;
        if (i == 0)
            f = gd_finding_add(r, id, GD_SEV_ERROR, "%s %s cannot be loaded", name,
                               path ? path : "?");
        else
            f = gd_finding_add(r, id, GD_SEV_ERROR, "%s: %s %s fails at %s", who, name,
                               path ? path : "?", err ? err : steps[i]);
        char what[700];
        snprintf(what, sizeof what, "Programs that load this copy (%s) fail the same way.",
                 used_by ? used_by : "?");
        add_error_why(f, e, steps[i], what);
        evidence(f, e, steps[i]);
        gd_finding_add_evidence(f, gd_entity_fact(e, "path"));
        gd_finding_add_evidence(f, gd_entity_fact(e, "used_by"));
        if (i == 0)
            gd_finding_add_fix(f,
                               "See what it lacks: `gpudoctor which --tree %s`; reinstall "
                               "the package that brought it (a wheel, a conda package, the "
                               "toolkit).",
                               path ? path : "<library>");
        else
            gd_finding_add_fix(f, "Check that this copy's version fits the driver and the GPU "
                                  "(`gpudoctor check -v` lists every copy with its version); "
                                  "reinstall it or use a build for this CUDA version.");
        return;
    }
}

/* Every step of every part passed. */
static void all_passed(struct gd_report *r)
{
    long long devices;
    if (!gd_fact_int_of(gd_rf(r, "test", "devices"), &devices) || devices <= 0)
        return;
    size_t libs = 0, nccl = 0;
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        const char *kind = gd_entity_kind(e);
        if (!gd_str_starts_with(kind, "test_"))
            continue;
        if (gd_entity_fact(e, "call.end"))
            return;
        for (size_t k = 0; k < gd_entity_fact_count(e); k++) {
            const struct gd_fact *f = gd_entity_fact_at(e, k);
            const char *name = gd_fact_name(f);
            bool step = false;
            for (size_t s = 0; s < 6; s++)
                step |= strcmp(name, device_steps[s]) == 0 ||
                        (s < 4 &&
                         (strcmp(name, cublas_steps[s]) == 0 || strcmp(name, cudnn_steps[s]) == 0 ||
                          strcmp(name, nccl_steps[s]) == 0));
            if (step && (gd_fact_state(f) != GD_FACT_KNOWN || strcmp(gd_fact_value(f), "ok") != 0))
                return;
        }
        libs += strcmp(kind, "test_library") == 0;
        nccl += strcmp(kind, "test_nccl") == 0;
    }
    struct gd_finding *f = gd_finding_add(
        r, "test.ok", GD_SEV_OK, "%lld GPU%s passed: context, memory, copy, PTX kernel%s%s",
        devices, devices == 1 ? "" : "s",
        libs ? ", cuBLAS and cuDNN on every copy programs load" : "",
        nccl ? ", NCCL all-reduce" : "");
    gd_finding_add_evidence(f, gd_rf(r, "test", "devices"));
    gd_finding_add_evidence(f, gd_rf(r, "test", "cublas_copies"));
    gd_finding_add_evidence(f, gd_rf(r, "test", "cudnn_copies"));
    gd_finding_add_evidence(f, gd_rf(r, "test", "nccl_copies"));
}

static void no_device(struct gd_report *r)
{
    const struct gd_fact *devices = gd_rf(r, "test", "devices");
    long long n;
    if (!devices || (gd_fact_int_of(devices, &n) && n > 0) ||
        gd_fact_state(devices) == GD_FACT_UNKNOWN)
        return;
    struct gd_finding *f = gd_finding_add(r, "test.no-device", GD_SEV_ERROR, "No GPU to test: %s",
                                          gd_fact_known_value(devices) ? "CUDA shows no device"
                                                                       : gd_fact_reason(devices));
    gd_finding_set_why(f, "Nothing can run on a GPU here; gpudoctor only loaded each copy of "
                          "cuBLAS and cuDNN programs would use.");
    gd_finding_add_evidence(f, devices);
    gd_finding_add_evidence(f, gd_rf(r, "cuda_driver", "library"));
    gd_finding_add_evidence(f, gd_rf(r, "cuda_driver", "init"));
    gd_finding_add_evidence(f, gd_rf(r, "cuda_driver", "device_count"));
    gd_finding_add_fix(f, "Run `gpudoctor check`: its findings say why no GPU can be used and "
                          "what to change.");
}

void gd_rule_smoke(struct gd_report *r, const struct gd_kb *kb)
{
    (void)kb;
    no_device(r);
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        const char *kind = gd_entity_kind(e);
        if (strcmp(kind, "test_device") == 0)
            device_results(r, e);
        else if (strcmp(kind, "test_library") == 0 || strcmp(kind, "test_nccl") == 0)
            library_results(r, e, kind);
    }
    all_passed(r);
}
