/* gpudoctor compat: what a TensorFlow or PyTorch release, JAX's CUDA plugins, a CUDA or cuDNN
 * version or a GPU model needs, from the tables, and whether the machine meets it. */
#include "advise/advise.h"

#include "core/arena.h"
#include "core/buf.h"
#include "kb/gpus.h"
#include "kb/kb.h"
#include "kb/pick.h"

#include <stdio.h>
#include <string.h>

#define CHOICES_MAX 192

static const char *os_word(const struct gd_advice *a)
{
    return a->machine.os == GD_KB_OS_WINDOWS ? "Windows" : "Linux";
}

/* The combined verdict of `n` sections from `first` on: any of them runs. */
static enum gd_kb_answer any_section(const struct gd_advice *a, size_t first)
{
    enum gd_kb_answer v = GD_KB_NO;
    bool seen = false;
    for (size_t i = first; i < a->nsections; i++)
        if (a->sections[i].judged) {
            v = gd_adv_any(v, a->sections[i].verdict);
            seen = true;
        }
    return seen ? v : GD_KB_UNKNOWN;
}

/* ---- TensorFlow --------------------------------------------------------------------------------
 */

static enum gd_kb_answer tf_release(struct gd_advice *a, const struct gd_kb *kb,
                                    const struct gd_version *v)
{
    struct gd_kb_tf_build b;
    struct gd_version last;
    const struct gd_kb_row *fact = NULL;
    if (gd_kb_tf_build(kb, v, a->machine.os, &b) != GD_OK) {
        struct gd_adv_section *s = gd_adv_section(a, "TensorFlow %s", v->text);
        if (a->machine.os == GD_KB_OS_WINDOWS &&
            gd_kb_tf_last_native_windows_gpu(kb, &last, &fact) == GD_OK &&
            gd_version_cmp_parts(v, &last, 2) > 0) {
            struct gd_adv_line *l =
                gd_adv_line(a, s, GD_ADV_CHECK, GD_KB_NO,
                            "Native Windows: TensorFlow after %s has no GPU support there (WSL2 "
                            "has).",
                            last.text);
            gd_adv_cite(a, l, kb, fact);
            gd_adv_cite_fact(a, l, a->machine.os_kind, a->machine.os_ref);
            gd_adv_judge(s);
            gd_adv_summary(a, "TensorFlow %s has no GPU support on native Windows.", v->text);
            return GD_KB_NO;
        }
        gd_adv_line(a, s, GD_ADV_NOTE, GD_KB_UNKNOWN,
                    "The knowledge base has no tested build of TensorFlow %s for %s (gpudoctor "
                    "compat tensorflow lists the ones it has).",
                    v->text, os_word(a));
        gd_adv_summary(a, "Not known: TensorFlow %s is not in the knowledge base.", v->text);
        return GD_KB_UNKNOWN;
    }
    struct gd_adv_section *s = gd_adv_section(a, "TensorFlow %s (tested build configuration, %s)",
                                              b.tensorflow.text, os_word(a));
    struct gd_adv_line *l =
        gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN,
                    "Built and tested with CUDA %s and cuDNN %s, for Python %s.", b.cuda.text,
                    b.cudnn.text, b.python ? b.python : "(not stated)");
    gd_adv_cite(a, l, kb, b.row);
    struct gd_kb_cuda_driver need;
    gd_kb_cuda_min_driver(kb, &b.cuda, a->machine.os, &need);
    l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN, "CUDA %s needs NVIDIA driver %s.",
                    b.cuda.text, gd_adv_need_text(a, &need, &b.cuda));
    gd_adv_cite(a, l, kb, need.toolkit_row);
    gd_adv_cite(a, l, kb, need.compat_row);
    struct gd_kb_cudnn_req req;
    gd_kb_cudnn_requirements(kb, &b.cudnn, &b.cuda, NULL, a->machine.os, &req);
    if (req.has_driver) {
        l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN,
                        "cuDNN %s for CUDA %s needs NVIDIA driver %s or newer on %s.", b.cudnn.text,
                        b.cuda.text, req.driver_min.text, os_word(a));
        gd_adv_cite(a, l, kb, req.row);
    } else {
        gd_adv_line(a, s, GD_ADV_NOTE, GD_KB_UNKNOWN,
                    "The cuDNN support matrices the knowledge base holds do not give cuDNN %s's "
                    "driver minimum for CUDA %s on %s.",
                    b.cudnn.text, b.cuda.text, os_word(a));
    }
    struct gd_kb_choice c;
    memset(&c, 0, sizeof c);
    c.release = *v;
    c.minor_only = v->nparts < 3;
    c.cuda = b.cuda;
    c.row = b.row;
    gd_adv_install(a, s, kb, "tensorflow", &c);
    gd_adv_check_driver(a, s, kb, &b.cuda);
    if (req.has_driver && a->machine.has_driver) {
        enum gd_kb_answer ok = gd_kb_driver_meets(&a->machine.driver, &req.driver_min);
        l = gd_adv_line(a, s, GD_ADV_CHECK, ok, "Driver %s %s cuDNN %s's minimum %s.",
                        a->machine.driver.text,
                        ok == GD_KB_YES  ? "meets"
                        : ok == GD_KB_NO ? "is below"
                                         : "cannot be compared with",
                        b.cudnn.text, req.driver_min.text);
        gd_adv_cite(a, l, kb, req.row);
        gd_adv_cite_fact(a, l, a->machine.driver_kind, a->machine.driver_ref);
    }
    char what[160];
    snprintf(what, sizeof what, "TensorFlow %s", b.tensorflow.text);
    gd_adv_check_gpus(a, s, kb, &b.cuda, what);
    gd_adv_judge(s);
    snprintf(what, sizeof what, "run TensorFlow %s on its GPU", b.tensorflow.text);
    gd_adv_conclude(a, s ? s->verdict : GD_KB_UNKNOWN, what);
    return s ? s->verdict : GD_KB_UNKNOWN;
}

/* Every build of a list, one line each. */
static enum gd_kb_answer choice_lines(struct gd_advice *a, struct gd_adv_section *s,
                                      const struct gd_kb *kb, const char *name,
                                      const struct gd_kb_choice *list, size_t n)
{
    enum gd_kb_answer any = GD_KB_NO;
    for (size_t i = 0; i < n; i++) {
        const struct gd_kb_choice *c = &list[i];
        enum gd_kb_answer runs = gd_kb_choice_runs(c, true);
        char cudnn[GD_VERSION_TEXT_MAX + 16] = "";
        if (c->has_cudnn)
            snprintf(cudnn, sizeof cudnn, ", cuDNN %s", c->cudnn.text);
        struct gd_adv_line *l = gd_adv_line(a, s, GD_ADV_CHECK, runs, "%s %s%s%s (CUDA %s%s): %s.",
                                            name, c->release.text, c->tag[0] ? " " : "", c->tag,
                                            c->cuda.text, cudnn, gd_adv_choice_reason(a, c));
        gd_adv_cite_choice(a, l, kb, c);
        any = gd_adv_any(any, runs);
    }
    if (s)
        s->judged = true, s->verdict = n ? any : GD_KB_UNKNOWN;
    return n ? any : GD_KB_UNKNOWN;
}

enum gd_kb_answer gd_adv_tensorflow(struct gd_advice *a, const struct gd_kb *kb,
                                    const struct gd_version *version)
{
    if (version)
        return tf_release(a, kb, version);
    static struct gd_kb_choice list[CHOICES_MAX];
    struct gd_kb_env env;
    gd_adv_env(&a->machine, &env);
    size_t n = gd_kb_tf_choices(kb, &env, list, CHOICES_MAX);
    if (n > CHOICES_MAX)
        n = CHOICES_MAX;
    struct gd_adv_section *s =
        gd_adv_section(a, "TensorFlow: every tested build for %s", os_word(a));
    enum gd_kb_answer v = choice_lines(a, s, kb, "TensorFlow", list, n);
    gd_adv_conclude(a, v, "run a TensorFlow build the knowledge base knows on its GPU");
    return v;
}

/* ---- PyTorch -----------------------------------------------------------------------------------
 */

enum gd_kb_answer gd_adv_torch(struct gd_advice *a, const struct gd_kb *kb,
                               const struct gd_version *version)
{
    static struct gd_kb_choice list[CHOICES_MAX];
    struct gd_kb_env env;
    gd_adv_env(&a->machine, &env);
    if (!version) {
        size_t n = gd_kb_torch_choices(kb, &env, list, CHOICES_MAX);
        if (n > CHOICES_MAX)
            n = CHOICES_MAX;
        struct gd_adv_section *s = gd_adv_section(a, "PyTorch: the CUDA wheels of every release");
        enum gd_kb_answer v = choice_lines(a, s, kb, "torch", list, n);
        gd_adv_conclude(a, v, "run a CUDA wheel of PyTorch the knowledge base knows");
        return v;
    }
    size_t n = gd_kb_torch_release_choices(kb, &env, version, list, CHOICES_MAX);
    if (n > CHOICES_MAX)
        n = CHOICES_MAX;
    /* "2.1.0+cu121": that variant only. */
    if (version->local[0]) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (strcmp(list[i].tag, version->local) == 0)
                list[k++] = list[i];
        n = k;
    }
    if (n == 0) {
        struct gd_adv_section *s = gd_adv_section(a, "PyTorch %s", version->text);
        gd_adv_line(a, s, GD_ADV_NOTE, GD_KB_UNKNOWN,
                    "The knowledge base has no CUDA wheel of torch %s (gpudoctor compat torch "
                    "lists the ones it has).",
                    version->text);
        gd_adv_summary(a, "Not known: torch %s is not in the knowledge base.", version->text);
        return GD_KB_UNKNOWN;
    }
    size_t first = a->nsections;
    const struct gd_kb_row *matrix = gd_kb_torch_matrix(kb, &list[0].release);
    for (size_t i = 0; i < n; i++) {
        const struct gd_kb_choice *c = &list[i];
        struct gd_adv_section *s =
            gd_adv_section(a, "PyTorch %s, %s wheel", c->release.text, c->tag);
        struct gd_adv_line *l;
        if (c->has_cudnn) {
            l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN,
                            "Built with CUDA %s; bundles cuDNN %s (the release matrix's).",
                            c->cuda.text, c->cudnn.text);
            gd_adv_cite(a, l, kb, matrix);
        } else {
            l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN,
                            "Built with CUDA %s; the cuDNN it bundles is not in the knowledge "
                            "base.",
                            c->cuda.text);
        }
        gd_adv_cite(a, l, kb, c->row);
        if (i == 0 && matrix && gd_kb_str(matrix, "python")) {
            l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN, "Python %s.",
                            gd_kb_str(matrix, "python"));
            gd_adv_cite(a, l, kb, matrix);
        }
        l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN, "CUDA %s needs NVIDIA driver %s.",
                        c->cuda.text, gd_adv_need_text(a, &c->need, &c->cuda));
        gd_adv_cite(a, l, kb, c->need.toolkit_row);
        gd_adv_cite(a, l, kb, c->need.compat_row);
        gd_adv_install(a, s, kb, "torch", c);
        gd_adv_check_driver(a, s, kb, &c->cuda);
        char what[160];
        snprintf(what, sizeof what, "torch %s %s", c->release.text, c->tag);
        gd_adv_check_gpus(a, s, kb, &c->cuda, what);
        gd_adv_judge(s);
    }
    enum gd_kb_answer v = any_section(a, first);
    char what[160];
    snprintf(what, sizeof what, "run a CUDA wheel of torch %s", version->text);
    gd_adv_conclude(a, v, what);
    return v;
}

/* ---- JAX
 * ----------------------------------------------------------------------------------------- */

enum gd_kb_answer gd_adv_jax(struct gd_advice *a, const struct gd_kb *kb,
                             const struct gd_version *version)
{
    size_t first = a->nsections;
    for (unsigned long major = 20; major >= 11; major--) {
        struct gd_kb_jax_plugin p;
        if (gd_kb_jax_plugin(kb, major, &p) != GD_OK)
            continue;
        struct gd_adv_section *s = gd_adv_section(a, "JAX with %s", p.plugin);
        struct gd_adv_line *l = gd_adv_line(
            a, s, GD_ADV_FACT, GD_KB_UNKNOWN,
            "CUDA %s or a later %lu.x, cuDNN %s or later below %s; NVIDIA driver %s or newer on "
            "Linux; compute capability %s or newer.",
            p.cuda_min.text, major, p.cudnn_min.text, p.cudnn_below.text, p.driver_min.text,
            p.cc_min.text);
        gd_adv_cite(a, l, kb, p.row);
        const char *extra = gd_kb_str(p.row, "extra");
        if (extra) {
            char cmd[128];
            snprintf(cmd, sizeof cmd, "pip install -U 'jax[%s]'", extra);
            l = gd_adv_line(a, s, GD_ADV_INSTALL, GD_KB_UNKNOWN, "Install:");
            gd_adv_command(a, l, cmd);
            gd_adv_cite(a, l, kb, p.row);
        }
        const struct gd_adv_machine *m = &a->machine;
        if (m->os == GD_KB_OS_WINDOWS) {
            gd_adv_line(a, s, GD_ADV_CHECK, GD_KB_UNKNOWN,
                        "Native Windows: the knowledge base gives JAX's CUDA plugin requirements "
                        "for Linux only.");
        } else if (!m->has_driver) {
            l = gd_adv_line(a, s, GD_ADV_CHECK, m->given ? GD_KB_UNKNOWN : GD_KB_NO,
                            m->given ? "Driver: not given (--driver)." : "Driver: none (%s).",
                            m->no_driver ? m->no_driver : "not found");
            gd_adv_cite_fact(a, l, m->driver_kind, m->driver_ref);
        } else {
            enum gd_kb_answer ok = gd_kb_driver_meets(&m->driver, &p.driver_min);
            l = gd_adv_line(a, s, GD_ADV_CHECK, ok, "Driver %s %s %s.", m->driver.text,
                            ok == GD_KB_YES  ? "meets the minimum"
                            : ok == GD_KB_NO ? "is below the minimum"
                                             : "cannot be compared with the minimum",
                            p.driver_min.text);
            gd_adv_cite(a, l, kb, p.row);
            gd_adv_cite_fact(a, l, m->driver_kind, m->driver_ref);
        }
        if (m->ngpus == 0)
            gd_adv_line(a, s, GD_ADV_CHECK, !m->given && m->gpus_known ? GD_KB_NO : GD_KB_UNKNOWN,
                        "GPU: %s.",
                        !m->given && m->gpus_known ? "none on this machine" : "none known");
        for (size_t i = 0; i < m->ngpus; i++) {
            const struct gd_adv_gpu *g = &m->gpus[i];
            enum gd_kb_answer ok = !g->has_cc                                        ? GD_KB_UNKNOWN
                                   : gd_version_cmp_parts(&g->cc, &p.cc_min, 2) >= 0 ? GD_KB_YES
                                                                                     : GD_KB_NO;
            l = gd_adv_line(a, s, GD_ADV_CHECK, ok, "GPU %s%s%s%s: %s.", g->name ? g->name : "",
                            g->name && g->has_cc ? ", " : "",
                            g->has_cc ? "compute capability " : "", g->has_cc ? g->cc.text : "",
                            ok == GD_KB_YES  ? "at or above the minimum"
                            : ok == GD_KB_NO ? "below the minimum"
                                             : "compute capability not known");
            gd_adv_cite(a, l, kb, p.row);
            gd_adv_cite_fact(a, l, g->cc_kind, g->cc_ref);
        }
        gd_adv_judge(s);
    }
    if (a->nsections == first) {
        struct gd_adv_section *s = gd_adv_section(a, "JAX");
        gd_adv_line(a, s, GD_ADV_NOTE, GD_KB_UNKNOWN,
                    "The knowledge base holds no current JAX CUDA plugin.");
        gd_adv_summary(a, "Not known: no JAX CUDA plugin in the knowledge base.");
        return GD_KB_UNKNOWN;
    }
    enum gd_kb_answer v = any_section(a, first);
    if (version) {
        struct gd_adv_section *s = gd_adv_section(a, "JAX %s", version->text);
        gd_adv_line(a, s, GD_ADV_NOTE, GD_KB_UNKNOWN,
                    "The knowledge base's JAX requirements are those of JAX's current "
                    "installation page, not of each release: those of jax %s itself are not in "
                    "it.",
                    version->text);
        if (v == GD_KB_YES)
            v = GD_KB_UNKNOWN;
    }
    gd_adv_conclude(a, v,
                    version ? "run JAX's current CUDA plugins (jax's own release is not judged)"
                            : "run one of JAX's current CUDA plugins");
    return v;
}

/* ---- CUDA --------------------------------------------------------------------------------------
 */

/* "5.0, 5.2, ..." of the compute capabilities CUDA `cuda` can (want YES) or cannot compile
 * for, each deciding row cited on `l`. */
static void cc_list(struct gd_advice *a, const struct gd_kb *kb, const struct gd_version *cuda,
                    enum gd_kb_answer want, struct gd_buf *out, struct gd_adv_line *l)
{
    struct gd_version ccs[64];
    size_t n = gd_kb_arch_ccs(kb, ccs, 64);
    for (size_t i = 0; i < n && i < 64; i++) {
        const struct gd_kb_row *why = NULL;
        if (gd_kb_cuda_supports_cc(kb, cuda, &ccs[i], &why) != want)
            continue;
        gd_buf_printf(out, "%s%s", out->len ? ", " : "", ccs[i].text);
        gd_adv_cite(a, l, kb, why);
    }
}

static enum gd_kb_answer cuda_version(struct gd_advice *a, const struct gd_kb *kb,
                                      const struct gd_version *v)
{
    struct gd_kb_cuda_driver lin, win;
    enum gd_status sl = gd_kb_cuda_min_driver(kb, v, GD_KB_OS_LINUX, &lin);
    enum gd_status sw = gd_kb_cuda_min_driver(kb, v, GD_KB_OS_WINDOWS, &win);
    struct gd_adv_section *s = gd_adv_section(a, "CUDA %s", v->text);
    /* A version without a row of its own is not known to exist, whatever its family. */
    if ((sl != GD_OK || !lin.has_toolkit) && (sw != GD_OK || !win.has_toolkit)) {
        gd_adv_line(a, s, GD_ADV_NOTE, GD_KB_UNKNOWN,
                    "CUDA %s is not in the cuda_toolkit table (gpudoctor compat cuda lists the "
                    "versions it has).",
                    v->text);
        gd_adv_summary(a, "Not known: CUDA %s is not in the knowledge base.", v->text);
        return GD_KB_UNKNOWN;
    }
    struct gd_adv_line *l;
    if (lin.has_toolkit) {
        const char *label = gd_kb_str(lin.toolkit_row, "label");
        l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN,
                        "Its own driver (%s): %s or newer on Linux x86_64.",
                        label ? label : v->text, lin.toolkit_min.text);
        gd_adv_cite(a, l, kb, lin.toolkit_row);
    }
    if (win.has_toolkit) {
        const char *label = gd_kb_str(win.toolkit_row, "label");
        l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN,
                        "Its own driver (%s): %s or newer on Windows x86_64.",
                        label ? label : v->text, win.toolkit_min.text);
        gd_adv_cite(a, l, kb, win.toolkit_row);
    } else if (lin.has_toolkit) {
        gd_adv_line(a, s, GD_ADV_NOTE, GD_KB_UNKNOWN,
                    "No Windows x86_64 minimum for CUDA %s in the knowledge base.", v->text);
    }
    if (lin.has_compat) {
        l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN,
                        "Minor version compatibility: any CUDA %lu.x runs, with a limited feature "
                        "set, on driver %s or newer on Linux%s%s.",
                        gd_version_major(v), lin.compat_min.text, win.has_compat ? ", " : "",
                        win.has_compat ? win.compat_min.text : "");
        gd_adv_cite(a, l, kb, lin.compat_row);
    }
    struct gd_buf yes, no, unknown;
    gd_buf_init(&yes, 4096);
    gd_buf_init(&no, 4096);
    gd_buf_init(&unknown, 4096);
    l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN, "-");
    cc_list(a, kb, v, GD_KB_YES, &yes, l);
    struct gd_adv_line *lno = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN, "-");
    cc_list(a, kb, v, GD_KB_NO, &no, lno);
    cc_list(a, kb, v, GD_KB_UNKNOWN, &unknown, NULL);
    if (gd_buf_status(&yes) != GD_OK || gd_buf_status(&no) != GD_OK ||
        gd_buf_status(&unknown) != GD_OK)
        a->failed = true;
    if (l)
        l->text = gd_arena_printf(a->arena, "Compiles for compute capabilities %s.",
                                  yes.len ? gd_buf_str(&yes) : "(none the tables name)");
    if (lno)
        lno->text = gd_arena_printf(a->arena, "Does not compile for %s%s%s.",
                                    no.len ? gd_buf_str(&no) : "(none the tables name)",
                                    unknown.len ? "; the tables do not say for " : "",
                                    unknown.len ? gd_buf_str(&unknown) : "");
    if ((l && !l->text) || (lno && !lno->text))
        a->failed = true;
    gd_buf_free(&yes);
    gd_buf_free(&no);
    gd_buf_free(&unknown);
    gd_adv_check_driver(a, s, kb, v);
    gd_adv_check_gpus(a, s, kb, v, NULL);
    gd_adv_judge(s);
    char what[160];
    snprintf(what, sizeof what, "run CUDA %s", v->text);
    gd_adv_conclude(a, s ? s->verdict : GD_KB_UNKNOWN, what);
    return s ? s->verdict : GD_KB_UNKNOWN;
}

enum gd_kb_answer gd_adv_cuda(struct gd_advice *a, const struct gd_kb *kb,
                              const struct gd_version *version)
{
    if (version)
        return cuda_version(a, kb, version);
    struct gd_version all[128];
    size_t n = gd_kb_cuda_versions(kb, all, 128);
    if (n > 128)
        n = 128;
    struct gd_kb_env env;
    gd_adv_env(&a->machine, &env);
    struct gd_adv_section *s = gd_adv_section(a, "CUDA: every version of the cuda_toolkit table");
    enum gd_kb_answer any = GD_KB_NO;
    for (size_t i = 0; i < n; i++) {
        /* A choice without a framework: the driver and the GPUs against one CUDA version. */
        struct gd_kb_choice c;
        memset(&c, 0, sizeof c);
        c.release = all[i];
        c.cuda = all[i];
        if (env.has_driver)
            c.fit = gd_kb_driver_runs_cuda(kb, &env.driver, &c.cuda, env.os, &c.need);
        else
            gd_kb_cuda_min_driver(kb, &c.cuda, env.os, &c.need);
        c.cc_judged = env.ncc > 0;
        c.cc = c.cc_judged ? GD_KB_YES : GD_KB_UNKNOWN;
        for (size_t k = 0; k < env.ncc; k++) {
            const struct gd_kb_row *why = NULL;
            enum gd_kb_answer ok = gd_kb_cuda_supports_cc(kb, &c.cuda, &env.cc[k], &why);
            if (ok == GD_KB_NO || (ok == GD_KB_UNKNOWN && c.cc == GD_KB_YES)) {
                c.cc = ok;
                c.cc_bad = env.cc[k];
                c.cc_row = why;
            }
            if (ok == GD_KB_NO)
                break;
        }
        enum gd_kb_answer runs = gd_kb_choice_runs(&c, true);
        struct gd_adv_line *l = gd_adv_line(a, s, GD_ADV_CHECK, runs, "CUDA %s: %s.", all[i].text,
                                            gd_adv_choice_reason(a, &c));
        gd_adv_cite(a, l, kb, c.need.toolkit_row);
        gd_adv_cite_choice(a, l, kb, &c);
        any = gd_adv_any(any, runs);
    }
    if (s)
        s->judged = true, s->verdict = n ? any : GD_KB_UNKNOWN;
    gd_adv_conclude(a, n ? any : GD_KB_UNKNOWN, "run a CUDA version the knowledge base knows");
    return n ? any : GD_KB_UNKNOWN;
}

/* ---- cuDNN -------------------------------------------------------------------------------------
 */

static void versions_text(struct gd_buf *b, const struct gd_version *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        gd_buf_printf(b, "%s%s", i ? ", " : "", v[i].text);
}

/* Whether a package lists (or is at least the minimum of) a GPU's compute capability. */
static enum gd_kb_answer gpu_ok(const struct gd_kb_cudnn_build *b, const struct gd_adv_gpu *g)
{
    if (!g->has_cc)
        return GD_KB_UNKNOWN;
    if (b->ncc) {
        for (size_t k = 0; k < b->ncc; k++)
            if (gd_version_cmp_parts(&g->cc, &b->cc[k], 2) == 0)
                return GD_KB_YES;
        return GD_KB_NO;
    }
    if (b->has_cc_min)
        return gd_version_cmp_parts(&g->cc, &b->cc_min, 2) >= 0 ? GD_KB_YES : GD_KB_NO;
    return GD_KB_UNKNOWN;
}

/* One package: what it needs and whether the machine meets it. */
static enum gd_kb_answer cudnn_build(struct gd_advice *a, const struct gd_kb *kb,
                                     const struct gd_kb_cudnn_build *b, bool one_line,
                                     struct gd_adv_section *list)
{
    const struct gd_adv_machine *m = &a->machine;
    bool win = m->os == GD_KB_OS_WINDOWS;
    bool has_min = win ? b->has_driver_windows : b->has_driver_linux;
    const struct gd_version *min = win ? &b->driver_windows : &b->driver_linux;
    enum gd_kb_answer driver = !m->has_driver ? (m->given ? GD_KB_UNKNOWN : GD_KB_NO)
                               : has_min      ? gd_kb_driver_meets(&m->driver, min)
                                              : GD_KB_UNKNOWN;
    enum gd_kb_answer gpus = GD_KB_YES;
    if (m->ngpus == 0)
        gpus = !m->given && m->gpus_known ? GD_KB_NO : GD_KB_UNKNOWN;
    for (size_t i = 0; i < m->ngpus; i++)
        gpus = gd_adv_all(gpus, gpu_ok(b, &m->gpus[i]));
    char release[2 * GD_VERSION_TEXT_MAX + 8];
    if (gd_version_cmp(&b->cudnn, &b->cudnn_last) != 0)
        snprintf(release, sizeof release, "%s to %s", b->cudnn.text, b->cudnn_last.text);
    else
        snprintf(release, sizeof release, "%s", b->cudnn.text);
    struct gd_buf cudas, ccs;
    gd_buf_init(&cudas, 4096);
    gd_buf_init(&ccs, 4096);
    versions_text(&cudas, b->cuda, b->ncuda);
    if (b->ncc)
        versions_text(&ccs, b->cc, b->ncc);
    else if (b->has_cc_min)
        gd_buf_printf(&ccs, "%s and later", b->cc_min.text);
    if (gd_buf_status(&cudas) != GD_OK || gd_buf_status(&ccs) != GD_OK)
        a->failed = true;
    enum gd_kb_answer v = gd_adv_all(driver, gpus);
    char minimum[GD_VERSION_TEXT_MAX + 64];
    if (has_min)
        snprintf(minimum, sizeof minimum, "driver %s or newer on %s", min->text,
                 win ? "Windows" : "Linux");
    else
        snprintf(minimum, sizeof minimum, "no %s driver minimum in the knowledge base",
                 win ? "Windows" : "Linux");
    if (one_line) {
        struct gd_adv_line *l = gd_adv_line(
            a, list, GD_ADV_CHECK, v, "cuDNN %s for CUDA %s%s: %s; compute capabilities %s.",
            release, cudas.len ? gd_buf_str(&cudas) : "(list not in the stored copy)",
            b->cuda_list_complete ? "" : " (list incomplete)", minimum,
            ccs.len ? gd_buf_str(&ccs) : "not stated");
        gd_adv_cite(a, l, kb, b->row);
        gd_adv_cite_fact(a, l, m->driver_kind, m->driver_ref);
        gd_buf_free(&cudas);
        gd_buf_free(&ccs);
        return v;
    }
    struct gd_adv_section *s = gd_adv_section(a, "cuDNN %s for CUDA %lu", release, b->cuda_major);
    struct gd_adv_line *l =
        gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN, "Packaged for CUDA %s%s.",
                    cudas.len ? gd_buf_str(&cudas) : "(the list is not in the stored copy)",
                    b->cuda_list_complete || !cudas.len ? "" : " (the stored copy lost the rest)");
    gd_adv_cite(a, l, kb, b->row);
    l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN, "Needs %s.", minimum);
    gd_adv_cite(a, l, kb, b->row);
    l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN, "Compute capabilities: %s.",
                    ccs.len ? gd_buf_str(&ccs) : "not stated in the stored copy");
    gd_adv_cite(a, l, kb, b->row);
    if (!m->has_driver)
        l = gd_adv_line(a, s, GD_ADV_CHECK, driver, "Driver: %s.",
                        m->given ? "not given (--driver)" : "none on this machine");
    else
        l = gd_adv_line(a, s, GD_ADV_CHECK, driver, "Driver %s %s.", m->driver.text,
                        driver == GD_KB_YES  ? "meets it"
                        : driver == GD_KB_NO ? "is below it"
                                             : "cannot be judged against it");
    gd_adv_cite(a, l, kb, b->row);
    gd_adv_cite_fact(a, l, m->driver_kind, m->driver_ref);
    if (m->ngpus == 0)
        gd_adv_line(a, s, GD_ADV_CHECK, gpus, "GPU: %s.",
                    gpus == GD_KB_NO ? "none on this machine" : "none known");
    for (size_t i = 0; i < m->ngpus; i++) {
        const struct gd_adv_gpu *g = &m->gpus[i];
        enum gd_kb_answer ok = gpu_ok(b, g);
        l = gd_adv_line(a, s, GD_ADV_CHECK, ok, "GPU %s%s%s%s: %s.", g->name ? g->name : "",
                        g->name && g->has_cc ? ", " : "", g->has_cc ? "compute capability " : "",
                        g->has_cc ? g->cc.text : "",
                        ok == GD_KB_YES  ? "supported"
                        : ok == GD_KB_NO ? "not supported"
                                         : "not known (its compute capability or the package's "
                                           "list is not known)");
        gd_adv_cite(a, l, kb, b->row);
        gd_adv_cite_fact(a, l, g->cc_kind, g->cc_ref);
    }
    gd_adv_judge(s);
    gd_buf_free(&cudas);
    gd_buf_free(&ccs);
    return s ? s->verdict : v;
}

enum gd_kb_answer gd_adv_cudnn(struct gd_advice *a, const struct gd_kb *kb,
                               const struct gd_version *version)
{
    struct gd_kb_cudnn_build builds[64];
    size_t n = gd_kb_cudnn_builds(kb, version, builds, 64);
    if (n > 64)
        n = 64;
    if (n == 0) {
        struct gd_adv_section *s = gd_adv_section(a, "cuDNN %s", version ? version->text : "");
        gd_adv_line(a, s, GD_ADV_NOTE, GD_KB_UNKNOWN,
                    "The cudnn_builds table has no package of cuDNN %s: it holds the support "
                    "matrices of some releases only (docs/kb.md lists which).",
                    version ? version->text : "");
        gd_adv_summary(a, "Not known: cuDNN %s is not in the knowledge base.",
                       version ? version->text : "");
        return GD_KB_UNKNOWN;
    }
    enum gd_kb_answer any = GD_KB_NO;
    struct gd_adv_section *list =
        version ? NULL : gd_adv_section(a, "cuDNN: every package of the cudnn_builds table");
    for (size_t i = 0; i < n; i++)
        any = gd_adv_any(any, cudnn_build(a, kb, &builds[i], !version, list));
    if (list)
        list->judged = true, list->verdict = any;
    char what[160];
    snprintf(what, sizeof what, "run %s%s",
             version ? "cuDNN " : "a cuDNN package the knowledge base knows",
             version ? version->text : "");
    gd_adv_conclude(a, any, what);
    return any;
}

/* ---- a GPU model
 * ---------------------------------------------------------------------------------- */

/* The oldest and newest builds of `list` whose CUDA can compile for the GPU. */
static void build_range(struct gd_advice *a, struct gd_adv_section *s, const struct gd_kb *kb,
                        const char *name, const struct gd_kb_choice *list, size_t n,
                        const struct gd_version *cc)
{
    const struct gd_kb_choice *newest = NULL, *oldest = NULL;
    for (size_t i = 0; i < n; i++)
        if (list[i].cc == GD_KB_YES) {
            if (!newest)
                newest = &list[i];
            oldest = &list[i];
        }
    struct gd_adv_line *l;
    if (!newest) {
        l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN,
                        "%s: no build in the knowledge base has a CUDA that can compile for "
                        "compute capability %s.",
                        name, cc->text);
        if (n)
            gd_adv_cite(a, l, kb, list[0].cc_row);
        return;
    }
    l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN,
                    "%s: builds whose CUDA can compile for it run from %s%s%s (CUDA %s) to %s%s%s "
                    "(CUDA %s).",
                    name, oldest->release.text, oldest->tag[0] ? " " : "", oldest->tag,
                    oldest->cuda.text, newest->release.text, newest->tag[0] ? " " : "", newest->tag,
                    newest->cuda.text);
    gd_adv_cite(a, l, kb, oldest->row);
    gd_adv_cite(a, l, kb, newest->row);
    if (newest != &list[0])
        gd_adv_cite(a, l, kb, list[0].cc_row);
}

enum gd_kb_answer gd_adv_gpu(struct gd_advice *a, const struct gd_kb *kb, const char *model)
{
    const struct gd_kb_table *t = gd_kb_table(kb, "gpus");
    enum gd_gpu_match how = GD_GPU_MATCH_NONE;
    const struct gd_kb_row *row = t ? gd_kb_gpu_find(t, model, &how) : NULL;
    struct gd_version cc;
    const char *cc_text = row ? gd_kb_str(row, "cc") : NULL;
    if (!row || !cc_text || gd_version_parse(cc_text, &cc) != GD_OK) {
        struct gd_adv_section *s = gd_adv_section(a, "%s", model);
        gd_adv_line(a, s, GD_ADV_NOTE, GD_KB_UNKNOWN,
                    how == GD_GPU_MATCH_AMBIGUOUS
                        ? "'%s' matches GPUs of different compute capability in the gpus table; "
                          "name it exactly."
                        : "'%s' is neither a name compat knows (%s) nor a GPU of the gpus table.",
                    model, "tensorflow, torch, jax, cuda, cudnn");
        gd_adv_summary(a, "Not known: '%s' is not in the knowledge base.", model);
        return GD_KB_UNKNOWN;
    }
    const char *name = gd_kb_str(row, "name");
    struct gd_adv_section *s = gd_adv_section(a, "%s", name ? name : model);
    struct gd_adv_line *l =
        gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN, "Compute capability %s (%s).", cc.text,
                    gd_kb_str(row, "segment") ? gd_kb_str(row, "segment") : "segment not stated");
    gd_adv_cite(a, l, kb, row);
    /* The CUDA toolkits that can compile for it. */
    struct gd_version all[128];
    size_t n = gd_kb_cuda_versions(kb, all, 128);
    const struct gd_version *newest = NULL, *oldest = NULL;
    const struct gd_kb_row *added = NULL, *after = NULL;
    for (size_t i = 0; i < n && i < 128; i++) {
        const struct gd_kb_row *why = NULL;
        enum gd_kb_answer ok = gd_kb_cuda_supports_cc(kb, &all[i], &cc, &why);
        if (ok == GD_KB_YES) {
            if (!newest)
                newest = &all[i];
            oldest = &all[i];
            added = why;
        } else if (ok == GD_KB_NO && !newest) {
            after = why;
        }
    }
    if (newest) {
        l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN,
                        "CUDA toolkits that can compile for it: %s%s to %s%s%s%s.", oldest->text,
                        added && gd_kb_str(added, "earliest_tracked") ? " (the oldest the sources "
                                                                        "track)"
                                                                      : "",
                        newest->text, after ? "; CUDA " : "",
                        after && gd_kb_str(after, "cuda") ? gd_kb_str(after, "cuda") : "",
                        after ? " dropped it" : "");
        gd_adv_cite(a, l, kb, added);
        gd_adv_cite(a, l, kb, after);
    } else {
        l = gd_adv_line(a, s, GD_ADV_NOTE, GD_KB_UNKNOWN,
                        "The knowledge base does not say which CUDA toolkits can compile for "
                        "compute capability %s.",
                        cc.text);
    }
    /* Framework builds whose CUDA can compile for it. */
    static struct gd_kb_choice list[CHOICES_MAX];
    struct gd_kb_env env;
    memset(&env, 0, sizeof env);
    gd_kb_env_add_cc(&env, &cc);
    size_t k = gd_kb_torch_choices(kb, &env, list, CHOICES_MAX);
    build_range(a, s, kb, "PyTorch", list, k < CHOICES_MAX ? k : CHOICES_MAX, &cc);
    k = gd_kb_tf_choices(kb, &env, list, CHOICES_MAX);
    build_range(a, s, kb, "TensorFlow (Linux)", list, k < CHOICES_MAX ? k : CHOICES_MAX, &cc);
    for (unsigned long major = 20; major >= 11; major--) {
        struct gd_kb_jax_plugin p;
        if (gd_kb_jax_plugin(kb, major, &p) != GD_OK)
            continue;
        bool ok = gd_version_cmp_parts(&cc, &p.cc_min, 2) >= 0;
        l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN,
                        "JAX: %s needs compute capability %s "
                        "or newer: %s.",
                        p.plugin, p.cc_min.text, ok ? "this GPU has it" : "this GPU is older");
        gd_adv_cite(a, l, kb, p.row);
    }
    gd_adv_line(a, s, GD_ADV_NOTE, GD_KB_UNKNOWN,
                "Which builds carry code for compute capability %s is not in the knowledge base, "
                "only whether their CUDA can compile for it.",
                cc.text);
    enum gd_kb_answer fwd = gd_kb_forward_compat_gpu(kb, row);
    const struct gd_kb_row *fwd_row = gd_kb_forward_compat(kb);
    if (fwd_row) {
        l = gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN,
                        "Forward compatibility (a newer CUDA on an older driver, with NVIDIA's "
                        "cuda-compat package): %s.",
                        fwd == GD_KB_YES  ? "available for it (a data-center or Jetson GPU)"
                        : fwd == GD_KB_NO ? "not for it (it is limited to data-center GPUs, "
                                            "select RTX cards and Jetson)"
                                          : "not known for it (NVIDIA allows select RTX cards "
                                            "without listing them)");
        gd_adv_cite(a, l, kb, fwd_row);
        gd_adv_cite(a, l, kb, row);
    }
    gd_adv_line(a, s, GD_ADV_NOTE, GD_KB_UNKNOWN,
                "Which NVIDIA driver branches support this GPU is not in the knowledge base.");
    gd_adv_summary(a, "%s: compute capability %s.", name ? name : model, cc.text);
    return GD_KB_YES;
}
