/*
 * The version resource of a PE image: gd_pe_read_memory, then gd_pe_version_read over the same
 * bytes; and gd_pe_version_parse on the bytes taken as a VS_VERSIONINFO block themselves (the
 * block parser meets the input without a PE image around it).
 *
 * Invariants: a failure is a documented status; a success has the fixed versions or a string
 * table; every string is terminated in its buffer and has no control character (evidence stays
 * on one line); the language is empty or eight hex digits.
 */
#include "fuzz.h"

#include "pe/version.h"

static void check_text(const char *s)
{
    FUZZ_CHECK(fuzz_terminated(s, GD_PE_VERSION_STR));
    for (const char *p = s; *p; p++)
        FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
}

static void check(enum gd_status st, const struct gd_pe_version *v)
{
    FUZZ_CHECK(st == GD_OK || st == GD_ENOENT || st == GD_EFORMAT || st == GD_ETRUNCATED ||
               st == GD_ELIMIT || st == GD_ENOMEM);
    if (st != GD_OK)
        return;
    FUZZ_CHECK(v->has_fixed || v->lang[0]);
    FUZZ_CHECK(fuzz_terminated(v->lang, sizeof v->lang));
    size_t n = strlen(v->lang);
    FUZZ_CHECK(n == 0 || n == 8);
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(strchr("0123456789abcdefABCDEF", v->lang[i]) != NULL);
    check_text(v->company_name);
    check_text(v->file_description);
    check_text(v->file_version);
    check_text(v->product_name);
    check_text(v->product_version);
    char text[32];
    gd_pe_version_format(v->file, text, sizeof text);
    FUZZ_CHECK(strlen(text) < 24);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gd_pe_version v;
    check(gd_pe_version_parse(data, size, &v), &v);
    struct gd_pe *pe = NULL;
    if (gd_pe_read_memory(data, size, &pe) != GD_OK)
        return 0;
    struct gd_pe_memory m = { data, size };
    struct gd_pe_source src = gd_pe_memory_source(&m);
    check(gd_pe_version_read(&src, pe, &v), &v);
    gd_pe_free(pe);
    return 0;
}
