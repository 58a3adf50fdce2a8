#include "parse/childmsg.h"

#include "core/alloc.h"

#include <limits.h>
#include <string.h>

enum gd_status gd_msgs_parse(const char *data, size_t len, struct gd_msgs *out)
{
    memset(out, 0, sizeof *out);
    const char *cur = data, *end = data + len;
    struct gd_span line;
    while (data && gd_next_line(&cur, end, &line)) {
        if (out->n == GD_MSGS_MAX) {
            out->truncated = true;
            break;
        }
        if (gd_grow((void **)&out->lines, &out->cap, out->n + 1, sizeof *out->lines) != 0) {
            gd_msgs_free(out);
            return GD_ENOMEM;
        }
        struct gd_msg *m = &out->lines[out->n++];
        if (!gd_span_split(line, ' ', &m->key, &m->value)) {
            m->key = line;
            m->value = (struct gd_span){ line.p + line.n, 0 };
        }
    }
    return GD_OK;
}

void gd_msgs_free(struct gd_msgs *msgs)
{
    if (!msgs)
        return;
    gd_free(msgs->lines);
    memset(msgs, 0, sizeof *msgs);
}

bool gd_msgs_get(const struct gd_msgs *msgs, const char *key, struct gd_span *value)
{
    size_t k = strlen(key);
    for (size_t i = msgs->n; i-- > 0;) {
        const struct gd_msg *m = &msgs->lines[i];
        if (m->key.n == k && memcmp(m->key.p, key, k) == 0) {
            *value = m->value;
            return true;
        }
    }
    return false;
}

const char *gd_msgs_str(const struct gd_msgs *msgs, const char *key, char *buf, size_t size)
{
    struct gd_span v;
    if (!gd_msgs_get(msgs, key, &v))
        return NULL;
    gd_span_copy(v, buf, size);
    return buf;
}

bool gd_msgs_int(const struct gd_msgs *msgs, const char *key, long long *value)
{
    struct gd_span v;
    if (!gd_msgs_get(msgs, key, &v) || v.n == 0)
        return false;
    size_t i = 0;
    bool negative = v.p[0] == '-';
    if (negative)
        i++;
    if (i == v.n)
        return false;
    unsigned long long acc = 0;
    for (; i < v.n; i++) {
        if (!gd_is_digit(v.p[i]))
            return false;
        unsigned d = (unsigned)(v.p[i] - '0');
        /* LLONG_MAX + 1 is the magnitude of LLONG_MIN. */
        if (acc > ((unsigned long long)LLONG_MAX + 1 - d) / 10)
            return false;
        acc = acc * 10 + d;
    }
    if (!negative && acc > (unsigned long long)LLONG_MAX)
        return false;
    *value = negative ? (acc == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)acc)
                      : (long long)acc;
    return true;
}
