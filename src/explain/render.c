/* An explain result as text for a terminal or as JSON (gpudoctor.explain/1, docs/explain.md).
 * Log lines are untrusted bytes: the text form escapes control characters (a log's escape
 * sequences must not drive the terminal) and invalid UTF-8; the JSON form replaces invalid
 * UTF-8 with U+FFFD so that the document stays valid. */
#include "explain/explain.h"

#include "core/buf.h"
#include "core/report.h"
#include "render/render.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCHEMA     "gpudoctor.explain/1"
#define TEXT_LINES 6 /* matched lines shown per cause in the text form */
#define INDENT     "              "
#define WIDTH      100

/* The length of the valid UTF-8 sequence at p (n bytes left), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned char c = p[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, min = 0x10000;
    else
        return 0;
    if (n < len)
        return 0;
    unsigned cp = c & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* The text form of log bytes: printable UTF-8 as is, a tab as a space, other control bytes and
 * invalid UTF-8 as \xNN. */
static void text_bytes(struct gd_buf *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *e = p + n;
    while (p < e) {
        size_t k = utf8_len(p, (size_t)(e - p));
        if (k == 1 && *p == '\t') {
            gd_buf_putc(out, ' ');
        } else if (k == 0 || (k == 1 && (*p < 0x20 || *p == 0x7f)) ||
                   (k == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
            /* C1 controls (U+0080..U+009F) act on terminals too. */
            size_t m = k ? k : 1;
            for (size_t i = 0; i < m; i++)
                gd_buf_printf(out, "\\x%02x", p[i]);
            p += m;
            continue;
        } else {
            gd_buf_add(out, p, k);
        }
        p += k;
    }
}

/* Valid UTF-8 for JSON: invalid bytes become U+FFFD (json-c escapes the control characters). */
static struct json_object *json_bytes(const char *s, size_t n, struct gd_buf *tmp)
{
    tmp->len = 0;
    if (tmp->data)
        tmp->data[0] = '\0';
    const unsigned char *p = (const unsigned char *)s, *e = p + n;
    while (p < e) {
        size_t k = utf8_len(p, (size_t)(e - p));
        if (k) {
            gd_buf_add(tmp, p, k);
            p += k;
        } else {
            gd_buf_puts(tmp, "\xef\xbf\xbd");
            p++;
        }
    }
    return json_object_new_string_len(gd_buf_str(tmp), (int)tmp->len);
}

static const char *channel_name(const struct gd_explain_result *r, unsigned ch)
{
    if (!r->bytes[1] && ch == 0)
        return "log";
    return ch == 0 ? "stdout" : "stderr";
}

static void wrapped(struct gd_buf *out, const char *text, size_t col)
{
    size_t ind = strlen(INDENT);
    const char *p = text;
    bool first = true;
    while (*p) {
        size_t word = strcspn(p, " ");
        if (first) {
            first = false;
        } else if (col > ind && col + 1 + word > WIDTH) {
            gd_buf_putc(out, '\n');
            gd_buf_puts(out, INDENT);
            col = ind;
        } else if (col > ind) {
            gd_buf_putc(out, ' ');
            col++;
        }
        gd_buf_add(out, p, word);
        col += word;
        p += word;
        while (*p == ' ')
            p++;
    }
    gd_buf_putc(out, '\n');
}

static void label(struct gd_buf *out, const char *name)
{
    gd_buf_printf(out, "   %-11s", name);
}

static const char *verdict_text(enum gd_explain_verdict v)
{
    switch (v) {
    case GD_EXPLAIN_CONFIRMED:
        return "confirmed on this machine";
    case GD_EXPLAIN_NOT_HERE:
        return "not seen on this machine";
    case GD_EXPLAIN_UNDECIDED:
        return "this machine neither confirms nor rules it out";
    case GD_EXPLAIN_UNCHECKED:
    default:
        return "from the log alone";
    }
}

static void render_text(const struct gd_explain_result *r, const struct gd_render_options *o,
                        struct gd_buf *out)
{
    bool color = o && o->color, verbose = o && o->verbose;
    gd_buf_printf(out, "gpudoctor explain of %s: ", r->name ? r->name : "the log");
    if (r->bytes[1])
        gd_buf_printf(out, "%llu line%s of output and %llu of errors",
                      (unsigned long long)r->lines[0], r->lines[0] == 1 ? "" : "s",
                      (unsigned long long)r->lines[1]);
    else
        gd_buf_printf(out, "%llu line%s", (unsigned long long)r->lines[0],
                      r->lines[0] == 1 ? "" : "s");
    gd_buf_printf(out, ", %zu cause%s found\n", r->ncauses, r->ncauses == 1 ? "" : "s");
    if (r->machine)
        gd_buf_printf(out, "checked against %s\n", r->machine);
    else
        gd_buf_puts(out, "from the log alone (no machine to check the causes against)\n");
    if (!r->ncauses) {
        gd_buf_puts(out, "\nNo known failure signature matched (docs/explain.md lists them).\n");
    }
    for (size_t i = 0; i < r->ncauses; i++) {
        const struct gd_explain_cause *c = &r->causes[i];
        gd_buf_putc(out, '\n');
        if (color)
            gd_buf_puts(out, "\033[1m");
        gd_buf_printf(out, "%zu. %s", i + 1, c->title);
        if (color)
            gd_buf_puts(out, "\033[0m");
        gd_buf_printf(out, "  [%s]\n", c->name);
        if (color)
            gd_buf_puts(out, c->verdict == GD_EXPLAIN_CONFIRMED  ? "\033[1;31m"
                             : c->verdict == GD_EXPLAIN_NOT_HERE ? "\033[32m"
                                                                 : "\033[2m");
        gd_buf_printf(out, "   %s", verdict_text(c->verdict));
        if (color)
            gd_buf_puts(out, "\033[0m");
        gd_buf_printf(out, "; %llu matching line%s\n", (unsigned long long)c->lines,
                      c->lines == 1 ? "" : "s");
        size_t shown = 0, m_i = 0;
        for (; m_i < c->nmatches && shown < TEXT_LINES; m_i++) {
            const struct gd_explain_match *m = &c->matches[m_i];
            /* Two signatures of one cause on one line: the line once. */
            if (m_i && m->line == c->matches[m_i - 1].line &&
                m->channel == c->matches[m_i - 1].channel)
                continue;
            label(out, shown++ == 0 ? "log:" : "");
            if (r->bytes[1])
                gd_buf_printf(out, "%s:", channel_name(r, m->channel));
            gd_buf_printf(out, "%llu: %s", (unsigned long long)m->line, m->cut_before ? "..." : "");
            text_bytes(out, m->text ? m->text : "", m->len);
            gd_buf_puts(out, m->cut_after ? "...\n" : "\n");
        }
        if (m_i < c->nmatches)
            gd_buf_printf(out, INDENT "(more lines kept: --json lists them)\n");
        if (c->meaning) {
            label(out, "means:");
            wrapped(out, c->meaning, strlen(INDENT));
        }
        for (size_t k = 0; k < c->nnotes; k++) {
            label(out, k == 0 ? "notes:" : "");
            wrapped(out, c->notes[k], strlen(INDENT));
        }
        for (size_t k = 0; verbose && k < gd_finding_evidence_count(c->finding); k++) {
            const struct gd_fact *f = gd_finding_evidence_at(c->finding, k);
            label(out, k == 0 ? "evidence:" : "");
            gd_render_fact_label(f, out);
            gd_buf_puts(out, " = ");
            gd_render_fact_value(f, out);
            gd_buf_printf(out, "  [%s %s]\n", gd_source_kind_name(gd_fact_source_kind(f)),
                          gd_fact_source_ref(f));
        }
        for (size_t k = 0; k < gd_finding_fix_count(c->finding); k++) {
            char num[32];
            snprintf(num, sizeof num, "%zu. ", k + 1);
            label(out, k == 0 ? "fix:" : "");
            gd_buf_puts(out, num);
            wrapped(out, gd_finding_fix_at(c->finding, k), strlen(INDENT) + strlen(num));
        }
        label(out, "signature:");
        for (size_t k = 0; k < c->nsigs; k++)
            gd_buf_printf(out, "%s%s (%llu line%s, seen in %s)\n", k ? INDENT : "",
                          c->sigs[k].signature, (unsigned long long)c->sigs[k].lines,
                          c->sigs[k].lines == 1 ? "" : "s", c->sigs[k].source);
    }
    if (r->match_errors)
        gd_buf_printf(out,
                      "\nnote: %llu line%s could not be matched to the end (a pattern reached "
                      "PCRE2's match limit)\n",
                      (unsigned long long)r->match_errors, r->match_errors == 1 ? "" : "s");
}

static struct json_object *fact_json(const struct gd_fact *f)
{
    static const char *const states[] = { "known", "absent", "unknown" };
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "entity", json_object_new_string(gd_entity_id(gd_fact_entity(f))));
    json_object_object_add(o, "fact", json_object_new_string(gd_fact_name(f)));
    json_object_object_add(o, "state", json_object_new_string(states[gd_fact_state(f)]));
    if (gd_fact_state(f) == GD_FACT_KNOWN) {
        const char *v = gd_fact_value(f);
        if (gd_fact_type(f) == GD_VALUE_INT)
            json_object_object_add(o, "value", json_object_new_int64(strtoll(v, NULL, 10)));
        else if (gd_fact_type(f) == GD_VALUE_BOOL)
            json_object_object_add(o, "value", json_object_new_boolean(strcmp(v, "true") == 0));
        else
            json_object_object_add(o, "value", json_object_new_string(v));
    }
    if (gd_fact_reason(f))
        json_object_object_add(o, "reason", json_object_new_string(gd_fact_reason(f)));
    struct json_object *src = json_object_new_object();
    json_object_object_add(src, "kind",
                           json_object_new_string(gd_source_kind_name(gd_fact_source_kind(f))));
    json_object_object_add(src, "ref", json_object_new_string(gd_fact_source_ref(f)));
    json_object_object_add(o, "source", src);
    return o;
}

static void render_json(const struct gd_explain_result *r, struct gd_buf *out)
{
    struct gd_buf tmp;
    gd_buf_init(&tmp, 64 * 1024);
    struct json_object *root = json_object_new_object();
    if (!root) {
        out->status = GD_ENOMEM;
        return;
    }
    json_object_object_add(root, "schema", json_object_new_string(SCHEMA));
    json_object_object_add(root, "gpudoctor", json_object_new_string(gd_version()));
    struct json_object *input = json_object_new_object();
    json_object_object_add(input, "name", r->name ? json_object_new_string(r->name) : NULL);
    struct json_object *chans = json_object_new_array();
    for (unsigned ch = 0; ch < GD_SCAN_CHANNELS; ch++) {
        if (ch == 1 && !r->bytes[1])
            break;
        struct json_object *co = json_object_new_object();
        json_object_object_add(co, "name", json_object_new_string(channel_name(r, ch)));
        json_object_object_add(co, "lines", json_object_new_int64((int64_t)r->lines[ch]));
        json_object_object_add(co, "bytes", json_object_new_int64((int64_t)r->bytes[ch]));
        json_object_object_add(co, "matched_lines",
                               json_object_new_int64((int64_t)r->matched_lines[ch]));
        json_object_array_add(chans, co);
    }
    json_object_object_add(input, "channels", chans);
    json_object_object_add(input, "match_errors", json_object_new_int64((int64_t)r->match_errors));
    json_object_object_add(root, "input", input);
    json_object_object_add(root, "machine", r->machine ? json_object_new_string(r->machine) : NULL);
    struct json_object *causes = json_object_new_array();
    for (size_t i = 0; i < r->ncauses; i++) {
        const struct gd_explain_cause *c = &r->causes[i];
        struct json_object *co = json_object_new_object();
        json_object_object_add(co, "id", json_object_new_string(c->name));
        json_object_object_add(co, "rank", json_object_new_int64((int64_t)i + 1));
        json_object_object_add(co, "title", json_object_new_string(c->title));
        json_object_object_add(co, "meaning",
                               c->meaning ? json_object_new_string(c->meaning) : NULL);
        json_object_object_add(co, "verdict",
                               json_object_new_string(gd_explain_verdict_name(c->verdict)));
        json_object_object_add(co, "score", json_object_new_int64(c->score));
        json_object_object_add(co, "lines", json_object_new_int64((int64_t)c->lines));
        struct json_object *sigs = json_object_new_array();
        for (size_t k = 0; k < c->nsigs; k++) {
            struct json_object *so = json_object_new_object();
            json_object_object_add(so, "id", json_object_new_string(c->sigs[k].signature));
            json_object_object_add(so, "weight", json_object_new_int64(c->sigs[k].weight));
            json_object_object_add(so, "lines", json_object_new_int64((int64_t)c->sigs[k].lines));
            json_object_object_add(so, "source", json_object_new_string(c->sigs[k].source));
            json_object_array_add(sigs, so);
        }
        json_object_object_add(co, "signatures", sigs);
        struct json_object *matches = json_object_new_array();
        for (size_t k = 0; k < c->nmatches; k++) {
            const struct gd_explain_match *m = &c->matches[k];
            struct json_object *mo = json_object_new_object();
            json_object_object_add(mo, "line", json_object_new_int64((int64_t)m->line));
            json_object_object_add(mo, "channel",
                                   json_object_new_string(channel_name(r, m->channel)));
            json_object_object_add(mo, "signature", json_object_new_string(m->signature));
            json_object_object_add(mo, "text", json_bytes(m->text ? m->text : "", m->len, &tmp));
            json_object_object_add(mo, "cut",
                                   json_object_new_boolean(m->cut_before || m->cut_after));
            struct json_object *params = json_object_new_object();
            for (size_t p = 0; p < m->nparams; p++)
                json_object_object_add(params, m->names[p],
                                       json_bytes(m->values[p], strlen(m->values[p]), &tmp));
            json_object_object_add(mo, "params", params);
            json_object_array_add(matches, mo);
        }
        json_object_object_add(co, "matches", matches);
        struct json_object *notes = json_object_new_array();
        for (size_t k = 0; k < c->nnotes; k++)
            json_object_array_add(notes, json_object_new_string(c->notes[k]));
        json_object_object_add(co, "notes", notes);
        struct json_object *ev = json_object_new_array();
        for (size_t k = 0; k < gd_finding_evidence_count(c->finding); k++)
            json_object_array_add(ev, fact_json(gd_finding_evidence_at(c->finding, k)));
        json_object_object_add(co, "evidence", ev);
        struct json_object *fix = json_object_new_array();
        for (size_t k = 0; k < gd_finding_fix_count(c->finding); k++)
            json_object_array_add(fix, json_object_new_string(gd_finding_fix_at(c->finding, k)));
        json_object_object_add(co, "fix", fix);
        json_object_array_add(causes, co);
    }
    json_object_object_add(root, "causes", causes);
    size_t len = 0;
    const char *text = json_object_to_json_string_length(
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE,
        &len);
    if (text && gd_buf_status(&tmp) == GD_OK) {
        gd_buf_add(out, text, len);
        gd_buf_putc(out, '\n');
    } else {
        out->status = GD_ENOMEM;
    }
    json_object_put(root);
    gd_buf_free(&tmp);
}

enum gd_status gd_explain_render(const struct gd_explain_result *r, enum gd_format format,
                                 const struct gd_render_options *options, char **out, size_t *len)
{
    *out = NULL;
    if (len)
        *len = 0;
    if (!r || (format != GD_FORMAT_TEXT && format != GD_FORMAT_JSON))
        return GD_EINVAL;
    struct gd_buf b;
    gd_buf_init(&b, 256u * 1024 * 1024);
    if (format == GD_FORMAT_TEXT)
        render_text(r, options, &b);
    else
        render_json(r, &b);
    size_t n = 0;
    enum gd_status st = gd_buf_take(&b, out, &n);
    if (len)
        *len = n;
    gd_buf_free(&b);
    return st;
}
