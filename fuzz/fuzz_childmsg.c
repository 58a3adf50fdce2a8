/*
 * A vendor child's answer: gd_msgs_parse over the bytes, then gd_msgs_get, gd_msgs_str and
 * gd_msgs_int for every key met and for keys that are not there. Invariants: the lines never
 * outnumber GD_MSGS_MAX nor the input's lines; every key and value is a piece of the input
 * without a line break, a key without a space; the value found for a key is that of its last
 * line; a string copy is terminated inside exact-size buffers and a prefix of the value; an
 * integer read is an optional '-' and digits whose value strtoll gives too.
 */
#include "fuzz.h"

#include "parse/childmsg.h"

#include <inttypes.h>

static int inside(const char *text, size_t size, struct gd_span s)
{
    return s.n == 0 || (s.p >= text && s.p + s.n <= text + size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t lines = 0;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (size && data[size - 1] != '\n')
        lines++;
    struct gd_msgs m;
    if (gd_msgs_parse(text, size, &m) != GD_OK)
        return 0;
    FUZZ_CHECK(m.n <= GD_MSGS_MAX && m.n <= lines);
    for (size_t i = 0; i < m.n; i++) {
        struct gd_msg *l = &m.lines[i];
        FUZZ_CHECK(inside(text, size, l->key) && inside(text, size, l->value));
        FUZZ_CHECK(!memchr(l->key.p, '\n', l->key.n) && !memchr(l->key.p, ' ', l->key.n));
        FUZZ_CHECK(!memchr(l->value.p, '\n', l->value.n));
        if (l->key.n >= 64 || memchr(l->key.p, '\0', l->key.n))
            continue;
        char key[64];
        memcpy(key, l->key.p, l->key.n);
        key[l->key.n] = '\0';
        struct gd_span v;
        FUZZ_CHECK(gd_msgs_get(&m, key, &v));
        size_t last = i;
        for (size_t k = i + 1; k < m.n; k++)
            if (m.lines[k].key.n == l->key.n && memcmp(m.lines[k].key.p, key, l->key.n) == 0)
                last = k;
        FUZZ_CHECK(v.p == m.lines[last].value.p && v.n == m.lines[last].value.n);
        for (size_t cap = 1; cap <= 33; cap += 16) {
            char *buf = malloc(cap);
            FUZZ_CHECK(buf && gd_msgs_str(&m, key, buf, cap) == buf);
            FUZZ_CHECK(fuzz_terminated(buf, cap));
            size_t n = strlen(buf);
            FUZZ_CHECK(n <= v.n && memcmp(buf, v.p, n) == 0);
            free(buf);
        }
        long long x;
        if (gd_msgs_int(&m, key, &x)) {
            /* An optional '-' and digits (leading zeros allowed), and strtoll's value. */
            FUZZ_CHECK(v.n > 0);
            for (size_t k = v.p[0] == '-'; k < v.n; k++)
                FUZZ_CHECK(v.p[k] >= '0' && v.p[k] <= '9');
            char copy[64];
            if (v.n < sizeof copy) {
                memcpy(copy, v.p, v.n);
                copy[v.n] = '\0';
                FUZZ_CHECK(strtoll(copy, NULL, 10) == x);
            }
        }
    }
    struct gd_span v;
    FUZZ_CHECK(!gd_msgs_get(&m, "no such key, it has spaces", &v));
    gd_msgs_free(&m);
    return 0;
}
