/*
 * gpudoctor explain's matching: every signature against the real line its table gives, the
 * patterns as POSIX EREs (what bench/explain_grep.sh hands grep), a corpus of healthy logs that
 * must explain nothing, failed logs whose first cause is known, and the streaming cases (any
 * split of the input, CR, CRLF, NUL, invalid UTF-8, lines far longer than any buffer), the
 * ranking, both channels, rendering, and each allocation failed in turn.
 */
#define _GNU_SOURCE
#include "core/alloc.h"
#include "explain/explain.h"
#include "kb/kb.h"

#include <gpudoctor/gpudoctor.h>
#include <json-c/json.h>
#include <dirent.h>
#ifndef _WIN32
#include <regex.h> /* the system's ERE engine: Windows' C library has none */
#endif
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static struct gd_explain *ex;

static int setup(void **state)
{
    (void)state;
    return gd_explain_new(NULL, &ex) == GD_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gd_explain_free(ex);
    return 0;
}

/* ---- helpers ------------------------------------------------------------------------------ */

/* Whether `hay` (`n` bytes) holds `needle` (`len` bytes): memmem, which is GNU's. */
static bool holds(const char *hay, size_t n, const char *needle, size_t len)
{
    for (size_t i = 0; len <= n && i <= n - len; i++)
        if (memcmp(hay + i, needle, len) == 0)
            return true;
    return false;
}

static struct gd_explain_result *explain_bytes(const char *data, size_t len)
{
    struct gd_explain_result *r = NULL;
    assert_int_equal(gd_explain_message(ex, data, len, NULL, &r), GD_OK);
    return r;
}

static struct gd_explain_result *explain_str(const char *s)
{
    return explain_bytes(s, strlen(s));
}

/* Feed `data` in pieces of `chunk` bytes (0: at the offsets of `splits`, a 0-terminated list). */
static struct gd_explain_result *explain_chunked(const char *data, size_t len, size_t chunk)
{
    struct gd_explain_stream *s = NULL;
    assert_int_equal(gd_explain_stream_new(ex, &s), GD_OK);
    for (size_t off = 0; off < len; off += chunk) {
        size_t n = len - off < chunk ? len - off : chunk;
        assert_int_equal(gd_explain_stream_feed(s, 0, data + off, n), GD_OK);
    }
    struct gd_explain_result *r = NULL;
    assert_int_equal(gd_explain_stream_finish(s, "chunked", NULL, &r), GD_OK);
    gd_explain_stream_free(s);
    return r;
}

static const struct gd_explain_cause *cause(const struct gd_explain_result *r, const char *id)
{
    for (size_t i = 0; i < gd_explain_cause_count(r); i++)
        if (strcmp(gd_explain_cause_id(gd_explain_cause_at(r, i)), id) == 0)
            return gd_explain_cause_at(r, i);
    return NULL;
}

static const struct gd_explain_match *match_of(const struct gd_explain_result *r, const char *sig)
{
    for (size_t i = 0; i < gd_explain_cause_count(r); i++) {
        const struct gd_explain_cause *c = gd_explain_cause_at(r, i);
        for (size_t k = 0; k < gd_explain_cause_match_count(c); k++)
            if (strcmp(gd_explain_match_signature(gd_explain_cause_match_at(c, k)), sig) == 0)
                return gd_explain_cause_match_at(c, k);
    }
    return NULL;
}

/* The JSON rendering of a result, for comparing two results (the log's name left out). */
static char *json_of(const struct gd_explain_result *r)
{
    char *out = NULL;
    size_t len = 0;
    assert_int_equal(gd_explain_render(r, GD_FORMAT_JSON, NULL, &out, &len), GD_OK);
    /* The input's name differs between the helpers (whole, chunked): drop its line. */
    char *name = strstr(out, "\"name\":");
    if (name) {
        char *end = strchr(name, '\n');
        memmove(name, end, strlen(end) + 1);
    }
    return out;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t)n + 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
    data[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return data;
}

static const struct gd_kb_table *signatures(void)
{
    const struct gd_kb_table *t = gd_kb_table(ex->kb, "explain_signatures");
    assert_non_null(t);
    return t;
}

/* ---- the tables --------------------------------------------------------------------------- */

static void test_tables(void **state)
{
    (void)state;
    for (size_t i = 0; i < gd_explain_problem_count(ex); i++)
        print_message("problem: %s\n", gd_explain_problem_at(ex, i));
    assert_int_equal(gd_explain_problem_count(ex), 0);
    assert_true(gd_explain_signature_count(ex) >= 60);
    assert_int_equal(gd_explain_signature_count(ex), gd_kb_row_count(signatures()));
    /* Every cause has its row, and at least one signature names it. */
    for (unsigned c = 0; c < GD_CAUSE_COUNT; c++) {
        assert_non_null(ex->set.causes[c].row);
        assert_non_null(ex->set.causes[c].meaning);
        assert_true(gd_kb_list_len(ex->set.causes[c].row, "fix") > 0);
        bool named = false;
        for (size_t i = 0; i < ex->set.nsigs && !named; i++)
            named = ex->set.sigs[i].cause == (enum gd_cause_id)c;
        if (!named)
            fail_msg("no signature for cause %s", gd_cause_name((enum gd_cause_id)c));
    }
    /* The xids table: each row an Xid number with a mnemonic, meaning and action. */
    const struct gd_kb_table *x = gd_kb_table(ex->kb, "xids");
    assert_non_null(x);
    for (size_t i = 0; i < gd_kb_row_count(x); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(x, i);
        const char *n = gd_kb_str(row, "xid");
        assert_non_null(n);
        assert_true(strtol(n, NULL, 10) > 0);
        assert_non_null(gd_kb_str(row, "mnemonic"));
        assert_non_null(gd_kb_str(row, "meaning"));
        assert_non_null(gd_kb_str(row, "action"));
    }
}

/* Every signature matches the real line of its row, extracts exactly the parameters the row
 * states, and its cause comes first when that line is explained alone. */
static void test_examples(void **state)
{
    (void)state;
    const struct gd_kb_table *t = signatures();
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *id = gd_kb_str(row, "id"), *example = gd_kb_str(row, "example");
        const char *want_cause = gd_kb_str(row, "cause");
        assert_non_null(example);
        struct gd_explain_result *r = explain_str(example);
        const struct gd_explain_match *m = match_of(r, id);
        if (!m)
            fail_msg("%s does not match its example: %s", id, example);
        assert_int_equal(gd_explain_match_line(m), 1);
        const char *src = gd_explain_match_source(m);
        if (!src || strncmp(src, "https://", 8) != 0)
            fail_msg("%s: no source URL", id);
        /* The parameters: those of example_params (a JSON object, read through json-c). */
        size_t want = 0;
        struct json_object *params = NULL;
        if (json_object_object_get_ex((struct json_object *)row, "example_params", &params)) {
            json_object_object_foreach(params, key, val)
            {
                want++;
                const char *got = gd_explain_match_param(m, key);
                if (!got || strcmp(got, json_object_get_string(val)) != 0)
                    fail_msg("%s: parameter %s is %s, the row says %s", id, key,
                             got ? got : "(unset)", json_object_get_string(val));
            }
        } else {
            fail_msg("%s: no example_params", id);
        }
        if (gd_explain_match_param_count(m) != want)
            fail_msg("%s: %zu parameters extracted, the row states %zu", id,
                     gd_explain_match_param_count(m), want);
        const char *top = gd_explain_cause_id(gd_explain_cause_at(r, 0));
        if (strcmp(top, want_cause) != 0)
            fail_msg("%s: its example is explained first as %s, not %s", id, top, want_cause);
        gd_explain_result_free(r);
    }
}

/* The patterns as POSIX extended regular expressions (named and non-capturing groups made
 * plain), as bench/explain_grep.sh gives them to grep -E: each compiles and matches its
 * example, so the benchmark compares the same patterns. */
static void test_patterns_are_eres(void **state)
{
    (void)state;
#ifdef _WIN32
    /* The patterns are data, the same in every build: the Linux build checks them. */
    print_message("no POSIX regex engine in Windows' C library: the ERE check is the Linux "
                  "build's\n");
    skip();
#else
    const struct gd_kb_table *t = signatures();
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *p = gd_kb_str(row, "pattern");
        char ere[GD_SIG_PATTERN_MAX + 1];
        size_t n = 0;
        while (*p && n < sizeof ere - 1) {
            if (p[0] == '(' && p[1] == '?' && p[2] == '<') {
                const char *close = strchr(p, '>');
                assert_non_null(close);
                ere[n++] = '(';
                p = close + 1;
            } else if (p[0] == '(' && p[1] == '?' && p[2] == ':') {
                ere[n++] = '(';
                p += 3;
            } else {
                ere[n++] = *p++;
            }
        }
        ere[n] = '\0';
        if (strstr(ere, "(?"))
            fail_msg("%s: the pattern uses PCRE-only syntax: %s", gd_kb_str(row, "id"), ere);
        regex_t re;
        int rc = regcomp(&re, ere, REG_EXTENDED | REG_NOSUB);
        if (rc != 0)
            fail_msg("%s: not an ERE: %s", gd_kb_str(row, "id"), ere);
        if (regexec(&re, gd_kb_str(row, "example"), 0, NULL, 0) != 0)
            fail_msg("%s: as an ERE it does not match its example", gd_kb_str(row, "id"));
        regfree(&re);
    }
#endif
}

/* Each literal of a row occurs in the row's example, or the signature says why not: a literal
 * listed but never seen in the example is untested. */
static void test_literals(void **state)
{
    (void)state;
    const struct gd_kb_table *t = signatures();
    for (size_t i = 0; i < gd_kb_row_count(t); i++) {
        const struct gd_kb_row *row = gd_kb_row_at(t, i);
        const char *example = gd_kb_str(row, "example");
        bool any = false;
        for (size_t k = 0; k < gd_kb_list_len(row, "literals"); k++)
            any = any || strstr(example, gd_kb_list_at(row, "literals", k));
        if (!any)
            fail_msg("%s: no literal occurs in the example", gd_kb_str(row, "id"));
    }
}

/* ---- corpora ------------------------------------------------------------------------------ */

static void test_clean_corpus(void **state)
{
    (void)state;
    const char *dir = GD_SOURCE_DIR "/tests/fixtures/explain/clean";
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t files = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        if (ent->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        size_t len = 0;
        char *data = read_file(path, &len);
        struct gd_explain_result *r = explain_chunked(data, len, 4096);
        assert_true(gd_explain_result_lines(r, 0) > 5);
        for (size_t i = 0; i < gd_explain_cause_count(r); i++) {
            const struct gd_explain_cause *c = gd_explain_cause_at(r, i);
            size_t n = 0;
            const char *text = gd_explain_match_text(gd_explain_cause_match_at(c, 0), &n);
            print_message("%s: %s at line %llu: %.*s\n", ent->d_name, gd_explain_cause_id(c),
                          gd_explain_match_line(gd_explain_cause_match_at(c, 0)), (int)n, text);
        }
        if (gd_explain_cause_count(r))
            fail_msg("%s is a healthy log, yet a cause was found", ent->d_name);
        gd_explain_result_free(r);
        free(data);
        files++;
    }
    closedir(d);
    assert_true(files >= 5);
}

static void test_failed_corpus(void **state)
{
    (void)state;
    static const struct {
        const char *file, *first, *second;
    } cases[] = {
        { "tf_cudnn8_missing.log", "cudnn-not-found", "cuda-library-not-found" },
        { "pytorch_oom.log", "out-of-memory", NULL },
        { "nccl_watchdog_timeout.log", "nccl-error", NULL },
        { "dmesg_xid79.log", "hardware-xid", NULL },
        { "jax_cudnn_too_old.log", "cudnn-version-mismatch", "cudnn-internal-or-init-failure" },
        { "pytorch_sm86_not_in_build.log", "no-kernel-image", NULL },
        /* cuDNN's sub-library exists; the driver's libcuda.so it needs does not. */
        { "cudnn_sublib_needs_libcuda.log", "driver-not-loaded", "cudnn-not-found" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/fixtures/explain/failed/%s", GD_SOURCE_DIR,
                 cases[i].file);
        size_t len = 0;
        char *data = read_file(path, &len);
        struct gd_explain_result *r = explain_bytes(data, len);
        assert_int_equal(gd_explain_cause_count(r), cases[i].second ? 2 : 1);
        assert_string_equal(gd_explain_cause_id(gd_explain_cause_at(r, 0)), cases[i].first);
        if (cases[i].second)
            assert_string_equal(gd_explain_cause_id(gd_explain_cause_at(r, 1)), cases[i].second);
        assert_int_equal(gd_explain_cause_verdict(gd_explain_cause_at(r, 0)), GD_EXPLAIN_UNCHECKED);
        gd_explain_result_free(r);
        free(data);
    }
}

/* ---- streaming ---------------------------------------------------------------------------- */

static const char sample[] =
    "2024-05-14 08:12:31 INFO starting\n"
    "Epoch 1/3\n"
    "2019-07-21 23:23:06.224853: E tensorflow/stream_executor/cuda/cuda_blas.cc:238] failed to "
    "create cublas handle: CUBLAS_STATUS_NOT_INITIALIZED\n"
    "2019-07-21 23:23:06.228049: E tensorflow/stream_executor/cuda/cuda_driver.cc:828] failed to "
    "allocate 32.00M (33554432 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n"
    "some noise line without anything\n"
    "  (0) Unknown: Failed to get convolution algorithm. This is probably because cuDNN failed "
    "to initialize, so try looking to see if a warning log message was printed above.\n"
    "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    "done";

/* Any way of cutting the input into feeds gives the same result. */
static void test_chunking(void **state)
{
    (void)state;
    size_t len = strlen(sample);
    struct gd_explain_result *whole = explain_bytes(sample, len);
    char *want = json_of(whole);
    assert_int_equal(gd_explain_result_lines(whole, 0), 8);
    for (size_t chunk = 1; chunk <= len; chunk = chunk < 16 ? chunk + 1 : chunk * 3) {
        struct gd_explain_result *r = explain_chunked(sample, len, chunk);
        char *got = json_of(r);
        if (strcmp(want, got) != 0) {
            fprintf(stderr, "feeds of %zu bytes give another result:\n%s\nwant:\n%s\n", chunk, got,
                    want);
            fail();
        }
        free(got);
        gd_explain_result_free(r);
    }
    /* Every single cut point. */
    for (size_t cut = 1; cut < len; cut++) {
        struct gd_explain_stream *s = NULL;
        assert_int_equal(gd_explain_stream_new(ex, &s), GD_OK);
        assert_int_equal(gd_explain_stream_feed(s, 0, sample, cut), GD_OK);
        assert_int_equal(gd_explain_stream_feed(s, 0, sample + cut, len - cut), GD_OK);
        struct gd_explain_result *r = NULL;
        assert_int_equal(gd_explain_stream_finish(s, "x", NULL, &r), GD_OK);
        char *got = json_of(r);
        if (strcmp(want, got) != 0)
            fail_msg("cut at %zu gives another result", cut);
        free(got);
        gd_explain_result_free(r);
        gd_explain_stream_free(s);
    }
    free(want);
    gd_explain_result_free(whole);
}

/* The same log with CRLF line ends: the same causes on the same lines. */
static void test_crlf(void **state)
{
    (void)state;
    char crlf[sizeof sample * 2];
    size_t n = 0;
    for (const char *p = sample; *p; p++) {
        if (*p == '\n')
            crlf[n++] = '\r';
        crlf[n++] = *p;
    }
    struct gd_explain_result *a = explain_bytes(sample, strlen(sample));
    struct gd_explain_result *b = explain_bytes(crlf, n);
    assert_int_equal(gd_explain_cause_count(a), gd_explain_cause_count(b));
    assert_int_equal(gd_explain_result_lines(b, 0), 8);
    for (size_t i = 0; i < gd_explain_cause_count(a); i++) {
        const struct gd_explain_cause *ca = gd_explain_cause_at(a, i),
                                      *cb = gd_explain_cause_at(b, i);
        assert_string_equal(gd_explain_cause_id(ca), gd_explain_cause_id(cb));
        assert_int_equal(gd_explain_cause_match_count(ca), gd_explain_cause_match_count(cb));
        for (size_t k = 0; k < gd_explain_cause_match_count(ca); k++) {
            const struct gd_explain_match *ma = gd_explain_cause_match_at(ca, k);
            const struct gd_explain_match *mb = gd_explain_cause_match_at(cb, k);
            assert_int_equal(gd_explain_match_line(ma), gd_explain_match_line(mb));
            size_t la = 0, lb = 0;
            const char *ta = gd_explain_match_text(ma, &la), *tb = gd_explain_match_text(mb, &lb);
            assert_int_equal(la, lb); /* the '\r' is not part of the line */
            assert_memory_equal(ta, tb, la);
        }
    }
    gd_explain_result_free(a);
    gd_explain_result_free(b);
}

/* A progress bar redrawn with bare '\r's, the error in the middle of it: found, on line 2. */
static void test_cr_progress(void **state)
{
    (void)state;
    static const char log[] = "start\n"
                              "Epoch 0:  10%|#  | 10/100\rEpoch 0:  20%|## | 20/100\r"
                              "RuntimeError: No CUDA GPUs are available\rEpoch 0:  30%|###|\n"
                              "end\n";
    struct gd_explain_result *r = explain_str(log);
    const struct gd_explain_match *m = match_of(r, "pt-no-cuda-gpus");
    assert_non_null(m);
    assert_int_equal(gd_explain_match_line(m), 2);
    size_t n = 0;
    const char *text = gd_explain_match_text(m, &n);
    assert_int_equal(n, strlen("RuntimeError: No CUDA GPUs are available"));
    assert_memory_equal(text, "RuntimeError: No CUDA GPUs are available", n);
    assert_int_equal(gd_explain_result_lines(r, 0), 3);
    gd_explain_result_free(r);
}

static bool valid_utf8(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *e = p + n;
    while (p < e) {
        size_t k = *p < 0x80         ? 1
                   : (*p >> 5) == 6  ? 2
                   : (*p >> 4) == 14 ? 3
                   : (*p >> 3) == 30 ? 4
                                     : 0;
        if (!k || (size_t)(e - p) < k)
            return false;
        for (size_t i = 1; i < k; i++)
            if ((p[i] & 0xc0) != 0x80)
                return false;
        p += k;
    }
    return true;
}

/* NULs, invalid UTF-8 and terminal escapes around a message: matched; the JSON stays valid
 * UTF-8 and the text form shows the bytes escaped, never an escape sequence. */
static void test_hostile_bytes(void **state)
{
    (void)state;
    static const char log[] =
        "\xff\xfe garbage \x1b[31m red\n"
        "\x00\x01RuntimeError: CUDA error: invalid device ordinal\xc3\x28\x00z\n"
        "\xed\xa0\x80 surrogate \xf4\x90\x80\x80 beyond\n";
    size_t len = sizeof log - 1;
    struct gd_explain_result *r = explain_bytes(log, len);
    const struct gd_explain_match *m = match_of(r, "invalid-device-ordinal");
    assert_non_null(m);
    assert_int_equal(gd_explain_match_line(m), 2);
    size_t n = 0;
    const char *text = gd_explain_match_text(m, &n);
    assert_int_equal(n, strlen("..RuntimeError: CUDA error: invalid device ordinal") + 4);
    assert_int_equal(text[0], '\0');
    char *out = NULL;
    size_t olen = 0;
    assert_int_equal(gd_explain_render(r, GD_FORMAT_JSON, NULL, &out, &olen), GD_OK);
    assert_true(valid_utf8(out, olen));
    struct json_object *j = json_tokener_parse(out);
    assert_non_null(j);
    json_object_put(j);
    free(out);
    struct gd_render_options ro = { false, true };
    assert_int_equal(gd_explain_render(r, GD_FORMAT_TEXT, &ro, &out, &olen), GD_OK);
    assert_null(memchr(out, '\x1b', olen));
    assert_non_null(strstr(out, "\\x00\\x01RuntimeError"));
    assert_non_null(strstr(out, "ordinal\\xc3(\\x00z"));
    free(out);
    gd_explain_result_free(r);
}

static char *repeat(char c, size_t n)
{
    char *p = malloc(n);
    assert_non_null(p);
    memset(p, c, n);
    return p;
}

/* Lines far longer than any buffer: the message in the middle of a 3 MiB line (fed in 4 KiB
 * pieces, so it passes through the kept tail), and right after 70 KiB on its line. */
static void test_long_lines(void **state)
{
    (void)state;
    static const char msg[] = "RuntimeError: CUDA error: an illegal memory access was encountered";
    size_t pad = 3u * 1024 * 1024 / 2, mlen = strlen(msg);
    char *log = repeat('x', 2 * pad + mlen + 20);
    memcpy(log + pad, msg, mlen);
    memcpy(log + 2 * pad + mlen, "\nsecond line\n", 13);
    size_t len = 2 * pad + mlen + 13;
    for (size_t chunk = 4096; chunk <= len; chunk *= 64) {
        struct gd_explain_result *r = explain_chunked(log, len, chunk);
        const struct gd_explain_match *m = match_of(r, "illegal-memory-access");
        assert_non_null(m);
        assert_int_equal(gd_explain_match_line(m), 1);
        assert_int_equal(gd_explain_result_lines(r, 0), 2);
        size_t n = 0;
        const char *text = gd_explain_match_text(m, &n);
        assert_true(n <= GD_SCAN_TEXT_MAX);
        assert_true(holds(text, n, msg, mlen));
        assert_true(m->cut_before && m->cut_after);
        gd_explain_result_free(r);
    }
    free(log);
    /* 70 KiB before the message on one line, in 1000-byte feeds. */
    size_t before = 70 * 1024;
    log = repeat('y', before + mlen + 1);
    memcpy(log + before, msg, mlen);
    log[before + mlen] = '\n';
    struct gd_explain_result *r = explain_chunked(log, before + mlen + 1, 1000);
    assert_non_null(match_of(r, "illegal-memory-access"));
    gd_explain_result_free(r);
    free(log);
}

/* A line of nothing but one literal, repeated (2 MiB): bounded work, nothing matched. */
static void test_repeated_literal(void **state)
{
    (void)state;
    static const char piece[] = "x: cannot open shared object file";
    size_t n = sizeof piece - 1, count = 2 * 1024 * 1024 / n;
    char *log = malloc(n * count + 1);
    assert_non_null(log);
    for (size_t i = 0; i < count; i++)
        memcpy(log + i * n, piece, n);
    log[n * count] = '\n';
    struct gd_explain_result *r = explain_chunked(log, n * count + 1, 65536);
    assert_int_equal(gd_explain_cause_count(r), 0);
    gd_explain_result_free(r);
    free(log);
}

static void test_line_counts(void **state)
{
    (void)state;
    static const struct {
        const char *log;
        size_t len;
        unsigned long long lines;
    } cases[] = {
        { "", 0, 0 },     { "a", 1, 1 },          { "a\n", 2, 1 },     { "a\nb", 3, 2 },
        { "\n\n", 2, 2 }, { "a\r\nb\r\n", 6, 2 }, { "a\rb\rc", 5, 1 }, { "\0\n\0", 3, 2 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct gd_explain_result *r = explain_bytes(cases[i].log, cases[i].len);
        assert_int_equal(gd_explain_result_lines(r, 0), cases[i].lines);
        gd_explain_result_free(r);
    }
}

/* 1000 matching lines among noise: all counted, the first four and the last one kept. */
static void test_counts_and_kept(void **state)
{
    (void)state;
    static const char noise[] = "I0000 step 12 loss 0.25 all good here\n";
    static const char hit[] = "RuntimeError: CUDA error: device-side assert triggered\n";
    size_t nl = strlen(noise), hl = strlen(hit);
    char *log = malloc(1000 * (3 * nl + hl));
    assert_non_null(log);
    size_t len = 0;
    for (int i = 0; i < 1000; i++) {
        for (int k = 0; k < 3; k++) {
            memcpy(log + len, noise, nl);
            len += nl;
        }
        memcpy(log + len, hit, hl);
        len += hl;
    }
    struct gd_explain_result *r = explain_chunked(log, len, 8192);
    const struct gd_explain_cause *c = cause(r, "tensor-shape-or-api-misuse");
    assert_non_null(c);
    assert_int_equal(gd_explain_cause_line_count(c), 1000);
    assert_int_equal(gd_explain_cause_match_count(c), GD_SCAN_KEEP);
    assert_int_equal(gd_explain_match_line(gd_explain_cause_match_at(c, 0)), 4);
    assert_int_equal(gd_explain_match_line(gd_explain_cause_match_at(c, 1)), 8);
    assert_int_equal(gd_explain_match_line(gd_explain_cause_match_at(c, GD_SCAN_KEEP - 1)), 4000);
    gd_explain_result_free(r);
    free(log);
}

/* The strongest cause first: an out-of-memory (weight 3) before the cuDNN failure TensorFlow
 * reports because of it (weight 1), whatever the order of the lines. */
static void test_ranking(void **state)
{
    (void)state;
    struct gd_explain_result *r = explain_str(sample);
    assert_string_equal(gd_explain_cause_id(gd_explain_cause_at(r, 0)), "out-of-memory");
    const struct gd_explain_cause *oom = gd_explain_cause_at(r, 0);
    assert_int_equal(gd_explain_cause_line_count(oom), 2); /* cuBLAS + the allocation */
    const struct gd_explain_cause *dnn = cause(r, "cudnn-internal-or-init-failure");
    assert_non_null(dnn);
    assert_true(gd_explain_cause_score(oom) > gd_explain_cause_score(dnn));
    for (size_t i = 1; i < gd_explain_cause_count(r); i++)
        assert_true(gd_explain_cause_score(gd_explain_cause_at(r, i - 1)) >=
                    gd_explain_cause_score(gd_explain_cause_at(r, i)));
    gd_explain_result_free(r);
}

/* Standard output and error of a command, interleaved: separate line numbers. */
static void test_channels(void **state)
{
    (void)state;
    struct gd_explain_stream *s = NULL;
    assert_int_equal(gd_explain_stream_new(ex, &s), GD_OK);
    assert_int_equal(gd_explain_stream_feed(s, 0, "epoch 1\nepoch 2\n", 16), GD_OK);
    assert_int_equal(gd_explain_stream_feed(s, 1, "Traceback:\nAssertionError: Torch not ", 37),
                     GD_OK);
    assert_int_equal(gd_explain_stream_feed(s, 0, "epoch 3\n", 8), GD_OK);
    assert_int_equal(gd_explain_stream_feed(s, 1, "compiled with CUDA enabled\n", 27), GD_OK);
    assert_int_equal(gd_explain_stream_feed(s, 2, "x", 1), GD_EINVAL);
    struct gd_explain_result *r = NULL;
    assert_int_equal(gd_explain_stream_finish(s, "cmd", NULL, &r), GD_OK);
    assert_int_equal(gd_explain_stream_feed(s, 0, "x", 1), GD_EINVAL); /* after finish */
    assert_int_equal(gd_explain_result_lines(r, 0), 3);
    assert_int_equal(gd_explain_result_lines(r, 1), 2);
    const struct gd_explain_match *m = match_of(r, "pt-not-compiled-with-cuda");
    assert_non_null(m);
    assert_int_equal(gd_explain_match_channel(m), 1);
    assert_int_equal(gd_explain_match_line(m), 2);
    char *out = NULL;
    size_t len = 0;
    assert_int_equal(gd_explain_render(r, GD_FORMAT_TEXT, NULL, &out, &len), GD_OK);
    assert_non_null(strstr(out, "stderr:2: AssertionError"));
    free(out);
    assert_int_equal(gd_explain_render(r, GD_FORMAT_MARKDOWN, NULL, &out, &len), GD_EINVAL);
    gd_explain_result_free(r);
    gd_explain_stream_free(s);
}

static void test_render(void **state)
{
    (void)state;
    struct gd_explain_result *r = explain_str(sample);
    char *out = NULL;
    size_t len = 0;
    assert_int_equal(gd_explain_render(r, GD_FORMAT_TEXT, NULL, &out, &len), GD_OK);
    assert_int_equal(strlen(out), len);
    assert_non_null(strstr(out, "gpudoctor explain of the log: 8 lines, 3 causes found"));
    assert_non_null(strstr(out, "1. The GPU ran out of memory  [out-of-memory]"));
    assert_non_null(strstr(out, "from the log alone"));
    assert_non_null(strstr(out, "   fix:       1. "));
    free(out);
    assert_int_equal(gd_explain_render(r, GD_FORMAT_JSON, NULL, &out, &len), GD_OK);
    struct json_object *j = json_tokener_parse(out), *v, *causes, *c0;
    assert_non_null(j);
    assert_true(json_object_object_get_ex(j, "schema", &v));
    assert_string_equal(json_object_get_string(v), "gpudoctor.explain/1");
    assert_true(json_object_object_get_ex(j, "causes", &causes));
    assert_int_equal(json_object_array_length(causes), 3);
    c0 = json_object_array_get_idx(causes, 0);
    assert_true(json_object_object_get_ex(c0, "verdict", &v));
    assert_string_equal(json_object_get_string(v), "unchecked");
    assert_true(json_object_object_get_ex(c0, "matches", &v));
    assert_true(json_object_array_length(v) >= 2);
    json_object_put(j);
    free(out);
    gd_explain_result_free(r);
}

/* ---- allocation failures ------------------------------------------------------------------ */

/* Building the signature set from parsed tables, each allocation failed in turn. */
static void test_alloc_sigset(void **state)
{
    (void)state;
    const struct gd_kb_table *sigs = signatures();
    const struct gd_kb_table *causes = gd_kb_table(ex->kb, "explain_causes");
    struct gd_sigset set;
    gd_alloc_fail_at(0);
    assert_int_equal(gd_sigset_build(sigs, causes, &set), GD_OK);
    size_t nsigs = set.nsigs;
    gd_sigset_free(&set);
    unsigned long total = gd_alloc_fail_at(0);
    /* Every 7th allocation (and the first and last ones) keeps the sanitizer build quick while
     * reaching every kind of allocation: each signature makes the same sequence of them. */
    for (unsigned long n = 1; n <= total + 1; n += n < 64 || n + 7 > total ? 1 : 7) {
        gd_alloc_fail_at(n);
        enum gd_status st = gd_sigset_build(sigs, causes, &set);
        gd_alloc_fail_at(0);
        if (n <= total && st != GD_ENOMEM)
            fail_msg("allocation %lu of %lu failed, yet the set was built", n, total);
        if (st == GD_OK) {
            assert_int_equal(set.nsigs, nsigs);
            gd_sigset_free(&set);
        } else {
            assert_int_equal(set.nsigs, 0);
        }
    }
}

/* Streaming, finishing and rendering, each allocation failed in turn. */
static void test_alloc_stream(void **state)
{
    (void)state;
    unsigned long total = 0;
    for (unsigned long n = 0; n <= total + 1; n++) {
        gd_alloc_fail_at(n);
        struct gd_explain_stream *s = NULL;
        struct gd_explain_result *r = NULL;
        char *out = NULL;
        size_t len = 0;
        enum gd_status st = gd_explain_stream_new(ex, &s);
        if (st == GD_OK)
            st = gd_explain_stream_feed(s, 0, sample, strlen(sample));
        if (st == GD_OK)
            st = gd_explain_stream_finish(s, "x", NULL, &r);
        if (st == GD_OK)
            st = gd_explain_render(r, GD_FORMAT_JSON, NULL, &out, &len);
        if (st == GD_OK) {
            gd_free(out);
            out = NULL;
            st = gd_explain_render(r, GD_FORMAT_TEXT, NULL, &out, &len);
        }
        unsigned long made = gd_alloc_fail_at(0);
        if (n == 0) {
            assert_int_equal(st, GD_OK);
            total = made;
        } else if (n <= total && st != GD_ENOMEM) {
            fail_msg("allocation %lu of %lu failed, yet the stream says %s", n, total,
                     gd_status_str(st));
        }
        if (st == GD_ENOMEM)
            assert_null(out);
        gd_free(out);
        gd_explain_result_free(r);
        gd_explain_stream_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_patterns_are_eres),
        cmocka_unit_test(test_literals),
        cmocka_unit_test(test_clean_corpus),
        cmocka_unit_test(test_failed_corpus),
        cmocka_unit_test(test_chunking),
        cmocka_unit_test(test_crlf),
        cmocka_unit_test(test_cr_progress),
        cmocka_unit_test(test_hostile_bytes),
        cmocka_unit_test(test_long_lines),
        cmocka_unit_test(test_repeated_literal),
        cmocka_unit_test(test_line_counts),
        cmocka_unit_test(test_counts_and_kept),
        cmocka_unit_test(test_ranking),
        cmocka_unit_test(test_channels),
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_alloc_sigset),
        cmocka_unit_test(test_alloc_stream),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
