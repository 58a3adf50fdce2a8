/* Shell-style wildcard matching of one path component, as glob(3) does for ld.so.conf's
 * "include" lines: '*' any run, '?' one character, '[...]' a class (with '!' or '^' to negate
 * and ranges a-z). A leading '.' is matched only by a literal '.' (glob's default). */
#ifndef GD_CORE_GLOB_H
#define GD_CORE_GLOB_H

#include <stdbool.h>

bool gd_glob_match(const char *pattern, const char *name);
/* True when the string holds a wildcard character. */
bool gd_glob_has_magic(const char *s);

#endif
