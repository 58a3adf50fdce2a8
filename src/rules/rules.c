#include "rules/rules.h"

#include "kb/kb.h"

#include <string.h>

static const gd_rule_fn all_rules[] = {
    gd_rule_driver, gd_rule_devices, gd_rule_container, gd_rule_wsl,
    gd_rule_env,    gd_rule_root,    gd_rule_kb,
};

void gd_rules_run(struct gd_report *report, const struct gd_kb *kb)
{
    for (size_t i = 0; i < sizeof all_rules / sizeof *all_rules; i++)
        all_rules[i](report, kb);
}

const struct gd_fact *gd_rf(const struct gd_report *r, const char *entity, const char *name)
{
    return gd_report_fact(r, entity, name);
}

const char *gd_rv(const struct gd_report *r, const char *entity, const char *name)
{
    return gd_report_value(r, entity, name);
}

void gd_machine_of(const struct gd_report *r, struct gd_machine *m)
{
    memset(m, 0, sizeof *m);
    m->wsl = gd_fact_is_true(gd_rf(r, "wsl", "detected"));
    m->container = gd_fact_is_true(gd_rf(r, "container", "detected"));
    m->module_version = gd_rv(r, "driver", "kernel_module.version");
    if (!m->module_version)
        m->module_version = gd_rv(r, "driver", "kernel_module.sys_version");
    m->module_loaded =
        m->module_version || gd_fact_is_true(gd_rf(r, "driver", "module.nvidia.loaded"));
    m->userspace = gd_rv(r, "driver", "libcuda.path") != NULL;
    m->os_id = gd_rv(r, "host", "os.id");
}

/* os-release's ID, else the first ID_LIKE word the table knows, else the "*" row. */
static const struct gd_kb_row *install_row(const struct gd_report *r, const struct gd_kb_table *t)
{
    const char *id = gd_rv(r, "host", "os.id");
    const char *like = gd_rv(r, "host", "os.id_like");
    const struct gd_kb_row *fallback = NULL;
    size_t n = gd_kb_row_count(t);
    for (size_t i = 0; i < n; i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *os = gd_kb_str(row, "os_id");
        if (os && id && strcmp(os, id) == 0)
            return row;
        if (os && strcmp(os, "*") == 0)
            fallback = row;
    }
    for (size_t i = 0; like && i < n; i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *os = gd_kb_str(row, "os_id");
        size_t len = os ? strlen(os) : 0;
        for (const char *p = like; os && (p = strstr(p, os)) != NULL; p += len) {
            bool starts = p == like || p[-1] == ' ';
            bool ends = p[len] == '\0' || p[len] == ' ';
            if (starts && ends)
                return row;
        }
    }
    return fallback;
}

void gd_fix_install_driver(struct gd_finding *f, const struct gd_report *r, const struct gd_kb *kb)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "driver_install");
    const struct gd_kb_row *row = t ? install_row(r, t) : NULL;
    if (!row) {
        gd_finding_add_fix(f, "Install the NVIDIA driver for your GPU and distribution, then "
                              "reboot.");
        return;
    }
    const char *note = gd_kb_str(row, "before");
    if (note)
        gd_finding_add_fix(f, "%s", note);
    size_t n = gd_kb_list_len(row, "commands");
    for (size_t i = 0; i < n; i++)
        gd_finding_add_fix(f, "Run: %s", gd_kb_list_at(row, "commands", i));
    const char *after = gd_kb_str(row, "after");
    if (after)
        gd_finding_add_fix(f, "%s", after);
    const char *url = gd_kb_source_url(t, gd_kb_row_source(row));
    if (url)
        gd_finding_add_fix(f, "Reference: %s", url);
}
