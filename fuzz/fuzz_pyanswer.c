/*
 * The import script's answer: gd_parse_import_answer over the bytes. Invariants: items only when
 * the status is GD_OK; every name is one the header lists or gpu[i].name / gpu[i].capability
 * below the cap; every text is shorter than the cap and printable (no control character); a
 * boolean is 0 or 1.
 */
#include "fuzz.h"

#include "parse/pyanswer.h"

static const char *const known[] = {
    "imported",       "error",        "error_type", "version",
    "cuda",           "hip",          "cudnn",      "driver",
    "jaxlib",         "backend",      "device",     "cuda_build",
    "cuda_available", "device_count", "arch_list",  "compute_capabilities",
    "platforms",      "providers",    "gpus",
};

static void check(void *user, const struct gd_answer_item *it)
{
    size_t *count = user;
    (*count)++;
    FUZZ_CHECK(it->name && it->text);
    bool ok = false;
    for (size_t i = 0; i < sizeof known / sizeof *known && !ok; i++)
        ok = strcmp(it->name, known[i]) == 0;
    unsigned idx = 0;
    char field[16] = "";
    if (!ok && sscanf(it->name, "gpu[%u].%15s", &idx, field) == 2)
        ok = idx < GD_ANSWER_GPUS_MAX &&
             (strcmp(field, "name") == 0 || strcmp(field, "capability") == 0);
    FUZZ_CHECK(ok);
    size_t n = strlen(it->text);
    FUZZ_CHECK(n < GD_ANSWER_TEXT_MAX);
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK((unsigned char)it->text[i] >= 0x20 && it->text[i] != 0x7f);
    if (it->type == GD_ANSWER_BOOL)
        FUZZ_CHECK(it->number == 0 || it->number == 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t count = 0;
    char why[128];
    enum gd_status st =
        gd_parse_import_answer((const char *)data, size, check, &count, why, sizeof why);
    FUZZ_CHECK(fuzz_terminated(why, sizeof why));
    FUZZ_CHECK(st == GD_OK || count == 0);
    FUZZ_CHECK(st == GD_OK || why[0]);
    FUZZ_CHECK(st == GD_OK || st == GD_EFORMAT || st == GD_ELIMIT || st == GD_ENOMEM);
    return 0;
}
