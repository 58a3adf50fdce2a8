/* The C library version of the inspected system: the live one answers confstr(); a foreign tree
 * is read, never run. */
#include "probe/probe.h"

#include "core/alloc.h"
#include "core/str.h"
#include "parse/libc.h"

#include <stdio.h>
#include <string.h>

/* libc.so.6 is about 2 MiB; a banner search past this size means something odd is there. */
#define LIBC_READ_MAX (16 * 1024 * 1024)

/* GD_OK when found in `dir`, GD_ENOENT when not, GD_ENOMEM. */
static enum gd_status from_dir(struct gd_root *root, const char *dir, char *version, size_t size,
                               enum gd_source_kind *kind, char *ref, size_t refsize)
{
    struct gd_names names;
    enum gd_status ls = gd_root_list(root, dir, &names);
    if (ls != GD_OK)
        return ls == GD_ENOMEM ? ls : GD_ENOENT;
    bool found = false;
    for (size_t i = 0; i < names.count && !found; i++) {
        if (gd_libc_version_from_name(names.names[i], version, size)) {
            snprintf(ref, refsize, "%s/%s", dir, names.names[i]);
            *kind = GD_SOURCE_PATH;
            found = true;
        }
    }
    gd_names_free(&names);
    if (found)
        return GD_OK;
    char *path = gd_path_join(dir, "libc.so.6");
    if (!path)
        return GD_ENOMEM;
    char *data = NULL;
    size_t len;
    enum gd_status st = gd_root_read_file(root, path, LIBC_READ_MAX, &data, &len);
    if (st == GD_OK && gd_libc_version_from_banner(data, len, version, size)) {
        snprintf(ref, refsize, "%s", path);
        *kind = GD_SOURCE_FILE;
        found = true;
    }
    gd_free(data);
    gd_free(path);
    return found ? GD_OK : st == GD_ENOMEM ? GD_ENOMEM : GD_ENOENT;
}

enum gd_status gd_glibc_version(struct gd_root *root, char *version, size_t size,
                                enum gd_source_kind *kind, char *ref, size_t refsize)
{
    if (gd_root_is_live(root)) {
        char text[64];
        /* confstr answers "glibc 2.36": the C library every program here runs on. */
        if (gd_os_libc_version(text, sizeof text) == GD_OK) {
            snprintf(version, size, "%s", gd_str_starts_with(text, "glibc ") ? text + 6 : text);
            snprintf(ref, refsize, "confstr(_CS_GNU_LIBC_VERSION)");
            *kind = GD_SOURCE_CALL;
            return GD_OK;
        }
    }
    static const char *const dirs[] = { "/lib/x86_64-linux-gnu",
                                        "/lib/aarch64-linux-gnu",
                                        "/lib64",
                                        "/lib",
                                        "/usr/lib64",
                                        "/usr/lib" };
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        enum gd_status st = from_dir(root, dirs[i], version, size, kind, ref, refsize);
        if (st != GD_ENOENT)
            return st;
    }
    return GD_ENOENT;
}
