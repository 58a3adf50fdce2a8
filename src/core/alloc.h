/*
 * Allocation for the whole library. Every allocation goes through here so that the tests can
 * make the Nth one fail and check that each failure ends in GD_ENOMEM, never a crash.
 * Memory from gd_malloc/gd_calloc/gd_realloc/gd_strdup is released with gd_free().
 */
#ifndef GD_CORE_ALLOC_H
#define GD_CORE_ALLOC_H

#include <gpudoctor/gpudoctor.h>
#include <stddef.h>

void *gd_malloc(size_t size);
void *gd_calloc(size_t count, size_t size);
void *gd_realloc(void *p, size_t size);
char *gd_strdup(const char *s);
char *gd_strndup(const char *s, size_t n);

/* Grow `*items` (of `elem_size` bytes each) so it holds at least `need` elements. Returns 0, or
 * -1 when the allocation fails or the size would overflow; `*items` is then unchanged. */
int gd_grow(void **items, size_t *cap, size_t need, size_t elem_size);

/* Tests only: the `n`th allocation from now fails (1 = the next one); 0 turns failures off.
 * Returns how many allocations have been made since the last call. */
unsigned long gd_alloc_fail_at(unsigned long n);

#endif
