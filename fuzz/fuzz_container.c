/*
 * Container hints: gd_cgroup_runtime (/proc/1/cgroup) and gd_mountinfo_root
 * (/proc/self/mountinfo) on the bytes. Invariants: the runtime is NULL or one of the documented
 * names; the root mount's fields are NUL-terminated in their buffers and untouched when no "/"
 * mount is found.
 */
#include "fuzz.h"

#include "parse/container.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    static const char *const runtimes[] = { "docker",     "kubernetes", "podman",
                                            "containerd", "cri-o",      "lxc" };
    const char *rt = gd_cgroup_runtime(text, size);
    if (rt) {
        bool known = false;
        for (size_t i = 0; i < sizeof runtimes / sizeof *runtimes; i++)
            known = known || strcmp(rt, runtimes[i]) == 0;
        FUZZ_CHECK(known);
    }

    struct gd_root_mount m, blank;
    memset(&m, 0x5a, sizeof m);
    memcpy(&blank, &m, sizeof m);
    if (gd_mountinfo_root(text, size, &m)) {
        FUZZ_CHECK(fuzz_terminated(m.fstype, sizeof m.fstype));
        FUZZ_CHECK(fuzz_terminated(m.source, sizeof m.source));
        FUZZ_CHECK(fuzz_terminated(m.root, sizeof m.root));
        (void)gd_root_mount_is_whole_disk(&m);
    } else {
        FUZZ_CHECK(memcmp(&m, &blank, sizeof m) == 0);
    }
    return 0;
}
