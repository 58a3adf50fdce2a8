/* Containers: started without GPUs, or with the NVIDIA Container Toolkit told to expose none or
 * not to mount the CUDA libraries. */
#include "rules/rules.h"

#include "core/str.h"

#include <string.h>

/* NVIDIA_DRIVER_CAPABILITIES is a comma-separated list; "all" grants every capability. Spaces
 * around items are ignored here, so that a list written with them is not reported as lacking
 * an item it names. */
static bool has_capability(const char *caps, const char *cap)
{
    struct gd_span rest = gd_span_of(caps), item;
    while (gd_span_next_field(&rest, ',', &item)) {
        item = gd_span_trim(item);
        if (gd_span_eq(item, cap) || gd_span_eq(item, "all"))
            return true;
    }
    return false;
}

void gd_rule_container(struct gd_report *r, const struct gd_kb *kb)
{
    (void)kb;
    struct gd_machine m;
    gd_machine_of(r, &m);
    if (!m.container)
        return;
    const char *runtime = gd_rv(r, "container", "runtime");
    const struct gd_fact *count = gd_rf(r, "devices", "gpus.count");
    long long gpus = count && count->state == GD_FACT_KNOWN ? count->int_value : -1;
    const char *visible = gd_rv(r, "container", "nvidia.visible_devices");
    const char *caps = gd_rv(r, "container", "nvidia.driver_capabilities");

    struct gd_finding *info =
        gd_finding_add(r, "container.detected", GD_SEV_INFO, "Running in a container (%s)",
                       runtime ? runtime : "unknown runtime");
    gd_finding_add_evidence(info, gd_rf(r, "container", "runtime"));

    /* The host's module shows through /proc; no GPU node means no GPU was passed in. */
    if (m.module_loaded && gpus == 0) {
        struct gd_finding *f = gd_finding_add(r, "container.no-gpu-devices", GD_SEV_ERROR,
                                              "This container was started without GPU access");
        gd_finding_set_why(f, "The host's NVIDIA driver is loaded, but no /dev/nvidia<N> exists "
                              "here: torch.cuda.is_available() is False, TensorFlow logs \"failed "
                              "call to cuInit: CUDA_ERROR_NO_DEVICE\", nvidia-smi says \"No "
                              "devices were found\" or is missing.");
        gd_finding_add_evidence(f, gd_rf(r, "driver", "kernel_module.version"));
        gd_finding_add_evidence(f, count);
        gd_finding_add_evidence(f, gd_rf(r, "container", "runtime"));
        gd_finding_add_evidence(f, gd_rf(r, "container", "nvidia.visible_devices"));
        gd_finding_add_fix(f, "Docker: install the NVIDIA Container Toolkit on the host and run "
                              "`docker run --gpus all ...` (Compose: a `deploy.resources."
                              "reservations.devices` entry with `capabilities: [gpu]`).");
        gd_finding_add_fix(f, "Podman: `podman run --device nvidia.com/gpu=all ...` after "
                              "generating the CDI spec with `sudo nvidia-ctk cdi generate "
                              "--output=/etc/cdi/nvidia.yaml`.");
        gd_finding_add_fix(f, "Kubernetes: request the GPU in the pod spec, `resources: limits: "
                              "nvidia.com/gpu: 1`, with the NVIDIA device plugin installed.");
    }
    if (visible && (!*visible || strcmp(visible, "void") == 0 || strcmp(visible, "none") == 0)) {
        struct gd_finding *f = gd_finding_add(r, "container.visible-devices-none", GD_SEV_WARNING,
                                              "NVIDIA_VISIBLE_DEVICES=\"%s\" gives this container "
                                              "no GPU",
                                              visible);
        gd_finding_set_why(f,
                           "The NVIDIA Container Toolkit reads this variable when the container "
                           "starts: \"none\" exposes no GPU (only the driver libraries), \"void\" "
                           "or an empty value exposes neither.");
        gd_finding_add_evidence(f, gd_rf(r, "container", "nvidia.visible_devices"));
        gd_finding_add_fix(f, "Start the container with NVIDIA_VISIBLE_DEVICES=all (or a list of "
                              "GPU indices or UUIDs), e.g. `docker run --gpus all` sets it.");
    }
    if (caps && !has_capability(caps, "compute")) {
        struct gd_finding *f =
            gd_finding_add(r, "container.no-compute-capability", GD_SEV_ERROR,
                           "NVIDIA_DRIVER_CAPABILITIES=\"%s\" lacks compute", caps);
        gd_finding_set_why(f, "The NVIDIA Container Toolkit mounts the CUDA driver library "
                              "(libcuda.so.1) only for the compute capability: CUDA programs "
                              "fail with \"Could not load dynamic library 'libcuda.so.1'\" or "
                              "cudaErrorInsufficientDriver.");
        gd_finding_add_evidence(f, gd_rf(r, "container", "nvidia.driver_capabilities"));
        gd_finding_add_evidence(f, gd_rf(r, "driver", "libcuda.path"));
        gd_finding_add_fix(f, "Start the container with NVIDIA_DRIVER_CAPABILITIES=compute,utility "
                              "(or all), e.g. `docker run --gpus all -e "
                              "NVIDIA_DRIVER_CAPABILITIES=compute,utility ...`.");
    }
}
