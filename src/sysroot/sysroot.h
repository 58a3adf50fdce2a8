/*
 * All file access of the probes goes through a root: "/" for the live machine, or a directory
 * holding an unpacked container image or a mounted disk, inspected as if it were "/".
 *
 * Under a foreign root, paths are resolved component by component the way the kernel would if
 * the root were "/": absolute symlinks restart at the root, ".." stops at it, so nothing can
 * escape. The live root is left to the kernel, which behaves the same and is faster.
 *
 * What goes wrong on the way (a symlink loop, a link that climbs above the root, an unreadable
 * file, a file larger than the reader accepts, a FIFO where a file should be) is returned as a
 * status to the caller *and* remembered as an anomaly, which the root probe turns into facts, so
 * no probe has to report them itself. Nothing found under a root is ever executed or loaded.
 */
#ifndef GD_SYSROOT_SYSROOT_H
#define GD_SYSROOT_SYSROOT_H

#include "os/os.h"

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

/* Linux's MAXSYMLINKS: the kernel gives up with ELOOP after 40 links in one resolution. */
#define GD_ROOT_MAX_LINKS 40
#define GD_ROOT_PATH_MAX  4096
/* Directories with more entries than this are reported, not listed (hostile trees). */
#define GD_ROOT_DIR_MAX 100000
/* Anomalies kept per root; later ones are counted, not stored. */
#define GD_ROOT_ANOMALY_MAX 64

enum gd_anomaly_kind {
    GD_ANOMALY_LOOP,        /* too many symbolic links */
    GD_ANOMALY_ESCAPE,      /* a symlink climbs above the root; resolved inside it */
    GD_ANOMALY_UNREADABLE,  /* permission denied or an I/O error */
    GD_ANOMALY_TOO_LARGE,   /* larger than the reader's cap */
    GD_ANOMALY_NOT_REGULAR, /* a device, FIFO, socket or directory where a file was expected */
};

struct gd_anomaly {
    enum gd_anomaly_kind kind;
    char *path;   /* inside the root */
    char *detail; /* e.g. "/usr/lib/libcuda.so.1 -> ../../../../lib/libcuda.so" */
};

struct gd_root;

/* A root at host directory `dir` ("/" is the live machine). GD_ENOENT or GD_ENOTDIR when it is
 * not an existing directory. On GD_OK `*out` is new. */
enum gd_status gd_root_new(const char *dir, struct gd_root **out);
void gd_root_free(struct gd_root *root);
/* A root remembers what it has seen (which paths are directories, what stat and lstat said,
 * where links point, what directories hold): a check is a snapshot, and a hundred environments
 * ask about the same directories thousands of times. A caller that changes the tree while
 * holding the root (a test) makes it forget. */
void gd_root_forget(struct gd_root *root);

/* True when the root is the running machine as a whole (live facts such as uname and /dev
 * access make sense only then): "/", or on Windows the system drive's root (gd_os_live_root). */
bool gd_root_is_live(const struct gd_root *root);
/* The root's canonical host directory ("/" for the live machine; "C:/" on Windows). Borrowed. */
const char *gd_root_dir(const struct gd_root *root);

/* Canonical path inside the root of `path`, following symlinks (the last one only when
 * `follow_last`). On GD_OK `*out` is new memory (gd_free). */
enum gd_status gd_root_resolve(struct gd_root *root, const char *path, bool follow_last,
                               char **out);
/* The host path for a path inside the root, without resolving anything (for messages and for
 * handing a file to a tool that runs on the live machine). New memory. */
char *gd_root_host_path(const struct gd_root *root, const char *path);

enum gd_status gd_root_stat(struct gd_root *root, const char *path, struct gd_os_stat *st);
enum gd_status gd_root_lstat(struct gd_root *root, const char *path, struct gd_os_stat *st);
bool gd_root_exists(struct gd_root *root, const char *path);
bool gd_root_is_dir(struct gd_root *root, const char *path);
/* The target text of the symlink at `path` (its last component is not followed). New memory. */
enum gd_status gd_root_readlink(struct gd_root *root, const char *path, char **target);

/* Read a whole regular file of at most `cap` bytes. On GD_OK `*data` is new memory (gd_free)
 * with `*len` bytes and a NUL after them. GD_ELIMIT when the file is larger than `cap`,
 * GD_ENOTREG when it is not a regular file. */
enum gd_status gd_root_read_file(struct gd_root *root, const char *path, size_t cap, char **data,
                                 size_t *len);
/* Read the first `max` bytes of a regular file (all of it when shorter): for large headers
 * whose macros sit near the top. Same statuses as gd_root_read_file but never GD_ELIMIT. */
enum gd_status gd_root_read_head(struct gd_root *root, const char *path, size_t max, char **data,
                                 size_t *len);
/* Open a regular file for random access (ELF readers). `*out` is new; gd_os_close() it. */
enum gd_status gd_root_open(struct gd_root *root, const char *path, struct gd_os_file **out);

struct gd_names {
    char **names; /* sorted; all in `block`; free with gd_names_free */
    size_t count;
    char *block;
};
/* The entries of a directory, sorted by name, without "." and "..". */
enum gd_status gd_root_list(struct gd_root *root, const char *dir, struct gd_names *out);
/* The name of the last component of `path` as the file system stores it (gd_os_stored_name),
 * into new memory: GD_EUNSUPPORTED where names are stored as they are asked (POSIX). */
enum gd_status gd_root_stored_name(struct gd_root *root, const char *path, char **name);
void gd_names_free(struct gd_names *names);

/* Whether this process may read/write the path: only for the live root (GD_EUNSUPPORTED
 * otherwise, since an image's permissions say nothing about who will run it). */
enum gd_status gd_root_access(struct gd_root *root, const char *path, bool read, bool write);

size_t gd_root_anomaly_count(const struct gd_root *root);
const struct gd_anomaly *gd_root_anomaly_at(const struct gd_root *root, size_t i);
/* Anomalies seen but not stored because GD_ROOT_ANOMALY_MAX was reached (one met again after
 * others may be counted again: dropped ones are not remembered). */
size_t gd_root_anomalies_dropped(const struct gd_root *root);
const char *gd_anomaly_kind_name(enum gd_anomaly_kind kind);

/* True once any call on this root ran out of memory, an anomaly note included. Callers read
 * statuses one by one and may take a failed read for a missing file; this tells at the end that
 * the picture of the tree is incomplete and must not be judged. */
bool gd_root_out_of_memory(const struct gd_root *root);

#endif
