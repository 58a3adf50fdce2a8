#include "parse/visible_devices.h"

#include <stdio.h>
#include <string.h>

/* Larger ordinals saturate: no machine has this many GPUs, so the entry is out of range either
 * way, as strtoul's ULONG_MAX would be. */
#define ORDINAL_CAP 1000000000UL

static void stop_list(struct gd_vd_list *l, enum gd_vd_stop why, size_t at, struct gd_span text)
{
    l->stop = why;
    l->stop_at = at;
    l->stop_text = text;
}

/* strtoul after the entry's white space was trimmed: an optional sign, then at least one digit;
 * what follows the digits is ignored. False for an entry without digits. */
static bool read_ordinal(struct gd_span s, bool *negative, unsigned long *value)
{
    size_t i = 0;
    *negative = false;
    if (i < s.n && (s.p[i] == '+' || s.p[i] == '-'))
        *negative = s.p[i++] == '-';
    if (i == s.n || !gd_is_digit(s.p[i]))
        return false;
    unsigned long v = 0;
    for (; i < s.n && gd_is_digit(s.p[i]); i++)
        v = v >= ORDINAL_CAP ? ORDINAL_CAP : v * 10 + (unsigned long)(s.p[i] - '0');
    /* "-0" is 0: strtoul negates the value read, and zero stays zero. */
    if (v == 0)
        *negative = false;
    *value = v;
    return true;
}

static bool same_span(struct gd_span a, struct gd_span b)
{
    return a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

void gd_visible_devices_parse(const char *value, size_t len, struct gd_vd_list *out)
{
    memset(out, 0, sizeof *out);
    struct gd_span all = { value ? value : "", value ? len : 0 };
    out->mode = gd_span_starts_with(all, "GPU-")   ? GD_VD_GPU_UUIDS
                : gd_span_starts_with(all, "MIG-") ? GD_VD_MIG_UUIDS
                                                   : GD_VD_ORDINALS;
    const char *prefix = out->mode == GD_VD_GPU_UUIDS ? "GPU-" : "MIG-";
    struct gd_span rest = all, field;
    bool stopped = false;
    while (gd_span_next_field(&rest, ',', &field)) {
        size_t index = out->total++;
        if (stopped)
            continue;
        struct gd_span text = out->mode == GD_VD_ORDINALS ? gd_span_trim(field) : field;
        if (out->n == GD_VD_ENTRIES_MAX) {
            stop_list(out, GD_VD_STOP_TOO_MANY, index, text);
            stopped = true;
            continue;
        }
        struct gd_vd_entry e = { text, 0 };
        if (out->mode == GD_VD_ORDINALS) {
            bool negative;
            if (!read_ordinal(text, &negative, &e.ordinal)) {
                stop_list(out, GD_VD_STOP_INVALID, index, text);
                stopped = true;
                continue;
            }
            if (negative) {
                stop_list(out, GD_VD_STOP_NEGATIVE, index, text);
                stopped = true;
                continue;
            }
        } else if (!gd_span_starts_with(text, prefix)) {
            stop_list(out, GD_VD_STOP_INVALID, index, text);
            stopped = true;
            continue;
        }
        for (size_t k = 0; k < out->n; k++) {
            bool repeat = out->mode == GD_VD_ORDINALS ? out->entries[k].ordinal == e.ordinal
                                                      : same_span(out->entries[k].text, text);
            if (repeat) {
                stop_list(out, GD_VD_STOP_DUPLICATE, index, text);
                stopped = true;
                break;
            }
        }
        if (stopped) {
            /* A repeat hides every GPU, those listed before it too. */
            out->n = 0;
            continue;
        }
        out->entries[out->n++] = e;
    }
}

size_t gd_visible_devices_resolve(struct gd_vd_list *list, const char *const *uuids, size_t ngpus,
                                  size_t *out)
{
    if (list->mode == GD_VD_MIG_UUIDS)
        return 0;
    for (size_t i = 0; i < list->n; i++) {
        const struct gd_vd_entry *e = &list->entries[i];
        size_t gpu = 0, matches = 0;
        if (list->mode == GD_VD_ORDINALS) {
            if (e->ordinal >= ngpus) {
                stop_list(list, GD_VD_STOP_RANGE, i, e->text);
                list->n = i;
                break;
            }
            gpu = e->ordinal;
        } else {
            for (size_t g = 0; g < ngpus; g++) {
                const char *u = uuids ? uuids[g] : NULL;
                if (u && strlen(u) >= e->text.n && memcmp(u, e->text.p, e->text.n) == 0) {
                    gpu = g;
                    matches++;
                }
            }
            if (matches != 1) {
                stop_list(list, matches ? GD_VD_STOP_AMBIGUOUS : GD_VD_STOP_NO_MATCH, i, e->text);
                list->n = i;
                break;
            }
        }
        for (size_t k = 0; k < i; k++) {
            if (out[k] == gpu) {
                stop_list(list, GD_VD_STOP_DUPLICATE, i, e->text);
                list->n = 0;
                return 0;
            }
        }
        out[i] = gpu;
    }
    return list->n;
}

const char *gd_vd_stop_text(enum gd_vd_stop stop)
{
    switch (stop) {
    case GD_VD_STOP_NONE:
        return "";
    case GD_VD_STOP_INVALID:
        return "is not a GPU index or UUID of the list's kind";
    case GD_VD_STOP_NEGATIVE:
        return "is negative";
    case GD_VD_STOP_DUPLICATE:
        return "repeats an earlier entry, which hides every GPU";
    case GD_VD_STOP_RANGE:
        return "is not below the number of GPUs";
    case GD_VD_STOP_NO_MATCH:
        return "matches no GPU's UUID";
    case GD_VD_STOP_AMBIGUOUS:
        return "matches the UUIDs of several GPUs";
    case GD_VD_STOP_TOO_MANY:
        return "comes after more entries than gpudoctor reads";
    }
    return "";
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = gd_to_lower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* `min` to `max` hex digits at *i up to `stop` (or the end); the value in *v. */
static bool hex_field(const char *s, size_t n, size_t *i, size_t min, size_t max, char stop,
                      unsigned long *v)
{
    size_t start = *i;
    *v = 0;
    while (*i < n && *i - start < max && hex_value(s[*i]) >= 0)
        *v = *v * 16 + (unsigned long)hex_value(s[(*i)++]);
    if (*i - start < min)
        return false;
    if (stop) {
        if (*i >= n || s[*i] != stop)
            return false;
        (*i)++;
    }
    return true;
}

bool gd_pci_bus_id_normalize(const char *s, size_t n, char *out)
{
    out[0] = '\0';
    if (!s)
        return false;
    size_t i = 0;
    unsigned long domain, bus, dev, fn;
    if (!hex_field(s, n, &i, 4, 8, ':', &domain) || !hex_field(s, n, &i, 2, 2, ':', &bus) ||
        !hex_field(s, n, &i, 2, 2, '.', &dev) || !hex_field(s, n, &i, 1, 1, 0, &fn) || i != n)
        return false;
    /* PCI allows 32 devices and 8 functions. */
    if (dev > 31 || fn > 7)
        return false;
    snprintf(out, GD_PCI_BUS_ID_MAX, "%04lx:%02lx:%02lx.%lx", domain, bus, dev, fn);
    return true;
}
