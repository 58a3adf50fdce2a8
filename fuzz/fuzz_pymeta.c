/*
 * Python core metadata: gd_pymeta_parse over the bytes (METADATA, PKG-INFO), the same bytes as
 * an egg's requires.txt (gd_pyreq_parse_requires_txt, twice into one gd_pymeta), the header walk
 * (gd_pymeta_fields), gd_metadata_field for Name and Version, and gd_pyname_normalize /
 * gd_pyname_equal on every name found.
 *
 * Invariants: the status is GD_OK or GD_ELIMIT, and on GD_ELIMIT the metadata is zeroed (or,
 * for requires.txt, as it was before the call). Name and version are terminated inside their
 * buffers, trimmed, pieces of the input once line breaks are removed, and what
 * gd_metadata_field gives. Each requirement's fields are terminated inside their buffers; the
 * name is a PEP 508 name and a piece of the input; specifier and marker are trimmed; a non-empty
 * extra is a piece of the marker; a METADATA requirement written back as
 * "name[extras] specifier ; marker" parses to the same requirement. Extras are unique and
 * non-empty. Counts stay under the caps. Parsing twice gives the same result. Header fields come
 * in input order, inside it, with printable names without ':'. A normalised name is terminated
 * inside exact-size buffers of 1 to 128 bytes, lower case, without '_', '.' or "--", and equal
 * to the name as gd_pyname_equal sees it.
 */
#include "fuzz.h"

#include "parse/pymeta.h"
#include "parse/record.h"

#include <stdbool.h>

static const size_t sizes[] = { 1, 2, 8, 128 };

/* `s` (n bytes) somewhere in [hay, hay + size). memchr finds the candidates: the naive
 * search, a memcmp at every offset, was most of the time of a run under the sanitizers. */
static bool contains(const char *hay, size_t size, const char *s, size_t n)
{
    if (n == 0)
        return true;
    const char *p = (const char *)hay, *end = p + size;
    while (p && (size_t)(end - p) >= n) {
        if (memcmp(p, s, n) == 0)
            return true;
        p = memchr(p + 1, (unsigned char)s[0], (size_t)(end - p - 1));
    }
    return false;
}

static bool space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static bool trimmed(const char *s)
{
    size_t n = strlen(s);
    return n == 0 || (!space(s[0]) && !space(s[n - 1]));
}

static bool alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static void check_name(const char *name)
{
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char *out = malloc(sizes[i]);
        if (!out)
            return;
        gd_pyname_normalize(name, out, sizes[i]);
        size_t n = fuzz_strnlen(out, sizes[i]);
        FUZZ_CHECK(n < sizes[i]);
        for (size_t k = 0; k < n; k++) {
            FUZZ_CHECK(!(out[k] >= 'A' && out[k] <= 'Z') && out[k] != '_' && out[k] != '.');
            FUZZ_CHECK(k == 0 || out[k] != '-' || out[k - 1] != '-');
        }
        if (n < sizes[i] - 1) /* not cut short */
            FUZZ_CHECK(gd_pyname_equal(name, out) && gd_pyname_equal(out, name));
        free(out);
    }
    FUZZ_CHECK(gd_pyname_equal(name, name));
}

/* `flat`: the input without line breaks, of which METADATA values are pieces. */
static void check_req(const struct gd_pyreq *r, const char *flat, size_t flat_size, bool written)
{
    FUZZ_CHECK(fuzz_terminated(r->name, sizeof r->name));
    FUZZ_CHECK(fuzz_terminated(r->extras, sizeof r->extras));
    FUZZ_CHECK(fuzz_terminated(r->specifier, sizeof r->specifier));
    FUZZ_CHECK(fuzz_terminated(r->extra, sizeof r->extra));
    FUZZ_CHECK(fuzz_terminated(r->marker, sizeof r->marker));
    size_t n = strlen(r->name);
    FUZZ_CHECK(n > 0 && alnum(r->name[0]) && alnum(r->name[n - 1]));
    for (size_t k = 0; k < n; k++)
        FUZZ_CHECK(alnum(r->name[k]) || strchr("-_.", r->name[k]));
    FUZZ_CHECK(contains(flat, flat_size, r->name, n));
    FUZZ_CHECK(trimmed(r->specifier) && trimmed(r->marker) && trimmed(r->extra));
    FUZZ_CHECK(!r->extra[0] || strstr(r->marker, r->extra));
    check_name(r->name);
    if (!written)
        return;
    /* Written back, it reads the same. */
    char text[1024];
    int len =
        snprintf(text, sizeof text, "%s%s%s%s %s%s%s", r->name, r->extras[0] ? "[" : "", r->extras,
                 r->extras[0] ? "]" : "", r->specifier, r->marker[0] ? " ; " : "", r->marker);
    FUZZ_CHECK(len > 0 && (size_t)len < sizeof text);
    struct gd_pyreq back;
    FUZZ_CHECK(gd_pyreq_parse(text, (size_t)len, &back));
    FUZZ_CHECK(memcmp(&back, r, sizeof back) == 0);
}

static void check_meta(const struct gd_pymeta *m, const char *flat, size_t flat_size, bool written)
{
    FUZZ_CHECK(m->nrequires <= GD_PYMETA_MAX_REQUIRES && m->nrequires <= m->requires_cap);
    FUZZ_CHECK(m->extras.count <= GD_PYMETA_MAX_EXTRAS);
    for (size_t i = 0; i < m->nrequires; i++)
        check_req(&m->requires[i], flat, flat_size, written);
    for (size_t i = 0; i < m->extras.count; i++) {
        FUZZ_CHECK(m->extras.items[i][0] != '\0');
        for (size_t j = 0; j < i; j++)
            FUZZ_CHECK(strcmp(m->extras.items[i], m->extras.items[j]) != 0);
    }
}

static bool same_meta(const struct gd_pymeta *a, const struct gd_pymeta *b)
{
    if (strcmp(a->name, b->name) || strcmp(a->version, b->version) ||
        a->nrequires != b->nrequires || a->nskipped != b->nskipped ||
        a->extras.count != b->extras.count)
        return false;
    if (a->nrequires && memcmp(a->requires, b->requires, a->nrequires * sizeof *a->requires))
        return false;
    for (size_t i = 0; i < a->extras.count; i++)
        if (strcmp(a->extras.items[i], b->extras.items[i]) != 0)
            return false;
    return true;
}

static void check_field(const char *text, size_t size, const char *field, const char *got)
{
    char buf[128];
    FUZZ_CHECK(fuzz_terminated(got, 128) && trimmed(got));
    if (gd_metadata_field(text, size, field, buf, sizeof buf))
        FUZZ_CHECK(strcmp(buf, got) == 0);
    else
        FUZZ_CHECK(got[0] == '\0');
}

struct walk {
    const char *data, *end, *last;
};

static bool on_field(void *user, const struct gd_pymeta_field *f)
{
    struct walk *w = user;
    FUZZ_CHECK(f->name.p >= w->last && f->name.p + f->name.n <= w->end);
    FUZZ_CHECK(f->raw.p == f->name.p + f->name.n + 1 && f->raw.p + f->raw.n <= w->end);
    FUZZ_CHECK(f->name.p[f->name.n] == ':');
    for (size_t i = 0; i < f->name.n; i++)
        FUZZ_CHECK(f->name.p[i] > ' ' && f->name.p[i] < 0x7f && f->name.p[i] != ':');
    w->last = f->raw.p + f->raw.n;
    return true;
}

static void check_requires_txt(const char *text, size_t size, const char *flat, size_t flat_size)
{
    struct gd_pymeta m;
    memset(&m, 0, sizeof m);
    enum gd_status st = gd_pyreq_parse_requires_txt(text, size, &m);
    FUZZ_CHECK(st == GD_OK || (st == GD_ELIMIT && m.nrequires == 0 && m.extras.count == 0));
    check_meta(&m, flat, flat_size, false);
    /* Appended again: twice the requirements, the same extras; or, past a cap, as it was. */
    size_t nreq = m.nrequires, nextras = m.extras.count, nskipped = m.nskipped;
    st = gd_pyreq_parse_requires_txt(text, size, &m);
    if (st == GD_OK)
        FUZZ_CHECK(m.nrequires == 2 * nreq && m.extras.count == nextras &&
                   m.nskipped == 2 * nskipped);
    else
        FUZZ_CHECK(st == GD_ELIMIT && m.nrequires == nreq && m.extras.count == nextras &&
                   m.nskipped == nskipped);
    check_meta(&m, flat, flat_size, false);
    gd_pymeta_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    char *flat = malloc(size ? size : 1);
    if (!flat)
        return 0;
    size_t flat_size = 0;
    for (size_t i = 0; i < size; i++)
        if (text[i] != '\r' && text[i] != '\n')
            flat[flat_size++] = text[i];

    struct walk w = { text, text + size, text };
    gd_pymeta_fields(text, size, on_field, &w);

    struct gd_pymeta m, again;
    enum gd_status st = gd_pymeta_parse(text, size, &m);
    if (st == GD_OK) {
        check_field(text, size, "Name", m.name);
        check_field(text, size, "Version", m.version);
        FUZZ_CHECK(contains(flat, flat_size, m.name, strlen(m.name)));
        check_meta(&m, flat, flat_size, true);
        FUZZ_CHECK(gd_pymeta_parse(text, size, &again) == GD_OK);
        FUZZ_CHECK(same_meta(&m, &again));
        gd_pymeta_free(&again);
    } else {
        static const struct gd_pymeta zero;
        FUZZ_CHECK(st == GD_ELIMIT && memcmp(&m, &zero, sizeof m) == 0);
    }
    gd_pymeta_free(&m);

    check_requires_txt(text, size, flat, flat_size);
    free(flat);
    return 0;
}
