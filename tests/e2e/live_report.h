/*
 * What the live-machine drivers share: run `gpudoctor check ... --json`, read the report, look
 * up entities and facts, and count failures. Include in one .c file per driver.
 */
#ifndef GD_E2E_LIVE_REPORT_H
#define GD_E2E_LIVE_REPORT_H

#define _GNU_SOURCE
#include <json-c/json.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static inline void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

/* The fact's member `member` ("value", "state", "reason") as text, or NULL. */
static inline const char *fact_member(struct json_object *entity, const char *name,
                                      const char *member)
{
    struct json_object *facts, *f, *v;
    if (!json_object_object_get_ex(entity, "facts", &facts) ||
        !json_object_object_get_ex(facts, name, &f) || !json_object_object_get_ex(f, member, &v))
        return NULL;
    return json_object_get_string(v);
}

static inline const char *fact(struct json_object *entity, const char *name)
{
    return fact_member(entity, name, "value");
}

static inline const char *kind(struct json_object *entity)
{
    struct json_object *k;
    return json_object_object_get_ex(entity, "kind", &k) ? json_object_get_string(k) : "";
}

/* Run the shell command `cmd` (gpudoctor ... --json) and parse what it prints; NULL (with a
 * message) when it is not a report. `*status` is pclose's status. Free with json_object_put. */
static inline struct json_object *run_report(const char *cmd, int *status)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 20, len = 0, got;
    char *text = malloc(cap);
    while (text && (got = fread(text + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (len + 1 == cap)
            text = realloc(text, cap *= 2);
    }
    *status = pclose(p);
    if (!text)
        return NULL;
    text[len] = '\0';
    struct json_object *root = json_tokener_parse(text);
    free(text);
    struct json_object *entities;
    if (!root || !json_object_object_get_ex(root, "entities", &entities)) {
        printf("FAIL: no JSON report (exit status %d)\n", *status);
        json_object_put(root);
        return NULL;
    }
    return root;
}

static inline struct json_object *entities_of(struct json_object *root)
{
    struct json_object *entities = NULL;
    json_object_object_get_ex(root, "entities", &entities);
    return entities;
}

/* The first finding with this id, or NULL. */
static inline struct json_object *finding(struct json_object *root, const char *id)
{
    struct json_object *findings, *fid;
    if (!json_object_object_get_ex(root, "findings", &findings))
        return NULL;
    for (size_t i = 0; i < json_object_array_length(findings); i++) {
        struct json_object *f = json_object_array_get_idx(findings, i);
        if (json_object_object_get_ex(f, "id", &fid) &&
            strcmp(json_object_get_string(fid), id) == 0)
            return f;
    }
    return NULL;
}

#endif
