/*
 * KEY=VALUE files: gd_parse_kv over the bytes in both styles (os-release quoting, docker
 * env-file). Invariants: every callback gets a valid, NUL-terminated key and value within their
 * limits and a line number inside the input, in order; malformed lines never outnumber lines.
 */
#include "fuzz.h"

#include "parse/kv.h"

struct seen {
    size_t lines; /* physical lines in the input: an upper bound for line numbers */
    size_t calls;
    size_t last_line;
    bool stopped; /* the callback returned false */
};

static bool on_var(void *user, const char *key, const char *value, size_t line)
{
    struct seen *s = user;
    FUZZ_CHECK(!s->stopped);
    size_t klen = fuzz_strnlen(key, GD_KV_KEY_MAX);
    FUZZ_CHECK(klen > 0 && klen < GD_KV_KEY_MAX);
    FUZZ_CHECK(key[0] < '0' || key[0] > '9');
    for (size_t i = 0; i < klen; i++) {
        char c = key[i];
        FUZZ_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '_');
    }
    FUZZ_CHECK(fuzz_strnlen(value, GD_KV_VALUE_MAX) < GD_KV_VALUE_MAX);
    FUZZ_CHECK(line >= 1 && line <= s->lines && line > s->last_line);
    s->last_line = line;
    s->calls++;
    /* Stopping early must be honoured: no call after a false. */
    s->stopped = strcmp(key, "GD_FUZZ_STOP") == 0;
    return !s->stopped;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t lines = 0;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (size && data[size - 1] != '\n')
        lines++;

    static const enum gd_kv_style styles[] = { GD_KV_SHELL, GD_KV_PLAIN };
    for (size_t i = 0; i < sizeof styles / sizeof *styles; i++) {
        struct seen s = { lines, 0, 0, false };
        size_t bad = (size_t)-1;
        enum gd_status st = gd_parse_kv(text, size, styles[i], on_var, &s, &bad);
        FUZZ_CHECK(st == GD_OK || st == GD_ENOMEM);
        if (st == GD_OK)
            FUZZ_CHECK(bad <= lines && s.calls + bad <= lines);
    }
    /* A NULL `bad` is allowed. */
    struct seen s = { lines, 0, 0, false };
    (void)gd_parse_kv(text, size, GD_KV_SHELL, on_var, &s, NULL);
    return 0;
}
