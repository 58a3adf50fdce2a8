/*
 * A wheel's files: gd_parse_record over the bytes (RECORD), gd_metadata_field over them for
 * the fields the inventory reads and a few more (METADATA), and gd_dist_info_name on a
 * NUL-terminated copy (a dist-info directory name) and on the first component of every path
 * RECORD gives (where a wheel names its own dist-info directory).
 *
 * Invariants: each RECORD path is non-empty, NUL-terminated below 4096 bytes (strlen under
 * AddressSanitizer proves the NUL lies inside the parser's buffer) and without a line break;
 * a size is -1 or non-negative; no more calls than lines, none after one returned false. A
 * METADATA field found is terminated inside exact-size buffers of 1 to 64 bytes, non-empty,
 * trimmed, a piece of the input once its line breaks are removed (a folded field is unfolded);
 * one not found leaves the buffer untouched. A dist-info name
 * that parses gives a name and a version terminated inside exact-size buffers, non-empty, and
 * NAME-VERSION.dist-info gives back the directory name; the name has no '-'.
 */
#include "fuzz.h"

#include "parse/record.h"

static const char *const fields[] = { "Name",          "Version", "Metadata-Version",
                                      "Requires-Dist", "Summary", "" };
static const size_t sizes[] = { 1, 2, 8, 64 };

struct seen {
    size_t lines;
    size_t calls;
    bool stopped;
};

static void check_dist_info(const char *dir)
{
    size_t count = sizeof sizes / sizeof *sizes;
    for (size_t i = 0; i < count; i++) {
        size_t ns = sizes[i], vs = sizes[count - 1 - i];
        char *name = malloc(ns), *version = malloc(vs);
        if (!name || !version) {
            free(name);
            free(version);
            return;
        }
        if (gd_dist_info_name(dir, name, ns, version, vs)) {
            size_t nl = fuzz_strnlen(name, ns), vl = fuzz_strnlen(version, vs);
            FUZZ_CHECK(nl > 0 && nl < ns && vl > 0 && vl < vs);
            FUZZ_CHECK(!memchr(name, '-', nl));
            size_t dl = strlen(dir);
            FUZZ_CHECK(dl == nl + 1 + vl + strlen(".dist-info"));
            FUZZ_CHECK(memcmp(dir, name, nl) == 0 && dir[nl] == '-');
            FUZZ_CHECK(memcmp(dir + nl + 1, version, vl) == 0);
            FUZZ_CHECK(strcmp(dir + nl + 1 + vl, ".dist-info") == 0);
        }
        free(name);
        free(version);
    }
}

static bool on_record(void *user, const char *path, long long size)
{
    struct seen *s = user;
    FUZZ_CHECK(!s->stopped);
    size_t n = strlen(path);
    FUZZ_CHECK(n > 0 && n < 4096);
    FUZZ_CHECK(!strchr(path, '\n'));
    FUZZ_CHECK(size >= -1);
    FUZZ_CHECK(++s->calls <= s->lines);

    /* "nvidia_cublas-13.1.0.3.dist-info/RECORD": the directory part names the wheel. */
    const char *slash = strchr(path, '/');
    if (slash) {
        char *dir = malloc((size_t)(slash - path) + 1);
        if (dir) {
            memcpy(dir, path, (size_t)(slash - path));
            dir[slash - path] = '\0';
            check_dist_info(dir);
            free(dir);
        }
    }
    s->stopped = strcmp(path, "GD_FUZZ_STOP") == 0;
    return !s->stopped;
}

static bool contains(const uint8_t *data, size_t size, const char *s, size_t n)
{
    for (size_t i = 0; n <= size && i + n <= size; i++)
        if (memcmp(data + i, s, n) == 0)
            return true;
    return false;
}

static bool space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* The input without its CR and LF bytes (new memory, free()): unfolded values are pieces of it. */
static uint8_t *without_breaks(const uint8_t *data, size_t size, size_t *n)
{
    uint8_t *out = malloc(size ? size : 1);
    *n = 0;
    for (size_t i = 0; out && i < size; i++)
        if (data[i] != '\r' && data[i] != '\n')
            out[(*n)++] = data[i];
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t flat_size;
    uint8_t *flat = without_breaks(data, size, &flat_size);
    if (!flat)
        return 0;
    size_t lines = 0;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (size && data[size - 1] != '\n')
        lines++;

    struct seen s = { lines, 0, false };
    gd_parse_record(text, size, on_record, &s);

    for (size_t f = 0; f < sizeof fields / sizeof *fields; f++) {
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            char *buf = malloc(sizes[i]);
            if (!buf) {
                free(flat);
                return 0;
            }
            memset(buf, 0x5a, sizes[i]);
            if (gd_metadata_field(text, size, fields[f], buf, sizes[i])) {
                size_t n = fuzz_strnlen(buf, sizes[i]);
                FUZZ_CHECK(n > 0 && n < sizes[i]);
                FUZZ_CHECK(!space(buf[0]) && !space(buf[n - 1]));
                FUZZ_CHECK(contains(flat, flat_size, buf, n));
            } else {
                for (size_t k = 0; k < sizes[i]; k++)
                    FUZZ_CHECK(buf[k] == 0x5a);
            }
            free(buf);
        }
    }

    free(flat);

    char *dir = fuzz_cstr(data, size);
    if (dir)
        check_dist_info(dir);
    free(dir);
    return 0;
}
