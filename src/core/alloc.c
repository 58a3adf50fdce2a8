#include "core/alloc.h"

#include <gpudoctor/gpudoctor.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Test hook only: counting allocations is what makes "fail each allocation in turn" possible. */
static unsigned long fail_at;
static unsigned long counter;

static int should_fail(void)
{
    counter++;
    return fail_at != 0 && counter == fail_at;
}

unsigned long gd_alloc_fail_at(unsigned long n)
{
    unsigned long made = counter;
    fail_at = n;
    counter = 0;
    return made;
}

void *gd_malloc(size_t size)
{
    if (should_fail())
        return NULL;
    return malloc(size ? size : 1);
}

void *gd_calloc(size_t count, size_t size)
{
    if (should_fail())
        return NULL;
    return calloc(count ? count : 1, size ? size : 1);
}

void *gd_realloc(void *p, size_t size)
{
    if (should_fail())
        return NULL;
    return realloc(p, size ? size : 1);
}

void gd_free(void *p)
{
    free(p);
}

char *gd_strndup(const char *s, size_t n)
{
    /* memchr, not a byte loop: the resolver copies tens of thousands of paths through here.
     * C11 (7.24.5.1) has memchr stop at the first match, so it never reads past the NUL. */
    const char *nul = memchr(s, '\0', n);
    size_t len = nul ? (size_t)(nul - s) : n;
    char *copy = gd_malloc(len + 1);
    if (!copy)
        return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}

char *gd_strdup(const char *s)
{
    /* strlen, not gd_strndup's byte loop: paths are copied tens of thousands of times. */
    size_t len = strlen(s);
    char *copy = gd_malloc(len + 1);
    if (copy)
        memcpy(copy, s, len + 1);
    return copy;
}

int gd_grow(void **items, size_t *cap, size_t need, size_t elem_size)
{
    if (need <= *cap)
        return 0;
    size_t new_cap = *cap ? *cap : 8;
    while (new_cap < need) {
        if (new_cap > SIZE_MAX / 2)
            return -1;
        new_cap *= 2;
    }
    if (elem_size && new_cap > SIZE_MAX / elem_size)
        return -1;
    void *p = gd_realloc(*items, new_cap * elem_size);
    if (!p)
        return -1;
    *items = p;
    *cap = new_cap;
    return 0;
}
