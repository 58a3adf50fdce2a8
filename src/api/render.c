#include "core/buf.h"
#include "render/render.h"

#include <gpudoctor/gpudoctor.h>

/* A report renders to a few hundred KiB at most; the cap keeps a runaway from eating memory. */
#define RENDER_MAX (64 * 1024 * 1024)

enum gd_status gd_render(const struct gd_report *report, enum gd_format format,
                         const struct gd_render_options *options, char **out, size_t *len)
{
    *out = NULL;
    if (len)
        *len = 0;
    if (!report)
        return GD_EINVAL;
    struct gd_render_options defaults = { false, false };
    const struct gd_render_options *o = options ? options : &defaults;
    struct gd_buf b;
    gd_buf_init(&b, RENDER_MAX);
    switch (format) {
    case GD_FORMAT_TEXT:
        gd_render_text(report, o, &b);
        break;
    case GD_FORMAT_JSON:
        gd_render_json(report, &b);
        break;
    case GD_FORMAT_MARKDOWN:
        gd_render_markdown(report, o, &b);
        break;
    case GD_FORMAT_PROMETHEUS:
        gd_render_prometheus(report, &b);
        break;
    default:
        gd_buf_free(&b);
        return GD_EINVAL;
    }
    return gd_buf_take(&b, out, len);
}
