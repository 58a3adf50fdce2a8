#include "core/strlist.h"

#include "core/alloc.h"

#include <string.h>

enum gd_status gd_strlist_push(struct gd_strlist *l, const char *s)
{
    char *copy = gd_strdup(s);
    if (!copy || gd_grow((void **)&l->items, &l->cap, l->count + 1, sizeof *l->items) != 0) {
        gd_free(copy);
        return GD_ENOMEM;
    }
    l->items[l->count++] = copy;
    return GD_OK;
}

bool gd_strlist_contains(const struct gd_strlist *l, const char *s)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->items[i], s) == 0)
            return true;
    return false;
}

enum gd_status gd_strlist_push_unique(struct gd_strlist *l, const char *s)
{
    return gd_strlist_contains(l, s) ? GD_OK : gd_strlist_push(l, s);
}

void gd_strlist_free(struct gd_strlist *l)
{
    for (size_t i = 0; i < l->count; i++)
        gd_free(l->items[i]);
    gd_free(l->items);
    l->items = NULL;
    l->count = l->cap = 0;
}
