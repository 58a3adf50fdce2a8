#include "sysroot/glob.h"

#include "core/alloc.h"
#include "core/glob.h"
#include "core/str.h"
#include "sysroot/sysroot.h"

#include <string.h>

struct walk {
    struct gd_root *root;
    size_t max;
    struct gd_strlist *out;
    enum gd_status status;
};

static void expand(struct walk *w, const char *dir, const char *rest)
{
    while (*rest == '/')
        rest++;
    if (!*rest) {
        if (w->out->count >= w->max)
            w->status = GD_ELIMIT;
        else if (gd_strlist_push(w->out, dir) != GD_OK)
            w->status = GD_ENOMEM;
        return;
    }
    size_t n = strcspn(rest, "/");
    char comp[1024];
    if (n >= sizeof comp)
        return;
    memcpy(comp, rest, n);
    comp[n] = '\0';
    const char *next = rest + n;
    if (!gd_glob_has_magic(comp)) {
        char *path = gd_path_join(dir, comp);
        if (!path) {
            w->status = GD_ENOMEM;
            return;
        }
        /* Only existing paths match, as with glob(3). */
        if (*next ? gd_root_is_dir(w->root, path) : gd_root_exists(w->root, path))
            expand(w, path, next);
        gd_free(path);
        return;
    }
    struct gd_names names;
    enum gd_status ls = gd_root_list(w->root, dir, &names);
    if (ls != GD_OK) {
        if (ls == GD_ENOMEM)
            w->status = ls; /* a directory we could not list for want of memory is not empty */
        return;
    }
    for (size_t i = 0; i < names.count && w->status == GD_OK; i++) {
        if (!gd_glob_match(comp, names.names[i]))
            continue;
        char *path = gd_path_join(dir, names.names[i]);
        if (!path) {
            w->status = GD_ENOMEM;
            break;
        }
        if (!*next || gd_root_is_dir(w->root, path))
            expand(w, path, next);
        gd_free(path);
    }
    gd_names_free(&names);
}

enum gd_status gd_root_glob(struct gd_root *root, const char *pattern, size_t max,
                            struct gd_strlist *out)
{
    struct walk w = { root, max, out, GD_OK };
    /* gd_root_exists and gd_root_is_dir answer false when they run out of memory; the root
     * remembers it, and a match they hid must not be taken for no match. */
    bool oom_before = gd_root_out_of_memory(root);
    expand(&w, "/", pattern);
    if (w.status == GD_OK && !oom_before && gd_root_out_of_memory(root))
        w.status = GD_ENOMEM;
    return w.status;
}
