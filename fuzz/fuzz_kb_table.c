/*
 * Knowledge-base tables (the files of data/kb/, or a user's --kb override): gd_kb_table_parse on
 * the bytes, then every accessor over every row. The table is parsed under the name of an embedded
 * table that the input mentions, so that the shipped tables (the seeds) get past the
 * "table matches the file name" check. Invariants: a failure says why in a NUL-terminated
 * problem text; a parsed table's rows all name a source with a URL, as the loader promises.
 */
#include "fuzz.h"

#include "kb/embedded.h"
#include "kb/kb.h"

static bool mentions(const uint8_t *data, size_t size, const char *name)
{
    char quoted[160];
    int n = snprintf(quoted, sizeof quoted, "\"%s\"", name);
    if (n <= 0 || (size_t)n >= sizeof quoted)
        return false;
    for (size_t i = 0; (size_t)n <= size && i + (size_t)n <= size; i++)
        if (memcmp(data + i, quoted, (size_t)n) == 0)
            return true;
    return false;
}

static void walk(const struct gd_kb_table *t)
{
    /* Fields of every shipped table, strings and lists (the compatibility tables' versions
     * and lists too: cuda, cc, linux, cudnn, tensorflow, torch). */
    static const char *const fields[] = { "source",     "os_id",  "commands", "before",
                                          "variable",   "values", "keys",     "kind",
                                          "cuda",       "cc",     "linux",    "cudnn",
                                          "tensorflow", "torch",  "also",     "" };
    size_t rows = gd_kb_row_count(t);
    FUZZ_CHECK(gd_kb_row_at(t, rows) == NULL);
    for (size_t r = 0; r < rows; r++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, r);
        FUZZ_CHECK(row != NULL);
        const char *source = gd_kb_row_source(row);
        FUZZ_CHECK(source != NULL);
        FUZZ_CHECK(gd_kb_source_url(t, source) != NULL);
        (void)gd_kb_source_title(t, source);
        for (size_t f = 0; f < sizeof fields / sizeof *fields; f++) {
            (void)gd_kb_str(row, fields[f]);
            size_t n = gd_kb_list_len(row, fields[f]);
            for (size_t i = 0; i <= n; i++) {
                const char *item = gd_kb_list_at(row, fields[f], i);
                if (i == n)
                    FUZZ_CHECK(item == NULL);
                else if (item)
                    FUZZ_CHECK(gd_kb_list_has(row, fields[f], item));
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *name = gd_kb_embedded_count ? gd_kb_embedded[0].name : "table";
    for (size_t i = 0; i < gd_kb_embedded_count; i++) {
        if (mentions(data, size, gd_kb_embedded[i].name)) {
            name = gd_kb_embedded[i].name;
            break;
        }
    }
    struct gd_kb_table *t = NULL;
    char problem[256];
    enum gd_status st =
        gd_kb_table_parse(name, (const char *)data, size, &t, problem, sizeof problem);
    FUZZ_CHECK(st == GD_OK || st == GD_EFORMAT || st == GD_ENOMEM);
    if (st == GD_OK) {
        FUZZ_CHECK(t != NULL);
        FUZZ_CHECK(strcmp(gd_kb_table_name(t), name) == 0);
        walk(t);
    } else {
        FUZZ_CHECK(t == NULL);
        FUZZ_CHECK(fuzz_terminated(problem, sizeof problem));
        if (st == GD_EFORMAT)
            FUZZ_CHECK(problem[0] != '\0');
    }
    gd_kb_table_free(t);
    return 0;
}
