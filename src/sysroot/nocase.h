/*
 * Names on a Windows tree, looked up as Windows looks them up: NTFS keeps the case a name was
 * written with and matches any. A mounted Windows disk (ntfs-3g), an unpacked image or a wine
 * prefix read from Linux is case-sensitive, and "C:\windows\system32" names the directory that
 * the tree spells "Windows/System32". On Windows the file system folds case itself and finds
 * any spelling; the name found is then asked for as the disk stores it (gd_root_stored_name), so
 * that a report reads the same natively and from Linux.
 */
#ifndef GD_SYSROOT_NOCASE_H
#define GD_SYSROOT_NOCASE_H

#include "sysroot/sysroot.h"

/* `path` (absolute, inside the root) with each component matched ignoring ASCII case: the exact
 * name when it exists, else the entry of the directory whose name folds to it (the first in
 * sorted order when several do, as a case-sensitive tree may hold). On GD_OK `*out` is new
 * memory (gd_free). GD_ENOENT when a component has no match, GD_ENOTDIR when one that must be a
 * directory is not, GD_ENOMEM, or the root's status for a component it could not look at. */
enum gd_status gd_root_find_nocase(struct gd_root *root, const char *path, char **out);

#endif
