/* gd_test: the gd_check pipeline, then the smoke tests (src/probe/smoke.c), then the rules that
 * judge the driver, the vendor calls and the tests. */
#include "api/options.h"
#include "api/pipeline.h"
#include "core/alloc.h"
#include "os/os.h"
#include "probe/smoke.h"
#include "sysroot/sysroot.h"

#include <gpudoctor/gpudoctor.h>
#include <string.h>

static void smoke(struct gd_probe_ctx *ctx, const struct gd_options *opts)
{
    struct gd_smoke_options o = { opts ? opts->timeout_ms : 0, opts ? opts->progress : NULL,
                                  opts ? opts->progress_user : NULL };
    gd_probe_smoke(ctx, &o);
}

enum gd_status gd_test(const struct gd_options *opts, struct gd_report **out)
{
    *out = NULL;
    /* Nothing under a foreign root is run, and the tests are nothing but running. */
    if (opts && opts->no_devices)
        return GD_EINVAL;
    if (opts && opts->root) {
        /* The machine itself given as --root ("/"; its system drive "C:\\" on Windows). */
        struct gd_root *root = NULL;
        enum gd_status st = gd_root_new(opts->root, &root);
        bool live = st == GD_OK && gd_root_is_live(root);
        gd_root_free(root);
        if (st != GD_OK)
            return st;
        if (!live)
            return GD_EINVAL;
    }
    return gd_pipeline(opts, smoke, gd_rules_run_test, out);
}
