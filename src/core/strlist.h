/* A growable list of owned strings. Zero-initialise it; gd_strlist_free releases it. */
#ifndef GD_CORE_STRLIST_H
#define GD_CORE_STRLIST_H

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

struct gd_strlist {
    char **items;
    size_t count, cap;
};

/* Append a copy of `s`. GD_OK or GD_ENOMEM. */
enum gd_status gd_strlist_push(struct gd_strlist *l, const char *s);
/* Append unless an equal string is present already. */
enum gd_status gd_strlist_push_unique(struct gd_strlist *l, const char *s);
bool gd_strlist_contains(const struct gd_strlist *l, const char *s);
void gd_strlist_free(struct gd_strlist *l);

#endif
