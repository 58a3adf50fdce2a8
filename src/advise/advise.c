/* The answer model of compat and plan, the checks they share, and the parsing of their
 * arguments. */
#include "advise/advise.h"

#include "core/alloc.h"
#include "core/attr.h"
#include "core/arena.h"
#include "core/str.h"
#include "kb/kb.h"
#include "kb/pick.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- the model ------------------------------------------------------------------------------- */

static const char *dup(struct gd_advice *a, const char *s)
{
    if (!s)
        return NULL;
    const char *d = gd_arena_strdup(a->arena, s);
    if (!d)
        a->failed = true;
    return d;
}

struct gd_advice *gd_adv_new(const struct gd_adv_machine *m, const char *command, const char *query)
{
    struct gd_advice *a = gd_calloc(1, sizeof *a);
    if (!a)
        return NULL;
    if (!(a->arena = gd_arena_new())) {
        gd_free(a);
        return NULL;
    }
    a->command = dup(a, command);
    a->query = dup(a, query);
    a->machine = *m;
    struct gd_adv_machine *c = &a->machine;
    c->where = dup(a, m->where);
    c->root = dup(a, m->root);
    c->driver_kind = dup(a, m->driver_kind);
    c->driver_ref = dup(a, m->driver_ref);
    c->no_driver = dup(a, m->no_driver);
    c->os_name = dup(a, m->os_name);
    c->os_kind = dup(a, m->os_kind);
    c->os_ref = dup(a, m->os_ref);
    for (size_t i = 0; i < m->ngpus && i < GD_ADV_GPUS_MAX; i++) {
        c->gpus[i].name = dup(a, m->gpus[i].name);
        c->gpus[i].cc_kind = dup(a, m->gpus[i].cc_kind);
        c->gpus[i].cc_ref = dup(a, m->gpus[i].cc_ref);
        c->gpus[i].why = dup(a, m->gpus[i].why);
    }
    a->verdict = GD_KB_UNKNOWN;
    return a;
}

void gd_advice_free(struct gd_advice *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->nsections; i++)
        gd_free(a->sections[i].lines);
    gd_free(a->sections);
    gd_free(a->sources);
    gd_arena_free(a->arena);
    gd_free(a);
}

struct gd_adv_section *gd_adv_section(struct gd_advice *a, const char *fmt, ...)
{
    if (a->failed ||
        gd_grow((void **)&a->sections, &a->cap_sections, a->nsections + 1, sizeof *a->sections)) {
        a->failed = true;
        return NULL;
    }
    struct gd_adv_section *s = &a->sections[a->nsections++];
    memset(s, 0, sizeof *s);
    s->verdict = GD_KB_UNKNOWN;
    va_list ap;
    va_start(ap, fmt);
    s->title = gd_arena_vprintf(a->arena, fmt, ap);
    va_end(ap);
    if (!s->title)
        a->failed = true;
    return s;
}

struct gd_adv_line *gd_adv_line(struct gd_advice *a, struct gd_adv_section *s,
                                enum gd_adv_kind kind, enum gd_kb_answer answer, const char *fmt,
                                ...)
{
    if (a->failed || !s || gd_grow((void **)&s->lines, &s->cap, s->nlines + 1, sizeof *s->lines)) {
        a->failed = true;
        return NULL;
    }
    struct gd_adv_line *l = &s->lines[s->nlines++];
    memset(l, 0, sizeof *l);
    l->kind = kind;
    l->answer = answer;
    va_list ap;
    va_start(ap, fmt);
    l->text = gd_arena_vprintf(a->arena, fmt, ap);
    va_end(ap);
    if (!l->text)
        a->failed = true;
    return l;
}

void gd_adv_command(struct gd_advice *a, struct gd_adv_line *l, const char *command)
{
    if (l)
        l->command = dup(a, command);
}

static void cite_index(struct gd_advice *a, struct gd_adv_line *l, size_t k)
{
    for (size_t i = 0; i < l->nsrc; i++)
        if (l->src[i] == k)
            return;
    if (l->nsrc < GD_ADV_LINE_SOURCES)
        l->src[l->nsrc++] = k;
    (void)a;
}

static size_t add_source(struct gd_advice *a, const struct gd_adv_source *src)
{
    for (size_t i = 0; i < a->nsources; i++) {
        const struct gd_adv_source *s = &a->sources[i];
        bool same =
            src->table
                ? s->table && strcmp(s->table, src->table) == 0 && strcmp(s->id, src->id) == 0
                : !s->table && strcmp(s->kind, src->kind) == 0 && strcmp(s->ref, src->ref) == 0;
        if (same)
            return i;
    }
    if (gd_grow((void **)&a->sources, &a->cap_sources, a->nsources + 1, sizeof *a->sources)) {
        a->failed = true;
        return SIZE_MAX;
    }
    struct gd_adv_source *s = &a->sources[a->nsources];
    memset(s, 0, sizeof *s);
    s->table = dup(a, src->table);
    s->id = dup(a, src->id);
    s->title = dup(a, src->title);
    s->url = dup(a, src->url);
    s->kind = dup(a, src->kind);
    s->ref = dup(a, src->ref);
    return a->failed ? SIZE_MAX : a->nsources++;
}

void gd_adv_cite(struct gd_advice *a, struct gd_adv_line *l, const struct gd_kb *kb,
                 const struct gd_kb_row *row)
{
    if (!l || !row)
        return;
    const struct gd_kb_table *t = gd_kb_row_table(kb, row);
    const char *id = gd_kb_row_source(row);
    if (!t || !id)
        return;
    struct gd_adv_source src = { gd_kb_table_name(t),     id,   gd_kb_source_title(t, id),
                                 gd_kb_source_url(t, id), NULL, NULL };
    size_t k = add_source(a, &src);
    if (k != SIZE_MAX)
        cite_index(a, l, k);
}

void gd_adv_cite_fact(struct gd_advice *a, struct gd_adv_line *l, const char *kind, const char *ref)
{
    if (!l || !kind || !ref)
        return;
    struct gd_adv_source src = { NULL, NULL, NULL, NULL, kind, ref };
    size_t k = add_source(a, &src);
    if (k != SIZE_MAX)
        cite_index(a, l, k);
}

enum gd_kb_answer gd_adv_all(enum gd_kb_answer x, enum gd_kb_answer y)
{
    if (x == GD_KB_NO || y == GD_KB_NO)
        return GD_KB_NO;
    return x == GD_KB_YES && y == GD_KB_YES ? GD_KB_YES : GD_KB_UNKNOWN;
}

enum gd_kb_answer gd_adv_any(enum gd_kb_answer x, enum gd_kb_answer y)
{
    if (x == GD_KB_YES || y == GD_KB_YES)
        return GD_KB_YES;
    return x == GD_KB_NO && y == GD_KB_NO ? GD_KB_NO : GD_KB_UNKNOWN;
}

void gd_adv_judge(struct gd_adv_section *s)
{
    if (!s)
        return;
    enum gd_kb_answer v = GD_KB_YES;
    bool any = false;
    for (size_t i = 0; i < s->nlines; i++)
        if (s->lines[i].kind == GD_ADV_CHECK) {
            v = gd_adv_all(v, s->lines[i].answer);
            any = true;
        }
    s->judged = true;
    s->verdict = any ? v : GD_KB_UNKNOWN;
}

void gd_adv_conclude(struct gd_advice *a, enum gd_kb_answer v, const char *what)
{
    const char *where = a->machine.where ? a->machine.where : "the machine";
    char first = where[0] >= 'a' && where[0] <= 'z' ? (char)(where[0] - 'a' + 'A') : where[0];
    if (v == GD_KB_YES)
        gd_adv_summary(a, "%c%s can %s.", first, where + 1, what);
    else if (v == GD_KB_NO)
        gd_adv_summary(a, "%c%s cannot %s.", first, where + 1, what);
    else
        gd_adv_summary(a, "The knowledge base cannot tell whether %s can %s.", where, what);
}

void gd_adv_summary(struct gd_advice *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    a->summary = gd_arena_vprintf(a->arena, fmt, ap);
    va_end(ap);
    if (!a->summary)
        a->failed = true;
}

/* ---- shared checks --------------------------------------------------------------------------- */

void gd_adv_env(const struct gd_adv_machine *m, struct gd_kb_env *env)
{
    memset(env, 0, sizeof *env);
    env->has_driver = m->has_driver;
    env->driver = m->driver;
    env->os = m->os;
    for (size_t i = 0; i < m->ngpus; i++)
        if (m->gpus[i].has_cc)
            gd_kb_env_add_cc(env, &m->gpus[i].cc);
}

const char *gd_adv_need_text(struct gd_advice *a, const struct gd_kb_cuda_driver *need,
                             const struct gd_version *cuda)
{
    const char *os = a->machine.os == GD_KB_OS_WINDOWS ? "Windows" : "Linux";
    const char *s;
    if (need->has_toolkit && need->has_compat)
        s = gd_arena_printf(a->arena,
                            "%s or newer on %s (CUDA %s's own driver), or %s or newer through "
                            "minor version compatibility",
                            need->toolkit_min.text, os, cuda->text, need->compat_min.text);
    else if (need->has_toolkit)
        s = gd_arena_printf(a->arena, "%s or newer on %s (CUDA %s's own driver)",
                            need->toolkit_min.text, os, cuda->text);
    else if (need->has_compat)
        s = gd_arena_printf(a->arena, "%s or newer on %s (the CUDA %lu family's minimum)",
                            need->compat_min.text, os, gd_version_major(cuda));
    else
        s = gd_arena_printf(a->arena, "a driver the knowledge base does not give for CUDA %s on %s",
                            cuda->text, os);
    if (!s)
        a->failed = true;
    return s ? s : "";
}

static void cite_driver(struct gd_advice *a, struct gd_adv_line *l)
{
    gd_adv_cite_fact(a, l, a->machine.driver_kind, a->machine.driver_ref);
}

enum gd_kb_answer gd_adv_check_driver(struct gd_advice *a, struct gd_adv_section *s,
                                      const struct gd_kb *kb, const struct gd_version *cuda)
{
    const struct gd_adv_machine *m = &a->machine;
    struct gd_kb_cuda_driver need;
    struct gd_adv_line *l;
    if (!m->has_driver) {
        if (m->given) {
            l = gd_adv_line(a, s, GD_ADV_CHECK, GD_KB_UNKNOWN,
                            "Driver: not given (--driver), so whether it runs CUDA %s is not "
                            "judged.",
                            cuda->text);
            return GD_KB_UNKNOWN;
        }
        l = gd_adv_line(a, s, GD_ADV_CHECK, GD_KB_NO, "Driver: %s has no NVIDIA driver (%s).",
                        m->where, m->no_driver ? m->no_driver : "none found");
        cite_driver(a, l);
        return GD_KB_NO;
    }
    enum gd_kb_driver_fit fit = gd_kb_driver_runs_cuda(kb, &m->driver, cuda, m->os, &need);
    const struct gd_kb_row *row = need.toolkit_row ? need.toolkit_row : need.compat_row;
    switch (fit) {
    case GD_KB_FIT_TOOLKIT:
        l = gd_adv_line(a, s, GD_ADV_CHECK, GD_KB_YES,
                        "Driver %s runs CUDA %s (its own driver is %s or newer).", m->driver.text,
                        cuda->text, need.toolkit_min.text);
        break;
    case GD_KB_FIT_MINOR_COMPAT:
        l = gd_adv_line(a, s, GD_ADV_CHECK, GD_KB_YES,
                        "Driver %s runs CUDA %s through minor version compatibility (%s or "
                        "newer), with a limited feature set below its own driver %s.",
                        m->driver.text, cuda->text, need.compat_min.text,
                        need.has_toolkit ? need.toolkit_min.text : "(not known)");
        gd_adv_cite(a, l, kb, need.compat_row);
        break;
    case GD_KB_FIT_NO:
        l = gd_adv_line(a, s, GD_ADV_CHECK, GD_KB_NO,
                        "Driver %s is too old for CUDA %s, which needs %s.", m->driver.text,
                        cuda->text, gd_adv_need_text(a, &need, cuda));
        gd_adv_cite(a, l, kb, need.compat_row);
        break;
    default:
        if (!need.has_toolkit && !need.has_compat)
            l = gd_adv_line(a, s, GD_ADV_CHECK, GD_KB_UNKNOWN,
                            "Driver %s: the knowledge base has no driver minimum for CUDA %s on "
                            "%s.",
                            m->driver.text, cuda->text,
                            m->os == GD_KB_OS_WINDOWS ? "Windows" : "Linux");
        else
            l = gd_adv_line(a, s, GD_ADV_CHECK, GD_KB_UNKNOWN,
                            "Driver %s: cannot tell whether it runs CUDA %s, which needs %s (a "
                            "driver written without all its parts, or no minimum for this "
                            "operating system).",
                            m->driver.text, cuda->text, gd_adv_need_text(a, &need, cuda));
        gd_adv_cite(a, l, kb, need.compat_row);
        break;
    }
    gd_adv_cite(a, l, kb, row);
    cite_driver(a, l);
    return l ? l->answer : GD_KB_UNKNOWN;
}

static const char *gpu_label(struct gd_advice *a, const struct gd_adv_gpu *g)
{
    const char *s = g->name && g->has_cc ? gd_arena_printf(a->arena, "%s (compute capability %s)",
                                                           g->name, g->cc.text)
                    : g->name            ? gd_arena_printf(a->arena, "%s", g->name)
                              : gd_arena_printf(a->arena, "compute capability %s", g->cc.text);
    if (!s)
        a->failed = true;
    return s ? s : "";
}

enum gd_kb_answer gd_adv_check_gpus(struct gd_advice *a, struct gd_adv_section *s,
                                    const struct gd_kb *kb, const struct gd_version *cuda,
                                    const char *what)
{
    const struct gd_adv_machine *m = &a->machine;
    if (m->ngpus == 0) {
        if (!m->given && m->gpus_known) {
            struct gd_adv_line *l =
                gd_adv_line(a, s, GD_ADV_CHECK, GD_KB_NO, "GPU: %s shows no NVIDIA GPU.", m->where);
            gd_adv_cite_fact(a, l, "path", "/proc/driver/nvidia/gpus");
            return GD_KB_NO;
        }
        gd_adv_line(a, s, GD_ADV_CHECK, GD_KB_UNKNOWN,
                    m->given ? "GPU: none given (--gpu or --cc), so compute capabilities are not "
                               "judged."
                             : "GPU: the GPUs are not known without the NVIDIA driver, so compute "
                               "capabilities are not judged.");
        return GD_KB_UNKNOWN;
    }
    enum gd_kb_answer all = GD_KB_YES;
    bool any_yes = false;
    for (size_t i = 0; i < m->ngpus; i++) {
        const struct gd_adv_gpu *g = &m->gpus[i];
        struct gd_adv_line *l;
        if (!g->has_cc) {
            l = gd_adv_line(a, s, GD_ADV_CHECK, GD_KB_UNKNOWN,
                            "GPU %s: its compute capability is not known (%s).",
                            g->name ? g->name : "?", g->why ? g->why : "not in the gpus table");
            gd_adv_cite_fact(a, l, g->cc_kind, g->cc_ref);
            all = gd_adv_all(all, GD_KB_UNKNOWN);
            continue;
        }
        const struct gd_kb_row *why = NULL;
        enum gd_kb_answer ok = gd_kb_cuda_supports_cc(kb, cuda, &g->cc, &why);
        const char *event = why ? gd_kb_str(why, "event") : NULL;
        const char *at = why ? gd_kb_str(why, "cuda") : NULL;
        if (ok == GD_KB_YES) {
            l = gd_adv_line(a, s, GD_ADV_CHECK, GD_KB_YES,
                            "GPU %s: CUDA %s can compile for it (added by CUDA %s%s).",
                            gpu_label(a, g), cuda->text, at ? at : "?",
                            why && gd_kb_str(why, "earliest_tracked") ? " or earlier" : "");
            any_yes = true;
        } else if (ok == GD_KB_NO) {
            l = gd_adv_line(a, s, GD_ADV_CHECK, GD_KB_NO,
                            "GPU %s: CUDA %s cannot compile for it (%s by CUDA %s).",
                            gpu_label(a, g), cuda->text,
                            event && strcmp(event, "dropped") == 0 ? "dropped" : "added only",
                            at ? at : "?");
        } else {
            l = gd_adv_line(a, s, GD_ADV_CHECK, GD_KB_UNKNOWN,
                            "GPU %s: the knowledge base does not say whether CUDA %s can compile "
                            "for it.",
                            gpu_label(a, g), cuda->text);
        }
        gd_adv_cite(a, l, kb, why);
        gd_adv_cite_fact(a, l, g->cc_kind, g->cc_ref);
        all = gd_adv_all(all, ok);
    }
    if (any_yes && what)
        gd_adv_line(a, s, GD_ADV_NOTE, GD_KB_UNKNOWN,
                    "That its CUDA can compile for a GPU is necessary, not sufficient: which "
                    "architectures %s's own build carries is not in the knowledge base (gpudoctor "
                    "check reads them from an installed build).",
                    what);
    return all;
}

/* ---- chosen builds --------------------------------------------------------------------------- */

const char *gd_adv_choice_reason(struct gd_advice *a, const struct gd_kb_choice *c)
{
    const char *s = NULL;
    const char *at = c->cc_row ? gd_kb_str(c->cc_row, "cuda") : NULL;
    const char *event = c->cc_row ? gd_kb_str(c->cc_row, "event") : NULL;
    if (c->cc_judged && c->cc == GD_KB_NO)
        s = gd_arena_printf(a->arena,
                            "CUDA %s cannot compile for compute capability %s (%s by CUDA %s): "
                            "no driver makes it run here",
                            c->cuda.text, c->cc_bad.text,
                            event && strcmp(event, "dropped") == 0 ? "dropped" : "added only",
                            at ? at : "?");
    else if (c->fit == GD_KB_FIT_NO)
        s = gd_arena_printf(a->arena, "needs driver %s", gd_adv_need_text(a, &c->need, &c->cuda));
    else if (c->fit == GD_KB_FIT_UNKNOWN)
        s = gd_arena_printf(a->arena, "%s; needs driver %s",
                            a->machine.has_driver ? "the driver cannot be judged"
                                                  : "no driver to judge",
                            gd_adv_need_text(a, &c->need, &c->cuda));
    else if (c->cc_judged && c->cc == GD_KB_UNKNOWN)
        s = gd_arena_printf(a->arena,
                            "the driver runs it, but whether CUDA %s can compile for compute "
                            "capability %s is not known",
                            c->cuda.text, c->cc_bad.text);
    else if (!c->cc_judged)
        s = gd_arena_printf(
            a->arena, "the driver runs it%s; no GPU to judge",
            c->fit == GD_KB_FIT_MINOR_COMPAT ? " through minor version compatibility" : "");
    else
        s = gd_arena_printf(
            a->arena, "runs%s",
            c->fit == GD_KB_FIT_MINOR_COMPAT ? " through minor version compatibility" : "");
    if (!s)
        a->failed = true;
    return s ? s : "";
}

void gd_adv_cite_choice(struct gd_advice *a, struct gd_adv_line *l, const struct gd_kb *kb,
                        const struct gd_kb_choice *c)
{
    gd_adv_cite(a, l, kb, c->row);
    if (c->cc_judged && c->cc != GD_KB_YES)
        gd_adv_cite(a, l, kb, c->cc_row);
    else if (c->fit != GD_KB_FIT_TOOLKIT)
        gd_adv_cite(a, l, kb, c->need.toolkit_row ? c->need.toolkit_row : c->need.compat_row);
    if (c->fit != GD_KB_FIT_UNKNOWN)
        gd_adv_cite_fact(a, l, a->machine.driver_kind, a->machine.driver_ref);
}

void gd_adv_install(struct gd_advice *a, struct gd_adv_section *s, const struct gd_kb *kb,
                    const char *framework, const struct gd_kb_choice *c)
{
    char cmd[512];
    const struct gd_kb_row *row = NULL;
    struct gd_adv_line *l = NULL;
    if (strcmp(framework, "torch") == 0) {
        bool exact = false;
        if (gd_kb_torch_pip(kb, c, cmd, sizeof cmd, &exact, &row) != GD_OK) {
            l = gd_adv_line(a, s, GD_ADV_NOTE, GD_KB_UNKNOWN,
                            "The knowledge base has no pip command for torch %s %s.",
                            c->release.text, c->tag);
            return;
        }
        l = exact ? gd_adv_line(a, s, GD_ADV_INSTALL, GD_KB_UNKNOWN, "Install (%s):", c->tag)
                  : gd_adv_line(a, s, GD_ADV_INSTALL, GD_KB_UNKNOWN,
                                "Install (%s; the form of PyTorch's pip commands up to the last "
                                "release the knowledge base has commands for):",
                                c->tag);
    } else {
        enum gd_kb_tf_how how;
        if (gd_kb_tf_install(kb, c, a->machine.os, cmd, sizeof cmd, &how, &row) != GD_OK)
            return;
        l = gd_adv_line(a, s, GD_ADV_INSTALL, GD_KB_UNKNOWN, "%s",
                        how == GD_KB_TF_AND_CUDA ? "Install (the and-cuda extra brings CUDA and "
                                                   "cuDNN):"
                        : how == GD_KB_TF_PLAIN
                            ? "Install, with the CUDA and cuDNN of its tested build where the "
                              "loader finds them:"
                            : "Install:");
    }
    gd_adv_command(a, l, cmd);
    gd_adv_cite(a, l, kb, row);
    if (row != c->row)
        gd_adv_cite(a, l, kb, c->row);
}

/* ---- arguments ------------------------------------------------------------------------------- */

static void say(char *problem, size_t size, const char *fmt, ...) GD_PRINTF(3, 4);
static void say(char *problem, size_t size, const char *fmt, ...)
{
    if (!problem || !size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, size, fmt, ap);
    va_end(ap);
}

enum what { W_NONE, W_TF, W_TORCH, W_JAX, W_CUDA, W_CUDNN };

/* Case-insensitive: the first `n` bytes of `s` are `name`. */
static bool named(const char *s, size_t n, const char *name)
{
    if (strlen(name) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (gd_to_lower(s[i]) != name[i])
            return false;
    return true;
}

static enum what name_of(const char *name, size_t n)
{
    static const struct {
        const char *name;
        enum what what;
    } names[] = { { "tensorflow", W_TF }, { "torch", W_TORCH }, { "pytorch", W_TORCH },
                  { "jax", W_JAX },       { "jaxlib", W_JAX },  { "cuda", W_CUDA },
                  { "cudnn", W_CUDNN } };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (named(name, n, names[i].name))
            return names[i].what;
    return W_NONE;
}

static const char *const KNOWN = "tensorflow, torch (pytorch), jax, cuda, cudnn";

#define ERR (-1)

/* SPEC as NAME, NAME==VERSION or a GPU model (what W_NONE); ERR with `problem` set. */
static int parse_spec(const char *spec, enum what *what, struct gd_version *v, bool *has_version,
                      char *problem, size_t size)
{
    *has_version = false;
    *what = W_NONE;
    struct gd_span s = gd_span_trim(gd_span_of(spec ? spec : ""));
    if (s.n == 0) {
        say(problem, size, "what should be checked? Give NAME, NAME==VERSION or a GPU model");
        return ERR;
    }
    const char *eq = gd_span_find(s, "==");
    for (size_t i = 0; i < s.n; i++) {
        char c = s.p[i];
        bool op = c == '<' || c == '>' || c == '~' || c == '!' ||
                  (c == '=' && !(eq && (s.p + i == eq || s.p + i == eq + 1)));
        if (op) {
            say(problem, size,
                "'%.*s': only NAME==VERSION or a bare NAME is understood (no ranges)", (int)s.n,
                s.p);
            return ERR;
        }
    }
    if (!eq) {
        *what = name_of(s.p, s.n);
        return 0;
    }
    struct gd_span name = gd_span_trim((struct gd_span){ s.p, (size_t)(eq - s.p) });
    struct gd_span ver = gd_span_trim((struct gd_span){ eq + 2, (size_t)(s.p + s.n - eq - 2) });
    *what = name_of(name.p, name.n);
    if (*what == W_NONE) {
        say(problem, size, "unknown name '%.*s' (compat knows %s; a GPU is named without '==')",
            (int)name.n, name.p, KNOWN);
        return ERR;
    }
    if (ver.n == 0 || gd_version_parse_n(ver.p, ver.n, v) != GD_OK) {
        say(problem, size, "'%.*s' is not a version", (int)ver.n, ver.p);
        return ERR;
    }
    *has_version = true;
    return 0;
}

static enum gd_status finish(struct gd_advice *a, struct gd_advice **out)
{
    if (a->failed) {
        gd_advice_free(a);
        return GD_ENOMEM;
    }
    *out = a;
    return GD_OK;
}

enum gd_status gd_advise_compat(const struct gd_kb *kb, const struct gd_adv_machine *m,
                                const char *spec, struct gd_advice **out, char *problem,
                                size_t size)
{
    *out = NULL;
    enum what what;
    struct gd_version v;
    bool has_version;
    if (parse_spec(spec, &what, &v, &has_version, problem, size) == ERR)
        return GD_EINVAL;
    struct gd_advice *a = gd_adv_new(m, "compat", spec);
    if (!a)
        return GD_ENOMEM;
    const struct gd_version *ver = has_version ? &v : NULL;
    switch (what) {
    case W_TF:
        a->verdict = gd_adv_tensorflow(a, kb, ver);
        break;
    case W_TORCH:
        a->verdict = gd_adv_torch(a, kb, ver);
        break;
    case W_JAX:
        a->verdict = gd_adv_jax(a, kb, ver);
        break;
    case W_CUDA:
        a->verdict = gd_adv_cuda(a, kb, ver);
        break;
    case W_CUDNN:
        a->verdict = gd_adv_cudnn(a, kb, ver);
        break;
    case W_NONE: {
        char model[256];
        gd_span_copy(gd_span_trim(gd_span_of(spec)), model, sizeof model);
        a->verdict = gd_adv_gpu(a, kb, model);
        break;
    }
    }
    return finish(a, out);
}

enum gd_status gd_advise_plan(const struct gd_kb *kb, const struct gd_adv_machine *m,
                              const char *framework, struct gd_advice **out, char *problem,
                              size_t size)
{
    *out = NULL;
    struct gd_span s = gd_span_trim(gd_span_of(framework ? framework : ""));
    enum what what = name_of(s.p, s.n);
    if (what != W_TF && what != W_TORCH && what != W_JAX) {
        if (s.n == 0)
            say(problem, size, "which framework? Give tensorflow, torch or jax");
        else
            say(problem, size, "'%.*s' is not a framework plan knows (tensorflow, torch, jax)",
                (int)s.n, s.p);
        return GD_EINVAL;
    }
    struct gd_advice *a = gd_adv_new(m, "plan", framework);
    if (!a)
        return GD_ENOMEM;
    a->verdict = gd_adv_plan(a, kb,
                             what == W_TF      ? "tensorflow"
                             : what == W_TORCH ? "torch"
                                               : "jax");
    return finish(a, out);
}
