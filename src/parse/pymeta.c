#include "parse/pymeta.h"

#include "core/alloc.h"

#include <stdio.h>
#include <string.h>

/* ---- lines and header fields ------------------------------------------------------------ */

/* Next line of [*cur, end) without its break; Python's email parser (and universal newlines)
 * ends a line at "\r\n", "\n" or a lone "\r". */
static bool next_line(const char **cur, const char *end, struct gd_span *line)
{
    const char *p = *cur;
    if (p >= end)
        return false;
    const char *q = p;
    while (q < end && *q != '\n' && *q != '\r')
        q++;
    line->p = p;
    line->n = (size_t)(q - p);
    if (q < end)
        q += (*q == '\r' && q + 1 < end && q[1] == '\n') ? 2 : 1;
    *cur = q;
    return true;
}

/* The email parser's header line: printable ASCII other than ':' and space, then ':'
 * (email.feedparser headerRE). Sets the name's length. */
static bool field_line(struct gd_span line, size_t *name_len)
{
    for (size_t i = 0; i < line.n; i++) {
        unsigned char c = (unsigned char)line.p[i];
        if (c == ':') {
            *name_len = i;
            return true;
        }
        if (c < 0x21 || c > 0x7e)
            return false;
    }
    return false;
}

static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

void gd_pymeta_fields(const char *data, size_t len, gd_pymeta_field_fn fn, void *user)
{
    const char *cur = data, *end = data + len;
    struct gd_pymeta_field field = { { NULL, 0 }, { NULL, 0 } };
    bool open = false;
    struct gd_span line;
    while (next_line(&cur, end, &line)) {
        if (line.n == 0)
            break; /* the description starts */
        if (blank(line.p[0])) {
            /* A continuation: the raw value grows to the end of this line. A continuation with
             * no field before it is a defect the email parser ignores. */
            if (open)
                field.raw.n = (size_t)(line.p + line.n - field.raw.p);
            continue;
        }
        size_t nl;
        if (!field_line(line, &nl))
            break; /* not a header: the email parser takes it as the start of the body */
        if (open && !fn(user, &field))
            return;
        field.name = (struct gd_span){ line.p, nl };
        field.raw = (struct gd_span){ line.p + nl + 1, line.n - nl - 1 };
        open = true;
    }
    if (open)
        fn(user, &field);
}

bool gd_pymeta_value(struct gd_span raw, char *buf, size_t size)
{
    /* Unfolding removes the line breaks only (RFC 5322 2.2.3): "a\n  b" is "a  b". */
    size_t first = 0, last = raw.n;
    while (first < raw.n && gd_is_space(raw.p[first]))
        first++;
    while (last > first && gd_is_space(raw.p[last - 1]))
        last--;
    size_t n = 0;
    for (size_t i = first; i < last; i++) {
        char c = raw.p[i];
        if (c == '\0')
            return false;
        n += c != '\r' && c != '\n';
    }
    if (n == 0 || n >= size)
        return false;
    size_t o = 0;
    for (size_t i = first; i < last; i++)
        if (raw.p[i] != '\r' && raw.p[i] != '\n')
            buf[o++] = raw.p[i];
    buf[o] = '\0';
    return true;
}

/* ---- PEP 508 requirements ----------------------------------------------------------------- */

static bool name_char(char c)
{
    return gd_is_alpha(c) || gd_is_digit(c) || c == '-' || c == '_' || c == '.';
}

static bool alnum(char c)
{
    return gd_is_alpha(c) || gd_is_digit(c);
}

static size_t skip_ws(const char *s, size_t i, size_t n)
{
    while (i < n && gd_is_space(s[i]))
        i++;
    return i;
}

/* Copy [p, p + n) trimmed into `buf`; false when it does not fit. */
static bool copy_trimmed(const char *p, size_t n, char *buf, size_t size)
{
    struct gd_span t = gd_span_trim((struct gd_span){ p, n });
    if (t.n >= size)
        return false;
    if (t.n)
        memcpy(buf, t.p, t.n);
    buf[t.n] = '\0';
    return true;
}

/* "[a, b]": the extras, joined with ',' without blanks. Returns the index after ']' or 0. */
static size_t parse_extras(const char *s, size_t i, size_t n, char *buf, size_t size)
{
    size_t o = 0;
    i++; /* '[' */
    for (;;) {
        i = skip_ws(s, i, n);
        if (i < n && s[i] == ']' && o == 0)
            break; /* "[]" */
        size_t start = i;
        while (i < n && name_char(s[i]))
            i++;
        /* Room for the separator, the name and the final NUL. */
        size_t need = (o ? o + 1 : 0) + (i - start) + 1;
        if (i == start || need > size)
            return 0;
        if (o)
            buf[o++] = ',';
        memcpy(buf + o, s + start, i - start);
        o += i - start;
        i = skip_ws(s, i, n);
        if (i < n && s[i] == ',') {
            i++;
            continue;
        }
        if (i < n && s[i] == ']')
            break;
        return 0;
    }
    buf[o] = '\0';
    return i + 1;
}

/* Characters of a version specifier list (PEP 440 versions, operators, wildcards, epochs). */
static bool spec_chars(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (!alnum(c) && !gd_is_space(c) && !strchr(".,*+!=<>~_-", c))
            return false;
    }
    return true;
}

/* The version part: "(>=1.0)" or ">=1.0,<2" (parentheses removed), or a URL "@ https://...". */
static bool parse_spec(const char *p, size_t n, char *buf, size_t size)
{
    struct gd_span t = gd_span_trim((struct gd_span){ p, n });
    if (t.n && t.p[0] == '@')
        return copy_trimmed(t.p, t.n, buf, size);
    if (t.n && t.p[0] == '(') {
        if (t.p[t.n - 1] != ')')
            return false;
        t = gd_span_trim((struct gd_span){ t.p + 1, t.n - 2 });
    }
    return spec_chars(t.p, t.n) && copy_trimmed(t.p, t.n, buf, size);
}

/* A marker token: a quoted string, a word, an operator or a parenthesis. */
struct mtok {
    const char *p;
    size_t n;
    char kind; /* 's' string (p, n: the contents), 'w' word, 'o' operator, '(' or ')' */
};

static bool next_mtok(const char *s, size_t n, size_t *i, struct mtok *t)
{
    size_t k = skip_ws(s, *i, n);
    if (k >= n)
        return false;
    char c = s[k];
    size_t start = k;
    if (c == '"' || c == '\'') {
        /* PEP 508 marker strings have no escapes. */
        const char *close = memchr(s + k + 1, c, n - k - 1);
        if (!close)
            return false;
        *t = (struct mtok){ s + k + 1, (size_t)(close - s) - k - 1, 's' };
        *i = (size_t)(close - s) + 1;
        return true;
    }
    if (c == '(' || c == ')') {
        *t = (struct mtok){ s + k, 1, c };
        *i = k + 1;
        return true;
    }
    char kind = strchr("=!<>~", c) ? 'o' : 'w';
    while (k < n && !gd_is_space(s[k]) && !strchr("\"'()", s[k]) &&
           (strchr("=!<>~", s[k]) != NULL) == (kind == 'o'))
        k++;
    *t = (struct mtok){ s + start, k - start, kind };
    *i = k;
    return true;
}

static bool mtok_is(const struct mtok *t, char kind, const char *text)
{
    return t->kind == kind && t->n == strlen(text) && memcmp(t->p, text, t->n) == 0;
}

/* The first `extra == "name"` (or `"name" == extra`) comparison of a marker into `buf`; "" when
 * none. False when the name does not fit. */
static bool marker_extra(const char *s, size_t n, char *buf, size_t size)
{
    struct mtok t[3];
    size_t have = 0, i = 0;
    buf[0] = '\0';
    struct mtok cur;
    while (next_mtok(s, n, &i, &cur)) {
        if (have == 3) {
            t[0] = t[1];
            t[1] = t[2];
            have = 2;
        }
        t[have++] = cur;
        if (have < 3 || !mtok_is(&t[1], 'o', "=="))
            continue;
        const struct mtok *name = NULL;
        if (mtok_is(&t[0], 'w', "extra") && t[2].kind == 's')
            name = &t[2];
        else if (t[0].kind == 's' && mtok_is(&t[2], 'w', "extra"))
            name = &t[0];
        if (name)
            return copy_trimmed(name->p, name->n, buf, size);
    }
    return true;
}

/* Where the version part ends: the first ';', or for a URL the first ';' after a blank (PEP 508
 * asks for one there, since a URL may hold ';'). */
static size_t marker_start(const char *s, size_t i, size_t n)
{
    bool url = i < n && s[i] == '@';
    for (size_t k = i; k < n; k++)
        if (s[k] == ';' && (!url || (k > i && gd_is_space(s[k - 1]))))
            return k;
    return n;
}

bool gd_pyreq_parse(const char *text, size_t len, struct gd_pyreq *out)
{
    memset(out, 0, sizeof *out);
    if (memchr(text, '\0', len))
        return false;
    size_t i = skip_ws(text, 0, len), start = i;
    /* PEP 508 names start and end with a letter or digit. */
    while (i < len && name_char(text[i]))
        i++;
    size_t nl = i - start;
    if (nl == 0 || !alnum(text[start]) || !alnum(text[i - 1]) || nl >= sizeof out->name)
        goto bad;
    memcpy(out->name, text + start, nl);
    i = skip_ws(text, i, len);
    if (i < len && text[i] == '[') {
        i = parse_extras(text, i, len, out->extras, sizeof out->extras);
        if (i == 0)
            goto bad;
        i = skip_ws(text, i, len);
    }
    size_t semi = marker_start(text, i, len);
    if (!parse_spec(text + i, semi - i, out->specifier, sizeof out->specifier))
        goto bad;
    if (semi < len) {
        const char *m = text + semi + 1;
        size_t mn = len - semi - 1;
        if (!copy_trimmed(m, mn, out->marker, sizeof out->marker) || !out->marker[0] ||
            !marker_extra(m, mn, out->extra, sizeof out->extra))
            goto bad;
    }
    return true;
bad:
    memset(out, 0, sizeof *out);
    return false;
}

/* ---- METADATA ---------------------------------------------------------------------------- */

static enum gd_status push_req(struct gd_pymeta *meta, const struct gd_pyreq *req)
{
    if (meta->nrequires >= GD_PYMETA_MAX_REQUIRES)
        return GD_ELIMIT;
    if (gd_grow((void **)&meta->requires, &meta->requires_cap, meta->nrequires + 1,
                sizeof *meta->requires) != 0)
        return GD_ENOMEM;
    meta->requires[meta->nrequires++] = *req;
    return GD_OK;
}

static enum gd_status push_extra(struct gd_pymeta *meta, const char *extra)
{
    if (gd_strlist_contains(&meta->extras, extra))
        return GD_OK;
    if (meta->extras.count >= GD_PYMETA_MAX_EXTRAS)
        return GD_ELIMIT;
    return gd_strlist_push(&meta->extras, extra);
}

struct meta_walk {
    struct gd_pymeta *meta;
    bool have_name, have_version;
    enum gd_status status;
    char line[GD_PYMETA_LINE_MAX];
};

static bool field_is(const struct gd_pymeta_field *f, const char *name)
{
    size_t n = strlen(name);
    if (f->name.n != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (gd_to_lower(f->name.p[i]) != gd_to_lower(name[i]))
            return false;
    return true;
}

/* Name and Version: the first field counts, as email.message.Message.get() answers. */
static void first_value(const struct gd_pymeta_field *f, bool *have, char *buf, size_t size)
{
    if (*have)
        return;
    *have = true;
    if (!gd_pymeta_value(f->raw, buf, size))
        buf[0] = '\0';
}

static bool on_meta_field(void *user, const struct gd_pymeta_field *f)
{
    struct meta_walk *w = user;
    struct gd_pymeta *m = w->meta;
    if (field_is(f, "Name")) {
        first_value(f, &w->have_name, m->name, sizeof m->name);
    } else if (field_is(f, "Version")) {
        first_value(f, &w->have_version, m->version, sizeof m->version);
    } else if (field_is(f, "Requires-Dist")) {
        struct gd_pyreq req;
        if (gd_pymeta_value(f->raw, w->line, sizeof w->line) &&
            gd_pyreq_parse(w->line, strlen(w->line), &req))
            w->status = push_req(m, &req);
        else
            m->nskipped++;
    } else if (field_is(f, "Provides-Extra")) {
        if (gd_pymeta_value(f->raw, w->line, sizeof w->line))
            w->status = push_extra(m, w->line);
    }
    return w->status == GD_OK;
}

enum gd_status gd_pymeta_parse(const char *data, size_t len, struct gd_pymeta *out)
{
    memset(out, 0, sizeof *out);
    struct meta_walk *w = gd_calloc(1, sizeof *w);
    if (!w)
        return GD_ENOMEM;
    w->meta = out;
    gd_pymeta_fields(data, len, on_meta_field, w);
    enum gd_status st = w->status;
    gd_free(w);
    if (st != GD_OK)
        gd_pymeta_free(out);
    return st;
}

void gd_pymeta_free(struct gd_pymeta *meta)
{
    if (!meta)
        return;
    gd_free(meta->requires);
    gd_strlist_free(&meta->extras);
    memset(meta, 0, sizeof *meta);
}

/* ---- requires.txt ------------------------------------------------------------------------- */

/* The current section: its extra and the marker its lines get (importlib.metadata's
 * _convert_egg_info_reqs_to_simple_reqs: "(marker) and extra == \"x\""). */
struct section {
    bool bad; /* a malformed heading: skip lines until the next good one */
    char extra[64];
    char cond[256];
};

static bool set_section(struct section *sec, struct gd_span head)
{
    struct gd_span extra = head, marker = { head.p, 0 };
    gd_span_split(head, ':', &extra, &marker);
    extra = gd_span_trim(extra);
    marker = gd_span_trim(marker);
    memset(sec, 0, sizeof *sec);
    /* The bounds also keep the "%.*s" precisions below far inside an int. */
    if (extra.n >= sizeof sec->extra || marker.n >= sizeof sec->cond ||
        memchr(head.p, '\0', head.n))
        return false;
    gd_span_copy(extra, sec->extra, sizeof sec->extra);
    int n;
    if (extra.n && marker.n)
        n = snprintf(sec->cond, sizeof sec->cond, "(%.*s) and extra == \"%s\"", (int)marker.n,
                     marker.p, sec->extra);
    else if (marker.n)
        n = snprintf(sec->cond, sizeof sec->cond, "%.*s", (int)marker.n, marker.p);
    else if (extra.n)
        n = snprintf(sec->cond, sizeof sec->cond, "extra == \"%s\"", sec->extra);
    else
        n = 0;
    return n >= 0 && (size_t)n < sizeof sec->cond;
}

/* A requirement line of the section: its own marker, if any, joined to the section's. */
static bool section_req(const struct section *sec, struct gd_span line, struct gd_pyreq *req)
{
    if (!gd_pyreq_parse(line.p, line.n, req))
        return false;
    if (!sec->cond[0])
        return true;
    char own[sizeof req->marker];
    memcpy(own, req->marker, sizeof own);
    int n = own[0] ? snprintf(req->marker, sizeof req->marker, "(%s) and %s", own, sec->cond)
                   : snprintf(req->marker, sizeof req->marker, "%s", sec->cond);
    if (n < 0 || (size_t)n >= sizeof req->marker)
        return false;
    if (sec->extra[0])
        memcpy(req->extra, sec->extra, sizeof req->extra);
    return true;
}

static enum gd_status requires_line(struct gd_pymeta *meta, struct section *sec,
                                    struct gd_span line)
{
    struct gd_span t = gd_span_trim(line);
    if (t.n == 0 || t.p[0] == '#')
        return GD_OK;
    if (t.p[0] == '[') {
        /* pkg_resources.split_sections: "[" ... "]", the inside stripped. */
        sec->bad = t.n < 2 || t.p[t.n - 1] != ']' ||
                   !set_section(sec, (struct gd_span){ t.p + 1, t.n - 2 });
        if (sec->bad) {
            meta->nskipped++;
            return GD_OK;
        }
        return sec->extra[0] ? push_extra(meta, sec->extra) : GD_OK;
    }
    struct gd_pyreq req;
    if (sec->bad || t.n >= GD_PYMETA_LINE_MAX || !section_req(sec, t, &req)) {
        meta->nskipped++;
        return GD_OK;
    }
    return push_req(meta, &req);
}

enum gd_status gd_pyreq_parse_requires_txt(const char *data, size_t len, struct gd_pymeta *meta)
{
    size_t nreq = meta->nrequires, nextras = meta->extras.count, nskipped = meta->nskipped;
    struct section sec;
    memset(&sec, 0, sizeof sec);
    const char *cur = data, *end = data + len;
    struct gd_span line;
    enum gd_status st = GD_OK;
    while (st == GD_OK && next_line(&cur, end, &line))
        st = requires_line(meta, &sec, line);
    if (st != GD_OK) {
        /* As before the call: what this call appended is dropped. */
        meta->nrequires = nreq;
        meta->nskipped = nskipped;
        for (size_t i = nextras; i < meta->extras.count; i++)
            gd_free(meta->extras.items[i]);
        meta->extras.count = nextras;
    }
    return st;
}

/* ---- PEP 503 names ------------------------------------------------------------------------ */

static bool separator(char c)
{
    return c == '-' || c == '_' || c == '.';
}

/* The next character of the normalised name at `*p`, or '\0' at its end. */
static char next_norm(const char **p)
{
    const char *s = *p;
    if (!*s)
        return '\0';
    if (separator(*s)) {
        while (separator(*s))
            s++;
        *p = s;
        return '-';
    }
    *p = s + 1;
    return gd_to_lower(*s);
}

void gd_pyname_normalize(const char *in, char *out, size_t size)
{
    if (size == 0)
        return;
    size_t o = 0;
    char c;
    while (o + 1 < size && (c = next_norm(&in)) != '\0')
        out[o++] = c;
    out[o] = '\0';
}

bool gd_pyname_equal(const char *a, const char *b)
{
    if (!a || !b)
        return false;
    for (;;) {
        char x = next_norm(&a), y = next_norm(&b);
        if (x != y)
            return false;
        if (x == '\0')
            return true;
    }
}
