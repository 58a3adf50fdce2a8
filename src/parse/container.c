#include "parse/container.h"

#include "core/str.h"

#include <string.h>

const char *gd_cgroup_runtime(const char *data, size_t len)
{
    /* Most specific first: a Kubernetes pod's path also names its container runtime. */
    static const struct {
        const char *needle, *runtime;
    } hints[] = {
        { "kubepods", "kubernetes" }, { "libpod", "podman" },         { "docker", "docker" },
        { "crio", "cri-o" },          { "containerd", "containerd" }, { "lxc", "lxc" },
    };
    const char *cur = data, *end = data + len;
    struct gd_span line, id, rest;
    for (size_t h = 0; h < sizeof hints / sizeof *hints; h++) {
        cur = data;
        while (gd_next_line(&cur, end, &line)) {
            /* "hierarchy:controllers:path": only the path names the runtime. */
            if (!gd_span_split(line, ':', &id, &rest) || !gd_span_split(rest, ':', &id, &rest))
                continue;
            if (gd_span_find(rest, hints[h].needle))
                return hints[h].runtime;
        }
    }
    return NULL;
}

static bool next_field(struct gd_span *rest, struct gd_span *field)
{
    while (rest->n && rest->p[0] == ' ') {
        rest->p++;
        rest->n--;
    }
    if (!rest->n)
        return false;
    size_t i = 0;
    while (i < rest->n && rest->p[i] != ' ')
        i++;
    field->p = rest->p;
    field->n = i;
    rest->p += i;
    rest->n -= i;
    return true;
}

bool gd_mountinfo_root(const char *data, size_t len, struct gd_root_mount *out)
{
    bool found = false;
    const char *cur = data, *end = data + len;
    struct gd_span line;
    while (gd_next_line(&cur, end, &line)) {
        struct gd_span rest = line, f[5], sep, fstype, source;
        bool ok = true;
        for (int i = 0; i < 5 && ok; i++)
            ok = next_field(&rest, &f[i]);
        if (!ok || !gd_span_eq(f[4], "/"))
            continue;
        /* Optional fields end at a lone "-". */
        while ((ok = next_field(&rest, &sep)) && !gd_span_eq(sep, "-"))
            ;
        if (!ok || !next_field(&rest, &fstype) || !next_field(&rest, &source))
            continue;
        gd_span_copy(fstype, out->fstype, sizeof out->fstype);
        gd_span_copy(source, out->source, sizeof out->source);
        gd_span_copy(f[3], out->root, sizeof out->root);
        found = true;
    }
    return found;
}

bool gd_root_mount_is_whole_disk(const struct gd_root_mount *m)
{
    static const char *const disk_fs[] = { "ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", "jfs" };
    bool disk = false;
    for (size_t i = 0; i < sizeof disk_fs / sizeof *disk_fs; i++)
        if (strcmp(m->fstype, disk_fs[i]) == 0)
            disk = true;
    /* docker's devicemapper driver mounts /dev/mapper/docker-...; btrfs and zfs drivers mount a
     * subvolume, so the mount root is not "/". */
    return disk && strcmp(m->root, "/") == 0 && strncmp(m->source, "/dev/", 5) == 0 &&
           !strstr(m->source, "docker");
}
