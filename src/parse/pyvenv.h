/*
 * pyvenv.cfg, the file that makes a directory a virtual environment (PEP 405), as CPython's
 * site.py (venv()) and getpath.py read it: "key = value" lines, the key lower-cased and both
 * stripped, a later line overriding an earlier one, anything else ignored. venv writes `home`,
 * `include-system-site-packages` and `version`; virtualenv and uv write `version_info`
 * ("3.11.2.final.0"). And the "X.Y" of Python versions as file and directory names state them.
 */
#ifndef GD_PARSE_PYVENV_H
#define GD_PARSE_PYVENV_H

#include <stdbool.h>
#include <stddef.h>

/* "3.11": a major of one or two digits, a minor of one to three, and the NUL. */
#define GD_PY_VERSION_MAX 8
/* A home longer than a path can be is not kept. */
#define GD_PYVENV_HOME_MAX 4096

struct gd_pyvenv_cfg {
    char home[GD_PYVENV_HOME_MAX]; /* the base interpreter's directory; "" when unstated */
    bool system_site;              /* include-system-site-packages; true (site.py's default) when
                                    * unstated */
    bool system_site_stated;
    char version[GD_PY_VERSION_MAX]; /* "3.11" from version or version_info; "" when neither */
};

/* Parse `len` bytes (any bytes: a binary file yields nothing). Never reads outside them. */
void gd_parse_pyvenv_cfg(const char *data, size_t len, struct gd_pyvenv_cfg *out);

/* "3.11" from text that starts with major.minor ("3.11", "3.11.2", "3.11.2.final.0",
 * "3.11.5-h955ad1f_0.json"). With `whole` nothing may follow the minor ("3.11-config" is not a
 * version). False, `out` untouched, for anything else. */
bool gd_parse_py_version(const char *s, size_t n, bool whole, char out[GD_PY_VERSION_MAX]);

#endif
