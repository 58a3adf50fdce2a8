/*
 * Native Windows: TensorFlow after its last release with GPU support there (2.10, the
 * `last_native_windows_gpu` fact of tf_builds) runs on the CPU only; GPU users stay below it or
 * move to WSL2. The release, the commands and the WSL requirements all come from tf_builds, so a
 * --kb table can change them. A host counts as native Windows when `host.os.id` is "windows"
 * (what a probe of a Windows tree records) and it is not WSL.
 */
#include "rules/frameworks.h"

#include "kb/kb.h"

#include <string.h>

static const struct gd_kb_row *tf_row(const struct gd_kb *kb, const char *kind, const char *field,
                                      const char *value)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "tf_builds");
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *k = gd_kb_str(row, "kind"), *v = field ? gd_kb_str(row, field) : NULL;
        if (k && strcmp(k, kind) == 0 && (!field || (v && strcmp(v, value) == 0)))
            return row;
    }
    return NULL;
}

static void commands(struct gd_finding *f, const struct gd_kb_row *row, const char *lead)
{
    char text[1024];
    size_t len = 0;
    text[0] = '\0';
    for (size_t k = 0; k < gd_kb_list_len(row, "commands"); k++) {
        const char *c = gd_kb_list_at(row, "commands", k);
        size_t n = c ? strlen(c) : 0;
        if (!c || len + n + 8 >= sizeof text)
            continue;
        memcpy(text + len, len ? " && " : "", len ? 4 : 0);
        len += len ? 4 : 0;
        memcpy(text + len, c, n + 1);
        len += n;
    }
    if (len)
        gd_finding_add_fix(f, "%s `%s`.", lead, text);
}

void gd_rule_windows(struct gd_report *r, const struct gd_kb *kb)
{
    const char *os = gd_rv(r, "host", "os.id");
    if (!os || strcmp(os, "windows") != 0 || gd_fact_is_true(gd_rf(r, "wsl", "detected")))
        return;
    struct gd_version last;
    const struct gd_kb_row *fact = NULL;
    if (gd_kb_tf_last_native_windows_gpu(kb, &last, &fact) != GD_OK)
        return;
    const struct gd_fact *count = gd_rf(r, "gpus", "count");
    bool no_gpu = count && count->state == GD_FACT_KNOWN && count->int_value == 0;
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *fw = gd_report_entity_at(r, i);
        const char *framework = gd_fw_val(fw, "framework"), *version = gd_fw_val(fw, "version");
        struct gd_version v;
        if (strcmp(gd_entity_kind(fw), "framework") != 0 || !framework ||
            strcmp(framework, "tensorflow") != 0 || !gd_fw_judged_role(fw) || !version ||
            gd_version_parse(version, &v) != GD_OK || gd_version_cmp_parts(&v, &last, 2) <= 0)
            continue;
        struct gd_finding *f = gd_finding_add(
            r, "framework.tf-windows-no-gpu", no_gpu ? GD_SEV_INFO : GD_SEV_WARNING,
            "%s %s on native Windows has no GPU support: the last release with it there is %s",
            gd_fw_val(fw, "dist"), version, last.text);
        gd_finding_set_why(f,
                           "TensorFlow after %s builds no GPU support for native Windows: "
                           "tf.config.list_physical_devices('GPU') is empty and everything "
                           "runs on the CPU, without an error.",
                           last.text);
        gd_finding_add_evidence(f, gd_rf(r, "host", "os.id"));
        gd_finding_add_evidence(f, gd_entity_fact(fw, "version"));
        const struct gd_kb_row *win = tf_row(kb, "windows_native_gpu", NULL, NULL);
        const struct gd_kb_row *wsl = tf_row(kb, "pip_requirements", "and_cuda", "true");
        if (win)
            commands(f, win,
                     "To keep native Windows, install a release that still has it (with "
                     "its CUDA and cuDNN from conda):");
        if (wsl) {
            const char *driver = gd_kb_str(wsl, "driver_wsl");
            commands(f, wsl, "Or use WSL2, where the Linux build has the GPU, and there:");
            if (driver)
                gd_finding_add_fix(f, "WSL2 needs Windows driver %s or newer.", driver);
        }
        gd_fix_reference(f, kb, fact);
        gd_fix_reference(f, kb, win);
        gd_fix_reference(f, kb, wsl);
    }
}
