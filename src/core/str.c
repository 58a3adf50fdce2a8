#include "core/str.h"

#include "core/alloc.h"

#include <string.h>

struct gd_span gd_span_of(const char *s)
{
    struct gd_span span = { s, s ? strlen(s) : 0 };
    return span;
}

bool gd_span_eq(struct gd_span s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n == n && (n == 0 || memcmp(s.p, lit, n) == 0);
}

bool gd_span_starts_with(struct gd_span s, const char *prefix)
{
    size_t n = strlen(prefix);
    return s.n >= n && (n == 0 || memcmp(s.p, prefix, n) == 0);
}

bool gd_str_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool gd_str_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

bool gd_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool gd_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

bool gd_is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

char gd_to_lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

bool gd_str_ieq(const char *a, const char *b)
{
    while (*a && *b && gd_to_lower(*a) == gd_to_lower(*b)) {
        a++;
        b++;
    }
    return *a == '\0' && *b == '\0';
}

struct gd_span gd_span_trim(struct gd_span s)
{
    while (s.n && gd_is_space(s.p[0])) {
        s.p++;
        s.n--;
    }
    while (s.n && gd_is_space(s.p[s.n - 1]))
        s.n--;
    return s;
}

bool gd_next_line(const char **cur, const char *end, struct gd_span *line)
{
    const char *p = *cur;
    if (!p || p >= end)
        return false;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *stop = nl ? nl : end;
    line->p = p;
    line->n = (size_t)(stop - p);
    if (line->n && p[line->n - 1] == '\r')
        line->n--;
    *cur = nl ? nl + 1 : end;
    return true;
}

bool gd_span_split(struct gd_span s, char sep, struct gd_span *before, struct gd_span *after)
{
    const char *hit = s.n ? memchr(s.p, sep, s.n) : NULL;
    if (!hit)
        return false;
    before->p = s.p;
    before->n = (size_t)(hit - s.p);
    after->p = hit + 1;
    after->n = s.n - before->n - 1;
    return true;
}

bool gd_span_next_field(struct gd_span *rest, char sep, struct gd_span *field)
{
    if (!rest->p)
        return false;
    struct gd_span before, after;
    if (gd_span_split(*rest, sep, &before, &after)) {
        *field = before;
        *rest = after;
    } else {
        *field = *rest;
        rest->p = NULL;
        rest->n = 0;
    }
    return true;
}

const char *gd_span_find(struct gd_span hay, const char *needle)
{
    size_t m = strlen(needle);
    if (m == 0)
        return hay.p;
    if (hay.n < m)
        return NULL;
    for (size_t i = 0; i + m <= hay.n; i++) {
        const char *hit = memchr(hay.p + i, needle[0], hay.n - m + 1 - i);
        if (!hit)
            return NULL;
        if (memcmp(hit, needle, m) == 0)
            return hit;
        i = (size_t)(hit - hay.p);
    }
    return NULL;
}

void gd_span_copy(struct gd_span s, char *buf, size_t size)
{
    size_t n = s.n < size - 1 ? s.n : size - 1;
    if (n)
        memcpy(buf, s.p, n);
    buf[n] = '\0';
}

char *gd_path_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    while (a > 1 && dir[a - 1] == '/')
        a--;
    while (b && name[0] == '/') {
        name++;
        b--;
    }
    bool slash = !(a == 1 && dir[0] == '/') && a > 0;
    char *out = gd_malloc(a + (slash ? 1 : 0) + b + 1);
    if (!out)
        return NULL;
    memcpy(out, dir, a);
    size_t at = a;
    if (slash)
        out[at++] = '/';
    memcpy(out + at, name, b);
    out[at + b] = '\0';
    return out;
}

const char *gd_path_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The length of the valid UTF-8 sequence at p[0..n), or 0 (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF). */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    size_t len;
    unsigned min;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    unsigned cp = c & (0xffu >> (len + 1));
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

size_t gd_text_clean(struct gd_span s, char *buf, size_t size)
{
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)s.p;
    for (size_t i = 0; i < s.n;) {
        size_t len = p[i] >= 0x80 ? utf8_len(p + i, s.n - i) : 1;
        if (o + (len ? len : 1) >= size)
            break;
        if (len > 1) {
            memcpy(buf + o, p + i, len);
            o += len;
            i += len;
            continue;
        }
        buf[o++] = len && p[i] >= 0x20 && p[i] != 0x7f ? (char)p[i] : '?';
        i++;
    }
    buf[o] = '\0';
    return o;
}
