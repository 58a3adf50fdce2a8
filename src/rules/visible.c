/* Which GPU each CUDA device number is (src/probe/visible.c): entries of CUDA_VISIBLE_DEVICES
 * that CUDA ignores, and CUDA's FASTEST_FIRST numbering disagreeing with nvidia-smi's, which
 * counts GPUs in PCI order — the reason "CUDA_VISIBLE_DEVICES=1" so often runs on the wrong GPU.
 * A value that hides every GPU is env.cuda-visible-devices-hides-all (env.c). */
#include "rules/rules.h"

#include <stdio.h>
#include <string.h>

static void entries_ignored(struct gd_report *r)
{
    long long visible;
    const struct gd_fact *stop = gd_rf(r, "visible_devices", "stop");
    const struct gd_fact *vis = gd_rf(r, "visible_devices", "visible_entries");
    if (!gd_fact_known_value(stop) || !gd_fact_int_of(vis, &visible) || visible == 0)
        return;
    const char *value = gd_rv(r, "env", "CUDA_VISIBLE_DEVICES");
    struct gd_finding *f =
        gd_finding_add(r, "visible.entry-ignored", GD_SEV_WARNING,
                       "CUDA_VISIBLE_DEVICES=\"%s\": CUDA uses its first %lld entr%s only", value,
                       visible, visible == 1 ? "y" : "ies");
    gd_finding_set_why(f,
                       "CUDA stops reading the list at the first entry that is not a valid "
                       "GPU (%s): the GPUs listed after it are silently left out, and a job "
                       "meant for several GPUs runs on fewer.",
                       gd_fact_value(stop));
    gd_finding_add_evidence(f, gd_rf(r, "env", "CUDA_VISIBLE_DEVICES"));
    gd_finding_add_evidence(f, stop);
    gd_finding_add_evidence(f, vis);
    gd_finding_add_evidence(f, gd_rf(r, "visible_devices", "physical"));
    gd_finding_add_fix(f, "List only existing GPUs, each once, by index or by UUID (`nvidia-smi "
                          "-L`), without -1 or blanks: e.g. `export CUDA_VISIBLE_DEVICES=0,1`.");
}

static bool is_fastest_first(const struct gd_report *r)
{
    const char *order = gd_rv(r, "visible_devices", "order");
    return order && strcmp(order, "FASTEST_FIRST") == 0;
}

static void order_differs(struct gd_report *r)
{
    if (!is_fastest_first(r) || !gd_fact_is_true(gd_rf(r, "visible_devices", "confirmed")))
        return;
    long long count;
    if (!gd_fact_int_of(gd_rf(r, "visible_devices", "count"), &count))
        return;
    struct gd_finding *f = NULL;
    for (long long i = 0; i < count && i < 64; i++) {
        char entry[48], smi[48], dev[32];
        snprintf(entry, sizeof entry, "device[%lld].entry", i);
        snprintf(smi, sizeof smi, "device[%lld].nvidia_smi", i);
        snprintf(dev, sizeof dev, "device[%lld]", i);
        long long want, is;
        const struct gd_fact *fe = gd_rf(r, "visible_devices", entry);
        const struct gd_fact *fs = gd_rf(r, "visible_devices", smi);
        if (!gd_fact_int_of(fe, &want) || !gd_fact_int_of(fs, &is) || want == is)
            continue;
        if (!f) {
            f = gd_finding_add(r, "visible.order-differs", GD_SEV_WARNING,
                               "CUDA's GPU %lld is nvidia-smi's GPU %lld: CUDA numbers GPUs "
                               "fastest first, nvidia-smi in PCI order",
                               want, is);
            gd_finding_set_why(
                f,
                "A GPU chosen by its nvidia-smi number (CUDA_VISIBLE_DEVICES=%lld to run on the "
                "idle GPU nvidia-smi shows as %lld, torch.device('cuda:%lld')) is another "
                "GPU: jobs land on busy or smaller GPUs, and two jobs meant for different GPUs "
                "share one.",
                want, want, want);
            gd_finding_add_evidence(f, gd_rf(r, "visible_devices", "order"));
            gd_finding_add_evidence(f, gd_rf(r, "env", "CUDA_VISIBLE_DEVICES"));
            gd_finding_add_fix(f, "`export CUDA_DEVICE_ORDER=PCI_BUS_ID` wherever jobs are "
                                  "started, so CUDA counts GPUs as nvidia-smi does.");
            gd_finding_add_fix(f, "Or name GPUs by UUID, which no order changes: "
                                  "`CUDA_VISIBLE_DEVICES=GPU-<uuid>` (`nvidia-smi -L`).");
        }
        gd_finding_add_evidence(f, gd_rf(r, "visible_devices", dev));
        gd_finding_add_evidence(f, fe);
        gd_finding_add_evidence(f, fs);
    }
}

/* Without the driver's answer: mixed models are where FASTEST_FIRST reorders. */
static void order_may_differ(struct gd_report *r)
{
    if (!is_fastest_first(r) || !gd_fact_is_false(gd_rf(r, "visible_devices", "confirmed")) ||
        !gd_fact_is_true(gd_rf(r, "visible_devices", "mixed_models")))
        return;
    const char *kind = gd_rv(r, "visible_devices", "kind");
    if (kind && strcmp(kind, "ordinals") != 0)
        return;
    struct gd_finding *f =
        gd_finding_add(r, "visible.order-may-differ", GD_SEV_INFO,
                       "GPUs of different models: CUDA's GPU numbers may not be nvidia-smi's");
    gd_finding_set_why(f, "CUDA numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID, "
                          "nvidia-smi in PCI order; with different models the two usually "
                          "differ, so GPU numbers taken from nvidia-smi pick other GPUs.");
    gd_finding_add_evidence(f, gd_rf(r, "visible_devices", "order"));
    gd_finding_add_evidence(f, gd_rf(r, "visible_devices", "mixed_models"));
    gd_finding_add_evidence(f, gd_rf(r, "visible_devices", "physical"));
    gd_finding_add_evidence(f, gd_rf(r, "env", "CUDA_VISIBLE_DEVICES"));
    gd_finding_add_fix(f, "`export CUDA_DEVICE_ORDER=PCI_BUS_ID`, or name GPUs by UUID.");
}

void gd_rule_visible(struct gd_report *r, const struct gd_kb *kb)
{
    (void)kb;
    entries_ignored(r);
    order_differs(r);
    order_may_differ(r);
}
