#include "parse/nvidia_proc.h"

#include "core/str.h"

#include <string.h>

static size_t digits(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && gd_is_digit(s[i]))
        i++;
    return i;
}

bool gd_find_driver_version(const char *s, size_t n, char *buf, size_t size)
{
    for (size_t i = 0; i < n; i++) {
        /* A token starts the text or follows white space: "64.1" in "x86_64.1" is none. */
        if (!gd_is_digit(s[i]) || (i > 0 && !gd_is_space(s[i - 1])))
            continue;
        size_t a = digits(s + i, n - i);
        size_t at = i + a;
        if (a == 0 || at >= n || s[at] != '.')
            continue;
        size_t b = digits(s + at + 1, n - at - 1);
        if (b == 0)
            continue;
        at += 1 + b;
        if (at < n && s[at] == '.') {
            size_t c = digits(s + at + 1, n - at - 1);
            if (c > 0)
                at += 1 + c;
        }
        /* A token, not a part of a longer word like "x86_64.1". */
        if (at < n && !gd_is_space(s[at]))
            continue;
        struct gd_span tok = { s + i, at - i };
        if (tok.n >= size)
            return false;
        gd_span_copy(tok, buf, size);
        return true;
    }
    return false;
}

enum gd_status gd_parse_nvidia_proc_version(const char *data, size_t len,
                                            struct gd_nvidia_proc_version *out)
{
    memset(out, 0, sizeof *out);
    bool found = false;
    const char *cur = data, *end = data + len;
    struct gd_span line;
    while (gd_next_line(&cur, end, &line)) {
        struct gd_span t = gd_span_trim(line);
        if (!found && gd_span_starts_with(t, "NVRM version:")) {
            struct gd_span rest = { t.p + 13, t.n - 13 };
            /* Skip "x86_64" and similar: a version token needs its own white space. */
            if (gd_find_driver_version(rest.p, rest.n, out->version, sizeof out->version)) {
                found = true;
                out->open_module = gd_span_find(rest, "Open Kernel Module") != NULL;
            }
        } else if (gd_span_starts_with(t, "GCC version:")) {
            struct gd_span g = gd_span_trim((struct gd_span){ t.p + 12, t.n - 12 });
            gd_span_copy(g, out->gcc, sizeof out->gcc);
        }
    }
    return found ? GD_OK : GD_EFORMAT;
}
