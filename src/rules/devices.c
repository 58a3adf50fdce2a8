/* The device files CUDA opens. Judged only where they should exist: a host with the NVIDIA
 * module loaded, or a container given GPUs (container.c covers a container given none). */
#include "rules/rules.h"

#include "core/buf.h"

#include <stdio.h>
#include <string.h>

static bool present(const struct gd_report *r, const char *node)
{
    char fact[64];
    snprintf(fact, sizeof fact, "%s.present", node);
    return gd_fact_is_true(gd_rf(r, "devices", fact));
}

static const struct gd_fact *fact_of(const struct gd_report *r, const char *node, const char *what)
{
    char fact[64];
    snprintf(fact, sizeof fact, "%s.%s", node, what);
    return gd_rf(r, "devices", fact);
}

/* Each GPU node (from the "gpus" list) and the fixed ones, calling `fn` for each present one. */
static void each_node(const struct gd_report *r,
                      void (*fn)(const struct gd_report *, const char *, void *), void *user)
{
    static const char *const fixed[] = { "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools",
                                         "nvidia-modeset" };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        if (present(r, fixed[i]))
            fn(r, fixed[i], user);
    const char *gpus = gd_rv(r, "devices", "gpus");
    while (gpus && *gpus) {
        size_t n = strcspn(gpus, " ");
        char node[32];
        if (n < sizeof node) {
            memcpy(node, gpus, n);
            node[n] = '\0';
            fn(r, node, user);
        }
        gpus += n;
        while (*gpus == ' ')
            gpus++;
    }
}

struct collect {
    struct gd_finding *f;
    const char *what;
    bool want_true; /* collect nodes whose fact is this known boolean */
    const char *type_not;
    int count;
    struct gd_buf names;
};

static void collect_node(const struct gd_report *r, const char *node, void *user)
{
    struct collect *c = user;
    const struct gd_fact *fact = fact_of(r, node, c->what);
    bool hit;
    if (c->type_not)
        hit = fact && fact->state == GD_FACT_KNOWN && strcmp(fact->value, c->type_not) != 0;
    else
        hit = c->want_true ? gd_fact_is_true(fact) : gd_fact_is_false(fact);
    if (!hit)
        return;
    gd_buf_printf(&c->names, "%s/dev/%s", c->count++ ? ", " : "", node);
    if (c->f)
        gd_finding_add_evidence(c->f, fact);
}

static void not_accessible(struct gd_report *r)
{
    struct collect c = { .what = "accessible", .want_true = false };
    gd_buf_init(&c.names, 4096);
    each_node(r, collect_node, &c);
    if (gd_buf_status(&c.names) == GD_ENOMEM)
        gd_report_out_of_memory(r);
    if (c.count) {
        c.f = gd_finding_add(r, "devices.permission-denied", GD_SEV_ERROR,
                             "This user may not open %s", gd_buf_str(&c.names));
        c.count = 0;
        gd_buf_free(&c.names);
        each_node(r, collect_node, &c);
        gd_finding_set_why(c.f, "CUDA opens the device files read-write: cuInit fails with "
                                "CUDA_ERROR_NO_DEVICE or CUDA_ERROR_OPERATING_SYSTEM, "
                                "\"no CUDA-capable device is detected\", for this user only "
                                "(root works).");
        gd_finding_add_fix(c.f, "See which group owns them: `ls -l /dev/nvidia*` (often video or "
                                "render).");
        gd_finding_add_fix(c.f, "Add yourself to it, e.g. `sudo usermod -aG video $USER`, then "
                                "log out and in again.");
    }
    gd_buf_free(&c.names);
}

static void not_char_device(struct gd_report *r)
{
    struct collect c = { .what = "type", .type_not = "character device" };
    gd_buf_init(&c.names, 4096);
    each_node(r, collect_node, &c);
    if (gd_buf_status(&c.names) == GD_ENOMEM)
        gd_report_out_of_memory(r);
    if (c.count) {
        c.f = gd_finding_add(r, "devices.not-char-device", GD_SEV_ERROR,
                             "%s %s not a character device", gd_buf_str(&c.names),
                             c.count > 1 ? "are" : "is");
        c.count = 0;
        gd_buf_free(&c.names);
        each_node(r, collect_node, &c);
        gd_finding_set_why(c.f, "CUDA cannot talk to the driver through a plain file or "
                                "directory; this happens when a container bind-mounts /dev/nvidia* "
                                "paths that did not exist on the host, which creates directories.");
        gd_finding_add_fix(c.f, "Remove the bad entries and let the driver create the nodes "
                                "(`sudo nvidia-modprobe -c 0 -u`), or start the container with "
                                "`--gpus all` instead of bind-mounting /dev/nvidia* by hand.");
    }
    gd_buf_free(&c.names);
}

void gd_rule_devices(struct gd_report *r, const struct gd_kb *kb)
{
    (void)kb;
    struct gd_machine m;
    gd_machine_of(r, &m);
    const struct gd_fact *count = gd_rf(r, "devices", "gpus.count");
    long long gpus = count && count->state == GD_FACT_KNOWN ? count->int_value : -1;
    /* Judge the nodes where the driver should have made them: a host whose module is loaded,
     * or a container that was given at least one GPU node. */
    bool expected = m.wsl ? false : m.container ? gpus > 0 : m.module_loaded;
    if (!expected)
        return;
    bool live = gd_fact_is_true(gd_rf(r, "host", "live"));
    bool problem = false;
    if (!present(r, "nvidiactl")) {
        struct gd_finding *f = gd_finding_add(r, "devices.nvidiactl-missing", GD_SEV_ERROR,
                                              "/dev/nvidiactl is missing");
        gd_finding_set_why(f, "Without the control device no CUDA program and no nvidia-smi can "
                              "reach the driver: \"no CUDA-capable device is detected\".");
        gd_finding_add_evidence(f, gd_rf(r, "devices", "nvidiactl.present"));
        gd_finding_add_evidence(f, gd_rf(r, "driver", "kernel_module.version"));
        gd_finding_add_fix(f, m.container ? "Restart the container with `--gpus all`: the NVIDIA "
                                            "Container Toolkit passes /dev/nvidiactl."
                                          : "Create the device files: `sudo nvidia-modprobe -c 0 "
                                            "-u` (or run `sudo nvidia-smi` once).");
        problem = true;
    }
    if (gpus == 0 && !m.container) {
        struct gd_finding *f = gd_finding_add(r, "devices.no-gpu-nodes", GD_SEV_ERROR,
                                              "No /dev/nvidia<N> device file exists");
        gd_finding_set_why(f, "The driver is loaded but no GPU device file was created, so CUDA "
                              "finds no device (CUDA_ERROR_NO_DEVICE).");
        gd_finding_add_evidence(f, count);
        gd_finding_add_evidence(f, gd_rf(r, "driver", "kernel_module.version"));
        gd_finding_add_fix(f, "Create them: `sudo nvidia-modprobe -c 0 -u`; if that makes none, "
                              "check `sudo dmesg | grep NVRM` for a GPU the driver refused.");
        problem = true;
    }
    if (!present(r, "nvidia-uvm")) {
        struct gd_finding *f =
            gd_finding_add(r, "devices.uvm-missing", GD_SEV_ERROR, "/dev/nvidia-uvm is missing");
        gd_finding_set_why(f, "cuInit fails with CUDA_ERROR_UNKNOWN (999) without the "
                              "unified-memory device: PyTorch warns \"CUDA initialization: CUDA "
                              "unknown error\" and TensorFlow logs \"failed call to cuInit: "
                              "CUDA_ERROR_UNKNOWN\"; nvidia-smi still works, which hides it.");
        gd_finding_add_evidence(f, gd_rf(r, "devices", "nvidia-uvm.present"));
        gd_finding_add_evidence(f, gd_rf(r, "driver", "module.nvidia_uvm.loaded"));
        gd_finding_add_evidence(f, gd_rf(r, "driver", "kernel_module.version"));
        if (m.container) {
            gd_finding_add_fix(f, "Restart the container with `--gpus all` (the toolkit passes "
                                  "/dev/nvidia-uvm), or add `--device /dev/nvidia-uvm`; on the "
                                  "host, load the module first (`sudo modprobe nvidia-uvm`).");
        } else {
            gd_finding_add_fix(f, "Load the module and create the device file: `sudo modprobe "
                                  "nvidia-uvm && sudo nvidia-modprobe -u -c 0`.");
            gd_finding_add_fix(f, "Load it at every boot: `echo nvidia-uvm | sudo tee "
                                  "/etc/modules-load.d/nvidia-uvm.conf`.");
        }
        problem = true;
    }
    if (live) {
        size_t before = gd_report_finding_count(r);
        not_accessible(r);
        not_char_device(r);
        problem = problem || gd_report_finding_count(r) != before;
    }
    if (!problem) {
        /* An unknown count (an unreadable /dev) is said so, never printed as a number. */
        struct gd_finding *f =
            gpus < 0 ? gd_finding_add(r, "devices.ok", GD_SEV_OK,
                                      "/dev/nvidiactl and /dev/nvidia-uvm are present (the GPU "
                                      "device files could not be counted)")
                     : gd_finding_add(r, "devices.ok", GD_SEV_OK,
                                      "%lld GPU device file%s, /dev/nvidiactl and "
                                      "/dev/nvidia-uvm are present",
                                      gpus, gpus == 1 ? "" : "s");
        gd_finding_add_evidence(f, gpus < 0 ? count : gd_rf(r, "devices", "gpus"));
        gd_finding_add_evidence(f, gd_rf(r, "devices", "nvidiactl.present"));
        gd_finding_add_evidence(f, gd_rf(r, "devices", "nvidia-uvm.present"));
    }
}
