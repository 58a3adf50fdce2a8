/*
 * /proc/driver/nvidia/version: gd_parse_nvidia_proc_version on the bytes, and
 * gd_find_driver_version on the bytes into buffers of several sizes. Invariants: the version
 * found is NUL-terminated, fits its buffer, is digits and dots starting with a digit, and is a
 * piece of the input.
 */
#include "fuzz.h"

#include "parse/nvidia_proc.h"

static bool contains(const uint8_t *data, size_t size, const char *s, size_t n)
{
    for (size_t i = 0; n <= size && i + n <= size; i++)
        if (memcmp(data + i, s, n) == 0)
            return true;
    return false;
}

static void check_version(const uint8_t *data, size_t size, const char *v, size_t cap)
{
    size_t n = fuzz_strnlen(v, cap);
    FUZZ_CHECK(n > 0 && n < cap);
    FUZZ_CHECK(v[0] >= '0' && v[0] <= '9');
    size_t dots = 0;
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK((v[i] >= '0' && v[i] <= '9') || v[i] == '.');
        dots += v[i] == '.';
    }
    FUZZ_CHECK(dots >= 1 && dots <= 2 && v[n - 1] != '.');
    FUZZ_CHECK(contains(data, size, v, n));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct gd_nvidia_proc_version pv;
    enum gd_status st = gd_parse_nvidia_proc_version(text, size, &pv);
    FUZZ_CHECK(st == GD_OK || st == GD_EFORMAT);
    FUZZ_CHECK(fuzz_terminated(pv.version, sizeof pv.version));
    FUZZ_CHECK(fuzz_terminated(pv.gcc, sizeof pv.gcc));
    if (st == GD_OK)
        check_version(data, size, pv.version, sizeof pv.version);
    else
        FUZZ_CHECK(pv.version[0] == '\0' && !pv.open_module);

    /* Exact-size heap buffers, so that a write past one is an AddressSanitizer report. */
    static const size_t sizes[] = { 1, 4, 11, 32 };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char *buf = malloc(sizes[i]);
        if (!buf)
            return 0;
        if (gd_find_driver_version(text, size, buf, sizes[i]))
            check_version(data, size, buf, sizes[i]);
        free(buf);
    }
    return 0;
}
