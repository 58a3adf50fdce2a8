/* The result behind the public struct gd_which, shared by src/api/which.c and its renderer. */
#ifndef GD_API_WHICH_IMPL_H
#define GD_API_WHICH_IMPL_H

#include "loader/loader.h"

#include <gpudoctor/which.h>

struct gd_which {
    bool tree;
    bool dlopen;
    char *name; /* the name asked for (name mode) */
    char *from; /* the object asked from, or NULL */
    char *root_dir;
    struct gd_root *root;
    struct gd_loader *loader;
    struct gd_load *load;
    const struct gd_edge *edge; /* name mode: the resolution (borrowed from load) */
    char *ld_library_path;      /* as set, or NULL */
    char glibc[32];
};

#endif
