#include "kb/kb.h"

#include "core/alloc.h"
#include "core/attr.h"
#include "core/buf.h"
#include "kb/embedded.h"
#include "os/os.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A table file larger than this is refused (the largest shipped table is a few hundred KiB). */
#define KB_FILE_MAX (8 * 1024 * 1024)
#define KB_FORMAT   1

struct gd_kb_table {
    char *name;
    char *origin;
    struct json_object *root;
    struct json_object *rows;    /* array */
    struct json_object *sources; /* object */
};

struct gd_kb {
    struct gd_kb_table **tables;
    size_t ntables, cap;
    char **problems;
    size_t nproblems, cap_problems;
    bool out_of_memory; /* a problem could not be recorded */
};

static void add_problem(struct gd_kb *kb, const char *fmt, ...) GD_PRINTF(2, 3);

static void add_problem(struct gd_kb *kb, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char *copy = gd_strdup(text);
    if (!copy || gd_grow((void **)&kb->problems, &kb->cap_problems, kb->nproblems + 1,
                         sizeof *kb->problems) != 0) {
        gd_free(copy);
        kb->out_of_memory = true;
        return;
    }
    kb->problems[kb->nproblems++] = copy;
}

void gd_kb_table_free(struct gd_kb_table *t)
{
    if (!t)
        return;
    json_object_put(t->root);
    gd_free(t->name);
    gd_free(t->origin);
    gd_free(t);
}

static bool fail(char *problem, size_t size, const char *what)
{
    snprintf(problem, size, "%s", what);
    return false;
}

/* Every row must be an object naming a source that the table's "sources" defines with a URL. */
static bool validate(struct gd_kb_table *t, char *problem, size_t size)
{
    struct json_object *format, *v;
    if (!json_object_is_type(t->root, json_type_object))
        return fail(problem, size, "not a JSON object");
    /* json_object_get_int() converts: "1", 1.5 and true would all read as 1. */
    if (!json_object_object_get_ex(t->root, "format", &format) ||
        !json_object_is_type(format, json_type_int) || json_object_get_int64(format) != KB_FORMAT)
        return fail(problem, size, "missing or unsupported \"format\" (expected 1)");
    if (!json_object_object_get_ex(t->root, "table", &v) ||
        !json_object_is_type(v, json_type_string) || strcmp(json_object_get_string(v), t->name))
        return fail(problem, size, "\"table\" does not match the file name");
    if (!json_object_object_get_ex(t->root, "sources", &t->sources) ||
        !json_object_is_type(t->sources, json_type_object))
        return fail(problem, size, "no \"sources\" object");
    json_object_object_foreach(t->sources, id, src)
    {
        struct json_object *url;
        if (!json_object_is_type(src, json_type_object) ||
            !json_object_object_get_ex(src, "url", &url) ||
            !json_object_is_type(url, json_type_string)) {
            snprintf(problem, size, "source \"%s\" has no url", id);
            return false;
        }
    }
    if (!json_object_object_get_ex(t->root, "rows", &t->rows) ||
        !json_object_is_type(t->rows, json_type_array))
        return fail(problem, size, "no \"rows\" array");
    size_t n = json_object_array_length(t->rows);
    for (size_t i = 0; i < n; i++) {
        struct json_object *row = json_object_array_get_idx(t->rows, i), *source, *def;
        if (!json_object_is_type(row, json_type_object) ||
            !json_object_object_get_ex(row, "source", &source) ||
            !json_object_is_type(source, json_type_string)) {
            snprintf(problem, size, "rows[%zu] has no source", i);
            return false;
        }
        if (!json_object_object_get_ex(t->sources, json_object_get_string(source), &def)) {
            snprintf(problem, size, "rows[%zu] names undefined source \"%s\"", i,
                     json_object_get_string(source));
            return false;
        }
    }
    return true;
}

enum gd_status gd_kb_table_parse(const char *name, const char *data, size_t len,
                                 struct gd_kb_table **out, char *problem, size_t size)
{
    *out = NULL;
    if (size)
        problem[0] = '\0';
    if (len > KB_FILE_MAX) {
        fail(problem, size, "file too large");
        return GD_EFORMAT;
    }
    struct gd_kb_table *t = gd_calloc(1, sizeof *t);
    if (!t)
        return GD_ENOMEM;
    t->name = gd_strdup(name);
    t->origin = gd_strdup("embedded");
    struct json_tokener *tok = json_tokener_new();
    if (!t->name || !t->origin || !tok) {
        json_tokener_free(tok);
        gd_kb_table_free(t);
        return GD_ENOMEM;
    }
    /* Strict: the tables are JSON that other tools read too, and json-c's default mode also
     * accepts trailing commas and numbers with leading zeros. Trailing data is checked below. */
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
    t->root = json_tokener_parse_ex(tok, data, (int)len);
    enum json_tokener_error err = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (!t->root || err != json_tokener_success) {
        snprintf(problem, size, "invalid JSON: %s", json_tokener_error_desc(err));
        gd_kb_table_free(t);
        return GD_EFORMAT;
    }
    for (; used < len; used++) {
        if (!(data[used] == ' ' || data[used] == '\n' || data[used] == '\r' ||
              data[used] == '\t')) {
            fail(problem, size, "trailing data after the JSON object");
            gd_kb_table_free(t);
            return GD_EFORMAT;
        }
    }
    if (!validate(t, problem, size)) {
        gd_kb_table_free(t);
        return GD_EFORMAT;
    }
    *out = t;
    return GD_OK;
}

static enum gd_status add_table(struct gd_kb *kb, struct gd_kb_table *t)
{
    for (size_t i = 0; i < kb->ntables; i++) {
        if (strcmp(kb->tables[i]->name, t->name) == 0) {
            gd_kb_table_free(kb->tables[i]);
            kb->tables[i] = t;
            return GD_OK;
        }
    }
    if (gd_grow((void **)&kb->tables, &kb->cap, kb->ntables + 1, sizeof *kb->tables) != 0) {
        gd_kb_table_free(t);
        return GD_ENOMEM;
    }
    kb->tables[kb->ntables++] = t;
    return GD_OK;
}

static enum gd_status load_override(struct gd_kb *kb, const char *dir, const char *file)
{
    size_t n = strlen(file);
    if (n <= 5 || strcmp(file + n - 5, ".json") != 0)
        return GD_OK;
    char name[128];
    if (n - 5 >= sizeof name)
        return GD_OK;
    memcpy(name, file, n - 5);
    name[n - 5] = '\0';
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *data = NULL;
    size_t len = 0;
    enum gd_status st = gd_os_read_file(path, KB_FILE_MAX, &data, &len);
    if (st != GD_OK) {
        add_problem(kb, "%s: %s", path, gd_status_str(st));
        return st == GD_ENOMEM ? st : GD_OK;
    }
    struct gd_kb_table *t;
    char problem[256];
    st = gd_kb_table_parse(name, data, len, &t, problem, sizeof problem);
    gd_free(data);
    if (st == GD_EFORMAT) {
        add_problem(kb, "%s: %s (the embedded table is used)", path, problem);
        return GD_OK;
    }
    if (st != GD_OK)
        return st;
    char *origin = gd_strdup(path);
    if (!origin) {
        gd_kb_table_free(t);
        return GD_ENOMEM;
    }
    gd_free(t->origin);
    t->origin = origin;
    return add_table(kb, t);
}

enum gd_status gd_kb_open(const char *override_dir, struct gd_kb **out)
{
    *out = NULL;
    struct gd_kb *kb = gd_calloc(1, sizeof *kb);
    if (!kb)
        return GD_ENOMEM;
    enum gd_status st = GD_OK;
    for (size_t i = 0; i < gd_kb_embedded_count && st == GD_OK; i++) {
        const struct gd_kb_blob *b = &gd_kb_embedded[i];
        struct gd_kb_table *t;
        char problem[256];
        st = gd_kb_table_parse(b->name, (const char *)b->data, b->len, &t, problem, sizeof problem);
        if (st == GD_EFORMAT) {
            add_problem(kb, "embedded %s: %s", b->name, problem);
            st = GD_OK;
        } else if (st == GD_OK) {
            st = add_table(kb, t);
        }
    }
    if (st == GD_OK && override_dir) {
        struct gd_os_dir *d = NULL;
        st = gd_os_opendir(override_dir, &d);
        const char *name;
        while (st == GD_OK) {
            enum gd_status r = gd_os_readdir(d, &name);
            if (r != GD_OK) {
                /* The end of the listing, or a listing cut short: said, never taken for the
                 * end (out of memory fails the whole open). */
                if (r == GD_ENOMEM)
                    st = r;
                else if (r != GD_ENOENT)
                    add_problem(kb, "%s: listing stopped: %s", override_dir, gd_status_str(r));
                break;
            }
            st = load_override(kb, override_dir, name);
        }
        gd_os_closedir(d);
    }
    /* A lost problem would hide a table that was not used. */
    if (st == GD_OK && kb->out_of_memory)
        st = GD_ENOMEM;
    if (st != GD_OK) {
        gd_kb_free(kb);
        return st;
    }
    *out = kb;
    return GD_OK;
}

void gd_kb_free(struct gd_kb *kb)
{
    if (!kb)
        return;
    for (size_t i = 0; i < kb->ntables; i++)
        gd_kb_table_free(kb->tables[i]);
    for (size_t i = 0; i < kb->nproblems; i++)
        gd_free(kb->problems[i]);
    gd_free(kb->tables);
    gd_free(kb->problems);
    gd_free(kb);
}

size_t gd_kb_problem_count(const struct gd_kb *kb)
{
    return kb->nproblems;
}

const char *gd_kb_problem_at(const struct gd_kb *kb, size_t i)
{
    return i < kb->nproblems ? kb->problems[i] : NULL;
}

size_t gd_kb_table_count(const struct gd_kb *kb)
{
    return kb->ntables;
}

const struct gd_kb_table *gd_kb_table_at(const struct gd_kb *kb, size_t i)
{
    return i < kb->ntables ? kb->tables[i] : NULL;
}

const struct gd_kb_table *gd_kb_table(const struct gd_kb *kb, const char *name)
{
    if (!kb)
        return NULL;
    for (size_t i = 0; i < kb->ntables; i++)
        if (strcmp(kb->tables[i]->name, name) == 0)
            return kb->tables[i];
    return NULL;
}

const char *gd_kb_table_name(const struct gd_kb_table *t)
{
    return t->name;
}

const char *gd_kb_table_origin(const struct gd_kb_table *t)
{
    return t->origin;
}

size_t gd_kb_row_count(const struct gd_kb_table *t)
{
    return t ? json_object_array_length(t->rows) : 0;
}

/* A row is its json_object, behind an opaque type so that rules never see json-c. */
const struct gd_kb_row *gd_kb_row_at(const struct gd_kb_table *t, size_t i)
{
    if (!t || i >= json_object_array_length(t->rows))
        return NULL;
    return (const struct gd_kb_row *)json_object_array_get_idx(t->rows, i);
}

static struct json_object *field(const struct gd_kb_row *row, const char *name)
{
    struct json_object *v;
    if (!row || !json_object_object_get_ex((struct json_object *)row, name, &v))
        return NULL;
    return v;
}

static const char *as_str(struct json_object *v)
{
    if (!v)
        return NULL;
    switch (json_object_get_type(v)) {
    case json_type_string:
    case json_type_int:
    case json_type_double:
    case json_type_boolean:
        return json_object_get_string(v);
    default:
        return NULL;
    }
}

const char *gd_kb_str(const struct gd_kb_row *row, const char *name)
{
    return as_str(field(row, name));
}

size_t gd_kb_list_len(const struct gd_kb_row *row, const char *name)
{
    struct json_object *v = field(row, name);
    return v && json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;
}

const char *gd_kb_list_at(const struct gd_kb_row *row, const char *name, size_t i)
{
    struct json_object *v = field(row, name);
    if (!v || !json_object_is_type(v, json_type_array) || i >= json_object_array_length(v))
        return NULL;
    return as_str(json_object_array_get_idx(v, i));
}

bool gd_kb_list_has(const struct gd_kb_row *row, const char *name, const char *value)
{
    size_t n = gd_kb_list_len(row, name);
    for (size_t i = 0; i < n; i++) {
        const char *item = gd_kb_list_at(row, name, i);
        if (item && strcmp(item, value) == 0)
            return true;
    }
    return false;
}

const struct gd_kb_table *gd_kb_row_table(const struct gd_kb *kb, const struct gd_kb_row *row)
{
    for (size_t i = 0; kb && row && i < kb->ntables; i++) {
        const struct gd_kb_table *t = kb->tables[i];
        for (size_t k = 0; k < json_object_array_length(t->rows); k++)
            if ((const struct gd_kb_row *)json_object_array_get_idx(t->rows, k) == row)
                return t;
    }
    return NULL;
}

const char *gd_kb_row_source(const struct gd_kb_row *row)
{
    return gd_kb_str(row, "source");
}

static const char *source_field(const struct gd_kb_table *t, const char *id, const char *name)
{
    struct json_object *src, *v;
    if (!t || !id || !json_object_object_get_ex(t->sources, id, &src) ||
        !json_object_object_get_ex(src, name, &v))
        return NULL;
    return as_str(v);
}

const char *gd_kb_source_url(const struct gd_kb_table *t, const char *id)
{
    return source_field(t, id, "url");
}

const char *gd_kb_source_title(const struct gd_kb_table *t, const char *id)
{
    return source_field(t, id, "title");
}

const char *gd_kb_source_retrieved(const struct gd_kb_table *t, const char *id)
{
    return source_field(t, id, "retrieved");
}

size_t gd_kb_source_count(const struct gd_kb_table *t)
{
    return t ? (size_t)json_object_object_length(t->sources) : 0;
}

const char *gd_kb_source_id_at(const struct gd_kb_table *t, size_t i)
{
    if (!t)
        return NULL;
    /* Sources are few (tens); a walk per call keeps the table free of a second index. */
    size_t k = 0;
    json_object_object_foreach(t->sources, id, src)
    {
        (void)src;
        if (k++ == i)
            return id;
    }
    return NULL;
}
