/* The tables of data/kb/, embedded by the build (cmake/embed.cmake generates the definition). */
#ifndef GD_KB_EMBEDDED_H
#define GD_KB_EMBEDDED_H

#include <stddef.h>

struct gd_kb_blob {
    const char *name; /* table name: the file name without ".json" */
    const unsigned char *data;
    size_t len;
};

extern const struct gd_kb_blob gd_kb_embedded[];
extern const size_t gd_kb_embedded_count;

#endif
