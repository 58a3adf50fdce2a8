/*
 * ld.so.conf text: gd_ldconf_parse over the bytes with callbacks that check what they get.
 *
 * Invariants: the status is GD_OK (or GD_ENOMEM). Each directory and each include pattern is a
 * NUL-terminated string of 1 to 4096 bytes (strlen under AddressSanitizer proves the NUL lies
 * inside the parser's buffer), a piece of the line whose number comes with it, without '#' or
 * a line break; a directory has no blank at either end and is never an "include" or "hwcap"
 * directive; an include pattern has no blank at all. Line numbers stay inside the input and
 * never decrease (a directory has its line to itself). No callback comes after one returned
 * false.
 */
#include "fuzz.h"

#include "loader/ldconf.h"

struct seen {
    const char *data;
    size_t size;
    size_t *starts; /* offset of each line's first byte; starts[lines] == size + 1 */
    size_t lines;
    size_t last_line;
    bool stopped;
};

static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

/* True when `text` (of `n` bytes) occurs in line `line` (1-based) of the input. */
static bool in_line(const struct seen *s, size_t line, const char *text, size_t n)
{
    const char *p = s->data + s->starts[line - 1];
    size_t len = s->starts[line] - 1 - s->starts[line - 1];
    for (size_t i = 0; n <= len && i + n <= len; i++)
        if (memcmp(p + i, text, n) == 0)
            return true;
    return false;
}

static size_t check_text(struct seen *s, const char *text, size_t line)
{
    FUZZ_CHECK(!s->stopped);
    size_t n = strlen(text);
    FUZZ_CHECK(n >= 1 && n <= 4096);
    FUZZ_CHECK(line >= 1 && line <= s->lines && line >= s->last_line);
    FUZZ_CHECK(!strchr(text, '#') && !strchr(text, '\n'));
    FUZZ_CHECK(in_line(s, line, text, n));
    s->last_line = line;
    s->stopped = strcmp(text, "GD_FUZZ_STOP") == 0;
    return n;
}

static bool on_dir(void *user, const char *text, size_t line)
{
    struct seen *s = user;
    FUZZ_CHECK(line > s->last_line);
    size_t n = check_text(s, text, line);
    FUZZ_CHECK(!blank(text[0]) && !blank(text[n - 1]));
    bool directive = n > 7 && blank(text[7]) && memcmp(text, "include", 7) == 0;
    directive |=
        n > 5 && blank(text[5]) && (memcmp(text, "hwcap", 5) == 0 || memcmp(text, "HWCAP", 5) == 0);
    FUZZ_CHECK(!directive);
    return !s->stopped;
}

static bool on_include(void *user, const char *text, size_t line)
{
    struct seen *s = user;
    check_text(s, text, line);
    FUZZ_CHECK(!strchr(text, ' ') && !strchr(text, '\t'));
    return !s->stopped;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t lines = 0;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (size && data[size - 1] != '\n')
        lines++;
    size_t *starts = malloc((lines + 1) * sizeof *starts);
    if (!starts)
        return 0;
    size_t k = 0;
    starts[k++] = 0;
    for (size_t i = 0; i < size && k <= lines; i++)
        if (data[i] == '\n' && k < lines)
            starts[k++] = i + 1;
    /* The end of the last line, as if a newline followed it. */
    starts[lines] = size + 1;
    if (size && data[size - 1] == '\n')
        starts[lines] = size;

    struct seen s = { (const char *)data, size, starts, lines, 0, false };
    enum gd_status st = gd_ldconf_parse((const char *)data, size, on_dir, on_include, &s);
    FUZZ_CHECK(st == GD_OK || st == GD_ENOMEM);
    free(starts);
    return 0;
}
