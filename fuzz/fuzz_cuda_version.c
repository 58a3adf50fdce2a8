/*
 * The CUDA toolkit's version files: gd_parse_cuda_version_json (version.json),
 * gd_parse_cuda_version_txt (version.txt) and gd_parse_header_define (cuda.h, cudnn_version.h,
 * nccl.h) on the bytes, and each defined value through its integer decoder
 * (gd_version_from_cuda_int, _cudnn_int, _nccl_int). Invariants: a parsed version is well formed;
 * a defined value is a non-negative integer, untouched on failure; a decoded version has 2 or 3
 * parts, its text is its canonical form and it reparses equal.
 */
#include "fuzz.h"

#include "parse/cuda_version.h"

static void check_version(enum gd_status st, const struct gd_version *v)
{
    FUZZ_CHECK(st == GD_OK || st == GD_EFORMAT || st == GD_ELIMIT);
    FUZZ_CHECK(fuzz_terminated(v->text, sizeof v->text));
    FUZZ_CHECK(fuzz_terminated(v->local, sizeof v->local));
    if (st == GD_OK)
        FUZZ_CHECK(v->nparts >= 1 && v->nparts <= GD_VERSION_MAX_PARTS && v->text[0]);
}

/* An integer-encoded version: 2 or 3 parts whose text is their canonical form. */
static void check_decoded(enum gd_status st, const struct gd_version *v)
{
    FUZZ_CHECK(st == GD_OK || st == GD_EFORMAT);
    if (st != GD_OK)
        return;
    FUZZ_CHECK(v->nparts == 2 || v->nparts == 3);
    char text[GD_VERSION_TEXT_MAX];
    gd_version_format(v, text, sizeof text);
    FUZZ_CHECK(strcmp(text, v->text) == 0);
    struct gd_version again;
    FUZZ_CHECK(gd_version_parse(text, &again) == GD_OK && gd_version_cmp(v, &again) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct gd_version v;
    check_version(gd_parse_cuda_version_json(text, size, &v), &v);
    check_version(gd_parse_cuda_version_txt(text, size, &v), &v);

    /* The macros gpudoctor reads from headers, each decoded as its library encodes it. */
    static const struct {
        const char *name;
        enum gd_status (*decode)(long, struct gd_version *);
    } defines[] = {
        { "CUDA_VERSION", gd_version_from_cuda_int },
        { "CUDART_VERSION", gd_version_from_cuda_int },
        { "CUDNN_MAJOR", NULL },
        { "CUDNN_VERSION", gd_version_from_cudnn_int },
        { "NCCL_VERSION_CODE", gd_version_from_nccl_int },
    };
    for (size_t i = 0; i < sizeof defines / sizeof *defines; i++) {
        long value = -1;
        enum gd_status st = gd_parse_header_define(text, size, defines[i].name, &value);
        FUZZ_CHECK(st == GD_OK || st == GD_EFORMAT);
        if (st != GD_OK) {
            FUZZ_CHECK(value == -1);
            continue;
        }
        FUZZ_CHECK(value >= 0);
        if (defines[i].decode)
            check_decoded(defines[i].decode(value, &v), &v);
    }
    return 0;
}
