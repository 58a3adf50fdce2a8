#include "core/buf.h"

#include "core/alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

void gd_buf_init(struct gd_buf *buf, size_t limit)
{
    buf->data = NULL;
    buf->len = buf->cap = 0;
    buf->limit = limit;
    buf->status = GD_OK;
    buf->sink = NULL;
    buf->sink_ctx = NULL;
    buf->chunk = 0;
}

void gd_buf_init_sink(struct gd_buf *buf, size_t chunk, gd_buf_sink sink, void *ctx)
{
    gd_buf_init(buf, SIZE_MAX);
    buf->sink = sink;
    buf->sink_ctx = ctx;
    buf->chunk = chunk ? chunk : 1;
}

enum gd_status gd_buf_flush(struct gd_buf *buf)
{
    if (buf->status == GD_OK && buf->sink && buf->len) {
        if (!buf->sink(buf->sink_ctx, buf->data, buf->len))
            buf->status = GD_EIO;
        buf->len = 0;
    }
    return buf->status;
}

void gd_buf_free(struct gd_buf *buf)
{
    gd_free(buf->data);
    buf->data = NULL;
    buf->len = buf->cap = 0;
    buf->status = GD_OK; /* reusable, as after gd_buf_init; a sink stays attached */
}

void gd_buf_add(struct gd_buf *buf, const void *data, size_t len)
{
    if (buf->status != GD_OK)
        return;
    if (len > buf->limit - buf->len) {
        buf->status = GD_ELIMIT;
        return;
    }
    if (gd_grow((void **)&buf->data, &buf->cap, buf->len + len + 1, 1) != 0) {
        buf->status = GD_ENOMEM;
        return;
    }
    if (len)
        memcpy(buf->data + buf->len, data, len);
    buf->len += len;
    buf->data[buf->len] = '\0';
    if (buf->sink && buf->len >= buf->chunk)
        gd_buf_flush(buf);
}

void gd_buf_reserve(struct gd_buf *buf, size_t n)
{
    if (buf->status != GD_OK)
        return;
    if (buf->sink && n > buf->chunk)
        n = buf->chunk; /* it never holds more than a chunk and one append */
    if (n > buf->limit - buf->len)
        n = buf->limit - buf->len;
    if (gd_grow((void **)&buf->data, &buf->cap, buf->len + n + 1, 1) != 0)
        buf->status = GD_ENOMEM;
}

void gd_buf_puts(struct gd_buf *buf, const char *s)
{
    gd_buf_add(buf, s, strlen(s));
}

void gd_buf_putc(struct gd_buf *buf, char c)
{
    gd_buf_add(buf, &c, 1);
}

void gd_buf_vprintf(struct gd_buf *buf, const char *fmt, va_list ap)
{
    if (buf->status != GD_OK)
        return;
    char small[256];
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(small, sizeof small, fmt, copy);
    va_end(copy);
    if (n < 0) {
        buf->status = GD_EINVAL;
        return;
    }
    if ((size_t)n < sizeof small) {
        gd_buf_add(buf, small, (size_t)n);
        return;
    }
    char *big = gd_malloc((size_t)n + 1);
    if (!big) {
        buf->status = GD_ENOMEM;
        return;
    }
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    gd_buf_add(buf, big, (size_t)n);
    gd_free(big);
}

void gd_buf_printf(struct gd_buf *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gd_buf_vprintf(buf, fmt, ap);
    va_end(ap);
}

enum gd_status gd_buf_status(const struct gd_buf *buf)
{
    return buf->status;
}

const char *gd_buf_str(const struct gd_buf *buf)
{
    return buf->data ? buf->data : "";
}

enum gd_status gd_buf_take(struct gd_buf *buf, char **out, size_t *len)
{
    enum gd_status st = buf->status;
    *out = NULL;
    if (len)
        *len = 0;
    if (st == GD_OK && !buf->data) {
        buf->data = gd_malloc(1);
        if (buf->data)
            buf->data[0] = '\0';
        else
            st = GD_ENOMEM;
    }
    if (st != GD_OK) {
        gd_buf_free(buf);
        return st;
    }
    *out = buf->data;
    if (len)
        *len = buf->len;
    buf->data = NULL;
    buf->len = buf->cap = 0;
    return GD_OK;
}
