/*
 * Windows path text into a root path: gd_winpath_to_root on a NUL-terminated copy of the input
 * (an environment variable's value), for drive C: and for a small output buffer.
 *
 * Invariants: on success the path starts with '/', has no backslash, no empty or "." component
 * and no trailing '/' (but for "/" itself), and fits; on failure the output is empty; the reason
 * for a failure is a string.
 */
#include "fuzz.h"

#include "core/winpath.h"

static void check(const char *in, size_t size)
{
    char out[4096], why[64];
    if (size > sizeof out)
        size = sizeof out;
    enum gd_winpath_result r = gd_winpath_to_root(in, 'C', out, size);
    FUZZ_CHECK(gd_winpath_why(r, 'C', why, sizeof why) != NULL);
    FUZZ_CHECK(fuzz_terminated(out, size));
    if (r != GD_WINPATH_OK) {
        FUZZ_CHECK(out[0] == '\0');
        return;
    }
    size_t n = strlen(out);
    FUZZ_CHECK(n >= 1 && out[0] == '/');
    FUZZ_CHECK(strchr(out, '\\') == NULL);
    FUZZ_CHECK(strstr(out, "//") == NULL && strstr(out, "/./") == NULL);
    FUZZ_CHECK(n == 1 ||
               (out[n - 1] != '/' && !(n >= 2 && out[n - 2] == '/' && out[n - 1] == '.')));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    check(s, 4096);
    check(s, 16);
    free(s);
    return 0;
}
