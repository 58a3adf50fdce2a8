/* Case-insensitive lookups on a Windows tree (nocase.h). */
#include "sysroot/nocase.h"

#include "core/alloc.h"
#include "core/winpath.h"
#include "os/os.h"

#include <string.h>

/* `dir` + "/" + `name` (n bytes) into new memory. */
static char *join(const char *dir, const char *name, size_t n)
{
    size_t d = strlen(dir);
    if (d == 1 && dir[0] == '/')
        d = 0;
    char *p = gd_malloc(d + 1 + n + 1);
    if (!p)
        return NULL;
    memcpy(p, dir, d);
    p[d] = '/';
    memcpy(p + d + 1, name, n);
    p[d + 1 + n] = '\0';
    return p;
}

/* The entry of `dir` named `name` (n bytes): spelled exactly, else the first whose name folds to
 * it. On GD_OK `*out` is new memory. */
static enum gd_status spelling(struct gd_root *root, const char *dir, const char *name, size_t n,
                               char **out)
{
    *out = NULL;
    char want[256];
    if (n >= sizeof want)
        return GD_ENOENT;
    memcpy(want, name, n);
    want[n] = '\0';
    struct gd_names names;
    enum gd_status st = gd_root_list(root, dir, &names);
    if (st != GD_OK)
        return st;
    const char *hit = NULL;
    for (size_t i = 0; i < names.count; i++) {
        if (strcmp(names.names[i], want) == 0) {
            hit = names.names[i];
            break;
        }
        if (!hit && gd_winpath_name_eq(names.names[i], want))
            hit = names.names[i];
    }
    st = GD_ENOENT;
    if (hit) {
        *out = join(dir, hit, strlen(hit));
        st = *out ? GD_OK : GD_ENOMEM;
    }
    gd_names_free(&names);
    return st;
}

enum gd_status gd_root_find_nocase(struct gd_root *root, const char *path, char **out)
{
    *out = NULL;
    if (path[0] != '/')
        return GD_EINVAL;
    char *cur = gd_strdup("/");
    if (!cur)
        return GD_ENOMEM;
    enum gd_status st = GD_OK;
    const char *p = path;
    while (st == GD_OK) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        size_t n = strcspn(p, "/");
        char *next = join(cur, p, n);
        struct gd_os_stat s;
        st = next ? gd_root_lstat(root, next, &s) : GD_ENOMEM;
        if (st == GD_OK && gd_os_names_ignore_case()) {
            /* Windows found it whatever the spelling: the name as the disk stores it. */
            char *stored = NULL;
            enum gd_status ns = gd_root_stored_name(root, next, &stored);
            if (ns == GD_OK) {
                gd_free(next);
                next = join(cur, stored, strlen(stored));
                st = next ? GD_OK : GD_ENOMEM;
            } else if (ns == GD_ENOMEM) {
                st = GD_ENOMEM;
            }
            gd_free(stored);
        } else if (st == GD_ENOENT) {
            /* The directory's entry spelled so, else the one that folds to the same name. */
            gd_free(next);
            next = NULL;
            st = spelling(root, cur, p, n, &next);
        }
        gd_free(cur);
        cur = next;
        p += n;
    }
    if (st != GD_OK) {
        gd_free(cur);
        return st;
    }
    *out = cur;
    return GD_OK;
}
