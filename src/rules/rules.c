#include "rules/rules.h"

#include "kb/kb.h"

#include <string.h>

/* Which machines a rule judges: the rules of a Linux machine's driver, device files,
 * containers, WSL and ELF libraries have nothing to say of a Windows machine (host.os.id
 * "windows"), whose probes record none of those facts; a rule of Windows' own says nothing of
 * Linux. */
enum rule_os { ANY, LINUX, WINDOWS };

static const struct {
    gd_rule_fn fn;
    enum rule_os os;
} all_rules[] = {
    { gd_rule_driver, LINUX },
    { gd_rule_win_driver, WINDOWS },
    { gd_rule_devices, LINUX },
    { gd_rule_container, LINUX },
    { gd_rule_wsl, LINUX },
    { gd_rule_env, ANY },
    { gd_rule_libs, LINUX },
    { gd_rule_frameworks, ANY },
    { gd_rule_fwdriver, ANY },
    { gd_rule_fwversions, ANY },
    { gd_rule_windows, ANY },
    { gd_rule_win_cuda, WINDOWS },
    { gd_rule_keras, ANY },
    { gd_rule_imports, ANY },
    { gd_rule_root, ANY },
    { gd_rule_kb, ANY },
    { gd_rule_cuda, ANY },
    { gd_rule_gpu_health, ANY },
    { gd_rule_visible, ANY },
    { gd_rule_vendor_calls, ANY },
    { gd_rule_windows_dlls, WINDOWS },
};

bool gd_rules_windows(const struct gd_report *r)
{
    const char *os = gd_rv(r, "host", "os.id");
    return os && strcmp(os, "windows") == 0;
}

void gd_rules_run(struct gd_report *report, const struct gd_kb *kb)
{
    enum rule_os os = gd_rules_windows(report) ? WINDOWS : LINUX;
    for (size_t i = 0; i < sizeof all_rules / sizeof *all_rules; i++)
        if (all_rules[i].os == ANY || all_rules[i].os == os)
            all_rules[i].fn(report, kb);
}

static const gd_rule_fn test_rules[] = { gd_rule_cuda, gd_rule_vendor_calls, gd_rule_smoke };

void gd_rules_run_test(struct gd_report *report, const struct gd_kb *kb)
{
    for (size_t i = 0; i < sizeof test_rules / sizeof *test_rules; i++)
        test_rules[i](report, kb);
}

bool gd_fact_int_of(const struct gd_fact *fact, long long *value)
{
    if (!fact || fact->state != GD_FACT_KNOWN || fact->type != GD_VALUE_INT)
        return false;
    *value = fact->int_value;
    return true;
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

void gd_rules_kb_env(const struct gd_report *r, struct gd_kb_env *env,
                     const struct gd_fact **driver)
{
    memset(env, 0, sizeof *env);
    const struct gd_fact *d = gd_rf(r, "driver", "kernel_module.version");
    if (!gd_fact_known_value(d))
        d = gd_rf(r, "driver", "libcuda.version");
    /* Windows: the version NVIDIA's numbering reads from nvcuda.dll's file version. */
    if (!gd_fact_known_value(d))
        d = gd_rf(r, "driver", "nvcuda.version");
    if (gd_fact_known_value(d) && gd_version_parse(gd_fact_known_value(d), &env->driver) == GD_OK)
        env->has_driver = true;
    else
        d = NULL;
    if (driver)
        *driver = d;
    const char *os = gd_rv(r, "host", "os.id");
    env->os = os && strcmp(os, "windows") == 0 ? GD_KB_OS_WINDOWS : GD_KB_OS_LINUX;
    /* The GPUs alone, not every entity of the report (thousands for 100 environments; five
     * rules ask). */
    size_t n;
    struct gd_entity *const *gpus = gd_report_kind(r, "gpu", &n);
    for (size_t i = 0; i < n; i++) {
        struct gd_version cc;
        const char *v = gd_fact_known_value(gd_entity_fact(gpus[i], "compute_capability"));
        if (v && gd_version_parse(v, &cc) == GD_OK)
            gd_kb_env_add_cc(env, &cc);
    }
}

const char *gd_rules_row_url(const struct gd_kb *kb, const struct gd_kb_row *row)
{
    return row ? gd_kb_source_url(gd_kb_row_table(kb, row), gd_kb_row_source(row)) : NULL;
}

void gd_fix_reference(struct gd_finding *f, const struct gd_kb *kb, const struct gd_kb_row *row)
{
    const char *url = gd_rules_row_url(kb, row);
    if (!url || !f)
        return;
    /* Rows of one source are cited once. */
    for (size_t i = 0; i < gd_finding_fix_count(f); i++) {
        const char *fix = gd_finding_fix_at(f, i);
        if (strncmp(fix, "Reference: ", 11) == 0 && strcmp(fix + 11, url) == 0)
            return;
    }
    gd_finding_add_fix(f, "Reference: %s", url);
}

static const struct gd_kb_row *row_for_os(const struct gd_kb_table *t, const char *os, size_t n)
{
    size_t rows = gd_kb_row_count(t);
    for (size_t i = 0; i < rows; i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *id = gd_kb_str(row, "os_id");
        if (id && strlen(id) == n && strncmp(id, os, n) == 0)
            return row;
    }
    return NULL;
}

/* os-release(5): ID, else the words of ID_LIKE in their order ("from closest to least
 * closely related"), else the "*" row. */
static const struct gd_kb_row *install_row(const struct gd_report *r, const struct gd_kb_table *t)
{
    const char *id = gd_rv(r, "host", "os.id");
    const char *like = gd_rv(r, "host", "os.id_like");
    const struct gd_kb_row *row = id ? row_for_os(t, id, strlen(id)) : NULL;
    for (const char *p = like; !row && p && *p;) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (n)
            row = row_for_os(t, p, n);
        p += n;
    }
    return row ? row : row_for_os(t, "*", 1);
}

const char *gd_fix_driver_log(const struct gd_report *r)
{
    return gd_rules_windows(r) ? "the System log in Event Viewer (source nvlddmkm)"
                               : "`sudo dmesg | grep -i -e NVRM -e Xid`";
}

const char *gd_fix_gpu_reset(const struct gd_report *r)
{
    return gd_rules_windows(r) ? "`nvidia-smi -r -i <gpu>` in an administrator prompt"
                               : "`sudo nvidia-smi -r -i <gpu>`";
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
