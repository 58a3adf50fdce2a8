/*
 * The few operating-system services gpudoctor needs, behind one interface. Only src/os/ may call
 * a POSIX- or Win32-only API; everything else goes through here, so that a Win32 implementation
 * slots in beside os_posix.c without touching probes, rules or renderers.
 *
 * Paths here are host paths. Code that inspects a machine uses src/sysroot, which confines every
 * path to the inspected root and calls these functions.
 */
#ifndef GD_OS_OS_H
#define GD_OS_OS_H

#include "core/attr.h"
#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

struct gd_env;

enum gd_file_type {
    GD_FT_REG,
    GD_FT_DIR,
    GD_FT_LNK,
    GD_FT_CHR,
    GD_FT_BLK,
    GD_FT_FIFO,
    GD_FT_SOCK,
    GD_FT_OTHER,
};

struct gd_os_stat {
    enum gd_file_type type;
    unsigned mode; /* permission bits, 07777 */
    unsigned long long size;
    unsigned long uid, gid;
    unsigned long long dev, ino;
    unsigned rdev_major, rdev_minor;
};

enum gd_status gd_os_lstat(const char *path, struct gd_os_stat *st);
enum gd_status gd_os_stat(const char *path, struct gd_os_stat *st);
/* The link's target text as stored, into new memory (gd_free). GD_ELIMIT past 4096 bytes,
 * GD_EINVAL when the path is not a symlink. */
enum gd_status gd_os_readlink(const char *path, char **target);

struct gd_os_file;
/* Open a regular file for reading without blocking on FIFOs and devices. With `nofollow` a
 * symlink as the last component fails with GD_ELOOP. GD_ENOTREG for anything but a file. */
enum gd_status gd_os_open_read(const char *path, bool nofollow, struct gd_os_file **out);
/* The same, for a path whose lstat the caller holds (`known`, a regular file, not a link):
 * no second stat of the open file. A file swapped for a FIFO, a device or a directory since
 * then is read as such (without blocking: reads of a FIFO or directory fail), not refused.
 * With `known` NULL or not a regular file, exactly gd_os_open_read. */
enum gd_status gd_os_open_read_known(const char *path, bool nofollow,
                                     const struct gd_os_stat *known, struct gd_os_file **out);
/* The file's status as of its opening. */
enum gd_status gd_os_file_stat(struct gd_os_file *f, struct gd_os_stat *st);
/* Read up to `n` bytes at `offset`; `*got` < n only at the end of the file. */
enum gd_status gd_os_pread(struct gd_os_file *f, void *buf, size_t n, unsigned long long offset,
                           size_t *got);
void gd_os_close(struct gd_os_file *f);
/* Read a whole regular file of this machine of at most `cap` bytes (a configuration file named
 * on the command line). On GD_OK `*data` is new memory with `*len` bytes and a NUL after them.
 * GD_ELIMIT past the cap. Built on the functions above: the same on every platform. */
enum gd_status gd_os_read_file(const char *path, size_t cap, char **data, size_t *len);

struct gd_os_dir;
enum gd_status gd_os_opendir(const char *path, struct gd_os_dir **out);
/* Next entry name (borrowed until the next call), skipping "." and "..": GD_OK, or GD_ENOENT
 * at the end. */
enum gd_status gd_os_readdir(struct gd_os_dir *d, const char **name);
/* The same with the entry's type when the directory says it without a stat (d_type); *known is
 * false when it does not (then *type is GD_FT_OTHER). */
enum gd_status gd_os_readdir_type(struct gd_os_dir *d, const char **name, enum gd_file_type *type,
                                  bool *known);
void gd_os_closedir(struct gd_os_dir *d);

/* ---- paths relative to a directory held open ----------------------------------------------
 * A directory held open stands for its host path in the calls below, so that the system walks
 * only the rest of a path: under a root deep in the host's tree, every file of a site directory
 * a dozen components down was walked from "/" again by each call. `at` NULL: `path` is a host
 * path, as for the calls above. Where the system has no such calls (Win32) a handle keeps the
 * directory's path and the calls join it with `path`. */
struct gd_os_dirh;
/* Hold the directory `path` (relative to `at`) open; with `nofollow` a symlink as its last
 * component fails with GD_ELOOP. GD_ENOTDIR when it is not a directory. `*out` is new. */
enum gd_status gd_os_dirh_open(const struct gd_os_dirh *at, const char *path, bool nofollow,
                               struct gd_os_dirh **out);
void gd_os_dirh_close(struct gd_os_dirh *h);
enum gd_status gd_os_lstat_at(const struct gd_os_dirh *at, const char *path, struct gd_os_stat *st);
enum gd_status gd_os_readlink_at(const struct gd_os_dirh *at, const char *path, char **target);
/* gd_os_open_read_known for a path relative to `at`. */
enum gd_status gd_os_open_read_at(const struct gd_os_dirh *at, const char *path, bool nofollow,
                                  const struct gd_os_stat *known, struct gd_os_file **out);
/* The entries of the directory held open, as gd_os_opendir gives them (gd_os_readdir_type,
 * gd_os_closedir); the handle stays open, and may be listed again. */
enum gd_status gd_os_opendir_dirh(struct gd_os_dirh *h, struct gd_os_dir **out);

/* Whether this process's user may read and/or write the path (kernel permission check). */
enum gd_status gd_os_access(const char *path, bool read, bool write);

struct gd_os_uname {
    char sysname[65], release[65], version[257], machine[65];
};
enum gd_status gd_os_uname(struct gd_os_uname *u);
/* The C library this process runs on: "glibc 2.36"; GD_EUNSUPPORTED elsewhere. */
enum gd_status gd_os_libc_version(char *buf, size_t size);
/* Copy this process's environment into `env`. */
enum gd_status gd_os_environ(struct gd_env *env);
bool gd_os_isatty(int fd);
/* Whether this platform's file systems match names ignoring case (Windows: NTFS as Win32 opens
 * it; POSIX: false, even where a mount folds case). */
bool gd_os_names_ignore_case(void);
/* The name of the last component of `path` as the file system stores it, into new memory
 * (gd_free): on Windows "C:/windows" opens "C:/Windows", and this says "Windows". POSIX:
 * GD_EUNSUPPORTED (a name is stored as it is asked). GD_ENOENT when there is no such entry. */
enum gd_status gd_os_stored_name(const char *path, char **name);
/* Monotonic clock in nanoseconds, for timing. */
unsigned long long gd_os_monotonic_ns(void);
/* Whether `path` is absolute by this platform's rules: "/x" on POSIX; on Windows also "C:/x",
 * "C:\\x" and "//server/share" (a live root hands such a path to the system as it is). */
bool gd_os_path_is_absolute(const char *path);
/* The directory that is this machine as a whole (what gd_root_new("/") opens): "/" on POSIX; on
 * Windows the root of the system drive ("C:/", the drive of GetSystemWindowsDirectoryW), where
 * Windows, Program Files and the users' profiles are, whatever the current drive is. */
const char *gd_os_live_root(void);
/* This process's current directory (new memory). */
enum gd_status gd_os_getcwd(char **out);
/* The canonical absolute host path of an existing directory (new memory). */
enum gd_status gd_os_realpath(const char *path, char **out);

/* ---- child processes with a deadline ----------------------------------------------------------
 * Every call into a vendor library runs in a child: a crash, an abort, a hang or an exit there
 * ends the child, never gpudoctor. The child reports through a pipe with gd_child_send(); the
 * parent gets everything sent and how the child ended. A child may also be another program (a
 * Python interpreter asked to import a framework): its standard output and error are collected
 * instead.
 *
 * A function runs in a fork of this process on POSIX. Windows has no fork: there the child is
 * this program (the running module) started again with the function's name and its argument as
 * text on its command line ("--gd-child NAME VALUE..."), which gd_os_child_serve, called first
 * in main(), recognises: it rebuilds the argument and runs the function there, with its report
 * on the pipe as on POSIX. So a function a child runs is described once, with its name and how
 * its argument becomes text and back (struct gd_child_def), and a program that runs function
 * children lists them for gd_os_child_serve. */

struct gd_child_out;
typedef void (*gd_child_fn)(void *arg, struct gd_child_out *out);

/* A function child's argument as text: up to GD_CHILD_ARGS_MAX values, each a string or none.
 * Strings added are borrowed (they must outlive the run); numbers are written into `num`. */
#define GD_CHILD_ARGS_MAX 8
struct gd_child_args {
    size_t n;
    const char *v[GD_CHILD_ARGS_MAX]; /* NULL: no value */
    char num[GD_CHILD_ARGS_MAX][24];
};
/* Add a string (NULL: none) or a number. More than GD_CHILD_ARGS_MAX values is a bug of the
 * packing function (asserted). */
void gd_child_args_str(struct gd_child_args *a, const char *s);
void gd_child_args_int(struct gd_child_args *a, long long v);
/* Value `i` (NULL when none or past the end); as a whole decimal number (false when it is not
 * one or not there). */
const char *gd_child_args_at(const struct gd_child_args *a, size_t i);
bool gd_child_args_get_int(const struct gd_child_args *a, size_t i, long long *v);

/* A function a child can run. `pack` writes `arg` as values (NULL: the function takes no
 * argument, and gets NULL); `unpack` rebuilds it from them into `arg_size` zeroed bytes, its
 * pointers into the values' strings (they live as long as the child), false when the values do
 * not make one. */
struct gd_child_def {
    const char *name; /* unique among a program's functions, no spaces: "live.cuda" */
    gd_child_fn fn;
    void (*pack)(const void *arg, struct gd_child_args *out);
    bool (*unpack)(const struct gd_child_args *in, void *arg);
    size_t arg_size;
};

/* The first word of a function child's command line (after the program). */
#define GD_CHILD_FLAG "--gd-child"

/* Call first in main() of a program that runs function children, with the functions it may run
 * (`defs`, borrowed for the life of the process). When this process is such a child
 * (argv[1] is GD_CHILD_FLAG), it runs the named function with its argument and exits: 0 when the
 * function returned, whatever the function decided, the exit status or exception of a crash;
 * 125 (with the reason on standard error) when the command line names no function of `defs` or
 * its values make no argument. Otherwise it returns, and children of `defs` may be started (on
 * Windows nothing else can be: a function no program serves is GD_EUNSUPPORTED there). On POSIX
 * the parent forks instead, but the entry point works all the same, and is tested there. */
void gd_os_child_serve(int argc, char **argv, const struct gd_child_def *const *defs, size_t n);

/* In the child: send "KEY VALUE\n" to the parent (VALUE printf-formatted; newlines in it are
 * replaced by spaces). */
void gd_child_send(struct gd_child_out *out, const char *key, const char *fmt, ...) GD_PRINTF(3, 4);

enum gd_child_end {
    GD_CHILD_EXITED,      /* `code` is the exit status */
    GD_CHILD_SIGNALED,    /* `code` is the signal (SIGSEGV, SIGABRT, ...) */
    GD_CHILD_TIMED_OUT,   /* killed at the deadline */
    GD_CHILD_EXEC_FAILED, /* a program that could not be executed: `code` is the system's error
                           * number, `exec_error` says it in words */
};

struct gd_child_result {
    enum gd_child_end end;
    int code;
    /* What the child sent (a function) or wrote to its standard output (a program),
     * NUL-terminated (new memory), never NULL on GD_OK. */
    char *output;
    size_t len;
    bool truncated; /* there was more than max_output */
    /* A program's standard error, likewise (empty for a function, whose stderr is /dev/null;
     * on Windows, where the child is this program again, what it said when it could not start
     * the function). */
    char *errors;
    size_t errors_len;
    bool errors_truncated;
    char exec_error[128]; /* GD_CHILD_EXEC_FAILED: "No such file or directory" */
    unsigned long long elapsed_ns;
};

/* A program killed at its deadline gets SIGTERM first, and SIGKILL this long after. */
#define GD_CHILD_TERM_GRACE_MS 500

/* What a child runs: def->fn(arg) in a forked copy of this process (its standard output and
 * error go to /dev/null; on Windows in this program started again, see above), or, when `argv`
 * is set, the program argv[0] (a path, not searched on PATH) with
 * the arguments argv (NULL-terminated) and exactly the environment `envp` (NULL-terminated
 * "NAME=VALUE" strings). A program starts with standard input on /dev/null, every signal at its
 * default disposition and none blocked, in its own process group; its standard output and error
 * are read into the result (past max_output each, the rest is read and dropped, so that the
 * program never blocks on a full pipe). At the deadline a program's group gets SIGTERM and, if
 * it is still there GD_CHILD_TERM_GRACE_MS later, SIGKILL; a function's gets SIGKILL at once
 * (a forked copy would run this process's own SIGTERM handler). */
struct gd_child_job {
    const struct gd_child_def *def;
    void *arg;
    const char *const *argv;
    const char *const *envp;
};

/* Run def->fn(arg) in a new process and wait at most `timeout_ms`. GD_OK whenever the child
 * ran, however it ended; GD_ECHILD when it could not be started; GD_EUNSUPPORTED on Windows for
 * a function this program does not serve (gd_os_child_serve), with the reason in exec_error. An
 * exit status of -1 means the status could not be read (the caller ignores SIGCHLD). Free the
 * result with gd_child_result_free. */
enum gd_status gd_os_child_run(const struct gd_child_def *def, void *arg, unsigned timeout_ms,
                               size_t max_output, struct gd_child_result *result);

/* Start several children at once and wait for all (each with its own deadline), so that slow
 * ones overlap. `results` has `n` entries. GD_ECHILD when one could not be started (no process
 * or pipe to be had; a program that cannot be executed is GD_CHILD_EXEC_FAILED in its result,
 * not a failure of the call); those started before it have still been waited for and their
 * results are filled in. GD_ENOMEM when memory ran out, also while reading a child's output
 * (its result is then incomplete, and can still be freed). */
enum gd_status gd_os_children_run(const struct gd_child_job *jobs, size_t n, unsigned timeout_ms,
                                  size_t max_output, struct gd_child_result *results);
/* As gd_os_children_run, and `watch(user, job, data, len)` is called in the parent with each
 * piece of `output` (a function's report, a program's standard output; never its standard
 * error) as it arrives and is kept, within max_output (pieces do not follow line boundaries),
 * so a caller can show progress while a child still runs. `watch` may be NULL. */
typedef void (*gd_child_watch_fn)(void *user, size_t job, const char *data, size_t len);
enum gd_status gd_os_children_run_watched(const struct gd_child_job *jobs, size_t n,
                                          unsigned timeout_ms, size_t max_output,
                                          struct gd_child_result *results, gd_child_watch_fn watch,
                                          void *user);
void gd_child_result_free(struct gd_child_result *result);
/* "SIGSEGV", "SIGABRT", ... or "signal N" (constant or written into buf). */
const char *gd_os_signal_name(int sig, char *buf, size_t size);

/* ---- dynamic loading (only ever in a child) ----------------------------------------------------
 */

/* dlopen(path, RTLD_NOW | RTLD_LOCAL); NULL with the loader's message in `err`. */
void *gd_os_dlopen(const char *path, char *err, size_t size);
void *gd_os_dlsym(void *handle, const char *symbol);
/* The path of the file the loader mapped for `handle` (dlinfo RTLD_DI_LINKMAP), copied into
 * `buf`; false when it cannot tell. */
bool gd_os_dlpath(void *handle, char *buf, size_t size);
/* Set (or, with a NULL value, remove) a variable of this process's environment. Only in a child
 * before it loads a vendor library: the library reads it there (CUDA_VISIBLE_DEVICES at cuInit),
 * and the parent's environment stays as it was. */
void gd_os_setenv(const char *name, const char *value);

#endif
