#include "parse/pyvenv.h"

#include "core/str.h"

#include <string.h>

bool gd_parse_py_version(const char *s, size_t n, bool whole, char out[GD_PY_VERSION_MAX])
{
    size_t i = 0;
    while (i < n && gd_is_digit(s[i]))
        i++;
    if (i == 0 || i > 2 || i >= n || s[i] != '.')
        return false;
    size_t dot = i++;
    while (i < n && gd_is_digit(s[i]))
        i++;
    if (i == dot + 1 || i - dot > 4 || (whole && i != n))
        return false;
    memcpy(out, s, i);
    out[i] = '\0';
    return true;
}

static bool ieq(struct gd_span s, const char *lit)
{
    size_t n = strlen(lit);
    if (s.n != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (gd_to_lower(s.p[i]) != lit[i])
            return false;
    return true;
}

void gd_parse_pyvenv_cfg(const char *data, size_t len, struct gd_pyvenv_cfg *out)
{
    memset(out, 0, sizeof *out);
    out->system_site = true;
    const char *cur = data, *end = data + len;
    struct gd_span line, key, value;
    while (gd_next_line(&cur, end, &line)) {
        if (!gd_span_split(line, '=', &key, &value))
            continue;
        key = gd_span_trim(key);
        value = gd_span_trim(value);
        if (ieq(key, "include-system-site-packages")) {
            /* site.py: system_site = value.lower(), then compared with "true". */
            out->system_site = ieq(value, "true");
            out->system_site_stated = true;
        } else if (ieq(key, "home")) {
            /* A NUL inside would cut the path short: such a home names no directory. */
            bool usable = value.n < sizeof out->home && !memchr(value.p, '\0', value.n);
            memcpy(out->home, value.p, usable ? value.n : 0);
            out->home[usable ? value.n : 0] = '\0';
        } else if (ieq(key, "version") || ieq(key, "version_info")) {
            char v[GD_PY_VERSION_MAX];
            if (gd_parse_py_version(value.p, value.n, false, v))
                memcpy(out->version, v, sizeof v);
        }
    }
}
