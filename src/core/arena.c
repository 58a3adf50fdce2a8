#include "core/arena.h"

#include "core/alloc.h"

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Chunks double up to this size; larger requests get a chunk of their own. */
#define CHUNK_MIN 4096
#define CHUNK_MAX (256 * 1024)

struct chunk {
    struct chunk *next;
    size_t used, size;
    alignas(max_align_t) unsigned char data[];
};

struct gd_arena {
    struct chunk *head;
    size_t next_size;
};

struct gd_arena *gd_arena_new(void)
{
    struct gd_arena *arena = gd_calloc(1, sizeof *arena);
    if (arena)
        arena->next_size = CHUNK_MIN;
    return arena;
}

void gd_arena_free(struct gd_arena *arena)
{
    if (!arena)
        return;
    struct chunk *c = arena->head;
    while (c) {
        struct chunk *next = c->next;
        gd_free(c);
        c = next;
    }
    gd_free(arena);
}

/* `size` bytes aligned to `align` (a power of two, at most max_align_t's), zeroed when `zero`.
 * Strings take alignment 1 and no zeroing: a report holds a hundred thousand of them, each
 * rounded up to 16 bytes and cleared before being overwritten. */
static void *take(struct gd_arena *arena, size_t size, size_t align, bool zero)
{
    if (size > SIZE_MAX - alignof(max_align_t))
        return NULL;
    struct chunk *c = arena->head;
    size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;
    if (!c || at > c->size || c->size - at < size) {
        size_t want = size > arena->next_size ? size : arena->next_size;
        if (want > SIZE_MAX - sizeof *c)
            return NULL;
        c = gd_malloc(sizeof *c + want);
        if (!c)
            return NULL;
        c->size = want;
        c->used = 0;
        c->next = arena->head;
        arena->head = c;
        if (arena->next_size < CHUNK_MAX)
            arena->next_size *= 2;
        at = 0;
    }
    void *p = c->data + at;
    c->used = at + size;
    if (zero)
        memset(p, 0, size);
    return p;
}

void *gd_arena_alloc(struct gd_arena *arena, size_t size)
{
    return take(arena, size, alignof(max_align_t), true);
}

char *gd_arena_strndup(struct gd_arena *arena, const char *s, size_t n)
{
    const char *nul = memchr(s, '\0', n);
    size_t len = nul ? (size_t)(nul - s) : n;
    char *copy = take(arena, len + 1, 1, false);
    if (copy) {
        memcpy(copy, s, len);
        copy[len] = '\0';
    }
    return copy;
}

char *gd_arena_strdup(struct gd_arena *arena, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *copy = take(arena, n, 1, false);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

char *gd_arena_vprintf(struct gd_arena *arena, const char *fmt, va_list ap)
{
    /* Written straight into the room left in the current chunk when it fits (most do): one
     * formatting instead of one to measure and one to write. */
    struct chunk *c = arena->head;
    size_t room = c && c->size > c->used ? c->size - c->used : 0;
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(room ? (char *)c->data + c->used : NULL, room, fmt, copy);
    va_end(copy);
    if (n < 0)
        return NULL;
    if ((size_t)n < room) {
        char *s = (char *)c->data + c->used;
        c->used += (size_t)n + 1;
        return s;
    }
    char *s = take(arena, (size_t)n + 1, 1, false);
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *gd_arena_printf(struct gd_arena *arena, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = gd_arena_vprintf(arena, fmt, ap);
    va_end(ap);
    return s;
}
