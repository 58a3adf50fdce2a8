/*
 * Which CUDA family a library file name belongs to ("libcudnn.so.8.9.7" is cuDNN), from the
 * `cuda_libraries` KB table's file prefixes. Shared by the inventory (every copy on disk) and the
 * frameworks probe (the NEEDED entries of a framework's native modules).
 */
#ifndef GD_PROBE_FAMILIES_H
#define GD_PROBE_FAMILIES_H

#include <gpudoctor/gpudoctor.h>
#include <stddef.h>

struct gd_kb_table;
struct gd_kb_row;

/* The KB's file prefixes ("libcudnn", "libcudart"), flattened once in KB order: matching every
 * name of every directory against the KB's JSON lists cost half of `check`. */
struct gd_family_prefix {
    const char *prefix; /* borrowed from the KB */
    size_t len;
    const struct gd_kb_row *row;
};

struct gd_families {
    struct gd_family_prefix *items;
    size_t count;
};

/* GD_OK or GD_ENOMEM (`*f` then empty). Free with gd_families_free. */
enum gd_status gd_families_load(const struct gd_kb_table *t, struct gd_families *f);
void gd_families_free(struct gd_families *f);

/* The first family row (KB order) whose prefix is `name` or `name` up to a '.'
 * ("libcudart.so.12" matches "libcudart.so"); `*prefix` is set to it. NULL when none. */
const struct gd_kb_row *gd_family_match(const struct gd_families *f, const char *name,
                                        const char **prefix);

#endif
