/*
 * Kernel module state from text the kernel and modprobe read:
 *   /proc/modules        "nvidia_uvm 1400832 0 - Live 0x0000000000000000 (POE)" per line
 *   modprobe.d(5) files  "blacklist nouveau", "install nouveau /bin/false",
 *                        "options nouveau modeset=0" (lines may continue with '\')
 *   the kernel command line: "modprobe.blacklist=nouveau,foo", "module_blacklist=nouveau",
 *                        "rd.driver.blacklist=nouveau", "nouveau.modeset=0"
 */
#ifndef GD_PARSE_MODULES_H
#define GD_PARSE_MODULES_H

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

/* True when /proc/modules lists `module` (its name field, exactly). */
bool gd_proc_modules_has(const char *data, size_t len, const char *module);

struct gd_blacklist {
    bool blacklisted;
    size_t line;  /* 1-based line (modprobe.d) or 0 (command line) */
    char how[96]; /* the directive that does it, e.g. "blacklist nouveau" */
};

/* Scan a modprobe.d file for a directive that keeps `module` from loading or initialising:
 * "blacklist M", "install M /bin/false" (or /bin/true, or /usr/bin/...), "options M modeset=0"
 * (what NVIDIA's installer writes for nouveau). */
void gd_modprobe_blacklists(const char *data, size_t len, const char *module,
                            struct gd_blacklist *out);
/* The same for the kernel command line (/proc/cmdline). */
void gd_cmdline_blacklists(const char *data, size_t len, const char *module,
                           struct gd_blacklist *out);

#endif
