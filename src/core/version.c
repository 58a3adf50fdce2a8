#include "core/version.h"

#include "core/str.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* No version number in the stack comes near this; larger ones are rejected as malformed. */
#define PART_MAX 999999999UL

struct cursor {
    const char *p, *end;
};

static bool at_end(const struct cursor *c)
{
    return c->p >= c->end;
}

static bool read_number(struct cursor *c, unsigned long *out)
{
    if (at_end(c) || !gd_is_digit(*c->p))
        return false;
    unsigned long v = 0;
    while (!at_end(c) && gd_is_digit(*c->p)) {
        v = v * 10 + (unsigned long)(*c->p - '0');
        if (v > PART_MAX)
            return false;
        c->p++;
    }
    *out = v;
    return true;
}

static bool is_sep(char ch)
{
    return ch == '.' || ch == '-' || ch == '_';
}

/* Match a word case-insensitively at the cursor (not followed by a letter); advance on success. */
static bool take_word(struct cursor *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (gd_to_lower(c->p[i]) != word[i])
            return false;
    if (c->p + n < c->end && gd_is_alpha(c->p[n]))
        return false;
    c->p += n;
    return true;
}

/* An optional separator followed by one of the words; restores the cursor on failure. */
static bool take_tag(struct cursor *c, const char *const *words, size_t nwords, size_t *which)
{
    struct cursor save = *c;
    if (!at_end(c) && is_sep(*c->p))
        c->p++;
    for (size_t i = 0; i < nwords; i++) {
        if (take_word(c, words[i])) {
            *which = i;
            return true;
        }
    }
    *c = save;
    return false;
}

/* Optional separator and number after a pre/post/dev word; an absent number means 0 (PEP 440). */
static unsigned long take_tag_number(struct cursor *c)
{
    struct cursor save = *c;
    unsigned long n = 0;
    if (!at_end(c) && is_sep(*c->p))
        c->p++;
    if (!read_number(c, &n)) {
        *c = save;
        n = 0;
    }
    return n;
}

static void reset(struct gd_version *v)
{
    memset(v, 0, sizeof *v);
}

enum gd_status gd_version_parse_n(const char *s, size_t n, struct gd_version *out)
{
    reset(out);
    struct gd_span span = gd_span_trim((struct gd_span){ s, n });
    if (span.n && (span.p[0] == 'v' || span.p[0] == 'V')) {
        span.p++;
        span.n--;
    }
    if (span.n == 0)
        return GD_EFORMAT;
    if (span.n >= GD_VERSION_TEXT_MAX)
        return GD_ELIMIT;
    struct cursor c = { span.p, span.p + span.n };

    /* Epoch: "N!" before the release. */
    struct cursor save = c;
    unsigned long num;
    if (read_number(&c, &num) && !at_end(&c) && *c.p == '!') {
        out->epoch = num;
        c.p++;
    } else {
        c = save;
    }

    for (;;) {
        if (out->nparts == GD_VERSION_MAX_PARTS)
            return GD_ELIMIT;
        if (!read_number(&c, &out->parts[out->nparts]))
            return GD_EFORMAT;
        out->nparts++;
        if (!(c.p + 1 < c.end && c.p[0] == '.' && gd_is_digit(c.p[1])))
            break;
        c.p++;
    }

    static const char *const pre_words[] = {
        "alpha", "beta", "preview", "pre", "rc", "a", "b", "c"
    };
    static const enum gd_pre_kind pre_kinds[] = { GD_PRE_ALPHA, GD_PRE_BETA, GD_PRE_RC,
                                                  GD_PRE_RC,    GD_PRE_RC,   GD_PRE_ALPHA,
                                                  GD_PRE_BETA,  GD_PRE_RC };
    static const char *const post_words[] = { "post", "rev", "r" };
    static const char *const dev_words[] = { "dev" };
    size_t which;
    if (take_tag(&c, pre_words, sizeof pre_words / sizeof *pre_words, &which)) {
        out->pre = pre_kinds[which];
        out->pre_num = take_tag_number(&c);
    }
    if (take_tag(&c, post_words, sizeof post_words / sizeof *post_words, &which)) {
        out->has_post = true;
        out->post = take_tag_number(&c);
    } else if (c.p + 1 < c.end && c.p[0] == '-' && gd_is_digit(c.p[1])) {
        /* PEP 440's implicit post-release: "1.0-1". */
        c.p++;
        out->has_post = true;
        read_number(&c, &out->post);
    }
    if (take_tag(&c, dev_words, 1, &which)) {
        out->has_dev = true;
        out->dev = take_tag_number(&c);
    }
    if (!at_end(&c) && *c.p == '+') {
        c.p++;
        size_t len = 0;
        if (at_end(&c))
            return GD_EFORMAT;
        while (!at_end(&c)) {
            char ch = *c.p;
            if (!(gd_is_alpha(ch) || gd_is_digit(ch) || is_sep(ch)))
                return GD_EFORMAT;
            out->local[len++] = gd_to_lower(ch);
            c.p++;
        }
    }
    if (!at_end(&c))
        return GD_EFORMAT;
    memcpy(out->text, span.p, span.n);
    out->text[span.n] = '\0';
    return GD_OK;
}

enum gd_status gd_version_parse(const char *s, struct gd_version *out)
{
    if (!s) {
        reset(out);
        return GD_EFORMAT;
    }
    return gd_version_parse_n(s, strlen(s), out);
}

static void set_parts(struct gd_version *out, int nparts, unsigned long a, unsigned long b,
                      unsigned long c)
{
    reset(out);
    out->nparts = nparts;
    out->parts[0] = a;
    out->parts[1] = b;
    out->parts[2] = c;
    gd_version_format(out, out->text, sizeof out->text);
}

enum gd_status gd_version_from_cuda_int(long value, struct gd_version *out)
{
    reset(out);
    if (value <= 0 || value > 999990)
        return GD_EFORMAT;
    set_parts(out, 2, (unsigned long)value / 1000, ((unsigned long)value % 1000) / 10, 0);
    return GD_OK;
}

/* major*1000 + minor*100 + patch below `wide_from`, major*10000 + minor*100 + patch from it. */
static enum gd_status from_scaled_int(long value, unsigned long wide_from, struct gd_version *out)
{
    reset(out);
    if (value <= 0 || value > 9999999)
        return GD_EFORMAT;
    unsigned long v = (unsigned long)value;
    if (v >= wide_from)
        set_parts(out, 3, v / 10000, (v % 10000) / 100, v % 100);
    else
        set_parts(out, 3, v / 1000, (v % 1000) / 100, v % 100);
    return GD_OK;
}

enum gd_status gd_version_from_cudnn_int(long value, struct gd_version *out)
{
    /* cuDNN 9 changed CUDNN_VERSION from major*1000 to major*10000 (cudnn_version.h). */
    return from_scaled_int(value, 90000, out);
}

enum gd_status gd_version_from_nccl_int(long value, struct gd_version *out)
{
    /* NCCL 2.9 moved NCCL_VERSION_CODE to major*10000 + minor*100 + patch (nccl.h). */
    return from_scaled_int(value, 10000, out);
}

enum gd_status gd_version_from_cuda_tag(const char *tag, struct gd_version *out)
{
    reset(out);
    if (!tag)
        return GD_EFORMAT;
    bool long_prefix;
    if (gd_to_lower(tag[0]) != 'c' || gd_to_lower(tag[1]) != 'u')
        return GD_EFORMAT;
    tag += 2;
    long_prefix = gd_to_lower(tag[0]) == 'd' && gd_to_lower(tag[1]) == 'a';
    if (long_prefix)
        tag += 2;
    size_t digits = 0;
    while (gd_is_digit(tag[digits]))
        digits++;
    bool wildcard = gd_to_lower(tag[digits]) == 'x' && tag[digits + 1] == '\0';
    if (digits < 1 || digits > 3 || (tag[digits] != '\0' && !wildcard))
        return GD_EFORMAT;
    unsigned long n = 0;
    for (size_t i = 0; i < digits; i++)
        n = n * 10 + (unsigned long)(tag[i] - '0');
    if (digits == 3) {
        /* "cu121", "cuda112": the last digit is the minor (CUDA minors have stayed below 10). */
        set_parts(out, 2, n / 10, n % 10, 0);
    } else if (digits == 2 && !long_prefix && !wildcard && tag[0] >= '7') {
        /* PyTorch's old wheels: "cu75", "cu80", "cu92" are 7.5, 8.0, 9.2. */
        set_parts(out, 2, n / 10, n % 10, 0);
    } else {
        /* "cu11", "cu12", "cuda12", "cuda12x": a major version only. */
        set_parts(out, 1, n, 0, 0);
    }
    return GD_OK;
}

static unsigned long part(const struct gd_version *v, int i)
{
    return i < v->nparts ? v->parts[i] : 0;
}

static int cmp_ul(unsigned long a, unsigned long b)
{
    return a < b ? -1 : a > b;
}

int gd_version_cmp_parts(const struct gd_version *a, const struct gd_version *b, int nparts)
{
    for (int i = 0; i < nparts; i++) {
        int c = cmp_ul(part(a, i), part(b, i));
        if (c)
            return c;
    }
    return 0;
}

/* PEP 440: "1.0.dev1" < "1.0a1" < "1.0" < "1.0.post1". Keys: pre-release rank, then post, then
 * dev, where a missing pre-release ranks above every pre-release unless only a dev is present. */
static long pre_rank(const struct gd_version *v)
{
    if (v->pre == GD_PRE_NONE)
        return (v->has_dev && !v->has_post) ? -1 : 4;
    return (long)v->pre;
}

int gd_version_cmp(const struct gd_version *a, const struct gd_version *b)
{
    int c = cmp_ul(a->epoch, b->epoch);
    if (c)
        return c;
    int n = a->nparts > b->nparts ? a->nparts : b->nparts;
    if ((c = gd_version_cmp_parts(a, b, n)))
        return c;
    long ra = pre_rank(a), rb = pre_rank(b);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (a->pre != GD_PRE_NONE && (c = cmp_ul(a->pre_num, b->pre_num)))
        return c;
    if (a->has_post != b->has_post)
        return a->has_post ? 1 : -1;
    if (a->has_post && (c = cmp_ul(a->post, b->post)))
        return c;
    if (a->has_dev != b->has_dev)
        return a->has_dev ? -1 : 1;
    if (a->has_dev && (c = cmp_ul(a->dev, b->dev)))
        return c;
    c = strcmp(a->local, b->local);
    return c < 0 ? -1 : c > 0;
}

bool gd_version_has_prefix(const struct gd_version *v, const struct gd_version *prefix)
{
    return gd_version_cmp_parts(v, prefix, prefix->nparts) == 0;
}

unsigned long gd_version_major(const struct gd_version *v)
{
    return part(v, 0);
}

unsigned long gd_version_minor(const struct gd_version *v)
{
    return part(v, 1);
}

bool gd_version_is_prerelease(const struct gd_version *v)
{
    return v->pre != GD_PRE_NONE || v->has_dev;
}

void gd_version_format(const struct gd_version *v, char *buf, size_t size)
{
    static const char *const pre_names[] = { "", "a", "b", "rc" };
    size_t at = 0;
    int n;
#define EMIT(...)                                                       \
    do {                                                                \
        n = snprintf(buf + at, at < size ? size - at : 0, __VA_ARGS__); \
        if (n > 0)                                                      \
            at += (size_t)n;                                            \
    } while (0)
    if (size == 0)
        return;
    buf[0] = '\0';
    if (v->epoch)
        EMIT("%lu!", v->epoch);
    for (int i = 0; i < v->nparts; i++)
        EMIT(i ? ".%lu" : "%lu", v->parts[i]);
    if (v->pre != GD_PRE_NONE)
        EMIT("%s%lu", pre_names[v->pre], v->pre_num);
    if (v->has_post)
        EMIT(".post%lu", v->post);
    if (v->has_dev)
        EMIT(".dev%lu", v->dev);
    if (v->local[0])
        EMIT("+%s", v->local);
#undef EMIT
}
