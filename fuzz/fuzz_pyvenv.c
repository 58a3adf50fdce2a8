/*
 * pyvenv.cfg: gd_parse_pyvenv_cfg over the bytes, and gd_parse_py_version over them both ways.
 * Invariants: home and version are terminated inside their buffers; a version is digits, one
 * dot, digits; include-system-site-packages is true unless stated; a whole version is one too.
 */
#include "fuzz.h"

#include "parse/pyvenv.h"

static void check_version(const char *v)
{
    FUZZ_CHECK(fuzz_terminated(v, GD_PY_VERSION_MAX));
    size_t n = strlen(v), dots = 0;
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK((v[i] >= '0' && v[i] <= '9') || v[i] == '.');
        dots += v[i] == '.';
    }
    FUZZ_CHECK(n == 0 || (dots == 1 && v[0] != '.' && v[n - 1] != '.'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct gd_pyvenv_cfg cfg;
    gd_parse_pyvenv_cfg(text, size, &cfg);
    FUZZ_CHECK(fuzz_terminated(cfg.home, sizeof cfg.home));
    check_version(cfg.version);
    FUZZ_CHECK(cfg.system_site_stated || cfg.system_site);

    char v[GD_PY_VERSION_MAX] = "";
    if (gd_parse_py_version(text, size, false, v))
        FUZZ_CHECK(v[0]);
    check_version(v);
    char w[GD_PY_VERSION_MAX] = "";
    if (gd_parse_py_version(text, size, true, w)) {
        FUZZ_CHECK(strlen(w) == size);
        FUZZ_CHECK(strcmp(v, w) == 0);
    }
    check_version(w);
    return 0;
}
