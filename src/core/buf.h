/*
 * A growing byte buffer with a size cap fixed at init and a sticky status: once an append fails
 * (out of memory, or past the cap), later appends do nothing and gd_buf_status() keeps the first
 * failure, so a renderer checks once at the end. The contents are always NUL-terminated.
 */
#ifndef GD_CORE_BUF_H
#define GD_CORE_BUF_H

#include "core/attr.h"
#include <gpudoctor/gpudoctor.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Where a streaming buffer's text goes; returns false when it could not be written. */
typedef bool (*gd_buf_sink)(void *ctx, const char *data, size_t len);

struct gd_buf {
    char *data; /* NULL until the first append */
    size_t len, cap, limit;
    enum gd_status status;
    gd_buf_sink sink; /* NULL: the text accumulates; else handed over every `chunk` bytes */
    void *sink_ctx;
    size_t chunk;
};

/* `limit` is the most bytes the buffer may hold (without the NUL). */
void gd_buf_init(struct gd_buf *buf, size_t limit);
/* A buffer that hands its text to `sink` whenever `chunk` bytes have gathered, and at
 * gd_buf_flush: output of any length in a few KiB of memory. A failed sink sets GD_EIO. */
void gd_buf_init_sink(struct gd_buf *buf, size_t chunk, gd_buf_sink sink, void *ctx);
/* Hand what is left to the sink; the buffer's status (GD_OK when all was written). */
enum gd_status gd_buf_flush(struct gd_buf *buf);
void gd_buf_free(struct gd_buf *buf);
void gd_buf_add(struct gd_buf *buf, const void *data, size_t len);
/* Room for `n` more bytes (no more than the limit allows) in one allocation, for a caller that
 * knows about how much it will write: no copying as the text grows. */
void gd_buf_reserve(struct gd_buf *buf, size_t n);
void gd_buf_puts(struct gd_buf *buf, const char *s);
void gd_buf_putc(struct gd_buf *buf, char c);
void gd_buf_printf(struct gd_buf *buf, const char *fmt, ...) GD_PRINTF(2, 3);
void gd_buf_vprintf(struct gd_buf *buf, const char *fmt, va_list ap) GD_PRINTF(2, 0);
enum gd_status gd_buf_status(const struct gd_buf *buf);
/* The contents, or "" when empty. Borrowed until the next append. */
const char *gd_buf_str(const struct gd_buf *buf);
/* Hands the contents over: `*out` is new memory (gd_free), the buffer is empty again.
 * Returns the buffer's status; on failure `*out` is NULL and the contents are dropped. */
enum gd_status gd_buf_take(struct gd_buf *buf, char **out, size_t *len);

#endif
