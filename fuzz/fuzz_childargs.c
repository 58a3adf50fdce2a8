/*
 * A function child's argument as text (src/os/os.h, struct gd_child_def): the values of the
 * probes' child functions (src/probe/childfns.h) rebuilt by each one's `unpack`, as a child
 * started again on Windows rebuilds them from its command line. The input is split into up to
 * GD_CHILD_ARGS_MAX values at newlines, a line "!" being no value. Invariants: unpack never reads
 * past the values; an argument it accepts packs again into values that it accepts too, and that
 * pack back the same (so what a child rebuilds is what the parent sent); gd_child_args_get_int
 * accepts exactly an optional sign and digits, which strtoll reads whole.
 */
#include "fuzz.h"

#include "probe/childfns.h"

#include <errno.h>

static bool same_values(const struct gd_child_args *a, const struct gd_child_args *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        if (!a->v[i] != !b->v[i])
            return false;
        if (a->v[i] && strcmp(a->v[i], b->v[i]) != 0)
            return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The values: NUL-terminated copies of the lines. */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct gd_child_args in;
    memset(&in, 0, sizeof in);
    for (char *p = text; in.n < GD_CHILD_ARGS_MAX && p <= text + size;) {
        char *nl = memchr(p, '\n', (size_t)(text + size - p));
        if (nl)
            *nl = '\0';
        gd_child_args_str(&in, strcmp(p, "!") == 0 ? NULL : p);
        if (!nl)
            break;
        p = nl + 1;
    }
    for (size_t i = 0; i < in.n; i++) {
        long long v;
        if (!gd_child_args_get_int(&in, i, &v))
            continue;
        const char *s = in.v[i];
        FUZZ_CHECK(s && *s);
        size_t sign = s[0] == '-' || s[0] == '+';
        FUZZ_CHECK(s[sign] && strspn(s + sign, "0123456789") == strlen(s + sign));
        char *end = NULL;
        errno = 0;
        FUZZ_CHECK(strtoll(s, &end, 10) == v && *end == '\0' && errno == 0);
    }
    for (size_t d = 0; d < gd_probe_child_def_count; d++) {
        const struct gd_child_def *def = gd_probe_child_defs[d];
        if (!def->unpack)
            continue;
        void *arg = calloc(1, def->arg_size), *again = calloc(1, def->arg_size);
        FUZZ_CHECK(arg && again);
        if (def->unpack(&in, arg)) {
            struct gd_child_args out, out2;
            memset(&out, 0, sizeof out);
            memset(&out2, 0, sizeof out2);
            def->pack(arg, &out);
            FUZZ_CHECK(def->unpack(&out, again));
            def->pack(again, &out2);
            FUZZ_CHECK(same_values(&out, &out2));
        }
        free(arg);
        free(again);
    }
    free(text);
    return 0;
}
