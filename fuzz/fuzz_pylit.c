/*
 * Literal assignments of Python files: gd_pylit_parse over the bytes (build_info.py,
 * version.py, ...), then every accessor on the result.
 *
 * Invariants: the status is GD_OK or GD_ELIMIT, with no file on failure. Every binding's name
 * is a non-empty identifier and a piece of the input, and gd_pylit_get finds for it the value of
 * the last binding of that name. Every value has a known kind; containers nest at most
 * GD_PYLIT_MAX_DEPTH deep; a STR is terminated after its n bytes; a DICT's keys are terminated
 * strings and gd_pylit_key finds for each the last item of that key; an OTHER's text is
 * terminated, without a NUL, shorter than GD_PYLIT_OTHER_TEXT and a piece of the input; a
 * BOOL's i is its b. The error line, if any, is a line of the input. Parsing twice gives equal
 * results; and writing every binding back as Python ("name = <repr>") and parsing that gives
 * equal values again (OTHER written as an f-string, compared by kind).
 */
#include "fuzz.h"

#include "parse/pylit.h"

#include <stdbool.h>

/* `s` (n bytes) somewhere in [data, data + size). memchr finds the candidates: the naive
 * search, a memcmp at every offset, was most of the time of a run under the sanitizers. */
static bool contains(const uint8_t *data, size_t size, const char *s, size_t n)
{
    if (n == 0)
        return true;
    const char *p = (const char *)data, *end = p + size;
    while (p && (size_t)(end - p) >= n) {
        if (memcmp(p, s, n) == 0)
            return true;
        p = memchr(p + 1, (unsigned char)s[0], (size_t)(end - p - 1));
    }
    return false;
}

static bool ident_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80 ||
           (c >= '0' && c <= '9');
}

static void check_value(const uint8_t *data, size_t size, const struct gd_pylit *v, size_t depth)
{
    switch (v->kind) {
    case GD_PYLIT_NONE:
    case GD_PYLIT_INT:
        break;
    case GD_PYLIT_BOOL:
        FUZZ_CHECK(v->i == (long long)v->b);
        break;
    case GD_PYLIT_STR:
        FUZZ_CHECK(v->s && v->s[v->n] == '\0');
        break;
    case GD_PYLIT_OTHER:
        FUZZ_CHECK(v->s && strlen(v->s) == v->n && v->n < GD_PYLIT_OTHER_TEXT);
        FUZZ_CHECK(contains(data, size, v->s, v->n));
        break;
    case GD_PYLIT_LIST:
    case GD_PYLIT_DICT:
        FUZZ_CHECK(depth <= GD_PYLIT_MAX_DEPTH);
        FUZZ_CHECK(v->n == 0 || v->items);
        FUZZ_CHECK((v->kind == GD_PYLIT_DICT && v->n) == (v->keys != NULL));
        for (size_t i = 0; i < v->n; i++) {
            check_value(data, size, &v->items[i], depth + 1);
            if (v->kind != GD_PYLIT_DICT)
                continue;
            FUZZ_CHECK(v->keys[i]);
            size_t last = i;
            for (size_t j = i + 1; j < v->n; j++)
                if (strcmp(v->keys[j], v->keys[i]) == 0)
                    last = j;
            FUZZ_CHECK(gd_pylit_key(v, v->keys[i]) == &v->items[last]);
        }
        break;
    default:
        FUZZ_CHECK(!"a value of no known kind");
    }
    FUZZ_CHECK(v->kind == GD_PYLIT_DICT || gd_pylit_key(v, "") == NULL);
}

/* Equal values; `loose`: OTHER equals any OTHER (its text is not written back). */
static bool same(const struct gd_pylit *a, const struct gd_pylit *b, bool loose)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case GD_PYLIT_NONE:
        return true;
    case GD_PYLIT_BOOL:
        return a->b == b->b;
    case GD_PYLIT_INT:
        return a->i == b->i;
    case GD_PYLIT_STR:
        return a->n == b->n && memcmp(a->s, b->s, a->n) == 0;
    case GD_PYLIT_OTHER:
        return loose || (a->n == b->n && memcmp(a->s, b->s, a->n) == 0);
    case GD_PYLIT_LIST:
    case GD_PYLIT_DICT:
        if (a->n != b->n)
            return false;
        for (size_t i = 0; i < a->n; i++) {
            if (a->kind == GD_PYLIT_DICT && strcmp(a->keys[i], b->keys[i]) != 0)
                return false;
            if (!same(&a->items[i], &b->items[i], loose))
                return false;
        }
        return true;
    }
    return false;
}

static bool same_file(const struct gd_pylit_file *a, const struct gd_pylit_file *b, bool loose)
{
    if (gd_pylit_count(a) != gd_pylit_count(b))
        return false;
    for (size_t i = 0; i < gd_pylit_count(a); i++) {
        const struct gd_pylit *va, *vb;
        const char *na = gd_pylit_binding(a, i, &va), *nb = gd_pylit_binding(b, i, &vb);
        if (strcmp(na, nb) != 0 || !same(va, vb, loose))
            return false;
    }
    return true;
}

/* Python source that gives back the value: growing text in `*out` (NULL when out of memory). */
struct text {
    char *p;
    size_t n, cap;
};

static void put(struct text *t, const char *s, size_t n)
{
    if (!t->p)
        return;
    if (t->n + n + 1 > t->cap) {
        size_t cap = (t->n + n + 1) * 2;
        char *p = realloc(t->p, cap);
        if (!p) {
            free(t->p);
            t->p = NULL;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n] = '\0';
}

static void put_s(struct text *t, const char *s)
{
    put(t, s, strlen(s));
}

static void put_str(struct text *t, const char *s, size_t n)
{
    put_s(t, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            snprintf(esc, sizeof esc, "\\%c", c);
        } else if (c < 0x20 || c == 0x7f) {
            snprintf(esc, sizeof esc, "\\x%02x", c);
        } else {
            /* Bytes from 0x80 up are copied as they are, so they are written as they are. */
            esc[0] = (char)c;
            esc[1] = '\0';
        }
        put_s(t, esc);
    }
    put_s(t, "\"");
}

static void write_value(struct text *t, const struct gd_pylit *v)
{
    char num[32];
    switch (v->kind) {
    case GD_PYLIT_NONE:
        put_s(t, "None");
        break;
    case GD_PYLIT_BOOL:
        put_s(t, v->b ? "True" : "False");
        break;
    case GD_PYLIT_INT:
        snprintf(num, sizeof num, "%lld", v->i);
        put_s(t, num);
        break;
    case GD_PYLIT_STR:
        put_str(t, v->s, v->n);
        break;
    case GD_PYLIT_OTHER:
        put_s(t, "f\"\"");
        break;
    case GD_PYLIT_LIST:
    case GD_PYLIT_DICT:
        put_s(t, v->kind == GD_PYLIT_LIST ? "[" : "{");
        for (size_t i = 0; i < v->n; i++) {
            if (v->kind == GD_PYLIT_DICT) {
                put_str(t, v->keys[i], strlen(v->keys[i]));
                put_s(t, ": ");
            }
            write_value(t, &v->items[i]);
            put_s(t, ", ");
        }
        put_s(t, v->kind == GD_PYLIT_LIST ? "]" : "}");
        break;
    }
}

static void check_round_trip(const struct gd_pylit_file *f)
{
    struct text t = { malloc(64), 0, 64 };
    if (t.p)
        t.p[0] = '\0';
    for (size_t i = 0; i < gd_pylit_count(f); i++) {
        const struct gd_pylit *v;
        put_s(&t, gd_pylit_binding(f, i, &v));
        put_s(&t, " = ");
        write_value(&t, v);
        put_s(&t, "\n");
    }
    if (!t.p || t.n > GD_PYLIT_MAX_FILE) {
        free(t.p);
        return;
    }
    struct gd_pylit_file *back = NULL;
    enum gd_status st = gd_pylit_parse(t.p, t.n, &back);
    if (st == GD_OK) {
        if (!same_file(f, back, true)) {
            fprintf(stderr, "written back as:\n%s\n", t.p);
            FUZZ_CHECK(same_file(f, back, true));
        }
        FUZZ_CHECK(gd_pylit_error_line(back) == 0);
    } else {
        FUZZ_CHECK(st == GD_ELIMIT);
    }
    gd_pylit_free(back);
    free(t.p);
}

static void check_bindings(const uint8_t *data, size_t size, const struct gd_pylit_file *f)
{
    size_t count = gd_pylit_count(f);
    FUZZ_CHECK(gd_pylit_binding(f, count, NULL) == NULL);
    for (size_t i = 0; i < count; i++) {
        const struct gd_pylit *v = NULL;
        const char *name = gd_pylit_binding(f, i, &v);
        FUZZ_CHECK(name && v);
        size_t n = strlen(name);
        FUZZ_CHECK(n > 0 && !(name[0] >= '0' && name[0] <= '9'));
        for (size_t k = 0; k < n; k++)
            FUZZ_CHECK(ident_char((unsigned char)name[k]));
        FUZZ_CHECK(contains(data, size, name, n));
        check_value(data, size, v, 0);
        const struct gd_pylit *last = v;
        for (size_t j = i + 1; j < count; j++) {
            const struct gd_pylit *w;
            if (strcmp(gd_pylit_binding(f, j, &w), name) == 0)
                last = w;
        }
        FUZZ_CHECK(gd_pylit_get(f, name) == last);
    }
    FUZZ_CHECK(gd_pylit_get(f, "") == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gd_pylit_file *f = (struct gd_pylit_file *)&f;
    enum gd_status st = gd_pylit_parse((const char *)data, size, &f);
    if (st != GD_OK) {
        FUZZ_CHECK(st == GD_ELIMIT && f == NULL);
        return 0;
    }
    FUZZ_CHECK(f != NULL);
    size_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n' || (data[i] == '\r' && (i + 1 == size || data[i + 1] != '\n'));
    FUZZ_CHECK(gd_pylit_error_line(f) <= lines);
    check_bindings(data, size, f);

    struct gd_pylit_file *again = NULL;
    FUZZ_CHECK(gd_pylit_parse((const char *)data, size, &again) == GD_OK);
    FUZZ_CHECK(same_file(f, again, false));
    FUZZ_CHECK(gd_pylit_error_line(f) == gd_pylit_error_line(again));
    gd_pylit_free(again);

    check_round_trip(f);
    gd_pylit_free(f);
    return 0;
}
