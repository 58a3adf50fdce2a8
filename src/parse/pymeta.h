/*
 * Python core metadata (https://packaging.python.org/en/latest/specifications/core-metadata/):
 * a wheel's *.dist-info/METADATA and an egg's *.egg-info/PKG-INFO, RFC 822 style headers
 * ("Name: nvidia-cudnn-cu12") followed by a blank line and the description; and an egg's
 * requires.txt, setuptools' own format for the same requirements.
 *
 * Headers are read the way Python's email parser reads them (importlib.metadata uses it): field
 * names are case-insensitive; a line starting with a blank continues the field before it; lines
 * end in "\n", "\r\n" or "\r"; the headers end at the first empty line, or at the first line that
 * is neither a field ("Name:" with printable ASCII before the colon) nor a continuation. What
 * follows is the description and is never read as fields.
 *
 * Ownership: a struct gd_pymeta owns `requires` and `extras`; gd_pymeta_free releases them.
 */
#ifndef GD_PARSE_PYMETA_H
#define GD_PARSE_PYMETA_H

#include "core/str.h"
#include "core/strlist.h"

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

/* Caps: more Requires-Dist or Provides-Extra values than this is GD_ELIMIT (real packages have
 * a few dozen; tensorflow[and-cuda] about 40). */
#define GD_PYMETA_MAX_REQUIRES 4096
#define GD_PYMETA_MAX_EXTRAS   1024
/* Longest unfolded Requires-Dist value (or requires.txt line) read; a longer one is skipped. */
#define GD_PYMETA_LINE_MAX 2048

/* One requirement (PEP 508), from a Requires-Dist field or a requires.txt line. Every field is
 * NUL-terminated; one that would not fit its buffer makes the whole line skipped, never
 * truncated, so a name or a version is never cut into a wrong one. */
struct gd_pyreq {
    char name[128];      /* as written: "nvidia-cudnn-cu12" (compare with gd_pyname_equal) */
    char extras[128];    /* the extras it asks for, "docs,tests" for attrs[docs, tests]; "" */
    char specifier[256]; /* "==8.9.4.25", ">=2.0,<3", "@ https://..." or "" (trimmed; the
                            parentheses of the older "name (>=1.0)" form removed) */
    char extra[64];      /* the extra of its package it belongs to when the marker says
                            `extra == "and-cuda"` (either quote, either side): the first such
                            comparison; else "" */
    char marker[256];    /* the whole environment marker after ';', trimmed; "" when none */
};

struct gd_pymeta {
    char name[128], version[128]; /* the first Name and Version fields; "" when absent, empty or
                                     longer than 127 bytes */
    struct gd_pyreq *requires;    /* Requires-Dist, in file order */
    size_t nrequires, requires_cap;
    struct gd_strlist extras; /* Provides-Extra values (and requires.txt section extras) */
    size_t nskipped;          /* requirement lines skipped: not PEP 508, a NUL, or over a buffer */
};

/* Parse METADATA or PKG-INFO into `*out` (overwritten; free with gd_pymeta_free). GD_OK;
 * GD_ENOMEM; GD_ELIMIT past a cap above. On failure `*out` is empty (zeroed), nothing to free.
 * Never reads outside [data, data + len). */
enum gd_status gd_pymeta_parse(const char *data, size_t len, struct gd_pymeta *out);

/* Append the requirements of an egg's requires.txt to `meta` (zeroed, or from gd_pymeta_parse):
 * one PEP 508 requirement a line; "[extra]", "[extra:marker]" and "[:marker]" sections give
 * each following line the marker importlib.metadata gives it, `(marker) and extra == "extra"`,
 * and add the section's extra to meta->extras. Blank lines and '#' comments are skipped; a line
 * after a malformed section heading is skipped (counted) until the next good heading. GD_OK,
 * GD_ENOMEM or GD_ELIMIT; on failure `meta` is as it was before the call. */
enum gd_status gd_pyreq_parse_requires_txt(const char *data, size_t len, struct gd_pymeta *meta);

/* Parse one PEP 508 requirement of `len` bytes (a Requires-Dist value). False when it is not
 * one or a part does not fit (`*out` is then zeroed). */
bool gd_pyreq_parse(const char *text, size_t len, struct gd_pyreq *out);

/* Release what `meta` owns and zero it. NULL is a no-op. */
void gd_pymeta_free(struct gd_pymeta *meta);

/* PEP 503 normalised names: lower case, every run of '-', '_' and '.' one '-'
 * ("Nvidia_CUDNN.cu12" -> "nvidia-cudnn-cu12"). `out` always NUL-terminated (size >= 1),
 * truncated when short. */
void gd_pyname_normalize(const char *in, char *out, size_t size);
/* Equal as PEP 503 names; false when either is NULL. */
bool gd_pyname_equal(const char *a, const char *b);

/* ---- the header walk, shared with gd_metadata_field (parse/record.h) ---- */

/* One header field: its name (before the ':') and its raw value, from after the ':' to the end
 * of its last continuation line, line breaks included. Both borrowed from the input. */
struct gd_pymeta_field {
    struct gd_span name, raw;
};

/* Return false to stop the walk. */
typedef bool (*gd_pymeta_field_fn)(void *user, const struct gd_pymeta_field *field);

/* Call `fn` for each header field in order, up to the description. */
void gd_pymeta_fields(const char *data, size_t len, gd_pymeta_field_fn fn, void *user);

/* A raw value unfolded (line breaks removed, RFC 5322) and trimmed, into `buf`. False, with
 * `buf` untouched, when it is empty, holds a NUL, or needs more than size - 1 bytes. */
bool gd_pymeta_value(struct gd_span raw, char *buf, size_t size);

#endif
