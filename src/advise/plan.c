/* gpudoctor plan: the newest builds of a framework that run on the machine, their install
 * commands, the newer releases and what each needs, and the driver that reaches the newest one
 * its GPUs allow. */
#include "advise/advise.h"

#include "kb/kb.h"
#include "kb/pick.h"

#include <stdio.h>
#include <string.h>

#define CHOICES_MAX 192

static const char *display(const char *framework)
{
    return strcmp(framework, "torch") == 0 ? "PyTorch" : "TensorFlow";
}

/* A section about one build: what it is, its checks and its install command. */
static void build_section(struct gd_advice *a, const struct gd_kb *kb, const char *framework,
                          const struct gd_kb_choice *c, const char *title)
{
    struct gd_adv_section *s =
        gd_adv_section(a, "%s: %s %s%s%s", title, display(framework), c->release.text,
                       c->tag[0] ? ", " : "", c->tag[0] ? c->tag : "");
    struct gd_adv_line *l =
        c->has_cudnn ? gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN, "CUDA %s, cuDNN %s.",
                                   c->cuda.text, c->cudnn.text)
                     : gd_adv_line(a, s, GD_ADV_FACT, GD_KB_UNKNOWN, "CUDA %s.", c->cuda.text);
    gd_adv_cite(a, l, kb, c->row);
    gd_adv_install(a, s, kb, framework, c);
    gd_adv_check_driver(a, s, kb, &c->cuda);
    char what[160];
    snprintf(what, sizeof what, "%s %s%s%s", framework, c->release.text, c->tag[0] ? " " : "",
             c->tag);
    gd_adv_check_gpus(a, s, kb, &c->cuda, what);
    gd_adv_judge(s);
}

/* Whether two choices are of one release. */
static bool same_release(const struct gd_kb_choice *x, const struct gd_kb_choice *y)
{
    return gd_version_cmp_parts(&x->release, &y->release, 3) == 0;
}

/* Of the builds of the release at list[i] (consecutive), the one whose CUDA can serve the GPUs
 * with the lowest driver need; else the first. Sets *next to the index after the release. */
static const struct gd_kb_choice *representative(const struct gd_kb_choice *list, size_t n,
                                                 size_t i, size_t *next)
{
    const struct gd_kb_choice *best = &list[i];
    size_t k = i;
    for (; k < n && same_release(&list[k], &list[i]); k++) {
        const struct gd_kb_choice *c = &list[k];
        bool c_ok = !c->cc_judged || c->cc != GD_KB_NO;
        bool b_ok = !best->cc_judged || best->cc != GD_KB_NO;
        if (c_ok && !b_ok) {
            best = c;
            continue;
        }
        if (c_ok == b_ok && c->need.has_toolkit && best->need.has_toolkit &&
            gd_version_cmp(&c->need.toolkit_min, &best->need.toolkit_min) < 0)
            best = c;
    }
    *next = k;
    return best;
}

static enum gd_kb_answer plan_builds(struct gd_advice *a, const struct gd_kb *kb,
                                     const char *framework)
{
    static struct gd_kb_choice list[CHOICES_MAX];
    struct gd_kb_env env;
    gd_adv_env(&a->machine, &env);
    bool torch = strcmp(framework, "torch") == 0;
    size_t n = torch ? gd_kb_torch_choices(kb, &env, list, CHOICES_MAX)
                     : gd_kb_tf_choices(kb, &env, list, CHOICES_MAX);
    if (n > CHOICES_MAX)
        n = CHOICES_MAX;
    const char *name = display(framework);
    /* The newest that runs with the toolkit's own driver, else through minor version
     * compatibility; and a newer one through minor version compatibility. */
    const struct gd_kb_choice *best = gd_kb_best_choice(list, n), *newer = NULL;
    for (size_t i = 0; best && best->fit == GD_KB_FIT_TOOLKIT && i < n && &list[i] != best; i++)
        if (gd_kb_choice_runs(&list[i], true) == GD_KB_YES &&
            gd_version_cmp_parts(&list[i].release, &best->release, 3) > 0) {
            newer = &list[i];
            break;
        }
    if (best) {
        build_section(a, kb, framework, best, "Newest that runs here");
        if (newer)
            build_section(a, kb, framework, newer,
                          "Newer, through minor version compatibility (limited features)");
    } else {
        struct gd_adv_section *s = gd_adv_section(a, "Newest %s that runs here", name);
        gd_adv_line(
            a, s, GD_ADV_NOTE, GD_KB_UNKNOWN,
            !env.has_driver ? "No build can be chosen without the driver's version%s."
                            : "No %s build in the knowledge base surely runs with this driver and "
                              "these GPUs%s.",
            !env.has_driver ? "" : name, env.ncc ? "" : " (no GPU's compute capability is known)");
    }
    /* The releases newer than the pick, each with what it needs. */
    const struct gd_kb_choice *top = newer ? newer : best;
    struct gd_adv_section *s = NULL;
    for (size_t i = 0, next = 0; i < n; i = next) {
        const struct gd_kb_choice *c = representative(list, n, i, &next);
        if (top && gd_version_cmp_parts(&c->release, &top->release, 3) <= 0)
            break;
        if (!s)
            s = gd_adv_section(a, top ? "Newer releases and what they need"
                                      : "Releases and what they need");
        struct gd_adv_line *l =
            gd_adv_line(a, s, GD_ADV_CHECK, gd_kb_choice_runs(c, true), "%s %s%s%s (CUDA %s): %s.",
                        framework, c->release.text, c->tag[0] ? " " : "", c->tag, c->cuda.text,
                        gd_adv_choice_reason(a, c));
        gd_adv_cite_choice(a, l, kb, c);
    }
    /* What reaches the newest release the GPUs allow: its build with the lowest driver need. */
    const struct gd_kb_choice *target = NULL;
    for (size_t i = 0, next = 0; i < n && !target; i = next) {
        const struct gd_kb_choice *c = representative(list, n, i, &next);
        if (!c->cc_judged || c->cc == GD_KB_YES)
            target = c;
    }
    struct gd_adv_section *up = gd_adv_section(a, "What to upgrade");
    bool later = target && gd_version_cmp_parts(&list[0].release, &target->release, 3) > 0;
    if (!target) {
        gd_adv_line(a, up, GD_ADV_NOTE, GD_KB_UNKNOWN,
                    "No %s build in the knowledge base has a CUDA that surely compiles for these "
                    "GPUs: no driver upgrade is known to help.",
                    name);
    } else if (best && best->fit == GD_KB_FIT_TOOLKIT &&
               gd_version_cmp_parts(&target->release, &best->release, 3) <= 0) {
        struct gd_adv_line *l = gd_adv_line(
            a, up, GD_ADV_FACT, GD_KB_UNKNOWN,
            "Nothing to upgrade for %s: %s %s is the newest release in the knowledge base%s, and "
            "this driver runs it with its CUDA's own minimum.",
            name, framework, best->release.text,
            later ? " whose CUDA can compile for these GPUs" : "");
        if (later)
            gd_adv_cite(a, l, kb, list[0].cc_row);
        gd_adv_cite(a, l, kb, best->row);
        gd_adv_cite(a, l, kb, best->need.toolkit_row);
    } else {
        char need[GD_VERSION_TEXT_MAX + 64];
        if (target->need.has_toolkit)
            snprintf(need, sizeof need, "%s or newer", target->need.toolkit_min.text);
        else
            snprintf(need, sizeof need, "%s", gd_adv_need_text(a, &target->need, &target->cuda));
        struct gd_adv_line *l = gd_adv_line(
            a, up, GD_ADV_UPGRADE, GD_KB_UNKNOWN,
            "%s %s to run %s %s%s%s with CUDA %s's own driver%s.",
            a->machine.has_driver ? "Upgrade the NVIDIA driver to" : "Install an NVIDIA driver of",
            need, framework, target->release.text, target->tag[0] ? " " : "", target->tag,
            target->cuda.text,
            target->cc_judged ? ": the newest release whose CUDA can compile for these GPUs"
                              : ": the newest release in the knowledge base (no GPU judged)");
        gd_adv_cite(a, l, kb, target->need.toolkit_row);
        gd_adv_cite(a, l, kb, target->need.compat_row);
        gd_adv_cite(a, l, kb, target->row);
        if (later && target->cc_judged) {
            l = gd_adv_line(a, up, GD_ADV_FACT, GD_KB_UNKNOWN,
                            "No driver brings a later release to these GPUs: %s.",
                            gd_adv_choice_reason(a, &list[0]));
            gd_adv_cite(a, l, kb, list[0].cc_row);
        }
        gd_adv_install(a, up, kb, framework, target);
    }
    enum gd_kb_answer v = GD_KB_NO;
    for (size_t i = 0; i < n; i++)
        v = gd_adv_any(v, gd_kb_choice_runs(&list[i], true));
    if (best && newer)
        gd_adv_summary(a,
                       "Newest %s that runs on %s: %s %s%s%s; %s %s%s%s through minor version "
                       "compatibility.",
                       name, a->machine.where, framework, best->release.text,
                       best->tag[0] ? " " : "", best->tag, framework, newer->release.text,
                       newer->tag[0] ? " " : "", newer->tag);
    else if (best)
        gd_adv_summary(a, "Newest %s that runs on %s: %s %s%s%s.", name, a->machine.where,
                       framework, best->release.text, best->tag[0] ? " " : "", best->tag);
    else
        gd_adv_summary(a, "No %s build is known to run on %s.", name, a->machine.where);
    return n ? v : GD_KB_UNKNOWN;
}

enum gd_kb_answer gd_adv_plan(struct gd_advice *a, const struct gd_kb *kb, const char *framework)
{
    if (strcmp(framework, "jax") == 0) {
        enum gd_kb_answer v = gd_adv_jax(a, kb, NULL);
        return v;
    }
    return plan_builds(a, kb, framework);
}
