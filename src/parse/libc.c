#include "parse/libc.h"

#include "core/str.h"

#include <string.h>

static bool copy_version(const char *s, size_t n, char *buf, size_t size)
{
    size_t i = 0;
    while (i < n && (gd_is_digit(s[i]) || s[i] == '.'))
        i++;
    while (i > 0 && s[i - 1] == '.')
        i--;
    if (i == 0 || !gd_is_digit(s[0]) || !memchr(s, '.', i) || i >= size)
        return false;
    gd_span_copy((struct gd_span){ s, i }, buf, size);
    return true;
}

bool gd_libc_version_from_name(const char *name, char *buf, size_t size)
{
    const char *v = NULL;
    if (gd_str_starts_with(name, "libc-"))
        v = name + 5;
    else if (gd_str_starts_with(name, "ld-"))
        v = name + 3;
    if (!v || !gd_str_ends_with(name, ".so") || !gd_is_digit(v[0]))
        return false;
    size_t n = strlen(v) - 3;
    for (size_t i = 0; i < n; i++)
        if (!(gd_is_digit(v[i]) || v[i] == '.'))
            return false;
    return copy_version(v, n, buf, size);
}

bool gd_libc_version_from_banner(const char *data, size_t len, char *buf, size_t size)
{
    static const char marker[] = "GNU C Library";
    static const char release[] = "release version ";
    struct gd_span hay = { data, len };
    while (hay.n) {
        const char *hit = gd_span_find(hay, marker);
        if (!hit)
            return false;
        /* The banner is one C string: look for the version before its NUL, within 256 bytes. */
        size_t avail = (size_t)(data + len - hit);
        size_t limit = avail < 256 ? avail : 256;
        const char *nul = memchr(hit, '\0', limit);
        struct gd_span banner = { hit, nul ? (size_t)(nul - hit) : limit };
        const char *rv = gd_span_find(banner, release);
        if (rv) {
            size_t off = (size_t)(rv - hit) + strlen(release);
            if (copy_version(hit + off, banner.n - off, buf, size))
                return true;
        }
        hay.p = hit + 1;
        hay.n = (size_t)(data + len - hay.p);
    }
    return false;
}
