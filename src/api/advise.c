/* gd_compat / gd_plan: the machine of the options (probed, or described by them), then the
 * answer of src/advise. */
#include "advise/advise.h"
#include "api/options.h"
#include "core/alloc.h"
#include "core/attr.h"
#include "core/buf.h"
#include "core/env.h"
#include "core/report.h"
#include "core/str.h"
#include "kb/gpus.h"
#include "kb/kb.h"
#include "kb/pick.h"
#include "probe/probe.h"
#include "render/render.h"
#include "rules/rules.h"
#include "sysroot/sysroot.h"

#include <gpudoctor/advise.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- options --------------------------------------------------------------------------------- */

static enum gd_status set_str(char **slot, const char *value)
{
    char *copy = gd_strdup(value);
    if (!copy)
        return GD_ENOMEM;
    gd_free(*slot);
    *slot = copy;
    return GD_OK;
}

/* A driver version: digits and dots ("470.82", "535.104.05", Windows' "551.61"). */
static bool driver_like(const char *s)
{
    bool digit = false;
    for (const char *p = s; *p; p++) {
        if (gd_is_digit(*p))
            digit = true;
        else if (*p != '.' || !digit || !p[1])
            return false;
    }
    return digit;
}

enum gd_status gd_options_set_driver(struct gd_options *o, const char *version)
{
    struct gd_version v;
    if (!o || !version || !driver_like(version) || gd_version_parse(version, &v) != GD_OK)
        return GD_EINVAL;
    o->described = true;
    return set_str(&o->driver, version);
}

static enum gd_status add_gpu(struct gd_options *o, const char *prefix, const char *value)
{
    char item[320];
    if ((size_t)snprintf(item, sizeof item, "%s%s", prefix, value) >= sizeof item)
        return GD_EINVAL;
    if (o->gpus.count >= GD_ADV_GPUS_MAX)
        return GD_ELIMIT;
    o->described = true;
    return gd_strlist_push(&o->gpus, item);
}

enum gd_status gd_options_add_gpu(struct gd_options *o, const char *model)
{
    if (!o || !model || !*model)
        return GD_EINVAL;
    return add_gpu(o, "gpu:", model);
}

enum gd_status gd_options_add_cc(struct gd_options *o, const char *cc)
{
    if (!o || !cc)
        return GD_EINVAL;
    size_t a = strspn(cc, "0123456789");
    if (a == 0 || a > 3 || cc[a] != '.')
        return GD_EINVAL;
    size_t b = strspn(cc + a + 1, "0123456789");
    if (b == 0 || b > 3 || cc[a + 1 + b])
        return GD_EINVAL;
    return add_gpu(o, "cc:", cc);
}

enum gd_status gd_options_set_os(struct gd_options *o, const char *os)
{
    if (!o || !os || (strcmp(os, "linux") != 0 && strcmp(os, "windows") != 0))
        return GD_EINVAL;
    o->described = true;
    return set_str(&o->os, os);
}

/* ---- the machine ---------------------------------------------------------------------------- */

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

/* What the probes hold while the answer is built (strings of the machine point into them). */
struct probed {
    struct gd_root *root;
    struct gd_env *env;
    struct gd_report *report;
    char where[4200];
    char gpu_refs[GD_ADV_GPUS_MAX][320];
};

static void probed_free(struct probed *p)
{
    gd_report_free(p->report);
    gd_env_free(p->env);
    gd_root_free(p->root);
}

/* The machine described by the options. */
static enum gd_status described(const struct gd_options *o, const struct gd_kb *kb,
                                struct gd_adv_machine *m, struct probed *p, char *problem,
                                size_t size)
{
    m->given = true;
    m->where = "the described machine";
    m->gpus_known = true;
    if (o->driver) {
        m->has_driver = gd_version_parse(o->driver, &m->driver) == GD_OK;
        m->driver_kind = "option";
        m->driver_ref = "--driver";
    }
    m->os = o->os && strcmp(o->os, "windows") == 0 ? GD_KB_OS_WINDOWS : GD_KB_OS_LINUX;
    m->os_name =
        o->os ? (m->os == GD_KB_OS_WINDOWS ? "Windows" : "Linux") : "Linux (no --os given)";
    m->os_kind = o->os ? "option" : NULL;
    m->os_ref = o->os ? "--os" : NULL;
    const struct gd_kb_table *t = gd_kb_table(kb, "gpus");
    for (size_t i = 0; i < o->gpus.count && i < GD_ADV_GPUS_MAX; i++) {
        const char *item = o->gpus.items[i];
        struct gd_adv_gpu *g = &m->gpus[m->ngpus++];
        memset(g, 0, sizeof *g);
        g->count = 1;
        if (strncmp(item, "cc:", 3) == 0) {
            g->has_cc = gd_version_parse(item + 3, &g->cc) == GD_OK;
            g->cc_kind = "option";
            g->cc_ref = "--cc";
            continue;
        }
        g->name = item + 4;
        enum gd_gpu_match how = GD_GPU_MATCH_NONE;
        const struct gd_kb_row *row = t ? gd_kb_gpu_find(t, g->name, &how) : NULL;
        const char *cc = row ? gd_kb_str(row, "cc") : NULL;
        if (cc && gd_version_parse(cc, &g->cc) == GD_OK) {
            g->has_cc = true;
            g->cc_kind = "kb";
            snprintf(p->gpu_refs[i], sizeof p->gpu_refs[i], "gpus: %s (%s)",
                     gd_kb_str(row, "name") ? gd_kb_str(row, "name") : "?",
                     gd_kb_row_source(row) ? gd_kb_row_source(row) : "?");
            g->cc_ref = p->gpu_refs[i];
        } else {
            g->cc_kind = "option";
            g->cc_ref = "--gpu";
            g->why = how == GD_GPU_MATCH_AMBIGUOUS
                         ? "the model matches GPUs of different compute capability in the gpus "
                           "table"
                         : "the model is not in the gpus table";
        }
    }
    (void)problem;
    (void)size;
    return GD_OK;
}

/* This machine, or the tree at --root: its driver, GPUs and operating system from the probes. */
static enum gd_status probe(const struct gd_options *o, const struct gd_kb *kb,
                            struct gd_adv_machine *m, struct probed *p)
{
    enum gd_status st = gd_root_new(o && o->root ? o->root : "/", &p->root);
    if (st != GD_OK)
        return st;
    if (!(p->env = gd_env_new()) || !(p->report = gd_report_new()))
        return GD_ENOMEM;
    struct gd_probe_ctx ctx = { .root = p->root, .env = p->env, .report = p->report, .kb = kb };
    gd_probe_host(&ctx);
    if (ctx.windows) {
        gd_probe_win_driver(&ctx);
    } else {
        gd_probe_kernel_module(&ctx);
        gd_probe_gpus(&ctx);
        gd_probe_driver_libs(&ctx);
        gd_probe_wsl(&ctx);
    }
    if (gd_report_failed(p->report) || gd_root_out_of_memory(p->root))
        return GD_ENOMEM;
    const struct gd_report *r = p->report;
    bool live = gd_root_is_live(p->root);
    m->where = live ? "this machine" : "the --root tree";
    if (!live) {
        snprintf(p->where, sizeof p->where, "%s", gd_root_dir(p->root));
        m->root = p->where;
    }
    struct gd_kb_env env;
    const struct gd_fact *driver = NULL;
    gd_rules_kb_env(r, &env, &driver);
    m->has_driver = env.has_driver;
    m->driver = env.driver;
    m->os = env.os;
    if (driver) {
        m->driver_kind = gd_source_kind_name(gd_fact_source_kind(driver));
        m->driver_ref = gd_fact_source_ref(driver);
    } else {
        /* Why there is no version: the kernel module's fact on Linux, nvcuda.dll's on Windows. */
        const struct gd_fact *km = gd_report_fact(r, "driver", "kernel_module.version");
        if (!km)
            km = gd_report_fact(r, "driver", "nvcuda.version");
        if (!km)
            km = gd_report_fact(r, "driver", "nvcuda.path");
        m->no_driver = km && gd_fact_reason(km)     ? gd_fact_reason(km)
                       : env.os == GD_KB_OS_WINDOWS ? "no nvcuda.dll with a version"
                                                    : "no NVIDIA kernel module and no libcuda.so.1 "
                                                      "with a version";
        m->driver_kind = km ? gd_source_kind_name(gd_fact_source_kind(km)) : NULL;
        m->driver_ref = km ? gd_fact_source_ref(km) : NULL;
    }
    const struct gd_fact *os = gd_report_fact(r, "host", "os.pretty_name");
    m->os_name = gd_fact_known_value(os)      ? gd_fact_known_value(os)
                 : env.os == GD_KB_OS_WINDOWS ? "Windows"
                                              : "Linux";
    m->os_kind = os ? gd_source_kind_name(gd_fact_source_kind(os)) : NULL;
    m->os_ref = os ? gd_fact_source_ref(os) : NULL;
    const struct gd_fact *count = gd_report_fact(r, "gpus", "count");
    m->gpus_known = count && gd_fact_state(count) == GD_FACT_KNOWN;
    for (size_t i = 0; i < gd_report_entity_count(r) && m->ngpus < GD_ADV_GPUS_MAX; i++) {
        const struct gd_entity *e = gd_report_entity_at(r, i);
        if (strcmp(gd_entity_kind(e), "gpu") != 0)
            continue;
        const char *model = gd_fact_known_value(gd_entity_fact(e, "model"));
        const struct gd_fact *cc = gd_entity_fact(e, "compute_capability");
        /* GPUs of one model are one question. */
        struct gd_adv_gpu *same = NULL;
        for (size_t k = 0; k < m->ngpus && !same; k++) {
            const struct gd_adv_gpu *prev = &m->gpus[k];
            bool names =
                (!prev->name && !model) || (prev->name && model && strcmp(prev->name, model) == 0);
            const char *occ = prev->has_cc ? prev->cc.text : NULL, *ncc = gd_fact_known_value(cc);
            bool ccs = (!occ && !ncc) || (occ && ncc && strcmp(occ, ncc) == 0);
            if (names && ccs)
                same = &m->gpus[k];
        }
        if (same) {
            same->count++;
            continue;
        }
        struct gd_adv_gpu *g = &m->gpus[m->ngpus++];
        memset(g, 0, sizeof *g);
        g->count = 1;
        g->name = model;
        g->has_cc =
            gd_fact_known_value(cc) && gd_version_parse(gd_fact_known_value(cc), &g->cc) == GD_OK;
        g->why = cc ? gd_fact_reason(cc) : "not recorded";
        g->cc_kind = cc ? gd_source_kind_name(gd_fact_source_kind(cc)) : NULL;
        g->cc_ref = cc ? gd_fact_source_ref(cc) : NULL;
    }
    return GD_OK;
}

typedef enum gd_status (*answer_fn)(const struct gd_kb *kb, const struct gd_adv_machine *m,
                                    const char *arg, struct gd_advice **out, char *problem,
                                    size_t size);

static enum gd_status answer(const struct gd_options *o, const char *arg, answer_fn fn,
                             struct gd_advice **out, char *problem, size_t size)
{
    *out = NULL;
    if (problem && size)
        problem[0] = '\0';
    struct gd_kb *kb = NULL;
    struct probed p;
    memset(&p, 0, sizeof p);
    struct gd_adv_machine m;
    memset(&m, 0, sizeof m);
    enum gd_status st = gd_kb_open(o ? o->kb_dir : NULL, &kb);
    if (st == GD_OK)
        st = o && o->described ? described(o, kb, &m, &p, problem, size) : probe(o, kb, &m, &p);
    if (st == GD_OK)
        st = fn(kb, &m, arg, out, problem, size);
    probed_free(&p);
    gd_kb_free(kb);
    if (st != GD_OK && st != GD_EINVAL && problem && size && !problem[0])
        say(problem, size, "%s", gd_status_str(st));
    return st;
}

enum gd_status gd_compat(const struct gd_options *o, const char *spec, struct gd_advice **out,
                         char *problem, size_t size)
{
    if (!out)
        return GD_EINVAL;
    return answer(o, spec, gd_advise_compat, out, problem, size);
}

enum gd_status gd_plan(const struct gd_options *o, const char *framework, struct gd_advice **out,
                       char *problem, size_t size)
{
    if (!out)
        return GD_EINVAL;
    return answer(o, framework, gd_advise_plan, out, problem, size);
}

enum gd_answer gd_advice_verdict(const struct gd_advice *a)
{
    if (!a)
        return GD_ANSWER_UNKNOWN;
    return a->verdict == GD_KB_YES  ? GD_ANSWER_YES
           : a->verdict == GD_KB_NO ? GD_ANSWER_NO
                                    : GD_ANSWER_UNKNOWN;
}

/* An answer renders to a few tens of KiB. */
#define ADVICE_MAX (16 * 1024 * 1024)

enum gd_status gd_advice_render(const struct gd_advice *a, bool json,
                                const struct gd_render_options *options, char **out, size_t *len)
{
    *out = NULL;
    if (len)
        *len = 0;
    if (!a)
        return GD_EINVAL;
    struct gd_render_options defaults = { false, false };
    struct gd_buf b;
    gd_buf_init(&b, ADVICE_MAX);
    if (json)
        gd_render_advice_json(a, &b);
    else
        gd_render_advice_text(a, options ? options : &defaults, &b);
    return gd_buf_take(&b, out, len);
}
