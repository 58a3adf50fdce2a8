/*
 * The glibc version of a tree that is not the running machine, without running anything:
 *   from a file name   "libc-2.31.so", "ld-2.31.so" (glibc < 2.34 installs versioned names)
 *   from libc.so.6     its banner "GNU C Library (Debian GLIBC 2.36-9+deb12u4) stable release
 *                      version 2.36." (glibc >= 2.34 names the file libc.so.6 only)
 */
#ifndef GD_PARSE_LIBC_H
#define GD_PARSE_LIBC_H

#include <stdbool.h>
#include <stddef.h>

/* "libc-2.31.so" -> "2.31". False when the name is not a versioned libc or ld.so. */
bool gd_libc_version_from_name(const char *name, char *buf, size_t size);
/* Find the release banner in the bytes of libc.so.6 and copy its version. */
bool gd_libc_version_from_banner(const char *data, size_t len, char *buf, size_t size);

#endif
