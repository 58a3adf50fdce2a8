/*
 * A bump allocator: one per report, holding its strings, facts and findings, released at once.
 * Allocation failure returns NULL (never aborts); the arena stays usable.
 */
#ifndef GD_CORE_ARENA_H
#define GD_CORE_ARENA_H

#include "core/attr.h"
#include <stdarg.h>
#include <stddef.h>

struct gd_arena;

/* New arena, or NULL when out of memory. */
struct gd_arena *gd_arena_new(void);
void gd_arena_free(struct gd_arena *arena);

/* Zeroed memory aligned for any object; NULL when out of memory. Borrowed from the arena. */
void *gd_arena_alloc(struct gd_arena *arena, size_t size);
char *gd_arena_strdup(struct gd_arena *arena, const char *s);
char *gd_arena_strndup(struct gd_arena *arena, const char *s, size_t n);
char *gd_arena_printf(struct gd_arena *arena, const char *fmt, ...) GD_PRINTF(2, 3);
char *gd_arena_vprintf(struct gd_arena *arena, const char *fmt, va_list ap) GD_PRINTF(2, 0);

#endif
