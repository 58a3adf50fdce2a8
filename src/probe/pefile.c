/* DLLs of the root read as PE images (pefile.h). */
#include "probe/pefile.h"

#include "os/os.h"

#include <string.h>

static enum gd_status read_file(void *ctx, void *buf, size_t n, uint64_t offset, size_t *got)
{
    return gd_os_pread(ctx, buf, n, offset, got);
}

enum gd_status gd_probe_read_dll(struct gd_root *root, const char *path, struct gd_pe **pe,
                                 struct gd_pe_version *version, enum gd_status *version_status)
{
    *pe = NULL;
    memset(version, 0, sizeof *version);
    *version_status = GD_ENOENT;
    struct gd_os_file *f = NULL;
    enum gd_status st = gd_root_open(root, path, &f);
    if (st != GD_OK)
        return st;
    struct gd_os_stat s;
    st = gd_os_file_stat(f, &s);
    if (st == GD_OK) {
        struct gd_pe_source src = { read_file, f, s.size };
        st = gd_pe_read(&src, pe);
        if (st == GD_OK)
            *version_status = gd_pe_version_read(&src, *pe, version);
    }
    gd_os_close(f);
    if (st == GD_OK && *version_status == GD_ENOMEM) {
        gd_pe_free(*pe);
        *pe = NULL;
        st = GD_ENOMEM;
    }
    return st;
}
