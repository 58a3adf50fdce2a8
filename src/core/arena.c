#include "core/arena.h"

#include "core/alloc.h"

#include <stdalign.h>
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

void *gd_arena_alloc(struct gd_arena *arena, size_t size)
{
    const size_t align = alignof(max_align_t);
    if (size > SIZE_MAX - align)
        return NULL;
    size = (size + align - 1) & ~(align - 1);
    struct chunk *c = arena->head;
    if (!c || c->size - c->used < size) {
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
    }
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

char *gd_arena_strndup(struct gd_arena *arena, const char *s, size_t n)
{
    size_t len = 0;
    while (len < n && s[len])
        len++;
    char *copy = gd_arena_alloc(arena, len + 1);
    if (copy)
        memcpy(copy, s, len);
    return copy;
}

char *gd_arena_strdup(struct gd_arena *arena, const char *s)
{
    if (!s)
        return NULL;
    size_t len = strlen(s);
    char *copy = gd_arena_alloc(arena, len + 1);
    if (copy)
        memcpy(copy, s, len);
    return copy;
}

char *gd_arena_vprintf(struct gd_arena *arena, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0)
        return NULL;
    char *s = gd_arena_alloc(arena, (size_t)n + 1);
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
