/*
 * The report model behind the public accessors: entities (host, driver, env, one per library
 * copy, ...) holding facts, and the findings the rules drew from them. All of it lives in one
 * arena owned by the report.
 *
 * Building a report never needs an error check at each step: an allocation failure is sticky
 * (gd_report_failed), later additions do nothing, and the builder functions return NULL, which
 * every other builder function accepts and ignores. The pipeline checks once at the end.
 */
#ifndef GD_CORE_REPORT_H
#define GD_CORE_REPORT_H

#include "core/attr.h"
#include <gpudoctor/gpudoctor.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

struct gd_arena;

struct gd_source {
    enum gd_source_kind kind;
    const char *ref; /* copied into the report */
};

struct gd_fact {
    const struct gd_entity *entity;
    const char *name;
    enum gd_fact_state state;
    enum gd_value_type type;
    const char *value; /* text form of a known value */
    long long int_value;
    const char *reason;
    struct gd_source source;
};

struct gd_entity {
    struct gd_report *report;
    const char *kind, *id;
    uint64_t id_hash;
    struct gd_fact **facts;
    size_t nfacts, cap;
    struct gd_entity **parts; /* gd_entity_add_part: e.g. a framework's framework_lib */
    size_t nparts, cap_parts;
};

struct gd_finding {
    struct gd_report *report;
    const char *id;
    enum gd_severity severity;
    const char *title, *why;
    const struct gd_fact **evidence;
    size_t nevidence, cap_evidence;
    const char **fix;
    size_t nfix, cap_fix;
};

struct gd_kind_list {
    const char *kind; /* in the report's arena */
    struct gd_entity **items;
    size_t count, cap;
};

struct gd_report {
    struct gd_arena *arena;
    struct gd_entity **entities;
    size_t nentities, cap_entities;
    /* Entities by id: open addressing over `entities`, a power-of-two size at least twice the
     * count (a check of 100 environments records thousands of entities; rules look them up by
     * id all the time). */
    struct gd_entity **by_id;
    size_t cap_by_id;
    /* Entities by kind, in the order they were added: the rules walk one kind (every framework,
     * every framework_lib) among thousands of entities. A few dozen kinds: a plain array. */
    struct gd_kind_list *kinds;
    size_t nkinds, cap_kinds;
    struct gd_finding **findings;
    size_t nfindings, cap_findings;
    bool failed;
};

static inline struct gd_source gd_src(enum gd_source_kind kind, const char *ref)
{
    struct gd_source s = { kind, ref };
    return s;
}

/* New empty report, or NULL when out of memory. */
struct gd_report *gd_report_new(void);
/* True once any addition ran out of memory. */
bool gd_report_failed(const struct gd_report *report);
/* Mark the report failed, as an addition that ran out of memory does: for allocations outside
 * the report (a probe's own path or buffer) whose loss would otherwise pass unnoticed. */
void gd_report_out_of_memory(struct gd_report *report);
struct gd_arena *gd_report_arena(struct gd_report *report);
/* Copy a string into the report's arena (NULL stays NULL; NULL and sticky failure on ENOMEM). */
const char *gd_report_strdup(struct gd_report *report, const char *s);
const char *gd_report_printf(struct gd_report *report, const char *fmt, ...) GD_PRINTF(2, 3);

/* The entity with this id, created with `kind` when new. */
struct gd_entity *gd_report_add_entity(struct gd_report *report, const char *kind, const char *id);

/* Record a fact on `entity` (NULL entity: no-op). A second fact of the same name replaces the
 * first in place. Returns the fact (borrowed) or NULL. */
const struct gd_fact *gd_fact_str(struct gd_entity *entity, const char *name, const char *value,
                                  struct gd_source source);
const struct gd_fact *gd_fact_strf(struct gd_entity *entity, const char *name,
                                   struct gd_source source, const char *fmt, ...) GD_PRINTF(4, 5);
const struct gd_fact *gd_fact_int(struct gd_entity *entity, const char *name, long long value,
                                  struct gd_source source);
const struct gd_fact *gd_fact_bool(struct gd_entity *entity, const char *name, bool value,
                                   struct gd_source source);
/* The source was examined and the thing is not there; `reason` may be NULL. */
const struct gd_fact *gd_fact_absent(struct gd_entity *entity, const char *name, const char *reason,
                                     struct gd_source source);
/* The source could not be examined; `reason` says why. */
const struct gd_fact *gd_fact_unknown(struct gd_entity *entity, const char *name,
                                      const char *reason, struct gd_source source);

/* Lookups for rules. NULL when the entity or fact was not recorded. */
const struct gd_fact *gd_report_fact(const struct gd_report *report, const char *entity_id,
                                     const char *name);
/* The value of a known fact, else NULL. */
const char *gd_report_value(const struct gd_report *report, const char *entity_id,
                            const char *name);
const char *gd_fact_known_value(const struct gd_fact *fact);
/* True when the fact is a known boolean true. */
bool gd_fact_is_true(const struct gd_fact *fact);
bool gd_fact_is_false(const struct gd_fact *fact);

/* Add a finding; `title_fmt` is printf-style. */
struct gd_finding *gd_finding_add(struct gd_report *report, const char *id,
                                  enum gd_severity severity, const char *title_fmt, ...)
    GD_PRINTF(4, 5);
void gd_finding_set_why(struct gd_finding *finding, const char *fmt, ...) GD_PRINTF(2, 3);
/* Add a fact as evidence (NULL facts are ignored, duplicates are kept once). */
void gd_finding_add_evidence(struct gd_finding *finding, const struct gd_fact *fact);
void gd_finding_add_fix(struct gd_finding *finding, const char *fmt, ...) GD_PRINTF(2, 3);

/* The entities of one kind, in the order they were added, and their count in `*n` (the array
 * is valid until the next entity is added; NULL with *n = 0 when there is none). */
struct gd_entity *const *gd_report_kind(const struct gd_report *report, const char *kind,
                                        size_t *n);

/* Record `part` as a part of `whole` (a framework's libraries, each its own entity), so that a
 * rule reaches them without walking every entity of their kind: a check of 100 environments
 * holds thousands of libraries of other frameworks. Out of memory is sticky in the report. */
void gd_entity_add_part(struct gd_entity *whole, struct gd_entity *part);
/* The parts of `whole`, in the order they were added, and their count in `*n` (valid until the
 * next part is added). */
struct gd_entity *const *gd_entity_parts(const struct gd_entity *whole, size_t *n);

/* Order findings most severe first, keeping the rules' order within a severity. */
void gd_report_sort_findings(struct gd_report *report);

#endif
