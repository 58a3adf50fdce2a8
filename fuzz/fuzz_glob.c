/*
 * Wildcard matching (ld.so.conf "include" patterns against directory entries): the input is
 * split at its first NUL or newline into a pattern and a name (the name up to its own first
 * NUL; without a separator the name is the pattern itself), each in an exact-size heap buffer,
 * and gd_glob_match runs on them and on patterns derived from them.
 *
 * Invariants: every match terminates quickly (libFuzzer's -timeout catches backtracking that
 * grows faster than the inputs); a pattern without wildcards or escapes matches exactly the
 * equal name (itself included); "*" and a run of '?' as long as the name match every non-empty
 * name that does not start with '.'; the name with every character escaped (a leading '.' left
 * bare) matches the name; when the pattern matches, it still does with '*' appended, and with
 * '*' prepended unless the name starts with '.'; gd_glob_has_magic agrees with strpbrk.
 */
#include "fuzz.h"

#include "core/glob.h"

/* A heap copy of `n` bytes plus a NUL, exactly that size. */
static char *copy(const char *p, size_t n)
{
    char *s = malloc(n + 1);
    if (!s)
        return NULL;
    if (n)
        memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

static bool literal(const char *p)
{
    return !strpbrk(p, "*?[\\");
}

static void check_derived(const char *pattern, const char *name, bool matched)
{
    size_t pl = strlen(pattern), nl = strlen(name);
    char *s = malloc(2 * (nl > pl ? nl : pl) + 2);
    if (!s)
        return;

    if (nl) {
        FUZZ_CHECK(gd_glob_match("*", name) == (name[0] != '.'));
        memset(s, '?', nl);
        s[nl] = '\0';
        FUZZ_CHECK(gd_glob_match(s, name) == (name[0] != '.'));
        s[nl - 1] = '\0'; /* one '?' short: never a match */
        FUZZ_CHECK(!gd_glob_match(s, name));
    }

    size_t o = 0;
    for (size_t i = 0; i < nl; i++) {
        if (i > 0 || name[i] != '.')
            s[o++] = '\\';
        s[o++] = name[i];
    }
    s[o] = '\0';
    FUZZ_CHECK(gd_glob_match(s, name));

    /* A trailing backslash escapes nothing, but one more '*' after it would be escaped. */
    if (matched && (pl == 0 || pattern[pl - 1] != '\\')) {
        memcpy(s, pattern, pl);
        memcpy(s + pl, "*", 2);
        FUZZ_CHECK(gd_glob_match(s, name));
        if (name[0] != '.') {
            s[0] = '*';
            memcpy(s + 1, pattern, pl + 1);
            FUZZ_CHECK(gd_glob_match(s, name));
        }
    }
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t cut = 0;
    while (cut < size && text[cut] != '\0' && text[cut] != '\n')
        cut++;
    char *pattern = copy(text, cut);
    char *name;
    if (cut < size) {
        const char *rest = text + cut + 1;
        name = copy(rest, fuzz_strnlen(rest, size - cut - 1));
    } else {
        name = copy(text, cut);
    }
    if (!pattern || !name)
        goto out;

    bool matched = gd_glob_match(pattern, name);
    FUZZ_CHECK(gd_glob_has_magic(pattern) == (strpbrk(pattern, "*?[") != NULL));
    if (literal(pattern)) {
        FUZZ_CHECK(gd_glob_match(pattern, pattern));
        FUZZ_CHECK(matched == (strcmp(pattern, name) == 0));
    }
    check_derived(pattern, name, matched);
out:
    free(pattern);
    free(name);
    return 0;
}
