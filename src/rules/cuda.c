/* What the CUDA driver API and the CUDA runtimes answered on the live machine (src/probe/live*.c):
 * cuInit failing, no device visible while the driver works, and cudaGetDeviceCount's errors —
 * above all cudaErrorInsufficientDriver, the first error of every CUDA program on a machine
 * whose runtime is newer than its driver or that has no driver at all. */
#include "rules/rules.h"

#include "core/str.h"
#include "vendor/errors.h"

#include <stdio.h>
#include <string.h>

/* How many GPUs the machine has, whatever CUDA shows: NVML's count, else the kernel module's. */
static long long physical_gpus(const struct gd_report *r, const struct gd_fact **evidence)
{
    long long n;
    *evidence = gd_rf(r, "nvml", "device_count");
    if (gd_fact_int_of(*evidence, &n))
        return n;
    *evidence = gd_rf(r, "gpus", "count");
    if (gd_fact_int_of(*evidence, &n))
        return n;
    *evidence = NULL;
    return -1;
}

static void fix_for_code(struct gd_finding *f, const struct gd_report *r, const struct gd_kb *kb,
                         long long code)
{
    /* The steps below are Linux's (device nodes, dmesg, modprobe, systemd): Windows has none. */
    if (gd_rules_windows(r)) {
        if (code == 100)
            gd_finding_add_fix(f, "Check CUDA_VISIBLE_DEVICES, and that `nvidia-smi` (in "
                                  "C:\\Windows\\System32) lists the GPU.");
        else
            gd_finding_add_fix(f, "Run `nvidia-smi` in a Command Prompt: it must list the GPU. "
                                  "The driver's own errors are in Event Viewer (Windows Logs > "
                                  "System, source nvlddmkm).");
        gd_fix_install_driver(f, r, kb);
        return;
    }
    switch (code) {
    case 999:
        gd_finding_add_fix(f, "Check that /dev/nvidia-uvm exists (`ls -l /dev/nvidia*`); if not: "
                              "`sudo modprobe nvidia-uvm && sudo nvidia-modprobe -u -c 0`.");
        gd_finding_add_fix(f, "Read the driver's messages: `sudo dmesg | grep -i -e NVRM -e "
                              "Xid`.");
        break;
    case 803:
        gd_finding_add_fix(f, "The driver was upgraded without a reboot, or its packages are "
                              "mixed: reboot, or reinstall one driver version.");
        break;
    case 804:
        gd_finding_add_fix(f, "Remove the CUDA forward-compatibility directory (cuda-compat, "
                              "/usr/local/cuda/compat) from LD_LIBRARY_PATH and ld.so.conf, or "
                              "upgrade the driver itself.");
        break;
    case 802:
        gd_finding_add_fix(f, "Start the NVIDIA Fabric Manager of the same version as the "
                              "driver: `sudo systemctl enable --now nvidia-fabricmanager`.");
        break;
    case 34:
        gd_finding_add_fix(f, "Remove the stub from the loader's path: a directory like "
                              "/usr/local/cuda/lib64/stubs in LD_LIBRARY_PATH or ld.so.conf, or a "
                              "libcuda.so.1 link made to the stub; then install the driver.");
        gd_fix_install_driver(f, r, kb);
        break;
    case 46:
        gd_finding_add_fix(f, "Another process holds an exclusive GPU, or compute is "
                              "prohibited: `nvidia-smi -q -d COMPUTE`; as root `nvidia-smi -c "
                              "DEFAULT` returns a GPU to the shared mode.");
        break;
    case 100:
        gd_finding_add_fix(f, "In a container, start it with GPUs (`docker run --gpus all`, a "
                              "Kubernetes nvidia.com/gpu limit); on a host, `nvidia-smi -L` must "
                              "list the GPUs.");
        break;
    case 304:
        gd_finding_add_fix(f, "Check that this user can open /dev/nvidia* read-write (`ls -l "
                              "/dev/nvidia*`; join their group) and the driver's messages in "
                              "`sudo dmesg`.");
        break;
    default:
        gd_finding_add_fix(f, "Read the driver's messages: `sudo dmesg | grep -i -e NVRM -e "
                              "Xid`; reinstall the driver if they name a failure.");
        break;
    }
}

static void init_failed(struct gd_report *r, const struct gd_kb *kb)
{
    const struct gd_fact *init = gd_rf(r, "cuda_driver", "init");
    long long code;
    const struct gd_fact *count;
    if (!gd_fact_int_of(gd_rf(r, "cuda_driver", "init.code"), &code) || code == 0)
        return;
    /* No device while the machine has GPUs: the visibility rule below says why. */
    if (code == 100 && physical_gpus(r, &count) > 0)
        return;
    const char *name = gd_fact_known_value(init);
    struct gd_finding *f = gd_finding_add(r, "cuda.init-failed", GD_SEV_ERROR,
                                          "cuInit fails with %s (%lld): no CUDA program can run",
                                          name ? name : "an error", code);
    const char *meaning = gd_vendor_error_meaning(GD_VENDOR_DRIVER, (long)code);
    gd_finding_set_why(f,
                       "%s%sEvery CUDA program, framework and nvidia-smi's CUDA tools stop "
                       "at their first CUDA call with this error.",
                       meaning ? meaning : "", meaning ? " " : "");
    gd_finding_add_evidence(f, init);
    gd_finding_add_evidence(f, gd_rf(r, "cuda_driver", "library"));
    gd_finding_add_evidence(f, gd_rf(r, "cuda_driver", "version"));
    gd_finding_add_evidence(f, gd_rf(r, "driver", "kernel_module.version"));
    fix_for_code(f, r, kb, code);
}

/* The GPUs are there and the driver works, yet CUDA shows none. */
static void no_device_visible(struct gd_report *r)
{
    long long code, count = -1;
    if (!gd_fact_int_of(gd_rf(r, "cuda_driver", "init.code"), &code))
        return;
    bool none = code == 100 ||
                (code == 0 && gd_fact_int_of(gd_rf(r, "cuda_driver", "device_count"), &count) &&
                 count == 0);
    const struct gd_fact *physical_fact;
    long long physical = physical_gpus(r, &physical_fact);
    if (!none || physical <= 0)
        return;
    /* CUDA_VISIBLE_DEVICES naming no GPU has its own finding, env.cuda-visible-devices-hides-all.
     */
    long long entries;
    if (gd_rv(r, "env", "CUDA_VISIBLE_DEVICES") &&
        gd_fact_int_of(gd_rf(r, "visible_devices", "visible_entries"), &entries) && entries == 0)
        return;
    struct gd_finding *f =
        gd_finding_add(r, "cuda.no-device-visible", GD_SEV_ERROR,
                       "The driver works and the machine has %lld GPU%s, but CUDA shows none",
                       physical, physical == 1 ? "" : "s");
    gd_finding_set_why(f, "Programs fail with \"no CUDA-capable device is detected\" "
                          "(cudaErrorNoDevice), torch.cuda.is_available() is False and "
                          "TensorFlow lists no GPU.");
    gd_finding_add_evidence(f, gd_rf(r, "cuda_driver", "init"));
    gd_finding_add_evidence(f, gd_rf(r, "cuda_driver", "device_count"));
    gd_finding_add_evidence(f, physical_fact);
    gd_finding_add_evidence(f, gd_rf(r, "env", "CUDA_VISIBLE_DEVICES"));
    bool mig = false, prohibited = false;
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        if (strcmp(gd_entity_kind(e), "gpu") != 0)
            continue;
        const struct gd_fact *m = gd_entity_fact(e, "mig.enabled");
        const struct gd_fact *cm = gd_entity_fact(e, "compute_mode");
        if (gd_fact_is_true(m)) {
            mig = true;
            gd_finding_add_evidence(f, m);
        }
        if (gd_fact_known_value(cm) && strcmp(gd_fact_value(cm), "Prohibited") == 0) {
            prohibited = true;
            gd_finding_add_evidence(f, cm);
        }
    }
    const char *root = gd_rules_windows(r) ? "" : "sudo ";
    if (mig)
        gd_finding_add_fix(f,
                           "MIG mode is on: CUDA shows MIG devices only, and needs GPU and "
                           "compute instances created (`%snvidia-smi mig -cgi <profile> -C`, "
                           "list with `nvidia-smi -L`), or MIG turned off (`%snvidia-smi -i <gpu> "
                           "-mig 0`, then a GPU reset).",
                           root, root);
    if (prohibited)
        gd_finding_add_fix(f, "A GPU's compute mode is Prohibited: `sudo nvidia-smi -c DEFAULT`.");
    if (gd_rv(r, "env", "CUDA_VISIBLE_DEVICES"))
        gd_finding_add_fix(f, "Check CUDA_VISIBLE_DEVICES against `nvidia-smi -L`, or `unset "
                              "CUDA_VISIBLE_DEVICES`.");
    if (gd_rules_windows(r))
        gd_finding_add_fix(f,
                           "Compare `nvidia-smi -L` with what a CUDA program sees, and read %s "
                           "for GPUs the driver refused.",
                           gd_fix_driver_log(r));
    else
        gd_finding_add_fix(f, "Compare `nvidia-smi -L` with what a CUDA program sees, and read "
                              "`sudo dmesg | grep -i NVRM` for GPUs the driver refused.");
}

static void runtime_failed(struct gd_report *r, const struct gd_kb *kb, const struct gd_entity *e)
{
    long long code;
    if (!gd_fact_int_of(gd_entity_fact(e, "device_count.code"), &code) || code == 0)
        return;
    const struct gd_fact *status = gd_entity_fact(e, "device_count.status");
    const struct gd_fact *driver = gd_entity_fact(e, "driver_version");
    const struct gd_fact *version = gd_entity_fact(e, "version");
    const char *path = gd_fact_known_value(gd_entity_fact(e, "path"));
    const char *name = gd_fact_known_value(status);
    const char *v = gd_fact_known_value(version);
    const char *base = path ? gd_path_base(path) : "libcudart";
    struct gd_finding *f;
    if (code == 35 && !gd_fact_known_value(driver)) {
        f = gd_finding_add(r, "cuda.runtime-no-driver", GD_SEV_ERROR,
                           "%s (CUDA %s) answers cudaGetDeviceCount with %s: no NVIDIA driver "
                           "is loaded",
                           base, v ? v : "?", name ? name : "cudaErrorInsufficientDriver");
        gd_finding_set_why(f, "This is what every program using this runtime meets: \"CUDA "
                              "driver version is insufficient for CUDA runtime version\"; "
                              "cudaDriverGetVersion answers 0 because libcuda.so.1 could not "
                              "be loaded. torch.cuda.is_available() is False, TensorFlow and "
                              "JAX fall back to the CPU.");
        gd_fix_install_driver(f, r, kb);
    } else if (code == 35) {
        f = gd_finding_add(r, "cuda.runtime-driver-too-old", GD_SEV_ERROR,
                           "%s is CUDA %s, but the driver supports CUDA %s at most", base,
                           v ? v : "?", gd_fact_value(driver));
        gd_finding_set_why(f,
                           "cudaGetDeviceCount answers %s: \"CUDA driver version is "
                           "insufficient for CUDA runtime version\". Programs built for this "
                           "runtime cannot use the GPU.",
                           name ? name : "cudaErrorInsufficientDriver");
        gd_finding_add_fix(f,
                           "Upgrade the driver to one that supports CUDA %s (`nvidia-smi` "
                           "shows the CUDA version a driver supports).",
                           v ? v : "of this runtime");
        gd_finding_add_fix(f,
                           "Or use a build of the framework for CUDA %s or older (e.g. a "
                           "PyTorch wheel for that CUDA version).",
                           gd_fact_value(driver));
        gd_finding_add_fix(f, "On data-center GPUs, NVIDIA's cuda-compat package lets a newer "
                              "runtime run on an older driver.");
    } else if (code == 34) {
        f = gd_finding_add(r, "cuda.runtime-stub-driver", GD_SEV_ERROR,
                           gd_rules_windows(r) ? "%s loads a stub of the CUDA driver as "
                                                 "nvcuda.dll (%s)"
                                               : "%s loads the CUDA toolkit's stub as "
                                                 "libcuda.so.1 (%s)",
                           base, name ? name : "cudaErrorStubLibrary");
        gd_finding_set_why(f, "The stub exists only to link programs; loaded at run time it "
                              "answers every call with an error, so no program can use the GPU "
                              "even where the driver is installed.");
        gd_finding_add_evidence(f, gd_rf(r, "cuda_driver", "library"));
        if (gd_rules_windows(r))
            gd_finding_add_fix(f, "Remove the copies of nvcuda.dll outside System32 (in the "
                                  "program's directory or on PATH): the driver installs the real "
                                  "one in System32.");
        else
            gd_finding_add_fix(f, "Remove the stubs directory (.../lib64/stubs) from "
                                  "LD_LIBRARY_PATH and /etc/ld.so.conf.d, and any libcuda.so.1 "
                                  "link made to the stub; run `sudo ldconfig`.");
    } else {
        const char *meaning = gd_vendor_error_meaning(GD_VENDOR_RUNTIME, (long)code);
        f = gd_finding_add(r, "cuda.runtime-failed", GD_SEV_ERROR,
                           "%s answers cudaGetDeviceCount with %s (%lld)", base,
                           name ? name : "an error", code);
        gd_finding_set_why(f, "%s%sPrograms using this runtime stop at their first CUDA call.",
                           meaning ? meaning : "", meaning ? " " : "");
        gd_finding_add_evidence(f, gd_rf(r, "cuda_driver", "init"));
        fix_for_code(f, r, kb, code);
    }
    gd_finding_add_evidence(f, gd_entity_fact(e, "path"));
    gd_finding_add_evidence(f, gd_entity_fact(e, "used_by"));
    gd_finding_add_evidence(f, status);
    gd_finding_add_evidence(f, version);
    gd_finding_add_evidence(f, driver);
}

static void ok(struct gd_report *r)
{
    long long code, count;
    if (!gd_fact_int_of(gd_rf(r, "cuda_driver", "init.code"), &code) || code != 0 ||
        !gd_fact_int_of(gd_rf(r, "cuda_driver", "device_count"), &count) || count <= 0)
        return;
    const char *v = gd_rv(r, "cuda_driver", "version");
    struct gd_finding *f = gd_finding_add(r, "cuda.ok", GD_SEV_OK,
                                          "CUDA sees %lld device%s; the driver supports CUDA %s",
                                          count, count == 1 ? "" : "s", v ? v : "?");
    gd_finding_add_evidence(f, gd_rf(r, "cuda_driver", "init"));
    gd_finding_add_evidence(f, gd_rf(r, "cuda_driver", "device_count"));
    gd_finding_add_evidence(f, gd_rf(r, "cuda_driver", "version"));
}

void gd_rule_cuda(struct gd_report *r, const struct gd_kb *kb)
{
    init_failed(r, kb);
    no_device_visible(r);
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        if (strcmp(gd_entity_kind(e), "cuda_runtime") == 0)
            runtime_failed(r, kb, e);
    }
    ok(r);
}
