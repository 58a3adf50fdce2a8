/*
 * Versions: gd_version_parse_n on the raw bytes, gd_version_parse and gd_version_from_cuda_tag
 * on a NUL-terminated copy. Invariants: a parsed version is well formed, equals itself, agrees
 * with the C-string parser, and survives a format/reparse roundtrip; formatting into a short
 * buffer yields a NUL-terminated prefix of the full text.
 */
#include "fuzz.h"

#include "core/version.h"

/* Large enough for any formatted version: 6 parts, epoch, pre, post, dev of at most 9 digits
 * each, plus a local label of at most GD_VERSION_TEXT_MAX bytes. */
#define FORMAT_MAX 256

static void check_well_formed(const struct gd_version *v)
{
    FUZZ_CHECK(v->nparts >= 1 && v->nparts <= GD_VERSION_MAX_PARTS);
    FUZZ_CHECK((int)v->pre >= (int)GD_PRE_NONE && (int)v->pre <= (int)GD_PRE_RC);
    FUZZ_CHECK(fuzz_terminated(v->text, sizeof v->text));
    FUZZ_CHECK(fuzz_terminated(v->local, sizeof v->local));
    FUZZ_CHECK(gd_version_cmp(v, v) == 0);
    FUZZ_CHECK(gd_version_cmp_parts(v, v, GD_VERSION_MAX_PARTS) == 0);
    FUZZ_CHECK(gd_version_has_prefix(v, v));
}

static void check_roundtrip(const struct gd_version *v)
{
    char full[FORMAT_MAX];
    gd_version_format(v, full, sizeof full);
    size_t n = strlen(full);
    FUZZ_CHECK(n > 0 && n < sizeof full - 1);

    /* Truncation: every buffer size gives a terminated prefix of the full text. The buffer is
     * on the heap at its exact size, so a write past it is an AddressSanitizer report. */
    static const size_t sizes[] = { 1, 2, 3, 7, 16, GD_VERSION_TEXT_MAX };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char *small = malloc(sizes[i]);
        if (!small)
            return;
        gd_version_format(v, small, sizes[i]);
        size_t m = fuzz_strnlen(small, sizes[i]);
        FUZZ_CHECK(m < sizes[i]);
        FUZZ_CHECK(m == (n < sizes[i] ? n : sizes[i] - 1));
        FUZZ_CHECK(memcmp(small, full, m) == 0);
        free(small);
    }

    struct gd_version again;
    enum gd_status st = gd_version_parse_n(full, n, &again);
    if (st == GD_ELIMIT) {
        /* The canonical form spells out what the input may leave implicit ("1r" is "1.post0"),
         * so it can outgrow the length limit that applies to every text; nothing else may
         * keep it from parsing. */
        FUZZ_CHECK(n >= GD_VERSION_TEXT_MAX);
        return;
    }
    FUZZ_CHECK(st == GD_OK);
    FUZZ_CHECK(gd_version_cmp(v, &again) == 0);
    FUZZ_CHECK(gd_version_cmp(&again, v) == 0);
    FUZZ_CHECK(strcmp(v->local, again.local) == 0);
    /* The canonical text is a fixed point. */
    char twice[FORMAT_MAX];
    gd_version_format(&again, twice, sizeof twice);
    FUZZ_CHECK(strcmp(full, twice) == 0);
}

/* Versions in increasing PEP 440 order, one of each kind the comparison tells apart. */
static const char *const ladder[] = {
    "1.0.dev1",  "1.0a1.dev1",     "1.0a1",     "1.0b2.post3", "1.0rc1", "1.0",
    "1.0+local", "1.0.post1.dev1", "1.0.post1", "1.2.3",       "12.4",   "1!0.1",
};
#define LADDER_LEN (sizeof ladder / sizeof *ladder)

/* The order is antisymmetric and consistent with the ladder: below one rung means below every
 * higher rung, above one means above every lower one (transitivity). */
static void check_order(const struct gd_version *v)
{
    struct gd_version rungs[LADDER_LEN];
    int sign[LADDER_LEN];
    for (size_t i = 0; i < LADDER_LEN; i++) {
        FUZZ_CHECK(gd_version_parse(ladder[i], &rungs[i]) == GD_OK);
        if (i)
            FUZZ_CHECK(gd_version_cmp(&rungs[i - 1], &rungs[i]) < 0);
        int ab = gd_version_cmp(v, &rungs[i]), ba = gd_version_cmp(&rungs[i], v);
        FUZZ_CHECK(ab >= -1 && ab <= 1 && ab == -ba);
        sign[i] = ab;
        (void)gd_version_has_prefix(v, &rungs[i]);
        for (int n = 0; n <= GD_VERSION_MAX_PARTS; n++) {
            int p = gd_version_cmp_parts(v, &rungs[i], n);
            FUZZ_CHECK(p == -gd_version_cmp_parts(&rungs[i], v, n));
        }
    }
    for (size_t i = 0; i < LADDER_LEN; i++)
        for (size_t j = i + 1; j < LADDER_LEN; j++)
            FUZZ_CHECK(!(sign[i] < 0 && sign[j] >= 0) && !(sign[j] > 0 && sign[i] <= 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct gd_version v;
    enum gd_status st = gd_version_parse_n(text, size, &v);
    FUZZ_CHECK(st == GD_OK || st == GD_EFORMAT || st == GD_ELIMIT);
    if (st == GD_OK) {
        check_well_formed(&v);
        check_roundtrip(&v);
        check_order(&v);
        (void)gd_version_major(&v);
        (void)gd_version_minor(&v);
        (void)gd_version_is_prerelease(&v);
    }

    char *s = fuzz_cstr(data, size);
    if (!s)
        return 0;
    /* The C-string parser is the counted one over strlen(s): same status, same version. */
    struct gd_version c;
    FUZZ_CHECK(gd_version_parse(s, &c) == st);
    if (st == GD_OK)
        FUZZ_CHECK(gd_version_cmp(&v, &c) == 0);

    struct gd_version tag;
    st = gd_version_from_cuda_tag(s, &tag);
    FUZZ_CHECK(st == GD_OK || st == GD_EFORMAT);
    if (st == GD_OK) {
        check_well_formed(&tag);
        FUZZ_CHECK(tag.nparts <= 2);
        check_roundtrip(&tag);
    }
    free(s);
    return 0;
}
