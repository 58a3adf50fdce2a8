#include "core/report.h"

#include "core/alloc.h"
#include "core/arena.h"
#include "core/hash.h"

#include <stdio.h>
#include <string.h>

struct gd_report *gd_report_new(void)
{
    struct gd_report *r = gd_calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->arena = gd_arena_new();
    if (!r->arena) {
        gd_free(r);
        return NULL;
    }
    return r;
}

void gd_report_free(struct gd_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nentities; i++) {
        gd_free(r->entities[i]->facts);
        gd_free(r->entities[i]->parts);
    }
    for (size_t i = 0; i < r->nfindings; i++) {
        gd_free(r->findings[i]->evidence);
        gd_free(r->findings[i]->fix);
    }
    gd_free(r->entities);
    gd_free(r->by_id);
    for (size_t i = 0; i < r->nkinds; i++)
        gd_free(r->kinds[i].items);
    gd_free(r->kinds);
    gd_free(r->findings);
    gd_arena_free(r->arena);
    gd_free(r);
}

bool gd_report_failed(const struct gd_report *r)
{
    return r->failed;
}

void gd_report_out_of_memory(struct gd_report *r)
{
    r->failed = true;
}

struct gd_arena *gd_report_arena(struct gd_report *r)
{
    return r->arena;
}

static void *fail(struct gd_report *r)
{
    r->failed = true;
    return NULL;
}

const char *gd_report_strdup(struct gd_report *r, const char *s)
{
    if (!s)
        return NULL;
    char *copy = gd_arena_strdup(r->arena, s);
    return copy ? copy : fail(r);
}

const char *gd_report_printf(struct gd_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = gd_arena_vprintf(r->arena, fmt, ap);
    va_end(ap);
    return s ? s : fail(r);
}

static struct gd_entity *find_entity(const struct gd_report *r, const char *id)
{
    if (!r->cap_by_id || !id)
        return NULL;
    uint64_t h = gd_hash_str(id);
    for (size_t i = h & (r->cap_by_id - 1);; i = (i + 1) & (r->cap_by_id - 1)) {
        struct gd_entity *e = r->by_id[i];
        if (!e)
            return NULL;
        if (e->id_hash == h && strcmp(e->id, id) == 0)
            return e;
    }
}

static void index_put(struct gd_entity **table, size_t cap, struct gd_entity *e)
{
    size_t i = e->id_hash & (cap - 1);
    while (table[i])
        i = (i + 1) & (cap - 1);
    table[i] = e;
}

/* Room in the index for one more entity; false when out of memory (nothing changed). */
static bool index_reserve(struct gd_report *r)
{
    if ((r->nentities + 1) * 2 <= r->cap_by_id)
        return true;
    size_t cap = r->cap_by_id ? r->cap_by_id * 2 : 64;
    struct gd_entity **table = gd_calloc(cap, sizeof *table);
    if (!table)
        return false;
    for (size_t i = 0; i < r->nentities; i++)
        index_put(table, cap, r->entities[i]);
    gd_free(r->by_id);
    r->by_id = table;
    r->cap_by_id = cap;
    return true;
}

static struct gd_kind_list *kind_list(const struct gd_report *r, const char *kind)
{
    for (size_t i = 0; i < r->nkinds; i++)
        if (strcmp(r->kinds[i].kind, kind) == 0)
            return &r->kinds[i];
    return NULL;
}

/* Room for one more entity of `kind` (its list made when new); NULL when out of memory. */
static struct gd_kind_list *kind_reserve(struct gd_report *r, const char *kind)
{
    struct gd_kind_list *l = kind_list(r, kind);
    if (!l) {
        const char *copy = gd_report_strdup(r, kind);
        if (!copy || gd_grow((void **)&r->kinds, &r->cap_kinds, r->nkinds + 1, sizeof *r->kinds))
            return NULL;
        l = &r->kinds[r->nkinds++];
        *l = (struct gd_kind_list){ copy, NULL, 0, 0 };
    }
    if (gd_grow((void **)&l->items, &l->cap, l->count + 1, sizeof *l->items))
        return NULL;
    return l;
}

struct gd_entity *const *gd_report_kind(const struct gd_report *r, const char *kind, size_t *n)
{
    const struct gd_kind_list *l = r && kind ? kind_list(r, kind) : NULL;
    *n = l ? l->count : 0;
    return l ? l->items : NULL;
}

struct gd_entity *gd_report_add_entity(struct gd_report *r, const char *kind, const char *id)
{
    if (!r || r->failed)
        return NULL;
    struct gd_entity *e = find_entity(r, id);
    if (e)
        return e;
    e = gd_arena_alloc(r->arena, sizeof *e);
    struct gd_kind_list *byk = NULL;
    if (!e ||
        gd_grow((void **)&r->entities, &r->cap_entities, r->nentities + 1, sizeof *r->entities) !=
            0 ||
        !index_reserve(r) || !(byk = kind_reserve(r, kind)))
        return fail(r);
    e->report = r;
    e->kind = gd_report_strdup(r, kind);
    e->id = gd_report_strdup(r, id);
    if (!e->kind || !e->id)
        return NULL;
    e->id_hash = gd_hash_str(e->id);
    r->entities[r->nentities++] = e;
    index_put(r->by_id, r->cap_by_id, e);
    byk->items[byk->count++] = e;
    return e;
}

void gd_entity_add_part(struct gd_entity *whole, struct gd_entity *part)
{
    if (!whole || !part || whole->report->failed)
        return;
    for (size_t i = whole->nparts; i-- > 0;)
        if (whole->parts[i] == part)
            return;
    if (gd_grow((void **)&whole->parts, &whole->cap_parts, whole->nparts + 1,
                sizeof *whole->parts) != 0) {
        fail(whole->report);
        return;
    }
    whole->parts[whole->nparts++] = part;
}

struct gd_entity *const *gd_entity_parts(const struct gd_entity *whole, size_t *n)
{
    *n = whole ? whole->nparts : 0;
    return whole ? whole->parts : NULL;
}

/* Record a fact. Every string is copied before the fact is touched, so that out of memory
 * changes nothing: a new fact is not added half-made, a replaced one keeps its old contents.
 * `value` and `reason` are in the arena already. */
static struct gd_fact *put_fact(struct gd_entity *e, const char *name, struct gd_source source,
                                enum gd_fact_state state, enum gd_value_type type,
                                const char *value, long long int_value, const char *reason)
{
    struct gd_report *r = e->report;
    struct gd_fact *f = NULL;
    for (size_t i = 0; i < e->nfacts; i++) {
        const char *have = e->facts[i]->name;
        if (have[0] == name[0] && strcmp(have, name) == 0) {
            f = e->facts[i];
            break;
        }
    }
    /* An entity's facts mostly share their source (a library's path, a framework's
     * METADATA): the copy the previous fact made serves again, once compared. */
    const char *want = source.ref ? source.ref : "";
    const char *prev = e->nfacts ? e->facts[e->nfacts - 1]->source.ref : NULL;
    const char *ref = prev && strcmp(prev, want) == 0 ? prev : gd_report_strdup(r, want);
    const char *copy = f ? f->name : gd_report_strdup(r, name);
    if (!ref || !copy)
        return NULL;
    if (!f) {
        f = gd_arena_alloc(r->arena, sizeof *f);
        if (!f || gd_grow((void **)&e->facts, &e->cap, e->nfacts + 1, sizeof *e->facts) != 0)
            return fail(r);
        e->facts[e->nfacts++] = f;
    }
    f->entity = e;
    f->name = copy;
    f->state = state;
    f->type = type;
    f->value = value;
    f->int_value = int_value;
    f->reason = reason;
    f->source.kind = source.kind;
    f->source.ref = ref;
    return f;
}

const struct gd_fact *gd_fact_str(struct gd_entity *e, const char *name, const char *value,
                                  struct gd_source source)
{
    if (!e || e->report->failed)
        return NULL;
    const char *v = gd_report_strdup(e->report, value ? value : "");
    return v ? put_fact(e, name, source, GD_FACT_KNOWN, GD_VALUE_STRING, v, 0, NULL) : NULL;
}

const struct gd_fact *gd_fact_strf(struct gd_entity *e, const char *name, struct gd_source source,
                                   const char *fmt, ...)
{
    if (!e || e->report->failed)
        return NULL;
    va_list ap;
    va_start(ap, fmt);
    char *s = gd_arena_vprintf(e->report->arena, fmt, ap);
    va_end(ap);
    if (!s)
        return fail(e->report);
    return put_fact(e, name, source, GD_FACT_KNOWN, GD_VALUE_STRING, s, 0, NULL);
}

const struct gd_fact *gd_fact_int(struct gd_entity *e, const char *name, long long value,
                                  struct gd_source source)
{
    if (!e || e->report->failed)
        return NULL;
    const char *v = gd_report_printf(e->report, "%lld", value);
    return v ? put_fact(e, name, source, GD_FACT_KNOWN, GD_VALUE_INT, v, value, NULL) : NULL;
}

const struct gd_fact *gd_fact_bool(struct gd_entity *e, const char *name, bool value,
                                   struct gd_source source)
{
    if (!e || e->report->failed)
        return NULL;
    return put_fact(e, name, source, GD_FACT_KNOWN, GD_VALUE_BOOL, value ? "true" : "false", value,
                    NULL);
}

static const struct gd_fact *not_known(struct gd_entity *e, const char *name,
                                       enum gd_fact_state state, const char *reason,
                                       struct gd_source source)
{
    if (!e || e->report->failed)
        return NULL;
    const char *why = gd_report_strdup(e->report, reason);
    if (reason && !why)
        return NULL;
    return put_fact(e, name, source, state, GD_VALUE_STRING, NULL, 0, why);
}

const struct gd_fact *gd_fact_absent(struct gd_entity *e, const char *name, const char *reason,
                                     struct gd_source source)
{
    return not_known(e, name, GD_FACT_ABSENT, reason, source);
}

const struct gd_fact *gd_fact_unknown(struct gd_entity *e, const char *name, const char *reason,
                                      struct gd_source source)
{
    return not_known(e, name, GD_FACT_UNKNOWN, reason ? reason : "unknown", source);
}

const struct gd_fact *gd_report_fact(const struct gd_report *r, const char *entity_id,
                                     const char *name)
{
    const struct gd_entity *e = find_entity(r, entity_id);
    return e ? gd_entity_fact(e, name) : NULL;
}

const char *gd_fact_known_value(const struct gd_fact *f)
{
    return f && f->state == GD_FACT_KNOWN ? f->value : NULL;
}

const char *gd_report_value(const struct gd_report *r, const char *entity_id, const char *name)
{
    return gd_fact_known_value(gd_report_fact(r, entity_id, name));
}

bool gd_fact_is_true(const struct gd_fact *f)
{
    return f && f->state == GD_FACT_KNOWN && f->type == GD_VALUE_BOOL && f->int_value;
}

bool gd_fact_is_false(const struct gd_fact *f)
{
    return f && f->state == GD_FACT_KNOWN && f->type == GD_VALUE_BOOL && !f->int_value;
}

struct gd_finding *gd_finding_add(struct gd_report *r, const char *id, enum gd_severity severity,
                                  const char *title_fmt, ...)
{
    if (!r || r->failed)
        return NULL;
    struct gd_finding *f = gd_arena_alloc(r->arena, sizeof *f);
    if (!f || gd_grow((void **)&r->findings, &r->cap_findings, r->nfindings + 1,
                      sizeof *r->findings) != 0)
        return fail(r);
    va_list ap;
    va_start(ap, title_fmt);
    char *title = gd_arena_vprintf(r->arena, title_fmt, ap);
    va_end(ap);
    f->report = r;
    f->id = gd_report_strdup(r, id);
    f->severity = severity;
    f->title = title;
    if (!title || !f->id)
        return fail(r);
    r->findings[r->nfindings++] = f;
    return f;
}

void gd_finding_set_why(struct gd_finding *f, const char *fmt, ...)
{
    if (!f || f->report->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *why = gd_arena_vprintf(f->report->arena, fmt, ap);
    va_end(ap);
    if (!why)
        fail(f->report);
    f->why = why;
}

void gd_finding_add_evidence(struct gd_finding *f, const struct gd_fact *fact)
{
    if (!f || !fact || f->report->failed)
        return;
    for (size_t i = 0; i < f->nevidence; i++)
        if (f->evidence[i] == fact)
            return;
    if (gd_grow((void **)&f->evidence, &f->cap_evidence, f->nevidence + 1, sizeof *f->evidence)) {
        fail(f->report);
        return;
    }
    f->evidence[f->nevidence++] = fact;
}

void gd_finding_add_fix(struct gd_finding *f, const char *fmt, ...)
{
    if (!f || f->report->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *step = gd_arena_vprintf(f->report->arena, fmt, ap);
    va_end(ap);
    if (!step || gd_grow((void **)&f->fix, &f->cap_fix, f->nfix + 1, sizeof *f->fix) != 0) {
        fail(f->report);
        return;
    }
    f->fix[f->nfix++] = step;
}

void gd_report_sort_findings(struct gd_report *r)
{
    /* Insertion sort: stable, and reports hold tens of findings, not thousands. */
    for (size_t i = 1; i < r->nfindings; i++) {
        struct gd_finding *f = r->findings[i];
        size_t j = i;
        while (j > 0 && r->findings[j - 1]->severity < f->severity) {
            r->findings[j] = r->findings[j - 1];
            j--;
        }
        r->findings[j] = f;
    }
}

/* ---- public accessors ---- */

size_t gd_report_entity_count(const struct gd_report *r)
{
    return r->nentities;
}

const struct gd_entity *gd_report_entity_at(const struct gd_report *r, size_t i)
{
    return i < r->nentities ? r->entities[i] : NULL;
}

const struct gd_entity *gd_report_entity(const struct gd_report *r, const char *id)
{
    return find_entity(r, id);
}

const char *gd_entity_kind(const struct gd_entity *e)
{
    return e->kind;
}

const char *gd_entity_id(const struct gd_entity *e)
{
    return e->id;
}

size_t gd_entity_fact_count(const struct gd_entity *e)
{
    return e->nfacts;
}

const struct gd_fact *gd_entity_fact_at(const struct gd_entity *e, size_t i)
{
    return i < e->nfacts ? e->facts[i] : NULL;
}

const struct gd_fact *gd_entity_fact(const struct gd_entity *e, const char *name)
{
    if (!e)
        return NULL;
    /* The first byte before the call: rules ask half a million times in a check of 100
     * environments, and most names differ there. */
    for (size_t i = 0; i < e->nfacts; i++) {
        const char *have = e->facts[i]->name;
        if (have[0] == name[0] && strcmp(have, name) == 0)
            return e->facts[i];
    }
    return NULL;
}

const struct gd_entity *gd_fact_entity(const struct gd_fact *f)
{
    return f->entity;
}

const char *gd_fact_name(const struct gd_fact *f)
{
    return f->name;
}

enum gd_fact_state gd_fact_state(const struct gd_fact *f)
{
    return f->state;
}

enum gd_value_type gd_fact_type(const struct gd_fact *f)
{
    return f->type;
}

const char *gd_fact_value(const struct gd_fact *f)
{
    return f->state == GD_FACT_KNOWN ? f->value : NULL;
}

const char *gd_fact_reason(const struct gd_fact *f)
{
    return f->reason;
}

enum gd_source_kind gd_fact_source_kind(const struct gd_fact *f)
{
    return f->source.kind;
}

const char *gd_fact_source_ref(const struct gd_fact *f)
{
    return f->source.ref;
}

const char *gd_source_kind_name(enum gd_source_kind kind)
{
    switch (kind) {
    case GD_SOURCE_FILE:
        return "file";
    case GD_SOURCE_PATH:
        return "path";
    case GD_SOURCE_ENV:
        return "env";
    case GD_SOURCE_ELF:
        return "elf";
    case GD_SOURCE_CALL:
        return "call";
    case GD_SOURCE_DERIVED:
        return "derived";
    case GD_SOURCE_OPTION:
        return "option";
    case GD_SOURCE_KB:
        return "kb";
    }
    return "unknown";
}

const char *gd_severity_name(enum gd_severity s)
{
    switch (s) {
    case GD_SEV_OK:
        return "ok";
    case GD_SEV_INFO:
        return "info";
    case GD_SEV_WARNING:
        return "warning";
    case GD_SEV_ERROR:
        return "error";
    }
    return "unknown";
}

size_t gd_report_finding_count(const struct gd_report *r)
{
    return r->nfindings;
}

const struct gd_finding *gd_report_finding_at(const struct gd_report *r, size_t i)
{
    return i < r->nfindings ? r->findings[i] : NULL;
}

enum gd_severity gd_report_worst(const struct gd_report *r)
{
    enum gd_severity worst = GD_SEV_OK;
    for (size_t i = 0; i < r->nfindings; i++)
        if (r->findings[i]->severity > worst)
            worst = r->findings[i]->severity;
    return worst;
}

const char *gd_finding_id(const struct gd_finding *f)
{
    return f->id;
}

enum gd_severity gd_finding_severity(const struct gd_finding *f)
{
    return f->severity;
}

const char *gd_finding_title(const struct gd_finding *f)
{
    return f->title;
}

const char *gd_finding_why(const struct gd_finding *f)
{
    return f->why;
}

size_t gd_finding_evidence_count(const struct gd_finding *f)
{
    return f->nevidence;
}

const struct gd_fact *gd_finding_evidence_at(const struct gd_finding *f, size_t i)
{
    return i < f->nevidence ? f->evidence[i] : NULL;
}

size_t gd_finding_fix_count(const struct gd_finding *f)
{
    return f->nfix;
}

const char *gd_finding_fix_at(const struct gd_finding *f, size_t i)
{
    return i < f->nfix ? f->fix[i] : NULL;
}
