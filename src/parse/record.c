#include "parse/record.h"

#include "core/str.h"
#include "parse/pymeta.h"

#include <stdbool.h>
#include <string.h>

#define PATH_MAX_LEN 4096

/* One CSV field: quoted ("" is a quote) or up to the next comma. */
static bool field(struct gd_span *rest, char *out, size_t size)
{
    size_t o = 0;
    if (rest->n && rest->p[0] == '"') {
        size_t i = 1;
        for (;;) {
            if (i >= rest->n)
                return false;
            char c = rest->p[i++];
            if (c == '"') {
                if (i < rest->n && rest->p[i] == '"') {
                    i++;
                } else {
                    break;
                }
            }
            if (o + 1 >= size)
                return false;
            out[o++] = c;
        }
        rest->p += i;
        rest->n -= i;
    } else {
        /* The common case, whole: a toolkit's RECORDs are thousands of lines. */
        const char *comma = memchr(rest->p, ',', rest->n);
        size_t i = comma ? (size_t)(comma - rest->p) : rest->n;
        if (i + 1 > size)
            return false;
        memcpy(out, rest->p, i);
        o = i;
        rest->p += i;
        rest->n -= i;
    }
    out[o] = '\0';
    if (rest->n && rest->p[0] == ',') {
        rest->p++;
        rest->n--;
    }
    return true;
}

void gd_parse_record(const char *data, size_t len, gd_record_fn fn, void *user)
{
    char path[PATH_MAX_LEN], hash[256], size[32];
    const char *cur = data, *end = data + len;
    struct gd_span line;
    while (gd_next_line(&cur, end, &line)) {
        if (line.n == 0 || memchr(line.p, '\0', line.n))
            continue;
        struct gd_span rest = line;
        if (!field(&rest, path, sizeof path) || !path[0])
            continue;
        long long n = -1;
        if (field(&rest, hash, sizeof hash) && field(&rest, size, sizeof size) && size[0]) {
            n = 0;
            for (const char *p = size; *p; p++) {
                if (!gd_is_digit(*p) || n > 1000000000000000LL) {
                    n = -1;
                    break;
                }
                n = n * 10 + (*p - '0');
            }
        }
        if (!fn(user, path, n))
            return;
    }
}

bool gd_dist_info_name(const char *dir, char *name, size_t name_size, char *version,
                       size_t version_size)
{
    static const char suffix[] = ".dist-info";
    size_t n = strlen(dir), sl = sizeof suffix - 1;
    if (n <= sl || strcmp(dir + n - sl, suffix) != 0)
        return false;
    /* Wheel names escape '-' in the distribution name as '_', so the first '-' ends it. */
    const char *dash = memchr(dir, '-', n - sl);
    if (!dash || dash == dir || dash + 1 == dir + n - sl)
        return false;
    size_t nl = (size_t)(dash - dir), vl = (size_t)(dir + n - sl - dash - 1);
    if (nl >= name_size || vl >= version_size)
        return false;
    memcpy(name, dir, nl);
    name[nl] = '\0';
    memcpy(version, dash + 1, vl);
    version[vl] = '\0';
    return true;
}

struct field_find {
    const char *want;
    size_t n;
    bool found;
    struct gd_span raw;
};

static bool find_field(void *user, const struct gd_pymeta_field *f)
{
    struct field_find *ff = user;
    if (f->name.n != ff->n)
        return true;
    /* Field names are case-insensitive (core metadata follows RFC 822 headers). */
    for (size_t i = 0; i < ff->n; i++)
        if (gd_to_lower(f->name.p[i]) != gd_to_lower(ff->want[i]))
            return true;
    ff->found = true;
    ff->raw = f->raw;
    return false;
}

bool gd_metadata_field(const char *data, size_t len, const char *field, char *buf, size_t size)
{
    /* The same header walk as gd_pymeta_parse: continuation lines, CR line ends and the end of
     * the headers are read as Python's email parser reads them. */
    struct field_find ff = { field, strlen(field), false, { NULL, 0 } };
    gd_pymeta_fields(data, len, find_field, &ff);
    return ff.found && gd_pymeta_value(ff.raw, buf, size);
}
