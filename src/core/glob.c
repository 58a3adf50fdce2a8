#include "core/glob.h"

#include <string.h>

/* Match a bracket expression at `p` (just after '[') against `c`; `*end` is set after the ']'.
 * An unterminated '[' is a literal character, as in glob(3). */
static bool bracket(const char *p, char c, const char **end, bool *valid)
{
    bool negate = *p == '!' || *p == '^';
    if (negate)
        p++;
    bool hit = false;
    const char *start = p;
    /* Ranges compare bytes as unsigned, as glibc does in the C locale: [a-\xff] holds UTF-8. */
    unsigned char u = (unsigned char)c;
    while (*p && (*p != ']' || p == start)) {
        unsigned char lo = (unsigned char)*p, hi = lo;
        if (p[1] == '-' && p[2] && p[2] != ']') {
            hi = (unsigned char)p[2];
            p += 2;
        }
        if (u >= lo && u <= hi)
            hit = true;
        p++;
    }
    *valid = *p == ']';
    *end = *valid ? p + 1 : NULL;
    return hit != negate;
}

static bool match(const char *p, const char *n, bool at_start)
{
    /* Iterative with one backtrack point for '*': each restart walks the pattern once, so the
     * time is at most pattern length times name length, and no recursion depth. */
    const char *star_p = NULL, *star_n = NULL;
    /* Every '[' from here on is unterminated, hence literal: once one '[' finds no ']' after
     * it, no later one can. Remembered so that backtracking does not rescan the rest of the
     * pattern for each '[' again, which made "*[[[...x" against "[[[...y" cubic (seconds for
     * 4 KiB of input). */
    const char *literal_from = NULL;
    while (*n) {
        /* A leading '.' must be matched by a '.' in the pattern, escaped or not (fnmatch's
         * FNM_PERIOD: '*', '?' and classes never match it). */
        if (at_start && *n == '.' && *p != '.' && !(p[0] == '\\' && p[1] == '.'))
            return false;
        at_start = false;
        if (*p == '*') {
            while (*p == '*')
                p++;
            if (!*p)
                return true;
            star_p = p;
            star_n = n;
            continue;
        }
        bool ok = false;
        const char *next = p + 1;
        if (*p == '?') {
            ok = true;
        } else if (*p == '[' && literal_from && p >= literal_from) {
            ok = *n == '[';
        } else if (*p == '[') {
            bool valid;
            const char *end;
            bool hit = bracket(p + 1, *n, &end, &valid);
            if (!valid)
                literal_from = p;
            if (valid) {
                ok = hit;
                next = end;
            } else {
                ok = *n == '[';
            }
        } else if (*p == '\\') {
            /* A trailing backslash escapes nothing and matches nothing (fnmatch(3)). */
            ok = p[1] && p[1] == *n;
            next = p + 2;
        } else {
            ok = *p && *p == *n;
        }
        if (ok) {
            p = next;
            n++;
        } else if (star_p) {
            p = star_p;
            n = ++star_n;
        } else {
            return false;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

bool gd_glob_match(const char *pattern, const char *name)
{
    return match(pattern, name, true);
}

bool gd_glob_has_magic(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}
