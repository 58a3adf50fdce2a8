/*
 * Kernel module state: gd_proc_modules_has (/proc/modules), gd_modprobe_blacklists (modprobe.d)
 * and gd_cmdline_blacklists (/proc/cmdline) on the same bytes, for the modules gpudoctor asks
 * about. Invariants: a blacklist result names a line inside the input (0 for the command line)
 * and a NUL-terminated directive; no result means an all-zero record.
 */
#include "fuzz.h"

#include "parse/modules.h"

static const char *const modules[] = { "nouveau", "nvidia", "nvidia_uvm", "nvidia-drm" };

static void check_blacklist(const struct gd_blacklist *b, size_t max_line)
{
    FUZZ_CHECK(fuzz_terminated(b->how, sizeof b->how));
    if (b->blacklisted) {
        FUZZ_CHECK(b->line <= max_line);
        FUZZ_CHECK(b->how[0] != '\0');
    } else {
        FUZZ_CHECK(b->line == 0 && b->how[0] == '\0');
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t lines = 0;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (size && data[size - 1] != '\n')
        lines++;

    for (size_t m = 0; m < sizeof modules / sizeof *modules; m++) {
        (void)gd_proc_modules_has(text, size, modules[m]);

        struct gd_blacklist b;
        gd_modprobe_blacklists(text, size, modules[m], &b);
        check_blacklist(&b, lines);
        if (b.blacklisted)
            FUZZ_CHECK(b.line >= 1);

        gd_cmdline_blacklists(text, size, modules[m], &b);
        check_blacklist(&b, 0);
    }
    return 0;
}
