#include "parse/pyanswer.h"

#include "core/str.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Which JSON types a name may have. */
enum {
    T_STR = 1 << 0,
    T_INT = 1 << 1,
    T_BOOL = 1 << 2,
    T_NULL = 1 << 3,
    T_LIST = 1 << 4, /* of strings, joined */
    T_GPUS = 1 << 5,
};

static const struct {
    const char *name;
    unsigned types;
} names[] = {
    { "imported", T_BOOL },
    { "error", T_STR },
    { "error_type", T_STR },
    { "version", T_STR },
    { "cuda", T_STR | T_INT | T_NULL },
    { "hip", T_STR | T_NULL },
    { "cudnn", T_STR | T_INT | T_NULL },
    { "driver", T_INT },
    { "jaxlib", T_STR },
    { "backend", T_STR },
    { "device", T_STR },
    { "cuda_build", T_BOOL },
    { "cuda_available", T_BOOL },
    { "device_count", T_INT },
    { "arch_list", T_LIST | T_NULL },
    { "compute_capabilities", T_LIST | T_NULL },
    { "platforms", T_LIST },
    { "providers", T_LIST },
    { "gpus", T_GPUS },
};

static const char *type_name(struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null:
        return "null";
    case json_type_boolean:
        return "a boolean";
    case json_type_double:
        return "a fraction";
    case json_type_int:
        return "an integer";
    case json_type_object:
        return "an object";
    case json_type_array:
        return "an array";
    case json_type_string:
        return "a string";
    }
    return "something else";
}

static void clean(struct json_object *s, char *buf, size_t size)
{
    struct gd_span sp = { json_object_get_string(s), (size_t)json_object_get_string_len(s) };
    gd_text_clean(sp, buf, size);
}

static void emit(gd_answer_fn fn, void *user, const char *name, enum gd_answer_type type,
                 const char *text, long long number)
{
    struct gd_answer_item item = { name, type, text, number };
    fn(user, &item);
}

/* A list of strings joined with ",", cut to the buffer. False when an item is no string. */
static bool join(struct json_object *list, char *buf, size_t size)
{
    size_t n = json_object_array_length(list), o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        struct json_object *s = json_object_array_get_idx(list, i);
        if (!json_object_is_type(s, json_type_string))
            return false;
        if (i && o + 1 < size)
            buf[o++] = ',';
        if (o + 1 < size)
            o += gd_text_clean((struct gd_span){ json_object_get_string(s),
                                                 (size_t)json_object_get_string_len(s) },
                               buf + o, size - o);
    }
    return true;
}

static void gpus(struct json_object *list, gd_answer_fn fn, void *user)
{
    size_t n = json_object_array_length(list);
    for (size_t i = 0; i < n && i < GD_ANSWER_GPUS_MAX; i++) {
        struct json_object *g = json_object_array_get_idx(list, i);
        static const char *const keys[] = { "name", "capability" };
        for (size_t k = 0; k < 2; k++) {
            char name[48], text[GD_ANSWER_TEXT_MAX];
            snprintf(name, sizeof name, "gpu[%zu].%s", i, keys[k]);
            struct json_object *v = NULL;
            if (!json_object_is_type(g, json_type_object) ||
                !json_object_object_get_ex(g, keys[k], &v) ||
                json_object_is_type(v, json_type_null))
                emit(fn, user, name, GD_ANSWER_NONE, "", 0);
            else if (json_object_is_type(v, json_type_string)) {
                clean(v, text, sizeof text);
                emit(fn, user, name, GD_ANSWER_STR, text, 0);
            } else {
                emit(fn, user, name, GD_ANSWER_BAD, type_name(v), 0);
            }
        }
    }
}

static void item(const char *name, unsigned types, struct json_object *v, gd_answer_fn fn,
                 void *user)
{
    char text[GD_ANSWER_TEXT_MAX];
    enum json_type t = json_object_get_type(v);
    if (t == json_type_string && (types & T_STR)) {
        clean(v, text, sizeof text);
        emit(fn, user, name, GD_ANSWER_STR, text, 0);
    } else if (t == json_type_int && (types & T_INT)) {
        long long n = (long long)json_object_get_int64(v);
        snprintf(text, sizeof text, "%lld", n);
        emit(fn, user, name, GD_ANSWER_INT, text, n);
    } else if (t == json_type_boolean && (types & T_BOOL)) {
        bool b = json_object_get_boolean(v);
        emit(fn, user, name, GD_ANSWER_BOOL, b ? "true" : "false", b);
    } else if (t == json_type_null && (types & T_NULL)) {
        emit(fn, user, name, GD_ANSWER_NONE, "", 0);
    } else if (t == json_type_array && (types & T_LIST) && json_object_array_length(v) == 0) {
        emit(fn, user, name, GD_ANSWER_NONE, "[]", 0);
    } else if (t == json_type_array && (types & T_LIST) && join(v, text, sizeof text)) {
        emit(fn, user, name, GD_ANSWER_STR, text, 0);
    } else if (t == json_type_array && (types & T_GPUS)) {
        gpus(v, fn, user);
    } else {
        emit(fn, user, name, GD_ANSWER_BAD,
             t == json_type_array && (types & T_LIST) ? "an array of other than strings"
                                                      : type_name(v),
             0);
    }
}

static void why_not(char *why, size_t size, const char *text)
{
    if (why && size)
        snprintf(why, size, "%s", text);
}

enum gd_status gd_parse_import_answer(const char *data, size_t len, gd_answer_fn fn, void *user,
                                      char *why, size_t why_size)
{
    why_not(why, why_size, "");
    if (len > GD_ANSWER_MAX || len > INT_MAX) {
        why_not(why, why_size, "larger than an answer can be");
        return GD_ELIMIT;
    }
    struct gd_span all = gd_span_trim((struct gd_span){ data, len });
    if (all.n == 0) {
        why_not(why, why_size, "empty");
        return GD_EFORMAT;
    }
    struct json_tokener *tok = json_tokener_new_ex(GD_ANSWER_DEPTH);
    if (!tok)
        return GD_ENOMEM;
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
    struct json_object *root = json_tokener_parse_ex(tok, all.p, (int)all.n);
    enum json_tokener_error err = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    if (!root && err == json_tokener_continue) {
        /* A number at the very end may go on as far as json-c knows: a NUL ends it. Anything
         * else still open is a value cut short. */
        root = json_tokener_parse_ex(tok, "", 1);
        err = root ? json_tokener_get_error(tok) : json_tokener_continue;
        used = all.n;
    }
    json_tokener_free(tok);
    enum gd_status st = GD_EFORMAT;
    char buf[96];
    if (err == json_tokener_error_depth) {
        why_not(why, why_size, "nested deeper than an answer is");
        st = GD_ELIMIT;
    } else if (err == json_tokener_continue) {
        why_not(why, why_size, "not JSON: it ends inside a value");
    } else if (!root && err != json_tokener_success) {
        snprintf(buf, sizeof buf, "not JSON: %s", json_tokener_error_desc(err));
        why_not(why, why_size, buf);
    } else if (used != all.n) {
        why_not(why, why_size, "more after the JSON value");
    } else if (!json_object_is_type(root, json_type_object)) {
        snprintf(buf, sizeof buf, "JSON, but %s, not an object", type_name(root));
        why_not(why, why_size, buf);
    } else {
        st = GD_OK;
    }
    if (st != GD_OK) {
        json_object_put(root);
        return st;
    }
    struct json_object *v, *errors = NULL;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (json_object_object_get_ex(root, names[i].name, &v))
            item(names[i].name, names[i].types, v, fn, user);
    if (json_object_object_get_ex(root, "errors", &errors) &&
        json_object_is_type(errors, json_type_object)) {
        for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
            char text[GD_ANSWER_TEXT_MAX];
            if (!json_object_object_get_ex(errors, names[i].name, &v))
                continue;
            if (json_object_is_type(v, json_type_string)) {
                clean(v, text, sizeof text);
                emit(fn, user, names[i].name, GD_ANSWER_RAISED, text, 0);
            } else {
                emit(fn, user, names[i].name, GD_ANSWER_BAD, type_name(v), 0);
            }
        }
    }
    json_object_put(root);
    return GD_OK;
}
