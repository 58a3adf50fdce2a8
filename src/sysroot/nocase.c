/* Case-insensitive lookups on a Windows tree (nocase.h). */
#include "sysroot/nocase.h"

#include "core/alloc.h"
#include "core/winpath.h"

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
        if (st == GD_ENOENT) {
            /* Not spelled so: the directory's entry that folds to the same name. */
            gd_free(next);
            next = NULL;
            char want[256];
            struct gd_names names;
            if (n >= sizeof want) {
                st = GD_ENOENT;
            } else if ((st = gd_root_list(root, cur, &names)) == GD_OK) {
                memcpy(want, p, n);
                want[n] = '\0';
                st = GD_ENOENT;
                for (size_t i = 0; i < names.count && st == GD_ENOENT; i++) {
                    if (!gd_winpath_name_eq(names.names[i], want))
                        continue;
                    next = join(cur, names.names[i], strlen(names.names[i]));
                    st = next ? GD_OK : GD_ENOMEM;
                }
                gd_names_free(&names);
            }
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
