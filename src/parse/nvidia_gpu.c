#include "parse/nvidia_gpu.h"

#include "core/alloc.h"
#include "core/str.h"

#include <string.h>

static bool is_hex(char c)
{
    return gd_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static size_t hex_run(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && is_hex(s[i]))
        i++;
    return i;
}

bool gd_nvidia_bus_id_valid(const char *s, size_t n)
{
    size_t domain = hex_run(s, n);
    if (domain < 4 || domain > 8)
        return false;
    /* ":BB:DD.F" after the domain: exactly 8 more bytes. */
    if (n - domain != 8)
        return false;
    const char *p = s + domain;
    return p[0] == ':' && is_hex(p[1]) && is_hex(p[2]) && p[3] == ':' && is_hex(p[4]) &&
           is_hex(p[5]) && p[6] == '.' && is_hex(p[7]);
}

static bool span_ieq(struct gd_span s, const char *lit)
{
    size_t n = strlen(lit);
    if (s.n != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (gd_to_lower(s.p[i]) != gd_to_lower(lit[i]))
            return false;
    return true;
}

/* A copy of a value, or NULL (and *failed) when out of memory. Values over the cap or holding a
 * NUL (not text the module writes) are left out: NULL without *failed. */
static char *value_dup(struct gd_span v, bool *failed)
{
    if (v.n == 0 || v.n >= GD_NVIDIA_GPU_VALUE_MAX || memchr(v.p, '\0', v.n))
        return NULL;
    char *s = gd_strndup(v.p, v.n);
    if (!s)
        *failed = true;
    return s;
}

/* "Device Minor:" is an unsigned decimal; the kernel's minor numbers fit in 20 bits. */
static long parse_minor(struct gd_span v)
{
    if (v.n == 0 || v.n > 9)
        return -1;
    long m = 0;
    for (size_t i = 0; i < v.n; i++) {
        if (!gd_is_digit(v.p[i]))
            return -1;
        m = m * 10 + (v.p[i] - '0');
    }
    return m;
}

static void empty(struct gd_nvidia_gpu_info *out)
{
    out->model = out->uuid = out->bus_location = NULL;
    out->minor = -1;
    out->excluded = -1;
}

void gd_nvidia_gpu_info_free(struct gd_nvidia_gpu_info *info)
{
    if (!info)
        return;
    gd_free(info->model);
    gd_free(info->uuid);
    gd_free(info->bus_location);
    empty(info);
}

enum gd_status gd_parse_nvidia_gpu_info(const char *data, size_t len,
                                        struct gd_nvidia_gpu_info *out)
{
    empty(out);
    /* Which keys were met, so that only the first line of each counts. */
    bool seen_model = false, seen_uuid = false, seen_bus = false, seen_minor = false,
         seen_excluded = false, failed = false;
    const char *cur = data, *end = data + len;
    struct gd_span line;
    while (!failed && gd_next_line(&cur, end, &line)) {
        struct gd_span key, value;
        if (!gd_span_split(line, ':', &key, &value))
            continue;
        key = gd_span_trim(key);
        value = gd_span_trim(value);
        if (span_ieq(key, "Model")) {
            if (!seen_model)
                out->model = value_dup(value, &failed);
            seen_model = true;
        } else if (span_ieq(key, "GPU UUID")) {
            if (!seen_uuid)
                out->uuid = value_dup(value, &failed);
            seen_uuid = true;
        } else if (span_ieq(key, "Bus Location")) {
            if (!seen_bus && gd_nvidia_bus_id_valid(value.p, value.n))
                out->bus_location = value_dup(value, &failed);
            seen_bus = true;
        } else if (span_ieq(key, "Device Minor")) {
            if (!seen_minor)
                out->minor = parse_minor(value);
            seen_minor = true;
        } else if (span_ieq(key, "GPU Excluded")) {
            if (!seen_excluded)
                out->excluded = span_ieq(value, "Yes") ? 1 : span_ieq(value, "No") ? 0 : -1;
            seen_excluded = true;
        }
    }
    if (failed) {
        gd_nvidia_gpu_info_free(out);
        return GD_ENOMEM;
    }
    if (!(seen_model || seen_uuid || seen_bus || seen_minor || seen_excluded))
        return GD_EFORMAT;
    return GD_OK;
}
