/*
 * The glibc version of a foreign tree: gd_libc_version_from_name on a NUL-terminated copy of the
 * bytes (a file name) and gd_libc_version_from_banner on the bytes (the contents of libc.so.6).
 * Invariants: a version found is NUL-terminated inside the caller's buffer, starts with a digit,
 * is digits and dots with at least one dot, and is a piece of the input.
 */
#include "fuzz.h"

#include "parse/libc.h"

static bool contains(const uint8_t *data, size_t size, const char *s, size_t n)
{
    for (size_t i = 0; n <= size && i + n <= size; i++)
        if (memcmp(data + i, s, n) == 0)
            return true;
    return false;
}

static void check_version(const uint8_t *data, size_t size, const char *v, size_t cap)
{
    size_t n = fuzz_strnlen(v, cap);
    FUZZ_CHECK(n > 0 && n < cap);
    FUZZ_CHECK(v[0] >= '0' && v[0] <= '9' && v[n - 1] != '.');
    FUZZ_CHECK(memchr(v, '.', n) != NULL);
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK((v[i] >= '0' && v[i] <= '9') || v[i] == '.');
    FUZZ_CHECK(contains(data, size, v, n));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Exact-size heap buffers, so that a write past one is an AddressSanitizer report. */
    static const size_t sizes[] = { 1, 2, 4, 8, 32 };
    char *name = fuzz_cstr(data, size);
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char *buf = malloc(sizes[i]);
        if (!buf)
            break;
        if (name && gd_libc_version_from_name(name, buf, sizes[i]))
            check_version(data, size, buf, sizes[i]);
        if (gd_libc_version_from_banner((const char *)data, size, buf, sizes[i]))
            check_version(data, size, buf, sizes[i]);
        free(buf);
    }
    free(name);
    return 0;
}
