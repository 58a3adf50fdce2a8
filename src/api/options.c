#include "api/options.h"

#include "core/alloc.h"
#include "core/env.h"

#include <gpudoctor/gpudoctor.h>
#include "os/os.h"
#include "parse/kv.h"
#include "core/buf.h"

#include <string.h>

enum gd_status gd_options_new(struct gd_options **out)
{
    *out = NULL;
    struct gd_options *o = gd_calloc(1, sizeof *o);
    if (!o)
        return GD_ENOMEM;
    o->extra = gd_env_new();
    if (!o->extra) {
        gd_free(o);
        return GD_ENOMEM;
    }
    o->import_timeout_s = GD_IMPORT_TIMEOUT_DEFAULT;
    *out = o;
    return GD_OK;
}

void gd_options_free(struct gd_options *o)
{
    if (!o)
        return;
    gd_free(o->root);
    gd_free(o->kb_dir);
    gd_env_free(o->extra);
    gd_strlist_free(&o->pythons);
    gd_strlist_free(&o->sites);
    gd_free(o->driver);
    gd_free(o->os);
    gd_free(o->host_os);
    gd_strlist_free(&o->gpus);
    gd_free(o);
}

static enum gd_status replace(char **slot, const char *value)
{
    char *copy = NULL;
    if (value && !(copy = gd_strdup(value)))
        return GD_ENOMEM;
    gd_free(*slot);
    *slot = copy;
    return GD_OK;
}

enum gd_status gd_options_set_root(struct gd_options *o, const char *dir)
{
    if (!o || !dir || !*dir)
        return GD_EINVAL;
    struct gd_os_stat st;
    enum gd_status s = gd_os_stat(dir, &st);
    if (s != GD_OK)
        return s;
    if (st.type != GD_FT_DIR)
        return GD_ENOTDIR;
    return replace(&o->root, dir);
}

enum gd_status gd_options_set_env(struct gd_options *o, const char *name_equals_value)
{
    if (!o)
        return GD_EINVAL;
    return gd_env_put(o->extra, name_equals_value);
}

enum gd_status gd_options_clear_env(struct gd_options *o)
{
    if (!o)
        return GD_EINVAL;
    gd_env_clear(o->extra);
    o->clear_env = true;
    return GD_OK;
}

enum gd_status gd_options_set_calls(struct gd_options *o, bool enabled)
{
    if (!o)
        return GD_EINVAL;
    o->calls = enabled;
    return GD_OK;
}

enum gd_status gd_options_set_host_os(struct gd_options *o, const char *os)
{
    if (!o || !os || (strcmp(os, "linux") != 0 && strcmp(os, "windows") != 0))
        return GD_EINVAL;
    return replace(&o->host_os, os);
}

enum gd_status gd_options_set_import(struct gd_options *o, enum gd_import_mode mode)
{
    if (!o || (mode != GD_IMPORT_OFF && mode != GD_IMPORT_CHOSEN && mode != GD_IMPORT_ALL))
        return GD_EINVAL;
    o->import_mode = mode;
    return GD_OK;
}

enum gd_status gd_options_set_import_timeout(struct gd_options *o, unsigned seconds)
{
    if (!o || seconds < 1 || seconds > GD_IMPORT_TIMEOUT_MAX)
        return GD_EINVAL;
    o->import_timeout_s = seconds;
    return GD_OK;
}

enum gd_status gd_options_set_devices(struct gd_options *o, bool enabled)
{
    if (!o)
        return GD_EINVAL;
    o->no_devices = !enabled;
    return GD_OK;
}

enum gd_status gd_options_set_timeout(struct gd_options *o, unsigned seconds)
{
    /* Beyond a day it is a mistake, and the milliseconds must fit an unsigned. */
    if (!o || seconds > 86400)
        return GD_EINVAL;
    o->timeout_ms = seconds * 1000;
    return GD_OK;
}

enum gd_status gd_options_set_progress(struct gd_options *o, gd_progress_fn fn, void *user)
{
    if (!o)
        return GD_EINVAL;
    o->progress = fn;
    o->progress_user = user;
    return GD_OK;
}

enum gd_status gd_options_add_python(struct gd_options *o, const char *path)
{
    if (!o || !path || !*path)
        return GD_EINVAL;
    return gd_strlist_push(&o->pythons, path);
}

enum gd_status gd_options_add_site(struct gd_options *o, const char *dir)
{
    if (!o || !dir || !*dir)
        return GD_EINVAL;
    return gd_strlist_push(&o->sites, dir);
}

enum gd_status gd_options_set_kb_dir(struct gd_options *o, const char *dir)
{
    if (!o)
        return GD_EINVAL;
    return replace(&o->kb_dir, dir);
}

/* An environment file is a few KiB; this cap keeps a mistaken path (a log, an image) out. */
#define ENV_FILE_MAX (1024 * 1024)

static bool put_var(void *user, const char *key, const char *value, size_t line)
{
    (void)line;
    return gd_env_set(user, key, value) == GD_OK;
}

enum gd_status gd_options_load_env_file(struct gd_options *o, const char *path, size_t *bad_lines)
{
    if (bad_lines)
        *bad_lines = 0;
    if (!o || !path)
        return GD_EINVAL;
    char *data = NULL;
    size_t len = 0;
    enum gd_status st = gd_os_read_file(path, ENV_FILE_MAX, &data, &len);
    if (st == GD_OK)
        st = gd_parse_kv(data, len, GD_KV_PLAIN, put_var, o->extra, bad_lines);
    gd_free(data);
    return st;
}
