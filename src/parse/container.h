/*
 * Container runtime hints from /proc/1/cgroup (or /proc/self/cgroup), e.g.
 *   0::/system.slice/docker-3f2a....scope          (docker, systemd cgroup driver)
 *   12:devices:/docker/3f2a...                      (docker, cgroup v1)
 *   0::/kubepods/burstable/pod.../...               (Kubernetes)
 *   0::/machine.slice/libpod-...scope               (podman)
 * With cgroup namespaces (the default under cgroup v2) a container sees "0::/", so an absent
 * hint proves nothing; callers combine this with marker files.
 */
#ifndef GD_PARSE_CONTAINER_H
#define GD_PARSE_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>

/* The runtime named in the cgroup paths ("docker", "kubernetes", "podman", "containerd",
 * "cri-o", "lxc"), or NULL. The returned string is a constant. */
const char *gd_cgroup_runtime(const char *data, size_t len);

/* The mount of "/" from /proc/self/mountinfo (proc(5)): "ID PARENT MAJ:MIN ROOT MOUNTPOINT
 * OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS". The last mount on "/" wins. */
struct gd_root_mount {
    char fstype[32];
    char source[128];
    char root[128]; /* the part of the source filesystem mounted there */
};
bool gd_mountinfo_root(const char *data, size_t len, struct gd_root_mount *out);

/* True when "/" is a whole disk filesystem (ext4, xfs, btrfs... from /dev/, its own root, not a
 * docker device-mapper volume): the system runs on a disk of its own, a VM or a host, whatever
 * marker files an image left behind. */
bool gd_root_mount_is_whole_disk(const struct gd_root_mount *m);

#endif
