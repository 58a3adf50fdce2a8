/* Container hints: runtimes named in /proc/1/cgroup, and the mount of "/" in mountinfo. */
#include "parse/container.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static const struct {
    const char *data;
    const char *runtime; /* NULL: none named */
} cgroup_cases[] = {
    /* docker, cgroup v1 (cgroupfs driver) and v2 (systemd driver). */
    { "12:devices:/docker/3f2a9c1e8b7d4f00\n11:memory:/docker/3f2a9c1e8b7d4f00\n"
      "1:name=systemd:/docker/3f2a9c1e8b7d4f00\n",
      "docker" },
    { "0::/system.slice/docker-3f2a9c1e8b7d4f00.scope\n", "docker" },
    /* Kubernetes wins over the runtime its pod path also names. */
    { "12:cpuset:/kubepods/burstable/pod5f1c/3f2a9c1e8b7d\n", "kubernetes" },
    { "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod5f1c.slice/"
      "cri-containerd-3f2a9c1e8b7d.scope\n",
      "kubernetes" },
    { "0::/kubepods/besteffort/pod5f1c/docker-3f2a.scope\n", "kubernetes" },
    { "0::/kubepods.slice/kubepods-pod5f1c.slice/crio-3f2a.scope\n", "kubernetes" },
    /* podman (libpod), rootful and rootless. */
    { "0::/machine.slice/libpod-3f2a9c1e8b7d.scope/container\n", "podman" },
    { "0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-3f2a.scope\n", "podman" },
    /* containerd without Kubernetes (nerdctl, ctr), CRI-O, LXC. */
    { "0::/system.slice/cri-containerd-3f2a9c1e8b7d.scope\n", "containerd" },
    { "12:pids:/containerd/default/3f2a\n", "containerd" },
    { "0::/machine.slice/crio-3f2a9c1e8b7d.scope\n", "cri-o" },
    { "0::/lxc.payload.mybox\n", "lxc" },
    { "12:devices:/lxc/mybox\n", "lxc" },
    /* Hosts and namespaced cgroups name nothing. */
    { "0::/init.scope\n", NULL },
    { "0::/\n", NULL },
    { "12:devices:/\n11:memory:/user.slice\n", NULL },
    { "", NULL },
    /* Only the path counts: a hierarchy or controller called docker is not a container. */
    { "1:name=docker:/\n", NULL },
    { "docker\nkubepods\n", NULL },
    { "0:docker\n", NULL },
};

static void test_cgroup(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cgroup_cases / sizeof *cgroup_cases; i++) {
        const char *data = cgroup_cases[i].data;
        const char *want = cgroup_cases[i].runtime;
        const char *got = gd_cgroup_runtime(data, strlen(data));
        if ((got == NULL) != (want == NULL) || (got && strcmp(got, want) != 0))
            fail_msg("case %zu: \"%s\", want \"%s\"", i, got ? got : "(none)",
                     want ? want : "(none)");
    }
    /* Nothing past `len` is read. */
    static const char cut[] = "0::/system.slice/docker-3f2a.scope\n";
    assert_null(gd_cgroup_runtime(cut, strlen("0::/system.slice/dock")));
}

struct mount_case {
    const char *data;
    bool found;
    const char *fstype, *source, *root;
    bool whole_disk;
};

static const struct mount_case mount_cases[] = {
    /* A docker container: overlay. */
    { "1234 1200 0:123 / / rw,relatime master:1 - overlay overlay "
      "rw,lowerdir=/var/lib/docker/overlay2/l/A:/var/lib/docker/overlay2/l/B,upperdir=/u,workdir=/"
      "w\n"
      "1235 1234 0:125 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n",
      true, "overlay", "overlay", "/", false },
    /* A host or VM: ext4 and xfs on a disk, with and without optional fields. */
    { "22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro\n", true,
      "ext4", "/dev/nvme0n1p2", "/", true },
    { "22 1 8:1 / / rw,relatime - xfs /dev/sda1 rw,attr2,inode64\n", true, "xfs", "/dev/sda1", "/",
      true },
    { "25 1 8:3 / / rw shared:1 master:2 propagate_from:3 unbindable - btrfs /dev/sda3 rw\n", true,
      "btrfs", "/dev/sda3", "/", true },
    /* A subvolume or a bind mount of a directory is not the disk's own root. */
    { "25 1 0:23 /@ / rw,relatime shared:1 - btrfs /dev/sda2 rw,subvol=/@\n", true, "btrfs",
      "/dev/sda2", "/@", false },
    { "36 35 98:0 /var/lib/docker/volumes/x / rw - ext4 /dev/sda1 rw\n", true, "ext4", "/dev/sda1",
      "/var/lib/docker/volumes/x", false },
    /* docker's devicemapper storage driver, zfs, tmpfs: not a disk of its own. */
    { "40 30 253:5 / / rw - ext4 /dev/mapper/docker-253:0-1234-abcd rw\n", true, "ext4",
      "/dev/mapper/docker-253:0-1234-abcd", "/", false },
    { "30 1 0:40 / / rw shared:1 - zfs rpool/ROOT/ubuntu rw,xattr\n", true, "zfs",
      "rpool/ROOT/ubuntu", "/", false },
    { "30 1 0:40 / / rw - tmpfs tmpfs rw\n", true, "tmpfs", "tmpfs", "/", false },
    { "30 1 8:1 / / rw - ext4 UUID=1234 rw\n", true, "ext4", "UUID=1234", "/", false },
    /* The last mount on "/" wins (a container's overlay over the image's ext4). */
    { "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n23 22 0:50 / / rw - overlay overlay rw\n", true,
      "overlay", "overlay", "/", false },
    /* Broken lines are skipped, other mount points ignored. */
    { "22 1 8:1 / / rw shared:1 ext4 /dev/sda1 rw\n", false, NULL, NULL, NULL, false },
    { "22 1 8:1 / / rw - ext4\n", false, NULL, NULL, NULL, false },
    { "22 1 8:1 /\n", false, NULL, NULL, NULL, false },
    { "22 1 8:1 / /home rw - ext4 /dev/sda1 rw\n", false, NULL, NULL, NULL, false },
    { "", false, NULL, NULL, NULL, false },
    { "22 1 8:1 / / rw - ext4 /dev/sda1 rw\ngarbage\n22 1 8:1 / / rw\n", true, "ext4", "/dev/sda1",
      "/", true },
};

static void test_mountinfo(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof mount_cases / sizeof *mount_cases; i++) {
        const struct mount_case *c = &mount_cases[i];
        struct gd_root_mount m;
        memset(&m, 0, sizeof m);
        bool found = gd_mountinfo_root(c->data, strlen(c->data), &m);
        if (found != c->found)
            fail_msg("case %zu: found %d", i, found);
        if (!found)
            continue;
        if (strcmp(m.fstype, c->fstype) != 0 || strcmp(m.source, c->source) != 0 ||
            strcmp(m.root, c->root) != 0)
            fail_msg("case %zu: %s %s %s", i, m.fstype, m.source, m.root);
        if (gd_root_mount_is_whole_disk(&m) != c->whole_disk)
            fail_msg("case %zu: whole disk %d", i, !c->whole_disk);
    }
}

/* Overlong fields are cut to the struct's sizes, never past them. */
static void test_mountinfo_long_fields(void **state)
{
    (void)state;
    char line[1024];
    char source[300];
    memset(source, 's', sizeof source - 1);
    source[0] = '/';
    source[sizeof source - 1] = '\0';
    snprintf(line, sizeof line, "1 0 8:1 / / rw - averyveryveryverylongfilesystemtypename %s rw\n",
             source);
    struct gd_root_mount m;
    assert_true(gd_mountinfo_root(line, strlen(line), &m));
    assert_int_equal(strlen(m.fstype), sizeof m.fstype - 1);
    assert_int_equal(strlen(m.source), sizeof m.source - 1);
    assert_false(gd_root_mount_is_whole_disk(&m));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cgroup),
        cmocka_unit_test(test_mountinfo),
        cmocka_unit_test(test_mountinfo_long_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
