/* A result from a scanner's hits, and the public accessors of results, causes and matches. */
#include "explain/explain.h"

#include "core/alloc.h"
#include "core/arena.h"
#include "core/report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *arena_bytes(struct gd_report *rep, const char *p, size_t n)
{
    char *c = gd_arena_alloc(gd_report_arena(rep), n + 1);
    if (!c) {
        gd_report_out_of_memory(rep);
        return NULL;
    }
    memcpy(c, p, n);
    c[n] = '\0';
    return c;
}

static int match_cmp(const void *a, const void *b)
{
    const struct gd_explain_match *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->channel != y->channel)
        return x->channel < y->channel ? -1 : 1;
    return strcmp(x->signature, y->signature);
}

enum gd_status gd_explain_result_build(const struct gd_explain *ex, const struct gd_scanner *sc,
                                       const char *name, struct gd_explain_result **out)
{
    *out = NULL;
    const struct gd_sigset *set = &ex->set;
    struct gd_explain_result *r = gd_calloc(1, sizeof *r);
    if (!r)
        return GD_ENOMEM;
    r->rep = gd_report_new();
    if (!r->rep) {
        gd_free(r);
        return GD_ENOMEM;
    }
    r->name = gd_report_strdup(r->rep, name);
    for (unsigned c = 0; c < GD_SCAN_CHANNELS; c++) {
        r->lines[c] = gd_scanner_lines(sc, c);
        r->bytes[c] = sc->ch[c].bytes;
        r->matched_lines[c] = sc->matched_lines[c];
    }
    r->match_errors = sc->match_errors;

    /* Which causes, how many signatures and kept lines each. */
    size_t nsig[GD_CAUSE_COUNT] = { 0 }, nkept[GD_CAUSE_COUNT] = { 0 };
    for (size_t i = 0; i < set->nsigs; i++) {
        if (sc->hits[i].count) {
            nsig[set->sigs[i].cause]++;
            nkept[set->sigs[i].cause] += sc->hits[i].nkept;
        }
    }
    for (unsigned c = 0; c < GD_CAUSE_COUNT; c++)
        r->ncauses += nsig[c] > 0;
    if (r->ncauses && !(r->causes = gd_calloc(r->ncauses, sizeof *r->causes)))
        goto nomem;
    size_t k = 0;
    for (unsigned c = 0; c < GD_CAUSE_COUNT; c++) {
        if (!nsig[c])
            continue;
        struct gd_explain_cause *cause = &r->causes[k++];
        cause->id = (enum gd_cause_id)c;
        cause->name = gd_cause_name(cause->id);
        cause->title = gd_report_strdup(r->rep, set->causes[c].title);
        cause->meaning = gd_report_strdup(r->rep, set->causes[c].meaning);
        cause->verdict = GD_EXPLAIN_UNCHECKED;
        cause->finding = gd_finding_add(r->rep, cause->name, GD_SEV_ERROR, "%s", cause->title);
        cause->sigs = gd_calloc(nsig[c], sizeof *cause->sigs);
        cause->matches = gd_calloc(nkept[c] ? nkept[c] : 1, sizeof *cause->matches);
        if (!cause->sigs || !cause->matches)
            goto nomem;
        for (size_t i = 0; i < set->nsigs; i++) {
            const struct gd_scan_hits *h = &sc->hits[i];
            const struct gd_sig *g = &set->sigs[i];
            if (!h->count || g->cause != cause->id)
                continue;
            const char *sig_id = gd_report_strdup(r->rep, g->id);
            const char *source =
                gd_report_strdup(r->rep, g->source_url ? g->source_url : g->source);
            struct gd_explain_sigcount *sgc = &cause->sigs[cause->nsigs++];
            sgc->signature = sig_id;
            sgc->source = source;
            sgc->weight = g->weight;
            sgc->lines = h->count;
            for (size_t j = 0; j < h->nkept; j++) {
                const struct gd_scan_line *l = &h->kept[j];
                struct gd_explain_match *m = &cause->matches[cause->nmatches++];
                m->signature = sig_id;
                m->source = source;
                m->weight = g->weight;
                m->line = l->line;
                m->channel = l->channel;
                m->text = arena_bytes(r->rep, l->text ? l->text : "", l->text ? l->len : 0);
                m->len = l->text ? l->len : 0;
                m->cut_before = l->cut_before;
                m->cut_after = l->cut_after;
                for (size_t p = 0; p < g->nparams; p++) {
                    if (!l->values[p])
                        continue;
                    m->names[m->nparams] = gd_report_strdup(r->rep, g->params[p].name);
                    m->values[m->nparams] = arena_bytes(r->rep, l->values[p], l->value_len[p]);
                    m->nparams++;
                }
            }
        }
        cause->lines = sc->cause_lines[c];
        qsort(cause->matches, cause->nmatches, sizeof *cause->matches, match_cmp);
        if (cause->nmatches) {
            cause->first_line = cause->matches[0].line;
            cause->first_channel = cause->matches[0].channel;
        }
    }
    if (gd_report_failed(r->rep))
        goto nomem;
    *out = r;
    return GD_OK;
nomem:
    gd_explain_result_free(r);
    return GD_ENOMEM;
}

void gd_explain_result_free(struct gd_explain_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->causes && i < r->ncauses; i++) {
        gd_free(r->causes[i].sigs);
        gd_free(r->causes[i].matches);
    }
    gd_free(r->causes);
    gd_report_free(r->rep);
    gd_free(r);
}

void gd_explain_note(struct gd_explain_result *r, struct gd_explain_cause *c, const char *fmt, ...)
{
    if (c->nnotes == GD_EXPLAIN_NOTES_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *s = gd_arena_vprintf(gd_report_arena(r->rep), fmt, ap);
    va_end(ap);
    if (!s) {
        gd_report_out_of_memory(r->rep);
        return;
    }
    for (size_t i = 0; i < c->nnotes; i++)
        if (strcmp(c->notes[i], s) == 0)
            return;
    c->notes[c->nnotes++] = s;
}

const char *gd_explain_param(const struct gd_explain_match *m, const char *name)
{
    for (size_t i = 0; i < m->nparams; i++)
        if (strcmp(m->names[i], name) == 0)
            return m->values[i];
    return NULL;
}

/* ---- public accessors -------------------------------------------------------------------- */

size_t gd_explain_cause_count(const struct gd_explain_result *r)
{
    return r ? r->ncauses : 0;
}

const struct gd_explain_cause *gd_explain_cause_at(const struct gd_explain_result *r, size_t i)
{
    return r && i < r->ncauses ? &r->causes[i] : NULL;
}

unsigned long long gd_explain_result_lines(const struct gd_explain_result *r, unsigned channel)
{
    return r && channel < GD_SCAN_CHANNELS ? r->lines[channel] : 0;
}

const char *gd_explain_result_name(const struct gd_explain_result *r)
{
    return r ? r->name : NULL;
}

const char *gd_explain_verdict_name(enum gd_explain_verdict v)
{
    switch (v) {
    case GD_EXPLAIN_CONFIRMED:
        return "confirmed";
    case GD_EXPLAIN_NOT_HERE:
        return "not-on-this-machine";
    case GD_EXPLAIN_UNDECIDED:
        return "undecided";
    case GD_EXPLAIN_UNCHECKED:
    default:
        return "unchecked";
    }
}

const char *gd_explain_cause_id(const struct gd_explain_cause *c)
{
    return c ? c->name : NULL;
}

const char *gd_explain_cause_title(const struct gd_explain_cause *c)
{
    return c ? c->title : NULL;
}

const char *gd_explain_cause_meaning(const struct gd_explain_cause *c)
{
    return c ? c->meaning : NULL;
}

enum gd_explain_verdict gd_explain_cause_verdict(const struct gd_explain_cause *c)
{
    return c ? c->verdict : GD_EXPLAIN_UNCHECKED;
}

int gd_explain_cause_score(const struct gd_explain_cause *c)
{
    return c ? c->score : 0;
}

unsigned long long gd_explain_cause_line_count(const struct gd_explain_cause *c)
{
    return c ? c->lines : 0;
}

size_t gd_explain_cause_match_count(const struct gd_explain_cause *c)
{
    return c ? c->nmatches : 0;
}

const struct gd_explain_match *gd_explain_cause_match_at(const struct gd_explain_cause *c, size_t i)
{
    return c && i < c->nmatches ? &c->matches[i] : NULL;
}

size_t gd_explain_cause_note_count(const struct gd_explain_cause *c)
{
    return c ? c->nnotes : 0;
}

const char *gd_explain_cause_note_at(const struct gd_explain_cause *c, size_t i)
{
    return c && i < c->nnotes ? c->notes[i] : NULL;
}

size_t gd_explain_cause_evidence_count(const struct gd_explain_cause *c)
{
    return c && c->finding ? gd_finding_evidence_count(c->finding) : 0;
}

const struct gd_fact *gd_explain_cause_evidence_at(const struct gd_explain_cause *c, size_t i)
{
    return c && c->finding ? gd_finding_evidence_at(c->finding, i) : NULL;
}

size_t gd_explain_cause_fix_count(const struct gd_explain_cause *c)
{
    return c && c->finding ? gd_finding_fix_count(c->finding) : 0;
}

const char *gd_explain_cause_fix_at(const struct gd_explain_cause *c, size_t i)
{
    return c && c->finding ? gd_finding_fix_at(c->finding, i) : NULL;
}

const char *gd_explain_match_signature(const struct gd_explain_match *m)
{
    return m ? m->signature : NULL;
}

const char *gd_explain_match_source(const struct gd_explain_match *m)
{
    return m ? m->source : NULL;
}

unsigned long long gd_explain_match_line(const struct gd_explain_match *m)
{
    return m ? m->line : 0;
}

unsigned gd_explain_match_channel(const struct gd_explain_match *m)
{
    return m ? m->channel : 0;
}

const char *gd_explain_match_text(const struct gd_explain_match *m, size_t *len)
{
    if (len)
        *len = m ? m->len : 0;
    return m ? m->text : NULL;
}

const char *gd_explain_match_param(const struct gd_explain_match *m, const char *name)
{
    return m && name ? gd_explain_param(m, name) : NULL;
}

size_t gd_explain_match_param_count(const struct gd_explain_match *m)
{
    return m ? m->nparams : 0;
}

const char *gd_explain_match_param_name(const struct gd_explain_match *m, size_t i)
{
    return m && i < m->nparams ? m->names[i] : NULL;
}

const char *gd_explain_match_param_value(const struct gd_explain_match *m, size_t i)
{
    return m && i < m->nparams ? m->values[i] : NULL;
}
