/* Build facts from the frameworks' generated build files (buildinfo.h). */
#include "parse/buildinfo.h"

#include "core/version.h"
#include "parse/pylit.h"

#include <stdio.h>
#include <string.h>

static void version_of(const struct gd_pylit *value, char *good, size_t good_size, char *bad,
                       size_t bad_size)
{
    if (!value || value->kind == GD_PYLIT_NONE)
        return;
    const char *text = gd_pylit_str(value);
    struct gd_version v;
    if (text && text[0] && strlen(text) < good_size && gd_version_parse(text, &v) == GD_OK &&
        strlen(text) == value->n) {
        snprintf(good, good_size, "%s", text);
        return;
    }
    const char *shown = value->kind == GD_PYLIT_STR || value->kind == GD_PYLIT_OTHER
                            ? value->s
                            : "a value that is not a string";
    /* Keep the evidence printable: a NUL or a line break would cut or split it. */
    size_t n = 0;
    for (size_t i = 0; shown[i] && n + 1 < bad_size; i++)
        bad[n++] = (unsigned char)shown[i] < 0x20 ? '?' : shown[i];
    bad[n] = '\0';
    if (!bad[0])
        snprintf(bad, bad_size, "%s", "an empty string");
}

static void join_list(const struct gd_pylit *list, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    if (!list || list->kind != GD_PYLIT_LIST)
        return;
    for (size_t i = 0; i < list->n; i++) {
        const char *item = gd_pylit_str(&list->items[i]);
        size_t len = item ? strlen(item) : 0;
        if (!len || len != list->items[i].n || len > 32 || strchr(item, ','))
            continue;
        for (size_t k = 0; k < len; k++)
            if ((unsigned char)item[k] <= 0x20)
                len = 0;
        if (!len || n + len + 2 > size)
            continue;
        if (n)
            out[n++] = ',';
        memcpy(out + n, item, len);
        n += len;
        out[n] = '\0';
    }
}

/* TensorFlow's Windows spelling (cuda_configure.bzl, tf-cuda-configure in docs/kb.md): CUDA as
 * "64_" + major + minor ("64_112": 11.2, "64_101": 10.1, "64_90": 9.0), cuDNN as "64_" + its
 * major ("64_8"). CUDA's minor is one digit in every release, so the last digit is the minor. */
static bool windows_form(const struct gd_pylit *value, bool cuda, char *out, size_t size)
{
    const char *text = gd_pylit_str(value);
    if (!text || strlen(text) != value->n || strncmp(text, "64_", 3) != 0)
        return false;
    const char *d = text + 3;
    size_t n = strspn(d, "0123456789");
    if (d[n] || n == 0 || n > 3 || d[0] == '0')
        return false;
    if (!cuda) {
        snprintf(out, size, "%.*s", (int)n, d);
        return true;
    }
    if (n < 2)
        return false;
    snprintf(out, size, "%.*s.%c", (int)(n - 1), d, d[n - 1]);
    return true;
}

void gd_build_facts_tensorflow(const struct gd_pylit_file *f, struct gd_build_facts *out)
{
    memset(out, 0, sizeof *out);
    out->error_line = gd_pylit_error_line(f);
    const struct gd_pylit *dict = gd_pylit_get(f, "build_info");
    bool is_dict = dict && dict->kind == GD_PYLIT_DICT;
#define KEY(dict_key, assign_key) \
    (is_dict ? gd_pylit_key(dict, dict_key) : gd_pylit_get(f, assign_key))
    const struct gd_pylit *cuda_build = KEY("is_cuda_build", "is_cuda_build");
    const struct gd_pylit *rocm_build = KEY("is_rocm_build", "is_rocm_build");
    const struct gd_pylit *cuda = KEY("cuda_version", "cuda_version_number");
    const struct gd_pylit *cudnn = KEY("cudnn_version", "cudnn_version_number");
    if (cuda && windows_form(cuda, true, out->cuda, sizeof out->cuda))
        out->windows_form = true;
    else
        version_of(cuda, out->cuda, sizeof out->cuda, out->cuda_bad, sizeof out->cuda_bad);
    if (cudnn && windows_form(cudnn, false, out->cudnn, sizeof out->cudnn))
        out->windows_form = true;
    else
        version_of(cudnn, out->cudnn, sizeof out->cudnn, out->cudnn_bad, sizeof out->cudnn_bad);
    join_list(KEY("cuda_compute_capabilities", "cuda_compute_capabilities"),
              out->compute_capabilities, sizeof out->compute_capabilities);
#undef KEY
    if (rocm_build && rocm_build->kind == GD_PYLIT_BOOL && rocm_build->b)
        snprintf(out->build, sizeof out->build, "%s", "rocm");
    else if (cuda_build && cuda_build->kind == GD_PYLIT_BOOL)
        snprintf(out->build, sizeof out->build, "%s", cuda_build->b ? "cuda" : "cpu");
}

/* A STR value that fits `size` whole and is printable (no NUL, line break or control
 * character that would cut or split the evidence). */
static const char *clean_str(const struct gd_pylit *value, size_t size)
{
    const char *text = gd_pylit_str(value);
    if (!text || !text[0] || value->n >= size || strlen(text) != value->n)
        return NULL;
    for (const char *p = text; *p; p++)
        if ((unsigned char)*p < 0x20)
            return NULL;
    return text;
}

void gd_build_facts_torch(const struct gd_pylit_file *f, struct gd_build_facts *out)
{
    memset(out, 0, sizeof *out);
    out->error_line = gd_pylit_error_line(f);
    const struct gd_pylit *cuda = gd_pylit_get(f, "cuda"), *hip = gd_pylit_get(f, "hip");
    const char *hip_text = clean_str(hip, sizeof out->hip);
    const char *git = clean_str(gd_pylit_get(f, "git_version"), sizeof out->git_version);
    if (git)
        snprintf(out->git_version, sizeof out->git_version, "%s", git);
    if (hip_text) {
        snprintf(out->build, sizeof out->build, "%s", "rocm");
        snprintf(out->hip, sizeof out->hip, "%s", hip_text);
    } else if (cuda && cuda->kind == GD_PYLIT_STR) {
        snprintf(out->build, sizeof out->build, "%s", "cuda");
        version_of(cuda, out->cuda, sizeof out->cuda, out->cuda_bad, sizeof out->cuda_bad);
    } else if (cuda && cuda->kind == GD_PYLIT_NONE && (!hip || hip->kind == GD_PYLIT_NONE)) {
        snprintf(out->build, sizeof out->build, "%s", "cpu");
    }
}
