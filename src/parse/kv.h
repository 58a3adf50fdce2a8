/*
 * KEY=VALUE files: /etc/os-release (shell-style quoting, os-release(5)) and environment files
 * (docker's --env-file format: the value is everything after the first '=', no quoting).
 * Comments (#) and blank lines are skipped; malformed lines are skipped and counted.
 */
#ifndef GD_PARSE_KV_H
#define GD_PARSE_KV_H

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

/* Longest key and value kept; longer ones make the line malformed. */
#define GD_KV_KEY_MAX   128
#define GD_KV_VALUE_MAX 4096

enum gd_kv_style {
    GD_KV_SHELL, /* os-release(5): values may be "double" or 'single' quoted, \ escapes */
    GD_KV_PLAIN, /* docker env-file: the rest of the line, verbatim */
};

/* Called for each variable with NUL-terminated key and value (borrowed for the call).
 * `line` is 1-based. Return false to stop. */
typedef bool (*gd_kv_fn)(void *user, const char *key, const char *value, size_t line);

/* Parse `len` bytes. Returns the number of malformed lines skipped in `*bad` (may be NULL).
 * GD_OK, or GD_ENOMEM. Never reads outside [data, data + len). */
enum gd_status gd_parse_kv(const char *data, size_t len, enum gd_kv_style style, gd_kv_fn fn,
                           void *user, size_t *bad);

#endif
