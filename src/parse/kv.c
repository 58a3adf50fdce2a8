#include "parse/kv.h"

#include "core/alloc.h"
#include "core/str.h"

#include <string.h>

static bool valid_key(struct gd_span k)
{
    if (k.n == 0 || k.n >= GD_KV_KEY_MAX || gd_is_digit(k.p[0]))
        return false;
    for (size_t i = 0; i < k.n; i++)
        if (!(gd_is_alpha(k.p[i]) || gd_is_digit(k.p[i]) || k.p[i] == '_'))
            return false;
    return true;
}

/* os-release(5): "Variable assignment values must be enclosed in double or single quotes if they
 * include spaces, semicolons or other special characters"; backslash escapes inside double
 * quotes. Returns false for an unterminated quote. */
static bool unquote(struct gd_span v, char *out, size_t size)
{
    size_t o = 0;
    char quote = 0;
    for (size_t i = 0; i < v.n; i++) {
        char c = v.p[i];
        if (quote) {
            if (c == quote) {
                quote = 0;
                continue;
            }
            /* Inside double quotes a backslash escapes only what the shell lets it escape
             * ($, `, " and itself); before anything else it stays, as sh and systemd keep it. */
            if (quote == '"' && c == '\\' && i + 1 < v.n && memchr("$`\"\\", v.p[i + 1], 4))
                c = v.p[++i];
        } else if (c == '"' || c == '\'') {
            quote = c;
            continue;
        } else if (c == '\\' && i + 1 < v.n) {
            c = v.p[++i];
        }
        if (o + 1 >= size)
            return false;
        out[o++] = c;
    }
    out[o] = '\0';
    return quote == 0;
}

enum gd_status gd_parse_kv(const char *data, size_t len, enum gd_kv_style style, gd_kv_fn fn,
                           void *user, size_t *bad)
{
    size_t nbad = 0, lineno = 0;
    char key[GD_KV_KEY_MAX];
    char *value = gd_malloc(GD_KV_VALUE_MAX);
    if (!value)
        return GD_ENOMEM;
    const char *cur = data, *end = data + len;
    struct gd_span line;
    while (gd_next_line(&cur, end, &line)) {
        lineno++;
        struct gd_span t = gd_span_trim(line);
        if (t.n == 0 || t.p[0] == '#')
            continue;
        struct gd_span k, v;
        if (style == GD_KV_PLAIN) {
            /* docker env-file: leading white space is trimmed, the value is kept verbatim. */
            struct gd_span l = line;
            while (l.n && gd_is_space(l.p[0])) {
                l.p++;
                l.n--;
            }
            t = l;
        }
        if (!gd_span_split(t, '=', &k, &v)) {
            nbad++;
            continue;
        }
        if (style == GD_KV_SHELL) {
            k = gd_span_trim(k);
            v = gd_span_trim(v);
        }
        if (!valid_key(k) || v.n >= GD_KV_VALUE_MAX) {
            nbad++;
            continue;
        }
        gd_span_copy(k, key, sizeof key);
        if (style == GD_KV_SHELL) {
            if (!unquote(v, value, GD_KV_VALUE_MAX)) {
                nbad++;
                continue;
            }
        } else {
            gd_span_copy(v, value, GD_KV_VALUE_MAX);
        }
        if (memchr(v.p, '\0', v.n)) {
            nbad++;
            continue;
        }
        if (!fn(user, key, value, lineno))
            break;
    }
    gd_free(value);
    if (bad)
        *bad = nbad;
    return GD_OK;
}
