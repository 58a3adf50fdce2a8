/* A vendor call that crashed, hung or exited: gpudoctor ran it in a child process with a deadline
 * (src/probe/vchild.h), so it could report; a program making the same call would die or hang
 * there. Every entity whose child did not reach its end carries call.end, call.problem and
 * call.library. */
#include "rules/rules.h"

#include <string.h>

/* finding-id: vendor.call-crashed finding-id: vendor.call-hung */
static void judge(struct gd_report *r, const struct gd_entity *e)
{
    const struct gd_fact *end = gd_entity_fact(e, "call.end");
    const struct gd_fact *problem = gd_entity_fact(e, "call.problem");
    const struct gd_fact *library = gd_entity_fact(e, "call.library");
    const char *how = gd_fact_known_value(end);
    if (!how)
        return;
    const char *lib = gd_fact_known_value(library);
    const char *what = gd_fact_known_value(problem);
    bool hung = strcmp(how, "timeout") == 0;
    struct gd_finding *f = gd_finding_add(
        r, hung ? "vendor.call-hung" : "vendor.call-crashed", GD_SEV_ERROR, "A call into %s %s",
        lib ? lib : "an NVIDIA library", what ? what : "did not finish");
    if (hung)
        gd_finding_set_why(f, "gpudoctor made the call in a child process and killed it at its "
                              "deadline; a program making it hangs there for good (a stuck "
                              "driver, a GPU that fell off the bus, a fabric that never comes "
                              "up).");
    else
        gd_finding_set_why(f, "gpudoctor made the call in a child process, which died; a "
                              "program making it dies the same way (\"Segmentation fault\", "
                              "\"Aborted\") with no CUDA error to explain it.");
    gd_finding_add_evidence(f, problem);
    gd_finding_add_evidence(f, library);
    gd_finding_add_evidence(f, end);
    if (hung) {
        gd_finding_add_fix(f, "Check that `nvidia-smi` answers; read %s for GPU errors.",
                           gd_fix_driver_log(r));
        if (gd_rules_windows(r)) {
            gd_finding_add_fix(f,
                               "Reset the GPU (%s, with no process on it) or restart Windows; "
                               "or run gpudoctor with a longer `--timeout`.",
                               gd_fix_gpu_reset(r));
        } else {
            gd_finding_add_fix(f, "On NVSwitch machines (HGX, DGX) the NVIDIA Fabric Manager "
                                  "must run: `systemctl status nvidia-fabricmanager`.");
            gd_finding_add_fix(f, "Reset the GPU (`sudo nvidia-smi -r -i <gpu>`, with no process "
                                  "on it) or reboot; a slow first call without persistence mode "
                                  "can also pass a short deadline: `sudo nvidia-smi -pm 1`, or "
                                  "run gpudoctor with a longer `--timeout`.");
        }
    } else {
        gd_finding_add_fix(f, "Reinstall the library named (or the driver, for libcuda and "
                              "NVML), and check it matches the driver version; a copy from "
                              "another system or a partial upgrade crashes like this.");
        gd_finding_add_fix(f, "Read %s for GPU errors at the same time.", gd_fix_driver_log(r));
    }
}

void gd_rule_vendor_calls(struct gd_report *r, const struct gd_kb *kb)
{
    (void)kb;
    for (size_t i = 0; i < gd_report_entity_count(r); i++)
        judge(r, gd_report_entity_at(r, i));
}
