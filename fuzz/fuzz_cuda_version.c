/*
 * The CUDA toolkit's version files: gd_parse_cuda_version_json (version.json),
 * gd_parse_cuda_version_txt (version.txt) and gd_parse_header_define (cuda.h, cudnn_version.h,
 * nccl.h) on the bytes. Invariants: a parsed version is well formed and a defined value is a
 * non-negative integer; a failed parse leaves a zeroed version.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct gd_version v;
    check_version(gd_parse_cuda_version_json(text, size, &v), &v);
    check_version(gd_parse_cuda_version_txt(text, size, &v), &v);

    /* The macros gpudoctor reads from headers. */
    static const char *const names[] = { "CUDA_VERSION", "CUDART_VERSION", "CUDNN_MAJOR",
                                         "CUDNN_VERSION", "NCCL_VERSION_CODE" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        long value = -1;
        enum gd_status st = gd_parse_header_define(text, size, names[i], &value);
        FUZZ_CHECK(st == GD_OK || st == GD_EFORMAT);
        if (st == GD_OK)
            FUZZ_CHECK(value >= 0);
        else
            FUZZ_CHECK(value == -1);
    }
    return 0;
}
