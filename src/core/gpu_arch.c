/* Compiled GPU code against a compute capability (gpu_arch.h). */
#include "core/gpu_arch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arch {
    unsigned major, minor;
    char flavour; /* '\0', 'a' (this exact capability), 'f' (its family) */
};

/* "sm_86", "compute_90a", "sm_100f" -> 8.6, 9.0a, 10.0f. */
static bool parse_arch(const char *text, const char *prefix, struct arch *a)
{
    size_t n = strlen(prefix);
    if (strncmp(text, prefix, n) != 0 || text[n] < '0' || text[n] > '9')
        return false;
    char *end = NULL;
    unsigned long sm = strtoul(text + n, &end, 10);
    if (end == text + n || sm < 10 || sm > 1000)
        return false;
    a->major = (unsigned)(sm / 10);
    a->minor = (unsigned)(sm % 10);
    a->flavour = (*end == 'a' || *end == 'f') ? *end : '\0';
    return *end == '\0' || end[1] == '\0';
}

static bool sass_serves(const struct arch *a, unsigned major, unsigned minor)
{
    if (a->flavour == 'a')
        return a->major == major && a->minor == minor;
    return a->major == major && minor >= a->minor;
}

static bool ptx_serves(const struct arch *a, unsigned major, unsigned minor)
{
    if (a->flavour == 'a')
        return a->major == major && a->minor == minor;
    if (a->flavour == 'f')
        return a->major == major && minor >= a->minor;
    return major > a->major || (major == a->major && minor >= a->minor);
}

/* Whether an item of the list, with that prefix, serves the capability as SASS or as PTX. */
static bool list_serves(const char *list, const char *prefix, bool ptx, unsigned major,
                        unsigned minor)
{
    char item[32];
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ", \t");
        snprintf(item, sizeof item, "%.*s", (int)(n < sizeof item - 1 ? n : sizeof item - 1), p);
        struct arch a;
        if (n && parse_arch(item, prefix, &a) &&
            (ptx ? ptx_serves(&a, major, minor) : sass_serves(&a, major, minor)))
            return true;
        p += n;
        p += strspn(p, ", \t");
    }
    return false;
}

enum gd_arch_serve gd_arch_serves(const char *sass, const char *ptx, bool tf_list, unsigned major,
                                  unsigned minor)
{
    if (list_serves(sass, "sm_", false, major, minor) ||
        (tf_list && list_serves(sass, "compute_", false, major, minor)))
        return GD_ARCH_SERVED;
    return list_serves(ptx, "compute_", true, major, minor) ? GD_ARCH_PTX_ONLY : GD_ARCH_NOT_SERVED;
}
