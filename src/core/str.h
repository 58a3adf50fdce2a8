/*
 * Text helpers over spans: a pointer and a length into a caller's buffer, never NUL-terminated
 * by assumption. Everything here is bounds-safe on any bytes, including NULs and invalid UTF-8.
 */
#ifndef GD_CORE_STR_H
#define GD_CORE_STR_H

#include <stdbool.h>
#include <stddef.h>

struct gd_span {
    const char *p;
    size_t n;
};

struct gd_span gd_span_of(const char *s);
bool gd_span_eq(struct gd_span s, const char *lit);
bool gd_span_starts_with(struct gd_span s, const char *prefix);
bool gd_str_starts_with(const char *s, const char *prefix);
bool gd_str_ends_with(const char *s, const char *suffix);
/* Remove ASCII white space at both ends. */
struct gd_span gd_span_trim(struct gd_span s);

/* Next line of [*cur, end): sets `line` without its "\n" or "\r\n" and advances `*cur`.
 * Returns false at the end. A last line without a newline is still returned. */
bool gd_next_line(const char **cur, const char *end, struct gd_span *line);

/* Split at the first `sep`: `before` and `after`; false (and both untouched) when absent. */
bool gd_span_split(struct gd_span s, char sep, struct gd_span *before, struct gd_span *after);

/* Next field of `*rest` separated by `sep` (empty fields are returned too); false when
 * `*rest` is exhausted. Start with rest->p != NULL; the call sets rest->p = NULL at the end. */
bool gd_span_next_field(struct gd_span *rest, char sep, struct gd_span *field);

/* Locate `needle` in the span; NULL when absent. */
const char *gd_span_find(struct gd_span hay, const char *needle);

/* Copy the span into `buf` (size `size`, at least 1), truncating; always NUL-terminates. */
void gd_span_copy(struct gd_span s, char *buf, size_t size);

bool gd_is_space(char c);
bool gd_is_digit(char c);
bool gd_is_alpha(char c);
char gd_to_lower(char c);
bool gd_str_ieq(const char *a, const char *b);

/* Copy `s` into `buf` (size `size`, at least 1) as printable text: control characters (a tab
 * too) and bytes that are not part of a valid UTF-8 sequence become '?'; a copy that does not fit
 * is cut at a character boundary. For text from outside (a child's output) that a report shows
 * on a terminal and writes into JSON. Returns the length written; always NUL-terminates. */
size_t gd_text_clean(struct gd_span s, char *buf, size_t size);

/* Join `dir` and `name` with exactly one '/', into new memory (gd_free); NULL on ENOMEM. */
char *gd_path_join(const char *dir, const char *name);
/* The last component of a '/' path (borrowed, inside `path`). */
const char *gd_path_base(const char *path);

#endif
