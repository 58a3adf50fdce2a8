#include "sysroot/glob.h"

#include "core/alloc.h"
#include "core/glob.h"
#include "sysroot/sysroot.h"

#include <string.h>

struct walk {
    struct gd_root *root;
    size_t max;
    struct gd_strlist *out;
    enum gd_status status;
};

/* Append `name` (`n` bytes, no '/') to the path in `buf` (`len` bytes): the new length, or 0
 * when the path would pass GD_ROOT_PATH_MAX (no file there can be reached: no match). */
static size_t append(char *buf, size_t len, const char *name, size_t n)
{
    size_t at = len == 1 && buf[0] == '/' ? 1 : len + 1;
    if (at + n > GD_ROOT_PATH_MAX)
        return 0;
    buf[at - 1] = '/';
    memcpy(buf + at, name, n);
    buf[at + n] = '\0';
    return at + n;
}

/* Expand `rest` below the directory whose path is the `len` bytes of `buf` (one buffer for the
 * whole walk, each level appending to it and cutting back: a path copy per candidate was a
 * malloc and a free each). */
static void expand(struct walk *w, char *buf, size_t len, const char *rest)
{
    while (*rest == '/')
        rest++;
    if (!*rest) {
        if (w->out->count >= w->max)
            w->status = GD_ELIMIT;
        else if (gd_strlist_push(w->out, buf) != GD_OK)
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
        size_t at = append(buf, len, comp, n);
        /* Only existing paths match, as with glob(3). */
        if (at && (*next ? gd_root_is_dir(w->root, buf) : gd_root_exists(w->root, buf)))
            expand(w, buf, at, next);
        buf[len] = '\0';
        return;
    }
    struct gd_names names;
    enum gd_status ls = gd_root_list(w->root, buf, &names);
    if (ls != GD_OK) {
        if (ls == GD_ENOMEM)
            w->status = ls; /* a directory we could not list for want of memory is not empty */
        return;
    }
    for (size_t i = 0; i < names.count && w->status == GD_OK; i++) {
        if (!gd_glob_match(comp, names.names[i]))
            continue;
        size_t at = append(buf, len, names.names[i], strlen(names.names[i]));
        if (at && (!*next || gd_root_is_dir(w->root, buf)))
            expand(w, buf, at, next);
        buf[len] = '\0';
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
    char buf[GD_ROOT_PATH_MAX + 1];
    buf[0] = '/';
    buf[1] = '\0';
    expand(&w, buf, 1, pattern);
    if (w.status == GD_OK && !oom_before && gd_root_out_of_memory(root))
        w.status = GD_ENOMEM;
    return w.status;
}
