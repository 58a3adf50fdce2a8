/* gd_os_read_file: a whole file read through the platform's open and pread. */
#include "core/buf.h"
#include "os/os.h"

enum gd_status gd_os_read_file(const char *path, size_t cap, char **data, size_t *len)
{
    *data = NULL;
    if (len)
        *len = 0;
    struct gd_os_file *f;
    enum gd_status st = gd_os_open_read(path, false, &f);
    if (st != GD_OK)
        return st;
    struct gd_buf b;
    gd_buf_init(&b, cap);
    char chunk[16384];
    unsigned long long off = 0;
    size_t got;
    while ((st = gd_os_pread(f, chunk, sizeof chunk, off, &got)) == GD_OK && got) {
        gd_buf_add(&b, chunk, got);
        off += got;
        if ((st = gd_buf_status(&b)) != GD_OK)
            break;
    }
    gd_os_close(f);
    if (st != GD_OK) {
        gd_buf_free(&b);
        return st;
    }
    return gd_buf_take(&b, data, len);
}
