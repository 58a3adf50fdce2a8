/* Shell-style path patterns expanded inside a root, the way glob(3) expands them: every
 * component may hold '*', '?' or '[...]'; results come sorted, component by component. */
#ifndef GD_SYSROOT_GLOB_H
#define GD_SYSROOT_GLOB_H

#include "core/strlist.h"

#include <gpudoctor/gpudoctor.h>

struct gd_root;

/* Append the existing paths matching the absolute `pattern` to `out`, at most `max` of them
 * (GD_ELIMIT when more match; those found so far are kept). Unreadable directories are
 * skipped. GD_OK or GD_ENOMEM. */
enum gd_status gd_root_glob(struct gd_root *root, const char *pattern, size_t max,
                            struct gd_strlist *out);

#endif
