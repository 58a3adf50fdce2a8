/*
 * gpudoctor explain's log scanner (src/explain/scan.h) over the embedded signatures: the bytes
 * are a log. The first byte also chooses the size of the feeds of a second scan (1 to 256 bytes).
 *
 * Invariants: the scan in one feed and the scan in small feeds, on the other channel, agree on
 * everything (lines, matched lines, per signature the lines matched and the kept lines with their
 * parameters); lines are the '\n'-terminated lines plus an unfinished last one; a kept line lies
 * inside the log, holds no line separator and respects the caps. On a log whose pieces of lines
 * (between '\r' and '\n') are all at most GD_SCAN_LINE_MAX bytes, each signature matched exactly
 * the lines where its pattern, run on its own over each piece, matches: the literal prefilter
 * (Wu-Manber) loses nothing. The rendered result is valid UTF-8 JSON (strict parse) and text
 * without control bytes.
 */
#include "fuzz.h"

#include "explain/explain.h"
#include "explain/scan.h"

#include <gpudoctor/gpudoctor.h>
#include <json-c/json.h>

static struct gd_explain *ex;
static pcre2_match_data *md;

static void init(void)
{
    if (ex)
        return;
    if (gd_explain_new(NULL, &ex) != GD_OK || gd_explain_signature_count(ex) == 0)
        abort();
    md = pcre2_match_data_create(ex->set.max_groups, NULL);
    if (!md)
        abort();
}

static bool utf8_valid(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        size_t k = c < 0x80             ? 1
                   : (c & 0xE0) == 0xC0 ? 2
                   : (c & 0xF0) == 0xE0 ? 3
                   : (c & 0xF8) == 0xF0 ? 4
                                        : 0;
        if (!k || i + k > n || (k == 2 && c < 0xC2) || (k == 4 && c > 0xF4))
            return false;
        for (size_t j = 1; j < k; j++)
            if ((p[i + j] & 0xC0) != 0x80)
                return false;
        uint32_t cp = k == 1 ? c : k == 2 ? c & 0x1F : k == 3 ? c & 0x0F : c & 0x07;
        for (size_t j = 1; j < k; j++)
            cp = cp << 6 | (p[i + j] & 0x3F);
        if ((k == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
            (k == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
            return false;
        i += k;
    }
    return true;
}

/* A plain search (memmem is a GNU extension the Windows build lacks; inputs are small). */
static bool contains(const uint8_t *hay, size_t n, const char *needle, size_t len)
{
    if (!len)
        return true;
    for (size_t i = 0; i + len <= n; i++)
        if (hay[i] == (uint8_t)needle[0] && memcmp(hay + i, needle, len) == 0)
            return true;
    return false;
}

static void same_hits(const struct gd_scan_hits *a, const struct gd_scan_hits *b,
                      const struct gd_sig *g)
{
    FUZZ_CHECK(a->count == b->count);
    FUZZ_CHECK(a->nkept == b->nkept);
    for (size_t k = 0; k < a->nkept; k++) {
        const struct gd_scan_line *x = &a->kept[k], *y = &b->kept[k];
        FUZZ_CHECK(x->line == y->line);
        FUZZ_CHECK(x->len == y->len && memcmp(x->text, y->text, x->len) == 0);
        FUZZ_CHECK(x->cut_before == y->cut_before && x->cut_after == y->cut_after);
        for (size_t i = 0; i < g->nparams; i++) {
            FUZZ_CHECK((x->values[i] == NULL) == (y->values[i] == NULL));
            if (x->values[i])
                FUZZ_CHECK(x->value_len[i] == y->value_len[i] &&
                           memcmp(x->values[i], y->values[i], x->value_len[i]) == 0);
        }
    }
}

static void check_kept(const struct gd_scan_hits *h, const struct gd_sig *g, unsigned channel,
                       uint64_t lines, const uint8_t *data, size_t size)
{
    FUZZ_CHECK(h->nkept <= GD_SCAN_KEEP && h->nkept <= h->count);
    FUZZ_CHECK(h->count <= lines);
    for (size_t k = 0; k < h->nkept; k++) {
        const struct gd_scan_line *l = &h->kept[k];
        FUZZ_CHECK(l->channel == channel);
        FUZZ_CHECK(l->line >= 1 && l->line <= lines);
        if (k)
            FUZZ_CHECK(l->line > h->kept[k - 1].line);
        FUZZ_CHECK(l->len <= GD_SCAN_TEXT_MAX && l->text[l->len] == '\0');
        FUZZ_CHECK(!memchr(l->text, '\n', l->len) && !memchr(l->text, '\r', l->len));
        FUZZ_CHECK(contains(data, size, l->text, l->len));
        for (size_t i = 0; i < g->nparams; i++)
            if (l->values[i]) {
                FUZZ_CHECK(l->value_len[i] <= GD_SCAN_PARAM_MAX);
                FUZZ_CHECK(l->values[i][l->value_len[i]] == '\0');
            }
    }
}

/* Per signature, the '\n'-lines where its pattern matches some '\r'/'\n'-separated piece. */
static bool naive_counts(const uint8_t *data, size_t size, uint64_t *counts)
{
    const struct gd_sigset *set = &ex->set;
    uint64_t line = 1;
    uint64_t *last = calloc(set->nsigs ? set->nsigs : 1, sizeof *last);
    if (!last)
        return false;
    bool ok = true;
    size_t b = 0;
    for (size_t i = 0; i <= size && ok; i++) {
        if (i < size && data[i] != '\n' && data[i] != '\r')
            continue;
        for (size_t s = 0; s < set->nsigs && ok; s++) {
            if (last[s] == line)
                continue;
            int rc = pcre2_match(set->sigs[s].code, data + b, i - b, 0, 0, md, set->mctx);
            if (rc >= 0) {
                counts[s]++;
                last[s] = line;
            } else if (rc != PCRE2_ERROR_NOMATCH) {
                ok = false; /* a limit: the scanner counts it as a match error */
            }
        }
        if (i < size && data[i] == '\n')
            line++;
        b = i + 1;
    }
    free(last);
    return ok;
}

static void check_render(const uint8_t *data, size_t size)
{
    struct gd_explain_result *r = NULL;
    enum gd_status st = gd_explain_message(ex, (const char *)data, size, NULL, &r);
    FUZZ_CHECK(st == GD_OK || st == GD_ENOMEM);
    if (st != GD_OK)
        return;
    size_t causes = gd_explain_cause_count(r);
    for (size_t i = 1; i < causes; i++)
        FUZZ_CHECK(gd_explain_cause_score(gd_explain_cause_at(r, i - 1)) >=
                   gd_explain_cause_score(gd_explain_cause_at(r, i)));
    char *out = NULL;
    size_t len = 0;
    if (gd_explain_render(r, GD_FORMAT_TEXT, NULL, &out, &len) == GD_OK) {
        FUZZ_CHECK(strlen(out) == len);
        FUZZ_CHECK(utf8_valid((const unsigned char *)out, len));
        for (size_t i = 0; i < len; i++)
            FUZZ_CHECK((unsigned char)out[i] >= 0x20 ? out[i] != 0x7f : out[i] == '\n');
        gd_free(out);
    }
    if (gd_explain_render(r, GD_FORMAT_JSON, NULL, &out, &len) == GD_OK) {
        FUZZ_CHECK(strlen(out) == len);
        struct json_tokener *tok = json_tokener_new();
        FUZZ_CHECK(tok != NULL);
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
        struct json_object *j = json_tokener_parse_ex(tok, out, (int)len);
        FUZZ_CHECK(j != NULL && json_tokener_get_error(tok) == json_tokener_success);
        struct json_object *c;
        FUZZ_CHECK(json_object_object_get_ex(j, "causes", &c));
        FUZZ_CHECK(json_object_array_length(c) == causes);
        json_object_put(j);
        json_tokener_free(tok);
        gd_free(out);
    }
    gd_explain_result_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    init();
    const struct gd_sigset *set = &ex->set;
    struct gd_scanner *a = NULL, *b = NULL;
    if (gd_scanner_new(set, &a) != GD_OK || gd_scanner_new(set, &b) != GD_OK)
        abort();
    FUZZ_CHECK(gd_scanner_feed(a, 0, data, size) == GD_OK);
    FUZZ_CHECK(gd_scanner_finish(a) == GD_OK);
    size_t chunk = size ? 1 + (size_t)data[0] : 1;
    for (size_t off = 0; off < size; off += chunk)
        FUZZ_CHECK(gd_scanner_feed(b, 1, data + off, size - off < chunk ? size - off : chunk) ==
                   GD_OK);
    FUZZ_CHECK(gd_scanner_finish(b) == GD_OK);
    FUZZ_CHECK(gd_scanner_feed(b, 1, "x", 1) == GD_EINVAL);
    FUZZ_CHECK(gd_scanner_feed(a, 2, "x", 1) == GD_EINVAL);

    uint64_t lines = 0;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (size && data[size - 1] != '\n')
        lines++;
    FUZZ_CHECK(gd_scanner_lines(a, 0) == lines && gd_scanner_lines(a, 1) == 0);
    FUZZ_CHECK(gd_scanner_lines(b, 1) == lines && gd_scanner_lines(b, 0) == 0);
    FUZZ_CHECK(a->matched_lines[0] == b->matched_lines[1]);
    FUZZ_CHECK(a->matched_lines[0] <= lines);
    FUZZ_CHECK(a->match_errors == b->match_errors);
    for (size_t s = 0; s < set->nsigs; s++) {
        same_hits(&a->hits[s], &b->hits[s], &set->sigs[s]);
        check_kept(&a->hits[s], &set->sigs[s], 0, lines, data, size);
    }

    /* The oracle: pieces short enough to be matched whole (and a log small enough for it). */
    size_t longest = 0, piece = 0;
    for (size_t i = 0; i < size; i++) {
        piece = data[i] == '\n' || data[i] == '\r' ? 0 : piece + 1;
        longest = piece > longest ? piece : longest;
    }
    if (longest <= GD_SCAN_LINE_MAX && size <= (1u << 20) && a->match_errors == 0) {
        uint64_t *counts = calloc(set->nsigs ? set->nsigs : 1, sizeof *counts);
        if (counts && naive_counts(data, size, counts))
            for (size_t s = 0; s < set->nsigs; s++) {
                if (counts[s] != a->hits[s].count) {
                    fprintf(stderr, "signature %s: %llu lines matched, the scanner found %llu\n",
                            set->sigs[s].id, (unsigned long long)counts[s],
                            (unsigned long long)a->hits[s].count);
                    abort();
                }
            }
        free(counts);
    }
    gd_scanner_free(a);
    gd_scanner_free(b);
    check_render(data, size);
    return 0;
}
