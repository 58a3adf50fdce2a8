#include "kb/pick.h"

#include "kb/kb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Minor releases a table can name; PyTorch has 20, TensorFlow 22 builds per OS. */
#define MINORS_MAX 64

static bool field_is(const struct gd_kb_row *row, const char *field, const char *value)
{
    const char *s = gd_kb_str(row, field);
    return s && strcmp(s, value) == 0;
}

static bool row_version(const struct gd_kb_row *row, const char *field, struct gd_version *out)
{
    const char *s = gd_kb_str(row, field);
    return s && gd_version_parse(s, out) == GD_OK;
}

static int rel_cmp(const struct gd_version *a, const struct gd_version *b)
{
    return gd_version_cmp_parts(a, b, GD_VERSION_MAX_PARTS);
}

bool gd_kb_env_add_cc(struct gd_kb_env *env, const struct gd_version *cc)
{
    for (size_t i = 0; i < env->ncc; i++)
        if (gd_version_cmp_parts(&env->cc[i], cc, 2) == 0)
            return true;
    if (env->ncc == GD_KB_ENV_CC_MAX)
        return false;
    env->cc[env->ncc++] = *cc;
    return true;
}

/* The driver and the GPUs against the choice's CUDA. */
static void judge(const struct gd_kb *kb, const struct gd_kb_env *env, struct gd_kb_choice *c)
{
    if (env && env->has_driver)
        c->fit = gd_kb_driver_runs_cuda(kb, &env->driver, &c->cuda, env->os, &c->need);
    else
        gd_kb_cuda_min_driver(kb, &c->cuda, env ? env->os : GD_KB_OS_LINUX, &c->need);
    c->cc_judged = env && env->ncc > 0;
    c->cc = c->cc_judged ? GD_KB_YES : GD_KB_UNKNOWN;
    for (size_t i = 0; c->cc_judged && i < env->ncc; i++) {
        const struct gd_kb_row *why = NULL;
        enum gd_kb_answer a = gd_kb_cuda_supports_cc(kb, &c->cuda, &env->cc[i], &why);
        if (a == GD_KB_NO) {
            c->cc = GD_KB_NO;
            c->cc_bad = env->cc[i];
            c->cc_row = why;
            return;
        }
        if (a == GD_KB_UNKNOWN && c->cc == GD_KB_YES) {
            c->cc = GD_KB_UNKNOWN;
            c->cc_bad = env->cc[i];
            c->cc_row = why;
        }
    }
}

static void set_tag(struct gd_kb_choice *c, const char *tag)
{
    if (tag)
        snprintf(c->tag, sizeof c->tag, "%s", tag);
    else
        snprintf(c->tag, sizeof c->tag, "cu%lu%lu", gd_version_major(&c->cuda),
                 gd_version_minor(&c->cuda));
}

/* The matrix wheel row of minor `minor` for CUDA `cuda`, or NULL. */
static const struct gd_kb_row *torch_wheel(const struct gd_kb_table *t,
                                           const struct gd_version *minor,
                                           const struct gd_version *cuda)
{
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        struct gd_version v, c;
        if (field_is(row, "kind", "wheel") && row_version(row, "torch", &v) &&
            gd_version_cmp_parts(&v, minor, 2) == 0 && row_version(row, "cuda", &c) &&
            rel_cmp(&c, cuda) == 0)
            return row;
    }
    return NULL;
}

/* The newest release row of minor `minor` (or of exactly `exact` when not NULL). */
static const struct gd_kb_row *torch_release(const struct gd_kb_table *t,
                                             const struct gd_version *minor,
                                             const struct gd_version *exact)
{
    const struct gd_kb_row *best = NULL;
    struct gd_version best_v;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        struct gd_version v;
        if (!field_is(row, "kind", "release") || !row_version(row, "torch", &v))
            continue;
        if (exact ? rel_cmp(&v, exact) != 0 : gd_version_cmp_parts(&v, minor, 2) != 0)
            continue;
        if (!best || rel_cmp(&v, &best_v) > 0) {
            best = row;
            best_v = v;
        }
    }
    return best;
}

static int newest_cuda_first(const void *a, const void *b)
{
    const struct gd_kb_choice *x = a, *y = b;
    return rel_cmp(&y->cuda, &x->cuda);
}

/* The variants of `release` (a release row, or the matrix rows of its minor) into out[n..]. */
static size_t torch_variants(const struct gd_kb *kb, const struct gd_kb_env *env,
                             const struct gd_kb_table *t, const struct gd_kb_row *release_row,
                             const struct gd_version *release, struct gd_kb_choice *out, size_t cap)
{
    size_t n = 0;
    if (release_row) {
        struct gd_version rv;
        if (!row_version(release_row, "torch", &rv))
            return 0;
        for (size_t k = 0; k < gd_kb_list_len(release_row, "cuda"); k++) {
            struct gd_version cuda;
            const char *s = gd_kb_list_at(release_row, "cuda", k);
            if (!s || gd_version_parse(s, &cuda) != GD_OK)
                continue;
            if (n < cap) {
                struct gd_kb_choice *c = &out[n];
                memset(c, 0, sizeof *c);
                c->release = rv;
                c->cuda = cuda;
                set_tag(c, gd_kb_list_at(release_row, "tags", k));
                c->row = release_row;
                c->variant = k;
                const struct gd_kb_row *w = torch_wheel(t, &rv, &cuda);
                c->has_cudnn = w && row_version(w, "cudnn", &c->cudnn);
                judge(kb, env, c);
            }
            n++;
        }
    } else {
        for (size_t i = 0; i < gd_kb_row_count(t); i++) {
            const struct gd_kb_row *row = gd_kb_row_at(t, i);
            struct gd_version v, cuda;
            if (!field_is(row, "kind", "wheel") || !row_version(row, "torch", &v) ||
                gd_version_cmp_parts(&v, release, 2) != 0 || !row_version(row, "cuda", &cuda))
                continue;
            if (n < cap) {
                struct gd_kb_choice *c = &out[n];
                memset(c, 0, sizeof *c);
                c->release = *release;
                c->minor_only = release->nparts < 3;
                c->cuda = cuda;
                set_tag(c, gd_kb_str(row, "tag"));
                c->row = row;
                c->has_cudnn = row_version(row, "cudnn", &c->cudnn);
                judge(kb, env, c);
            }
            n++;
        }
    }
    if (out && n && cap)
        qsort(out, n < cap ? n : cap, sizeof *out, newest_cuda_first);
    return n;
}

size_t gd_kb_torch_release_choices(const struct gd_kb *kb, const struct gd_kb_env *env,
                                   const struct gd_version *torch, struct gd_kb_choice *out,
                                   size_t cap)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "torch_builds");
    if (!t || !torch)
        return 0;
    const struct gd_kb_row *rel = torch_release(t, torch, torch->nparts >= 3 ? torch : NULL);
    struct gd_version release = *torch;
    /* The local label ("+cpu") is no part of the release installed instead. */
    release.local[0] = '\0';
    char text[GD_VERSION_FORMAT_MAX];
    gd_version_format(&release, text, sizeof text);
    if (strlen(text) < sizeof release.text)
        memcpy(release.text, text, strlen(text) + 1);
    return torch_variants(kb, env, t, rel, &release, out, cap);
}

static int newest_first(const void *a, const void *b)
{
    return rel_cmp((const struct gd_version *)b, (const struct gd_version *)a);
}

/* The minor releases named by rows of `kinds` (field `field`), newest first. */
static size_t minors_of(const struct gd_kb_table *t, const char *const *kinds, const char *field,
                        struct gd_version *out)
{
    size_t n = 0;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        bool wanted = false;
        for (const char *const *k = kinds; *k; k++)
            wanted = wanted || field_is(row, "kind", *k);
        struct gd_version v;
        if (!wanted || !row_version(row, field, &v))
            continue;
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++)
            seen = gd_version_cmp_parts(&out[k], &v, 2) == 0;
        if (seen || n == MINORS_MAX)
            continue;
        memset(&out[n], 0, sizeof out[n]);
        out[n].nparts = 2;
        out[n].parts[0] = gd_version_major(&v);
        out[n].parts[1] = gd_version_minor(&v);
        snprintf(out[n].text, sizeof out[n].text, "%lu.%lu", out[n].parts[0], out[n].parts[1]);
        n++;
    }
    qsort(out, n, sizeof *out, newest_first);
    return n;
}

size_t gd_kb_torch_choices(const struct gd_kb *kb, const struct gd_kb_env *env,
                           struct gd_kb_choice *out, size_t cap)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "torch_builds");
    if (!t)
        return 0;
    static const char *const kinds[] = { "wheel", "release", NULL };
    struct gd_version minors[MINORS_MAX];
    size_t nminors = minors_of(t, kinds, "torch", minors), n = 0;
    for (size_t m = 0; m < nminors; m++) {
        const struct gd_kb_row *rel = torch_release(t, &minors[m], NULL);
        n += torch_variants(kb, env, t, rel, &minors[m], out + (n < cap ? n : cap),
                            n < cap ? cap - n : 0);
    }
    return n;
}

static int newest_release_first(const void *a, const void *b)
{
    const struct gd_kb_choice *x = a, *y = b;
    int c = rel_cmp(&y->release, &x->release);
    return c ? c : rel_cmp(&y->cuda, &x->cuda);
}

static const char *os_name(enum gd_kb_os os)
{
    return os == GD_KB_OS_WINDOWS ? "windows" : "linux";
}

size_t gd_kb_tf_choices(const struct gd_kb *kb, const struct gd_kb_env *env,
                        struct gd_kb_choice *out, size_t cap)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "tf_builds");
    size_t n = 0;
    enum gd_kb_os os = env ? env->os : GD_KB_OS_LINUX;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        struct gd_version v, cuda;
        if (!field_is(row, "kind", "build") || !field_is(row, "os", os_name(os)) ||
            !row_version(row, "tensorflow", &v) || !row_version(row, "cuda", &cuda))
            continue;
        if (n < cap) {
            struct gd_kb_choice *c = &out[n];
            memset(c, 0, sizeof *c);
            c->release = v;
            /* A tested build row stands for its minor series (2.15.0 for 2.15.x). */
            c->minor_only = true;
            c->cuda = cuda;
            c->has_cudnn = row_version(row, "cudnn", &c->cudnn);
            c->row = row;
            judge(kb, env, c);
        }
        n++;
    }
    if (out && n && cap)
        qsort(out, n < cap ? n : cap, sizeof *out, newest_release_first);
    return n;
}

enum gd_kb_answer gd_kb_choice_runs(const struct gd_kb_choice *c, bool minor_compat)
{
    enum gd_kb_answer driver;
    switch (c->fit) {
    case GD_KB_FIT_TOOLKIT:
        driver = GD_KB_YES;
        break;
    case GD_KB_FIT_MINOR_COMPAT:
        driver = minor_compat ? GD_KB_YES : GD_KB_NO;
        break;
    case GD_KB_FIT_NO:
        driver = GD_KB_NO;
        break;
    default:
        driver = GD_KB_UNKNOWN;
        break;
    }
    enum gd_kb_answer gpus = c->cc_judged ? c->cc : GD_KB_UNKNOWN;
    if (driver == GD_KB_NO || gpus == GD_KB_NO)
        return GD_KB_NO;
    return driver == GD_KB_YES && gpus == GD_KB_YES ? GD_KB_YES : GD_KB_UNKNOWN;
}

const struct gd_kb_choice *gd_kb_best_choice(const struct gd_kb_choice *list, size_t n)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            if (gd_kb_choice_runs(&list[i], pass == 1) == GD_KB_YES)
                return &list[i];
    return NULL;
}

/* ---- install commands ------------------------------------------------------------------------ */

/* Append `n` bytes of `s` to buf (size `size`, `*len` used); false when it does not fit. */
static bool put(char *buf, size_t size, size_t *len, const char *s, size_t n)
{
    if (*len + n + 1 > size)
        return false;
    memcpy(buf + *len, s, n);
    *len += n;
    buf[*len] = '\0';
    return true;
}

/* `form` with {version} and {tag} filled in; the word holding {version} quoted for the shell
 * when the version is a pattern ("2.5.*"). */
static enum gd_status fill(const char *form, const char *version, const char *tag, char *buf,
                           size_t size)
{
    size_t len = 0;
    bool ok = true, quote = strchr(version, '*') != NULL;
    buf[0] = '\0';
    for (const char *p = form; *p && ok;) {
        size_t n = strcspn(p, " ");
        const char *at = strstr(p, "{version}");
        bool quoted = quote && at && at < p + n;
        if (quoted)
            ok = put(buf, size, &len, "'", 1);
        for (const char *q = p; q < p + n && ok;) {
            if (strncmp(q, "{version}", 9) == 0) {
                ok = put(buf, size, &len, version, strlen(version));
                q += 9;
            } else if (strncmp(q, "{tag}", 5) == 0) {
                ok = put(buf, size, &len, tag, strlen(tag));
                q += 5;
            } else {
                ok = put(buf, size, &len, q++, 1);
            }
        }
        if (quoted && ok)
            ok = put(buf, size, &len, "'", 1);
        p += n;
        if (*p == ' ' && ok) {
            ok = put(buf, size, &len, " ", 1);
            p++;
        }
    }
    if (!ok) {
        buf[0] = '\0';
        return GD_ELIMIT;
    }
    return GD_OK;
}

enum gd_status gd_kb_torch_pip(const struct gd_kb *kb, const struct gd_kb_choice *c, char *buf,
                               size_t size, bool *exact, const struct gd_kb_row **row)
{
    if (row)
        *row = NULL;
    *exact = false;
    if (size)
        buf[0] = '\0';
    if (c->row && field_is(c->row, "kind", "release")) {
        const char *pip = gd_kb_list_at(c->row, "pip", c->variant);
        if (pip) {
            if (row)
                *row = c->row;
            *exact = true;
            return (size_t)snprintf(buf, size, "%s", pip) < size ? GD_OK : GD_ELIMIT;
        }
    }
    /* The form of the newest index row that covers the release. */
    const struct gd_kb_table *t = gd_kb_table(kb, "torch_builds");
    const struct gd_kb_row *form = NULL;
    struct gd_version form_min;
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *r = gd_kb_row_at(t, i);
        struct gd_version min;
        if (!field_is(r, "kind", "index") || !row_version(r, "torch_min", &min) ||
            !gd_kb_str(r, "pip") || gd_version_cmp_parts(&c->release, &min, 3) < 0)
            continue;
        if (!form || rel_cmp(&min, &form_min) > 0) {
            form = r;
            form_min = min;
        }
    }
    if (!form)
        return GD_ENOENT;
    char version[GD_VERSION_TEXT_MAX + 8];
    if (c->minor_only)
        snprintf(version, sizeof version, "%lu.%lu.*", gd_version_major(&c->release),
                 gd_version_minor(&c->release));
    else
        gd_version_format(&c->release, version, sizeof version);
    if (row)
        *row = form;
    return fill(gd_kb_str(form, "pip"), version, c->tag, buf, size);
}

static enum gd_status join_commands(const struct gd_kb_row *r, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < gd_kb_list_len(r, "commands"); k++) {
        const char *cmd = gd_kb_list_at(r, "commands", k);
        if (!cmd)
            continue;
        int w = snprintf(buf + len, size - len, "%s%s", len ? " && " : "", cmd);
        if (w < 0 || (size_t)w >= size - len) {
            buf[0] = '\0';
            return GD_ELIMIT;
        }
        len += (size_t)w;
    }
    return len ? GD_OK : GD_ENOENT;
}

static const struct gd_kb_row *tf_row(const struct gd_kb_table *t, const char *kind,
                                      const char *field, const char *value)
{
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *r = gd_kb_row_at(t, i);
        if (field_is(r, "kind", kind) && (!field || field_is(r, field, value)))
            return r;
    }
    return NULL;
}

enum gd_status gd_kb_tf_install(const struct gd_kb *kb, const struct gd_kb_choice *c,
                                enum gd_kb_os os, char *buf, size_t size, enum gd_kb_tf_how *how,
                                const struct gd_kb_row **row)
{
    if (row)
        *row = NULL;
    if (!size)
        return GD_ELIMIT;
    buf[0] = '\0';
    const struct gd_kb_table *t = gd_kb_table(kb, "tf_builds");
    struct gd_version v;
    *how = GD_KB_TF_COMMANDS;
    /* Native Windows: the page's commands for the releases that still had GPU support there. */
    const struct gd_kb_row *win = tf_row(t, "windows_native_gpu", NULL, NULL);
    if (os == GD_KB_OS_WINDOWS && win && row_version(win, "tensorflow_below", &v) &&
        rel_cmp(&c->release, &v) < 0 && join_commands(win, buf, size) == GD_OK) {
        if (row)
            *row = win;
        return GD_OK;
    }
    /* A version of the pip page that lists its own commands (2.13). */
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *r = gd_kb_row_at(t, i);
        if (!field_is(r, "kind", "pip_requirements") || !row_version(r, "tensorflow", &v) ||
            gd_version_cmp_parts(&c->release, &v, 2) != 0)
            continue;
        enum gd_status st = join_commands(r, buf, size);
        if (st == GD_OK && row)
            *row = r;
        if (st != GD_ENOENT)
            return st;
    }
    char minor[GD_VERSION_FORMAT_MAX];
    if (c->minor_only)
        snprintf(minor, sizeof minor, "%lu.%lu.*", gd_version_major(&c->release),
                 gd_version_minor(&c->release));
    else
        gd_version_format(&c->release, minor, sizeof minor);
    const struct gd_kb_row *first = tf_row(t, "fact", "name", "and_cuda_first_seen");
    if (os == GD_KB_OS_LINUX && first && row_version(first, "value", &v) &&
        rel_cmp(&c->release, &v) >= 0) {
        *how = GD_KB_TF_AND_CUDA;
        if (row)
            *row = first;
        return (size_t)snprintf(buf, size, "python3 -m pip install 'tensorflow[and-cuda]==%s'",
                                minor) < size
                   ? GD_OK
                   : GD_ELIMIT;
    }
    *how = GD_KB_TF_PLAIN;
    if (row)
        *row = c->row;
    bool gpu_package = c->row && field_is(c->row, "package", "tensorflow_gpu");
    return (size_t)snprintf(buf, size, "python3 -m pip install '%s==%s'",
                            gpu_package ? "tensorflow-gpu" : "tensorflow", minor) < size
               ? GD_OK
               : GD_ELIMIT;
}
