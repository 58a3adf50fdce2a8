#include "parse/cuda_version.h"

#include "core/str.h"

#include <stdbool.h>

#include <json-c/json.h>
#include <limits.h>
#include <string.h>

/* version.json is a few KiB; anything larger is not one and is not handed to the JSON parser. */
#define VERSION_JSON_MAX (1024 * 1024)

enum gd_status gd_parse_component_version_json(const char *data, size_t len, const char *component,
                                               struct gd_version *out)
{
    memset(out, 0, sizeof *out);
    if (len > VERSION_JSON_MAX || len > INT_MAX)
        return GD_ELIMIT;
    struct json_tokener *tok = json_tokener_new();
    if (!tok)
        return GD_ENOMEM;
    struct json_object *root = json_tokener_parse_ex(tok, data, (int)len);
    json_tokener_free(tok);
    enum gd_status st = GD_EFORMAT;
    struct json_object *comp, *version;
    if (root && json_object_is_type(root, json_type_object) &&
        json_object_object_get_ex(root, component, &comp) &&
        json_object_is_type(comp, json_type_object) &&
        json_object_object_get_ex(comp, "version", &version) &&
        json_object_is_type(version, json_type_string))
        st = gd_version_parse(json_object_get_string(version), out);
    json_object_put(root);
    return st == GD_OK ? GD_OK : GD_EFORMAT;
}

enum gd_status gd_parse_cuda_version_json(const char *data, size_t len, struct gd_version *out)
{
    /* The toolkit's own entry: {"cuda": {"name": "CUDA SDK", "version": "12.2.2"}}. */
    return gd_parse_component_version_json(data, len, "cuda", out);
}

enum gd_status gd_parse_cuda_version_txt(const char *data, size_t len, struct gd_version *out)
{
    memset(out, 0, sizeof *out);
    const char *cur = data, *end = data + len;
    struct gd_span line;
    while (gd_next_line(&cur, end, &line)) {
        struct gd_span t = gd_span_trim(line);
        if (!gd_span_starts_with(t, "CUDA Version "))
            continue;
        struct gd_span v = gd_span_trim((struct gd_span){ t.p + 13, t.n - 13 });
        if (gd_version_parse_n(v.p, v.n, out) == GD_OK)
            return GD_OK;
    }
    return GD_EFORMAT;
}

/* Aliases followed at most this deep: "#define NV_TENSORRT_MAJOR TRT_MAJOR_ENTERPRISE". */
#define DEFINE_ALIAS_DEPTH 4

static bool is_ident_char(char c)
{
    return gd_is_alpha(c) || gd_is_digit(c) || c == '_';
}

/* After a macro's value only white space or a comment may follow. */
static bool only_comment(struct gd_span rest)
{
    rest = gd_span_trim(rest);
    return rest.n == 0 || gd_span_starts_with(rest, "//") || gd_span_starts_with(rest, "/*");
}

static enum gd_status header_define(const char *data, size_t len, const char *name, size_t nlen,
                                    long *value, int depth)
{
    const char *cur = data, *end = data + len;
    struct gd_span line;
    while (gd_next_line(&cur, end, &line)) {
        struct gd_span t = gd_span_trim(line);
        if (!gd_span_starts_with(t, "#"))
            continue;
        t = gd_span_trim((struct gd_span){ t.p + 1, t.n - 1 });
        if (!gd_span_starts_with(t, "define") || t.n < 7 || !gd_is_space(t.p[6]))
            continue;
        t = gd_span_trim((struct gd_span){ t.p + 6, t.n - 6 });
        if (t.n <= nlen || memcmp(t.p, name, nlen) != 0 || !gd_is_space(t.p[nlen]))
            continue;
        t = gd_span_trim((struct gd_span){ t.p + nlen, t.n - nlen });
        long v = 0;
        size_t i = 0;
        while (i < t.n && gd_is_digit(t.p[i]) && v < LONG_MAX / 10 - 10)
            v = v * 10 + (t.p[i++] - '0');
        if (i == 0 && t.n && (gd_is_alpha(t.p[0]) || t.p[0] == '_') && depth < DEFINE_ALIAS_DEPTH) {
            /* The value is another macro: TensorRT 10.11 and later define NV_TENSORRT_MAJOR
             * as TRT_MAJOR_ENTERPRISE. */
            while (i < t.n && is_ident_char(t.p[i]))
                i++;
            if (!only_comment((struct gd_span){ t.p + i, t.n - i }))
                continue;
            if (header_define(data, len, t.p, i, value, depth + 1) == GD_OK)
                return GD_OK;
            continue;
        }
        /* Only a plain integer: "(CUDNN_MAJOR * 10000 + ...)" is computed by the caller. */
        if (i == 0 || !only_comment((struct gd_span){ t.p + i, t.n - i }))
            continue;
        *value = v;
        return GD_OK;
    }
    return GD_EFORMAT;
}

enum gd_status gd_parse_header_define(const char *data, size_t len, const char *name, long *value)
{
    return header_define(data, len, name, strlen(name), value, 0);
}
