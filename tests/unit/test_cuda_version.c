/* The CUDA toolkit's version from version.json, version.txt and header #defines. */
#include "parse/cuda_version.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

struct text_case {
    const char *data;
    enum gd_status status;
    const char *version; /* gd_version_format */
};

static void check_version(const struct text_case *c, enum gd_status st, const struct gd_version *v,
                          const char *what, size_t i)
{
    if (st != c->status)
        fail_msg("%s case %zu: %s, want %s", what, i, gd_status_str(st), gd_status_str(c->status));
    if (st != GD_OK)
        return;
    char buf[GD_VERSION_TEXT_MAX];
    gd_version_format(v, buf, sizeof buf);
    if (strcmp(buf, c->version) != 0)
        fail_msg("%s case %zu: \"%s\", want \"%s\"", what, i, buf, c->version);
}

static const struct text_case json_cases[] = {
    /* As CUDA 12.2 ships it (abridged). */
    { "{\n   \"cuda\" : {\n      \"name\" : \"CUDA SDK\",\n      \"version\" : \"12.2.2\"\n   },\n"
      "   \"cuda_cccl\" : {\n      \"name\" : \"CUDA C++ Core Compute Libraries\",\n"
      "      \"version\" : \"12.2.140\"\n   }\n}\n",
      GD_OK, "12.2.2" },
    { "{\"cuda_nvcc\": {\"version\": \"13.0.48\"}, \"cuda\": {\"name\": \"CUDA SDK\", "
      "\"version\": \"13.0.0\"}}",
      GD_OK, "13.0.0" },
    { "{\"cuda\": {\"version\": \"11.8.20220929\"}}", GD_OK, "11.8.20220929" },
    /* Not a toolkit version. */
    { "", GD_EFORMAT, NULL },
    { "{", GD_EFORMAT, NULL },
    { "{\"cuda\": {\"version\": \"12.2", GD_EFORMAT, NULL },
    { "not json", GD_EFORMAT, NULL },
    { "[\"cuda\", \"12.2\"]", GD_EFORMAT, NULL },
    { "{}", GD_EFORMAT, NULL },
    { "{\"cuda_nvcc\": {\"version\": \"12.2.140\"}}", GD_EFORMAT, NULL },
    { "{\"cuda\": \"12.2.2\"}", GD_EFORMAT, NULL },
    { "{\"cuda\": {\"name\": \"CUDA SDK\"}}", GD_EFORMAT, NULL },
    { "{\"cuda\": {\"version\": 12.2}}", GD_EFORMAT, NULL },
    { "{\"cuda\": {\"version\": \"twelve\"}}", GD_EFORMAT, NULL },
    { "{\"cuda\": {\"version\": \"\"}}", GD_EFORMAT, NULL },
};

static void test_json(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof json_cases / sizeof *json_cases; i++) {
        const struct text_case *c = &json_cases[i];
        struct gd_version v;
        enum gd_status st = gd_parse_cuda_version_json(c->data, strlen(c->data), &v);
        check_version(c, st, &v, "version.json", i);
    }
    /* Past 1 MiB it is not a version.json, and the JSON parser never sees it. */
    size_t big = 1024 * 1024 + 1;
    char *data = malloc(big);
    memset(data, ' ', big);
    static const char obj[] = "{\"cuda\": {\"version\": \"12.2.2\"}}";
    memcpy(data, obj, sizeof obj - 1);
    struct gd_version v;
    assert_int_equal(gd_parse_cuda_version_json(data, big, &v), GD_ELIMIT);
    assert_int_equal(gd_parse_cuda_version_json(data, big - 1, &v), GD_OK);
    /* Only `len` bytes are parsed: the object cut in half is not one. */
    assert_int_equal(gd_parse_cuda_version_json(data, 20, &v), GD_EFORMAT);
    free(data);
}

static const struct text_case txt_cases[] = {
    { "CUDA Version 10.2.89\n", GD_OK, "10.2.89" },
    { "CUDA Version 11.0.228", GD_OK, "11.0.228" },
    { "  CUDA Version   9.0.176  \r\n", GD_OK, "9.0.176" },
    { "Some header\nCUDA Version 8.0.61\n", GD_OK, "8.0.61" },
    { "CUDA Version abc\nCUDA Version 10.1.243\n", GD_OK, "10.1.243" },
    { "", GD_EFORMAT, NULL },
    { "CUDA Version\n", GD_EFORMAT, NULL },
    { "CUDA Version abc\n", GD_EFORMAT, NULL },
    { "cuda version 10.2.89\n", GD_EFORMAT, NULL },
    { "CUDA 10.2.89\n", GD_EFORMAT, NULL },
    { "CUDA Version 10.2.89 extra\n", GD_EFORMAT, NULL },
};

static void test_txt(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof txt_cases / sizeof *txt_cases; i++) {
        const struct text_case *c = &txt_cases[i];
        struct gd_version v;
        enum gd_status st = gd_parse_cuda_version_txt(c->data, strlen(c->data), &v);
        check_version(c, st, &v, "version.txt", i);
    }
}

struct define_case {
    const char *data;
    const char *name;
    enum gd_status status;
    long value;
};

static const char cudnn_h[] = "#ifndef CUDNN_VERSION_H_\n"
                              "#define CUDNN_VERSION_H_\n"
                              "\n"
                              "#define CUDNN_MAJOR 9\n"
                              "#define CUDNN_MINOR 1\n"
                              "#define CUDNN_PATCHLEVEL 0\n"
                              "\n"
                              "#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + "
                              "CUDNN_PATCHLEVEL)\n"
                              "#endif\n";

static const struct define_case define_cases[] = {
    { "#define CUDA_VERSION 12020\n", "CUDA_VERSION", GD_OK, 12020 },
    /* Look-alikes with the name as a prefix come first in cuda.h of some releases. */
    { "#define CUDA_VERSION_MAJOR 12\n#define CUDA_VERSION_MINOR 4\n#define CUDA_VERSION 12040\n",
      "CUDA_VERSION", GD_OK, 12040 },
    { "#define CUDA_VERSION_MAJOR 12\n", "CUDA_VERSION", GD_EFORMAT, 0 },
    { "#define CUDA_VERSIONX 1\n", "CUDA_VERSION", GD_EFORMAT, 0 },
    { "#define XCUDA_VERSION 1\n", "CUDA_VERSION", GD_EFORMAT, 0 },
    /* Spacing, comments after the value, CRLF. */
    { "#  define CUDA_VERSION 11080\n", "CUDA_VERSION", GD_OK, 11080 },
    { "\t# define\tCUDA_VERSION\t12000 /* CUDA 12.0 */\r\n", "CUDA_VERSION", GD_OK, 12000 },
    { "#define CUDA_VERSION 12020// comment\n", "CUDA_VERSION", GD_OK, 12020 },
    { "#define CUDA_VERSION 12020", "CUDA_VERSION", GD_OK, 12020 },
    /* An alias to another macro, as TensorRT 10.11+ writes it; loops and dead ends fail. */
    { "#define TRT_MAJOR_ENTERPRISE 10\n#define NV_TENSORRT_MAJOR TRT_MAJOR_ENTERPRISE //!< m\n",
      "NV_TENSORRT_MAJOR", GD_OK, 10 },
    { "#define NV_TENSORRT_MAJOR TRT_MAJOR_ENTERPRISE\n#define TRT_MAJOR_ENTERPRISE 10\n",
      "NV_TENSORRT_MAJOR", GD_OK, 10 },
    { "#define A B\n#define B A\n", "A", GD_EFORMAT, 0 },
    { "#define A B\n", "A", GD_EFORMAT, 0 },
    { "#define A B C\n#define B 1\n", "A", GD_EFORMAT, 0 },
    /* Not a plain integer, or not a #define of it. */
    { "#define CUDA_VERSION (12020)\n", "CUDA_VERSION", GD_EFORMAT, 0 },
    { "#define CUDA_VERSION 12020L\n", "CUDA_VERSION", GD_EFORMAT, 0 },
    { "#define CUDA_VERSION 0x2EF4\n", "CUDA_VERSION", GD_EFORMAT, 0 },
    { "#define CUDA_VERSION\n", "CUDA_VERSION", GD_EFORMAT, 0 },
    { "#define CUDA_VERSION \n", "CUDA_VERSION", GD_EFORMAT, 0 },
    { "#defineCUDA_VERSION 12020\n", "CUDA_VERSION", GD_EFORMAT, 0 },
    { "#undef CUDA_VERSION\n", "CUDA_VERSION", GD_EFORMAT, 0 },
    { "// #define CUDA_VERSION 12020\n", "CUDA_VERSION", GD_EFORMAT, 0 },
    { "int CUDA_VERSION = 12020;\n", "CUDA_VERSION", GD_EFORMAT, 0 },
    { "#define CUDA_VERSION 99999999999999999999999999\n", "CUDA_VERSION", GD_EFORMAT, 0 },
    { "", "CUDA_VERSION", GD_EFORMAT, 0 },
    /* cuDNN: the parts are integers, the combined version an expression. */
    { cudnn_h, "CUDNN_MAJOR", GD_OK, 9 },
    { cudnn_h, "CUDNN_MINOR", GD_OK, 1 },
    { cudnn_h, "CUDNN_PATCHLEVEL", GD_OK, 0 },
    { cudnn_h, "CUDNN_VERSION", GD_EFORMAT, 0 },
    { cudnn_h, "CUDNN", GD_EFORMAT, 0 },
};

static void test_define(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof define_cases / sizeof *define_cases; i++) {
        const struct define_case *c = &define_cases[i];
        long value = -1;
        enum gd_status st = gd_parse_header_define(c->data, strlen(c->data), c->name, &value);
        if (st != c->status)
            fail_msg("case %zu (%s): %s", i, c->name, gd_status_str(st));
        if (st == GD_OK && value != c->value)
            fail_msg("case %zu (%s): %ld, want %ld", i, c->name, value, c->value);
        if (st != GD_OK && value != -1)
            fail_msg("case %zu (%s): value written on failure", i, c->name);
    }
    /* Only `len` bytes: "12020" cut to "120". */
    static const char text[] = "#define CUDA_VERSION 12020\n";
    long value = 0;
    assert_int_equal(gd_parse_header_define(text, strlen(text) - 3, "CUDA_VERSION", &value), GD_OK);
    assert_int_equal(value, 120);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_txt),
        cmocka_unit_test(test_define),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
