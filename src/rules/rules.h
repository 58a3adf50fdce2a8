/*
 * Rules judge: each reads the report's facts (and the knowledge base) and adds findings. A rule
 * does no I/O and keeps no state, so a test drives it with a hand-built report. Every finding id
 * a rule can emit is documented in docs/findings.md (a test checks that).
 */
#ifndef GD_RULES_RULES_H
#define GD_RULES_RULES_H

#include "core/report.h"
#include "kb/pick.h"

#include <stdbool.h>

struct gd_kb;

typedef void (*gd_rule_fn)(struct gd_report *report, const struct gd_kb *kb);

/* Run every rule, in the order of the table in rules.c. */
void gd_rules_run(struct gd_report *report, const struct gd_kb *kb);

void gd_rule_driver(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_devices(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_container(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_wsl(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_env(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_root(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_kb(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_libs(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_frameworks(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_keras(struct gd_report *report, const struct gd_kb *kb);
/* --import: what the frameworks said when imported in a child. */
void gd_rule_imports(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_cuda(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_gpu_health(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_visible(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_vendor_calls(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_smoke(struct gd_report *report, const struct gd_kb *kb);

/* The rules of `gpudoctor test`: the driver's and the vendor calls' findings, and the smoke
 * tests' (rules.c). */
void gd_rules_run_test(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_fwdriver(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_fwversions(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_windows(struct gd_report *report, const struct gd_kb *kb);
/* Windows: a framework's DLL found only where Python 3.8+ no longer looks (windll.c). */
void gd_rule_windows_dlls(struct gd_report *report, const struct gd_kb *kb);
/* Windows only (gd_rules_run skips them elsewhere): the driver's DLLs, and CUDA, cuDNN and
 * TensorFlow's DLLs (src/rules/windows.c). */
void gd_rule_win_driver(struct gd_report *report, const struct gd_kb *kb);
void gd_rule_win_cuda(struct gd_report *report, const struct gd_kb *kb);
/* Whether the report is of a Windows machine (host.os.id "windows"). */
bool gd_rules_windows(const struct gd_report *r);

/* ---- helpers shared by the rules ---- */

/* Shorthand for gd_report_fact / gd_report_value. */
const struct gd_fact *gd_rf(const struct gd_report *r, const char *entity, const char *name);
const char *gd_rv(const struct gd_report *r, const char *entity, const char *name);

/* The value of a known integer fact; false otherwise. */
bool gd_fact_int_of(const struct gd_fact *fact, long long *value);

/* The machine context most fixes depend on. */
struct gd_machine {
    bool wsl;           /* WSL detected */
    bool container;     /* inside a container */
    bool module_loaded; /* the NVIDIA kernel module is loaded (from /proc, /sys) */
    bool userspace;     /* libcuda.so.1 found in a driver library directory */
    const char *os_id;  /* "ubuntu", "debian", ... or NULL */
    const char *module_version;
};
void gd_machine_of(const struct gd_report *r, struct gd_machine *m);

/* The machine as the compatibility tables see it (src/kb/pick.h): the driver version (the
 * running kernel module's, else the user-space libcuda's; `*driver` (may be NULL) receives the
 * fact it came from, NULL without one), the operating system (`host.os.id` "windows" is native
 * Windows, anything else Linux) and the compute capability of every GPU. */
void gd_rules_kb_env(const struct gd_report *r, struct gd_kb_env *env,
                     const struct gd_fact **driver);

/* "Reference: <url>" for the row's source, when the row and its source are known. */
void gd_fix_reference(struct gd_finding *f, const struct gd_kb *kb, const struct gd_kb_row *row);
/* The URL of a row's source, or NULL (borrowed from the KB). */
const char *gd_rules_row_url(const struct gd_kb *kb, const struct gd_kb_row *row);

/* Add the steps to install the NVIDIA driver on this OS, from the driver_install table. */
void gd_fix_install_driver(struct gd_finding *f, const struct gd_report *r, const struct gd_kb *kb);
/* Words of a fix step that differ between Linux and Windows: where the driver's own errors are
 * read (dmesg's NVRM and Xid lines; Event Viewer's System log, source nvlddmkm), and the command
 * that resets a GPU (as root; in an administrator prompt). */
const char *gd_fix_driver_log(const struct gd_report *r);
const char *gd_fix_gpu_reset(const struct gd_report *r);

#endif
