/* CUDA family of a library file name, from the cuda_libraries KB table. */
#include "probe/families.h"

#include "core/alloc.h"
#include "kb/kb.h"

#include <string.h>

enum gd_status gd_families_load(const struct gd_kb_table *t, struct gd_families *f)
{
    f->items = NULL;
    f->count = 0;
    size_t cap = 0;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        for (size_t k = 0; k < gd_kb_list_len(row, "files"); k++) {
            const char *p = gd_kb_list_at(row, "files", k);
            if (!p || !p[0])
                continue;
            if (gd_grow((void **)&f->items, &cap, f->count + 1, sizeof *f->items) != 0) {
                gd_families_free(f);
                return GD_ENOMEM;
            }
            f->items[f->count++] = (struct gd_family_prefix){ p, strlen(p), row };
        }
    }
    return GD_OK;
}

void gd_families_free(struct gd_families *f)
{
    gd_free(f->items);
    f->items = NULL;
    f->count = 0;
}

const struct gd_kb_row *gd_family_match(const struct gd_families *f, const char *name,
                                        const char **prefix)
{
    for (size_t i = 0; i < f->count; i++) {
        const struct gd_family_prefix *p = &f->items[i];
        if (name[0] == p->prefix[0] && strncmp(name, p->prefix, p->len) == 0 &&
            (name[p->len] == '\0' || name[p->len] == '.')) {
            *prefix = p->prefix;
            return p->row;
        }
    }
    return NULL;
}
