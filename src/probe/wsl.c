/* Windows Subsystem for Linux: GPUs reach WSL 2 through /dev/dxg and the Windows driver's
 * libraries mounted at /usr/lib/wsl/lib, never through a Linux NVIDIA driver. */
#include "probe/probe.h"

#include "core/alloc.h"
#include "core/str.h"

#include <string.h>

#define WSL_LIB "/usr/lib/wsl/lib"

static bool has_word_ci(const char *data, size_t len, const char *word)
{
    size_t n = strlen(word);
    for (size_t i = 0; i + n <= len; i++) {
        size_t k = 0;
        while (k < n && gd_to_lower(data[i + k]) == word[k])
            k++;
        if (k == n)
            return true;
    }
    return false;
}

/* WSL 1 kernels say "4.4.0-19041-Microsoft"; WSL 2 kernels "5.15.x-microsoft-standard-WSL2". */
static void probe_detect(struct gd_probe_ctx *ctx, struct gd_entity *w)
{
    char *data = NULL;
    size_t len = 0;
    if (gd_root_read_file(ctx->root, "/proc/version", GD_PROBE_TEXT_MAX, &data, &len) == GD_OK &&
        has_word_ci(data, len, "microsoft")) {
        struct gd_source src = gd_src(GD_SOURCE_FILE, "/proc/version");
        gd_fact_bool(w, "detected", true, src);
        bool wsl2 = has_word_ci(data, len, "wsl2") || has_word_ci(data, len, "microsoft-standard");
        gd_fact_int(w, "version", wsl2 ? 2 : 1, src);
    } else if (gd_root_is_dir(ctx->root, WSL_LIB)) {
        gd_fact_bool(w, "detected", true, gd_src(GD_SOURCE_PATH, WSL_LIB));
        gd_fact_int(w, "version", 2, gd_src(GD_SOURCE_PATH, WSL_LIB));
    } else if (gd_env_get(ctx->env, "WSL_DISTRO_NAME")) {
        gd_fact_bool(w, "detected", true, gd_src(GD_SOURCE_ENV, "WSL_DISTRO_NAME"));
    } else {
        gd_fact_bool(w, "detected", false, gd_src(GD_SOURCE_PATH, "/proc/version, " WSL_LIB));
    }
    gd_free(data);
}

static void probe_ld_conf(struct gd_probe_ctx *ctx, struct gd_entity *w)
{
    struct gd_names names;
    if (gd_root_list(ctx->root, "/etc/ld.so.conf.d", &names) == GD_OK) {
        for (size_t i = 0; i < names.count; i++) {
            char *path = gd_path_join("/etc/ld.so.conf.d", names.names[i]);
            char *data = NULL;
            size_t len;
            if (!path)
                gd_report_out_of_memory(ctx->report);
            bool hit =
                path &&
                gd_root_read_file(ctx->root, path, GD_PROBE_TEXT_MAX, &data, &len) == GD_OK &&
                gd_span_find((struct gd_span){ data, len }, WSL_LIB);
            if (hit)
                gd_fact_bool(w, "ld_conf", true, gd_src(GD_SOURCE_FILE, path));
            gd_free(data);
            gd_free(path);
            if (hit) {
                gd_names_free(&names);
                return;
            }
        }
        gd_names_free(&names);
    }
    gd_fact_bool(w, "ld_conf", false, gd_src(GD_SOURCE_PATH, "/etc/ld.so.conf.d"));
}

void gd_probe_wsl(struct gd_probe_ctx *ctx)
{
    struct gd_entity *w = gd_report_add_entity(ctx->report, "wsl", "wsl");
    probe_detect(ctx, w);
    if (!gd_fact_is_true(gd_entity_fact(w, "detected")))
        return;
    gd_fact_bool(w, "lib_dir.present", gd_root_is_dir(ctx->root, WSL_LIB),
                 gd_src(GD_SOURCE_PATH, WSL_LIB));
    gd_fact_bool(w, "libcuda.present", gd_root_exists(ctx->root, WSL_LIB "/libcuda.so.1"),
                 gd_src(GD_SOURCE_PATH, WSL_LIB "/libcuda.so.1"));
    probe_ld_conf(ctx, w);
}
