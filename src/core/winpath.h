/*
 * Windows path text (an environment variable's value, a PATH entry, pyvenv.cfg's home) turned
 * into a path inside the inspected root: "C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.2"
 * -> "/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2" when the root is drive C:. The root
 * is one drive (a mounted C:, a wine prefix's drive_c, the drive gpudoctor.exe runs from), so a
 * path on another drive, a network (UNC) path or one relative to a current directory has no place
 * in it: the caller is told which, to say so in a fact. Pure: no I/O.
 *
 * Accepted: "X:\a\b", "X:/a/b", "\a\b" and "/a/b" (rooted on the current drive), the "\\?\X:\"
 * long-path prefix, surrounding double quotes (PATH entries are quoted when they hold ';').
 * Separators become '/', repeated ones one, "." components go and a trailing separator goes;
 * ".." stays for the root's resolver, which never lets it climb above the root. Windows' 8.3
 * short names (PROGRA~1) are not resolved: the tree has no record of them (GD_WINPATH_SHORT).
 */
#ifndef GD_CORE_WINPATH_H
#define GD_CORE_WINPATH_H

#include <stdbool.h>
#include <stddef.h>

enum gd_winpath_result {
    GD_WINPATH_OK,
    GD_WINPATH_EMPTY,       /* nothing but white space and quotes */
    GD_WINPATH_RELATIVE,    /* "bin", "X:bin": relative to a current directory */
    GD_WINPATH_OTHER_DRIVE, /* on a drive other than the root's */
    GD_WINPATH_UNC,         /* \\server\share, \\?\UNC\..., a device path */
    GD_WINPATH_SHORT,       /* holds an 8.3 short name (PROGRA~1): only Windows can resolve it */
    GD_WINPATH_TOO_LONG,    /* does not fit the output */
};

/* Convert `win` for a root that is drive `drive` ('A'..'Z', either case) into `out` (`size`
 * bytes; "/" at least). On GD_WINPATH_OK `out` holds the root path; otherwise `out` is "". */
enum gd_winpath_result gd_winpath_to_root(const char *win, char drive, char *out, size_t size);
/* Words for a result that is not OK ("on another drive than the inspected C:"), for a fact's
 * reason; `drive` is the root's. Static or in `buf`. */
const char *gd_winpath_why(enum gd_winpath_result r, char drive, char *buf, size_t size);
/* Whether `name` is ASCII-case-insensitively equal to `want` (Windows names: NTFS folds case). */
bool gd_winpath_name_eq(const char *name, const char *want);

#endif
