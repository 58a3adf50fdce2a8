/*
 * What every fuzz target shares. A target is one parser family fed the fuzzer's bytes exactly as
 * given: `data` is not NUL-terminated and has exactly `size` bytes, so a read past the end is an
 * AddressSanitizer report (libFuzzer copies each input into a buffer of that size; the corpus
 * replayer in replay_main.c does the same).
 *
 * The same target source is built twice: with clang and libFuzzer (GD_FUZZ) and with the normal
 * compiler, linked to replay_main.c, to replay the checked-in corpus as CTest cases.
 */
#ifndef GD_FUZZ_FUZZ_H
#define GD_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The libFuzzer entry point; returns 0 (libFuzzer reserves other values). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A target's own invariant. Not assert(): the replay build defines NDEBUG, and a broken
 * invariant must stop the run there too. abort() is what libFuzzer records as a crash. */
#define FUZZ_CHECK(cond)                                                                 \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                     \
        }                                                                                \
    } while (0)

/* True when `buf` (of `size` bytes) holds a NUL, i.e. a string that ends inside its buffer. */
static inline int fuzz_terminated(const char *buf, size_t size)
{
    return memchr(buf, '\0', size) != NULL;
}

/* The length of the string in `buf`, or `size` when it has no NUL (strnlen is not C11). */
static inline size_t fuzz_strnlen(const char *buf, size_t size)
{
    const char *nul = memchr(buf, '\0', size);
    return nul ? (size_t)(nul - buf) : size;
}

/* A NUL-terminated copy of the input (new memory, free()), for parsers that take C strings;
 * NULL when the input holds a NUL (a C string cannot) or when out of memory. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    if (size && memchr(data, '\0', size))
        return NULL;
    char *s = malloc(size + 1);
    if (!s)
        return NULL;
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif
