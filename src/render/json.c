/* The full report as JSON: the stable machine interface, schema in docs/json-schema.md. */
#include "render/render.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SCHEMA "gpudoctor.report/1"

static struct json_object *source(const struct gd_fact *f)
{
    struct json_object *s = json_object_new_object();
    json_object_object_add(s, "kind",
                           json_object_new_string(gd_source_kind_name(gd_fact_source_kind(f))));
    json_object_object_add(s, "ref", json_object_new_string(gd_fact_source_ref(f)));
    return s;
}

static const char *state_name(enum gd_fact_state s)
{
    return s == GD_FACT_KNOWN ? "known" : s == GD_FACT_ABSENT ? "absent" : "unknown";
}

static struct json_object *value(const struct gd_fact *f)
{
    const char *v = gd_fact_value(f);
    switch (gd_fact_type(f)) {
    case GD_VALUE_INT:
        return json_object_new_int64(strtoll(v, NULL, 10));
    case GD_VALUE_BOOL:
        return json_object_new_boolean(strcmp(v, "true") == 0);
    case GD_VALUE_STRING:
        break;
    }
    return json_object_new_string(v);
}

/* A fact's body: state, value or reason, source; evidence names its entity and fact first. */
static struct json_object *fact_body(const struct gd_fact *f, bool named)
{
    struct json_object *o = json_object_new_object();
    if (named) {
        json_object_object_add(o, "entity",
                               json_object_new_string(gd_entity_id(gd_fact_entity(f))));
        json_object_object_add(o, "fact", json_object_new_string(gd_fact_name(f)));
    }
    json_object_object_add(o, "state", json_object_new_string(state_name(gd_fact_state(f))));
    if (gd_fact_state(f) == GD_FACT_KNOWN)
        json_object_object_add(o, "value", value(f));
    if (gd_fact_reason(f))
        json_object_object_add(o, "reason", json_object_new_string(gd_fact_reason(f)));
    json_object_object_add(o, "source", source(f));
    return o;
}

static struct json_object *finding(const struct gd_finding *f)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "id", json_object_new_string(gd_finding_id(f)));
    json_object_object_add(o, "severity",
                           json_object_new_string(gd_severity_name(gd_finding_severity(f))));
    json_object_object_add(o, "title", json_object_new_string(gd_finding_title(f)));
    if (gd_finding_why(f))
        json_object_object_add(o, "why", json_object_new_string(gd_finding_why(f)));
    struct json_object *ev = json_object_new_array();
    for (size_t i = 0; i < gd_finding_evidence_count(f); i++) {
        json_object_array_add(ev, fact_body(gd_finding_evidence_at(f, i), true));
    }
    json_object_object_add(o, "evidence", ev);
    struct json_object *fix = json_object_new_array();
    for (size_t i = 0; i < gd_finding_fix_count(f); i++)
        json_object_array_add(fix, json_object_new_string(gd_finding_fix_at(f, i)));
    json_object_object_add(o, "fix", fix);
    return o;
}

void gd_render_json(const struct gd_report *r, struct gd_buf *out)
{
    struct json_object *root = json_object_new_object();
    if (!root) {
        out->status = GD_ENOMEM;
        return;
    }
    json_object_object_add(root, "schema", json_object_new_string(SCHEMA));
    json_object_object_add(root, "gpudoctor", json_object_new_string(gd_version()));
    size_t c[4];
    gd_render_counts(r, c);
    struct json_object *summary = json_object_new_object();
    json_object_object_add(summary, "worst",
                           json_object_new_string(gd_severity_name(gd_report_worst(r))));
    for (int s = GD_SEV_ERROR; s >= GD_SEV_OK; s--)
        json_object_object_add(summary, gd_severity_name((enum gd_severity)s),
                               json_object_new_int64((int64_t)c[s]));
    json_object_object_add(root, "summary", summary);

    struct json_object *findings = json_object_new_array();
    for (size_t i = 0; i < gd_report_finding_count(r); i++)
        json_object_array_add(findings, finding(gd_report_finding_at(r, i)));
    json_object_object_add(root, "findings", findings);

    struct json_object *entities = json_object_new_array();
    for (size_t i = 0; i < gd_report_entity_count(r); i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        struct json_object *eo = json_object_new_object();
        json_object_object_add(eo, "kind", json_object_new_string(gd_entity_kind(e)));
        json_object_object_add(eo, "id", json_object_new_string(gd_entity_id(e)));
        struct json_object *facts = json_object_new_object();
        for (size_t k = 0; k < gd_entity_fact_count(e); k++) {
            const struct gd_fact *f = gd_entity_fact_at(e, k);
            json_object_object_add(facts, gd_fact_name(f), fact_body(f, false));
        }
        json_object_object_add(eo, "facts", facts);
        json_object_array_add(entities, eo);
    }
    json_object_object_add(root, "entities", entities);

    size_t len = 0;
    const char *text = json_object_to_json_string_length(
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE,
        &len);
    if (text) {
        gd_buf_add(out, text, len);
        gd_buf_putc(out, '\n');
    } else {
        out->status = GD_ENOMEM;
    }
    json_object_put(root);
}
