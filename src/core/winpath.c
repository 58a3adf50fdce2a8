/* Windows path text into a root path (winpath.h). */
#include "core/winpath.h"

#include <stdio.h>
#include <string.h>

static char upper(char c)
{
    return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

static bool is_sep(char c)
{
    return c == '\\' || c == '/';
}

static bool is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool gd_winpath_name_eq(const char *name, const char *want)
{
    for (; *name && *want; name++, want++)
        if (upper(*name) != upper(*want))
            return false;
    return *name == *want;
}

/* An 8.3 short name: up to 8 characters whose last ones are '~' and digits, then an optional
 * extension of up to 3 ("PROGRA~1", "NVIDIA~2", "MICROS~1.NET"). */
static bool short_name(const char *p, size_t n)
{
    size_t dot = n;
    for (size_t i = 0; i < n; i++)
        if (p[i] == '.')
            dot = i;
    if (dot > 8 || (dot < n && n - dot - 1 > 3))
        return false;
    size_t i = dot;
    while (i > 0 && p[i - 1] >= '0' && p[i - 1] <= '9')
        i--;
    return i < dot && i > 1 && p[i - 1] == '~';
}

enum gd_winpath_result gd_winpath_to_root(const char *win, char drive, char *out, size_t size)
{
    if (size)
        out[0] = '\0';
    const char *p = win, *end = win + strlen(win);
    while (p < end && (*p == ' ' || *p == '\t' || *p == '"'))
        p++;
    while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '"'))
        end--;
    if (p == end)
        return GD_WINPATH_EMPTY;
    /* The long-path prefix "\\?\" (and "\??\"): "\\?\C:\x" is "C:\x"; "\\?\UNC\srv" and other
     * device paths are not on the drive. */
    if (end - p >= 4 && is_sep(p[0]) && (is_sep(p[1]) || p[1] == '?') && p[2] == '?' &&
        is_sep(p[3])) {
        p += 4;
        if (!(end - p >= 2 && is_letter(p[0]) && p[1] == ':'))
            return GD_WINPATH_UNC;
    } else if (end - p >= 2 && is_sep(p[0]) && is_sep(p[1])) {
        return GD_WINPATH_UNC;
    }
    if (end - p >= 2 && is_letter(p[0]) && p[1] == ':') {
        if (end - p == 2 || !is_sep(p[2]))
            return GD_WINPATH_RELATIVE; /* "C:" or "C:bin": that drive's current directory */
        if (upper(p[0]) != upper(drive))
            return GD_WINPATH_OTHER_DRIVE;
        p += 2;
    } else if (!is_sep(p[0])) {
        return GD_WINPATH_RELATIVE;
    }
    if (size < 2)
        return GD_WINPATH_TOO_LONG;
    size_t n = 0;
    while (p < end) {
        while (p < end && is_sep(*p))
            p++;
        const char *c = p;
        while (p < end && !is_sep(*p))
            p++;
        size_t len = (size_t)(p - c);
        if (!len || (len == 1 && c[0] == '.'))
            continue;
        if (short_name(c, len)) {
            out[0] = '\0';
            return GD_WINPATH_SHORT;
        }
        if (n + 1 + len + 1 > size) {
            out[0] = '\0';
            return GD_WINPATH_TOO_LONG;
        }
        out[n++] = '/';
        memcpy(out + n, c, len);
        n += len;
    }
    if (!n)
        out[n++] = '/';
    out[n] = '\0';
    return GD_WINPATH_OK;
}

const char *gd_winpath_why(enum gd_winpath_result r, char drive, char *buf, size_t size)
{
    switch (r) {
    case GD_WINPATH_OK:
        return "a path on the inspected drive";
    case GD_WINPATH_EMPTY:
        return "empty";
    case GD_WINPATH_RELATIVE:
        return "not an absolute path (relative to a current directory)";
    case GD_WINPATH_OTHER_DRIVE:
        snprintf(buf, size, "on another drive than the inspected %c:", upper(drive));
        return buf;
    case GD_WINPATH_UNC:
        return "a network (UNC) or device path, outside the inspected drive";
    case GD_WINPATH_SHORT:
        return "an 8.3 short name (such as PROGRA~1) that only Windows itself can resolve";
    case GD_WINPATH_TOO_LONG:
        return "longer than a path gpudoctor reads";
    }
    return "?";
}
