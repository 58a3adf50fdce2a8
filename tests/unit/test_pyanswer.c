/* The import script's answer (gd_parse_import_answer): real answers of each framework, Python's
 * None and lists, queries that raised, types an answer cannot have, and everything that is not
 * one JSON object. */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "core/buf.h"
#include "parse/pyanswer.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const char *type_tag(enum gd_answer_type t)
{
    static const char *const tags[] = { "str", "int", "bool", "none", "raised", "bad" };
    return tags[t];
}

/* Every item as "name type text\n", and ints and bools checked against their text. */
static void collect(void *user, const struct gd_answer_item *it)
{
    struct gd_buf *b = user;
    assert_non_null(it->text);
    assert_true(strlen(it->text) < GD_ANSWER_TEXT_MAX);
    if (it->type == GD_ANSWER_INT) {
        char n[32];
        snprintf(n, sizeof n, "%lld", it->number);
        assert_string_equal(n, it->text);
    }
    if (it->type == GD_ANSWER_BOOL)
        assert_string_equal(it->number ? "true" : "false", it->text);
    gd_buf_printf(b, "%s %s %s\n", it->name, type_tag(it->type), it->text);
}

static char *parse(const char *json, enum gd_status want, const char *want_why)
{
    struct gd_buf b;
    gd_buf_init(&b, 1 << 20);
    char why[128] = "untouched";
    enum gd_status st = gd_parse_import_answer(json, strlen(json), collect, &b, why, sizeof why);
    if (st != want)
        fail_msg("%s: status %d, want %d (%s)", json, st, want, why);
    if (want_why && strcmp(why, want_why) != 0)
        fail_msg("%s: why \"%s\", want \"%s\"", json, why, want_why);
    if (st == GD_OK)
        assert_string_equal(why, "");
    char *out = NULL;
    assert_int_equal(gd_buf_take(&b, &out, NULL), GD_OK);
    return out;
}

static void expect(const char *json, const char *want)
{
    char *got = parse(json, GD_OK, "");
    if (strcmp(got, want) != 0)
        fail_msg("%s\n--- got ---\n%s--- want ---\n%s", json, got, want);
    gd_free(got);
}

/* What Debian's python3-torch 1.13 (a CPU build) answers on this kind of machine. */
static void test_torch_cpu(void **state)
{
    (void)state;
    expect("{\"imported\": true, \"version\": \"1.13.0a0\", \"cuda\": null, \"hip\": null, "
           "\"cuda_build\": false, \"cuda_available\": false, \"device_count\": 0, "
           "\"arch_list\": [], \"cudnn\": null, \"errors\": {}}\n",
           "imported bool true\n"
           "version str 1.13.0a0\n"
           "cuda none \n"
           "hip none \n"
           "cudnn none \n"
           "cuda_build bool false\n"
           "cuda_available bool false\n"
           "device_count int 0\n"
           "arch_list none []\n");
}

static void test_torch_cuda(void **state)
{
    (void)state;
    expect("{\"imported\": true, \"version\": \"2.1.0+cu121\", \"cuda\": \"12.1\", \"hip\": null,"
           " \"cuda_build\": true, \"cuda_available\": true, \"device_count\": 2, \"arch_list\": "
           "[\"sm_50\", \"sm_60\", \"sm_90\"], \"cudnn\": 8902, \"gpus\": [{\"name\": \"NVIDIA "
           "H100 80GB HBM3\", \"capability\": \"9.0\"}, {\"name\": \"Tesla T4\", "
           "\"capability\": \"7.5\"}], \"errors\": {}}",
           "imported bool true\n"
           "version str 2.1.0+cu121\n"
           "cuda str 12.1\n"
           "hip none \n"
           "cudnn int 8902\n"
           "cuda_build bool true\n"
           "cuda_available bool true\n"
           "device_count int 2\n"
           "arch_list str sm_50,sm_60,sm_90\n"
           "gpu[0].name str NVIDIA H100 80GB HBM3\n"
           "gpu[0].capability str 9.0\n"
           "gpu[1].name str Tesla T4\n"
           "gpu[1].capability str 7.5\n");
}

/* An import that raised, and a framework whose queries raised. */
static void test_failures(void **state)
{
    (void)state;
    expect("{\"imported\": false, \"error\": \"ImportError: libcudnn.so.8: cannot open shared "
           "object file: No such file or directory\", \"error_type\": \"ImportError\", "
           "\"errors\": {}}",
           "imported bool false\n"
           "error str ImportError: libcudnn.so.8: cannot open shared object file: No such file "
           "or directory\n"
           "error_type str ImportError\n");
    expect("{\"imported\": true, \"version\": \"13.0.0\", \"cuda\": 12020, \"driver\": 0, "
           "\"cuda_build\": true, \"cuda_available\": false, \"errors\": {\"device_count\": "
           "\"cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: "
           "CUDA driver version is insufficient for CUDA runtime version\", \"nonsense\": \"x\"}}",
           "imported bool true\n"
           "version str 13.0.0\n"
           "cuda int 12020\n"
           "driver int 0\n"
           "cuda_build bool true\n"
           "cuda_available bool false\n"
           "device_count raised cupy_backends.cuda.api.runtime.CUDARuntimeError: "
           "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime "
           "version\n");
}

/* TensorFlow's build information, JAX's platforms, ONNX Runtime's providers. */
static void test_other_frameworks(void **state)
{
    (void)state;
    expect("{\"imported\": true, \"version\": \"2.15.0\", \"cuda_build\": true, \"cuda\": "
           "\"12.2\", \"cudnn\": \"8\", \"compute_capabilities\": [\"sm_50\", \"compute_90\"], "
           "\"gpus\": [], \"device_count\": 0, \"cuda_available\": false, \"errors\": {}}",
           "imported bool true\n"
           "version str 2.15.0\n"
           "cuda str 12.2\n"
           "cudnn str 8\n"
           "cuda_build bool true\n"
           "cuda_available bool false\n"
           "device_count int 0\n"
           "compute_capabilities str sm_50,compute_90\n");
    expect("{\"imported\": true, \"version\": \"0.4.23\", \"jaxlib\": \"0.4.23\", \"backend\": "
           "\"cpu\", \"platforms\": [\"cpu\"], \"device_count\": 0, \"cuda_available\": false, "
           "\"gpus\": [{\"name\": \"NVIDIA A100\", \"capability\": null}, {}, 7], \"errors\": {}}",
           "imported bool true\n"
           "version str 0.4.23\n"
           "jaxlib str 0.4.23\n"
           "backend str cpu\n"
           "cuda_available bool false\n"
           "device_count int 0\n"
           "platforms str cpu\n"
           "gpu[0].name str NVIDIA A100\n"
           "gpu[0].capability none \n"
           "gpu[1].name none \n"
           "gpu[1].capability none \n"
           "gpu[2].name none \n"
           "gpu[2].capability none \n");
    expect("{\"imported\": true, \"version\": \"1.17.1\", \"providers\": "
           "[\"CUDAExecutionProvider\", \"CPUExecutionProvider\"], \"device\": \"GPU\", "
           "\"cuda_build\": true}",
           "imported bool true\n"
           "version str 1.17.1\n"
           "device str GPU\n"
           "cuda_build bool true\n"
           "providers str CUDAExecutionProvider,CPUExecutionProvider\n");
}

/* Types a name cannot have are said, not taken; unknown names are ignored; strings are cleaned
 * and cut; lists and GPUs capped. */
static void test_hostile_values(void **state)
{
    (void)state;
    expect("{\"imported\": \"yes\", \"version\": 2.1, \"device_count\": true, \"arch_list\": "
           "[\"sm_50\", 7], \"cuda\": {}, \"gpus\": {}, \"whatever\": 1, \"errors\": {\"cuda\": "
           "5}}",
           "imported bad a string\n"
           "version bad a fraction\n"
           "cuda bad an object\n"
           "device_count bad a boolean\n"
           "arch_list bad an array of other than strings\n"
           "gpus bad an object\n"
           "cuda bad an integer\n");
    expect("{\"version\": \"1\\u0000\\u001b[2J\\n\\t\\u00e9\"}", "version str 1??[2J??\xc3\xa9\n");
    /* An overlong string and list are cut below the cap. */
    char json[4000], *p = json;
    p += sprintf(p, "{\"error\": \"");
    for (int i = 0; i < 1000; i++)
        *p++ = 'x';
    p += sprintf(p, "\", \"platforms\": [");
    for (int i = 0; i < 200; i++)
        p += sprintf(p, "%s\"gpu\"", i ? "," : "");
    p += sprintf(p, "], \"gpus\": [");
    for (int i = 0; i < 40; i++)
        p += sprintf(p, "%s{\"name\":\"g\"}", i ? "," : "");
    sprintf(p, "]}");
    char *got = parse(json, GD_OK, "");
    char want_error[GD_ANSWER_TEXT_MAX + 32];
    snprintf(want_error, sizeof want_error, "error str %.*s\n", GD_ANSWER_TEXT_MAX - 1, json + 11);
    assert_memory_equal(got, want_error, strlen(want_error));
    assert_non_null(strstr(got, "gpu[15].name str g\n"));
    assert_null(strstr(got, "gpu[16]"));
    const char *plat = strstr(got, "platforms str gpu,gpu");
    assert_non_null(plat);
    assert_true(strchr(plat, '\n') - plat < GD_ANSWER_TEXT_MAX + 16);
    gd_free(got);
}

static void test_not_an_answer(void **state)
{
    (void)state;
    static const struct {
        const char *text, *why;
        enum gd_status st;
    } cases[] = {
        { "", "empty", GD_EFORMAT },
        { " \n\t ", "empty", GD_EFORMAT },
        { "hello world\n", NULL, GD_EFORMAT },
        { "[1, 2]", "JSON, but an array, not an object", GD_EFORMAT },
        { "\"text\"", "JSON, but a string, not an object", GD_EFORMAT },
        { "42", "JSON, but an integer, not an object", GD_EFORMAT },
        { "{\"imported\": true", "not JSON: it ends inside a value", GD_EFORMAT },
        { "{\"imported\": true}\n{\"imported\": false}\n", "more after the JSON value",
          GD_EFORMAT },
        { "{\"a\": [1,]}", NULL, GD_EFORMAT }, /* strict: no trailing commas */
        { "{\"a\": {\"b\": {\"c\": {\"d\": {}}}}}", "nested deeper than an answer is", GD_ELIMIT },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *got = parse(cases[i].text, cases[i].st, cases[i].why);
        assert_string_equal(got, ""); /* no item when it is not an answer */
        gd_free(got);
    }
    char *got = parse("hello", GD_EFORMAT, NULL);
    gd_free(got);
    /* Past the cap nothing is parsed. */
    static char big[GD_ANSWER_MAX + 2];
    memset(big, ' ', sizeof big - 1);
    big[0] = '{';
    big[sizeof big - 2] = '}';
    got = parse(big, GD_ELIMIT, "larger than an answer can be");
    gd_free(got);
    /* No `why` buffer is fine. */
    assert_int_equal(gd_parse_import_answer("x", 1, collect, NULL, NULL, 0), GD_EFORMAT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_torch_cpu),      cmocka_unit_test(test_torch_cuda),
        cmocka_unit_test(test_failures),       cmocka_unit_test(test_other_frameworks),
        cmocka_unit_test(test_hostile_values), cmocka_unit_test(test_not_an_answer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
