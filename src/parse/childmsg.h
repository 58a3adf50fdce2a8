/*
 * What a child process that called into a vendor library sent back: "KEY VALUE\n" lines
 * (gd_child_send in src/os). The bytes are untrusted — the vendor code ran in that process and
 * may have written anything to any descriptor, or died mid-line — so they are read like any
 * other input: every line is a key (up to the first space) and a value (the rest), a line
 * without a space is a key with an empty value, NULs and other bytes are kept as they are, and a
 * last line without its newline still counts.
 */
#ifndef GD_PARSE_CHILDMSG_H
#define GD_PARSE_CHILDMSG_H

#include "core/str.h"

#include <gpudoctor/gpudoctor.h>
#include <stdbool.h>
#include <stddef.h>

/* Lines kept; the rest are dropped (a child's answer is a few hundred lines). */
#define GD_MSGS_MAX 65536

struct gd_msg {
    struct gd_span key, value; /* inside the parsed bytes (borrowed) */
};

struct gd_msgs {
    struct gd_msg *lines;
    size_t n, cap;
    bool truncated; /* more than GD_MSGS_MAX lines */
};

/* Split `len` bytes into lines; the spans point into `data`, which must outlive `out`.
 * GD_OK or GD_ENOMEM (then `out` is empty). Free with gd_msgs_free. */
enum gd_status gd_msgs_parse(const char *data, size_t len, struct gd_msgs *out);
void gd_msgs_free(struct gd_msgs *msgs);

/* The value of the last line whose key is `key`; false when none. */
bool gd_msgs_get(const struct gd_msgs *msgs, const char *key, struct gd_span *value);
/* The same, copied into `buf` (NUL-terminated, cut to `size`); NULL when none. */
const char *gd_msgs_str(const struct gd_msgs *msgs, const char *key, char *buf, size_t size);
/* The value as a decimal integer (optional '-', digits, nothing else); false when absent or not
 * an integer that fits. */
bool gd_msgs_int(const struct gd_msgs *msgs, const char *key, long long *value);

#endif
