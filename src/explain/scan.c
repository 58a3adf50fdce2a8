#include "explain/scan.h"

#include "core/alloc.h"

#include <string.h>

enum gd_status gd_scanner_new(const struct gd_sigset *set, struct gd_scanner **out)
{
    *out = NULL;
    struct gd_scanner *s = gd_calloc(1, sizeof *s);
    if (!s)
        return GD_ENOMEM;
    s->set = set;
    s->md = pcre2_match_data_create(set->max_groups, set->gctx);
    if (set->nsigs) {
        s->hits = gd_calloc(set->nsigs, sizeof *s->hits);
        s->stamp = gd_calloc(set->nsigs, sizeof *s->stamp);
        s->tries = gd_calloc(set->nsigs, sizeof *s->tries);
        s->window_end = gd_calloc(set->nsigs, sizeof *s->window_end);
    }
    if (!s->md || (set->nsigs && (!s->hits || !s->stamp || !s->tries || !s->window_end))) {
        gd_scanner_free(s);
        return GD_ENOMEM;
    }
    for (unsigned c = 0; c < GD_SCAN_CHANNELS; c++)
        s->ch[c].line = 1;
    *out = s;
    return GD_OK;
}

static void free_line(struct gd_scan_line *l)
{
    gd_free(l->text);
    for (size_t i = 0; i < GD_SIG_PARAMS_MAX; i++)
        gd_free(l->values[i]);
    memset(l, 0, sizeof *l);
}

void gd_scanner_free(struct gd_scanner *s)
{
    if (!s)
        return;
    for (size_t i = 0; s->hits && i < s->set->nsigs; i++)
        for (size_t k = 0; k < s->hits[i].nkept; k++)
            free_line(&s->hits[i].kept[k]);
    gd_free(s->hits);
    gd_free(s->stamp);
    gd_free(s->tries);
    gd_free(s->window_end);
    for (unsigned c = 0; c < GD_SCAN_CHANNELS; c++)
        gd_free(s->ch[c].tail);
    pcre2_match_data_free(s->md);
    gd_free(s);
}

/* ---- bytes ------------------------------------------------------------------------------- */

static bool is_sep(unsigned char c)
{
    return c == '\n' || c == '\r';
}

/* The first '\n' or '\r' in [p, e), or NULL. memchr for '\n' is vectorised by the C library;
 * a '\r' can only matter before that '\n'. */
static const unsigned char *find_sep(const unsigned char *p, const unsigned char *e)
{
    const unsigned char *nl = memchr(p, '\n', (size_t)(e - p));
    const unsigned char *end = nl ? nl : e;
    const unsigned char *cr = memchr(p, '\r', (size_t)(end - p));
    return cr ? cr : nl;
}

/* The last '\n' or '\r' in [p, e), or NULL. */
static const unsigned char *find_last_sep(const unsigned char *p, const unsigned char *e)
{
    while (e > p) {
        e--;
        if (is_sep(*e))
            return e;
    }
    return NULL;
}

/* Newlines in [p, e): memchr (vectorised by the C library) from one to the next, cheaper than
 * any byte loop on lines of ordinary length. */
static uint64_t count_nl(const unsigned char *p, const unsigned char *e)
{
    uint64_t n = 0;
    while (p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
        n++;
        p++;
    }
    return n;
}

/* The start of the next key in [p, e) the Wu-Manber search cannot rule out, or NULL: the
 * literals whose key ends in the 3 bytes before key + m are then compared. */
static const unsigned char *next_candidate(const struct gd_sigset *set, const unsigned char *p,
                                           const unsigned char *e)
{
    const size_t m = set->m;
    if (!m || (size_t)(e - p) < m)
        return NULL;
    const unsigned char *last = e - m;
    const uint8_t *shift = set->shift;
    while (p <= last) {
        unsigned s = shift[gd_sig_hash3_after(p + m - 4)]; /* m >= 4 */
        if (!s) {
            uint32_t first = gd_sig_hash3(p);
            if ((set->prefix[first >> 6] >> (first & 63)) & 1)
                return p;
            s = 1;
        }
        p += s;
    }
    return NULL;
}

/* The literal whose key starts at `w` and which lies inside [b, e), or NULL. */
static const struct gd_literal *literal_at(const struct gd_sigset *set, const unsigned char *w,
                                           const unsigned char *b, const unsigned char *e)
{
    uint32_t h = gd_sig_hash3(w + set->m - 3);
    size_t lo = 0, hi = set->nlits;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (set->lits[mid].hash < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < set->nlits && set->lits[i].hash == h; i++) {
        const struct gd_literal *l = &set->lits[i];
        if ((size_t)(w - b) < l->key_off || (size_t)(e - w) < l->len - l->key_off)
            continue;
        if (memcmp(w - l->key_off, l->text, l->len) == 0)
            return l;
    }
    return NULL;
}

/* ---- matches ----------------------------------------------------------------------------- */

static char *copy_bytes(const unsigned char *p, size_t n)
{
    char *c = gd_malloc(n + 1);
    if (c) {
        memcpy(c, p, n);
        c[n] = '\0';
    }
    return c;
}

static void record(struct gd_scanner *s, size_t sig, unsigned channel, uint64_t line,
                   const unsigned char *lb, const unsigned char *le, const unsigned char *subject,
                   const PCRE2_SIZE *ov)
{
    struct gd_scan_hits *h = &s->hits[sig];
    h->count++;
    h->last_line[channel] = line + 1;
    if (s->matched_last[channel] != line + 1) {
        s->matched_last[channel] = line + 1;
        s->matched_lines[channel]++;
    }
    enum gd_cause_id cause = s->set->sigs[sig].cause;
    if (s->cause_last[cause][channel] != line + 1) {
        s->cause_last[cause][channel] = line + 1;
        s->cause_lines[cause]++;
    }
    struct gd_scan_line *l;
    if (h->nkept < GD_SCAN_KEEP) {
        l = &h->kept[h->nkept++];
    } else {
        l = &h->kept[GD_SCAN_KEEP - 1]; /* the last matched line replaces the previous last */
        free_line(l);
    }
    l->line = line;
    l->channel = channel;
    /* Keep the line, or GD_SCAN_TEXT_MAX bytes of it starting a little before the match. */
    const unsigned char *ms = subject + ov[0];
    const unsigned char *tb = lb, *te = le;
    if ((size_t)(le - lb) > GD_SCAN_TEXT_MAX) {
        tb = (size_t)(ms - lb) > 64 ? ms - 64 : lb;
        te = (size_t)(le - tb) > GD_SCAN_TEXT_MAX ? tb + GD_SCAN_TEXT_MAX : le;
    }
    l->cut_before = tb > lb;
    l->cut_after = te < le;
    l->len = (size_t)(te - tb);
    l->text = copy_bytes(tb, l->len);
    bool ok = l->text != NULL;
    const struct gd_sig *g = &s->set->sigs[sig];
    for (size_t i = 0; i < g->nparams && ok; i++) {
        const struct gd_sig_param *p = &g->params[i];
        if (p->group == 0) {
            l->value_len[i] = strlen(p->value);
            ok = (l->values[i] = copy_bytes((const unsigned char *)p->value, l->value_len[i]));
        } else if (ov[2 * p->group] != PCRE2_UNSET) {
            size_t n = ov[2 * p->group + 1] - ov[2 * p->group];
            if (n > GD_SCAN_PARAM_MAX)
                n = GD_SCAN_PARAM_MAX;
            l->value_len[i] = n;
            ok = (l->values[i] = copy_bytes(subject + ov[2 * p->group], n));
        }
    }
    if (!ok && s->status == GD_OK)
        s->status = GD_ENOMEM;
}

/* Run signature `sig` on [wb, we), part of the line [lb, le). */
static void try_sig(struct gd_scanner *s, size_t sig, unsigned channel, uint64_t line,
                    const unsigned char *lb, const unsigned char *le, const unsigned char *wb,
                    const unsigned char *we)
{
    if (s->hits[sig].last_line[channel] == line + 1)
        return;
    const struct gd_sig *g = &s->set->sigs[sig];
    int rc = pcre2_match(g->code, wb, (PCRE2_SIZE)(we - wb), 0, 0, s->md, s->set->mctx);
    if (rc >= 0) {
        record(s, sig, channel, line, lb, le, wb, pcre2_get_ovector_pointer(s->md));
    } else if (rc == PCRE2_ERROR_NOMEMORY) {
        /* The interpreter's frames come from gd_malloc: out of memory, as everywhere. */
        if (s->status == GD_OK)
            s->status = GD_ENOMEM;
    } else if (rc != PCRE2_ERROR_NOMATCH) {
        /* A limit (match, depth, heap): this line is not
         * matched by this signature; counted so that the report can say so. */
        s->match_errors++;
    }
}

/* Run the signatures of literal `lit`, found at window `w` of the segment [lb, le). On a segment
 * up to GD_SCAN_LINE_MAX bytes each signature runs once, on the whole segment. On a longer one it
 * runs on a window of GD_SCAN_WINDOW bytes around the literal, at most GD_SCAN_WINDOWS times per
 * segment and never on overlapping windows, so that a hostile line of repeated literals costs a
 * bounded amount of pattern matching. */
static void run_literal(struct gd_scanner *s, unsigned channel, uint64_t line,
                        const unsigned char *lb, const unsigned char *le, const unsigned char *w,
                        const struct gd_literal *lit)
{
    bool long_line = (size_t)(le - lb) > GD_SCAN_LINE_MAX;
    const unsigned char *wb = lb, *we = le;
    if (long_line) {
        const unsigned char *start = w - lit->key_off;
        wb = (size_t)(start - lb) > GD_SCAN_WINDOW / 2 ? start - GD_SCAN_WINDOW / 2 : lb;
        we = (size_t)(le - wb) > GD_SCAN_WINDOW ? wb + GD_SCAN_WINDOW : le;
    }
    for (size_t i = 0; i < lit->nsigs; i++) {
        uint16_t sig = lit->sigs[i];
        if (s->stamp[sig] != s->segment) {
            s->stamp[sig] = s->segment;
            s->tries[sig] = 0;
            s->window_end[sig] = 0;
        } else if (!long_line || s->tries[sig] >= GD_SCAN_WINDOWS ||
                   (size_t)(wb - lb) < s->window_end[sig]) {
            continue;
        }
        s->tries[sig]++;
        s->window_end[sig] = (size_t)(we - lb);
        try_sig(s, sig, channel, line, lb, le, wb, we);
    }
}

/* Every literal whose window is at `w` and which lies in [lb, le): several literals may share a
 * window's hash, and even the window itself ("Could not load dynamic library 'lib" and
 * "... 'libcudnn" at the same place). Returns how many were found. */
static size_t run_literals_at(struct gd_scanner *s, unsigned channel, uint64_t line,
                              const unsigned char *lb, const unsigned char *le,
                              const unsigned char *w)
{
    const struct gd_sigset *set = s->set;
    uint32_t h = gd_sig_hash3(w + set->m - 3);
    size_t lo = 0, hi = set->nlits, found = 0;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (set->lits[mid].hash < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < set->nlits && set->lits[i].hash == h; i++) {
        const struct gd_literal *l = &set->lits[i];
        if ((size_t)(w - lb) < l->key_off || (size_t)(le - w) < l->len - l->key_off ||
            memcmp(w - l->key_off, l->text, l->len) != 0)
            continue;
        found++;
        run_literal(s, channel, line, lb, le, w, l);
    }
    return found;
}

/* The segment [lb, le), whose first literal window is at `w`: every literal in it. */
static void scan_segment(struct gd_scanner *s, unsigned channel, uint64_t line,
                         const unsigned char *lb, const unsigned char *le, const unsigned char *w)
{
    if (++s->segment == 0) { /* the stamps wrapped: forget them all */
        memset(s->stamp, 0, s->set->nsigs * sizeof *s->stamp);
        s->segment = 1;
    }
    while (w) {
        run_literals_at(s, channel, line, lb, le, w);
        w = next_candidate(s->set, w + 1, le);
    }
}

/*
 * Scan [b, e) of `channel`, whose line number at `b` is ch->line: complete segments, the last
 * one ending at `e` (at a separator or the end of an unfinished line). Updates ch->line.
 */
static void scan_region(struct gd_scanner *s, unsigned channel, const unsigned char *b,
                        const unsigned char *e)
{
    struct gd_scan_channel *ch = &s->ch[channel];
    const struct gd_sigset *set = s->set;
    const unsigned char *p = b, *counted = b;
    uint64_t line = ch->line;
    while (set->nlits) {
        const unsigned char *w = next_candidate(set, p, e);
        if (!w)
            break;
        /* Literals hold no line separator: one found anywhere in [b, e) lies in one segment. */
        const struct gd_literal *lit = literal_at(set, w, b, e);
        if (!lit) {
            p = w + 1;
            continue;
        }
        /* The segment's start: after the last '\n' before the literal (found while counting the
         * lines up to it), or after a '\r' between that '\n' and the literal. */
        const unsigned char *start = w - lit->key_off, *lb = counted, *q;
        while ((q = memchr(lb, '\n', (size_t)(start - lb))) != NULL) {
            line++;
            lb = q + 1;
        }
        while ((q = memchr(lb, '\r', (size_t)(start - lb))) != NULL)
            lb = q + 1;
        const unsigned char *sep = find_sep(w, e);
        const unsigned char *le = sep ? sep : e;
        counted = le;
        scan_segment(s, channel, line, lb, le, w);
        p = le;
    }
    ch->line = line + count_nl(counted, e);
}

/* ---- feeding ----------------------------------------------------------------------------- */

/* Keep [p, e) of an unfinished line; when the kept part outgrows GD_SCAN_TAIL_MAX, scan what is
 * kept and keep only its last bytes, which may begin a literal the next feed completes. */
static enum gd_status keep_tail(struct gd_scanner *s, unsigned channel, const unsigned char *p,
                                const unsigned char *e)
{
    struct gd_scan_channel *ch = &s->ch[channel];
    if (p == e)
        return s->status;
    if (!ch->tail && !(ch->tail = gd_malloc(GD_SCAN_TAIL_MAX))) {
        s->status = GD_ENOMEM;
        return s->status;
    }
    while (p < e) {
        size_t room = GD_SCAN_TAIL_MAX - ch->tail_len;
        size_t n = (size_t)(e - p) < room ? (size_t)(e - p) : room;
        memcpy(ch->tail + ch->tail_len, p, n);
        ch->tail_len += n;
        p += n;
        if (ch->tail_len == GD_SCAN_TAIL_MAX) {
            scan_region(s, channel, ch->tail, ch->tail + ch->tail_len);
            /* Keep enough for a literal cut in two and a little context before it. */
            size_t keep = GD_SIG_LITERAL_MAX + 256;
            memmove(ch->tail, ch->tail + ch->tail_len - keep, keep);
            ch->tail_len = keep;
            ch->tail_scanned = true;
        }
    }
    return s->status;
}

enum gd_status gd_scanner_feed(struct gd_scanner *s, unsigned channel, const void *data, size_t len)
{
    if (channel >= GD_SCAN_CHANNELS || s->finished)
        return GD_EINVAL;
    if (s->status != GD_OK || len == 0)
        return s->status;
    struct gd_scan_channel *ch = &s->ch[channel];
    const unsigned char *p = data, *e = p + len;
    ch->bytes += len;
    ch->any = true;
    ch->last_was_nl = e[-1] == '\n';
    if (ch->tail_len) {
        const unsigned char *sep = find_sep(p, e);
        if (!sep)
            return keep_tail(s, channel, p, e);
        if (keep_tail(s, channel, p, sep) != GD_OK)
            return s->status;
        scan_region(s, channel, ch->tail, ch->tail + ch->tail_len);
        ch->tail_len = 0;
        ch->tail_scanned = false;
        p = sep;
    }
    const unsigned char *last = find_last_sep(p, e);
    if (last) {
        scan_region(s, channel, p, last + 1);
        p = last + 1;
    }
    return keep_tail(s, channel, p, e);
}

enum gd_status gd_scanner_finish(struct gd_scanner *s)
{
    if (s->finished)
        return s->status;
    s->finished = true;
    for (unsigned c = 0; c < GD_SCAN_CHANNELS; c++) {
        struct gd_scan_channel *ch = &s->ch[c];
        if (ch->tail_len && s->status == GD_OK)
            scan_region(s, c, ch->tail, ch->tail + ch->tail_len);
        ch->tail_len = 0;
    }
    return s->status;
}

uint64_t gd_scanner_lines(const struct gd_scanner *s, unsigned channel)
{
    if (channel >= GD_SCAN_CHANNELS || !s->ch[channel].any)
        return 0;
    const struct gd_scan_channel *ch = &s->ch[channel];
    /* ch->line is the number of the line after the last '\n'; it exists only if bytes came
     * after that '\n'. */
    return ch->last_was_nl ? ch->line - 1 : ch->line;
}
