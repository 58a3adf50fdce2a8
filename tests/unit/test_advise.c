/*
 * The answers of compat and plan (src/advise) for machines described in the test: for each
 * question, the verdict, lines that must be there (their kind, answer, words or exact command),
 * and the invariant that every statement of the knowledge base or judgement of the machine names
 * its source. Malformed questions, and each allocation failed in turn.
 */
#define _GNU_SOURCE
#include "advise/advise.h"
#include "core/alloc.h"
#include "kb/gpus.h"
#include "kb/kb.h"

#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

static struct gd_kb *kb;

static int setup(void **state)
{
    (void)state;
    return gd_kb_open(NULL, &kb) == GD_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gd_kb_free(kb);
    return 0;
}

/* A described machine: driver (NULL: not given), os, GPUs as "gpu:MODEL" or "cc:X.Y". */
static void machine_of(struct gd_adv_machine *m, const char *driver, enum gd_kb_os os,
                       const char *const *gpus)
{
    memset(m, 0, sizeof *m);
    m->given = true;
    m->where = "the described machine";
    m->gpus_known = true;
    m->os = os;
    m->os_name = os == GD_KB_OS_WINDOWS ? "Windows" : "Linux";
    if (driver) {
        assert_int_equal(gd_version_parse(driver, &m->driver), GD_OK);
        m->has_driver = true;
        m->driver_kind = "option";
        m->driver_ref = "--driver";
    }
    for (size_t i = 0; gpus && gpus[i]; i++) {
        struct gd_adv_gpu *g = &m->gpus[m->ngpus++];
        g->count = 1;
        if (strncmp(gpus[i], "cc:", 3) == 0) {
            assert_int_equal(gd_version_parse(gpus[i] + 3, &g->cc), GD_OK);
            g->has_cc = true;
            g->cc_kind = "option";
            g->cc_ref = "--cc";
            continue;
        }
        g->name = gpus[i] + 4;
        const struct gd_kb_row *row = gd_kb_gpu_find(gd_kb_table(kb, "gpus"), g->name, NULL);
        g->cc_kind = "kb";
        g->cc_ref = "gpus";
        if (row && gd_version_parse(gd_kb_str(row, "cc"), &g->cc) == GD_OK)
            g->has_cc = true;
        else
            g->why = "not in the gpus table";
    }
}

#define LINES 8

struct adv_case {
    const char *name, *command, *arg, *driver;
    enum gd_kb_os os;
    const char *gpus[3];
    enum gd_kb_answer verdict;
    /* "KIND ANSWER TEXT": KIND fact, check, install (TEXT is the exact command), upgrade,
     * note; ANSWER yes, no, unknown or "-" (not compared); TEXT a part of the line. */
    const char *lines[LINES];
};

#define L GD_KB_OS_LINUX
#define W GD_KB_OS_WINDOWS

static const struct adv_case cases[] = {
    { "TensorFlow 2.15 on 470.82 and a K80",
      "compat",
      "tensorflow==2.15",
      "470.82",
      L,
      { "gpu:Tesla K80" },
      GD_KB_NO,
      { "fact - Built and tested with CUDA 12.2 and cuDNN 8.9, for Python 3.9-3.11.",
        "fact - CUDA 12.2 needs NVIDIA driver 535.54.03 or newer on Linux (CUDA 12.2's own "
        "driver), or 525 or newer through minor version compatibility.",
        "install - python3 -m pip install 'tensorflow[and-cuda]==2.15.*'",
        "check no Driver 470.82 is too old for CUDA 12.2",
        "check no GPU Tesla K80 (compute capability 3.7): CUDA 12.2 cannot compile for it "
        "(dropped by CUDA 12.0).",
        "fact - cuDNN 8.9 for CUDA 12.2 needs NVIDIA driver 525.60.13 or newer on Linux." } },
    { "TensorFlow 2.15.1 on 535 and an A100",
      "compat",
      "tensorflow==2.15.1",
      "535.104.05",
      L,
      { "gpu:NVIDIA A100" },
      GD_KB_YES,
      { "install - python3 -m pip install 'tensorflow[and-cuda]==2.15.1'",
        "check yes Driver 535.104.05 runs CUDA 12.2 (its own driver is 535.54.03 or newer).",
        "check yes GPU NVIDIA A100 (compute capability 8.0): CUDA 12.2 can compile for it (added "
        "by CUDA 11.0).",
        "note - which architectures TensorFlow 2.15.0's own build carries is not in the "
        "knowledge base" } },
    { "TensorFlow 2.15 without a driver or GPU",
      "compat",
      "tensorflow==2.15",
      NULL,
      L,
      { NULL },
      GD_KB_UNKNOWN,
      { "check unknown Driver: not given (--driver)",
        "check unknown GPU: none given (--gpu or --cc)" } },
    { "TensorFlow 2.15 on native Windows",
      "compat",
      "tensorflow==2.15",
      "551.61",
      W,
      { "cc:8.6" },
      GD_KB_NO,
      { "check no Native Windows: TensorFlow after 2.10 has no GPU support there" } },
    { "TensorFlow 2.6 on native Windows",
      "compat",
      "tensorflow==2.6",
      "472.50",
      W,
      { "cc:7.5" },
      GD_KB_YES,
      { "install - conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0 && python -m pip "
        "install \"tensorflow<2.11\"",
        "check yes Driver 472.50 runs CUDA 11.2 (its own driver is 460.82 or newer)." } },
    { "TensorFlow 3.0",
      "compat",
      "tensorflow==3.0",
      "550.54.14",
      L,
      { "cc:8.6" },
      GD_KB_UNKNOWN,
      { "note - The knowledge base has no tested build of TensorFlow 3.0 for Linux" } },
    { "torch 2.1.0+cu121 on 470.82",
      "compat",
      "torch==2.1.0+cu121",
      "470.82",
      L,
      { "cc:8.6" },
      GD_KB_NO,
      { "install - pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu121",
        "check no Driver 470.82 is too old for CUDA 12.1" } },
    { "pytorch 2.1.0 on 470.82",
      "compat",
      "PyTorch==2.1.0",
      "470.82",
      L,
      { "cc:8.6" },
      GD_KB_YES,
      { "check yes Driver 470.82 runs CUDA 11.8 through minor version compatibility (450.80.02 "
        "or newer), with a limited feature set below its own driver 520.61.05.",
        "fact - Built with CUDA 11.8; bundles cuDNN 8.7.0.84 (the release matrix's).",
        "fact - Python >=3.8, <=3.11." } },
    { "torch 0.4.1",
      "compat",
      "torch==0.4.1",
      "470.82",
      L,
      { "cc:6.1" },
      GD_KB_UNKNOWN,
      { "note - The knowledge base has no CUDA wheel of torch 0.4.1" } },
    { "every torch wheel on 580 with a 5090",
      "compat",
      "torch",
      "580.65.06",
      L,
      { "cc:12.0" },
      GD_KB_YES,
      { "check yes torch 2.14 cu130 (CUDA 13.0, cuDNN 9.24.0.43): runs.",
        "check yes torch 2.14 cu132 (CUDA 13.2, cuDNN 9.24.0.43): runs through minor version "
        "compatibility.",
        "check no torch 2.6 cu124 (CUDA 12.4, cuDNN 9.1.0.70): CUDA 12.4 cannot compile for "
        "compute capability 12.0 (added only by CUDA 12.8)" } },
    { "JAX on 550 with an H100",
      "compat",
      "jax",
      "550.54.14",
      L,
      { "gpu:NVIDIA H100 80GB HBM3" },
      GD_KB_YES,
      { "install - pip install -U 'jax[cuda12]'", "install - pip install -U 'jax[cuda13]'",
        "check no Driver 550.54.14 is below the minimum 580.",
        "check yes Driver 550.54.14 meets the minimum 525." } },
    { "jax==0.4.30: the current requirements, not the release's",
      "compat",
      "jax==0.4.30",
      "550.54.14",
      L,
      { "cc:9.0" },
      GD_KB_UNKNOWN,
      { "note - those of jax 0.4.30 itself are not in it" } },
    { "CUDA 12.4 on 535 and an A100",
      "compat",
      "cuda==12.4",
      "535.104.05",
      L,
      { "gpu:NVIDIA A100" },
      GD_KB_YES,
      { "fact - Its own driver (CUDA 12.4 GA): 550.54.14 or newer on Linux x86_64.",
        "fact - Its own driver (CUDA 12.4 GA): 551.61 or newer on Windows x86_64.",
        "fact - Compiles for compute capabilities 5.0, 5.2, 5.3, 6.0, 6.1, 6.2, 7.0, 7.5, 8.0, "
        "8.6, 8.7, 8.9, 9.0.",
        "fact - the tables do not say for 7.2.",
        "check yes Driver 535.104.05 runs CUDA 12.4 through minor version compatibility" } },
    { "CUDA 12.7 (no such release)",
      "compat",
      "cuda==12.7",
      "560.35.03",
      L,
      { "cc:8.6" },
      GD_KB_UNKNOWN,
      { "note - CUDA 12.7 is not in the cuda_toolkit table" } },
    { "every CUDA version on 418.39",
      "compat",
      "cuda",
      "418.39",
      L,
      { "cc:7.5" },
      GD_KB_YES,
      { "check yes CUDA 10.1: runs.", "check no CUDA 10.2: needs driver 440.33 or newer" } },
    { "cuDNN 8.9 on 470.82.01 with a V100",
      "compat",
      "cudnn==8.9",
      "470.82.01",
      L,
      { "gpu:Tesla V100-SXM2-16GB" },
      GD_KB_YES,
      { "fact - Packaged for CUDA 12.0, 12.1, 12.2.", "check no Driver 470.82.01 is below it.",
        "check yes Driver 470.82.01 meets it.",
        "check yes GPU Tesla V100-SXM2-16GB, compute capability 7.0: supported." } },
    { "cuDNN 9.1.0: a list the stored copy lost",
      "compat",
      "cudnn==9.1.0",
      "550.54.14",
      L,
      { "cc:8.6" },
      GD_KB_UNKNOWN,
      { "fact - Packaged for CUDA (the list is not in the stored copy).",
        "check unknown GPU compute capability 8.6: not known" } },
    { "cuDNN 6.0",
      "compat",
      "cudnn==6.0",
      "550.54.14",
      L,
      { "cc:8.6" },
      GD_KB_UNKNOWN,
      { "note - The cudnn_builds table has no package of cuDNN 6.0" } },
    { "a Tesla K80",
      "compat",
      "Tesla K80",
      NULL,
      L,
      { NULL },
      GD_KB_YES,
      { "fact - Compute capability 3.7 (data center).",
        "fact - CUDA toolkits that can compile for it: 7.0 (the oldest the sources track) to "
        "11.8; CUDA 12.0 dropped it.",
        "fact - PyTorch: builds whose CUDA can compile for it run from 1.9.1 cu102 (CUDA 10.2) to "
        "2.7 cu118 (CUDA 11.8).",
        "fact - TensorFlow (Linux): builds whose CUDA can compile for it run from 1.13.1 (CUDA "
        "10.0) to 2.14.0 (CUDA 11.8).",
        "fact - JAX: jax-cuda12-plugin needs compute capability 5.2 or newer: this GPU is older.",
        "fact - available for it (a data-center or Jetson GPU)" } },
    { "an RTX 5090 (12.0)",
      "compat",
      "GeForce RTX 5090",
      NULL,
      L,
      { NULL },
      GD_KB_YES,
      { "fact - CUDA toolkits that can compile for it: 12.8 to 13.2.",
        "fact - PyTorch: builds whose CUDA can compile for it run from 2.7 cu128 (CUDA 12.8) to "
        "2.14 cu132 (CUDA 13.2).",
        "fact - TensorFlow (Linux): no build in the knowledge base has a CUDA that can compile "
        "for compute capability 12.0.",
        "fact - not known for it (NVIDIA allows select RTX cards without listing them)" } },
    { "a GPU the table does not have",
      "compat",
      "GeForce RTX 3080",
      NULL,
      L,
      { NULL },
      GD_KB_UNKNOWN,
      { "note - 'GeForce RTX 3080' is neither a name compat knows" } },
    { "plan torch on 470.82 with a K80",
      "plan",
      "torch",
      "470.82",
      L,
      { "gpu:Tesla K80" },
      GD_KB_YES,
      { "install - pip install torch==1.12.1+cu113 --extra-index-url "
        "https://download.pytorch.org/whl/cu113",
        "install - pip install 'torch==2.7.*' --index-url https://download.pytorch.org/whl/cu118",
        "check no torch 2.8 cu126 (CUDA 12.6): CUDA 12.6 cannot compile for compute capability "
        "3.7 (dropped by CUDA 12.0): no driver makes it run here.",
        "upgrade - Upgrade the NVIDIA driver to 520.61.05 or newer to run torch 2.7 cu118 with "
        "CUDA 11.8's own driver: the newest release whose CUDA can compile for these GPUs." } },
    { "plan torch on 580.65.06 with an H100",
      "plan",
      "torch",
      "580.65.06",
      L,
      { "gpu:NVIDIA H100" },
      GD_KB_YES,
      { "install - pip install 'torch==2.14.*' --index-url https://download.pytorch.org/whl/cu130",
        "fact - Nothing to upgrade for PyTorch: torch 2.14 is the newest release in the knowledge "
        "base" } },
    { "plan tensorflow on 560.35.03 with an RTX 3090: nothing newer",
      "plan",
      "tensorflow",
      "560.35.03",
      L,
      { "gpu:NVIDIA GeForce RTX 3090" },
      GD_KB_YES,
      { "install - python3 -m pip install 'tensorflow[and-cuda]==2.18.*'",
        "fact - Nothing to upgrade for TensorFlow: tensorflow 2.18.0 is the newest release in "
        "the knowledge base, and this driver runs it with its CUDA's own minimum." } },
    { "plan tensorflow on 418.39 with an RTX 3090: nothing runs",
      "plan",
      "tensorflow",
      "418.39",
      L,
      { "gpu:NVIDIA GeForce RTX 3090" },
      GD_KB_NO,
      { "note - No TensorFlow build in the knowledge base surely runs with this driver and these "
        "GPUs." } },
    { "plan jax on 580.65.06",
      "plan",
      "jax",
      "580.65.06",
      L,
      { "cc:8.0" },
      GD_KB_YES,
      { "check yes Driver 580.65.06 meets the minimum 580." } },
    { "plan torch without a driver",
      "plan",
      "torch",
      NULL,
      L,
      { "cc:8.6" },
      GD_KB_UNKNOWN,
      { "note - No build can be chosen without the driver's version.",
        "upgrade - Install an NVIDIA driver of 560.28.03 or newer to run torch 2.14 cu126" } },
};

static bool line_matches(const struct gd_adv_line *l, const char *spec)
{
    char kind[16], answer[16];
    int used = 0;
    if (sscanf(spec, "%15s %15s %n", kind, answer, &used) != 2)
        fail_msg("bad line spec \"%s\"", spec);
    const char *text = spec + used;
    static const char *const kinds[] = { "fact", "check", "install", "upgrade", "note" };
    if (strcmp(kind, kinds[l->kind]) != 0)
        return false;
    if (strcmp(answer, "-") != 0) {
        const char *a = l->answer == GD_KB_YES ? "yes" : l->answer == GD_KB_NO ? "no" : "unknown";
        if (strcmp(answer, a) != 0)
            return false;
    }
    if (l->kind == GD_ADV_INSTALL)
        return l->command && strcmp(l->command, text) == 0;
    return strstr(l->text, text) != NULL;
}

static const struct gd_adv_line *find_line(const struct gd_advice *a, const char *spec)
{
    for (size_t i = 0; i < a->nsections; i++)
        for (size_t k = 0; k < a->sections[i].nlines; k++)
            if (line_matches(&a->sections[i].lines[k], spec))
                return &a->sections[i].lines[k];
    return NULL;
}

/* What every answer must hold: each statement of the KB and each yes or no names a source, each
 * cited KB source has an address, the answer has a summary. */
static void check_sources(const struct gd_advice *a, const char *name)
{
    for (size_t i = 0; i < a->nsections; i++)
        for (size_t k = 0; k < a->sections[i].nlines; k++) {
            const struct gd_adv_line *l = &a->sections[i].lines[k];
            bool needs = l->kind == GD_ADV_FACT || l->kind == GD_ADV_INSTALL ||
                         l->kind == GD_ADV_UPGRADE ||
                         (l->kind == GD_ADV_CHECK && l->answer != GD_KB_UNKNOWN);
            if (needs && l->nsrc == 0)
                fail_msg("%s: \"%s\" names no source", name, l->text);
            for (size_t s = 0; s < l->nsrc; s++)
                assert_true(l->src[s] < a->nsources);
        }
    for (size_t s = 0; s < a->nsources; s++)
        if (a->sources[s].table && !a->sources[s].url)
            fail_msg("%s: source %s of %s has no address", name, a->sources[s].id,
                     a->sources[s].table);
    if (!a->summary)
        fail_msg("%s: no summary", name);
}

static struct gd_advice *ask(const struct adv_case *c, enum gd_status *st)
{
    struct gd_adv_machine m;
    machine_of(&m, c->driver, c->os, c->gpus);
    struct gd_advice *a = NULL;
    char problem[256] = "";
    *st = strcmp(c->command, "plan") == 0
              ? gd_advise_plan(kb, &m, c->arg, &a, problem, sizeof problem)
              : gd_advise_compat(kb, &m, c->arg, &a, problem, sizeof problem);
    return a;
}

static void test_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct adv_case *c = &cases[i];
        enum gd_status st;
        struct gd_advice *a = ask(c, &st);
        if (st != GD_OK)
            fail_msg("%s: %s", c->name, gd_status_str(st));
        if (a->verdict != c->verdict)
            fail_msg("%s: verdict %d, want %d (%s)", c->name, a->verdict, c->verdict, a->summary);
        for (size_t k = 0; k < LINES && c->lines[k]; k++)
            if (!find_line(a, c->lines[k]))
                fail_msg("%s: no line \"%s\"", c->name, c->lines[k]);
        check_sources(a, c->name);
        gd_advice_free(a);
    }
}

/* Malformed questions are refused with what is wrong. */
static void test_usage(void **state)
{
    (void)state;
    static const struct {
        const char *command, *arg, *problem;
    } bad[] = {
        { "compat", "", "what should be checked?" },
        { "compat", "   ", "what should be checked?" },
        { "compat", NULL, "what should be checked?" },
        { "compat", "tensorflo==2.15", "unknown name 'tensorflo'" },
        { "compat", "tensorflow>=2.15", "only NAME==VERSION or a bare NAME" },
        { "compat", "torch~=2.1", "only NAME==VERSION or a bare NAME" },
        { "compat", "cuda===12.4", "only NAME==VERSION or a bare NAME" },
        { "compat", "cuda==", "'' is not a version" },
        { "compat", "cudnn==nine", "'nine' is not a version" },
        { "plan", "caffe", "'caffe' is not a framework plan knows" },
        { "plan", "cuda", "'cuda' is not a framework plan knows" },
        { "plan", "", "which framework?" },
    };
    struct gd_adv_machine m;
    machine_of(&m, "550.54.14", L, NULL);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct gd_advice *a = (struct gd_advice *)1;
        char problem[256] = "";
        enum gd_status st = strcmp(bad[i].command, "plan") == 0
                                ? gd_advise_plan(kb, &m, bad[i].arg, &a, problem, sizeof problem)
                                : gd_advise_compat(kb, &m, bad[i].arg, &a, problem, sizeof problem);
        if (st != GD_EINVAL || a)
            fail_msg("%s '%s': %s", bad[i].command, bad[i].arg ? bad[i].arg : "(null)",
                     gd_status_str(st));
        if (!strstr(problem, bad[i].problem))
            fail_msg("%s '%s': \"%s\"", bad[i].command, bad[i].arg ? bad[i].arg : "(null)",
                     problem);
        /* No room for the message is no reason to fail differently. */
        assert_int_equal(gd_advise_compat(kb, &m, "cuda>=1", &a, NULL, 0), GD_EINVAL);
    }
}

/* The JSON form carries the same answer: schema, verdict, every line's sources by number. */
static void test_json(void **state)
{
    (void)state;
    enum gd_status st;
    struct gd_advice *a = ask(&cases[0], &st);
    assert_int_equal(st, GD_OK);
    char *out = NULL;
    size_t len = 0;
    assert_int_equal(gd_advice_render(a, true, NULL, &out, &len), GD_OK);
    struct json_object *j = json_tokener_parse(out);
    assert_non_null(j);
    struct json_object *v;
    assert_true(json_object_object_get_ex(j, "schema", &v));
    assert_string_equal(json_object_get_string(v), "gpudoctor.compat/1");
    assert_true(json_object_object_get_ex(j, "verdict", &v));
    assert_string_equal(json_object_get_string(v), "no");
    assert_true(json_object_object_get_ex(j, "sources", &v));
    assert_int_equal(json_object_array_length(v), a->nsources);
    assert_true(json_object_object_get_ex(j, "sections", &v));
    struct json_object *lines, *line, *src;
    assert_true(json_object_object_get_ex(json_object_array_get_idx(v, 0), "lines", &lines));
    line = json_object_array_get_idx(lines, 0);
    assert_true(json_object_object_get_ex(line, "sources", &src));
    assert_int_equal(json_object_get_int(json_object_array_get_idx(src, 0)),
                     (int)a->sections[0].lines[0].src[0] + 1);
    json_object_put(j);
    gd_free(out);
    assert_int_equal(gd_advice_render(a, false, NULL, &out, &len), GD_OK);
    assert_non_null(strstr(out, "Answer: no. The described machine cannot run TensorFlow 2.15.0 "
                                "on its GPU."));
    assert_non_null(strstr(out, "[1] tf_builds: tf-source-linux"));
    gd_free(out);
    gd_advice_free(a);
    gd_advice_free(NULL);
    assert_int_equal(gd_advice_verdict(NULL), GD_ANSWER_UNKNOWN);
}

static char *render(const struct gd_advice *a)
{
    char *out = NULL;
    assert_int_equal(gd_advice_render(a, false, NULL, &out, NULL), GD_OK);
    return out;
}

/* Fail each allocation of an answer in turn: GD_ENOMEM and nothing, or the very same answer. */
static void test_alloc_failures(void **state)
{
    (void)state;
    static const size_t picks[] = { 0, 6, 12, 15, 18, 21, 24 };
    size_t runs = 0;
    for (size_t p = 0; p < sizeof picks / sizeof *picks; p++) {
        const struct adv_case *c = &cases[picks[p]];
        enum gd_status st;
        gd_alloc_fail_at(0);
        struct gd_advice *a = ask(c, &st);
        unsigned long total = gd_alloc_fail_at(0);
        assert_int_equal(st, GD_OK);
        char *want = render(a);
        gd_advice_free(a);
        for (unsigned long n = 1; n <= total; n++) {
            gd_alloc_fail_at(n);
            a = ask(c, &st);
            gd_alloc_fail_at(0);
            runs++;
            if (st == GD_ENOMEM) {
                assert_null(a);
                continue;
            }
            assert_int_equal(st, GD_OK);
            char *got = render(a);
            if (strcmp(got, want) != 0)
                fail_msg("%s: allocation %lu of %lu failed unnoticed", c->name, n, total);
            gd_free(got);
            gd_advice_free(a);
        }
        gd_free(want);
    }
    assert_true(runs > 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
