/*
 * A report saved with `gpudoctor check --json` read back (gd_report_read_json), so that explain
 * can check causes against a machine that is not this one (--report FILE). The JSON is untrusted:
 * every field is checked for its type, unknown fields are ignored (the schema only adds fields
 * within version 1), and what does not fit the model is skipped rather than guessed.
 */
#include "core/alloc.h"
#include "core/report.h"

#include <gpudoctor/gpudoctor.h>
#include <json-c/json.h>
#include <string.h>

#define REPORT_JSON_MAX (64u * 1024 * 1024)

static const char *str(struct json_object *o, const char *key)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

static bool source_of(struct json_object *fact, struct gd_source *src)
{
    static const struct {
        const char *name;
        enum gd_source_kind kind;
    } kinds[] = {
        { "file", GD_SOURCE_FILE },     { "path", GD_SOURCE_PATH },
        { "env", GD_SOURCE_ENV },       { "elf", GD_SOURCE_ELF },
        { "call", GD_SOURCE_CALL },     { "derived", GD_SOURCE_DERIVED },
        { "option", GD_SOURCE_OPTION }, { "kb", GD_SOURCE_KB },
    };
    struct json_object *s;
    if (!json_object_object_get_ex(fact, "source", &s) || !json_object_is_type(s, json_type_object))
        return false;
    const char *kind = str(s, "kind"), *ref = str(s, "ref");
    if (!kind || !ref)
        return false;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        if (strcmp(kinds[i].name, kind) == 0) {
            *src = gd_src(kinds[i].kind, ref);
            return true;
        }
    }
    return false;
}

/* One fact object into `e`; NULL (and nothing added) when it is not a fact of schema 1. */
static const struct gd_fact *add_fact(struct gd_entity *e, const char *name, struct json_object *fo)
{
    struct gd_source src;
    if (!json_object_is_type(fo, json_type_object) || !source_of(fo, &src))
        return NULL;
    const char *state = str(fo, "state"), *reason = str(fo, "reason");
    if (!state)
        return NULL;
    if (strcmp(state, "known") == 0) {
        struct json_object *v;
        if (!json_object_object_get_ex(fo, "value", &v))
            return NULL;
        switch (json_object_get_type(v)) {
        case json_type_int:
            return gd_fact_int(e, name, json_object_get_int64(v), src);
        case json_type_boolean:
            return gd_fact_bool(e, name, json_object_get_boolean(v), src);
        case json_type_string:
            return gd_fact_str(e, name, json_object_get_string(v), src);
        default:
            return NULL;
        }
    }
    if (strcmp(state, "absent") == 0)
        return gd_fact_absent(e, name, reason, src);
    if (strcmp(state, "unknown") == 0)
        return gd_fact_unknown(e, name, reason ? reason : "unknown", src);
    return NULL;
}

static void read_entities(struct gd_report *rep, struct json_object *arr)
{
    size_t n = json_object_array_length(arr);
    for (size_t i = 0; i < n && !gd_report_failed(rep); i++) {
        struct json_object *eo = json_object_array_get_idx(arr, i), *facts;
        if (!json_object_is_type(eo, json_type_object))
            continue;
        const char *kind = str(eo, "kind"), *id = str(eo, "id");
        if (!kind || !id || !*id || !json_object_object_get_ex(eo, "facts", &facts) ||
            !json_object_is_type(facts, json_type_object))
            continue;
        struct gd_entity *e = gd_report_add_entity(rep, kind, id);
        json_object_object_foreach(facts, name, fo)
        {
            add_fact(e, name, fo);
        }
    }
}

static bool severity_of(const char *name, enum gd_severity *sev)
{
    for (int s = GD_SEV_OK; s <= GD_SEV_ERROR; s++) {
        if (name && strcmp(name, gd_severity_name((enum gd_severity)s)) == 0) {
            *sev = (enum gd_severity)s;
            return true;
        }
    }
    return false;
}

static void read_findings(struct gd_report *rep, struct json_object *arr)
{
    size_t n = json_object_array_length(arr);
    for (size_t i = 0; i < n && !gd_report_failed(rep); i++) {
        struct json_object *fo = json_object_array_get_idx(arr, i), *list;
        enum gd_severity sev;
        if (!json_object_is_type(fo, json_type_object))
            continue;
        const char *id = str(fo, "id"), *title = str(fo, "title"), *why = str(fo, "why");
        if (!id || !title || !severity_of(str(fo, "severity"), &sev))
            continue;
        struct gd_finding *f = gd_finding_add(rep, id, sev, "%s", title);
        if (why)
            gd_finding_set_why(f, "%s", why);
        if (json_object_object_get_ex(fo, "evidence", &list) &&
            json_object_is_type(list, json_type_array)) {
            for (size_t k = 0; k < json_object_array_length(list); k++) {
                struct json_object *ev = json_object_array_get_idx(list, k);
                const char *eid =
                    json_object_is_type(ev, json_type_object) ? str(ev, "entity") : NULL;
                const char *fname = eid ? str(ev, "fact") : NULL;
                if (!eid || !*eid || !fname)
                    continue;
                /* The fact as the entities recorded it; a report cut by hand may lack it, then
                 * the evidence's own copy stands in (in an entity of kind "evidence"). */
                const struct gd_fact *fact = gd_report_fact(rep, eid, fname);
                if (!fact)
                    fact = add_fact(gd_report_add_entity(rep, "evidence", eid), fname, ev);
                gd_finding_add_evidence(f, fact);
            }
        }
        if (json_object_object_get_ex(fo, "fix", &list) &&
            json_object_is_type(list, json_type_array)) {
            for (size_t k = 0; k < json_object_array_length(list); k++) {
                struct json_object *step = json_object_array_get_idx(list, k);
                if (json_object_is_type(step, json_type_string))
                    gd_finding_add_fix(f, "%s", json_object_get_string(step));
            }
        }
    }
}

enum gd_status gd_report_read_json(const char *data, size_t len, struct gd_report **out)
{
    *out = NULL;
    if (!data && len)
        return GD_EINVAL;
    if (len > REPORT_JSON_MAX)
        return GD_ELIMIT;
    struct json_tokener *tok = json_tokener_new();
    if (!tok)
        return GD_ENOMEM;
    struct json_object *root = json_tokener_parse_ex(tok, data ? data : "", (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    /* Only whitespace may follow the document. */
    size_t used = json_tokener_get_parse_end(tok);
    while (root && used < len &&
           (data[used] == ' ' || data[used] == '\n' || data[used] == '\t' || data[used] == '\r'))
        used++;
    json_tokener_free(tok);
    enum gd_status st = GD_EFORMAT;
    struct json_object *entities, *findings;
    const char *schema = root ? str(root, "schema") : NULL;
    if (!root || jerr != json_tokener_success || used != len ||
        !json_object_is_type(root, json_type_object) || !schema ||
        strcmp(schema, "gpudoctor.report/1") != 0 ||
        !json_object_object_get_ex(root, "entities", &entities) ||
        !json_object_is_type(entities, json_type_array))
        goto out;
    struct gd_report *rep = gd_report_new();
    if (!rep) {
        st = GD_ENOMEM;
        goto out;
    }
    read_entities(rep, entities);
    if (json_object_object_get_ex(root, "findings", &findings) &&
        json_object_is_type(findings, json_type_array))
        read_findings(rep, findings);
    if (gd_report_failed(rep)) {
        gd_report_free(rep);
        st = GD_ENOMEM;
        goto out;
    }
    *out = rep;
    st = GD_OK;
out:
    json_object_put(root);
    return st;
}
