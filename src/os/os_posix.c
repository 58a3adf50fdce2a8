/* POSIX implementation of src/os/os.h (Linux, and any POSIX system with glibc or musl). */
#define _GNU_SOURCE
#include "os/os.h"

#include "core/alloc.h"
#include "core/env.h"
#include "os/childfn.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
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

/* ---- directories held open ------------------------------------------------------------ */

struct gd_os_dirh {
    int fd;
    bool listed; /* its entries were read: a second listing starts over */
};

static int at_fd(const struct gd_os_dirh *at)
{
    return at ? at->fd : AT_FDCWD;
}

enum gd_status gd_os_dirh_open(const struct gd_os_dirh *at, const char *path, bool nofollow,
                               struct gd_os_dirh **out)
{
    *out = NULL;
    /* O_NONBLOCK and O_DIRECTORY: a FIFO or a device where a directory is expected fails at
     * once instead of hanging the probe. */
    int fd = openat(at_fd(at), path,
                    O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY |
                        (nofollow ? O_NOFOLLOW : 0));
    if (fd < 0)
        return from_errno(errno);
    struct gd_os_dirh *h = gd_malloc(sizeof *h);
    if (!h) {
        close(fd);
        return GD_ENOMEM;
    }
    h->fd = fd;
    h->listed = false;
    *out = h;
    return GD_OK;
}

void gd_os_dirh_close(struct gd_os_dirh *h)
{
    if (!h)
        return;
    close(h->fd);
    gd_free(h);
}

enum gd_status gd_os_lstat_at(const struct gd_os_dirh *at, const char *path, struct gd_os_stat *st)
{
    struct stat s;
    if (fstatat(at_fd(at), path, &s, AT_SYMLINK_NOFOLLOW) != 0)
        return from_errno(errno);
    fill_stat(&s, st);
    return GD_OK;
}

enum gd_status gd_os_lstat(const char *path, struct gd_os_stat *st)
{
    return gd_os_lstat_at(NULL, path, st);
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
    return gd_os_readlink_at(NULL, path, target);
}

enum gd_status gd_os_readlink_at(const struct gd_os_dirh *at, const char *path, char **target)
{
    char buf[LINK_MAX_BYTES + 1];
    *target = NULL;
    ssize_t n = readlinkat(at_fd(at), path, buf, sizeof buf);
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
    struct gd_os_stat st; /* as of the open: callers ask for it right after */
};

/* Open for reading and check the file with fstat unless `known` (the caller's lstat of a
 * regular file) stands for it. */
static enum gd_status open_read(int dirfd, const char *path, bool nofollow,
                                const struct gd_os_stat *known, struct gd_os_file **out)
{
    *out = NULL;
    /* O_NONBLOCK: a FIFO planted where a file is expected must not hang the probe. */
    int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (nofollow ? O_NOFOLLOW : 0);
    int fd = openat(dirfd, path, flags);
    if (fd < 0)
        return from_errno(errno);
    struct gd_os_stat st;
    if (known) {
        st = *known;
    } else {
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
        fill_stat(&s, &st);
    }
    struct gd_os_file *f = gd_malloc(sizeof *f);
    if (!f) {
        close(fd);
        return GD_ENOMEM;
    }
    f->fd = fd;
    f->st = st;
    *out = f;
    return GD_OK;
}

enum gd_status gd_os_open_read(const char *path, bool nofollow, struct gd_os_file **out)
{
    return open_read(AT_FDCWD, path, nofollow, NULL, out);
}

enum gd_status gd_os_open_read_at(const struct gd_os_dirh *at, const char *path, bool nofollow,
                                  const struct gd_os_stat *known, struct gd_os_file **out)
{
    /* The sysroot resolver lstat'ed the path a moment ago: an fstat per opened file was a
     * seventh of the system calls of a check of 100 environments. */
    return open_read(at_fd(at), path, nofollow, known && known->type == GD_FT_REG ? known : NULL,
                     out);
}

enum gd_status gd_os_open_read_known(const char *path, bool nofollow,
                                     const struct gd_os_stat *known, struct gd_os_file **out)
{
    return gd_os_open_read_at(NULL, path, nofollow, known, out);
}

enum gd_status gd_os_file_stat(struct gd_os_file *f, struct gd_os_stat *st)
{
    /* The open already asked (to refuse FIFOs and devices): no second fstat per file. */
    *st = f->st;
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
        /* A file with a size (not /proc's, which say 0 and come a page at a time) ends there:
         * asking again only to read the end cost a system call per small file. */
        if (total < n && f->st.size > 0 && offset + total >= f->st.size)
            break;
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

#ifdef __linux__
/* The kernel's own listing call, on a descriptor of our own: opendir() adds an fstat per
 * directory (a thousand in a check of 100 environments) and cannot read a directory held open
 * without a dup() of it. */
struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

struct gd_os_dir {
    int fd;
    bool own; /* opened here (by path): closed with it */
    size_t len, pos;
    bool end;
    _Alignas(8) char buf[32768];
};

static enum gd_status dir_on(int fd, bool own, struct gd_os_dir **out)
{
    struct gd_os_dir *d = gd_malloc(sizeof *d);
    if (!d) {
        if (own)
            close(fd);
        return GD_ENOMEM;
    }
    d->fd = fd;
    d->own = own;
    d->len = d->pos = 0;
    d->end = false;
    *out = d;
    return GD_OK;
}

enum gd_status gd_os_opendir(const char *path, struct gd_os_dir **out)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return from_errno(errno);
    return dir_on(fd, true, out);
}

enum gd_status gd_os_opendir_dirh(struct gd_os_dirh *h, struct gd_os_dir **out)
{
    *out = NULL;
    if (h->listed && lseek(h->fd, 0, SEEK_SET) != 0)
        return from_errno(errno);
    h->listed = true;
    return dir_on(h->fd, false, out);
}

/* The next entry, "." and ".." included; NULL at the end (GD_OK) or on an error. */
static const struct linux_dirent64 *next_entry(struct gd_os_dir *d, enum gd_status *st)
{
    *st = GD_OK;
    while (d->pos >= d->len) {
        if (d->end)
            return NULL;
        long n = syscall(SYS_getdents64, d->fd, d->buf, sizeof d->buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            *st = from_errno(errno);
            return NULL;
        }
        if (n == 0) {
            d->end = true;
            return NULL;
        }
        d->len = (size_t)n;
        d->pos = 0;
    }
    const struct linux_dirent64 *ent = (const struct linux_dirent64 *)(d->buf + d->pos);
    d->pos += ent->d_reclen;
    return ent;
}

static const struct linux_dirent64 *next_name(struct gd_os_dir *d, enum gd_status *st)
{
    for (;;) {
        const struct linux_dirent64 *ent = next_entry(d, st);
        if (!ent)
            return NULL;
        const char *n = ent->d_name;
        if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
            continue;
        return ent;
    }
}

enum gd_status gd_os_readdir(struct gd_os_dir *d, const char **name)
{
    enum gd_status st;
    const struct linux_dirent64 *ent = next_name(d, &st);
    if (!ent)
        return st != GD_OK ? st : GD_ENOENT;
    *name = ent->d_name;
    return GD_OK;
}

void gd_os_closedir(struct gd_os_dir *d)
{
    if (!d)
        return;
    if (d->own)
        close(d->fd);
    gd_free(d);
}
#else
struct gd_os_dir {
    DIR *dir;
};

static enum gd_status dir_on(DIR *dir, struct gd_os_dir **out)
{
    struct gd_os_dir *d = gd_malloc(sizeof *d);
    if (!d) {
        closedir(dir);
        return GD_ENOMEM;
    }
    d->dir = dir;
    *out = d;
    return GD_OK;
}

enum gd_status gd_os_opendir(const char *path, struct gd_os_dir **out)
{
    *out = NULL;
    DIR *dir = opendir(path);
    if (!dir)
        return from_errno(errno);
    return dir_on(dir, out);
}

enum gd_status gd_os_opendir_dirh(struct gd_os_dirh *h, struct gd_os_dir **out)
{
    *out = NULL;
    /* fdopendir takes the descriptor over: a copy of it, at the start of the directory. */
    int fd = dup(h->fd);
    if (fd < 0)
        return from_errno(errno);
    if (lseek(fd, 0, SEEK_SET) != 0) {
        int e = errno;
        close(fd);
        return from_errno(e);
    }
    DIR *dir = fdopendir(fd);
    if (!dir) {
        int e = errno;
        close(fd);
        return from_errno(e);
    }
    return dir_on(dir, out);
}

static const struct dirent *next_name(struct gd_os_dir *d, enum gd_status *st)
{
    *st = GD_OK;
    for (;;) {
        errno = 0;
        struct dirent *ent = readdir(d->dir);
        if (!ent) {
            if (errno)
                *st = from_errno(errno);
            return NULL;
        }
        if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
            continue;
        return ent;
    }
}

enum gd_status gd_os_readdir(struct gd_os_dir *d, const char **name)
{
    enum gd_status st;
    const struct dirent *ent = next_name(d, &st);
    if (!ent)
        return st != GD_OK ? st : GD_ENOENT;
    *name = ent->d_name;
    return GD_OK;
}

void gd_os_closedir(struct gd_os_dir *d)
{
    if (!d)
        return;
    closedir(d->dir);
    gd_free(d);
}
#endif

enum gd_status gd_os_readdir_type(struct gd_os_dir *d, const char **name, enum gd_file_type *type,
                                  bool *known)
{
    *type = GD_FT_OTHER;
    *known = false;
    enum gd_status st;
#ifdef __linux__
    const struct linux_dirent64 *ent = next_name(d, &st);
#else
    const struct dirent *ent = next_name(d, &st);
#endif
    if (!ent)
        return st != GD_OK ? st : GD_ENOENT;
    *name = ent->d_name;
    static const struct {
        unsigned char d_type;
        enum gd_file_type type;
    } types[] = { { DT_REG, GD_FT_REG },  { DT_DIR, GD_FT_DIR }, { DT_LNK, GD_FT_LNK },
                  { DT_CHR, GD_FT_CHR },  { DT_BLK, GD_FT_BLK }, { DT_FIFO, GD_FT_FIFO },
                  { DT_SOCK, GD_FT_SOCK } };
    unsigned char t = ent->d_type;
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
        if (t == types[i].d_type) {
            *type = types[i].type;
            *known = true;
        }
    }
    return GD_OK;
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

bool gd_os_names_ignore_case(void)
{
    return false;
}

enum gd_status gd_os_stored_name(const char *path, char **name)
{
    (void)path;
    *name = NULL;
    return GD_EUNSUPPORTED;
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

bool gd_os_path_is_absolute(const char *path)
{
    return path[0] == '/';
}

const char *gd_os_live_root(void)
{
    return "/";
}

enum gd_status gd_os_getcwd(char **out)
{
    *out = NULL;
    char buf[4096];
    if (!getcwd(buf, sizeof buf))
        return from_errno(errno);
    *out = gd_strdup(buf);
    return *out ? GD_OK : GD_ENOMEM;
}

/* ---- child processes ------------------------------------------------------------------------- */

struct gd_child_out {
    int fd;
};

void gd_os_child_write(struct gd_child_out *out, const char *line, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(out->fd, line + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        done += (size_t)w;
    }
}

/* One pipe the parent reads: a function's report, or a program's standard output or error. */
struct stream {
    int fd; /* read end, -1 once closed */
    char **data;
    size_t *len, cap;
    bool *truncated;
    bool out_of_memory; /* a byte could not be kept for want of memory, not for the cap */
    /* Told of each piece kept (gd_os_children_run_watched; standard output only), or NULL. */
    gd_child_watch_fn watch;
    void *user;
    size_t job;
};

struct running {
    pid_t pid;
    bool reaped;
    bool program; /* an exec()ed program, not a function */
    struct stream out, err;
    struct gd_child_result *res;
    size_t max;
    unsigned long long start;
};

static _Noreturn void child_main(gd_child_fn fn, void *arg, int fd)
{
    /* Its own process group, so a child that forks again is killed as a whole. */
    setpgid(0, 0);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
    }
    signal(SIGPIPE, SIG_IGN);
    /* The parent's handlers (a sanitizer's, an embedding program's) must not turn a vendor
     * library's crash into an orderly exit: the parent reports the signal itself. */
    static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP };
    for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
        signal(fatal[i], SIG_DFL);
    struct gd_child_out out = { fd };
    fn(arg, &out);
    /* _exit: no atexit handlers, no flushing of buffers inherited from the parent. */
    _exit(0);
}

char **gd_os_child_cmdline(int argc, char **argv, int *count)
{
    *count = argc;
    return argv;
}

/* Started again as this program (the parent here forks, but the entry point is the same on every
 * platform): the report goes to the standard output the parent gave, kept above 2 before
 * child_main puts /dev/null there. */
void gd_os_child_enter(const struct gd_child_def *def, void *arg)
{
    int fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (fd < 0)
        _exit(125);
    child_main(def->fn, arg, fd);
}

/* In the forked child of a program, up to exec: only async-signal-safe calls (the parent may
 * have threads). A failure is sent as errno on `status_fd`, which exec closes on success. */
static void exec_main(const struct gd_child_job *job, int out_fd, int err_fd, int status_fd)
{
    setpgid(0, 0);
    /* Above 2 first, so that putting /dev/null on 0 cannot close a pipe that sits there (a
     * parent started with its standard streams closed gets pipes on 0, 1 and 2). */
    out_fd = fcntl(out_fd, F_DUPFD_CLOEXEC, 3);
    err_fd = fcntl(err_fd, F_DUPFD_CLOEXEC, 3);
    int null = open("/dev/null", O_RDONLY);
    int e = 0;
    if (out_fd < 0 || err_fd < 0 || null < 0 || dup2(null, 0) < 0 || dup2(out_fd, 1) < 0 ||
        dup2(err_fd, 2) < 0)
        e = errno;
        /* Whatever else this process has open (an embedding program's files) is not the
         * program's business. */
#ifdef CLOSE_RANGE_CLOEXEC
    close_range(3, ~0U, CLOSE_RANGE_CLOEXEC); /* glibc 2.34, Linux 5.11; best effort */
#endif
    /* Caught signals revert to the default at exec, ignored ones stay ignored: a Python whose
     * SIGCHLD or SIGPIPE is ignored behaves unlike the one the user runs. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int sig = 1; sig < NSIG; sig++)
        sigaction(sig, &dfl, NULL); /* EINVAL for SIGKILL, SIGSTOP and libc's own: fine */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (!e) {
        execve(job->argv[0], (char *const *)job->argv, (char *const *)job->envp);
        e = errno;
    }
    while (write(status_fd, &e, sizeof e) < 0 && errno == EINTR)
        ;
    _exit(127);
}

static void append(struct stream *s, size_t max, const char *buf, size_t n)
{
    if (*s->len + n > max) {
        n = max - *s->len;
        *s->truncated = true;
    }
    if (n == 0)
        return;
    if (gd_grow((void **)s->data, &s->cap, *s->len + n + 1, 1) != 0) {
        *s->truncated = true;
        s->out_of_memory = true;
        return;
    }
    memcpy(*s->data + *s->len, buf, n);
    *s->len += n;
    (*s->data)[*s->len] = '\0';
    if (s->watch)
        s->watch(s->user, s->job, buf, n);
}

/* Read once from the pipe, closing it at its end; false when nothing more is there now. Past
 * the cap the bytes are read all the same and dropped, so that the writer never blocks. */
static bool read_stream(struct stream *s, size_t max)
{
    char buf[16384];
    ssize_t got = read(s->fd, buf, sizeof buf);
    if (got > 0) {
        append(s, max, buf, (size_t)got);
        return true;
    }
    if (got < 0 && errno == EINTR)
        return true;
    if (got == 0 || errno != EAGAIN) {
        close(s->fd);
        s->fd = -1;
    }
    return false;
}

/* The child is gone but its status cannot be had: an embedding program that ignores SIGCHLD
 * makes the kernel reap children at once (waitpid then fails with ECHILD). */
static void reap_unknown(struct running *r)
{
    r->reaped = true;
    r->res->elapsed_ns = gd_os_monotonic_ns() - r->start;
    if (r->res->end != GD_CHILD_TIMED_OUT) {
        r->res->end = GD_CHILD_EXITED;
        r->res->code = -1;
    }
}

static void reap(struct running *r, int status)
{
    r->reaped = true;
    r->res->elapsed_ns = gd_os_monotonic_ns() - r->start;
    if (r->res->end == GD_CHILD_TIMED_OUT)
        return;
    if (WIFSIGNALED(status)) {
        r->res->end = GD_CHILD_SIGNALED;
        r->res->code = WTERMSIG(status);
    } else {
        r->res->end = GD_CHILD_EXITED;
        r->res->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
}

static void wait_for(struct running *r)
{
    int status = 0;
    if (waitpid(r->pid, &status, 0) == r->pid)
        reap(r, status);
    else
        reap_unknown(r);
}

/* Has the child ended? Asked without reaping it, so that its pid, which is also its process
 * group's id, cannot be given to another process before the group is killed. */
static bool child_ended(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

static void close_stream(struct stream *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

/* What the child wrote is in the pipe by the time it ended: read it without waiting for an
 * end of file that a grandchild holding the write end would withhold, then close. */
static void drain(struct stream *s, size_t max)
{
    if (s->fd < 0)
        return;
    int flags = fcntl(s->fd, F_GETFL);
    if (flags >= 0)
        fcntl(s->fd, F_SETFL, flags | O_NONBLOCK);
    while (s->fd >= 0 && read_stream(s, max))
        ;
    close_stream(s);
}

/* Fork and exec a program; its output pipes go into `r`. GD_ECHILD when no pipe or process can
 * be had; a program that cannot be executed is a result (GD_CHILD_EXEC_FAILED), not a failure. */
static enum gd_status start_program(const struct gd_child_job *job, struct running *r)
{
    int out[2] = { -1, -1 }, err[2] = { -1, -1 }, status[2] = { -1, -1 };
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 || pipe2(status, O_CLOEXEC) != 0) {
        int fds[6] = { out[0], out[1], err[0], err[1], status[0], status[1] };
        for (size_t i = 0; i < 6; i++)
            if (fds[i] >= 0)
                close(fds[i]);
        return GD_ECHILD;
    }
    r->start = gd_os_monotonic_ns();
    pid_t pid = fork();
    if (pid == 0) {
        close(out[0]);
        close(err[0]);
        close(status[0]);
        exec_main(job, out[1], err[1], status[1]);
    }
    close(out[1]);
    close(err[1]);
    close(status[1]);
    if (pid < 0) {
        close(out[0]);
        close(err[0]);
        close(status[0]);
        return GD_ECHILD;
    }
    setpgid(pid, pid); /* also from the parent: no race with the child's own call */
    r->pid = pid;
    r->reaped = false;
    r->out.fd = out[0];
    r->err.fd = err[0];
    /* End of file once exec succeeded (the pipe is close-on-exec), errno when it failed. */
    int e = 0;
    ssize_t got;
    while ((got = read(status[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(status[0]);
    if (got == (ssize_t)sizeof e) {
        wait_for(r);
        close_stream(&r->out);
        close_stream(&r->err);
        r->res->end = GD_CHILD_EXEC_FAILED;
        r->res->code = e;
        char buf[sizeof r->res->exec_error];
        /* The GNU strerror_r (_GNU_SOURCE): it returns the text, in buf or a constant. */
        snprintf(r->res->exec_error, sizeof r->res->exec_error, "%s",
                 strerror_r(e, buf, sizeof buf));
    }
    return GD_OK;
}

static enum gd_status start_function(const struct gd_child_job *job, struct running *r)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return GD_ECHILD;
    r->start = gd_os_monotonic_ns();
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return GD_ECHILD;
    }
    if (pid == 0) {
        close(p[0]);
        child_main(job->def->fn, job->arg, p[1]);
    }
    setpgid(pid, pid); /* also from the parent: no race with the child's own call */
    close(p[1]);
    r->pid = pid;
    r->out.fd = p[0];
    r->reaped = false;
    return GD_OK;
}

/* The deadline passed: every child still there is marked and signalled. Returns whether any
 * got SIGTERM (and so a grace period before SIGKILL). */
static bool stop_all(struct running *run, size_t n)
{
    bool graceful = false;
    for (size_t i = 0; i < n; i++) {
        if (run[i].reaped)
            continue;
        run[i].res->end = GD_CHILD_TIMED_OUT;
        if (run[i].program) {
            kill(-run[i].pid, SIGTERM);
            graceful = true;
        } else {
            kill(-run[i].pid, SIGKILL);
            kill(run[i].pid, SIGKILL);
        }
    }
    return graceful;
}

static void kill_all(struct running *run, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!run[i].reaped) {
            kill(-run[i].pid, SIGKILL);
            kill(run[i].pid, SIGKILL);
            wait_for(&run[i]);
        }
        drain(&run[i].out, run[i].max);
        drain(&run[i].err, run[i].max);
    }
}

enum gd_status gd_os_children_run(const struct gd_child_job *jobs, size_t n, unsigned timeout_ms,
                                  size_t max_output, struct gd_child_result *results)
{
    return gd_os_children_run_watched(jobs, n, timeout_ms, max_output, results, NULL, NULL);
}

enum gd_status gd_os_children_run_watched(const struct gd_child_job *jobs, size_t n,
                                          unsigned timeout_ms, size_t max_output,
                                          struct gd_child_result *results, gd_child_watch_fn watch,
                                          void *user)
{
    struct running *run = gd_calloc(n ? n : 1, sizeof *run);
    struct pollfd *fds = gd_calloc(2 * n + 1, sizeof *fds);
    struct stream **polled = gd_calloc(2 * n + 1, sizeof *polled);
    if (!run || !fds || !polled) {
        gd_free(run);
        gd_free(fds);
        gd_free(polled);
        return GD_ENOMEM;
    }
    enum gd_status st = GD_OK;
    fflush(NULL); /* buffered output must not be written twice */
    /* Every slot is set before any child starts: when one cannot start, the later ones must
     * read as done (no pid 0 to wait for or kill, no descriptor 0 to poll). */
    for (size_t i = 0; i < n; i++) {
        memset(&results[i], 0, sizeof results[i]);
        struct running *r = &run[i];
        r->res = &results[i];
        r->max = max_output;
        r->reaped = true;
        r->program = jobs[i].argv != NULL;
        r->out = (struct stream){ .fd = -1,
                                  .data = &results[i].output,
                                  .len = &results[i].len,
                                  .truncated = &results[i].truncated,
                                  .watch = watch,
                                  .user = user,
                                  .job = i };
        r->err = (struct stream){ .fd = -1,
                                  .data = &results[i].errors,
                                  .len = &results[i].errors_len,
                                  .truncated = &results[i].errors_truncated };
    }
    for (size_t i = 0; i < n && st == GD_OK; i++)
        st = run[i].program ? start_program(&jobs[i], &run[i]) : start_function(&jobs[i], &run[i]);
    unsigned long long now = gd_os_monotonic_ns();
    unsigned long long deadline = now + (unsigned long long)timeout_ms * 1000000ULL;
    unsigned long long kill_at = 0;
    bool stopping = false;
    for (;;) {
        size_t nfds = 0;
        bool waiting = false;
        for (size_t i = 0; i < n; i++) {
            struct running *r = &run[i];
            if (!r->reaped && child_ended(r->pid)) {
                /* Its process group goes with it: a grandchild must neither keep the call
                 * waiting on the pipe until the deadline nor outlive the call. */
                kill(-r->pid, SIGKILL);
                wait_for(r);
                drain(&r->out, r->max);
                drain(&r->err, r->max);
            }
            struct stream *ss[2] = { &r->out, &r->err };
            for (size_t k = 0; k < 2; k++) {
                if (ss[k]->fd < 0)
                    continue;
                fds[nfds].fd = ss[k]->fd;
                fds[nfds].events = POLLIN;
                fds[nfds].revents = 0;
                polled[nfds++] = ss[k];
            }
            waiting |= !r->reaped || r->out.fd >= 0 || r->err.fd >= 0;
        }
        if (!waiting)
            break;
        now = gd_os_monotonic_ns();
        if (!stopping && now >= deadline) {
            stopping = true;
            kill_at = now + (stop_all(run, n) ? GD_CHILD_TERM_GRACE_MS * 1000000ULL : 0);
        }
        if (stopping && now >= kill_at) {
            kill_all(run, n);
            break;
        }
        /* Wake at least every 10 ms to reap children whose pipe a grandchild keeps open. */
        unsigned long long until = stopping ? kill_at : deadline;
        int wait_ms = (int)((until - now) / 1000000ULL) + 1;
        if (wait_ms > 10)
            wait_ms = 10;
        int pr = nfds ? poll(fds, nfds, wait_ms) : (usleep(1000), 0);
        if (pr < 0 && errno != EINTR)
            break;
        for (size_t k = 0; k < nfds && pr > 0; k++)
            if (fds[k].revents & (POLLIN | POLLHUP | POLLERR))
                read_stream(polled[k], max_output);
    }
    for (size_t i = 0; i < n; i++) {
        close_stream(&run[i].out);
        close_stream(&run[i].err);
        if (!results[i].output)
            results[i].output = gd_strdup("");
        if (!results[i].errors)
            results[i].errors = gd_strdup("");
        /* What a child said but could not be kept is not what it said: no result is handed
         * over as complete when memory ran out while reading it. */
        bool lost = run[i].out.out_of_memory || run[i].err.out_of_memory;
        if ((!results[i].output || !results[i].errors || lost) && st == GD_OK)
            st = GD_ENOMEM;
    }
    gd_free(polled);
    gd_free(fds);
    gd_free(run);
    return st;
}

void *gd_os_dlopen(const char *path, char *err, size_t size)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h && err && size) {
        const char *e = dlerror();
        snprintf(err, size, "%s", e ? e : "dlopen failed");
    }
    return h;
}

void *gd_os_dlsym(void *handle, const char *symbol)
{
    return dlsym(handle, symbol);
}

bool gd_os_dlpath(void *handle, char *buf, size_t size)
{
    struct link_map *map = NULL;
    if (!handle || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name ||
        !map->l_name[0])
        return false;
    snprintf(buf, size, "%s", map->l_name);
    return true;
}

void gd_os_setenv(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}
