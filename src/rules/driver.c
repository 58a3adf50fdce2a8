/* The NVIDIA driver itself: installed? kernel module and user-space libraries of one version?
 * nouveau in the way? (WSL has no Linux driver: wsl.c judges it.) */
#include "rules/rules.h"

#include "core/version.h"

#include <string.h>

#define WHY_NO_DRIVER                                                                              \
    "Every CUDA program fails: the CUDA runtime reports \"CUDA driver version is insufficient "    \
    "for CUDA runtime version\" (cudaErrorInsufficientDriver) or \"no CUDA-capable device is "     \
    "detected\", TensorFlow logs \"Could not load dynamic library 'libcuda.so.1'\", PyTorch's "    \
    "torch.cuda.is_available() returns False and nvidia-smi says \"NVIDIA-SMI has failed because " \
    "it couldn't communicate with the NVIDIA driver\"."

static void evidence_driver(struct gd_finding *f, const struct gd_report *r)
{
    gd_finding_add_evidence(f, gd_rf(r, "driver", "kernel_module.version"));
    gd_finding_add_evidence(f, gd_rf(r, "driver", "module.nvidia.loaded"));
    gd_finding_add_evidence(f, gd_rf(r, "driver", "libcuda.path"));
    gd_finding_add_evidence(f, gd_rf(r, "driver", "libcuda.version"));
    gd_finding_add_evidence(f, gd_rf(r, "devices", "nvidiactl.present"));
}

static void not_installed(struct gd_report *r, const struct gd_kb *kb, const struct gd_machine *m)
{
    struct gd_finding *f = gd_finding_add(r, "driver.not-installed", GD_SEV_ERROR,
                                          "The NVIDIA driver is not installed");
    gd_finding_set_why(f, WHY_NO_DRIVER);
    evidence_driver(f, r);
    if (m->container) {
        gd_finding_add_evidence(f, gd_rf(r, "container", "runtime"));
        gd_finding_add_fix(f, "This is a container: the driver belongs on the host, never in the "
                              "image. Install it on the host and check there with `nvidia-smi`.");
        gd_finding_add_fix(f, "Then start the container with GPU access: `docker run --gpus all "
                              "...` (NVIDIA Container Toolkit), or request nvidia.com/gpu in "
                              "Kubernetes.");
        return;
    }
    gd_fix_install_driver(f, r, kb);
    gd_finding_add_fix(f, "Reboot; then `nvidia-smi` must list the GPU.");
}

static void module_not_loaded(struct gd_report *r, const struct gd_machine *m)
{
    const char *v = gd_rv(r, "driver", "libcuda.version");
    struct gd_finding *f = gd_finding_add(
        r, "driver.module-not-loaded", GD_SEV_ERROR,
        "The NVIDIA user-space driver%s%s is installed but its kernel module is not loaded",
        v ? " " : "", v ? v : "");
    gd_finding_set_why(f, "cuInit fails (CUDA_ERROR_NO_DEVICE or CUDA_ERROR_UNKNOWN), nvidia-smi "
                          "says \"NVIDIA-SMI has failed because it couldn't communicate with the "
                          "NVIDIA driver\" and frameworks fall back to the CPU.");
    evidence_driver(f, r);
    if (m->container) {
        gd_finding_add_fix(f, "The kernel module lives on the host: load it there (`sudo modprobe "
                              "nvidia`) and check with `nvidia-smi` on the host.");
        return;
    }
    gd_finding_add_fix(f, "Load it: `sudo modprobe nvidia`.");
    gd_finding_add_fix(f, "If modprobe fails, read `sudo dmesg | grep -i -E 'nvidia|nvrm'`: "
                          "\"Key was rejected by service\" means Secure Boot refuses an unsigned "
                          "module (enroll the DKMS key with `sudo mokutil --import` or disable "
                          "Secure Boot); \"Module nvidia not found\" means it was not built for "
                          "this kernel (`sudo dkms autoinstall`, or reinstall the driver).");
    gd_finding_add_fix(f, "Reboot once the module builds; `nvidia-smi` must then list the GPU.");
}

static void userspace_missing(struct gd_report *r, const struct gd_machine *m)
{
    struct gd_finding *f =
        gd_finding_add(r, "driver.libcuda-missing", GD_SEV_ERROR,
                       "The NVIDIA kernel module %s is loaded but libcuda.so.1 is not installed",
                       m->module_version ? m->module_version : "");
    gd_finding_set_why(f, "Every CUDA program needs libcuda.so.1 from the driver: TensorFlow logs "
                          "\"Could not load dynamic library 'libcuda.so.1'\", the CUDA runtime "
                          "returns cudaErrorInsufficientDriver and PyTorch sees no GPU.");
    evidence_driver(f, r);
    if (m->container) {
        gd_finding_add_fix(f, "The NVIDIA Container Toolkit mounts libcuda.so.1 from the host only "
                              "for containers started with GPU access: `docker run --gpus all "
                              "...`, with NVIDIA_DRIVER_CAPABILITIES including compute.");
        return;
    }
    gd_finding_add_fix(f,
                       "Install the user-space driver of the same version as the module (%s): "
                       "on Debian and Ubuntu the package that ships libcuda.so.1 "
                       "(`apt-file search libcuda.so.1`), on RHEL and Fedora the "
                       "nvidia-driver-cuda-libs or nvidia-driver-libs package.",
                       m->module_version ? m->module_version : "the module's version");
    gd_finding_add_fix(f, "Then run `sudo ldconfig` and check with `nvidia-smi`.");
}

static void version_mismatch(struct gd_report *r, const char *module, const char *lib,
                             const char *lib_fact, const struct gd_machine *m)
{
    struct gd_finding *f = gd_finding_add(
        r, "driver.version-mismatch", GD_SEV_ERROR,
        "NVIDIA kernel module %s does not match the user-space driver %s", module, lib);
    gd_finding_set_why(f, "nvidia-smi and every NVML user fail with \"Failed to initialize NVML: "
                          "Driver/library version mismatch\", and cuInit fails, so no framework "
                          "sees the GPU. This follows a driver upgrade without a reboot.");
    gd_finding_add_evidence(f, gd_rf(r, "driver", "kernel_module.version"));
    gd_finding_add_evidence(f, gd_rf(r, "driver", "kernel_module.sys_version"));
    gd_finding_add_evidence(f, gd_rf(r, "driver", lib_fact));
    gd_finding_add_evidence(f, gd_rf(r, "driver", "libcuda.path"));
    if (m->container) {
        gd_finding_add_fix(f, "The host's driver was upgraded without a reboot: reboot the host. "
                              "Restart this container afterwards.");
        return;
    }
    struct gd_version vm, vl;
    bool newer_libs = gd_version_parse(module, &vm) == GD_OK &&
                      gd_version_parse(lib, &vl) == GD_OK && gd_version_cmp(&vl, &vm) > 0;
    if (newer_libs) {
        gd_finding_add_fix(f,
                           "Reboot, so that the kernel loads the %s module that was installed "
                           "with the libraries.",
                           lib);
        gd_finding_add_fix(f, "Without a reboot (no display on the GPU, no process using it): "
                              "`sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo "
                              "modprobe nvidia`.");
    } else {
        gd_finding_add_fix(f,
                           "The libraries are older than the running module: a partial "
                           "downgrade or a second driver install. Reinstall the driver %s "
                           "completely (libraries and module), or install %s's libraries, "
                           "then reboot.",
                           module, module);
    }
    gd_finding_add_fix(f, "Check with `nvidia-smi`: it must print the driver version.");
}

static void several_copies(struct gd_report *r)
{
    const struct gd_fact *count = gd_rf(r, "driver", "libcuda.copies.count");
    if (!count || count->state != GD_FACT_KNOWN || count->int_value < 2)
        return;
    const char *copies = gd_rv(r, "driver", "libcuda.copies");
    /* Several files of one version (a lib and lib64 twin) are harmless; distinct versions not. */
    const char *first = copies ? strstr(copies, "libcuda.so.") : NULL;
    if (!first)
        return;
    first += strlen("libcuda.so.");
    size_t len = strcspn(first, ",");
    bool distinct = false;
    for (const char *p = strstr(first + len, "libcuda.so."); p; p = strstr(p + 1, "libcuda.so.")) {
        const char *v = p + strlen("libcuda.so.");
        if (strcspn(v, ",") != len || strncmp(v, first, len) != 0)
            distinct = true;
    }
    if (!distinct)
        return;
    struct gd_finding *f = gd_finding_add(r, "driver.multiple-libcuda", GD_SEV_WARNING,
                                          "Several versions of libcuda are installed");
    gd_finding_set_why(f, "The loader takes whichever libcuda.so.1 it meets first; a stale copy "
                          "from an old driver or a .run install next to distribution packages "
                          "gives \"Driver/library version mismatch\" or "
                          "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH for some programs only.");
    gd_finding_add_evidence(f, gd_rf(r, "driver", "libcuda.copies"));
    gd_finding_add_evidence(f, gd_rf(r, "driver", "libcuda.path"));
    gd_finding_add_evidence(f, gd_rf(r, "driver", "kernel_module.version"));
    gd_finding_add_fix(f, "Remove the copies whose version differs from the kernel module "
                          "(uninstall the old package or the .run install with "
                          "`sudo nvidia-uninstall`), then run `sudo ldconfig`.");
}

static void nouveau(struct gd_report *r, const struct gd_machine *m)
{
    if (!gd_fact_is_true(gd_rf(r, "driver", "module.nouveau.loaded")))
        return;
    struct gd_finding *f =
        gd_finding_add(r, "driver.nouveau-loaded", m->module_loaded ? GD_SEV_WARNING : GD_SEV_ERROR,
                       "The open-source nouveau driver is loaded%s",
                       m->module_loaded ? " next to the NVIDIA driver" : " and holds the GPU");
    gd_finding_set_why(f, "A GPU driven by nouveau cannot be used by CUDA: loading the NVIDIA "
                          "module fails (\"NVRM: The NVIDIA probe routine failed\" in dmesg) and "
                          "nvidia-smi finds no device.");
    gd_finding_add_evidence(f, gd_rf(r, "driver", "module.nouveau.loaded"));
    gd_finding_add_evidence(f, gd_rf(r, "driver", "nouveau.blacklisted"));
    gd_finding_add_evidence(f, gd_rf(r, "driver", "nouveau.blacklisted_by"));
    gd_finding_add_evidence(f, gd_rf(r, "driver", "kernel_module.version"));
    if (!gd_fact_is_true(gd_rf(r, "driver", "nouveau.blacklisted")))
        gd_finding_add_fix(f, "Blacklist it: write the two lines \"blacklist nouveau\" and "
                              "\"options nouveau modeset=0\" to "
                              "/etc/modprobe.d/blacklist-nouveau.conf.");
    else
        gd_finding_add_fix(f, "It is blacklisted but still loaded: the initramfs was built before "
                              "the blacklist.");
    gd_finding_add_fix(f, "Rebuild the initramfs: `sudo update-initramfs -u` (Debian, Ubuntu) or "
                          "`sudo dracut --force` (RHEL, Fedora, SUSE), then reboot.");
}

void gd_rule_driver(struct gd_report *r, const struct gd_kb *kb)
{
    struct gd_machine m;
    gd_machine_of(r, &m);
    if (m.wsl)
        return;
    nouveau(r, &m);
    if (!m.module_loaded && !m.userspace) {
        not_installed(r, kb, &m);
        return;
    }
    if (!m.module_loaded) {
        module_not_loaded(r, &m);
        return;
    }
    if (!m.userspace) {
        /* A container given no GPU at all: container.no-gpu-devices says why and how. */
        const struct gd_fact *gpus = gd_rf(r, "devices", "gpus.count");
        bool no_gpu_container =
            m.container && gpus && gpus->state == GD_FACT_KNOWN && gpus->int_value == 0;
        if (!no_gpu_container)
            userspace_missing(r, &m);
        return;
    }
    const char *lib = gd_rv(r, "driver", "libcuda.version");
    const char *lib_fact = "libcuda.version";
    const char *nvml = gd_rv(r, "driver", "nvml.version");
    if (m.module_version && lib && strcmp(m.module_version, lib) != 0) {
        version_mismatch(r, m.module_version, lib, lib_fact, &m);
        return;
    }
    if (m.module_version && nvml && strcmp(m.module_version, nvml) != 0) {
        version_mismatch(r, m.module_version, nvml, "nvml.version", &m);
        return;
    }
    several_copies(r);
    struct gd_finding *f;
    if (m.module_version && lib)
        f = gd_finding_add(r, "driver.ok", GD_SEV_OK,
                           "NVIDIA driver %s is loaded; kernel module and libcuda match", lib);
    else
        f = gd_finding_add(r, "driver.ok", GD_SEV_OK,
                           "NVIDIA driver is loaded (the version of %s is not known)",
                           lib ? "the kernel module" : "libcuda");
    evidence_driver(f, r);
    gd_finding_add_evidence(f, gd_rf(r, "driver", "kernel_module.flavor"));
}
