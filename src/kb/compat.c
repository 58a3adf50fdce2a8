#include "kb/compat.h"

#include "kb/kb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------------------- */

static bool field_is(const struct gd_kb_row *row, const char *field, const char *value)
{
    const char *s = gd_kb_str(row, field);
    return s && strcmp(s, value) == 0;
}

/* A version field of a row; false when absent or not a version. */
static bool row_version(const struct gd_kb_row *row, const char *field, struct gd_version *out)
{
    const char *s = gd_kb_str(row, field);
    return s && gd_version_parse(s, out) == GD_OK;
}

/* Release parts only: local labels ("+cu121") and pre-release tags do not order releases of the
 * tables, which name final releases. */
static int rel_cmp(const struct gd_version *a, const struct gd_version *b)
{
    return gd_version_cmp_parts(a, b, GD_VERSION_MAX_PARTS);
}

/* Whether `v` falls under `listed` as the tables write versions: "12.4" covers 12.4 and 12.4.x,
 * "12" every 12.x; a longer `listed` ("12.4.1") needs `v` to agree on its parts. */
static bool covered_by(const struct gd_version *v, const struct gd_version *listed)
{
    return gd_version_has_prefix(v, listed);
}

/* The item of list `field` that covers `v`, or false. */
static bool list_covers(const struct gd_kb_row *row, const char *field, const struct gd_version *v)
{
    size_t n = gd_kb_list_len(row, field);
    for (size_t i = 0; i < n; i++) {
        struct gd_version item;
        const char *s = gd_kb_list_at(row, field, i);
        if (s && gd_version_parse(s, &item) == GD_OK && covered_by(v, &item))
            return true;
    }
    return false;
}

static const char *os_field(enum gd_kb_os os)
{
    return os == GD_KB_OS_WINDOWS ? "windows" : "linux";
}

/* ---- CUDA toolkit -> driver ----------------------------------------------------------------- */

enum gd_status gd_kb_cuda_min_driver(const struct gd_kb *kb, const struct gd_version *cuda,
                                     enum gd_kb_os os, struct gd_kb_cuda_driver *out)
{
    if (!out)
        return GD_EINVAL;
    memset(out, 0, sizeof *out);
    if (!kb || !cuda)
        return GD_EINVAL;
    const struct gd_kb_table *t = gd_kb_table(kb, "cuda_toolkit");
    out->table = t;
    const struct gd_kb_row *exact = NULL;
    struct gd_version exact_min;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        struct gd_version minor, min, full;
        if (field_is(row, "kind", "driver")) {
            if (!row_version(row, "cuda", &minor) || gd_version_cmp_parts(cuda, &minor, 2) != 0 ||
                !row_version(row, os_field(os), &min))
                continue;
            /* A runtime whose patch a row names ("11.0.3") takes that row. */
            if (cuda->nparts >= 3 && row_version(row, "version", &full) &&
                gd_version_cmp_parts(cuda, &full, 3) == 0) {
                exact = row;
                exact_min = min;
            }
            if (!out->has_toolkit || rel_cmp(&min, &out->toolkit_min) < 0) {
                out->has_toolkit = true;
                out->toolkit_min = min;
                out->toolkit_row = row;
            }
        } else if (field_is(row, "kind", "minor_compat")) {
            const char *major = gd_kb_str(row, "cuda_major");
            const char *field = os == GD_KB_OS_WINDOWS ? "windows_min" : "driver_min";
            char want[24];
            snprintf(want, sizeof want, "%lu", gd_version_major(cuda));
            if (major && strcmp(major, want) == 0) {
                out->compat_row = row;
                if (row_version(row, field, &min)) {
                    out->has_compat = true;
                    out->compat_min = min;
                }
            }
        }
    }
    if (exact) {
        out->toolkit_min = exact_min;
        out->toolkit_row = exact;
    }
    return out->has_toolkit || out->has_compat ? GD_OK : GD_ENOENT;
}

enum gd_kb_answer gd_kb_driver_meets(const struct gd_version *have, const struct gd_version *min)
{
    if (!have || !min)
        return GD_KB_UNKNOWN;
    int c = gd_version_cmp_parts(have, min, have->nparts);
    if (c != 0)
        return c > 0 ? GD_KB_YES : GD_KB_NO;
    /* Equal on every part given: the parts not given decide, unless the minimum has none. */
    for (int i = have->nparts; i < min->nparts; i++)
        if (min->parts[i] != 0)
            return GD_KB_UNKNOWN;
    return GD_KB_YES;
}

enum gd_kb_driver_fit gd_kb_driver_runs_cuda(const struct gd_kb *kb,
                                             const struct gd_version *driver,
                                             const struct gd_version *cuda, enum gd_kb_os os,
                                             struct gd_kb_cuda_driver *why)
{
    struct gd_kb_cuda_driver local;
    struct gd_kb_cuda_driver *d = why ? why : &local;
    if (!driver || gd_kb_cuda_min_driver(kb, cuda, os, d) != GD_OK)
        return GD_KB_FIT_UNKNOWN;
    enum gd_kb_answer toolkit =
        d->has_toolkit ? gd_kb_driver_meets(driver, &d->toolkit_min) : GD_KB_NO;
    if (toolkit == GD_KB_YES)
        return GD_KB_FIT_TOOLKIT;
    if (d->has_compat) {
        enum gd_kb_answer compat = gd_kb_driver_meets(driver, &d->compat_min);
        return compat == GD_KB_YES  ? GD_KB_FIT_MINOR_COMPAT
               : compat == GD_KB_NO ? GD_KB_FIT_NO
                                    : GD_KB_FIT_UNKNOWN;
    }
    /* Below the toolkit's driver, in a family with minor version compatibility whose minimum
     * the table does not give for this OS (Windows for 12.x and 13.x): not known. Without the
     * family (CUDA 10 and older) the toolkit's driver is the minimum. */
    if (d->compat_row || toolkit == GD_KB_UNKNOWN)
        return GD_KB_FIT_UNKNOWN;
    return GD_KB_FIT_NO;
}

const struct gd_kb_row *gd_kb_forward_compat(const struct gd_kb *kb)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "cuda_toolkit");
    for (size_t i = 0; i < gd_kb_row_count(t); i++)
        if (field_is(gd_kb_row_at(t, i), "kind", "forward_compat"))
            return gd_kb_row_at(t, i);
    return NULL;
}

enum gd_kb_answer gd_kb_forward_compat_gpu(const struct gd_kb *kb, const struct gd_kb_row *gpu)
{
    if (!gpu || !gd_kb_forward_compat(kb))
        return GD_KB_UNKNOWN;
    const char *segment = gd_kb_str(gpu, "segment"), *name = gd_kb_str(gpu, "name");
    if (!segment || !name)
        return GD_KB_UNKNOWN;
    if (strcmp(segment, "data center") == 0 || strcmp(segment, "jetson") == 0)
        return GD_KB_YES;
    /* "Select NGC Server Ready SKUs of RTX cards": which ones is not listed. */
    if (strstr(name, "RTX"))
        return GD_KB_UNKNOWN;
    return GD_KB_NO;
}

/* Keep `v` among the first `cap` of a list ordered by `dir` (-1: newest first, 1: lowest
 * first), `*stored` of them held. */
static void keep_sorted(struct gd_version *out, size_t cap, size_t *stored,
                        const struct gd_version *v, int dir)
{
    size_t at = *stored;
    while (at > 0 && dir * rel_cmp(v, &out[at - 1]) < 0)
        at--;
    if (at >= cap)
        return;
    size_t last = *stored < cap ? *stored : cap - 1;
    memmove(&out[at + 1], &out[at], (last - at) * sizeof *out);
    out[at] = *v;
    if (*stored < cap)
        (*stored)++;
}

/* Whether an earlier row of `t` (before `i`) of kind `kind` names the same version at `parts`
 * parts in `field` (a string or a list). */
static bool seen_before(const struct gd_kb_table *t, size_t i, const char *kind, const char *field,
                        const struct gd_version *v, int parts)
{
    for (size_t j = 0; j < i; j++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, j);
        struct gd_version w;
        if (!field_is(row, "kind", kind))
            continue;
        if (row_version(row, field, &w) && gd_version_cmp_parts(&w, v, parts) == 0)
            return true;
        for (size_t k = 0; k < gd_kb_list_len(row, field); k++) {
            const char *s = gd_kb_list_at(row, field, k);
            if (s && gd_version_parse(s, &w) == GD_OK && gd_version_cmp_parts(&w, v, parts) == 0)
                return true;
        }
    }
    return false;
}

size_t gd_kb_cuda_versions(const struct gd_kb *kb, struct gd_version *out, size_t cap)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "cuda_toolkit");
    size_t n = 0, stored = 0;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        struct gd_version v;
        if (!field_is(row, "kind", "driver") || !row_version(row, "cuda", &v) ||
            seen_before(t, i, "driver", "cuda", &v, 2))
            continue;
        n++;
        keep_sorted(out, cap, &stored, &v, -1);
    }
    return n;
}

/* ---- CUDA toolkit -> compute capabilities --------------------------------------------------- */

size_t gd_kb_arch_ccs(const struct gd_kb *kb, struct gd_version *out, size_t cap)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "cuda_arch");
    size_t n = 0, stored = 0;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        if (!field_is(row, "kind", "event"))
            continue;
        for (size_t k = 0; k < gd_kb_list_len(row, "cc"); k++) {
            struct gd_version v;
            const char *s = gd_kb_list_at(row, "cc", k);
            if (!s || gd_version_parse(s, &v) != GD_OK || seen_before(t, i, "event", "cc", &v, 2))
                continue;
            /* The same capability twice in one row counts once. */
            bool dup = false;
            for (size_t m = 0; m < k && !dup; m++) {
                struct gd_version w;
                const char *o = gd_kb_list_at(row, "cc", m);
                dup = o && gd_version_parse(o, &w) == GD_OK && gd_version_cmp_parts(&w, &v, 2) == 0;
            }
            if (dup)
                continue;
            n++;
            keep_sorted(out, cap, &stored, &v, 1);
        }
    }
    return n;
}

enum gd_kb_answer gd_kb_cuda_supports_cc(const struct gd_kb *kb, const struct gd_version *cuda,
                                         const struct gd_version *cc, const struct gd_kb_row **why)
{
    if (why)
        *why = NULL;
    if (!kb || !cuda || !cc)
        return GD_KB_UNKNOWN;
    const struct gd_kb_table *t = gd_kb_table(kb, "cuda_arch");
    /* The latest event at or before `cuda`, and the earliest event of all, for this cc. */
    const struct gd_kb_row *latest = NULL, *earliest = NULL;
    struct gd_version latest_v, earliest_v;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        struct gd_version at;
        if (!field_is(row, "kind", "event") || !row_version(row, "cuda", &at))
            continue;
        bool listed = false;
        for (size_t k = 0; k < gd_kb_list_len(row, "cc"); k++) {
            struct gd_version item;
            const char *s = gd_kb_list_at(row, "cc", k);
            listed = listed || (s && gd_version_parse(s, &item) == GD_OK &&
                                gd_version_cmp_parts(cc, &item, 2) == 0);
        }
        if (!listed)
            continue;
        if (!earliest || rel_cmp(&at, &earliest_v) < 0) {
            earliest = row;
            earliest_v = at;
        }
        if (gd_version_cmp_parts(&at, cuda, 2) <= 0 && (!latest || rel_cmp(&at, &latest_v) > 0)) {
            latest = row;
            latest_v = at;
        }
    }
    if (!earliest)
        return GD_KB_UNKNOWN;
    if (!latest) {
        /* Every event is later than `cuda`: added later means not yet; but the sources' first
         * toolkit is not when an architecture appeared. */
        if (field_is(earliest, "event", "added") &&
            !field_is(earliest, "earliest_tracked", "true")) {
            if (why)
                *why = earliest;
            return GD_KB_NO;
        }
        return GD_KB_UNKNOWN;
    }
    if (why)
        *why = latest;
    return field_is(latest, "event", "added") ? GD_KB_YES : GD_KB_NO;
}

/* ---- cuDNN ---------------------------------------------------------------------------------- */

/* Whether the cuDNN release(s) of `row` (cudnn .. cudnn_last) match `v` at the precision `v`
 * is written with, up to three parts: "8.9" matches 8.9.5 and 8.9.6, "9.1.0.70" matches 9.1.0. */
static bool cudnn_row_matches(const struct gd_kb_row *row, const struct gd_version *v)
{
    struct gd_version lo, hi;
    if (!row_version(row, "cudnn", &lo))
        return false;
    if (!row_version(row, "cudnn_last", &hi))
        hi = lo;
    int k = v->nparts < 3 ? v->nparts : 3;
    return gd_version_cmp_parts(v, &lo, k) >= 0 && gd_version_cmp_parts(v, &hi, k) <= 0;
}

static bool major_is(const struct gd_kb_row *row, unsigned long major)
{
    char want[24];
    snprintf(want, sizeof want, "%lu", major);
    return field_is(row, "cuda_major", want);
}

enum gd_kb_answer gd_kb_cudnn_supports_cuda(const struct gd_kb *kb, const struct gd_version *cudnn,
                                            const struct gd_version *cuda,
                                            const struct gd_kb_row **why)
{
    if (why)
        *why = NULL;
    if (!kb || !cudnn || !cuda)
        return GD_KB_UNKNOWN;
    const struct gd_kb_table *t = gd_kb_table(kb, "cudnn_builds");
    bool release_known = false, major_incomplete = false;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        if (!cudnn_row_matches(row, cudnn))
            continue;
        release_known = true;
        if (!major_is(row, gd_version_major(cuda)))
            continue;
        if (list_covers(row, "cuda", cuda)) {
            if (why)
                *why = row;
            return GD_KB_YES;
        }
        if (field_is(row, "cuda_list_complete", "false"))
            major_incomplete = true;
    }
    if (!release_known || major_incomplete)
        return GD_KB_UNKNOWN;
    return GD_KB_NO;
}

/* Whether a cuDNN row supports compute capability `cc`: listed, or at least cc_min. */
static enum gd_kb_answer row_cc(const struct gd_kb_row *row, const struct gd_version *cc)
{
    struct gd_version min;
    if (gd_kb_list_len(row, "cc") > 0) {
        for (size_t k = 0; k < gd_kb_list_len(row, "cc"); k++) {
            struct gd_version item;
            const char *s = gd_kb_list_at(row, "cc", k);
            if (s && gd_version_parse(s, &item) == GD_OK && gd_version_cmp_parts(cc, &item, 2) == 0)
                return GD_KB_YES;
        }
        return GD_KB_NO;
    }
    if (row_version(row, "cc_min", &min))
        return gd_version_cmp_parts(cc, &min, 2) >= 0 ? GD_KB_YES : GD_KB_NO;
    return GD_KB_UNKNOWN;
}

enum gd_status gd_kb_cudnn_requirements(const struct gd_kb *kb, const struct gd_version *cudnn,
                                        const struct gd_version *cuda, const struct gd_version *cc,
                                        enum gd_kb_os os, struct gd_kb_cudnn_req *out)
{
    if (!out)
        return GD_EINVAL;
    memset(out, 0, sizeof *out);
    if (!kb || !cudnn || !cuda)
        return GD_EINVAL;
    out->cuda = gd_kb_cudnn_supports_cuda(kb, cudnn, cuda, NULL);
    const struct gd_kb_table *t = gd_kb_table(kb, "cudnn_builds");
    const char *field = os == GD_KB_OS_WINDOWS ? "driver_windows" : "driver_linux";
    bool cc_yes = false, cc_no = false;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        if (!cudnn_row_matches(row, cudnn) || !major_is(row, gd_version_major(cuda)) ||
            !list_covers(row, "cuda", cuda))
            continue;
        enum gd_kb_answer a = cc ? row_cc(row, cc) : GD_KB_UNKNOWN;
        cc_yes = cc_yes || a == GD_KB_YES;
        cc_no = cc_no || a == GD_KB_NO;
        /* With a cc asked, a row that says it is not supported does not set the driver. */
        if (a == GD_KB_NO)
            continue;
        struct gd_version min;
        if (row_version(row, field, &min) &&
            (!out->has_driver || rel_cmp(&min, &out->driver_min) < 0)) {
            out->has_driver = true;
            out->driver_min = min;
            out->row = row;
        }
    }
    out->cc = cc_yes ? GD_KB_YES : cc_no ? GD_KB_NO : GD_KB_UNKNOWN;
    return GD_OK;
}

/* A list field of versions into out; false when an item does not parse or there are more than
 * `cap` (the row is then left out rather than read in part). */
static bool row_versions(const struct gd_kb_row *row, const char *field, struct gd_version *out,
                         size_t cap, size_t *n)
{
    size_t len = gd_kb_list_len(row, field);
    *n = 0;
    if (len > cap)
        return false;
    for (size_t k = 0; k < len; k++) {
        const char *s = gd_kb_list_at(row, field, k);
        if (!s || gd_version_parse(s, &out[k]) != GD_OK)
            return false;
    }
    *n = len;
    return true;
}

static int cudnn_build_desc(const void *a, const void *b)
{
    const struct gd_kb_cudnn_build *x = a, *y = b;
    int c = rel_cmp(&y->cudnn, &x->cudnn);
    if (c)
        return c;
    if (x->cuda_major != y->cuda_major)
        return x->cuda_major < y->cuda_major ? 1 : -1;
    /* Within one package, the row of the newer CUDA versions first. */
    if (x->ncuda && y->ncuda)
        return rel_cmp(&y->cuda[y->ncuda - 1], &x->cuda[x->ncuda - 1]);
    return 0;
}

size_t gd_kb_cudnn_builds(const struct gd_kb *kb, const struct gd_version *cudnn,
                          struct gd_kb_cudnn_build *out, size_t cap)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "cudnn_builds");
    size_t n = 0;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        if (cudnn && !cudnn_row_matches(row, cudnn))
            continue;
        struct gd_kb_cudnn_build b;
        memset(&b, 0, sizeof b);
        const char *major = gd_kb_str(row, "cuda_major");
        char *end = NULL;
        if (!row_version(row, "cudnn", &b.cudnn) || !major ||
            !row_versions(row, "cuda", b.cuda, GD_KB_CUDNN_LIST_MAX, &b.ncuda) ||
            !row_versions(row, "cc", b.cc, GD_KB_CUDNN_LIST_MAX, &b.ncc))
            continue;
        b.cuda_major = strtoul(major, &end, 10);
        if (!end || *end)
            continue;
        if (!row_version(row, "cudnn_last", &b.cudnn_last))
            b.cudnn_last = b.cudnn;
        b.cuda_list_complete = !field_is(row, "cuda_list_complete", "false");
        b.has_driver_linux = row_version(row, "driver_linux", &b.driver_linux);
        b.has_driver_windows = row_version(row, "driver_windows", &b.driver_windows);
        b.has_cc_min = row_version(row, "cc_min", &b.cc_min);
        b.row = row;
        if (n < cap)
            out[n] = b;
        n++;
    }
    if (out && n)
        qsort(out, n < cap ? n : cap, sizeof *out, cudnn_build_desc);
    return n;
}

/* ---- TensorFlow ----------------------------------------------------------------------------- */

static const char *os_name(enum gd_kb_os os)
{
    return os == GD_KB_OS_WINDOWS ? "windows" : "linux";
}

enum gd_status gd_kb_tf_build(const struct gd_kb *kb, const struct gd_version *tf, enum gd_kb_os os,
                              struct gd_kb_tf_build *out)
{
    if (!out)
        return GD_EINVAL;
    memset(out, 0, sizeof *out);
    if (!kb || !tf)
        return GD_EINVAL;
    const struct gd_kb_table *t = gd_kb_table(kb, "tf_builds");
    const struct gd_kb_row *found = NULL;
    for (size_t i = 0; i < gd_kb_row_count(t) && !found; i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        struct gd_version v;
        if (field_is(row, "kind", "build") && field_is(row, "os", os_name(os)) &&
            row_version(row, "tensorflow", &v) && rel_cmp(tf, &v) == 0)
            found = row;
    }
    for (size_t i = 0; i < gd_kb_row_count(t) && !found; i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        struct gd_version v;
        if (field_is(row, "kind", "build") && field_is(row, "os", os_name(os)) &&
            row_version(row, "tensorflow", &v) && gd_version_cmp_parts(tf, &v, 2) == 0)
            found = row;
    }
    if (!found)
        return GD_ENOENT;
    if (!row_version(found, "tensorflow", &out->tensorflow) ||
        !row_version(found, "cuda", &out->cuda) || !row_version(found, "cudnn", &out->cudnn))
        return GD_EFORMAT;
    out->python = gd_kb_str(found, "python");
    out->row = found;
    return GD_OK;
}

enum gd_status gd_kb_tf_last_native_windows_gpu(const struct gd_kb *kb, struct gd_version *out,
                                                const struct gd_kb_row **row)
{
    if (row)
        *row = NULL;
    if (!kb || !out)
        return GD_EINVAL;
    const struct gd_kb_table *t = gd_kb_table(kb, "tf_builds");
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *r = gd_kb_row_at(t, i);
        if (field_is(r, "kind", "fact") && field_is(r, "name", "last_native_windows_gpu")) {
            if (!row_version(r, "value", out))
                return GD_EFORMAT;
            if (row)
                *row = r;
            return GD_OK;
        }
    }
    return GD_ENOENT;
}

/* ---- PyTorch -------------------------------------------------------------------------------- */

/* The matrix wheel row of minor release `minor` for CUDA `cuda`, or NULL. */
static const struct gd_kb_row *torch_wheel(const struct gd_kb_table *t,
                                           const struct gd_version *minor,
                                           const struct gd_version *cuda)
{
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        struct gd_version v, c;
        if (field_is(row, "kind", "wheel") && row_version(row, "torch", &v) &&
            gd_version_cmp_parts(minor, &v, 2) == 0 && row_version(row, "cuda", &c) &&
            rel_cmp(cuda, &c) == 0)
            return row;
    }
    return NULL;
}

static enum gd_status add_variant(const struct gd_kb_table *t, const struct gd_version *torch,
                                  const struct gd_version *cuda, const struct gd_kb_row *from,
                                  struct gd_kb_torch_variant *out, size_t cap, size_t *n)
{
    if (*n >= cap)
        return GD_ELIMIT;
    struct gd_kb_torch_variant *v = &out[(*n)++];
    memset(v, 0, sizeof *v);
    v->cuda = *cuda;
    snprintf(v->tag, sizeof v->tag, "cu%lu%lu", gd_version_major(cuda), gd_version_minor(cuda));
    v->row = from;
    const struct gd_kb_row *wheel = torch_wheel(t, torch, cuda);
    if (wheel) {
        v->has_cudnn = row_version(wheel, "cudnn", &v->cudnn);
        v->stable = field_is(wheel, "status", "stable") ? GD_KB_YES : GD_KB_NO;
    }
    return GD_OK;
}

enum gd_status gd_kb_torch_variants(const struct gd_kb *kb, const struct gd_version *torch,
                                    struct gd_kb_torch_variant *out, size_t cap, size_t *n)
{
    if (!n)
        return GD_EINVAL;
    *n = 0;
    if (!kb || !torch || (!out && cap))
        return GD_EINVAL;
    const struct gd_kb_table *t = gd_kb_table(kb, "torch_builds");
    /* The release's own pip commands first: they include variants the matrix leaves out
     * (1.12's CUDA 10.2). */
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        struct gd_version v;
        if (!field_is(row, "kind", "release") || !row_version(row, "torch", &v) ||
            rel_cmp(torch, &v) != 0)
            continue;
        for (size_t k = 0; k < gd_kb_list_len(row, "cuda"); k++) {
            struct gd_version c;
            const char *s = gd_kb_list_at(row, "cuda", k);
            if (!s || gd_version_parse(s, &c) != GD_OK)
                return GD_EFORMAT;
            enum gd_status st = add_variant(t, torch, &c, row, out, cap, n);
            if (st != GD_OK)
                return st;
        }
        return GD_OK;
    }
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        struct gd_version v, c;
        if (!field_is(row, "kind", "wheel") || !row_version(row, "torch", &v) ||
            gd_version_cmp_parts(torch, &v, 2) != 0)
            continue;
        if (!row_version(row, "cuda", &c))
            return GD_EFORMAT;
        enum gd_status st = add_variant(t, torch, &c, row, out, cap, n);
        if (st != GD_OK)
            return st;
    }
    return *n ? GD_OK : GD_ENOENT;
}

const struct gd_kb_row *gd_kb_torch_matrix(const struct gd_kb *kb, const struct gd_version *torch)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "torch_builds");
    for (size_t i = 0; torch && i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        struct gd_version v;
        if (field_is(row, "kind", "matrix") && row_version(row, "torch", &v) &&
            gd_version_cmp_parts(&v, torch, 2) == 0)
            return row;
    }
    return NULL;
}

/* ---- Newest release a driver runs ------------------------------------------------------------ */

static bool fit_ok(enum gd_kb_driver_fit fit, bool minor_compat)
{
    return fit == GD_KB_FIT_TOOLKIT || (minor_compat && fit == GD_KB_FIT_MINOR_COMPAT);
}

/* Keep `row` in `out` when its (release, cuda) is newer than what `out` holds. */
static void consider(struct gd_kb_pick *out, bool *have, const struct gd_version *release,
                     const struct gd_version *cuda, enum gd_kb_driver_fit fit,
                     const struct gd_kb_row *row)
{
    int c = *have ? rel_cmp(release, &out->release) : 1;
    if (c < 0 || (c == 0 && rel_cmp(cuda, &out->cuda) <= 0))
        return;
    *have = true;
    out->release = *release;
    out->cuda = *cuda;
    out->fit = fit;
    out->row = row;
}

enum gd_status gd_kb_tf_newest_for_driver(const struct gd_kb *kb, const struct gd_version *driver,
                                          enum gd_kb_os os, bool minor_compat,
                                          struct gd_kb_pick *out)
{
    if (!out)
        return GD_EINVAL;
    memset(out, 0, sizeof *out);
    if (!kb || !driver)
        return GD_EINVAL;
    const struct gd_kb_table *t = gd_kb_table(kb, "tf_builds");
    bool have = false;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        struct gd_version v, c;
        if (!field_is(row, "kind", "build") || !field_is(row, "os", os_name(os)) ||
            !row_version(row, "tensorflow", &v) || !row_version(row, "cuda", &c))
            continue;
        enum gd_kb_driver_fit fit = gd_kb_driver_runs_cuda(kb, driver, &c, os, NULL);
        if (fit_ok(fit, minor_compat))
            consider(out, &have, &v, &c, fit, row);
    }
    return have ? GD_OK : GD_ENOENT;
}

enum gd_status gd_kb_torch_newest_for_driver(const struct gd_kb *kb,
                                             const struct gd_version *driver, enum gd_kb_os os,
                                             bool minor_compat, struct gd_kb_pick *out)
{
    if (!out)
        return GD_EINVAL;
    memset(out, 0, sizeof *out);
    if (!kb || !driver)
        return GD_EINVAL;
    const struct gd_kb_table *t = gd_kb_table(kb, "torch_builds");
    bool have = false;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        struct gd_version v, c;
        if (!field_is(row, "kind", "wheel") || !row_version(row, "torch", &v) ||
            !row_version(row, "cuda", &c))
            continue;
        enum gd_kb_driver_fit fit = gd_kb_driver_runs_cuda(kb, driver, &c, os, NULL);
        if (fit_ok(fit, minor_compat))
            consider(out, &have, &v, &c, fit, row);
    }
    return have ? GD_OK : GD_ENOENT;
}

/* ---- JAX, CuPy, ONNX Runtime ----------------------------------------------------------------- */

enum gd_status gd_kb_jax_plugin(const struct gd_kb *kb, unsigned long cuda_major,
                                struct gd_kb_jax_plugin *out)
{
    if (!out)
        return GD_EINVAL;
    memset(out, 0, sizeof *out);
    if (!kb)
        return GD_EINVAL;
    const struct gd_kb_table *t = gd_kb_table(kb, "jax_builds");
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        if (!major_is(row, cuda_major) || !field_is(row, "current", "true"))
            continue;
        if (!row_version(row, "cuda_min", &out->cuda_min) ||
            !row_version(row, "cudnn_min", &out->cudnn_min) ||
            !row_version(row, "cudnn_below", &out->cudnn_below) ||
            !row_version(row, "driver_linux", &out->driver_min) ||
            !row_version(row, "cc_min", &out->cc_min))
            return GD_EFORMAT;
        out->plugin = gd_kb_str(row, "plugin");
        out->row = row;
        return GD_OK;
    }
    return GD_ENOENT;
}

enum gd_kb_answer gd_kb_cupy_supports_cuda(const struct gd_kb *kb, const struct gd_version *cupy,
                                           const struct gd_version *cuda,
                                           const struct gd_kb_row **why)
{
    if (why)
        *why = NULL;
    if (!kb || !cupy || !cuda)
        return GD_KB_UNKNOWN;
    const struct gd_kb_table *t = gd_kb_table(kb, "cupy_builds");
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        struct gd_version v;
        if (!row_version(row, "cupy", &v) || !covered_by(cupy, &v))
            continue;
        if (why)
            *why = row;
        return list_covers(row, "cuda", cuda) ? GD_KB_YES : GD_KB_NO;
    }
    return GD_KB_UNKNOWN;
}

const struct gd_kb_row *gd_kb_ort_build(const struct gd_kb *kb, const struct gd_version *ort,
                                        unsigned long cuda_major)
{
    if (!kb || !ort)
        return NULL;
    const struct gd_kb_table *t = gd_kb_table(kb, "onnxruntime_builds");
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        if (major_is(row, cuda_major) && list_covers(row, "onnxruntime", ort))
            return row;
    }
    return NULL;
}
