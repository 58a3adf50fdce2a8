/*
 * ld.so.conf(5) as ldconfig reads it: one directory per line, '#' comments, and
 * "include PATTERN..." lines whose glob patterns are relative to the including file's
 * directory. "hwcap" lines (obsolete) are ignored.
 */
#ifndef GD_LOADER_LDCONF_H
#define GD_LOADER_LDCONF_H

#include "core/strlist.h"

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

struct gd_root;

/* Called with each directory or include pattern (NUL-terminated, borrowed for the call) and
 * its 1-based line. Return false to stop. */
typedef bool (*gd_ldconf_fn)(void *user, const char *text, size_t line);

/* Parse one file's text; never reads outside [data, data + len). GD_OK or GD_ENOMEM. */
enum gd_status gd_ldconf_parse(const char *data, size_t len, gd_ldconf_fn on_dir,
                               gd_ldconf_fn on_include, void *user);

/* Includes deeper than this are reported, not followed (a file that includes itself). */
#define GD_LDCONF_MAX_DEPTH 16
/* Files read in all: files that include each other (or a pattern that matches its own file
 * several times over) would otherwise be read a number of times exponential in the depth. */
#define GD_LDCONF_MAX_FILES 256
#define GD_LDCONF_MAX_DIRS  4096

struct gd_ldconf {
    struct gd_strlist dirs;     /* in ldconfig's order, duplicates and trailing '/' removed */
    struct gd_strlist files;    /* every configuration file read */
    struct gd_strlist problems; /* "...: includes nest deeper than 16", "cannot read ..." */
};

/* Read `path` (usually /etc/ld.so.conf) and its includes inside `root`. A missing main file
 * yields an empty result, not an error. */
enum gd_status gd_ldconf_read(struct gd_root *root, const char *path, struct gd_ldconf *out);
void gd_ldconf_free(struct gd_ldconf *conf);

#endif
