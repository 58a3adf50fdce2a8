/* WSL: CUDA reaches WSL 2 through the Windows driver (/dev/dxg, /usr/lib/wsl/lib); a Linux
 * NVIDIA driver inside WSL only gets in the way. */
#include "rules/rules.h"

#include "core/str.h"

void gd_rule_wsl(struct gd_report *r, const struct gd_kb *kb)
{
    (void)kb;
    if (!gd_fact_is_true(gd_rf(r, "wsl", "detected")))
        return;
    const struct gd_fact *version = gd_rf(r, "wsl", "version");
    if (version && version->state == GD_FACT_KNOWN && version->int_value == 1) {
        struct gd_finding *f = gd_finding_add(r, "wsl.version-1", GD_SEV_ERROR,
                                              "This is WSL 1, which has no GPU support");
        gd_finding_set_why(f, "CUDA on WSL needs WSL 2's GPU paravirtualization; under WSL 1 "
                              "every CUDA program reports no device.");
        gd_finding_add_evidence(f, version);
        gd_finding_add_fix(f, "In PowerShell: `wsl --set-version <distribution> 2` (list them with "
                              "`wsl -l -v`), then reopen the distribution.");
        return;
    }
    bool problem = false;
    const struct gd_fact *dxg = gd_rf(r, "devices", "dxg.present");
    if (gd_fact_is_false(dxg)) {
        struct gd_finding *f = gd_finding_add(r, "wsl.dxg-missing", GD_SEV_ERROR,
                                              "/dev/dxg is missing: WSL has no GPU");
        gd_finding_set_why(f, "GPUs reach WSL 2 only through /dev/dxg; without it CUDA reports "
                              "no CUDA-capable device.");
        gd_finding_add_evidence(f, dxg);
        gd_finding_add_evidence(f, gd_rf(r, "wsl", "detected"));
        gd_finding_add_fix(f, "Update Windows and WSL (`wsl --update` in PowerShell), install "
                              "the current NVIDIA Windows driver, then `wsl --shutdown` and "
                              "reopen.");
        problem = true;
    }
    const struct gd_fact *lib = gd_rf(r, "wsl", "libcuda.present");
    if (gd_fact_is_false(lib)) {
        struct gd_finding *f = gd_finding_add(r, "wsl.libcuda-missing", GD_SEV_ERROR,
                                              "/usr/lib/wsl/lib/libcuda.so.1 is missing");
        gd_finding_set_why(f, "In WSL the Windows NVIDIA driver provides libcuda.so.1 there; "
                              "without it TensorFlow logs \"Could not load dynamic library "
                              "'libcuda.so.1'\" and PyTorch sees no GPU.");
        gd_finding_add_evidence(f, lib);
        gd_finding_add_evidence(f, gd_rf(r, "wsl", "lib_dir.present"));
        gd_finding_add_fix(f, "Install or update the NVIDIA driver on Windows (not inside WSL), "
                              "then run `wsl --shutdown` in PowerShell and reopen.");
        problem = true;
    }
    const char *path = gd_rv(r, "driver", "libcuda.path");
    if (path && !gd_str_starts_with(path, "/usr/lib/wsl/")) {
        struct gd_finding *f = gd_finding_add(r, "wsl.linux-driver-installed", GD_SEV_WARNING,
                                              "A Linux NVIDIA driver's libcuda is installed "
                                              "inside WSL");
        gd_finding_set_why(f,
                           "NVIDIA's CUDA on WSL guide says not to install a Linux display "
                           "driver in WSL: its libcuda.so.1 (%s) can be loaded instead of the "
                           "one from the Windows driver and fails to find a GPU.",
                           path);
        gd_finding_add_evidence(f, gd_rf(r, "driver", "libcuda.path"));
        gd_finding_add_evidence(f, gd_rf(r, "driver", "libcuda.version"));
        gd_finding_add_fix(f, "Remove the Linux driver packages inside WSL (for example `sudo "
                              "apt-get remove --purge 'libnvidia-compute-*'`), keep only the "
                              "CUDA toolkit, and run `sudo ldconfig`.");
        problem = true;
    }
    const struct gd_fact *conf = gd_rf(r, "wsl", "ld_conf");
    if (gd_fact_is_false(conf) && !gd_fact_is_false(lib)) {
        struct gd_finding *f = gd_finding_add(r, "wsl.ld-conf-missing", GD_SEV_WARNING,
                                              "/usr/lib/wsl/lib is not in the loader's "
                                              "configuration");
        gd_finding_set_why(f, "Programs find libcuda.so.1 through /etc/ld.so.conf.d; without an "
                              "entry for /usr/lib/wsl/lib they report \"Could not load dynamic "
                              "library 'libcuda.so.1'\" unless LD_LIBRARY_PATH names it.");
        gd_finding_add_evidence(f, conf);
        gd_finding_add_fix(f, "Run `echo /usr/lib/wsl/lib | sudo tee "
                              "/etc/ld.so.conf.d/ld.wsl.conf && sudo ldconfig`.");
        problem = true;
    }
    if (!problem) {
        struct gd_finding *f = gd_finding_add(r, "wsl.ok", GD_SEV_OK,
                                              "WSL 2 with the Windows driver's libcuda in "
                                              "/usr/lib/wsl/lib and /dev/dxg");
        gd_finding_add_evidence(f, lib);
        gd_finding_add_evidence(f, dxg);
    }
}
