/* The `gpus` knowledge-base table (data/kb/gpus.json) and the model lookup over it. */
#include "core/str.h"
#include "core/version.h"
#include "kb/gpus.h"
#include "kb/kb.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static struct gd_kb *kb;
static const struct gd_kb_table *gpus;

static int setup(void **state)
{
    (void)state;
    if (gd_kb_open(NULL, &kb) != GD_OK)
        return -1;
    gpus = gd_kb_table(kb, "gpus");
    return gpus ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gd_kb_free(kb);
    return 0;
}

static const struct gd_kb_row *row_named(const char *name)
{
    for (size_t i = 0; i < gd_kb_row_count(gpus); i++)
        if (strcmp(gd_kb_str(gd_kb_row_at(gpus, i), "name"), name) == 0)
            return gd_kb_row_at(gpus, i);
    fail_msg("no row \"%s\"", name);
    return NULL;
}

/* Every row: a name, a cc of the form major.minor that parses as a version, a segment of
 * NVIDIA's three columns, a source and "also" ids the table defines, aliases as strings; no
 * two rows (or a row and another row's alias) with the same name ignoring case. */
static void test_rows(void **state)
{
    (void)state;
    size_t n = gd_kb_row_count(gpus);
    assert_true(n >= 100);
    for (size_t i = 0; i < n; i++) {
        const struct gd_kb_row *row = gd_kb_row_at(gpus, i);
        const char *name = gd_kb_str(row, "name"), *cc = gd_kb_str(row, "cc");
        const char *segment = gd_kb_str(row, "segment");
        if (!name || !*name)
            fail_msg("rows[%zu] has no name", i);
        struct gd_version v;
        if (!cc || gd_version_parse(cc, &v) != GD_OK || v.nparts != 2 || v.pre || v.has_post ||
            v.has_dev || v.local[0] || strspn(cc, "0123456789.") != strlen(cc))
            fail_msg("%s: cc \"%s\" is not major.minor", name, cc ? cc : "(none)");
        if (!segment ||
            (strcmp(segment, "data center") != 0 && strcmp(segment, "workstation/consumer") != 0 &&
             strcmp(segment, "jetson") != 0))
            fail_msg("%s: segment \"%s\"", name, segment ? segment : "(none)");
        if (!gd_kb_source_url(gpus, gd_kb_row_source(row)))
            fail_msg("%s: source without a URL", name);
        for (size_t k = 0; k < gd_kb_list_len(row, "also"); k++) {
            const char *also = gd_kb_list_at(row, "also", k);
            if (!also || !gd_kb_source_url(gpus, also))
                fail_msg("%s: also[%zu] is not a source of the table", name, k);
        }
        for (size_t k = 0; k < gd_kb_list_len(row, "aliases"); k++)
            if (!gd_kb_list_at(row, "aliases", k) || !*gd_kb_list_at(row, "aliases", k))
                fail_msg("%s: aliases[%zu] is not a string", name, k);
        for (size_t j = 0; j < n; j++) {
            const struct gd_kb_row *other = gd_kb_row_at(gpus, j);
            if (j != i && gd_str_ieq(name, gd_kb_str(other, "name")))
                fail_msg("%s: two rows", name);
            for (size_t k = 0; k < gd_kb_list_len(other, "aliases"); k++)
                if (gd_str_ieq(name, gd_kb_list_at(other, "aliases", k)) && j != i)
                    fail_msg("%s: also an alias of %s", name, gd_kb_str(other, "name"));
        }
    }
}

/* Every name and alias finds its own row through the lookup, so no later stage of one row
 * shadows another. */
static void test_rows_find_themselves(void **state)
{
    (void)state;
    for (size_t i = 0; i < gd_kb_row_count(gpus); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(gpus, i);
        enum gd_gpu_match how;
        if (gd_kb_gpu_find(gpus, gd_kb_str(row, "name"), &how) != row || how != GD_GPU_MATCH_EXACT)
            fail_msg("%s does not find its row", gd_kb_str(row, "name"));
        for (size_t k = 0; k < gd_kb_list_len(row, "aliases"); k++)
            if (gd_kb_gpu_find(gpus, gd_kb_list_at(row, "aliases", k), &how) != row)
                fail_msg("alias %s does not find its row", gd_kb_list_at(row, "aliases", k));
    }
}

/* Values as the sources state them (docs/kb.md names the sources). */
static void test_spot_checks(void **state)
{
    (void)state;
    static const struct {
        const char *name, *cc, *source;
    } spots[] = {
        { "NVIDIA GB10 (DGX Spark)", "12.1", "cuda-gpus" },
        { "GeForce RTX 5090", "12.0", "cuda-gpus" },
        { "NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0", "cuda-gpus" },
        { "Jetson T5000", "11.0", "cuda-gpus" },
        { "NVIDIA B300", "10.3", "cuda-gpus" },
        { "NVIDIA B200", "10.0", "cuda-gpus" },
        { "NVIDIA H100", "9.0", "cuda-gpus" },
        { "NVIDIA H200", "9.0", "cuda-gpus" },
        { "NVIDIA L4", "8.9", "cuda-gpus" },
        { "GeForce RTX 4090", "8.9", "cuda-gpus" },
        { "NVIDIA RTX 6000 Ada", "8.9", "cuda-gpus" },
        { "Jetson AGX Orin", "8.7", "cuda-gpus" },
        { "NVIDIA A10", "8.6", "cuda-gpus" },
        { "NVIDIA RTX A6000", "8.6", "cuda-gpus" },
        { "GeForce RTX 3090", "8.6", "tensorrt-rtx-support" },
        { "NVIDIA A100", "8.0", "tensorrt-support-matrix" },
        { "NVIDIA A30", "8.0", "cuda-gpus-2022" },
        { "NVIDIA T4", "7.5", "tensorrt-support-matrix" },
        { "Quadro RTX 8000", "7.5", "cuda-gpus-2022" },
        { "GeForce RTX 2080 Ti", "7.5", "tensorrt-rtx-support" },
        { "Jetson AGX Xavier", "7.2", "cuda-legacy-gpus" },
        { "NVIDIA V100", "7.0", "cuda-legacy-gpus" },
        { "NVIDIA TITAN V", "7.0", "cuda-legacy-gpus" },
        { "Jetson TX2", "6.2", "cuda-legacy-gpus" },
        { "GeForce GTX 1080 Ti", "6.1", "cuda-legacy-gpus" },
        { "NVIDIA TITAN X", "6.1", "cuda-legacy-gpus" },
        { "Tesla P100", "6.0", "cuda-legacy-gpus" },
        { "Jetson Nano", "5.3", "cuda-legacy-gpus" },
        { "GeForce GTX TITAN X", "5.2", "cuda-legacy-gpus" },
        { "GeForce GTX 750 Ti", "5.0", "cuda-legacy-gpus" },
    };
    for (size_t i = 0; i < sizeof spots / sizeof *spots; i++) {
        const struct gd_kb_row *row = row_named(spots[i].name);
        assert_string_equal(gd_kb_str(row, "cc"), spots[i].cc);
        assert_string_equal(gd_kb_row_source(row), spots[i].source);
    }
}

static void test_model_key(void **state)
{
    (void)state;
    static const struct {
        const char *model;
        bool suffixes;
        const char *key;
    } cases[] = {
        { "NVIDIA A100-SXM4-80GB", false, "a100-sxm4-80gb" },
        { "NVIDIA A100-SXM4-80GB", true, "a100" },
        { "NVIDIA A100 80GB PCIe", true, "a100" },
        { "Tesla V100-SXM2-16GB", true, "v100" },
        { "Tesla V100-PCIE-32GB", true, "v100" },
        { "NVIDIA H100 80GB HBM3", true, "h100" },
        { "NVIDIA H100 NVL", true, "h100" },
        { "NVIDIA GH200 480GB", true, "gh200" },
        { "NVIDIA GB10 (DGX Spark)", true, "gb10" },
        { "NVIDIA GB10 (DGX Spark)", false, "gb10 (dgx spark)" },
        { "NVIDIA TITAN X (Pascal)", true, "titan x" },
        { "NVIDIA Tesla T4", false, "t4" },
        { "Tesla T4", false, "t4" },
        { "  NVIDIA \t GeForce   RTX 3090 \n", false, "geforce rtx 3090" },
        { "GeForce RTX 2080 Ti", true, "geforce rtx 2080 ti" },
        { "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", true,
          "rtx pro 6000 blackwell max-q workstation edition" },
        { "NVIDIA RTX 4000 SFF Ada", true, "rtx 4000 sff ada" },
        { "Quadro M6000 24GB", true, "quadro m6000" },
        /* What never goes: the first word, a lone prefix, a remark that is the whole name,
         * words that tell products apart. */
        { "PCIe", true, "pcie" },
        { "NVIDIA PCIe", true, "pcie" },
        { "80GB-PCIE", true, "80gb" },
        { "NVIDIA", true, "nvidia" },
        { "NVIDIA ", true, "nvidia" },
        { "Tesla", true, "tesla" },
        { "(x)", true, "(x)" },
        { "A (x)(y)", true, "a (x)(y)" },
        { "A100 GB", true, "a100 gb" },
        { "A100 x80GB", true, "a100 x80gb" },
        { "A100 80gb", true, "a100" },
        { "", true, "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char key[GD_GPU_MODEL_MAX];
        memset(key, 'x', sizeof key);
        if (!gd_gpu_model_key(cases[i].model, cases[i].suffixes, key, sizeof key))
            fail_msg("case %zu: no key", i);
        if (strcmp(key, cases[i].key) != 0)
            fail_msg("case %zu: \"%s\" -> \"%s\", want \"%s\"", i, cases[i].model, key,
                     cases[i].key);
    }
    /* Too long for the buffer: false and an empty buffer; NULL and size 0 are refused. */
    char small[4] = "xyz";
    assert_false(gd_gpu_model_key("NVIDIA T4", false, small, sizeof small));
    assert_string_equal(small, "");
    assert_true(gd_gpu_model_key("abc", false, small, sizeof small));
    assert_string_equal(small, "abc");
    assert_false(gd_gpu_model_key("ab c", false, small, sizeof small));
    assert_false(gd_gpu_model_key(NULL, false, small, sizeof small));
    assert_string_equal(small, "");
    assert_false(gd_gpu_model_key("a", false, small, 0));
}

/* The strings the driver writes in the /proc information file and nvidia-smi prints, as the
 * sources of the table's aliases show them, and their neighbours. */
static void test_find(void **state)
{
    (void)state;
    static const struct {
        const char *model, *row;
        enum gd_gpu_match how;
    } cases[] = {
        { "NVIDIA GeForce RTX 3090", "GeForce RTX 3090", GD_GPU_MATCH_EXACT },
        { "nvidia geforce rtx 3090", "GeForce RTX 3090", GD_GPU_MATCH_EXACT },
        { "GeForce RTX 3090", "GeForce RTX 3090", GD_GPU_MATCH_EXACT },
        { "NVIDIA GeForce RTX 4090", "GeForce RTX 4090", GD_GPU_MATCH_PREFIX },
        { "NVIDIA GeForce RTX 5090", "GeForce RTX 5090", GD_GPU_MATCH_EXACT },
        { "NVIDIA A100-SXM4-80GB", "NVIDIA A100", GD_GPU_MATCH_EXACT },
        { "NVIDIA A100-SXM4-40GB", "NVIDIA A100", GD_GPU_MATCH_EXACT },
        { "NVIDIA A100-PCIE-40GB", "NVIDIA A100", GD_GPU_MATCH_SUFFIX },
        { "NVIDIA A100 80GB PCIe", "NVIDIA A100", GD_GPU_MATCH_SUFFIX },
        { "Tesla T4", "NVIDIA T4", GD_GPU_MATCH_EXACT },
        { "Tesla V100-SXM2-16GB", "NVIDIA V100", GD_GPU_MATCH_SUFFIX },
        { "Tesla V100-PCIE-32GB", "NVIDIA V100", GD_GPU_MATCH_SUFFIX },
        { "Tesla P100-PCIE-16GB", "Tesla P100", GD_GPU_MATCH_SUFFIX },
        { "NVIDIA H100 80GB HBM3", "NVIDIA H100", GD_GPU_MATCH_EXACT },
        { "NVIDIA H100 PCIe", "NVIDIA H100", GD_GPU_MATCH_SUFFIX },
        { "NVIDIA H100 NVL", "NVIDIA H100", GD_GPU_MATCH_SUFFIX },
        { "NVIDIA GH200 480GB", "NVIDIA GH200", GD_GPU_MATCH_SUFFIX },
        { "NVIDIA GB10", "NVIDIA GB10 (DGX Spark)", GD_GPU_MATCH_SUFFIX },
        { "NVIDIA L4", "NVIDIA L4", GD_GPU_MATCH_EXACT },
        { " NVIDIA  L40S\t", "NVIDIA L40S", GD_GPU_MATCH_PREFIX },
        { "NVIDIA RTX A6000", "NVIDIA RTX A6000", GD_GPU_MATCH_EXACT },
        { "NVIDIA RTX 4000 SFF Ada", "NVIDIA RTX 4000 SFF Ada", GD_GPU_MATCH_EXACT },
        { "NVIDIA RTX 4000 Ada", "NVIDIA RTX 4000 Ada", GD_GPU_MATCH_EXACT },
        { "Quadro RTX 4000", "Quadro RTX 4000", GD_GPU_MATCH_EXACT },
        { "NVIDIA Quadro RTX 4000", "Quadro RTX 4000", GD_GPU_MATCH_PREFIX },
        { "GeForce GTX 1080", "GeForce GTX 1080", GD_GPU_MATCH_EXACT },
        { "NVIDIA GeForce GTX 1080 Ti", "GeForce GTX 1080 Ti", GD_GPU_MATCH_PREFIX },
        /* Two TITAN X: Pascal (6.1) and Maxwell (5.2), told apart by "GeForce GTX". */
        { "NVIDIA TITAN X (Pascal)", "NVIDIA TITAN X", GD_GPU_MATCH_SUFFIX },
        { "NVIDIA GeForce GTX TITAN X", "GeForce GTX TITAN X", GD_GPU_MATCH_PREFIX },
        { "Quadro M6000 24GB", "Quadro M6000 24GB", GD_GPU_MATCH_EXACT },
        { "Quadro M6000", "Quadro M6000", GD_GPU_MATCH_EXACT },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        enum gd_gpu_match how = GD_GPU_MATCH_AMBIGUOUS;
        const struct gd_kb_row *row = gd_kb_gpu_find(gpus, cases[i].model, &how);
        if (!row)
            fail_msg("%s: no row (%d)", cases[i].model, (int)how);
        if (strcmp(gd_kb_str(row, "name"), cases[i].row) != 0 || how != cases[i].how)
            fail_msg("%s: row %s by %d, want %s by %d", cases[i].model, gd_kb_str(row, "name"),
                     (int)how, cases[i].row, (int)cases[i].how);
    }
    assert_string_equal(gd_kb_str(gd_kb_gpu_find(gpus, "NVIDIA TITAN X (Pascal)", NULL), "cc"),
                        "6.1");
    assert_string_equal(gd_kb_str(gd_kb_gpu_find(gpus, "NVIDIA GeForce GTX TITAN X", NULL), "cc"),
                        "5.2");

    /* Models no source placed: absent, never a neighbour's value. */
    static const char *const unknown[] = {
        "NVIDIA A800-SXM4-80GB",
        "NVIDIA GeForce RTX 3090 Ti",
        "NVIDIA A10G",
        "Tesla V100S-PCIE-32GB",
        "NVIDIA GeForce RTX 4090 D",
        "NVIDIA GeForce RTX 4090 Laptop GPU",
        "GeForce GTX 650",
        "NVIDIA RTX 6000 Ada Generation",
        "NVIDIA",
        "Tesla",
        "PCIe",
        "",
        "   ",
        "NVIDIA A",
        "NVIDIA A1000",
    };
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++) {
        enum gd_gpu_match how = GD_GPU_MATCH_EXACT;
        const struct gd_kb_row *row = gd_kb_gpu_find(gpus, unknown[i], &how);
        if (row)
            fail_msg("\"%s\" found %s", unknown[i], gd_kb_str(row, "name"));
        assert_int_equal(how, GD_GPU_MATCH_NONE);
    }
    /* "A100" without a prefix is the A100's key too: the prefix stage finds it. */
    enum gd_gpu_match how;
    assert_non_null(gd_kb_gpu_find(gpus, "A100", &how));
    assert_int_equal(how, GD_GPU_MATCH_PREFIX);

    /* A name longer than any key matches nothing; NULL arguments are fine. */
    char longer[GD_GPU_MODEL_MAX + 10];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_null(gd_kb_gpu_find(gpus, longer, &how));
    assert_int_equal(how, GD_GPU_MATCH_NONE);
    assert_null(gd_kb_gpu_find(gpus, NULL, &how));
    assert_null(gd_kb_gpu_find(NULL, "NVIDIA T4", NULL));
}

/* Rows of different compute capability matching in one stage make the lookup ambiguous; rows
 * that agree do not. */
static void test_ambiguous(void **state)
{
    (void)state;
    static const char json[] =
        "{\"table\": \"gpus\", \"format\": 1, \"sources\": {\"s\": {\"url\": \"https://s/\"}},\n"
        " \"rows\": [\n"
        "  {\"name\": \"Foo A\", \"cc\": \"1.0\", \"source\": \"s\"},\n"
        "  {\"name\": \"Foo A PCIe\", \"cc\": \"2.0\", \"source\": \"s\"},\n"
        "  {\"name\": \"Bar\", \"cc\": \"3.0\", \"source\": \"s\"},\n"
        "  {\"name\": \"Bar 16GB\", \"cc\": \"3.0\", \"source\": \"s\"},\n"
        "  {\"name\": \"NVIDIA Baz\", \"cc\": \"4.0\", \"source\": \"s\"},\n"
        "  {\"name\": \"Tesla Baz\", \"cc\": \"5.0\", \"source\": \"s\"},\n"
        "  {\"name\": \"Qux\", \"source\": \"s\", \"aliases\": [\"Qux-SXM4\", 7]}\n"
        " ]}";
    struct gd_kb_table *t = NULL;
    char problem[128];
    assert_int_equal(gd_kb_table_parse("gpus", json, strlen(json), &t, problem, sizeof problem),
                     GD_OK);
    enum gd_gpu_match how;
    assert_null(gd_kb_gpu_find(t, "Foo A-SXM4", &how));
    assert_int_equal(how, GD_GPU_MATCH_AMBIGUOUS);
    /* An earlier stage decides before the ambiguity of a later one. */
    assert_string_equal(gd_kb_str(gd_kb_gpu_find(t, "foo a pcie", &how), "cc"), "2.0");
    assert_int_equal(how, GD_GPU_MATCH_EXACT);
    assert_string_equal(gd_kb_str(gd_kb_gpu_find(t, "Bar-PCIe", &how), "cc"), "3.0");
    assert_int_equal(how, GD_GPU_MATCH_SUFFIX);
    assert_null(gd_kb_gpu_find(t, "Baz", &how));
    assert_int_equal(how, GD_GPU_MATCH_AMBIGUOUS);
    /* A row without cc is found (the probe refuses its value); a non-string alias is skipped. */
    assert_string_equal(gd_kb_str(gd_kb_gpu_find(t, "Qux-SXM4", &how), "name"), "Qux");
    assert_int_equal(how, GD_GPU_MATCH_EXACT);
    gd_kb_table_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),        cmocka_unit_test(test_rows_find_themselves),
        cmocka_unit_test(test_spot_checks), cmocka_unit_test(test_model_key),
        cmocka_unit_test(test_find),        cmocka_unit_test(test_ambiguous),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
