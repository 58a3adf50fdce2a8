/* The result behind the public struct gd_which, shared by src/api/which.c and its renderer. */
#ifndef GD_API_WHICH_IMPL_H
#define GD_API_WHICH_IMPL_H

#include "core/strlist.h"
#include "loader/loader.h"
#include "loader/winload.h"

#include <gpudoctor/which.h>

/* What a Windows which holds (src/api/which_win.c). */
struct gd_which_winres {
    struct gd_winload *load;
    struct gd_win_object *from;     /* the --from module, or NULL */
    const struct gd_win_edge *edge; /* name mode: the resolution (borrowed from load) */
    char *app_dir;                  /* as searched (a path inside the root), or NULL */
    const char *app_source;         /* how it was chosen ("--app", ...), static */
    char *cwd, *path_env, *windows_dir;
    struct gd_strlist dll_dirs;
    /* Name mode, when the search misses: where the standard order (PATH, the current
     * directory) finds it, which is what Python 3.7 and LoadLibrary found. */
    char *elsewhere_path, *elsewhere_dir, *elsewhere_given;
    enum gd_win_rule elsewhere_rule;
    /* Tree mode in the extension order: for each missing name (gd_winload_missing_at), where
     * the standard order finds it, or NULL. */
    char **missing_elsewhere;
    size_t nmissing_elsewhere;
};

struct gd_which {
    bool windows; /* `win` holds the answer; the ELF fields below are unused */
    struct gd_which_winres win;
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

/* Formatting a Windows result (src/render/which_win.c), for src/render/which.c. */
struct gd_buf;
void gd_which_win_text(struct gd_buf *b, const struct gd_which *w, bool color);
void gd_which_win_ldd(struct gd_buf *b, const struct gd_which *w);
void gd_which_win_json(struct gd_buf *b, const struct gd_which *w);
/* A path inside the root as a Windows user writes it ("C:\\CUDA\\v11.2\\bin"): the root is
 * taken for drive C:, the system drive. New memory, or NULL. */
char *gd_which_win_spelling(const char *path);

#endif
