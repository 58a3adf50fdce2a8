/*
 * The arguments of gpudoctor compat and plan: the first line of the input is the question (a
 * SPEC for compat; when it starts with "plan ", the framework for plan), the following lines
 * describe the machine ("driver V", "cc X.Y", "gpu MODEL", "os windows"). Answered over the
 * embedded KB (src/advise/advise.h), then rendered as text and JSON.
 * Invariants: the status is GD_OK, or GD_EINVAL with a terminated, non-empty problem; an answer
 * has a verdict of the three, a summary, sections with titles; every line cites sources that
 * exist, and every statement of the KB (fact, install, upgrade) and every yes or no cites one;
 * both renderings succeed and the JSON parses back as an object with the answer's verdict.
 */
#include "fuzz.h"

#include "advise/advise.h"
#include "core/alloc.h"
#include "kb/gpus.h"
#include "kb/kb.h"

#include <json-c/json.h>

static const struct gd_kb *kb(void)
{
    static struct gd_kb *k;
    static int opened;
    if (!opened) {
        opened = 1;
        if (gd_kb_open(NULL, &k) != GD_OK)
            k = NULL;
    }
    return k;
}

static void machine_line(struct gd_adv_machine *m, const char *line)
{
    if (strncmp(line, "driver ", 7) == 0) {
        m->has_driver = gd_version_parse(line + 7, &m->driver) == GD_OK;
        m->driver_kind = "option";
        m->driver_ref = "--driver";
    } else if (strcmp(line, "os windows") == 0) {
        m->os = GD_KB_OS_WINDOWS;
    } else if ((strncmp(line, "cc ", 3) == 0 || strncmp(line, "gpu ", 4) == 0) &&
               m->ngpus < GD_ADV_GPUS_MAX) {
        struct gd_adv_gpu *g = &m->gpus[m->ngpus++];
        memset(g, 0, sizeof *g);
        g->count = 1;
        if (line[0] == 'c') {
            g->has_cc = gd_version_parse(line + 3, &g->cc) == GD_OK;
            g->cc_kind = "option";
            g->cc_ref = "--cc";
            return;
        }
        g->name = line + 4;
        const struct gd_kb_row *row = gd_kb_gpu_find(gd_kb_table(kb(), "gpus"), g->name, NULL);
        const char *cc = row ? gd_kb_str(row, "cc") : NULL;
        g->has_cc = cc && gd_version_parse(cc, &g->cc) == GD_OK;
        g->cc_kind = "kb";
        g->cc_ref = "gpus";
        g->why = g->has_cc ? NULL : "not in the gpus table";
    }
}

static void check_answer(const struct gd_advice *a)
{
    FUZZ_CHECK(a->verdict == GD_KB_YES || a->verdict == GD_KB_NO || a->verdict == GD_KB_UNKNOWN);
    FUZZ_CHECK(a->summary && *a->summary);
    for (size_t i = 0; i < a->nsections; i++) {
        const struct gd_adv_section *s = &a->sections[i];
        FUZZ_CHECK(s->title);
        for (size_t k = 0; k < s->nlines; k++) {
            const struct gd_adv_line *l = &s->lines[k];
            FUZZ_CHECK(l->text);
            bool needs = l->kind == GD_ADV_FACT || l->kind == GD_ADV_INSTALL ||
                         l->kind == GD_ADV_UPGRADE ||
                         (l->kind == GD_ADV_CHECK && l->answer != GD_KB_UNKNOWN);
            FUZZ_CHECK(!needs || l->nsrc > 0);
            FUZZ_CHECK(l->kind != GD_ADV_INSTALL || (l->command && *l->command));
            for (size_t n = 0; n < l->nsrc; n++)
                FUZZ_CHECK(l->src[n] < a->nsources);
        }
    }
    char *out = NULL;
    size_t len = 0;
    FUZZ_CHECK(gd_advice_render(a, false, NULL, &out, &len) == GD_OK);
    FUZZ_CHECK(out && strlen(out) == len);
    gd_free(out);
    FUZZ_CHECK(gd_advice_render(a, true, NULL, &out, &len) == GD_OK);
    struct json_object *j = json_tokener_parse(out);
    FUZZ_CHECK(j && json_object_is_type(j, json_type_object));
    struct json_object *v = NULL;
    FUZZ_CHECK(json_object_object_get_ex(j, "verdict", &v));
    const char *want = a->verdict == GD_KB_YES ? "yes" : a->verdict == GD_KB_NO ? "no" : "unknown";
    FUZZ_CHECK(strcmp(json_object_get_string(v), want) == 0);
    json_object_put(j);
    gd_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!kb() || size > 4096)
        return 0;
    char *text = fuzz_cstr(data, size);
    if (!text)
        return 0;
    struct gd_adv_machine m;
    memset(&m, 0, sizeof m);
    m.given = true;
    m.where = "the described machine";
    m.gpus_known = true;
    char *question = text, *rest = strchr(text, '\n');
    if (rest)
        *rest++ = '\0';
    while (rest && *rest) {
        char *line = rest;
        rest = strchr(rest, '\n');
        if (rest)
            *rest++ = '\0';
        machine_line(&m, line);
    }
    struct gd_advice *a = NULL;
    char problem[128];
    bool plan = strncmp(question, "plan ", 5) == 0;
    enum gd_status st = plan ? gd_advise_plan(kb(), &m, question + 5, &a, problem, sizeof problem)
                             : gd_advise_compat(kb(), &m, question, &a, problem, sizeof problem);
    FUZZ_CHECK(st == GD_OK || st == GD_EINVAL);
    if (st == GD_EINVAL) {
        FUZZ_CHECK(!a);
        FUZZ_CHECK(fuzz_terminated(problem, sizeof problem) && problem[0]);
    } else {
        FUZZ_CHECK(a);
        check_answer(a);
        gd_advice_free(a);
    }
    free(text);
    return 0;
}
