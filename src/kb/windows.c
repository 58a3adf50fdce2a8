/* Lookups over windows_cuda (windows.h). */
#include "kb/windows.h"

#include "core/winpath.h"
#include "kb/kb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct gd_kb_table *table(const struct gd_kb *kb)
{
    return kb ? gd_kb_table(kb, "windows_cuda") : NULL;
}

static bool kind_is(const struct gd_kb_row *row, const char *kind)
{
    const char *k = gd_kb_str(row, "kind");
    return k && strcmp(k, kind) == 0;
}

static long number(const char *s)
{
    if (!s || !*s)
        return 0;
    char *end;
    long n = strtol(s, &end, 10);
    return *end || n < 0 ? 0 : n;
}

enum gd_status gd_kb_win_dll(const struct gd_kb *kb, const char *dll, struct gd_kb_win_dll *out)
{
    memset(out, 0, sizeof *out);
    const struct gd_kb_table *t = table(kb);
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *name = gd_kb_str(row, "dll");
        bool main_name = name && gd_winpath_name_eq(name, dll);
        if (kind_is(row, "dll") && main_name) {
            out->family = gd_kb_str(row, "family");
            if (out->n < GD_KB_WIN_DLL_ROWS) {
                out->cuda[out->n] = gd_kb_str(row, "cuda");
                out->rows[out->n++] = row;
            }
        } else if (kind_is(row, "driver_dll") && main_name) {
            out->family = gd_kb_str(row, "family");
            out->driver = true;
            out->rows[0] = row;
            out->n = 1;
            return GD_OK;
        } else if (kind_is(row, "cudnn_dll")) {
            bool sub = false;
            for (size_t k = 0; k < gd_kb_list_len(row, "sub") && !sub; k++)
                sub = gd_winpath_name_eq(gd_kb_list_at(row, "sub", k), dll);
            if (!main_name && !sub)
                continue;
            out->family = sub ? "cudnn-sub" : "cudnn";
            out->cudnn_major = number(gd_kb_str(row, "cudnn_major"));
            out->rows[0] = row;
            out->n = 1;
            return GD_OK;
        }
    }
    return out->family ? GD_OK : GD_ENOENT;
}

enum gd_status gd_kb_win_driver_version(const struct gd_kb *kb, const uint16_t file[4], char *buf,
                                        size_t size, const struct gd_kb_row **row)
{
    *row = NULL;
    if (size)
        buf[0] = '\0';
    const struct gd_kb_table *t = table(kb);
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *r = gd_kb_row_at(t, i);
        if (!kind_is(r, "driver_version"))
            continue;
        long digits = number(gd_kb_str(r, "digits")), decimals = number(gd_kb_str(r, "decimals"));
        /* The last `digits` digits of the third and fourth parts written as one number (the
         * fourth always has four): 15.3623 -> 53623 -> 536.23. */
        if (digits != 5 || decimals < 1 || decimals >= digits)
            return GD_ENOENT; /* a numbering this code does not know how to apply */
        if (file[3] > 9999)
            return GD_EFORMAT;
        unsigned long n = (unsigned long)(file[2] % 10) * 10000 + file[3];
        unsigned long scale = 1;
        for (long k = 0; k < decimals; k++)
            scale *= 10;
        if (n / scale == 0)
            return GD_EFORMAT;
        snprintf(buf, size, "%lu.%0*lu", n / scale, (int)decimals, n % scale);
        *row = r;
        return GD_OK;
    }
    return GD_ENOENT;
}

enum gd_status gd_kb_win_framework_dlls(const struct gd_kb *kb, const char *framework,
                                        const struct gd_version *cuda, const struct gd_kb_row **row)
{
    *row = NULL;
    const struct gd_kb_table *t = table(kb);
    int best = 0;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *r = gd_kb_row_at(t, i);
        const char *fw = gd_kb_str(r, "framework"), *c = gd_kb_str(r, "cuda");
        struct gd_version v;
        if (!kind_is(r, "framework_dlls") || !fw || strcmp(fw, framework) != 0 || !c ||
            gd_version_parse(c, &v) != GD_OK || !gd_version_has_prefix(cuda, &v))
            continue;
        if (v.nparts > best) {
            best = v.nparts;
            *row = r;
        }
    }
    return *row ? GD_OK : GD_ENOENT;
}

enum gd_status gd_kb_win_cudnn_dependency(const struct gd_kb *kb, const struct gd_version *cudnn,
                                          const char **dll, const struct gd_kb_row **row)
{
    *dll = NULL;
    *row = NULL;
    const struct gd_kb_table *t = table(kb);
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *r = gd_kb_row_at(t, i);
        const char *by = gd_kb_str(r, "needed_by");
        struct gd_version min, below;
        if (!kind_is(r, "dependency") || !by || strcmp(by, "cudnn") != 0 ||
            gd_version_parse(gd_kb_str(r, "cudnn_min") ? gd_kb_str(r, "cudnn_min") : "", &min) !=
                GD_OK ||
            gd_version_parse(gd_kb_str(r, "cudnn_below") ? gd_kb_str(r, "cudnn_below") : "",
                             &below) != GD_OK)
            continue;
        if (gd_version_cmp(cudnn, &min) >= 0 && gd_version_cmp(cudnn, &below) < 0) {
            *dll = gd_kb_str(r, "dll");
            *row = r;
            return *dll ? GD_OK : GD_ENOENT;
        }
    }
    return GD_ENOENT;
}
