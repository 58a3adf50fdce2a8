/* Kernel module state: /proc/modules, modprobe.d(5) directives and the kernel command line. */
#include "parse/modules.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static const char proc_modules[] =
    "nvidia_uvm 1400832 0 - Live 0x0000000000000000 (POE)\n"
    "nvidia_drm 77824 2 - Live 0x0000000000000000 (POE)\n"
    "nvidia_modeset 1306624 3 nvidia_drm, Live 0x0000000000000000 (POE)\n"
    "nvidia 56717312 165 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (POE)\n"
    "drm_kms_helper 200704 1 nvidia_drm,nouveau_fake, Live 0x0000000000000000\n"
    "video 73728 1 nvidia_modeset, Live 0x0000000000000000";

static void test_proc_modules(void **state)
{
    (void)state;
    static const struct {
        const char *module;
        bool loaded;
    } cases[] = {
        { "nvidia", true },         { "nvidia_uvm", true },    { "nvidia-uvm", true },
        { "nvidia_modeset", true }, { "nvidia-drm", true },    { "video", true },
        { "nouveau", false },       { "nouveau_fake", false }, /* only named as a user */
        { "nvidia_", false },       { "nvidi", false },        { "nvidia_peermem", false },
        { "drm", false },           { "Live", false },         { "", false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bool got = gd_proc_modules_has(proc_modules, sizeof proc_modules - 1, cases[i].module);
        if (got != cases[i].loaded)
            fail_msg("\"%s\": loaded %d", cases[i].module, got);
    }
    assert_false(gd_proc_modules_has("", 0, "nvidia"));
    /* Nothing past `len` is read: the data ends inside "nvidia_uvm". */
    assert_false(gd_proc_modules_has(proc_modules, 6, "nvidia_uvm"));
    assert_true(gd_proc_modules_has(proc_modules, 6, "nvidia"));
}

struct bl_case {
    const char *module;
    const char *data;
    bool blacklisted;
    size_t line;
    const char *how;
};

static const struct bl_case modprobe_cases[] = {
    { "nouveau", "blacklist nouveau\n", true, 1, "blacklist nouveau" },
    { "nouveau", "# NVIDIA\n\nblacklist nouveau\noptions nouveau modeset=0\n", true, 3,
      "blacklist nouveau" },
    { "nouveau", "  blacklist \t nouveau  \r\n", true, 1, "blacklist \t nouveau" },
    { "nouveau", "blacklist nouveau", true, 1, "blacklist nouveau" },
    { "nouveau", "install nouveau /bin/false\n", true, 1, "install nouveau /bin/false" },
    { "nouveau", "install nouveau /usr/bin/true\n", true, 1, "install nouveau /usr/bin/true" },
    { "nouveau", "install nouveau false\n", true, 1, "install nouveau false" },
    { "nouveau", "options nouveau modeset=0\n", true, 1, "options nouveau modeset=0" },
    { "nouveau", "options nouveau debug=1 modeset=0 config=x\n", true, 1,
      "options nouveau debug=1 modeset=0 config=x" },
    /* modprobe treats '-' and '_' in module names as the same character. */
    { "nvidia_drm", "options nvidia-drm modeset=0\n", true, 1, "options nvidia-drm modeset=0" },
    { "nvidia-drm", "blacklist nvidia_drm\n", true, 1, "blacklist nvidia_drm" },
    { "nvidia_drm", "install nvidia-drm /bin/true\n", true, 1, "install nvidia-drm /bin/true" },
    /* A trailing backslash joins the next line to the directive (modprobe.d(5)). */
    { "nouveau", "options nouveau \\\n    modeset=0\n", true, 1, "options nouveau     modeset=0" },
    { "nouveau", "install nouveau \\\n /bin/false\n", true, 1, "install nouveau  /bin/false" },
    { "nouveau", "blacklist \\\nnouveau\n", true, 1, "blacklist nouveau" },
    { "nouveau", "options nvidia NVreg_A=1 \\\n  NVreg_B=2 \\\n  NVreg_C=3\nblacklist nouveau\n",
      true, 4, "blacklist nouveau" },
    { "nouveau", "options nouveau modeset=0 \\", true, 1, "options nouveau modeset=0" },
    /* Near misses. */
    { "nouveau", "", false, 0, "" },
    { "nouveau", "#blacklist nouveau\n", false, 0, "" },
    { "nouveau", "# blacklist nouveau\n", false, 0, "" },
    { "nouveau", "blacklist nouveau_fb\n", false, 0, "" },
    { "nouveau", "blacklist nvidia\n", false, 0, "" },
    { "nouveau", "blacklistnouveau\n", false, 0, "" },
    { "nouveau", "blacklist\n", false, 0, "" },
    { "nouveau", "alias nouveau off\n", false, 0, "" },
    { "nouveau", "install nouveau /sbin/modprobe --ignore-install nouveau\n", false, 0, "" },
    { "nouveau", "install nouveau\n", false, 0, "" },
    { "nouveau", "install nouveau /bin/falsehood\n", false, 0, "" },
    { "nouveau", "options nouveau modeset=1\n", false, 0, "" },
    { "nouveau", "options nouveau nomodeset=0\n", false, 0, "" },
    { "nouveau", "options nvidia modeset=0\n", false, 0, "" },
    /* A comment's trailing backslash swallows the next line into the comment. */
    { "nouveau", "# note \\\nblacklist nouveau\n", false, 0, "" },
    { "nouveau", "remove nouveau /bin/false\n", false, 0, "" },
};

static void check(const struct bl_case *c, const struct gd_blacklist *bl, const char *what,
                  size_t i)
{
    if (bl->blacklisted != c->blacklisted)
        fail_msg("%s case %zu (%s): blacklisted %d", what, i, c->module, bl->blacklisted);
    if (bl->line != c->line)
        fail_msg("%s case %zu: line %zu, want %zu", what, i, bl->line, c->line);
    if (strcmp(bl->how, c->how) != 0)
        fail_msg("%s case %zu: how \"%s\", want \"%s\"", what, i, bl->how, c->how);
}

static void test_modprobe(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof modprobe_cases / sizeof *modprobe_cases; i++) {
        const struct bl_case *c = &modprobe_cases[i];
        struct gd_blacklist bl;
        memset(&bl, 'x', sizeof bl);
        gd_modprobe_blacklists(c->data, strlen(c->data), c->module, &bl);
        check(c, &bl, "modprobe.d", i);
    }
}

static const struct bl_case cmdline_cases[] = {
    { "nouveau",
      "BOOT_IMAGE=/boot/vmlinuz-6.1.0-18-amd64 root=UUID=1234 ro quiet nouveau.modeset=0\n", true,
      0, "nouveau.modeset=0" },
    { "nouveau", "modprobe.blacklist=nouveau", true, 0, "modprobe.blacklist=nouveau" },
    { "nouveau", "ro modprobe.blacklist=foo,nouveau,bar splash", true, 0,
      "modprobe.blacklist=foo,nouveau,bar" },
    { "nouveau", "module_blacklist=nouveau quiet", true, 0, "module_blacklist=nouveau" },
    { "nouveau", "rd.driver.blacklist=nouveau\n", true, 0, "rd.driver.blacklist=nouveau" },
    { "nvidia_drm", "modprobe.blacklist=nvidia-drm", true, 0, "modprobe.blacklist=nvidia-drm" },
    /* Parameter names on the command line treat '-' and '_' alike, like module names. */
    { "nvidia_drm", "quiet nvidia-drm.modeset=0", true, 0, "nvidia-drm.modeset=0" },
    { "nouveau", "quiet splash", false, 0, "" },
    { "nouveau", "", false, 0, "" },
    { "nouveau", "nouveau.modeset=1", false, 0, "" },
    { "nouveau", "xnouveau.modeset=0", false, 0, "" },
    { "nouveau", "nouveau.modeset=0x", false, 0, "" },
    { "nouveau", "modprobe.blacklist=", false, 0, "" },
    { "nouveau", "modprobe.blacklist=nouveau_fb,nouveaux", false, 0, "" },
    { "nouveau", "rd.driver.blacklist=nouveau_fb", false, 0, "" },
    { "nouveau", "blacklist=nouveau", false, 0, "" },
};

static void test_cmdline(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cmdline_cases / sizeof *cmdline_cases; i++) {
        const struct bl_case *c = &cmdline_cases[i];
        struct gd_blacklist bl;
        memset(&bl, 'x', sizeof bl);
        gd_cmdline_blacklists(c->data, strlen(c->data), c->module, &bl);
        check(c, &bl, "cmdline", i);
    }
    /* Nothing past `len`: "nouveau.modeset=0" cut to "nouveau.modeset=". */
    struct gd_blacklist bl;
    gd_cmdline_blacklists("nouveau.modeset=0", 16, "nouveau", &bl);
    assert_false(bl.blacklisted);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proc_modules),
        cmocka_unit_test(test_modprobe),
        cmocka_unit_test(test_cmdline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
