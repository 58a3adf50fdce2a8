/*
 * The framework build files: gd_pylit_parse over the bytes, then what TensorFlow's build_info.py
 * and torch/version.py say (gd_build_facts_tensorflow, gd_build_facts_torch). One target for
 * both readers: the same bytes are read as each file.
 * Invariants: every field is terminated inside its buffer; build is "", "cuda", "cpu" or "rocm";
 * a version kept parses as a version and has no blank, a rejected one is printable; the compute
 * capabilities are non-empty items without blanks joined by single commas; torch's hip is set
 * exactly when the build is rocm; two reads give the same facts.
 */
#include "fuzz.h"

#include "core/version.h"
#include "parse/buildinfo.h"
#include "parse/pylit.h"

static void check_version(const char *v, size_t size)
{
    FUZZ_CHECK(fuzz_terminated(v, size));
    struct gd_version parsed;
    FUZZ_CHECK(!v[0] || gd_version_parse(v, &parsed) == GD_OK);
    for (const char *p = v; *p; p++)
        FUZZ_CHECK((unsigned char)*p > 0x20);
}

static void check_printable(const char *s, size_t size)
{
    FUZZ_CHECK(fuzz_terminated(s, size));
    for (const char *p = s; *p; p++)
        FUZZ_CHECK((unsigned char)*p >= 0x20);
}

static void check(const struct gd_build_facts *b, bool torch)
{
    FUZZ_CHECK(fuzz_terminated(b->build, sizeof b->build));
    FUZZ_CHECK(!b->build[0] || strcmp(b->build, "cuda") == 0 || strcmp(b->build, "cpu") == 0 ||
               strcmp(b->build, "rocm") == 0);
    check_version(b->cuda, sizeof b->cuda);
    check_version(b->cudnn, sizeof b->cudnn);
    check_printable(b->cuda_bad, sizeof b->cuda_bad);
    check_printable(b->cudnn_bad, sizeof b->cudnn_bad);
    FUZZ_CHECK(!(b->cuda[0] && b->cuda_bad[0]) && !(b->cudnn[0] && b->cudnn_bad[0]));
    const char *cc = b->compute_capabilities;
    FUZZ_CHECK(fuzz_terminated(cc, sizeof b->compute_capabilities));
    size_t n = strlen(cc);
    FUZZ_CHECK(n == 0 || (cc[0] != ',' && cc[n - 1] != ',' && !strstr(cc, ",,")));
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK((unsigned char)cc[i] > 0x20);
    check_printable(b->hip, sizeof b->hip);
    check_printable(b->git_version, sizeof b->git_version);
    if (torch) {
        FUZZ_CHECK(!b->hip[0] == (strcmp(b->build, "rocm") != 0));
        FUZZ_CHECK(!cc[0] && !b->cudnn[0]);
    } else {
        FUZZ_CHECK(!b->hip[0] && !b->git_version[0]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gd_pylit_file *f = NULL;
    if (gd_pylit_parse((const char *)data, size, &f) != GD_OK)
        return 0;
    struct gd_build_facts a, b;
    gd_build_facts_tensorflow(f, &a);
    check(&a, false);
    gd_build_facts_tensorflow(f, &b);
    FUZZ_CHECK(memcmp(&a, &b, sizeof a) == 0);
    gd_build_facts_torch(f, &a);
    check(&a, true);
    gd_build_facts_torch(f, &b);
    FUZZ_CHECK(memcmp(&a, &b, sizeof a) == 0);
    gd_pylit_free(f);
    return 0;
}
