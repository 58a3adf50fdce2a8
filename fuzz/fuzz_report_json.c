/*
 * Saved reports (`gpudoctor explain --report FILE`): gd_report_read_json on the bytes, then the
 * report rendered as JSON, read again and explained against a log of real lines.
 *
 * Invariants: the status is GD_OK, GD_EFORMAT, GD_ENOMEM or GD_ELIMIT, with a report exactly on
 * GD_OK; a report read renders as JSON that reads back to a report rendering the same bytes
 * (nothing a report holds is lost or changed by saving it); explaining against it succeeds and
 * gives each cause a verdict other than "unchecked".
 */
#include "fuzz.h"

#include <gpudoctor/gpudoctor.h>

static const char log_text[] =
    "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared "
    "object file: No such file or directory\n"
    "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
    "Loaded runtime CuDNN library: 8.0.4 but source was compiled with: 8.1.0\n"
    "NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.\n"
    "AssertionError: Torch not compiled with CUDA enabled\n"
    "RuntimeError: CUDA error: invalid device ordinal\n"
    "Failed to initialize NVML: Driver/library version mismatch\n";

static struct gd_explain *ex;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ex && gd_explain_new(NULL, &ex) != GD_OK)
        abort();
    struct gd_report *r = (struct gd_report *)1;
    enum gd_status st = gd_report_read_json((const char *)data, size, &r);
    FUZZ_CHECK(st == GD_OK || st == GD_EFORMAT || st == GD_ENOMEM || st == GD_ELIMIT);
    FUZZ_CHECK((st == GD_OK) == (r != NULL));
    if (st != GD_OK)
        return 0;
    char *json = NULL, *again = NULL;
    size_t len = 0, alen = 0;
    FUZZ_CHECK(gd_render(r, GD_FORMAT_JSON, NULL, &json, &len) == GD_OK);
    struct gd_report *back = NULL;
    FUZZ_CHECK(gd_report_read_json(json, len, &back) == GD_OK);
    FUZZ_CHECK(gd_render(back, GD_FORMAT_JSON, NULL, &again, &alen) == GD_OK);
    FUZZ_CHECK(alen == len && memcmp(json, again, len) == 0);
    struct gd_explain_result *res = NULL;
    FUZZ_CHECK(gd_explain_message(ex, log_text, sizeof log_text - 1, r, &res) == GD_OK);
    FUZZ_CHECK(gd_explain_cause_count(res) > 0);
    for (size_t i = 0; i < gd_explain_cause_count(res); i++)
        FUZZ_CHECK(gd_explain_cause_verdict(gd_explain_cause_at(res, i)) != GD_EXPLAIN_UNCHECKED);
    char *out = NULL;
    FUZZ_CHECK(gd_explain_render(res, GD_FORMAT_TEXT, NULL, &out, &len) == GD_OK);
    gd_free(out);
    gd_explain_result_free(res);
    gd_free(json);
    gd_free(again);
    gd_report_free(back);
    gd_report_free(r);
    return 0;
}
