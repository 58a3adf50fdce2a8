/*
 * gpudoctor explain's signature tables (a user's --kb DIR/explain_signatures.json): the bytes
 * parsed as the explain_signatures table, compiled into a signature set (src/explain/sigs.h)
 * with the embedded explain_causes, and a fixed log of real lines scanned with it.
 *
 * Invariants: parsing fails with a terminated problem text or gives a table; building gives
 * GD_OK or GD_ENOMEM, never more signatures than rows nor than GD_SIG_MAX, every signature has a
 * known cause, a weight of 1 to 3, a compiled pattern and a source, every literal 4 to
 * GD_SIG_LITERAL_MAX bytes without a line separator and pointing to signatures that exist; each
 * problem text is terminated and non-empty; the Wu-Manber tables agree with the literals (the
 * key of each literal has shift 0 at its end and its prefix bit set). The scan with the set
 * counts no more matched lines than the log has, and the same whether fed whole or by lines.
 */
#include "fuzz.h"

#include "explain/scan.h"
#include "explain/sigs.h"
#include "kb/kb.h"

static struct gd_kb *kb;

static const char log_text[] =
    "2023-06-13 10:31:02.213401: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
    "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared "
    "object file: No such file or directory\n"
    "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total "
    "capacity; 6.61 GiB already allocated; 13.44 MiB free; 6.71 GiB reserved in total by "
    "PyTorch)\r\n"
    "May 18 19:02:39 kernel: NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.\n"
    "\x00\xff\xfe invalid bytes\r progress 10%\r progress 100%\n"
    "Failed to initialize NVML: Driver/library version mismatch\n"
    "RuntimeError: CUDA error: no kernel image is available for execution on the device";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!kb && gd_kb_open(NULL, &kb) != GD_OK)
        abort();
    struct gd_kb_table *t = NULL;
    char problem[256];
    enum gd_status st = gd_kb_table_parse("explain_signatures", (const char *)data, size, &t,
                                          problem, sizeof problem);
    FUZZ_CHECK(st == GD_OK || st == GD_EFORMAT || st == GD_ENOMEM);
    if (st != GD_OK) {
        FUZZ_CHECK(t == NULL && fuzz_terminated(problem, sizeof problem));
        return 0;
    }
    struct gd_sigset set;
    st = gd_sigset_build(t, gd_kb_table(kb, "explain_causes"), &set);
    FUZZ_CHECK(st == GD_OK || st == GD_ENOMEM);
    if (st != GD_OK) {
        gd_kb_table_free(t);
        return 0;
    }
    FUZZ_CHECK(set.nsigs <= gd_kb_row_count(t) && set.nsigs <= GD_SIG_MAX);
    FUZZ_CHECK(set.nproblems <= GD_SIG_PROBLEMS_MAX);
    for (size_t i = 0; i < set.nproblems; i++)
        FUZZ_CHECK(set.problems[i] && set.problems[i][0] != '\0');
    for (size_t i = 0; i < set.nsigs; i++) {
        const struct gd_sig *g = &set.sigs[i];
        FUZZ_CHECK(g->id && g->code && g->source);
        FUZZ_CHECK(g->cause < GD_CAUSE_COUNT);
        FUZZ_CHECK(g->weight >= 1 && g->weight <= 3);
        FUZZ_CHECK(g->nparams <= GD_SIG_PARAMS_MAX);
        FUZZ_CHECK(gd_sigset_find(&set, g->id) != NULL);
    }
    FUZZ_CHECK(set.nlits == 0 ? set.m == 0 : set.m >= 4 && set.m <= GD_SIG_KEY_MAX);
    for (size_t i = 0; i < set.nlits; i++) {
        const struct gd_literal *l = &set.lits[i];
        FUZZ_CHECK(l->len >= GD_SIG_LITERAL_MIN && l->len <= GD_SIG_LITERAL_MAX);
        FUZZ_CHECK(l->len >= set.m && l->key_off + set.m <= l->len);
        FUZZ_CHECK(!memchr(l->text, '\n', l->len) && !memchr(l->text, '\r', l->len));
        FUZZ_CHECK(l->nsigs >= 1);
        for (size_t k = 0; k < l->nsigs; k++)
            FUZZ_CHECK(l->sigs[k] < set.nsigs);
        const unsigned char *key = (const unsigned char *)l->text + l->key_off;
        FUZZ_CHECK(set.shift[gd_sig_hash3(key + set.m - 3)] == 0);
        uint32_t first = gd_sig_hash3(key);
        FUZZ_CHECK((set.prefix[first >> 6] >> (first & 63)) & 1);
        if (i)
            FUZZ_CHECK(set.lits[i - 1].hash <= l->hash);
    }

    /* The same log whole and line by line. */
    struct gd_scanner *a = NULL, *b = NULL;
    if (gd_scanner_new(&set, &a) == GD_OK && gd_scanner_new(&set, &b) == GD_OK) {
        size_t len = sizeof log_text - 1;
        FUZZ_CHECK(gd_scanner_feed(a, 0, log_text, len) == GD_OK);
        for (size_t off = 0; off < len;) {
            const char *nl = memchr(log_text + off, '\n', len - off);
            size_t n = nl ? (size_t)(nl - (log_text + off)) + 1 : len - off;
            FUZZ_CHECK(gd_scanner_feed(b, 0, log_text + off, n) == GD_OK);
            off += n;
        }
        FUZZ_CHECK(gd_scanner_finish(a) == GD_OK && gd_scanner_finish(b) == GD_OK);
        FUZZ_CHECK(gd_scanner_lines(a, 0) == 6 && gd_scanner_lines(b, 0) == 6);
        FUZZ_CHECK(a->matched_lines[0] <= 6 && a->matched_lines[0] == b->matched_lines[0]);
        for (size_t i = 0; i < set.nsigs; i++) {
            FUZZ_CHECK(a->hits[i].count == b->hits[i].count && a->hits[i].count <= 6);
            FUZZ_CHECK(a->hits[i].nkept == b->hits[i].nkept);
        }
    }
    gd_scanner_free(a);
    gd_scanner_free(b);
    gd_sigset_free(&set);
    gd_kb_table_free(t);
    return 0;
}
