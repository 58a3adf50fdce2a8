/* POSIX implementation of src/os/os.h (Linux, and any POSIX system with glibc or musl). */
#define _GNU_SOURCE
#include "os/os.h"

#include "core/alloc.h"
#include "core/env.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define LINK_MAX_BYTES 4096

static enum gd_status from_errno(int e)
{
    switch (e) {
    case ENOENT:
        return GD_ENOENT;
    case EACCES:
    case EPERM:
        return GD_EACCES;
    case ELOOP:
        return GD_ELOOP;
    case ENOTDIR:
        return GD_ENOTDIR;
    case ENOMEM:
        return GD_ENOMEM;
    case ENAMETOOLONG:
        return GD_ELIMIT;
    default:
        return GD_EIO;
    }
}

static void fill_stat(const struct stat *s, struct gd_os_stat *st)
{
    memset(st, 0, sizeof *st);
    if (S_ISREG(s->st_mode))
        st->type = GD_FT_REG;
    else if (S_ISDIR(s->st_mode))
        st->type = GD_FT_DIR;
    else if (S_ISLNK(s->st_mode))
        st->type = GD_FT_LNK;
    else if (S_ISCHR(s->st_mode))
        st->type = GD_FT_CHR;
    else if (S_ISBLK(s->st_mode))
        st->type = GD_FT_BLK;
    else if (S_ISFIFO(s->st_mode))
        st->type = GD_FT_FIFO;
    else if (S_ISSOCK(s->st_mode))
        st->type = GD_FT_SOCK;
    else
        st->type = GD_FT_OTHER;
    st->mode = (unsigned)(s->st_mode & 07777);
    st->size = s->st_size > 0 ? (unsigned long long)s->st_size : 0;
    st->uid = (unsigned long)s->st_uid;
    st->gid = (unsigned long)s->st_gid;
    st->dev = (unsigned long long)s->st_dev;
    st->ino = (unsigned long long)s->st_ino;
    st->rdev_major = major(s->st_rdev);
    st->rdev_minor = minor(s->st_rdev);
}

enum gd_status gd_os_lstat(const char *path, struct gd_os_stat *st)
{
    struct stat s;
    if (lstat(path, &s) != 0)
        return from_errno(errno);
    fill_stat(&s, st);
    return GD_OK;
}

enum gd_status gd_os_stat(const char *path, struct gd_os_stat *st)
{
    struct stat s;
    if (stat(path, &s) != 0)
        return from_errno(errno);
    fill_stat(&s, st);
    return GD_OK;
}

enum gd_status gd_os_readlink(const char *path, char **target)
{
    char buf[LINK_MAX_BYTES + 1];
    *target = NULL;
    ssize_t n = readlink(path, buf, sizeof buf);
    /* EINVAL: the path is no symlink, a question asked wrongly rather than an I/O error. */
    if (n < 0)
        return errno == EINVAL ? GD_EINVAL : from_errno(errno);
    if ((size_t)n > LINK_MAX_BYTES)
        return GD_ELIMIT;
    *target = gd_strndup(buf, (size_t)n);
    return *target ? GD_OK : GD_ENOMEM;
}

struct gd_os_file {
    int fd;
};

enum gd_status gd_os_open_read(const char *path, bool nofollow, struct gd_os_file **out)
{
    *out = NULL;
    /* O_NONBLOCK: a FIFO planted where a file is expected must not hang the probe. */
    int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (nofollow ? O_NOFOLLOW : 0);
    int fd = open(path, flags);
    if (fd < 0)
        return from_errno(errno);
    struct stat s;
    if (fstat(fd, &s) != 0) {
        int e = errno;
        close(fd);
        return from_errno(e);
    }
    if (!S_ISREG(s.st_mode)) {
        close(fd);
        return GD_ENOTREG;
    }
    struct gd_os_file *f = gd_malloc(sizeof *f);
    if (!f) {
        close(fd);
        return GD_ENOMEM;
    }
    f->fd = fd;
    *out = f;
    return GD_OK;
}

enum gd_status gd_os_file_stat(struct gd_os_file *f, struct gd_os_stat *st)
{
    struct stat s;
    if (fstat(f->fd, &s) != 0)
        return from_errno(errno);
    fill_stat(&s, st);
    return GD_OK;
}

enum gd_status gd_os_pread(struct gd_os_file *f, void *buf, size_t n, unsigned long long offset,
                           size_t *got)
{
    size_t total = 0;
    *got = 0;
    while (total < n) {
        if (offset + total > (unsigned long long)LLONG_MAX)
            return GD_ELIMIT;
        ssize_t r = pread(f->fd, (char *)buf + total, n - total, (off_t)(offset + total));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return from_errno(errno);
        }
        if (r == 0)
            break;
        total += (size_t)r;
    }
    *got = total;
    return GD_OK;
}

void gd_os_close(struct gd_os_file *f)
{
    if (!f)
        return;
    close(f->fd);
    gd_free(f);
}

struct gd_os_dir {
    DIR *dir;
};

enum gd_status gd_os_opendir(const char *path, struct gd_os_dir **out)
{
    *out = NULL;
    DIR *dir = opendir(path);
    if (!dir)
        return from_errno(errno);
    struct gd_os_dir *d = gd_malloc(sizeof *d);
    if (!d) {
        closedir(dir);
        return GD_ENOMEM;
    }
    d->dir = dir;
    *out = d;
    return GD_OK;
}

enum gd_status gd_os_readdir(struct gd_os_dir *d, const char **name)
{
    for (;;) {
        errno = 0;
        struct dirent *ent = readdir(d->dir);
        if (!ent)
            return errno ? from_errno(errno) : GD_ENOENT;
        if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
            continue;
        *name = ent->d_name;
        return GD_OK;
    }
}

void gd_os_closedir(struct gd_os_dir *d)
{
    if (!d)
        return;
    closedir(d->dir);
    gd_free(d);
}

enum gd_status gd_os_access(const char *path, bool read, bool write)
{
    int mode = (read ? R_OK : 0) | (write ? W_OK : 0);
    /* eaccess: the effective ids decide what this process may open, as for a CUDA program. */
    if (eaccess(path, mode ? mode : F_OK) != 0)
        return from_errno(errno);
    return GD_OK;
}

static void copy_field(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src);
}

enum gd_status gd_os_uname(struct gd_os_uname *u)
{
    struct utsname n;
    if (uname(&n) != 0)
        return from_errno(errno);
    copy_field(u->sysname, sizeof u->sysname, n.sysname);
    copy_field(u->release, sizeof u->release, n.release);
    copy_field(u->version, sizeof u->version, n.version);
    copy_field(u->machine, sizeof u->machine, n.machine);
    return GD_OK;
}

enum gd_status gd_os_libc_version(char *buf, size_t size)
{
#ifdef _CS_GNU_LIBC_VERSION
    char tmp[64];
    size_t n = confstr(_CS_GNU_LIBC_VERSION, tmp, sizeof tmp);
    if (n == 0 || n > sizeof tmp)
        return GD_EUNSUPPORTED;
    snprintf(buf, size, "%s", tmp);
    return GD_OK;
#else
    (void)buf;
    (void)size;
    return GD_EUNSUPPORTED;
#endif
}

enum gd_status gd_os_environ(struct gd_env *env)
{
    for (char **e = environ; e && *e; e++) {
        enum gd_status st = gd_env_put(env, *e);
        if (st == GD_ENOMEM)
            return st;
        /* An entry without '=' is not a variable any program could read; skip it. */
    }
    return GD_OK;
}

bool gd_os_isatty(int fd)
{
    return isatty(fd) == 1;
}

unsigned long long gd_os_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

enum gd_status gd_os_realpath(const char *path, char **out)
{
    *out = NULL;
    char *p = realpath(path, NULL);
    if (!p)
        return from_errno(errno);
    *out = gd_strdup(p);
    free(p);
    return *out ? GD_OK : GD_ENOMEM;
}
